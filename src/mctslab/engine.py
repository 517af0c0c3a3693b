"""Choosing a search engine: ``engine="reference"``, ``"compiled"`` or ``"auto"``.

Both engines take the same :class:`~mctslab.mcts.SearchConfig` and return the
same :class:`~mctslab.mcts.SearchResult`; from the same seed they build the
same tree. ``"auto"`` (the default) picks the compiled engine for games with
rule kernels (every built-in game) and the reference engine for the others.
"""

from __future__ import annotations

from typing import Protocol

from mctslab.compiled import CompiledMCTS
from mctslab.errors import InvalidConfigError
from mctslab.game import GameInfo, State, has_chance_nodes
from mctslab.mcts import MCTS, SearchConfig, SearchResult
from mctslab.parallel import RootParallelSearcher

__all__ = ["ENGINES", "Searcher", "has_kernels", "make_searcher", "search"]

ENGINES = ("auto", "reference", "compiled")


class Searcher(Protocol):
    """What both engines offer: a config, ``search``, ``reset`` and the root's statistics."""

    config: SearchConfig

    def search(self, state: State, game_info: GameInfo | None = None) -> SearchResult: ...

    def reset(self) -> None: ...

    def root_children(self) -> list[tuple[int, int, float, int | None]]: ...


def has_kernels(state: State) -> bool:
    """Whether ``state`` belongs to a game with rule kernels and no chance nodes (the
    compiled engine runs it)."""
    return _compiled_refusal(state) is None


def _compiled_refusal(state: State) -> str | None:
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


def make_searcher(config: SearchConfig, state: State, engine: str = "auto") -> Searcher:
    """A searcher for ``state``'s game with the chosen engine (``"auto"``: compiled if it can)."""
    if engine not in ENGINES:
        raise InvalidConfigError(f"unknown engine {engine!r}; valid engines: {', '.join(ENGINES)}")
    refusal = _compiled_refusal(state)
    if engine == "compiled" and refusal is not None:
        raise InvalidConfigError(refusal)
    if config.workers > 1:
        return RootParallelSearcher(config, engine)
    if engine == "compiled" or (engine == "auto" and refusal is None):
        return CompiledMCTS(config)
    return MCTS(config)


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
