"""Engine choice in one process: ``engine="reference"``, ``"compiled"`` or ``"auto"``.

Below :mod:`~mctslab.search.parallel` and :mod:`~mctslab.search.engine`, which both
make single searchers with :func:`single_searcher` (a root-parallel worker makes its
own, so the choice cannot live with ``make_searcher`` without an import cycle).
"""

from __future__ import annotations

from typing import Protocol

from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import GameInfo, State, has_chance_nodes
from mctslab.search.compiled import CompiledMCTS
from mctslab.search.mcts import MCTS, SearchConfig, SearchResult

__all__ = ["ENGINES", "Searcher", "compiled_refusal", "has_kernels", "single_searcher"]

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


def single_searcher(config: SearchConfig, state: State, engine: str = "auto") -> Searcher:
    """One searcher (no worker processes) for ``state``'s game with the chosen engine."""
    if engine not in ENGINES:
        raise InvalidConfigError(f"unknown engine {engine!r}; valid engines: {', '.join(ENGINES)}")
    refusal = compiled_refusal(state)
    if engine == "compiled" and refusal is not None:
        raise InvalidConfigError(refusal)
    if engine == "compiled" or (engine == "auto" and refusal is None):
        return CompiledMCTS(config)
    return MCTS(config)
