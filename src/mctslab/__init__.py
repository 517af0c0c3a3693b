"""mctslab: Monte Carlo Tree Search toolkit.

Write the rules of a game once; get a player, see why it plays, measure it.
"""

import mctslab.games  # noqa: F401  (registers the built-in games)
from mctslab.analysis.exploitability import exploitability, nash_conv
from mctslab.arena.ratings import GameOutcome, Ratings, compute_ratings
from mctslab.arena.sprt import Sprt, SprtConfig
from mctslab.arena.store import GameRecord, NotAStoreError, ResultStore
from mctslab.arena.tournament import ArenaConfig, Entrant, play_task, run_arena, run_sprt, schedule
from mctslab.core import registry as _registry
from mctslab.core.errors import (
    IllegalActionError,
    InvalidConfigError,
    InvalidSpecError,
    MctslabError,
    UnknownGameError,
)
from mctslab.core.game import CHANCE, TERMINAL, Game, GameInfo, ImperfectInformationState, State
from mctslab.core.python_state import PythonState
from mctslab.core.registry import available_games, make, register
from mctslab.core.rng import Rng
from mctslab.core.testing import check_game
from mctslab.players.player import Player, make_player, play_game
from mctslab.search.compiled import CompiledMCTS, search_many
from mctslab.search.engine import make_searcher, search
from mctslab.search.evaluators import Evaluator, LeafBatch, make_evaluator
from mctslab.search.ismcts import ISMCTS, PIMC, ISMCTSConfig, PIMCConfig
from mctslab.search.mcts import MCTS, ChildStats, SearchConfig, SearchResult
from mctslab.search.minimax import MinimaxResult, SolveResult, alphabeta, iterative_deepening, solve
from mctslab.search.puct import PuctConfig

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
    "Evaluator",
    "Game",
    "GameInfo",
    "GameOutcome",
    "GameRecord",
    "ISMCTSConfig",
    "IllegalActionError",
    "ImperfectInformationState",
    "InvalidConfigError",
    "InvalidSpecError",
    "LeafBatch",
    "MctslabError",
    "MinimaxResult",
    "NotAStoreError",
    "PIMCConfig",
    "Player",
    "PuctConfig",
    "PythonState",
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
    "iterative_deepening",
    "make",
    "make_evaluator",
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
    "search_many",
    "solve",
]

# Your packages' games (entry points "mctslab.games", MCTSLAB_GAME_MODULES) load when the
# registry is first asked, once all of mctslab is imported: a game module that imports
# from mctslab would find it half-initialised before.
_registry.allow_plugins()
