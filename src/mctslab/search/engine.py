"""Choosing a search engine: ``engine="reference"``, ``"compiled"`` or ``"auto"``.

Both engines take the same :class:`~mctslab.search.mcts.SearchConfig` and return the
same :class:`~mctslab.search.mcts.SearchResult`; from the same seed they build the
same tree. ``"auto"`` (the default) picks the compiled engine for games with
rule kernels (every built-in game) and the reference engine for the others;
``workers > 1`` runs root parallelism (:mod:`~mctslab.search.parallel`).
"""

from __future__ import annotations

from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import GameInfo, State
from mctslab.search import kernel_chunks  # noqa: F401  (the built-in games' cached engine)
from mctslab.search.choice import (
    ENGINES,
    SLICE,
    SLICE_SECONDS,
    Searcher,
    compiled_refusal,
    has_kernels,
    single_searcher,
)
from mctslab.search.compiled import CompiledMCTS
from mctslab.search.config import SearchConfig
from mctslab.search.result import SearchResult
from mctslab.search.parallel import RootParallelSearcher

__all__ = [
    "ENGINES",
    "SLICE",
    "SLICE_SECONDS",
    "Searcher",
    "has_kernels",
    "make_searcher",
    "releases_gil",
    "search",
]


def make_searcher(config: SearchConfig, state: State, engine: str = "auto") -> Searcher:
    """A searcher for ``state``'s game with the chosen engine (``"auto"``: compiled if it can)."""
    if config.workers > 1:
        if engine not in ENGINES:
            raise InvalidConfigError(
                f"unknown engine {engine!r}; valid engines: {', '.join(ENGINES)}"
            )
        refusal = compiled_refusal(state)
        if engine == "compiled" and refusal is not None:
            raise InvalidConfigError(refusal)
        return RootParallelSearcher(config, engine)
    return single_searcher(config, state, engine)


def releases_gil(searcher: object) -> bool:
    """Whether a search by ``searcher`` leaves Python's GIL free nearly all the time, so
    that searches in several threads run in parallel: the compiled engine's (its
    compiled code releases it) and root parallelism's (the calling thread waits on its
    workers), except root parallelism with ``parallel="threads"`` on an engine that
    may be the reference one (which holds the GIL)."""
    if isinstance(searcher, CompiledMCTS):
        return True
    if isinstance(searcher, RootParallelSearcher):
        return searcher.config.parallel != "threads" or searcher.engine == "compiled"
    return False


def search(
    state: State,
    config: SearchConfig | None = None,
    game_info: GameInfo | None = None,
    engine: str = "auto",
) -> SearchResult:
    """One search from ``state`` with a fresh tree, on the chosen engine."""
    config = config or SearchConfig()
    searcher = make_searcher(config, state, engine)
    try:
        return searcher.search(state, game_info)
    finally:
        if isinstance(searcher, RootParallelSearcher):
            searcher.close()
