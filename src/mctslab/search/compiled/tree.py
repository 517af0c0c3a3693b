"""The compiled tree: a struct of preallocated arrays (mctx's ``Tree``).

Node ``i`` has ``visits[i]`` and ``value_sum[i]`` (the statistics of the player who
moved into it, that is its parent's ``to_play``), ``action[i]``, ``n_untried[i]`` (legal
actions with no child yet), ``to_play[i]``, ``proven[i]`` (1/0/-1 for player 0, else
:data:`UNPROVEN`), ``flags[i]`` (opened, terminal), and its children as a list sorted by
action: ``first_child[i]``, then ``next_sibling`` of each. Node 0 is the root. Here the
tree is made (:func:`allocate`, :func:`grow`), grown node by node (:func:`new_node`,
:func:`link`), its children moved together (:func:`relocate`) and re-rooted
(:func:`compact`); :func:`borrow` hands its arrays to the chunks without reference
counting.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from mctslab.core.game import TERMINAL
from mctslab.search.compiled.options import FREE, HIGH, NODES

UNPROVEN = 2
ROOT = 0  # the root's node id (mctx's ROOT_INDEX)
NONE = -1  # no child / no sibling
OPENED, TERMINAL_FLAG = 1, 2  # bits of flags[i]

# Rows of Tree.stats: under RAVE or progressive bias the first three, under a rule that
# declares the squared rewards (UCB1-Tuned) the fourth too, under prior knowledge the
# fifth and sixth (the virtual visits and wins a child starts with).
AMAF_VISITS, AMAF_SUM, BIAS, SQUARES, KNOW_VISITS, KNOW_WINS = 0, 1, 2, 3, 4, 5
STATS_ROWS = 6
#: The rows a search keeps, by the statistics its rule declares
#: (:attr:`mctslab.search.config.SearchConfig.statistics`): the rows up to the last one
#: any of them needs.
STATISTIC_ROWS = {"amaf": 2, "bias": 3, "squares": 4, "prior": 0, "knowledge": 6}


def stats_rows(statistics: tuple[str, ...]) -> int:
    """How many rows of ``Tree.stats`` a search whose rule declares ``statistics`` needs."""
    return max((STATISTIC_ROWS[s] for s in statistics), default=0)


# Rows of PUCT's per-node extra array (the node's prior; its own value, which Gumbel's
# completed Q-values read) and of the root's (noisy priors; Gumbel noise), by action.
PRIOR_ROW, RAW_ROW = 0, 1

#: The tree's arrays, one entry per node, in this order (31 bytes a node).
TREE_FIELDS = (
    ("first_child", np.int32),  # lowest-action child, or NONE
    ("next_sibling", np.int32),  # next child of the same parent by action, or NONE
    ("action", np.int32),  # the action that leads here
    ("visits", np.int32),  # N (2**31 iterations are far beyond any budget here)
    ("value_sum", np.float64),  # Q: float64, as the reference engine adds
    ("n_untried", np.int32),  # legal actions without a child yet
    ("to_play", np.int8),  # player to move here, once opened
    ("proven", np.int8),  # 1/0/-1 for player 0, or UNPROVEN
    ("flags", np.uint8),  # OPENED | TERMINAL_FLAG
)


class Tree(NamedTuple):
    """The compiled search tree: one array per field, one entry per node (mctx's ``Tree``).

    Every array has shape ``[capacity]``, allocated up front and doubled when full;
    node :data:`ROOT` (0) is the root and :data:`NONE` (-1) marks a missing child or
    sibling. Node ``i``'s children form a list sorted by action: ``first_child[i]``,
    then ``next_sibling`` of each. The dtypes are :data:`TREE_FIELDS`' (31 bytes a
    node); a ``Tree`` is a tuple, so numba passes it to compiled code as it is.

    Attributes:
        first_child: int32, the lowest-action child or ``NONE``.
        next_sibling: int32, the next child of the same parent by action, or ``NONE``.
        action: int32, the action that leads to the node.
        visits: int32, N.
        value_sum: float64, Q: the rewards of the player who moved into the node.
        n_untried: int32, legal actions without a child yet.
        to_play: int8, the player to move at the node (once opened).
        proven: int8, 1/0/-1 for player 0 under MCTS-Solver, else ``UNPROVEN``.
        flags: uint8, ``OPENED | TERMINAL_FLAG``.
        stats: float64 ``[rows, capacity]``: under RAVE or progressive bias (``rows =
            3``, 24 more bytes a node) a node's all-moves-as-first visits
            (:data:`AMAF_VISITS`) and reward sum (:data:`AMAF_SUM`) and progressive
            bias's ``w * H`` (:data:`BIAS`); under UCB1-Tuned (``rows = 4``) the sum of
            its squared rewards (:data:`SQUARES`) too; ``rows = 0`` otherwise
            (:func:`stats_rows`).
    """

    first_child: Any
    next_sibling: Any
    action: Any
    visits: Any
    value_sum: Any
    n_untried: Any
    to_play: Any
    proven: Any
    flags: Any
    stats: Any


def _borrow_typer(typingctx, arr):  # type: ignore[no-untyped-def]
    """The same array without its reference-count owner (a NULL ``meminfo``).

    numba counts references to every array passed to another compiled function,
    with atomic increments and decrements; in the search loop, which calls the rule
    kernels a few times a ply, that bookkeeping cost about half the time. The
    caller of :func:`run_chunk` owns every array for the whole call, so inside it
    the arrays can be passed as borrowed views, for which numba's reference
    counting is a no-op (it skips a NULL ``meminfo``).

    A borrowed view does not keep its memory alive: borrow only arrays that the
    caller owns for longer than the view is used (here, the arguments of the call).
    """
    if not isinstance(arr, types.Array):
        return None

    def codegen(context, builder, sig, args):  # type: ignore[no-untyped-def]
        ary = context.make_array(sig.args[0])(context, builder, value=args[0])
        ary.meminfo = cgutils.get_null_value(ary.meminfo.type)
        ary.parent = cgutils.get_null_value(ary.parent.type)
        return ary._getvalue()

    return arr(arr), codegen


borrow: Any = intrinsic(_borrow_typer)


@njit(inline="always")
def borrow_tree(tree):  # type: ignore[no-untyped-def]
    """The :class:`Tree` of borrowed views of ``tree``'s arrays (see :func:`borrow`): what
    the chunks work on."""
    return Tree(
        borrow(tree.first_child),
        borrow(tree.next_sibling),
        borrow(tree.action),
        borrow(tree.visits),
        borrow(tree.value_sum),
        borrow(tree.n_untried),
        borrow(tree.to_play),
        borrow(tree.proven),
        borrow(tree.flags),
        borrow(tree.stats),
    )


@njit(cache=True)
def new_node(tree, a, ctl):  # type: ignore[no-untyped-def]
    """A new node for action ``a``: a freed slot if there is one, else the next unused."""
    ctl[NODES] += 1
    i = ctl[FREE]
    if i >= 0:
        ctl[FREE] = tree.next_sibling[i]
    else:
        i = ctl[HIGH]
        ctl[HIGH] = i + 1
    tree.first_child[i] = NONE
    tree.next_sibling[i] = NONE
    tree.action[i] = a
    tree.visits[i] = 0
    tree.value_sum[i] = 0.0
    tree.n_untried[i] = 0
    tree.to_play[i] = TERMINAL
    tree.proven[i] = UNPROVEN
    tree.flags[i] = 0
    for r in range(tree.stats.shape[0]):
        tree.stats[r, i] = 0.0
    return i


@njit(inline="always")
def copy_node(src, o, dst, i):  # type: ignore[no-untyped-def]
    """Node ``o`` of tree ``src`` into slot ``i`` of tree ``dst``: every field but the
    sibling link (the caller relinks), ``first_child`` included."""
    dst.first_child[i] = src.first_child[o]
    dst.action[i] = src.action[o]
    dst.visits[i] = src.visits[o]
    dst.value_sum[i] = src.value_sum[o]
    dst.n_untried[i] = src.n_untried[o]
    dst.to_play[i] = src.to_play[o]
    dst.proven[i] = src.proven[o]
    dst.flags[i] = src.flags[o]
    for r in range(src.stats.shape[0]):
        dst.stats[r, i] = src.stats[r, o]


@njit(cache=True)
def relocate(tree, parent, ctl):  # type: ignore[no-untyped-def]
    """Move the children of ``parent``, which just became fully expanded, to consecutive
    slots after the last used one, in action order, and free their old slots.

    Under ``expansion="one"`` a node's children are made one visit at a time, so they
    lie far apart; from now on selection reads all of them at every visit, and
    consecutive nodes share cache lines (half of a 64-byte line holds one node's
    statistics in each array) and arrive together from memory. Nothing but the
    parent's ``first_child`` and the siblings' ``next_sibling`` points at a child, so
    the move changes no other node; the freed slots are reused by the next new nodes.
    Returns the first child's new id."""
    first_child, next_sibling = tree.first_child, tree.next_sibling
    ch = first_child[parent]
    dst = ctl[HIGH]
    first = dst
    while ch >= 0:
        nxt = next_sibling[ch]
        copy_node(tree, ch, tree, dst)
        next_sibling[dst] = dst + 1
        next_sibling[ch] = ctl[FREE]
        ctl[FREE] = ch
        dst += 1
        ch = nxt
    next_sibling[dst - 1] = NONE
    first_child[parent] = first
    ctl[HIGH] = dst
    return first


