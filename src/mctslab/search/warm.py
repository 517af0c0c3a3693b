"""Warming the compiled engine: compile (or load from numba's cache) its code for the
built-in kernel games before a user's first move needs it.

The compiled engine's code for a built-in game (:mod:`mctslab.search.kernel_chunks`:
UCT's chunk, PUCT's chunk and PUCT's round over that game's kernels) is compiled the
first time a process searches the game, 15 to 50 s on a laptop, and written to numba's
cache; a later process loads it from there in a second or two. :func:`warm` runs, for each
game, the four searches that need it (UCT; PUCT with a built-in evaluator; PUCT with an
evaluator written in Python, as a network is; several PUCT searches stepped together, as
training's self-play runs them), each of two iterations, and says how long each game
took. ``mctslab warm`` runs it (``make test`` first of all), tic-tac-toe, Connect Four
and Go first (:data:`FIRST`, every path), then the other games.

The web lab's server runs ``mctslab warm`` in a child process when it starts (a thread
would hold the server's interpreter while numba compiles, and the page would not load),
at a lower priority than the server, and hears each
step it ends (``warmed GAME (PATH) in S s`` on its stderr): :func:`mark_cached`. A session
says ``engine_ready`` once its game's code is in this process or in numba's cache.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

import mctslab.games  # noqa: F401  (registers the built-in games)
from mctslab.core.errors import InvalidConfigError
from mctslab.core.registry import games_with, make
from mctslab.search.config import SearchConfig
from mctslab.search.engine import search
from mctslab.search.evaluators import LeafBatch
from mctslab.search.puct import PuctConfig
from mctslab.search.rules import puct_config

__all__ = [
    "PATHS",
    "WarmResult",
    "is_ready",
    "mark_cached",
    "mark_ready",
    "path_of",
    "warm",
    "warm_path",
    "warmable_games",
    "warming",
]

# The games whose compiled code this process has loaded (warmed, or searched), and the
# game a warm() is on: what the web lab tells the page before a first move.
_READY: set[tuple[str, str]] = set()
_CACHED: set[tuple[str, str]] = set()  # written to numba's cache by another process
_WARMING: list[str] = []
_LOCK = threading.Lock()


def is_ready(game: str, path: str = "uct") -> bool:
    """Whether the compiled engine's code for ``game``'s searches on ``path``
    (:data:`PATHS`) is loaded in this process, or in numba's cache (:func:`mark_cached`):
    a first search then does not wait for the compiler."""
    with _LOCK:
        return (game, path) in _READY or (game, path) in _CACHED


def mark_cached(game: str, path: str) -> None:
    """Note that another process (the server's warm-up) wrote ``game``'s code for
    ``path`` to numba's cache: this process loads it in a second or two."""
    with _LOCK:
        _CACHED.add((game, path))


def mark_ready(game: str, path: str = "uct") -> None:
    """Note that ``game``'s compiled code for ``path`` is loaded (a search of it ended)."""
    with _LOCK:
        _READY.add((game, path))


def warming() -> str | None:
    """The game a :func:`warm` of this process is compiling (or loading) now, if any."""
    with _LOCK:
        return _WARMING[-1] if _WARMING else None


@dataclass(frozen=True)
class WarmResult:
    """A game warmed: its name and the seconds its searches on every path took
    (compiling, or loading from numba's cache)."""

    game: str
    seconds: float


#: The games warmed first: the ones a new user meets first on the page and in the README.
FIRST = ("tic_tac_toe", "connect_four", "go")


def warmable_games() -> list[str]:
    """The built-in games with rule kernels (the compiled engine's games), two-player
    and more (the single-player ones are searched by :mod:`mctslab.search.single`):
    :data:`FIRST` first, then the others by name."""
    names = sorted(name for name in games_with("kernels") if make(name).info.num_players >= 2)
    return [n for n in FIRST if n in names] + [n for n in names if n not in FIRST]


def _python_evaluator(batch: LeafBatch) -> tuple[np.ndarray, np.ndarray]:
    """Uniform priors and value 0, written in Python: the path a network takes."""
    mask = batch.legal_mask
    return mask.astype(np.float32), np.zeros(len(mask), dtype=np.float32)


#: What a warm-up compiles for each game, in the order users need it: UCT (the page's and
#: the CLI's default), PUCT with a built-in evaluator, PUCT with an evaluator written in
#: Python (a network's path), and several PUCT searches stepped together (self-play's).
PATHS = ("uct", "puct", "network", "batch")


def path_of(config: SearchConfig) -> str:
    """The :data:`PATHS` entry a search with ``config`` runs on."""
    if not config.rule.evaluated:
        return "uct"
    evaluator = puct_config(config).evaluator
    named = isinstance(evaluator, str) and not evaluator.startswith("network")
    return "puct" if named else "network"


def warm_path(name: str, path: str) -> float:
    """Run the search of ``name`` on ``path`` that compiles its code; its seconds."""
    from mctslab.search.compiled import CompiledMCTS, search_many

    t = time.perf_counter()
    state = make(name).new_initial_state()
    if path == "uct":
        search(state, SearchConfig(iterations=2, seed=0), engine="compiled")
    elif path in ("puct", "network"):
        evaluator: Any = "uniform" if path == "puct" else _python_evaluator
        puct = SearchConfig(iterations=2, seed=0, puct=PuctConfig(evaluator=evaluator))
        search(state, puct, engine="compiled")
    elif path == "batch":
        puct = SearchConfig(iterations=2, seed=0, puct=PuctConfig(evaluator=_python_evaluator))
        search_many([CompiledMCTS(puct), CompiledMCTS(puct)], [state, state.clone()])
    else:
        raise InvalidConfigError(f"unknown path {path!r}; the paths: {', '.join(PATHS)}")
    return time.perf_counter() - t


def warm(
    games: Sequence[str] | None = None,
    on_step: Callable[[str, str], None] | None = None,
    on_done: Callable[[str, str, float], None] | None = None,
) -> list[WarmResult]:
    """Warm ``games`` (default: :func:`warmable_games`), the searches people start first
    ready first: the :data:`FIRST` games among them path by path (:data:`PATHS`), then the
    others path by path. ``on_step(game, path)`` is told each step before it starts,
    ``on_done(game, path, seconds)`` after it ends. An unknown game, or one the compiled
    engine does not search, raises :class:`~mctslab.core.errors.InvalidConfigError`
    before any is warmed."""
    known = warmable_games()
    chosen = list(games) if games else known
    unknown = [g for g in chosen if g not in known]
    if unknown:
        raise InvalidConfigError(
            f"cannot warm {', '.join(map(repr, unknown))}: the compiled engine's games are "
            f"{', '.join(known)}"
        )
    seconds = dict.fromkeys(chosen, 0.0)
    first = [g for g in chosen if g in FIRST]
    steps = [
        (g, p)
        for group in (first, [g for g in chosen if g not in FIRST])
        for p in PATHS
        for g in group
    ]
    for name, path in steps:
        if on_step is not None:
            on_step(name, path)
        with _LOCK:
            _WARMING.append(name)
        try:
            took = warm_path(name, path)
        finally:
            with _LOCK:
                _WARMING.remove(name)
        seconds[name] += took
        mark_ready(name, path)
        if on_done is not None:
            on_done(name, path, took)
    return [WarmResult(name, seconds[name]) for name in chosen]
