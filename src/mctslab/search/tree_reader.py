"""What a reader of a search tree sees, from either engine: :class:`NodeStats` and the
:class:`TreeReader` protocol.

A searcher hands out a reader of its kept tree (``tree_reader()``, part of the
:class:`~mctslab.search.engine.Searcher` protocol): the reference engine's over its
nodes (:class:`~mctslab.search.reference.tree.ReferenceReader`), the compiled one's over
its arrays (:class:`~mctslab.search.compiled.reader.CompiledReader`). The tree view
(:mod:`mctslab.analysis.treeview`) walks a reader, whichever engine built the tree, so it
never asks which one it holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

__all__ = ["NodeStats", "TreeReader"]

H = TypeVar("H")


@dataclass(frozen=True)
class NodeStats:
    """One node's statistics as its engine keeps them: the action into it, ``visits``
    and ``value_sum`` (of the player who moved into it, on ``[0, 1]``), its proof for
    player 0 (``None``: unproven), its legal actions without a child (``untried``), and
    where the search keeps them: PUCT's ``prior``, RAVE's all-moves-as-first count and
    sum, progressive bias's ``w * H``, UCB1-Tuned's sum of squared rewards, prior
    knowledge's virtual visits and wins (0 where not kept)."""

    action: int
    visits: int
    value_sum: float
    proven: int | None
    untried: int
    prior: float | None = None
    amaf_visits: int = 0
    amaf_sum: float = 0.0
    bias: float = 0.0
    squares: float = 0.0
    prior_visits: float = 0.0
    prior_wins: float = 0.0


class TreeReader(Protocol[H]):
    """A read-only walk of a kept tree: its root, a node's children (by ascending
    action), a node's statistics, and the moves of the position it was searched from
    (``history``: the tree's root is that position)."""

    @property
    def history(self) -> list[int]: ...

    def root(self) -> H: ...

    def children(self, node: H) -> Sequence[H]: ...

    def stats(self, node: H) -> NodeStats: ...
