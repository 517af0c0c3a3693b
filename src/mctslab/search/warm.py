"""Warming the compiled engine: compile (or load from numba's cache) its code for the
built-in kernel games before a user's first move needs it.

The compiled engine's code for a built-in game (:mod:`mctslab.search.kernel_chunks`:
UCT's chunk, PUCT's chunk and PUCT's round over that game's kernels) is compiled the
first time a process searches the game, 15 to 50 s on a laptop, and written to numba's
cache; a later process loads it from there in a second or two. :func:`warm` runs, for each
game, the four searches that need it (UCT; PUCT with a built-in evaluator; PUCT with an
evaluator written in Python, as a network is; several PUCT searches stepped together, as
training's self-play runs them), each of two iterations, and says how long each game
took. ``mctslab warm`` runs it; ``make run`` and ``make test`` run that once they have
installed the package, and the web lab's server warms the games it has not seen yet in a
background thread when it starts (``/api/health`` says which).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

import mctslab.games  # noqa: F401  (registers the built-in games)
from mctslab.core.errors import InvalidConfigError
from mctslab.core.registry import games_with, make
from mctslab.search.config import SearchConfig
from mctslab.search.engine import search
from mctslab.search.evaluators import LeafBatch
from mctslab.search.puct import PuctConfig

__all__ = ["WarmResult", "is_ready", "mark_ready", "warm", "warmable_games", "warming"]

# The games whose compiled code this process has loaded (warmed, or searched), and the
# game a warm() is on: what the web lab tells the page before a first move.
_READY: set[str] = set()
_WARMING: list[str] = []
_LOCK = threading.Lock()


def is_ready(game: str) -> bool:
    """Whether this process has the compiled engine's code for ``game`` loaded."""
    with _LOCK:
        return game in _READY


def mark_ready(game: str) -> None:
    """Note that ``game``'s compiled code is loaded (a compiled search of it ended)."""
    with _LOCK:
        _READY.add(game)


def warming() -> str | None:
    """The game a :func:`warm` of this process is compiling (or loading) now, if any."""
    with _LOCK:
        return _WARMING[-1] if _WARMING else None


@dataclass(frozen=True)
class WarmResult:
    """A game warmed: its name and the seconds its four searches took (compiling, or
    loading from numba's cache)."""

    game: str
    seconds: float


def warmable_games() -> list[str]:
    """The built-in games with rule kernels (the compiled engine's games), two-player
    and more: the single-player ones are searched by :mod:`mctslab.search.single`."""
    return sorted(name for name in games_with("kernels") if make(name).info.num_players >= 2)


def _python_evaluator(batch: LeafBatch) -> tuple[np.ndarray, np.ndarray]:
    """Uniform priors and value 0, written in Python: the path a network takes."""
    mask = batch.legal_mask
    return mask.astype(np.float32), np.zeros(len(mask), dtype=np.float32)


def warm_game(name: str) -> float:
    """Run the four searches of ``name`` that compile its code (module docstring); their
    seconds."""
    from mctslab.search.compiled import CompiledMCTS, search_many

    t = time.perf_counter()
    state = make(name).new_initial_state()
    search(state, SearchConfig(iterations=2, seed=0), engine="compiled")
    for evaluator in ("uniform", _python_evaluator):
        puct = SearchConfig(iterations=2, seed=0, puct=PuctConfig(evaluator=evaluator))
        search(state, puct, engine="compiled")
    puct = SearchConfig(iterations=2, seed=0, puct=PuctConfig(evaluator=_python_evaluator))
    search_many([CompiledMCTS(puct), CompiledMCTS(puct)], [state, state.clone()])
    return time.perf_counter() - t


def warm(
    games: Sequence[str] | None = None,
    on_game: Callable[[str], None] | None = None,
) -> list[WarmResult]:
    """Warm ``games`` (default: :func:`warmable_games`) in turn; ``on_game(name)`` is told
    each before it starts. An unknown game, or one the compiled engine does not search,
    raises :class:`~mctslab.core.errors.InvalidConfigError` before any is warmed."""
    known = warmable_games()
    chosen = list(games) if games else known
    unknown = [g for g in chosen if g not in known]
    if unknown:
        raise InvalidConfigError(
            f"cannot warm {', '.join(map(repr, unknown))}: the compiled engine's games are "
            f"{', '.join(known)}"
        )
    out = []
    for name in chosen:
        if on_game is not None:
            on_game(name)
        with _LOCK:
            _WARMING.append(name)
        try:
            out.append(WarmResult(name, warm_game(name)))
        finally:
            with _LOCK:
                _WARMING.remove(name)
        mark_ready(name)
    return out
