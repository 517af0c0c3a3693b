"""mctslab: Monte Carlo Tree Search toolkit.

Write the rules of a game once; get a player, see why it plays, measure it.
"""

from mctslab.errors import (
    IllegalActionError,
    InvalidConfigError,
    InvalidSpecError,
    MctslabError,
    UnknownGameError,
)
from mctslab.game import CHANCE, TERMINAL, Game, GameInfo, State
from mctslab.registry import available_games, make, register

__version__ = "0.1.0"

__all__ = [
    "CHANCE",
    "TERMINAL",
    "Game",
    "GameInfo",
    "IllegalActionError",
    "InvalidConfigError",
    "InvalidSpecError",
    "MctslabError",
    "State",
    "UnknownGameError",
    "available_games",
    "make",
    "register",
]
