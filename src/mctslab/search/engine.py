"""Choosing a search engine: ``engine="reference"``, ``"compiled"`` or ``"auto"``.

Both engines take the same :class:`~mctslab.search.config.SearchConfig` and return the
same :class:`~mctslab.search.result.SearchResult`; from the same seed they build the
same tree. ``"auto"`` (the default) picks the compiled engine for games with
rule kernels (every built-in game) and the reference engine for the others;
``workers > 1`` runs root parallelism (:mod:`~mctslab.search.parallel`), whose workers
make their searchers with :func:`single_searcher`, passed to it as its ``single``
factory: this module stands above both engines and root parallelism, none of which
imports it.

The :class:`Searcher` protocol is what every searcher offers, so that callers never
ask which engine they hold.
"""

from __future__ import annotations

from typing import Any, Protocol

from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import GameInfo, State, has_chance_nodes
from mctslab.search import kernel_chunks  # noqa: F401  (the built-in games' cached engine)
from mctslab.search.budget import SLICE_SECONDS
from mctslab.search.compiled import CompiledMCTS
from mctslab.search.config import SearchConfig
from mctslab.search.mcts import MCTS
from mctslab.search.parallel import RootParallelSearcher
from mctslab.search.result import SearchResult, Slices
from mctslab.search.tree_reader import TreeReader

__all__ = [
    "ENGINES",
    "Searcher",
    "compiled_refusal",
    "has_kernels",
    "make_searcher",
    "releases_gil",
    "search",
    "single_searcher",
]

ENGINES = ("auto", "reference", "compiled")


class Searcher(Protocol):
    """What every searcher offers (the reference engine :class:`~mctslab.search.mcts.MCTS`,
    the compiled one :class:`~mctslab.search.compiled.CompiledMCTS`, root parallelism's
    :class:`~mctslab.search.parallel.RootParallelSearcher`), so that callers never ask
    which one they hold.

    - :meth:`search`: one search within the budget of ``config`` (by default the
      searcher's own :attr:`config`; a caller with a budget of its own for this search, a
      clock's, passes it instead of writing :attr:`config`).
    - :meth:`search_slices`: the same search, in slices of about ``slice_seconds`` of
      search, a result after each. The engine owns the loop: the budget (iterations,
      time, ``max_nodes``, robust-max's extension, early stop with the most visited
      child's lead) is judged across slices exactly as one :meth:`search` judges it, so
      that run to its end it returns what :meth:`search` returns (the same tree from the
      same seed, under an iteration budget); the time between slices is not search
      time. A caller that stops asking (``close()``) cancels the search between slices,
      the tree kept as it is. The web lab's runner and GTP's live analysis run this way.
    - :meth:`reset`, :meth:`release`: forget the kept tree; free its memory at once.
    - :meth:`root_children`, :meth:`tree_size`: the kept tree's root statistics and
      ``(nodes, root visits)``; :meth:`tree_reader`: a reader of it
      (:class:`~mctslab.search.tree_reader.TreeReader`; ``None`` without a tree), what
      the tree view walks (root parallelism, with a tree per worker, refuses).
    - :attr:`node_kind`: ``"reference"`` (a node of Python objects) or ``"compiled"``
      (a node of a few array slots): what a cap on a tree's nodes is measured in.
    """

    config: SearchConfig

    def search(
        self,
        state: State,
        game_info: GameInfo | None = None,
        *,
        config: SearchConfig | None = None,
    ) -> SearchResult: ...

    def search_slices(
        self,
        state: State,
        game_info: GameInfo | None = None,
        *,
        config: SearchConfig | None = None,
        slice_seconds: float = SLICE_SECONDS,
    ) -> Slices: ...

    def reset(self) -> None: ...

    def release(self) -> None: ...

    def root_children(self) -> list[tuple[int, int, float, int | None]]: ...

    def tree_size(self) -> tuple[int, int]: ...

    def tree_reader(self) -> TreeReader[Any] | None: ...

    @property
    def node_kind(self) -> str: ...


def has_kernels(state: State) -> bool:
    """Whether ``state`` belongs to a game with rule kernels and no chance nodes (the
    compiled engine runs it)."""
    return compiled_refusal(state) is None


def compiled_refusal(state: State) -> str | None:
    """Why the compiled engine cannot search ``state``'s game, or ``None`` if it can."""
    game = getattr(state, "game", None)
    if not hasattr(state, "array") or getattr(game, "kernels", None) is None:
        return "engine='compiled' needs a game with rule kernels; use engine='reference'"
    if has_chance_nodes(game):
        name = game.info.name  # type: ignore[union-attr]
        return (
            f"engine='compiled' has no chance nodes and {name} has them (dice or deals); "
            "use engine='reference'"
        )
    return None


def _checked_refusal(state: State, engine: str) -> str | None:
    """:func:`compiled_refusal` of ``state`` once ``engine`` is known to be one of
    :data:`ENGINES` and, if ``"compiled"``, one that can search the game."""
    if engine not in ENGINES:
        raise InvalidConfigError(f"unknown engine {engine!r}; valid engines: {', '.join(ENGINES)}")
    refusal = compiled_refusal(state)
    if engine == "compiled" and refusal is not None:
        raise InvalidConfigError(refusal)
    return refusal


def single_searcher(config: SearchConfig, state: State, engine: str = "auto") -> Searcher:
    """One searcher (no worker processes) for ``state``'s game with the chosen engine: the
    factory :class:`~mctslab.search.parallel.RootParallelSearcher` is passed for its
    workers."""
    refusal = _checked_refusal(state, engine)
    if engine == "compiled" or (engine == "auto" and refusal is None):
        return CompiledMCTS(config)
    return MCTS(config)


def make_searcher(config: SearchConfig, state: State, engine: str = "auto") -> Searcher:
    """A searcher for ``state``'s game with the chosen engine (``"auto"``: compiled if it can)."""
    if config.workers > 1:
        _checked_refusal(state, engine)
        return RootParallelSearcher(config, engine, single=single_searcher)
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