@njit(cache=True)
def link(tree, parent, child):  # type: ignore[no-untyped-def]
    """Insert ``child`` among ``parent``'s children, keeping them sorted by action."""
    first_child, next_sibling, action = tree.first_child, tree.next_sibling, tree.action
    a = action[child]
    prev = NONE
    ch = first_child[parent]
    while ch >= 0 and action[ch] < a:
        prev = ch
        ch = next_sibling[ch]
    next_sibling[child] = ch
    if prev < 0:
        first_child[parent] = child
    else:
        next_sibling[prev] = child


@njit(cache=True, nogil=True)
def compact(old, root, new, old_prior, new_prior):  # type: ignore[no-untyped-def]
    """Copy the subtree under ``root`` of :class:`Tree` ``old`` into the empty tree
    ``new`` (root at 0), breadth first, children in the same order; returns the number
    of nodes. Tree reuse keeps only what lies below the moves played. PUCT's priors
    move along from ``old_prior`` to ``new_prior`` (empty arrays under UCT)."""
    with_priors = old_prior.shape[1] > 0
    queue = np.empty(old.first_child.shape[0], dtype=np.int64)  # old ids, in new-id order
    queue[0] = root
    new.next_sibling[0] = NONE
    head = 0
    tail = 1
    while head < tail:
        o = queue[head]
        i = head
        head += 1
        copy_node(old, o, new, i)  # every field but the links, copied as it is
        if with_priors:
            new_prior[0, i] = old_prior[0, o]
            new_prior[1, i] = old_prior[1, o]
        new.first_child[i] = NONE  # (next_sibling[i] was set when i was queued)
        last = NONE
        oc = old.first_child[o]
        while oc >= 0:
            queue[tail] = oc
            new.next_sibling[tail] = NONE
            if last < 0:
                new.first_child[i] = tail
            else:
                new.next_sibling[last] = tail
            last = tail
            tail += 1
            oc = old.next_sibling[oc]
    return tail


def allocate(nodes: int, stats_rows: int = 0) -> Tree:
    """An empty :class:`Tree` with room for ``nodes`` nodes (and ``stats_rows`` rows of
    ``stats``: :data:`STATS_ROWS` under RAVE or progressive bias)."""
    fields = [np.zeros(nodes, dtype=dt) for _, dt in TREE_FIELDS]
    return Tree._make([*fields, np.zeros((stats_rows, nodes), dtype=np.float64)])


def grow(tree: Tree, nodes: int) -> Tree:
    """A copy of ``tree`` with room for ``nodes`` nodes."""
    new = allocate(nodes, tree.stats.shape[0])
    for old, fresh in zip(tree, new, strict=True):
        fresh[..., : old.shape[-1]] = old
    return new


def bytes_per_node() -> int:
    """Memory of one node of the compiled tree, in bytes."""
    return sum(np.dtype(dt).itemsize for _, dt in TREE_FIELDS)
