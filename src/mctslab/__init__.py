"""mctslab: Monte Carlo Tree Search toolkit.

Write the rules of a game once; get a player, see why it plays, measure it.
"""

from mctslab.compiled import CompiledMCTS
from mctslab.engine import make_searcher, search
from mctslab.errors import (
    IllegalActionError,
    InvalidConfigError,
    InvalidSpecError,
    MctslabError,
    UnknownGameError,
)
from mctslab.game import CHANCE, TERMINAL, Game, GameInfo, State
from mctslab.mcts import MCTS, ChildStats, SearchConfig, SearchResult
from mctslab.minimax import MinimaxResult, SolveResult, alphabeta, solve
from mctslab.players import Player, make_player, play_game
from mctslab.registry import available_games, make, register
from mctslab.rng import Rng
from mctslab.testing import check_game

__version__ = "0.1.0"

__all__ = [
    "CHANCE",
    "MCTS",
    "TERMINAL",
    "ChildStats",
    "CompiledMCTS",
    "Game",
    "GameInfo",
    "IllegalActionError",
    "InvalidConfigError",
    "InvalidSpecError",
    "MctslabError",
    "MinimaxResult",
    "Player",
    "Rng",
    "SearchConfig",
    "SearchResult",
    "SolveResult",
    "State",
    "UnknownGameError",
    "alphabeta",
    "available_games",
    "check_game",
    "make",
    "make_player",
    "make_searcher",
    "play_game",
    "register",
    "search",
    "solve",
]
