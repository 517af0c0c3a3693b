"""mctslab: Monte Carlo Tree Search toolkit.

Write the rules of a game once; get a player, see why it plays, measure it.

The names here are the toolkit's front door (30 of them, as mctx keeps its face small):
the game API (:class:`Game`, :class:`State`, :func:`make`, :func:`register`, ...), the
search (:func:`search`, :func:`make_searcher`, :class:`SearchConfig`, :class:`SearchResult`,
the reference engine :class:`MCTS` and its compiled twin :class:`CompiledMCTS`, PUCT's
:class:`PuctConfig` and its evaluators), the exact solver :func:`solve`, the players
(:func:`make_player`, :func:`play_game`), the single-player searches (:func:`optimize`),
the errors and :func:`check_game`. Everything else is in its subpackage:
:mod:`mctslab.arena` (tournaments, ratings, SPRT, the results store),
:mod:`mctslab.search.ismcts` (hidden information), :mod:`mctslab.search.minimax`,
:mod:`mctslab.search.compiled` (``search_many``), :mod:`mctslab.analysis`, ...
``import mctslab`` imports neither the arena nor its SQLite store.
"""

import mctslab.core.compiled_cache  # first: clears numba's cache if the sources changed
import mctslab.games  # noqa: F401  (registers the built-in games)
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
from mctslab.core.testing import check_game
from mctslab.players.optimizers import optimize
from mctslab.players.player import Player, make_player, play_game
from mctslab.search.compiled import CompiledMCTS
from mctslab.search.config import SearchConfig
from mctslab.search.engine import make_searcher, search
from mctslab.search.evaluators import Evaluator, make_evaluator
from mctslab.search.mcts import MCTS
from mctslab.search.minimax import solve
from mctslab.search.puct import PuctConfig
from mctslab.search.result import SearchResult

__version__ = "0.2.0"

__all__ = [
    "CHANCE",
    "MCTS",
    "TERMINAL",
    "CompiledMCTS",
    "Evaluator",
    "Game",
    "GameInfo",
    "IllegalActionError",
    "ImperfectInformationState",
    "InvalidConfigError",
    "InvalidSpecError",
    "MctslabError",
    "Player",
    "PuctConfig",
    "PythonState",
    "SearchConfig",
    "SearchResult",
    "State",
    "UnknownGameError",
    "available_games",
    "check_game",
    "make",
    "make_evaluator",
    "make_player",
    "make_searcher",
    "optimize",
    "play_game",
    "register",
    "search",
    "solve",
]

# Your packages' games (entry points "mctslab.games", MCTSLAB_GAME_MODULES) load when the
# registry is first asked, once all of mctslab is imported: a game module that imports
# from mctslab would find it half-initialised before.
_registry.allow_plugins()
