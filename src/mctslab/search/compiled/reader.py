"""A reader of the compiled tree (:class:`~mctslab.search.tree_reader.TreeReader` over
the struct of arrays of :mod:`~mctslab.search.compiled.tree`): what the tree view walks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mctslab.search.compiled.tree import (
    AMAF_SUM,
    AMAF_VISITS,
    BIAS,
    KNOW_VISITS,
    KNOW_WINS,
    NONE,
    ROOT,
    SQUARES,
    TREE_FIELDS,
    UNPROVEN,
)
from mctslab.search.tree_reader import NodeStats

__all__ = ["CompiledReader"]


class CompiledReader:
    """The compiled tree's nodes (ids into its arrays, fields named by ``TREE_FIELDS``),
    ``prior`` PUCT's priors by node id (``None`` or empty under UCT), ``history`` the
    moves of the searched position."""

    def __init__(self, tree: tuple[Any, ...], history: list[int], prior: Any = None) -> None:
        self._history = list(history)
        self._prior = prior if prior is not None and len(prior) > 0 else None
        field = {name: tree[i] for i, (name, _) in enumerate(TREE_FIELDS)}
        self._first_child = field["first_child"]
        self._next_sibling = field["next_sibling"]
        self._action = field["action"]
        self._visits = field["visits"]
        self._value_sum = field["value_sum"]
        self._n_untried = field["n_untried"]
        self._proven = field["proven"]
        # RAVE's and progressive bias's rows (Tree.stats): none when both are off.
        stats = tree[len(TREE_FIELDS)] if len(tree) > len(TREE_FIELDS) else None
        self._stats = stats if stats is not None and stats.shape[0] > 0 else None

    @property
    def history(self) -> list[int]:
        return self._history

    def root(self) -> int:
        return ROOT  # the compiled engine's root is always node 0 (reuse compacts the tree)

    def children(self, node: int) -> Sequence[int]:
        out, ch = [], int(self._first_child[node])
        while ch != NONE:
            out.append(ch)
            ch = int(self._next_sibling[ch])
        return out

    def stats(self, node: int) -> NodeStats:
        proven = int(self._proven[node])
        amaf_visits, amaf_sum, bias, squares = 0, 0.0, 0.0, 0.0
        prior_visits, prior_wins = 0.0, 0.0
        if self._stats is not None:
            amaf_visits = int(self._stats[AMAF_VISITS, node])
            amaf_sum = float(self._stats[AMAF_SUM, node])
            bias = float(self._stats[BIAS, node])
            if self._stats.shape[0] > SQUARES:
                squares = float(self._stats[SQUARES, node])
            if self._stats.shape[0] > KNOW_WINS:
                prior_visits = float(self._stats[KNOW_VISITS, node])
                prior_wins = float(self._stats[KNOW_WINS, node])
        return NodeStats(
            int(self._action[node]),
            int(self._visits[node]),
            float(self._value_sum[node]),
            None if proven == UNPROVEN else proven,
            int(self._n_untried[node]),
            None if self._prior is None else float(self._prior[node]),
            amaf_visits,
            amaf_sum,
            bias,
            squares,
            prior_visits,
            prior_wins,
        )
