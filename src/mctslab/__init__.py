"""mctslab: Monte Carlo Tree Search toolkit.

Write the rules of a game once; get a player, see why it plays, measure it.
"""

from mctslab.arena import ArenaConfig, Entrant, play_task, run_arena, run_sprt, schedule
from mctslab.compiled import CompiledMCTS
from mctslab.engine import make_searcher, search
from mctslab.errors import (
    IllegalActionError,
    InvalidConfigError,
    InvalidSpecError,
    MctslabError,
    UnknownGameError,
)
from mctslab.exploitability import exploitability, nash_conv
from mctslab.game import CHANCE, TERMINAL, Game, GameInfo, ImperfectInformationState, State
from mctslab.ismcts import ISMCTS, PIMC, ISMCTSConfig, PIMCConfig
from mctslab.mcts import MCTS, ChildStats, SearchConfig, SearchResult
from mctslab.minimax import MinimaxResult, SolveResult, alphabeta, solve
from mctslab.players import Player, make_player, play_game
from mctslab.ratings import GameOutcome, Ratings, compute_ratings
from mctslab.registry import available_games, make, register
from mctslab.rng import Rng
from mctslab.sprt import Sprt, SprtConfig
from mctslab.store import GameRecord, NotAStoreError, ResultStore
from mctslab.testing import check_game

__version__ = "0.1.0"

__all__ = [
    "CHANCE",
    "ISMCTS",
    "MCTS",
    "PIMC",
    "TERMINAL",
    "ArenaConfig",
    "ChildStats",
    "CompiledMCTS",
    "Entrant",
    "Game",
    "GameInfo",
    "GameOutcome",
    "GameRecord",
    "ISMCTSConfig",
    "IllegalActionError",
    "ImperfectInformationState",
    "InvalidConfigError",
    "InvalidSpecError",
    "MctslabError",
    "MinimaxResult",
    "NotAStoreError",
    "PIMCConfig",
    "Player",
    "Ratings",
    "ResultStore",
    "Rng",
    "SearchConfig",
    "SearchResult",
    "SolveResult",
    "Sprt",
    "SprtConfig",
    "State",
    "UnknownGameError",
    "alphabeta",
    "available_games",
    "check_game",
    "compute_ratings",
    "exploitability",
    "make",
    "make_player",
    "make_searcher",
    "nash_conv",
    "play_game",
    "play_task",
    "register",
    "run_arena",
    "run_sprt",
    "schedule",
    "search",
    "solve",
]
