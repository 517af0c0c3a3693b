"""The compiled engine: a whole MCTS iteration in one numba ``nopython`` function.

It makes the same choices as the reference engine (:mod:`mctslab.search.mcts`) from
the same seed, so it builds the same tree: the same four phases, the same
SplitMix64 draws (:mod:`mctslab.core.rng`), the same tie-breaking (lowest action)
and the same floating-point expressions. Only the data structure differs:

The tree is a struct of preallocated arrays (as mctx's ``Tree``; the fields
are :data:`TREE_FIELDS`, 31 bytes a node): node ``i`` has ``visits[i]`` and
``value_sum[i]`` (the statistics of the player who moved into it, that is its
parent's ``to_play``), ``action[i]``, ``n_untried[i]`` (legal actions with no
child yet), ``to_play[i]``, ``proven[i]`` (1/0/-1 for player 0, else
``UNPROVEN``), ``flags[i]`` (opened, terminal), and its children as a list
sorted by action: ``first_child[i]``, then ``next_sibling`` of each. Node 0 is
the root. When a node becomes fully expanded its children move to consecutive slots
(:func:`_relocate`): selection then reads neighbours in memory instead of nodes made
thousands of iterations apart, and the freed slots take the next new nodes.
Under RAVE or progressive bias, ``Tree.stats`` adds three float64 rows (the
all-moves-as-first visits and sum, the bias term: 24 bytes a node). Neither boards
nor untried lists are stored: each iteration replays the path from
the root, and expansion recomputes the legal actions there and takes the k-th one
without a child, as the reference engine pops the k-th of its sorted list.

Python calls :func:`run_chunk` once per chunk of iterations; between chunks it
asks the search's :class:`~mctslab.search.budget.Budget` whether to stop (the
iteration and time budgets and robust-max's extension, the same object the
reference engine asks between iterations; numba has no clock in nopython mode)
and grows the arrays when they run short. Under robust-max's extension the chunk
itself stops at the first iteration where the two rules agree, as the reference does. The function takes the game's
rule kernels as arguments; each built-in game wraps it in a one-line function
compiled with ``cache=True`` (``RuleKernels.search_chunk``), so that numba's
on-disk cache serves a fresh process. A user's own kernel game works without
such a wrapper, compiled on first use. A game may also give its own random
playout (``RuleKernels.playout``, passed to :func:`run_chunk` last): the random
simulation then calls it instead of the generic loop; it makes the same draws.

The wrappers and :func:`run_chunk` are compiled with ``nogil=True``: a chunk runs
without Python's GIL, so searches in several threads of one process (root
parallelism's threads, the web lab's concurrent sessions) use every core.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import sys
import time
from collections.abc import Callable, Generator, Sequence
from typing import Any, NamedTuple

import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic, overload
from numba.typed import List as TypedList

from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import TERMINAL, GameInfo, State, has_chance_nodes, same_rules
from mctslab.core.rng import Rng
from mctslab.games.kernels import KernelState, rng_next, rng_randint
from mctslab.search.budget import Budget
from mctslab.search.evaluators import LeafBatch, check_output, make_evaluator
from mctslab.search.gumbel import considered_visits
from mctslab.search.mcts import (
    UCT_INV,
    UCT_INV_SQRT,
    UCT_SQRT_LOG,
    UCT_TABLE_SIZE,
    NotWinLossDrawError,
    RootChild,
    SearchConfig,
    SearchResult,
    check_puct,
    check_solver,
    make_result,
    not_win_loss_message,
    rules_agree,
)

__all__ = [
    "CompiledMCTS",
    "Tree",
    "register_cached_chunk",
    "rng_next",
    "rng_randint",
    "run_chunk",
    "run_puct_chunk",
    "search_many",
]

UNPROVEN = 2
ROOT = 0  # the root's node id (mctx's ROOT_INDEX)
NONE = -1  # no child / no sibling
OPENED, TERMINAL_FLAG = 1, 2  # bits of flags[i]

# run_chunk's return codes.
CHUNK_DONE, STOP_NODES, STOP_PROVEN, STOP_AGREEMENT = 0, 1, 2, 3
NEED_SPACE, NODE_BUDGET, NOT_WIN_LOSS = 4, 5, 6
# CHUNK_DONE doubles as "go on" for the phases that return a code.
_STOP_NAMES = {
    STOP_NODES: "nodes",
    STOP_PROVEN: "proven",
    STOP_AGREEMENT: "agreement",
}

# cfg_i: integer options; cfg_f: float options (RAVE_K and BIAS_W after PUCT's 4-8).
EXPANSION, SIMULATION, CUTOFF_DEPTH, SOLVER, MAX_NODES, VERDICT_EVERY = 0, 1, 2, 3, 4, 5
C, MIN_UTILITY, SPAN, VERDICT_THRESHOLD, RAVE_K, BIAS_W = 0, 1, 2, 3, 9, 10
CFG_F_SIZE = 11
# Rows of Tree.stats under RAVE or progressive bias.
AMAF_VISITS, AMAF_SUM, BIAS = 0, 1, 2
STATS_ROWS = 3
# ctl: the search's counters, kept across chunks; IS_EXTENDED is set by the driver
# (robust-max's extension is on: stop the chunk as soon as the two rules agree).
# NODES counts the nodes created; HIGH is the first slot never used and FREE the
# first of the slots freed by _relocate (linked by next_sibling), reused first.
ITERATIONS, IS_EXTENDED, NODES, HIGH, FREE = 0, 1, 2, 3, 4

# The values of cfg_i's options, named as SearchConfig names them.
EXPANSION_ONE, EXPANSION_ALL = 0, 1
SIMULATION_RANDOM, SIMULATION_HEAVY, SIMULATION_CUTOFF, SIMULATION_VERDICT = 0, 1, 2, 3

_EXPANSION_CODE = {"one": EXPANSION_ONE, "all": EXPANSION_ALL}
_SIMULATION_CODE = {
    "random": SIMULATION_RANDOM,
    "heavy": SIMULATION_HEAVY,
    "cutoff": SIMULATION_CUTOFF,
    "verdict": SIMULATION_VERDICT,
}

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
            bias's ``w * H`` (:data:`BIAS`); ``rows = 0`` otherwise.
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


# The generator (SplitMix64, as :mod:`mctslab.core.rng`) lives with the kernel contract
# (:mod:`mctslab.games.kernels`): a game's own playout draws from it too.


def game_playout(playout_fn, state, params, rng, rets):  # type: ignore[no-untyped-def]
    """The game's own random playout (see :func:`simulate`); -1 when it has none. This
    is the plain-Python meaning; compiled code gets the overload below."""
    return -1 if playout_fn is None else playout_fn(state, params, rng, rets)


@overload(game_playout)
def _game_playout(playout_fn, state, params, rng, rets):  # type: ignore[no-untyped-def]
    # Chosen by type when compiling: a game without a playout (``None``, or run_chunk's
    # argument left out) costs nothing, not even a branch.
    if isinstance(playout_fn, (types.NoneType, types.Omitted)):
        return lambda playout_fn, state, params, rng, rets: -1
    return lambda playout_fn, state, params, rng, rets: playout_fn(state, params, rng, rets)


def game_rollout(rollout_fn, legal_fn, state, params, out):  # type: ignore[no-untyped-def]
    """The moves a playout chooses among (the game's ``rollout_actions``, else the legal
    actions), written to ``out``; their number. Plain-Python meaning; compiled code gets
    the overload below."""
    fn = legal_fn if rollout_fn is None else rollout_fn
    return fn(state, params, out)


@overload(game_rollout)
def _game_rollout(rollout_fn, legal_fn, state, params, out):  # type: ignore[no-untyped-def]
    if isinstance(rollout_fn, (types.NoneType, types.Omitted)):
        return lambda rollout_fn, legal_fn, state, params, out: legal_fn(state, params, out)
    return lambda rollout_fn, legal_fn, state, params, out: rollout_fn(state, params, out)


def game_light(light_fn, rollout_fn, legal_fn, state, params, rng, buf):  # type: ignore[no-untyped-def]
    """One random playout move: the game's ``light_action`` where it has one, else the
    ``k``-th of its playout moves (:func:`game_rollout`), ``k = rng_randint(rng, n)``.
    Plain-Python meaning; compiled code gets the overload below."""
    if light_fn is not None:
        return light_fn(state, params, rng, buf)
    return buf[rng_randint(rng, game_rollout(rollout_fn, legal_fn, state, params, buf))]


@overload(game_light)
def _game_light(light_fn, rollout_fn, legal_fn, state, params, rng, buf):  # type: ignore[no-untyped-def]
    if isinstance(light_fn, (types.NoneType, types.Omitted)):

        def drawn(light_fn, rollout_fn, legal_fn, state, params, rng, buf):  # type: ignore[no-untyped-def]
            n = game_rollout(rollout_fn, legal_fn, state, params, buf)
            return buf[rng_randint(rng, n)]

        return drawn
    return lambda light_fn, rollout_fn, legal_fn, state, params, rng, buf: light_fn(
        state, params, rng, buf
    )


def game_heavy(heavy_fn, state, params, rng, buf):  # type: ignore[no-untyped-def]
    """The game's own heavy-playout move, or -1 for a game without one (the generic
    rule then). Plain-Python meaning; compiled code gets the overload below."""
    return -1 if heavy_fn is None else heavy_fn(state, params, rng, buf)


@overload(game_heavy)
def _game_heavy(heavy_fn, state, params, rng, buf):  # type: ignore[no-untyped-def]
    if isinstance(heavy_fn, (types.NoneType, types.Omitted)):
        return lambda heavy_fn, state, params, rng, buf: -1
    return lambda heavy_fn, state, params, rng, buf: heavy_fn(state, params, rng, buf)


@njit(cache=True)
def _wins(rets, player):  # type: ignore[no-untyped-def]
    for i in range(rets.shape[0]):  # noqa: SIM110 (numba: no generators in all())
        if i != player and not rets[player] > rets[i]:
            return False
    return True


@njit(cache=True)
def _mean(value_sum, visits, i):  # type: ignore[no-untyped-def]
    return value_sum[i] / visits[i] if visits[i] else 0.0


@njit(cache=True)
def _better(visits_a, mean_a, visits_b, mean_b, by_visits):  # type: ignore[no-untyped-def]
    """Lexicographic (visits, mean) or (mean, visits) comparison: is a strictly better?"""
    if by_visits:
        return visits_a > visits_b or (visits_a == visits_b and mean_a > mean_b)
    return mean_a > mean_b or (mean_a == mean_b and visits_a > visits_b)


@njit(cache=True)
def _agree(tree):  # type: ignore[no-untyped-def]
    """Robust-max's test at the root: most visits and best mean pick the same child.

    Children come in ascending action order, so a later child must be strictly
    better to win: ties go to the lowest action, as in the reference's ``max``.
    """
    visits, value_sum, next_sibling = tree.visits, tree.value_sum, tree.next_sibling
    robust = NONE
    best = NONE
    any_visited = False
    ch = tree.first_child[ROOT]
    while ch >= 0:
        if visits[ch] > 0:
            any_visited = True
        ch = next_sibling[ch]
    ch = tree.first_child[ROOT]
    while ch >= 0:
        m = _mean(value_sum, visits, ch)
        if robust < 0 or _better(
            visits[ch], m, visits[robust], _mean(value_sum, visits, robust), True
        ):
            robust = ch
        if not (any_visited and visits[ch] == 0) and (
            best < 0 or _better(visits[ch], m, visits[best], _mean(value_sum, visits, best), False)
        ):
            best = ch
        ch = next_sibling[ch]
    return robust < 0 or robust == best


@njit(inline="always")  # inlined: a call passing the kernels on would defeat the cache
def _open(legal_fn, returns_fn, tree, node, state, params, solver, legal, rets, min_u, max_u):  # type: ignore[no-untyped-def]
    """Record the node's position: the player to move, how many legal actions it has,
    and for a terminal position its proof. Returns False when MCTS-Solver meets a
    terminal whose returns are not a win, a draw or a loss (the search must stop)."""
    p = state[0]
    tree.to_play[node] = p
    if p == TERMINAL:
        tree.flags[node] = OPENED | TERMINAL_FLAG
        if solver:
            returns_fn(state, params, rets)
            if rets[0] == max_u and rets[1] == min_u:
                tree.proven[node] = 1
            elif rets[0] == min_u and rets[1] == max_u:
                tree.proven[node] = -1
            elif rets[0] == 0.0 and rets[1] == 0.0:
                tree.proven[node] = 0
            else:
                return False
        return True
    tree.flags[node] = OPENED
    tree.n_untried[node] = legal_fn(state, params, legal)
    return True


@njit(cache=True)
def _new_node(tree, a, ctl):  # type: ignore[no-untyped-def]
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
def _copy_node(src, o, dst, i):  # type: ignore[no-untyped-def]
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
def _relocate(tree, parent, ctl):  # type: ignore[no-untyped-def]
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
        _copy_node(tree, ch, tree, dst)
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
def _link(tree, parent, child):  # type: ignore[no-untyped-def]
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


@njit(inline="always")
def _heavy_action(
    legal_fn, apply_fn, returns_fn, state, params, rng, a_buf, b_buf, safe, tmp1, tmp2, rets
):  # type: ignore[no-untyped-def]
    """As the reference's heavy playout: win at once, else avoid moves after which the
    opponent wins at once, else any move; random among equals."""
    mover = state[0]
    n = legal_fn(state, params, a_buf)
    for k in range(n):
        tmp1[:] = state
        apply_fn(tmp1, params, a_buf[k])
        if tmp1[0] == TERMINAL:
            returns_fn(tmp1, params, rets)
            if _wins(rets, mover):
                return a_buf[k]
    ns = 0
    for k in range(n):
        tmp1[:] = state
        apply_fn(tmp1, params, a_buf[k])
        other = tmp1[0]
        if other == TERMINAL:
            safe[ns] = a_buf[k]
            ns += 1
            continue
        m = legal_fn(tmp1, params, b_buf)
        loses = False
        for j in range(m):
            tmp2[:] = tmp1
            apply_fn(tmp2, params, b_buf[j])
            if tmp2[0] == TERMINAL:
                returns_fn(tmp2, params, rets)
                if _wins(rets, other):
                    loses = True
                    break
        if not loses:
            safe[ns] = a_buf[k]
            ns += 1
    if ns > 0:
        return safe[rng_randint(rng, ns)]
    return a_buf[rng_randint(rng, n)]


@njit(cache=True)
def _prove(tree, node):  # type: ignore[no-untyped-def]
    """MCTS-Solver's backup at one node, as the reference's ``_prove``."""
    proven, next_sibling = tree.proven, tree.next_sibling
    if proven[node] != UNPROVEN or tree.flags[node] != OPENED:
        return False
    p = tree.to_play[node]
    best = -9
    complete = tree.n_untried[node] == 0
    ch = tree.first_child[node]
    while ch >= 0:
        if proven[ch] == UNPROVEN:
            complete = False
        else:
            v = proven[ch] if p == 0 else -proven[ch]
            if v == 1:
                proven[node] = proven[ch]
                return True
            if v > best:
                best = v
        ch = next_sibling[ch]
    if complete and best != -9:
        proven[node] = best if p == 0 else -best
        return True
    return False


# The reference's reciprocal tables as arrays (numba freezes a global array into the code).
_INV = np.array(UCT_INV)
_INV_SQRT = np.array(UCT_INV_SQRT)
_SQRT_LOG = np.array(UCT_SQRT_LOG)


@njit(inline="always")  # inlined: a call would pass the whole Tree struct each step
def uct_child(tree, node, choice):  # type: ignore[no-untyped-def]
    """The child of ``node`` with the highest UCT score, as the reference's
    ``_best_uct_child``: ``Q/N + c * sqrt(ln N_parent / N)`` computed as the reference's
    :func:`~mctslab.search.mcts.uct_score` does (``c * sqrt(ln N_parent)`` once per node,
    the reciprocals of small counts from the same tables), unvisited children first,
    ties to the lowest action (children are sorted by action and only a strictly
    greater score replaces the best); MCTS-Solver skips proven children.
    ``choice = (c, solver)``."""
    c, solver = choice
    visits, value_sum, proven, next_sibling = (
        tree.visits,
        tree.value_sum,
        tree.proven,
        tree.next_sibling,
    )
    parent_visits = visits[node]
    if parent_visits < UCT_TABLE_SIZE:
        explore = c * _SQRT_LOG[parent_visits]
    else:
        explore = c * math.sqrt(math.log(parent_visits))
    best = NONE
    best_value = -math.inf
    ch = tree.first_child[node]
    while ch >= 0:
        if not (solver and proven[ch] != UNPROVEN):
            n = visits[ch]
            if n == 0:
                return ch
            if n < UCT_TABLE_SIZE:
                value = value_sum[ch] * _INV[n] + explore * _INV_SQRT[n]
            else:
                value = value_sum[ch] * (1.0 / n) + explore * (1.0 / math.sqrt(n))
            if value > best_value:
                best = ch
                best_value = value
        ch = next_sibling[ch]
    return best


@njit(inline="always")
def rave_child(tree, node, choice):  # type: ignore[no-untyped-def]
    """The child of ``node`` with the highest RAVE / progressive-bias score, as the
    reference's ``_best_rave_child`` and :func:`~mctslab.search.mcts.rave_score`, float
    for float: ``(1 - beta) Q/N + beta Q~/N~ + c sqrt(ln N_parent / N) + w H / (N + 1)``,
    ``beta = sqrt(k / (3 N_parent + k))``; an unvisited child scores its AMAF mean plus
    ``c sqrt(ln N_parent) + w H``, or comes first while RAVE has not seen its move; ties
    to the lowest action; MCTS-Solver skips proven children. ``choice = (c, solver, k)``."""
    c, solver, k = choice
    visits, value_sum, proven, next_sibling = (
        tree.visits,
        tree.value_sum,
        tree.proven,
        tree.next_sibling,
    )
    amaf_n, amaf_sum, bias = tree.stats[AMAF_VISITS], tree.stats[AMAF_SUM], tree.stats[BIAS]
    parent_visits = visits[node]
    if parent_visits < UCT_TABLE_SIZE:
        explore = c * _SQRT_LOG[parent_visits]
    else:
        explore = c * math.sqrt(math.log(parent_visits))
    beta = math.sqrt(k / (3.0 * parent_visits + k)) if k > 0.0 else 0.0
    best = NONE
    best_value = -math.inf
    ch = tree.first_child[node]
    while ch >= 0:
        if not (solver and proven[ch] != UNPROVEN):
            n = visits[ch]
            m = amaf_n[ch]
            if n == 0:
                if m == 0.0:
                    return ch
                value = amaf_sum[ch] / m + explore + bias[ch]
            else:
                q = value_sum[ch] / n
                if m > 0.0:
                    q = (1.0 - beta) * q + beta * (amaf_sum[ch] / m)
                value = q + explore / math.sqrt(n) + bias[ch] / (n + 1.0)
            if value > best_value:
                best = ch
                best_value = value
        ch = next_sibling[ch]
    return best


@njit(inline="always")
def update_amaf(tree, path, depth, rewards, first):  # type: ignore[no-untyped-def]
    """RAVE's all-moves-as-first update, as the reference's ``_update_amaf``: ``first``
    holds, by action, the player who first played it in the playout (-1: nobody); from
    the leaf up, each tree move is written over it (it came earlier), and every child of
    the node whose move its player to move played first afterwards counts a visit and
    that player's reward."""
    to_play, action, next_sibling = tree.to_play, tree.action, tree.next_sibling
    amaf_n, amaf_sum = tree.stats[AMAF_VISITS], tree.stats[AMAF_SUM]
    for d in range(depth, -1, -1):
        nd = path[d]
        p = to_play[nd]
        if p < 0:  # terminal
            continue
        if d < depth:
            first[action[path[d + 1]]] = p
        r = rewards[p]
        ch = tree.first_child[nd]
        while ch >= 0:
            if first[action[ch]] == p:
                amaf_n[ch] += 1.0
                amaf_sum[ch] += r
            ch = next_sibling[ch]


@njit(inline="always")
def _set_bias(returns_fn, heuristic_fn, tree, path, depth, state, params, rets, w, min_u, span):  # type: ignore[no-untyped-def]
    """Progressive bias's ``w * H`` of the leaf just opened (``state`` holds it), as the
    reference's ``_open``: for the player who moved into it, the terminal's exact reward,
    else its heuristic on ``[0, 1]``."""
    leaf = path[depth]
    p = tree.to_play[path[depth - 1]]
    if tree.flags[leaf] & TERMINAL_FLAG:
        returns_fn(state, params, rets)
        h = (rets[p] - min_u) / span
    else:
        heuristic_fn(state, params, rets)
        h = (rets[p] + 1.0) / 2.0
    tree.stats[BIAS, leaf] = w * h


@njit(inline="always")
def select(
    legal_fn,
    apply_fn,
    returns_fn,
    choose_fn,
    choice,
    tree,
    state,
    params,
    path,
    solver,
    legal,
    rets,
    min_u,
    max_u,
):  # type: ignore[no-untyped-def]
    """Phase 1, as the reference's ``select``: from the root (``state`` holds the root
    position), descend by ``choose_fn(tree, node, choice)`` (:func:`uct_child`, or
    PUCT's :func:`puct_child`) while the node is opened,
    fully expanded and unproven, playing each action on ``state`` (the tree keeps no
    boards) and recording the node ids in ``path``. A child reached for the first time
    (``expansion="all"``, PUCT) is opened and ends the descent.

    Returns the depth of the leaf (``path[depth]``), or -1 when MCTS-Solver opened a
    terminal whose returns are not a win, a draw or a loss.
    """
    node = ROOT
    depth = 0
    path[0] = ROOT
    while (
        tree.n_untried[node] == 0 and tree.flags[node] == OPENED and tree.proven[node] == UNPROVEN
    ):
        node = choose_fn(tree, node, choice)
        apply_fn(state, params, tree.action[node])
        depth += 1
        path[depth] = node
        if tree.flags[node] == 0:
            if not _open(
                legal_fn, returns_fn, tree, node, state, params, solver, legal, rets, min_u, max_u
            ):
                return -1
            break
    return depth


@njit(inline="always")
def should_expand(tree, leaf):  # type: ignore[no-untyped-def]
    """Whether the selected leaf grows, as the reference's ``should_expand``: it has untried
    actions, is unproven, and was visited before (or is the root); a node just
    reached for the first time under ``expansion="all"`` is simulated as it is."""
    return (
        tree.n_untried[leaf] > 0
        and tree.proven[leaf] == UNPROVEN
        and (tree.visits[leaf] > 0 or leaf == ROOT)
    )


@njit(inline="always")
def expand(
    legal_fn,
    apply_fn,
    returns_fn,
    tree,
    state,
    params,
    path,
    depth,
    expansion,
    max_nodes,
    num_actions,
    ctl,
    rng,
    solver,
    legal,
    rets,
    min_u,
    max_u,
):  # type: ignore[no-untyped-def]
    """Phase 2, as the reference's ``expand``: give the leaf ``path[depth]`` new
    children and open the one to simulate from, which ``state`` then holds.

    ``EXPANSION_ONE`` adds the k-th legal action without a child, in ascending order,
    ``k = rng_randint(untried)`` (the reference pops the k-th of its sorted list), and
    when that was the last untried action moves the children together
    (:func:`_relocate`; ``num_actions`` sizes the room kept for the next iteration);
    ``EXPANSION_ALL`` adds every legal action and opens the first. Returns
    ``(CHUNK_DONE, depth + 1)``, or ``(NODE_BUDGET, depth)`` when the new nodes would
    pass ``max_nodes`` (nothing changed), or ``(NOT_WIN_LOSS, depth)``.
    """
    leaf = path[depth]
    action, next_sibling, first_child = tree.action, tree.next_sibling, tree.first_child
    n = legal_fn(state, params, legal)
    if expansion == EXPANSION_ONE:
        if max_nodes >= 0 and ctl[NODES] + 1 > max_nodes:
            return NODE_BUDGET, depth
        k = rng_randint(rng, tree.n_untried[leaf])
        ch = first_child[leaf]
        chosen = -1
        index = -1
        for j in range(n):
            while ch >= 0 and action[ch] < legal[j]:
                ch = next_sibling[ch]
            if ch >= 0 and action[ch] == legal[j]:
                continue
            if k == 0:
                chosen = legal[j]
                index = j
                break
            k -= 1
        first = _new_node(tree, chosen, ctl)
        _link(tree, leaf, first)
        tree.n_untried[leaf] -= 1
        # Fully expanded: from now on selection reads all n children at each visit.
        # Moved next to each other while there is room for them and for one more
        # iteration (so that relocating never makes the tree grow).
        if tree.n_untried[leaf] == 0 and ctl[HIGH] + n + num_actions <= first_child.shape[0]:
            first = _relocate(tree, leaf, ctl) + index  # the chosen one is the index-th
    else:
        if max_nodes >= 0 and ctl[NODES] + tree.n_untried[leaf] > max_nodes:
            return NODE_BUDGET, depth
        first = NONE
        last = NONE
        for j in range(n):  # the node has no child yet: link them in order
            ch = _new_node(tree, legal[j], ctl)
            if last < 0:
                first = ch
                first_child[leaf] = ch
            else:
                next_sibling[last] = ch
            last = ch
        tree.n_untried[leaf] = 0
    apply_fn(state, params, action[first])
    if not _open(
        legal_fn, returns_fn, tree, first, state, params, solver, legal, rets, min_u, max_u
    ):
        return NOT_WIN_LOSS, depth
    path[depth + 1] = first
    return CHUNK_DONE, depth + 1


@njit(inline="always")
def leaf_rewards(returns_fn, tree, leaf, state, params, rewards, rets, min_u, span):  # type: ignore[no-untyped-def]
    """The exact rewards of a terminal or proven leaf, as the reference's
    ``leaf_rewards`` (no playout needed): written to ``rewards``; False otherwise."""
    if tree.flags[leaf] & TERMINAL_FLAG:
        returns_fn(state, params, rets)
        for p in range(rewards.shape[0]):
            rewards[p] = (rets[p] - min_u) / span
        return True
    if tree.proven[leaf] != UNPROVEN:
        r0 = (tree.proven[leaf] + 1) / 2
        rewards[0] = r0
        rewards[1] = 1.0 - r0
        return True
    return False


@njit(inline="always")
def simulate(
    legal_fn,
    apply_fn,
    returns_fn,
    heuristic_fn,
    state,
    params,
    simulation,
    cutoff,
    rng,
    a_buf,
    b_buf,
    safe,
    tmp1,
    tmp2,
    rewards,
    rets,
    min_u,
    span,
    playout_fn,
    rollout_fn,
    heavy_fn,
    light_fn,
    first,
):  # type: ignore[no-untyped-def]
    """Phase 3, as the reference's ``simulate``: play out from ``state`` (consumed) and
    write each player's reward in ``[0, 1]`` to ``rewards``: uniformly random moves
    (``SIMULATION_RANDOM``, the game's ``light_fn`` move, else the k-th of its playout
    moves, ``k = rng_randint(n)``: the game's own ``playout_fn`` when it has one, which
    makes the same draws), the heavy playout (``SIMULATION_HEAVY``: the game's ``heavy_fn``, else
    the generic rule), ``cutoff_depth`` random plies scored by the heuristic
    (``SIMULATION_CUTOFF``), or random plies judged by the heuristic every
    ``verdict_every`` plies, a player at ``verdict_threshold`` or more winning at once
    (``SIMULATION_VERDICT``). ``cutoff = (cutoff_depth, verdict_every,
    verdict_threshold)``; ``playout_fn``, ``rollout_fn``, ``heavy_fn``, ``light_fn``: the
    game's optional kernels (``None`` each where it has none). Under RAVE ``first`` (by
    action, -1 where nobody played it yet; an empty array otherwise) receives the
    player who plays each action first."""
    cutoff_depth, verdict_every, verdict_threshold = cutoff
    record = first.shape[0] > 0
    num_players = rewards.shape[0]
    if (
        simulation == SIMULATION_RANDOM
        and not record
        and game_playout(playout_fn, state, params, rng, rets) >= 0
    ):
        for p in range(num_players):
            rewards[p] = (rets[p] - min_u) / span
        return
    plies = 0
    while state[0] != TERMINAL:
        if simulation == SIMULATION_CUTOFF and plies >= cutoff_depth:
            heuristic_fn(state, params, rets)
            for p in range(num_players):
                rewards[p] = (rets[p] + 1.0) / 2.0
            return
        if simulation == SIMULATION_VERDICT and plies % verdict_every == 0:
            heuristic_fn(state, params, rets)
            winner = -1
            for p in range(num_players):
                if winner < 0 and rets[p] >= verdict_threshold:
                    winner = p
            if winner >= 0:  # a clear verdict: the playout ends as winner's win
                for p in range(num_players):
                    rewards[p] = 1.0 if p == winner else 0.0
                return
        mover = state[0]
        if simulation == SIMULATION_HEAVY:
            a = game_heavy(heavy_fn, state, params, rng, a_buf)
            if a < 0:
                a = _heavy_action(
                    legal_fn,
                    apply_fn,
                    returns_fn,
                    state,
                    params,
                    rng,
                    a_buf,
                    b_buf,
                    safe,
                    tmp1,
                    tmp2,
                    rets,
                )
        else:
            a = game_light(light_fn, rollout_fn, legal_fn, state, params, rng, a_buf)
        if record and first[a] < 0:
            first[a] = mover
        apply_fn(state, params, a)
        plies += 1
    returns_fn(state, params, rets)
    for p in range(num_players):
        rewards[p] = (rets[p] - min_u) / span


@njit(inline="always")
def backpropagate(tree, path, depth, rewards, solver):  # type: ignore[no-untyped-def]
    """Phase 4, as the reference's ``backpropagate``: from the leaf up to the root,
    count the visit and add the reward of the player who moved into each node (its
    parent's ``to_play``); under MCTS-Solver, back up proofs as far as they go."""
    visits, value_sum, to_play = tree.visits, tree.value_sum, tree.to_play
    proving = solver
    for d in range(depth, -1, -1):
        nd = path[d]
        visits[nd] += 1
        if d > 0:
            value_sum[nd] += rewards[to_play[path[d - 1]]]
        if proving and d != depth:
            proving = _prove(tree, nd)


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


@njit(inline="always")
def scratch_rows(bufs, n_state):  # type: ignore[no-untyped-def]
    """The chunks' scratch rows of ``bufs``: the working state, two scratch states, three
    legal-action buffers and the safe-move buffer."""
    return (
        bufs[0, :n_state], bufs[1, :n_state], bufs[2, :n_state], bufs[3], bufs[4], bufs[5],
        bufs[6],
    )  # fmt: skip


# Inlined into each game's cached wrapper (see the module docstring); nogil: called
# from Python (a game without a wrapper), it lets other threads run meanwhile.
@njit(inline="always", nogil=True)
def run_chunk(  # type: ignore[no-untyped-def]
    legal_fn,
    apply_fn,
    returns_fn,
    heuristic_fn,
    tree,
    root_state,
    params,
    cfg_i,
    cfg_f,
    ctl,
    rng,
    bufs,
    fbufs,
    path,
    capacity,
    max_chunk,
    playout_fn=None,
    rollout_fn=None,
    heavy_fn=None,
    light_fn=None,
):
    """Run up to ``max_chunk`` iterations; return why it stopped (a code above).

    ``tree`` is a :class:`Tree`; ``bufs`` is an int64 matrix of scratch rows: 0 the
    working state, 1-2 scratch states, 3-5 legal-action buffers, 6 the safe-move
    buffer, 7 RAVE's first mover by action (all as long as the longer of state and
    action count); ``fbufs`` rows 0-1 hold rewards and returns; ``path`` the node ids
    of the current descent. ``capacity`` = (node capacity, number of actions).
    ``playout_fn``, ``rollout_fn``, ``heavy_fn``, ``light_fn``: the game's own random
    playout, playout moves, heavy-playout move and random-playout move
    (``RuleKernels.playout``, ``rollout_actions``, ``heavy_action``, ``light_action``),
    each left out where the game has none.

    Under RAVE (``cfg_f[RAVE_K] > 0``) or progressive bias (``cfg_f[BIAS_W] > 0``) the
    descent chooses by :func:`rave_child`, reading ``tree.stats``; RAVE grows a node's
    children together (as ``EXPANSION_ALL``), records the playout's first movers and
    updates the AMAF statistics after the backup (:func:`update_amaf`); progressive
    bias evaluates each node as it is opened (:func:`_set_bias`).
    """
    tree = borrow_tree(tree)
    root_state = borrow(root_state)
    params = borrow(params)
    ctl = borrow(ctl)
    rng = borrow(rng)
    bufs = borrow(bufs)
    fbufs = borrow(fbufs)
    path = borrow(path)
    expansion = cfg_i[EXPANSION]
    simulation = cfg_i[SIMULATION]
    cutoff = (cfg_i[CUTOFF_DEPTH], cfg_i[VERDICT_EVERY], cfg_f[VERDICT_THRESHOLD])
    solver = cfg_i[SOLVER] != 0
    max_nodes = cfg_i[MAX_NODES]
    c = cfg_f[C]
    min_u = cfg_f[MIN_UTILITY]
    span = cfg_f[SPAN]
    max_u = min_u + span
    rave_k = cfg_f[RAVE_K]
    bias_w = cfg_f[BIAS_W]
    amaf = rave_k > 0.0
    scored = amaf or bias_w > 0.0
    if amaf:
        expansion = EXPANSION_ALL
    n_state = root_state.shape[0]
    num_actions = capacity[1]
    state, tmp1, tmp2, a_buf, b_buf, legal, safe = scratch_rows(bufs, n_state)
    first = bufs[7, :num_actions] if amaf else bufs[7, :0]
    rewards = fbufs[0]
    rets = fbufs[1]
    if tree.flags[ROOT] == 0:
        state[:] = root_state
        _open(legal_fn, returns_fn, tree, ROOT, state, params, solver, legal, rets, min_u, max_u)
    done = 0
    while True:
        # The budget checks, in the reference's order; the iteration and time budgets
        # are the driver's (a chunk ends where they may stop the search).
        if solver and tree.proven[ROOT] != UNPROVEN:
            return STOP_PROVEN
        if max_nodes >= 0 and ctl[NODES] >= max_nodes:
            return STOP_NODES
        if done >= max_chunk:
            return CHUNK_DONE
        if ctl[IS_EXTENDED] and _agree(tree):
            return STOP_AGREEMENT
        if max_nodes < 0 and ctl[HIGH] + num_actions > capacity[0]:
            return NEED_SPACE

        # One iteration: the four phases, in the reference's ``iterate``.
        state[:] = root_state
        if scored:
            depth = select(
                legal_fn, apply_fn, returns_fn, rave_child, (c, solver, rave_k), tree, state,
                params, path, solver, legal, rets, min_u, max_u,
            )  # fmt: skip
        else:
            depth = select(
                legal_fn, apply_fn, returns_fn, uct_child, (c, solver), tree, state, params,
                path, solver, legal, rets, min_u, max_u,
            )  # fmt: skip
        if depth < 0:
            return NOT_WIN_LOSS
        if should_expand(tree, path[depth]):
            code, depth = expand(
                legal_fn, apply_fn, returns_fn, tree, state, params, path, depth, expansion,
                max_nodes, num_actions, ctl, rng, solver, legal, rets, min_u, max_u,
            )  # fmt: skip
            if code != CHUNK_DONE:
                return code
        if bias_w > 0.0 and depth > 0 and tree.visits[path[depth]] == 0:  # opened just now
            _set_bias(
                returns_fn, heuristic_fn, tree, path, depth, state, params, rets, bias_w, min_u,
                span,
            )  # fmt: skip
        if amaf:
            first[:] = -1
        if not leaf_rewards(
            returns_fn, tree, path[depth], state, params, rewards, rets, min_u, span
        ):
            simulate(
                legal_fn, apply_fn, returns_fn, heuristic_fn, state, params, simulation,
                cutoff, rng, a_buf, b_buf, safe, tmp1, tmp2, rewards, rets, min_u, span,
                playout_fn, rollout_fn, heavy_fn, light_fn, first,
            )  # fmt: skip
        backpropagate(tree, path, depth, rewards, solver)
        if amaf:
            update_amaf(tree, path, depth, rewards, first)
        ctl[ITERATIONS] += 1
        done += 1


# --- PUCT (AlphaGo's selection rule) in compiled code -------------------------------------
#
# The tree in numba, leaf batches handed to Python. The same search as the reference
# engine's PUCT (:mod:`mctslab.search.puct`, :func:`mctslab.search.mcts.iterate_batch`),
# choice for choice: the phases are the ones above (:func:`select` with :func:`puct_child`
# as its rule, :func:`simulate`, :func:`backpropagate`), and what PUCT adds is here:
#
# - :func:`puct_child`: ``Q + c(N) * P * sqrt(N) / (1 + N_child)``, float for float as
#   :func:`~mctslab.search.puct.puct_score`; at the root, this search's noisy priors;
# - :func:`expand_with_priors`: every legal action becomes a child, with its prior
#   (kept in an array beside the :class:`Tree`, 8 bytes a
#   node, so that UCT's trees stay at 31 bytes);
# - :func:`run_puct_chunk`: collects up to ``batch`` leaves with virtual loss. A built-in
#   evaluator (``uniform+rollout``, ``uniform``, ``heuristic``) is computed right there,
#   in compiled code; for any other the chunk writes the leaves' observation tensors
#   (the game's ``observation`` kernel) and legal masks to a :class:`Pending` batch and
#   returns ``NEED_EVAL``: Python asks the evaluator, writes the priors and values back,
#   and the next call finishes those leaves first. It returns ``NEED_NOISE`` when the
#   search is about to choose at the expanded root for the first time with Dirichlet
#   noise on: Python draws the noise from the same generator (as the reference does at
#   that point) and writes the noisy root priors.

# cfg_i / cfg_f entries after UCT's (compiled.EXPANSION .. MAX_NODES; C, MIN_UTILITY, SPAN).
BATCH, VIRTUAL_LOSS, EVALUATOR, GUMBEL = 6, 7, 8, 9
C_BASE, FPU, MIX, VALUE_SCALE, MAXVISIT_INIT = 4, 5, 6, 7, 8
# Rows of the per-node extra array (PUCT's prior; the node's own value, which Gumbel's
# completed Q-values read) and of the root's (noisy priors; Gumbel noise), by action.
PRIOR_ROW, RAW_ROW = 0, 1
TINY = sys.float_info.min
EVAL_EXTERNAL, EVAL_ROLLOUT, EVAL_UNIFORM, EVAL_HEURISTIC = 0, 1, 2, 3
#: The built-in evaluators the compiled code computes itself, by name.
EVALUATOR_CODES = {
    "uniform+rollout": EVAL_ROLLOUT,
    "uniform": EVAL_UNIFORM,
    "heuristic": EVAL_HEURISTIC,
}
# ctl entries after UCT's (ITERATIONS .. FREE): leaves waiting for Python's evaluator,
# noise to draw at the root's next choice, noisy root priors in use.
PENDING, NOISE_DUE, NOISY = 5, 6, 7
CTL_SIZE = 8
# run_puct_chunk's return codes beyond run_chunk's.
NEED_EVAL, NEED_NOISE = 7, 8


class Pending(NamedTuple):
    """A batch of leaves waiting for their evaluation (``B`` = the batch size).

    Attributes:
        paths: int64 ``[B, max_depth]``, the node ids from the root to each leaf.
        depths: int64 ``[B]``, each leaf's depth (``paths[k, depths[k]]`` is the leaf).
        states: int64 ``[B, state_size]``, each leaf's position.
        observations: float32 ``[B, observation_size]`` (``[B, 1]`` when the game has
            no ``observation`` kernel), for the player to move.
        masks: bool ``[B, num_actions]``, the legal actions.
        to_play: int64 ``[B]``, the player to move.
        priors: float64 ``[B, num_actions]``, written by Python: normalised over the legal.
        values: float64 ``[B]``, written by Python: in ``[-1, 1]`` for the player to move.
        halving: int64, Gumbel's Sequential Halving schedule (written by Python).
    """

    paths: Any
    depths: Any
    states: Any
    observations: Any
    masks: Any
    to_play: Any
    priors: Any
    values: Any
    halving: Any


def make_pending(
    batch: int,
    depth: int,
    state_size: int,
    observation_size: int,
    num_actions: int,
    halving: int = 1,
) -> Pending:
    return Pending(
        np.zeros((batch, depth), dtype=np.int64),
        np.zeros(batch, dtype=np.int64),
        np.zeros((batch, state_size), dtype=np.int64),
        np.zeros((batch, max(1, observation_size)), dtype=np.float32),
        np.zeros((batch, num_actions), dtype=np.bool_),
        np.zeros(batch, dtype=np.int64),
        np.zeros((batch, num_actions), dtype=np.float64),
        np.zeros(batch, dtype=np.float64),
        np.zeros(max(1, halving), dtype=np.int64),
    )


def game_observation(observation_fn, state, params, player, out):  # type: ignore[no-untyped-def]
    """The game's observation kernel, if it has one (plain-Python meaning; compiled code
    gets the overload below, which costs nothing for a game without one)."""
    if observation_fn is not None:
        observation_fn(state, params, player, out)


@overload(game_observation)
def _game_observation(observation_fn, state, params, player, out):  # type: ignore[no-untyped-def]
    if isinstance(observation_fn, (types.NoneType, types.Omitted)):
        return lambda observation_fn, state, params, player, out: None
    return lambda observation_fn, state, params, player, out: observation_fn(
        state, params, player, out
    )


@njit(inline="always")
def puct_child(tree, node, choice):  # type: ignore[no-untyped-def]
    """The child of ``node`` with the highest PUCT score, as the reference's
    ``_best_puct_child``: ``Q + explore * P / (1 + N)`` with ``explore = sqrt(N_parent) *
    c(N_parent)`` and ``Q = value_sum / N`` (``fpu`` when unvisited), the same float
    expression as :func:`~mctslab.search.puct.puct_score`; at the root with noise on,
    ``root_prior[action]``; ties to the lowest action; MCTS-Solver skips proven children.
    ``choice = (c, c_base, fpu, solver, prior, root_prior, noisy)`` (``c_base <= 0``:
    constant ``c``)."""
    c, c_base, fpu, solver, prior, root_prior, noisy = choice
    visits, value_sum, proven, next_sibling, action = (
        tree.visits,
        tree.value_sum,
        tree.proven,
        tree.next_sibling,
        tree.action,
    )
    parent_visits = visits[node]
    if c_base > 0.0:
        c = c + math.log((parent_visits + c_base + 1.0) / c_base)
    explore = math.sqrt(parent_visits) * c
    at_root = noisy and node == ROOT
    best = NONE
    best_value = -math.inf
    ch = tree.first_child[node]
    while ch >= 0:
        if not (solver and proven[ch] != UNPROVEN):
            n = visits[ch]
            q = value_sum[ch] / n if n else fpu
            p = root_prior[PRIOR_ROW, action[ch]] if at_root else prior[ch]
            value = q + explore * p / (1.0 + n)
            if value > best_value:
                best = ch
                best_value = value
        ch = next_sibling[ch]
    return best


@njit(inline="always")
def gumbel_child(tree, node, choice):  # type: ignore[no-untyped-def]
    """Gumbel search's choice, as the reference's ``_best_gumbel_child`` and
    :mod:`~mctslab.search.gumbel`'s formulas, float for float: completed Q-values
    ``sigma``; at the root, among the children whose visits are Sequential Halving's
    count due, the best ``max(-1e9, g + (logit - max logit) + sigma)``; below, the best
    ``softmax(logits + sigma) - N / (1 + sum N)``. ``choice = (prior, raw, root_rows,
    halving, num_actions, value_scale, maxvisit_init, solver)``."""
    prior, raw, root_rows, halving, num_actions, value_scale, maxvisit_init, solver = choice
    visits, value_sum, proven, next_sibling = (
        tree.visits,
        tree.value_sum,
        tree.proven,
        tree.next_sibling,
    )
    first = tree.first_child[node]
    # The completed Q-values' ingredients, over the children not skipped by the solver.
    total = 0
    seen = 0
    top_visits = 0
    sum_p = 0.0
    all_visits = 0
    ch = first
    while ch >= 0:
        all_visits += visits[ch]
        if not (solver and proven[ch] != UNPROVEN):
            n = visits[ch]
            total += n
            if n > top_visits:
                top_visits = n
            if n > 0:
                seen += 1
                sum_p += max(TINY, prior[ch])
        ch = next_sibling[ch]
    weighted = 0.0
    if total > 0:
        ch = first
        while ch >= 0:
            n = visits[ch]
            if n > 0 and not (solver and proven[ch] != UNPROVEN):
                q = 2.0 * (value_sum[ch] / n) - 1.0
                weighted += max(TINY, prior[ch]) * q / sum_p
            ch = next_sibling[ch]
    v_mix = (raw[node] + total * weighted) / (total + 1)
    low = math.inf
    high = -math.inf
    if seen < num_actions:
        low = v_mix
        high = v_mix
    max_logit = -math.inf
    ch = first
    while ch >= 0:
        if not (solver and proven[ch] != UNPROVEN):
            n = visits[ch]
            cq = 2.0 * (value_sum[ch] / n) - 1.0 if n > 0 else v_mix
            low = min(low, cq)
            high = max(high, cq)
            max_logit = max(max_logit, math.log(max(prior[ch], TINY)))
        ch = next_sibling[ch]
    scale = (maxvisit_init + top_visits) * value_scale
    spread = max(high - low, 1e-8)
    best = NONE
    best_value = -math.inf
    if node == ROOT:
        due = halving[min(all_visits, halving.shape[0] - 1)]
        ch = first
        while ch >= 0:
            if not (solver and proven[ch] != UNPROVEN):
                n = visits[ch]
                cq = 2.0 * (value_sum[ch] / n) - 1.0 if n > 0 else v_mix
                sigma = scale * ((cq - low) / spread)
                logit = math.log(max(prior[ch], TINY))
                value = max(-1e9, root_rows[RAW_ROW, tree.action[ch]] + (logit - max_logit) + sigma)
                if n != due:
                    value -= math.inf
                if best < 0 or value > best_value:
                    best = ch
                    best_value = value
            ch = next_sibling[ch]
        return best
    # Below the root: the improved policy softmax(logits + sigma), then the lag.
    top_z = -math.inf
    ch = first
    while ch >= 0:
        if not (solver and proven[ch] != UNPROVEN):
            n = visits[ch]
            cq = 2.0 * (value_sum[ch] / n) - 1.0 if n > 0 else v_mix
            z = math.log(max(prior[ch], TINY)) + scale * ((cq - low) / spread)
            top_z = max(top_z, z)
        ch = next_sibling[ch]
    norm = 0.0
    ch = first
    while ch >= 0:
        if not (solver and proven[ch] != UNPROVEN):
            n = visits[ch]
            cq = 2.0 * (value_sum[ch] / n) - 1.0 if n > 0 else v_mix
            norm += math.exp(math.log(max(prior[ch], TINY)) + scale * ((cq - low) / spread) - top_z)
        ch = next_sibling[ch]
    denom = 1 + total
    ch = first
    while ch >= 0:
        if not (solver and proven[ch] != UNPROVEN):
            n = visits[ch]
            cq = 2.0 * (value_sum[ch] / n) - 1.0 if n > 0 else v_mix
            z = math.log(max(prior[ch], TINY)) + scale * ((cq - low) / spread)
            value = math.exp(z - top_z) / norm - n / denom
            if value > best_value:
                best = ch
                best_value = value
        ch = next_sibling[ch]
    return best


@njit(inline="always")
def expand_with_priors(legal_fn, tree, prior, leaf, state, params, legal, priors_row, uniform, ctl):  # type: ignore[no-untyped-def]
    """PUCT's expansion, as the reference's ``_add_children``: a child for every legal
    action of the leaf (ascending), with prior ``1 / n`` (``uniform``) or
    ``priors_row[action]``."""
    n = legal_fn(state, params, legal)
    last = NONE
    for j in range(n):
        ch = _new_node(tree, legal[j], ctl)
        prior[ch] = 1.0 / n if uniform else priors_row[legal[j]]
        if last < 0:
            tree.first_child[leaf] = ch
        else:
            tree.next_sibling[last] = ch
        last = ch
    tree.n_untried[leaf] = 0


@njit(inline="always")
def value_rewards(value, to_play, rewards):  # type: ignore[no-untyped-def]
    """A value in ``[-1, 1]`` for ``to_play`` as rewards in ``[0, 1]``, as the reference's
    ``value_rewards``."""
    r = (value + 1.0) / 2.0
    for p in range(rewards.shape[0]):
        rewards[p] = 1.0 - r
    rewards[to_play] = r


@njit(inline="always", nogil=True)
def run_puct_chunk(  # type: ignore[no-untyped-def]
    legal_fn,
    apply_fn,
    returns_fn,
    heuristic_fn,
    observation_fn,
    tree,
    prior,
    root_prior,
    root_state,
    params,
    cfg_i,
    cfg_f,
    ctl,
    rng,
    bufs,
    fbufs,
    pending,
    capacity,
    max_chunk,
    playout_fn=None,
    rollout_fn=None,
    heavy_fn=None,
    light_fn=None,
):
    """Run up to ``max_chunk`` PUCT iterations; return why it stopped (a code of
    :mod:`~mctslab.search.compiled`, or ``NEED_EVAL`` / ``NEED_NOISE``).

    As :func:`~mctslab.search.compiled.run_chunk`, plus: ``prior`` (float64 ``[2, nodes]``:
    a node's prior, its own value), ``root_prior`` (float64 ``[2, num_actions]``: the
    noisy root priors, the root actions' Gumbel noise),
    ``pending`` (a :class:`Pending`), ``fbufs`` rows 0-2 (rewards, returns, a
    playout's rewards for ``mix``). ``observation_fn`` is the game's observation
    kernel, or ``None``.
    """
    tree = borrow_tree(tree)
    extra = borrow(prior)
    prior = extra[PRIOR_ROW]
    raw = extra[RAW_ROW]
    root_prior = borrow(root_prior)
    root_state = borrow(root_state)
    ctl = borrow(ctl)
    rng = borrow(rng)
    bufs = borrow(bufs)
    fbufs = borrow(fbufs)
    simulation = cfg_i[SIMULATION]
    cutoff = (cfg_i[CUTOFF_DEPTH], cfg_i[VERDICT_EVERY], cfg_f[VERDICT_THRESHOLD])
    solver = cfg_i[SOLVER] != 0
    max_nodes = cfg_i[MAX_NODES]
    batch = cfg_i[BATCH]
    vl = cfg_i[VIRTUAL_LOSS]
    evaluator = cfg_i[EVALUATOR]
    gumbel = cfg_i[GUMBEL] != 0
    value_scale = cfg_f[VALUE_SCALE]
    maxvisit_init = cfg_f[MAXVISIT_INIT]
    c = cfg_f[C]
    c_base = cfg_f[C_BASE]
    fpu = cfg_f[FPU]
    mix = cfg_f[MIX]
    min_u = cfg_f[MIN_UTILITY]
    span = cfg_f[SPAN]
    max_u = min_u + span
    n_state = root_state.shape[0]
    num_actions = capacity[1]
    state, tmp1, tmp2, a_buf, b_buf, legal, safe = scratch_rows(bufs, n_state)
    rewards = fbufs[0]
    rets = fbufs[1]
    played = fbufs[2]
    paths, depths, states = pending.paths, pending.depths, pending.states
    no_amaf = bufs[7, :0]
    if tree.flags[ROOT] == 0:
        state[:] = root_state
        _open(legal_fn, returns_fn, tree, ROOT, state, params, solver, legal, rets, min_u, max_u)
    done = 0
    k = ctl[PENDING]  # leaves whose evaluation Python has just written
    while True:
        if k > 0:
            # Finish a batch, as the reference's iterate_batch: the virtual loss comes
            # off, every leaf gets its children, then each leaf's value is backed up.
            ctl[PENDING] = 0
            for j in range(k):
                for d in range(depths[j] + 1):
                    tree.visits[paths[j, d]] -= vl
            for j in range(k):
                leaf = paths[j, depths[j]]
                expand_with_priors(
                    legal_fn, tree, prior, leaf, states[j], params, legal, pending.priors[j],
                    evaluator != EVAL_EXTERNAL, ctl,
                )  # fmt: skip
                if evaluator == EVAL_HEURISTIC:
                    heuristic_fn(states[j], params, rets)
                    pending.values[j] = min(1.0, max(-1.0, rets[tree.to_play[leaf]]))
                elif evaluator == EVAL_UNIFORM:
                    pending.values[j] = 0.0
            for j in range(k):
                leaf = paths[j, depths[j]]
                if evaluator == EVAL_ROLLOUT:
                    simulate(
                        legal_fn, apply_fn, returns_fn, heuristic_fn, states[j], params,
                        simulation, cutoff, rng, a_buf, b_buf, safe, tmp1, tmp2, rewards,
                        rets, min_u, span, playout_fn, rollout_fn, heavy_fn, light_fn, no_amaf,
                    )  # fmt: skip
                else:
                    value_rewards(pending.values[j], tree.to_play[leaf], rewards)
                    if mix > 0.0:
                        simulate(
                            legal_fn, apply_fn, returns_fn, heuristic_fn, states[j], params,
                            simulation, cutoff, rng, a_buf, b_buf, safe, tmp1, tmp2,
                            played, rets, min_u, span, playout_fn, rollout_fn, heavy_fn,
                            light_fn, no_amaf,
                        )  # fmt: skip
                        for p in range(rewards.shape[0]):
                            rewards[p] = (1.0 - mix) * rewards[p] + mix * played[p]
                raw[leaf] = 2.0 * rewards[tree.to_play[leaf]] - 1.0
                backpropagate(tree, paths[j], depths[j], rewards, solver)
            ctl[ITERATIONS] += k
            done += k
            k = 0
        # The budget checks, in the reference's order (see run_chunk).
        if solver and tree.proven[ROOT] != UNPROVEN:
            return STOP_PROVEN
        if max_nodes >= 0 and ctl[NODES] >= max_nodes:
            return STOP_NODES
        if done >= max_chunk:
            return CHUNK_DONE
        if ctl[IS_EXTENDED] and _agree(tree):
            return STOP_AGREEMENT
        if max_nodes < 0 and ctl[HIGH] + batch * num_actions > capacity[0]:
            return NEED_SPACE
        if (
            ctl[NOISE_DUE]
            and tree.first_child[ROOT] >= 0
            and tree.n_untried[ROOT] == 0
            and tree.flags[ROOT] == OPENED
            and tree.proven[ROOT] == UNPROVEN
        ):
            return NEED_NOISE  # the reference draws it at this choice

        # Collect up to `limit` leaves, as the reference's iterate_batch.
        limit = min(batch, max_chunk - done)
        backed = 0
        grow = 0
        choice = (c, c_base, fpu, solver, prior, root_prior, ctl[NOISY] != 0)
        g_choice = (
            prior, raw, root_prior, pending.halving, num_actions, value_scale, maxvisit_init,
            solver,
        )  # fmt: skip
        while k + backed < limit:
            state[:] = root_state
            if gumbel:
                depth = select(
                    legal_fn, apply_fn, returns_fn, gumbel_child, g_choice, tree, state, params,
                    paths[k], solver, legal, rets, min_u, max_u,
                )  # fmt: skip
            else:
                depth = select(
                    legal_fn, apply_fn, returns_fn, puct_child, choice, tree, state, params,
                    paths[k], solver, legal, rets, min_u, max_u,
                )  # fmt: skip
            if depth < 0:
                return NOT_WIN_LOSS
            leaf = paths[k, depth]
            if not (tree.n_untried[leaf] > 0 and tree.proven[leaf] == UNPROVEN):
                # Terminal or proven: its exact rewards, backed up at once.
                leaf_rewards(returns_fn, tree, leaf, state, params, rewards, rets, min_u, span)
                backpropagate(tree, paths[k], depth, rewards, solver)
                ctl[ITERATIONS] += 1
                backed += 1
                continue
            waiting = False
            for j in range(k):
                if paths[j, depths[j]] == leaf:
                    waiting = True
            if waiting:
                break  # a collision: this leaf already waits for its value
            if max_nodes >= 0 and ctl[NODES] + grow + tree.n_untried[leaf] > max_nodes:
                if k == 0 and backed == 0:
                    return NODE_BUDGET
                break
            grow += tree.n_untried[leaf]
            depths[k] = depth
            states[k, :] = state
            for d in range(depth + 1):
                tree.visits[paths[k, d]] += vl
            k += 1
        done += backed
        if k == 0:
            continue
        if evaluator == EVAL_EXTERNAL:
            # Python's turn: the observations and legal moves of the waiting leaves.
            for j in range(k):
                leaf = paths[j, depths[j]]
                p = tree.to_play[leaf]
                pending.to_play[j] = p
                game_observation(observation_fn, states[j], params, p, pending.observations[j])
                pending.masks[j, :] = False
                n = legal_fn(states[j], params, legal)
                for i in range(n):
                    pending.masks[j, legal[i]] = True
            ctl[PENDING] = k
            return NEED_EVAL


# Inlined into each game's cached round wrapper (kernel_chunks), as run_chunk is.
@njit(inline="always", nogil=True)
def run_puct_round(  # type: ignore[no-untyped-def]
    legal_fn,
    apply_fn,
    returns_fn,
    heuristic_fn,
    observation_fn,
    trees,
    extras,
    root_priors,
    root_states,
    params,
    cfg_i,
    cfg_f,
    ctls,
    rngs,
    bufs,
    fbufs,
    pend,
    capacities,
    max_chunks,
    codes,
    playout_fn=None,
    rollout_fn=None,
    heavy_fn=None,
    light_fn=None,
):
    """One round of many PUCT searches of one game and config in one call
    (:func:`search_many`): search ``j`` runs :func:`run_puct_chunk` on its own tree
    (``trees[j]``, ``extras[j]``: typed lists), root, counters (``ctls[j]``) and
    generator (``rngs[j]``), its pending leaves in row ``j`` of ``pend`` (a
    :class:`Pending` of arrays with a leading search axis), and writes its return
    code to ``codes[j]``; a search whose code is negative (finished) is skipped. The
    scratch buffers are shared: the searches run one after the other."""
    for j in range(len(trees)):
        if codes[j] < 0:
            continue
        pending = Pending(
            pend.paths[j],
            pend.depths[j],
            pend.states[j],
            pend.observations[j],
            pend.masks[j],
            pend.to_play[j],
            pend.priors[j],
            pend.values[j],
            pend.halving[j],
        )
        codes[j] = run_puct_chunk(
            legal_fn, apply_fn, returns_fn, heuristic_fn, observation_fn, trees[j], extras[j],
            root_priors[j], root_states[j], params, cfg_i, cfg_f, ctls[j], rngs[j], bufs, fbufs,
            pending, capacities[j], max_chunks[j], playout_fn, rollout_fn, heavy_fn, light_fn,
        )  # fmt: skip
    return 0


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
        _copy_node(old, o, new, i)  # every field but the links, copied as it is
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


def _allocate(nodes: int, stats_rows: int = 0) -> Tree:
    """An empty :class:`Tree` with room for ``nodes`` nodes (and ``stats_rows`` rows of
    ``stats``: :data:`STATS_ROWS` under RAVE or progressive bias)."""
    fields = [np.zeros(nodes, dtype=dt) for _, dt in TREE_FIELDS]
    return Tree._make([*fields, np.zeros((stats_rows, nodes), dtype=np.float64)])


def _grow(tree: Tree, nodes: int) -> Tree:
    """A copy of ``tree`` with room for ``nodes`` nodes."""
    new = _allocate(nodes, tree.stats.shape[0])
    for old, fresh in zip(tree, new, strict=True):
        fresh[..., : old.shape[-1]] = old
    return new


def bytes_per_node() -> int:
    """Memory of one node of the compiled tree, in bytes."""
    return sum(np.dtype(dt).itemsize for _, dt in TREE_FIELDS)


# Rule kernels -> run_chunk (and run_puct_chunk) bound to them in functions numba
# caches on disk.
_CACHED_CHUNKS: dict[Any, Callable[..., int]] = {}
_CACHED_PUCT_CHUNKS: dict[Any, Callable[..., int]] = {}
_CACHED_PUCT_ROUNDS: dict[Any, Callable[..., int]] = {}


def register_cached_chunk(
    kernels: Any,
    chunk: Callable[..., int],
    puct_chunk: Callable[..., int] | None = None,
    puct_round: Callable[..., int] | None = None,
) -> None:
    """Use ``chunk`` (:func:`run_chunk` bound to ``kernels`` in a module-level function
    compiled with ``cache=True``) for games with these kernels, and ``puct_chunk``
    (:func:`run_puct_chunk` bound alike) for their PUCT
    searches: how the built-in games' wrappers in :mod:`mctslab.search.kernel_chunks`
    reach the engine."""
    _CACHED_CHUNKS[kernels] = chunk
    if puct_chunk is not None:
        _CACHED_PUCT_CHUNKS[kernels] = puct_chunk
    if puct_round is not None:
        _CACHED_PUCT_ROUNDS[kernels] = puct_round


def _puct_round_fn(kernels: Any) -> Callable[..., int]:
    """:func:`run_puct_round` bound to the game's kernels (cached wrapper, or bound here)."""
    wrapper = _CACHED_PUCT_ROUNDS.get(kernels)
    if wrapper is not None:
        return wrapper

    def generic(*args: Any) -> int:
        return run_puct_round(  # type: ignore[no-any-return,call-arg]
            kernels.legal_actions,
            kernels.apply_action,
            kernels.returns,
            kernels.heuristic,
            getattr(kernels, "observation", None),
            *args,
            getattr(kernels, "playout", None),
            getattr(kernels, "rollout_actions", None),
            getattr(kernels, "heavy_action", None),
            getattr(kernels, "light_action", None),
        )

    return generic


#: The arguments a game's ``search_chunk`` wrapper passes on to :func:`run_chunk`.
CHUNK_ARGUMENTS = (
    "tree", "root", "params", "ci", "cf", "ctl", "rng", "bufs", "fbufs", "path", "cap", "n"
)  # fmt: skip


def _check_wrapper(wrapper: Any) -> None:
    """A ``search_chunk`` wrapper takes :data:`CHUNK_ARGUMENTS` (earlier wrappers also
    passed ``ctl_f``): say so instead of numba's typing error."""
    func = getattr(wrapper, "py_func", wrapper)
    try:
        count = len(inspect.signature(func).parameters)
    except (TypeError, ValueError):  # no signature to read: let the call tell
        return
    if count != len(CHUNK_ARGUMENTS):
        raise InvalidConfigError(
            f"search_chunk takes {count} arguments; it must take {len(CHUNK_ARGUMENTS)} "
            f"({', '.join(CHUNK_ARGUMENTS)}) and pass them to run_chunk after the kernels, "
            "as in examples/kernel_game.py"
        )


class _Run:
    """One search's working set between :meth:`CompiledMCTS._start` and ``_finish``: the
    arrays a chunk reads and writes, its budget and clock (mutable: tree growth and the
    many-search driver rebind some of them)."""

    def __init__(
        self,
        searcher: CompiledMCTS,
        info: GameInfo,
        kernels: Any,
        root_state: Any,
        params: Any,
        bufs: Any,
        budget: Budget,
        entered: float,
    ) -> None:
        self.searcher = searcher
        self.info = info
        self.kernels = kernels
        self.root_state = root_state
        self.params = params
        self.bufs = bufs
        self.budget = budget
        self.entered = entered
        self.start = entered
        self.compile_seconds = 0.0
        self.chunk = 64  # under a time budget: iterations between looks at the clock
        self.chunk_fn: Callable[..., int] = run_chunk
        self.cfg_i: Any = None
        self.cfg_f: Any = None
        self.ctl: Any = None
        self.fbufs: Any = None
        self.path: Any = None
        self.pending: Any = None
        self.root_prior: Any = None
        self.capacity: Any = None

    def max_chunk(self) -> int:
        """Iterations the next chunk may run (the budget's; a slice of a time budget)."""
        left = self.budget.iterations_left(int(self.ctl[ITERATIONS]))
        limit = 1 << 62 if left is None else left
        if self.budget.timed:
            limit = min(limit, self.chunk)
        self.ctl[IS_EXTENDED] = self.budget.extended
        return limit

    def call(self, max_chunk: int) -> int:
        """One chunk of this search (:func:`run_chunk` or :func:`run_puct_chunk`)."""
        searcher = self.searcher
        tree = searcher.tree
        assert tree is not None
        self.capacity[0] = len(tree.first_child)
        if self.pending is None:
            head: tuple[Any, ...] = (tree,)
            tail: tuple[Any, ...] = (self.path,)
        else:
            head = (tree, searcher._extra, self.root_prior)
            tail = (self.pending,)
        return int(
            self.chunk_fn(
                *head,
                self.root_state,
                self.params,
                self.cfg_i,
                self.cfg_f,
                self.ctl,
                searcher.rng,
                self.bufs,
                self.fbufs,
                *tail,
                self.capacity,
                max_chunk,
            )
        )


class CompiledMCTS:
    """The compiled engine behind the same interface as :class:`mctslab.search.mcts.MCTS`.

    Works on games with rule kernels (the built-in games, or a user's
    ``KernelGame``); keeps its tree between searches when ``reuse_tree``.
    """

    def __init__(self, config: SearchConfig | None = None) -> None:
        self.config = config or SearchConfig()
        self.rng = np.array([self.config.seed & ((1 << 64) - 1)], dtype=np.uint64)
        self.tree: Tree | None = None
        # PUCT's prior of each node (empty under UCT, whose nodes have none).
        self._extra = np.zeros((2, 0), dtype=np.float64)
        self._gumbel: dict[int, float] = {}  # this search's root Gumbel noise, by action
        self._evaluator: Any = None  # PUCT's, made on the first search
        self.nodes = 0
        self._slots = (0, NONE)  # ctl's HIGH and FREE after the last search
        self._history: list[int] = []
        self._game: Any = None
        self._compiled: set[Any] = set()

    def reset(self) -> None:
        self.tree = None
        self._history = []

    def principal_variation(self, action: int | None = None, limit: int = 20) -> list[int]:
        """The line the kept tree expects, as :meth:`mctslab.search.mcts.MCTS.principal_variation`
        (``action`` or the most visited root child, then the most visited child, the lowest
        action on a tie, while it has visits; at most ``limit`` moves). The compiled tree's
        children are a list linked by ``first_child`` / ``next_sibling``; the root is node 0."""
        tree = self.tree
        line: list[int] = []
        if tree is None:
            return [action][:limit] if action is not None else []
        first, sibling, actions, visits = (
            tree.first_child,
            tree.next_sibling,
            tree.action,
            tree.visits,
        )
        node = 0
        if action is not None:
            if limit < 1:
                return []
            line.append(action)
            node, child = -1, int(first[0])
            while child >= 0:
                if int(actions[child]) == action:
                    node = child
                    break
                child = int(sibling[child])
        while node >= 0 and len(line) < limit:
            best, most, child = -1, 0, int(first[node])
            while child >= 0:
                v, a = int(visits[child]), int(actions[child])
                if v > most or (v == most and v > 0 and a < int(actions[best])):
                    best, most = child, v
                child = int(sibling[child])
            if best < 0:
                break
            line.append(int(actions[best]))
            node = best
        return line

    def _chunk_fn(self, kernels: Any) -> Callable[..., int]:
        wrapper = getattr(kernels, "search_chunk", None) or _CACHED_CHUNKS.get(kernels)
        if wrapper is not None:
            _check_wrapper(wrapper)
            return wrapper  # type: ignore[no-any-return]

        def generic(*args: Any) -> int:
            return run_chunk(  # type: ignore[no-any-return,call-arg]
                kernels.legal_actions,
                kernels.apply_action,
                kernels.returns,
                kernels.heuristic,
                *args,
                getattr(kernels, "playout", None),
                getattr(kernels, "rollout_actions", None),
                getattr(kernels, "heavy_action", None),
                getattr(kernels, "light_action", None),
            )

        return generic

    def _puct_chunk_fn(self, kernels: Any) -> Callable[..., int]:
        """:func:`run_puct_chunk` bound to the game's kernels: the cached wrapper of a
        built-in game, else bound here (compiled on first use in each process)."""
        wrapper = _CACHED_PUCT_CHUNKS.get(kernels)
        if wrapper is not None:
            return wrapper

        def generic(*args: Any) -> int:
            return run_puct_chunk(  # type: ignore[no-any-return,call-arg]
                kernels.legal_actions,
                kernels.apply_action,
                kernels.returns,
                kernels.heuristic,
                getattr(kernels, "observation", None),
                *args,
                getattr(kernels, "playout", None),
                getattr(kernels, "rollout_actions", None),
                getattr(kernels, "heavy_action", None),
                getattr(kernels, "light_action", None),
            )

        return generic

    def _reuse(self, state: Any, num_actions: int) -> bool:
        """Re-root the kept tree under the moves played since the last search, if it can."""
        if (
            self.tree is None
            or not self.config.reuse_tree
            or not same_rules(state.game, self._game)
        ):
            return False
        history = state.history()
        n = len(self._history)
        if history[:n] != self._history:
            return False
        tree = self.tree
        node = 0
        for a in history[n:]:
            node = next((ch for ch in self._children(node) if int(tree.action[ch]) == a), NONE)
            if node < 0:
                return False
        if not tree.flags[node] & OPENED:
            return False
        if node != 0:
            new = _allocate(len(tree.first_child), tree.stats.shape[0])
            new_extra = np.zeros_like(self._extra)
            self.nodes = int(compact(tree, node, new, self._extra, new_extra))
            self._slots = (self.nodes, NONE)
            self.tree, self._extra = new, new_extra
        self._history = history
        return True

    def search(self, state: State, game_info: GameInfo | None = None) -> SearchResult:
        """Search from ``state`` within the budget; the same result as the reference engine."""
        steps = self.search_steps(state, game_info)
        try:
            request = next(steps)
            while True:  # PUCT with an outside evaluator: answer each batch of leaves
                request = steps.send(self.evaluate(request))
        except StopIteration as stop:
            result: SearchResult = stop.value
            return result

    def evaluate(self, batch: LeafBatch) -> tuple[Any, Any]:
        """This searcher's PUCT evaluator on ``batch``, its output checked and normalised."""
        priors, values = self._evaluator.evaluate(batch)
        return check_output(priors, values, batch.legal_mask)

    def search_steps(
        self, state: State, game_info: GameInfo | None = None
    ) -> Generator[LeafBatch, tuple[Any, Any], SearchResult]:
        """:meth:`search` as a generator: under PUCT with an evaluator that runs in Python
        it yields each batch of leaves (a :class:`~mctslab.search.evaluators.LeafBatch`)
        and takes back ``(priors, values)`` as :func:`~mctslab.search.evaluators.check_output`
        returns them; it returns the :class:`SearchResult`. Many searches stepped together
        can share one evaluator call (:func:`search_many`)."""
        run = self._start(state, game_info)
        resumed = False
        end = 0
        while True:
            if not resumed:  # a new chunk: it ends ``max_chunk`` iterations from here
                end = int(run.ctl[ITERATIONS]) + run.max_chunk()
            # A chunk resumed after an evaluation counts its iterations from 0 again: it is
            # given what is left of its own (else a time budget's chunks never end).
            code = run.call(max(1, end - int(run.ctl[ITERATIONS])))
            resumed = code == NEED_EVAL
            if code == NEED_EVAL:
                k = int(run.ctl[PENDING])
                priors, values = yield self._leaf_batch(run.pending, k, state)
                run.pending.priors[:k] = priors
                run.pending.values[:k] = values
                continue
            stopped_by = self._after_chunk(run, code)
            if stopped_by is not None:
                return self._finish(run, stopped_by)

    def _start(self, state: State, game_info: GameInfo | None) -> _Run:
        """Check the search, set up (or re-root) the tree and everything a chunk reads."""
        config = self.config
        if config.workers != 1:
            raise InvalidConfigError("workers > 1: make the searcher with mctslab.make_searcher")
        game: Any = getattr(state, "game", None)
        kernels = getattr(game, "kernels", None)
        if kernels is None or not hasattr(state, "array"):
            raise InvalidConfigError(
                "the compiled engine needs a game with rule kernels (a KernelGame); "
                "use engine='reference' for other games"
            )
        if has_chance_nodes(game):
            raise InvalidConfigError(
                f"the compiled engine has no chance nodes and {game.info.name} has them "
                "(dice or deals): use engine='reference' (engine='auto' picks it)"
            )
        if state.is_terminal():
            raise InvalidConfigError("cannot search a terminal state: the game is over")
        info: GameInfo = game_info or game.info
        check_solver(config, info)
        puct = config.puct
        if puct is not None:
            check_puct(config, info, state)
            if self._evaluator is None:
                self._evaluator = puct.make_evaluator()
        num_actions = info.num_actions
        entered = time.perf_counter()  # re-rooting a kept tree is search time too
        root_state = state.array.copy()  # type: ignore[attr-defined]
        if puct is not None and puct.gumbel:
            self.reset()  # Sequential Halving plans its budget from an empty root
        if not self._reuse(state, num_actions):
            if config.max_nodes is not None:
                cap = config.max_nodes
            else:
                # expansion="one" makes one node an iteration: room for exactly that;
                # otherwise start small and double when an iteration might not fit.
                one = (
                    config.expansion == "one"
                    and not config.rave
                    and config.time is None
                    and puct is None
                )
                cap = (config.iterations or 0) + num_actions + 1 if one else 1 << 16
                if puct is not None and config.time is None and config.iterations is not None:
                    # PUCT adds at most one node's children an iteration: a small search
                    # (self-play's hundreds of simulations) allocates a small tree.
                    cap = min(cap, (config.iterations + puct.batch + 1) * num_actions + 1)
            scored = bool(config.rave or config.progressive_bias)
            self.tree = _allocate(cap, STATS_ROWS if scored else 0)
            self._extra = np.zeros((2, cap if puct is not None else 0), dtype=np.float64)
            self.nodes = 1
            self._slots = (1, NONE)
            tree = self.tree
            tree.first_child[ROOT], tree.next_sibling[ROOT] = NONE, NONE
            tree.proven[ROOT], tree.flags[ROOT] = UNPROVEN, 0
            self._history = state.history()
            self._game = game
        assert self.tree is not None
        cfg_i = [
            _EXPANSION_CODE[config.expansion],
            _SIMULATION_CODE[config.simulation],
            config.cutoff_depth,
            int(config.solver),
            -1 if config.max_nodes is None else config.max_nodes,
            config.verdict_every,
        ]
        span = info.max_utility - info.min_utility
        cfg_f = [config.c, info.min_utility, span, config.verdict_threshold]
        cfg_f += [0.0] * (RAVE_K - len(cfg_f))  # PUCT's entries (below), unused under UCT
        cfg_f += [float(config.rave), float(config.progressive_bias)]
        ctl = [0, 0, self.nodes, *self._slots]
        width = max(len(root_state), num_actions)
        run = _Run(
            searcher=self,
            info=info,
            kernels=kernels,
            root_state=root_state,
            params=game.params,
            bufs=np.zeros((8, width), dtype=np.int64),
            budget=Budget.of(config),
            entered=entered,
        )
        if puct is None:
            run.chunk_fn = self._chunk_fn(kernels)
            run.fbufs = np.zeros((2, info.num_players), dtype=np.float64)
            run.path = np.zeros(info.max_game_length + 2, dtype=np.int64)
        else:
            run.chunk_fn = self._puct_chunk_fn(kernels)
            evaluator = self._evaluator
            builtin = getattr(evaluator, "builtin", False)
            code = EVALUATOR_CODES[evaluator.name] if builtin else EVAL_EXTERNAL
            cfg_i += [puct.batch, puct.virtual_loss, code, int(puct.gumbel)]
            cfg_f[0] = puct.c
            cfg_f[C_BASE : MAXVISIT_INIT + 1] = [
                -1.0 if puct.c_base is None else puct.c_base,
                puct.fpu,
                puct.mix,
                puct.value_scale,
                puct.maxvisit_init,
            ]
            ctl += [0, int(puct.noise_fraction > 0.0 or puct.gumbel), 0]
            run.fbufs = np.zeros((3, info.num_players), dtype=np.float64)
            observe = kernels.observation is not None and code == EVAL_EXTERNAL
            obs_size = math.prod(game.observation_shape()) if observe else 1
            run.pending = make_pending(
                puct.batch,
                info.max_game_length + 2,
                len(root_state),
                obs_size,
                num_actions,
                (config.iterations or 2) - 1 if puct.gumbel else 1,
            )
            run.root_prior = np.zeros((2, num_actions), dtype=np.float64)
        run.cfg_i = np.array(cfg_i, dtype=np.int64)
        run.cfg_f = np.array(cfg_f, dtype=np.float64)
        run.ctl = np.array(ctl, dtype=np.int64)
        run.capacity = np.array([0, num_actions], dtype=np.int64)
        key = (id(run.chunk_fn), len(root_state))
        if key not in self._compiled:
            # The first call compiles (or loads from numba's cache); time it apart.
            t0 = time.perf_counter()
            run.call(0)
            run.compile_seconds = time.perf_counter() - t0
            self._compiled.add(key)
        # The clock started on entry; compiling or loading code is reported apart.
        run.start = entered + run.compile_seconds
        return run

    def _after_chunk(self, run: _Run, code: int) -> str | None:
        """What a chunk's return code means (all but ``NEED_EVAL``): ``None`` to go on
        (the budget not spent, noise drawn, the tree grown), else why the search stopped."""
        config = self.config
        if code == CHUNK_DONE:
            done = int(run.ctl[ITERATIONS])
            seconds = time.perf_counter() - run.start
            stop = run.budget.stop(done, seconds, agree=lambda: rules_agree(self._root_children()))
            if stop is None and config.time is not None:
                # Aim for chunks of about a hundredth of the time budget.
                per = seconds / max(1, done)
                run.chunk = max(16, min(1 << 20, int(config.time / 100 / max(per, 1e-9))))
            return stop
        if code == NEED_NOISE:
            self._root_noise(run.root_prior, run.ctl, run.pending)
            return None
        if code == NEED_SPACE:
            assert self.tree is not None
            self.tree = _grow(self.tree, 2 * len(self.tree.first_child))
            if config.puct is not None:
                grown = np.zeros((2, len(self.tree.first_child)), dtype=np.float64)
                grown[:, : self._extra.shape[1]] = self._extra
                self._extra = grown
            return None
        if code == NOT_WIN_LOSS:
            self.reset()  # the iteration stopped half-way: the tree is not kept
            raise NotWinLossDrawError(not_win_loss_message(run.info, run.fbufs[1].tolist()))
        if code == NODE_BUDGET:
            if self._root_children() == []:
                raise InvalidConfigError(
                    f"max_nodes={config.max_nodes} is too small to expand the root"
                )
            return "nodes"
        return _STOP_NAMES[code]

    def _finish(self, run: _Run, stopped_by: str) -> SearchResult:
        """The search's :class:`SearchResult`; the tree's counters kept for the next one."""
        seconds = time.perf_counter() - run.start
        self.nodes = int(run.ctl[NODES])
        self._slots = (int(run.ctl[HIGH]), int(run.ctl[FREE]))
        tree = self.tree
        assert tree is not None
        to_play = int(tree.to_play[ROOT])
        root_proven = int(tree.proven[ROOT])
        rng = Rng(int(self.rng[0]))  # PUCT's temperature draws the move from the stream
        puct = self.config.puct
        result = make_result(
            self._root_children(),
            to_play,
            None if root_proven == UNPROVEN else root_proven,
            self.config,
            run.info,
            iterations=int(run.ctl[ITERATIONS]),
            nodes=self.nodes,
            seconds=seconds,
            stopped_by=stopped_by,
            compile_seconds=run.compile_seconds,
            rng=rng,
            gumbel=(self._gumbel, float(self._extra[RAW_ROW, ROOT])) if puct is not None else None,
        )
        self.rng[0] = rng.state
        return result

    def _leaf_batch(self, pending: Pending, k: int, root: State) -> LeafBatch:
        """The ``k`` waiting leaves as a :class:`LeafBatch` (states made only if read; the
        arrays are views of the search's buffers, valid until the search goes on)."""
        game: Any = root.game  # type: ignore[attr-defined]
        history = root.history()
        tree = self.tree
        assert tree is not None

        def states() -> list[State]:
            out: list[State] = []
            for j in range(k):
                moves = [
                    int(tree.action[pending.paths[j, d]]) for d in range(1, pending.depths[j] + 1)
                ]
                out.append(KernelState(game, pending.states[j].copy(), history + moves))
            return out

        observations = None
        if game.kernels.observation is not None:
            shape = game.observation_shape()
            observations = pending.observations[:k].reshape((k, *shape))
        return LeafBatch(
            pending.masks[:k],
            pending.to_play[:k],
            observations=observations,
            make_states=states,
        )

    @property
    def prior(self) -> Any:
        """PUCT's prior of each node (float64, by node id; empty under UCT)."""
        return self._extra[PRIOR_ROW]

    def _root_noise(self, root_prior: Any, ctl: Any, pending: Pending) -> None:
        """AlphaZero's root noise, or Gumbel search's, as the reference's ``_root_noise``:
        drawn from the engine's generator where the reference draws it (the first choice
        at the expanded root of a search), written to ``root_prior`` by action (Gumbel:
        its noise and Sequential Halving's schedule)."""
        puct = self.config.puct
        assert puct is not None and self.tree is not None
        children = self._children(ROOT)
        rng = Rng(int(self.rng[0]))
        actions = [int(self.tree.action[ch]) for ch in children]
        if puct.gumbel:
            scale = puct.gumbel_scale
            self._gumbel = {a: scale * rng.gumbel() if scale else 0.0 for a in actions}
            for a, g in self._gumbel.items():
                root_prior[RAW_ROW, a] = g
            iterations = self.config.iterations or 1
            plan = considered_visits(min(puct.considered, len(children)), iterations - 1)
            pending.halving[: len(plan)] = plan
        else:
            eta = rng.dirichlet(puct.noise_alpha, len(children))
            f = puct.noise_fraction
            for ch, a, e in zip(children, actions, eta, strict=True):
                root_prior[PRIOR_ROW, a] = (1.0 - f) * float(self.prior[ch]) + f * e
            ctl[NOISY] = 1
        self.rng[0] = rng.state
        ctl[NOISE_DUE] = 0

    def root_children(self) -> list[tuple[int, int, float, int | None]]:
        """(action, visits, value sum, proof for player 0) of each root child."""
        if self.tree is None:
            return []
        return [(c.action, c.visits, c.value_sum, c.proven) for c in self._root_children()]

    def _children(self, node: int) -> list[int]:
        """The ids of ``node``'s children, by ascending action."""
        assert self.tree is not None
        first_child, next_sibling = self.tree.first_child, self.tree.next_sibling
        out, ch = [], int(first_child[node])
        while ch >= 0:
            out.append(ch)
            ch = int(next_sibling[ch])
        return out

    def _root_children(self) -> list[RootChild]:
        assert self.tree is not None
        tree = self.tree
        action, visits, value_sum, proven = tree.action, tree.visits, tree.value_sum, tree.proven
        priors = self.prior if self._extra.shape[1] else None
        out = []
        for ch in self._children(0):
            p = int(proven[ch])
            out.append(
                RootChild(
                    int(action[ch]),
                    int(visits[ch]),
                    float(value_sum[ch]),
                    None if p == UNPROVEN else p,
                    None if priors is None else float(priors[ch]),
                )
            )
        return out


def search_many(
    searchers: Sequence[CompiledMCTS],
    states: Sequence[State],
    evaluator: Any = None,
) -> list[SearchResult]:
    """Several PUCT searches stepped together, one evaluator call a round for all of them
    (as mctx batches independent searches): each round, every search that waits for its
    leaves' evaluation adds its batch; the batches go to the evaluator as one
    :class:`~mctslab.search.evaluators.LeafBatch` and the answers back to each search.
    ``evaluator``: a spec as ``PuctConfig.evaluator`` takes it, by default the first
    searcher's. Each search makes the same choices as it would alone (its own tree,
    generator and budget), so results equal ``[s.search(x) for s, x in zip(...)]``.

    Searches of one game and one config with an iteration budget run each round in one
    compiled call (:func:`run_puct_round`); others are stepped one by one
    (:meth:`CompiledMCTS.search_steps`).
    """
    if len(searchers) != len(states):
        raise InvalidConfigError(
            f"search_many: {len(searchers)} searchers for {len(states)} states"
        )
    if _rounds_apply(searchers, states):
        return _search_rounds(searchers, states, evaluator)
    return _search_stepped(searchers, states, evaluator)


def _rounds_apply(searchers: Sequence[CompiledMCTS], states: Sequence[State]) -> bool:
    """Whether :func:`_search_rounds` can run these searches: one config but the seed
    (PUCT with an evaluator in Python, an iteration budget, no robust-max extension) and
    one game."""
    if not searchers:
        return False
    config = searchers[0].config
    puct = config.puct
    game = getattr(states[0], "game", None)
    return (
        puct is not None
        and not (isinstance(puct.evaluator, str) and puct.evaluator in EVALUATOR_CODES)
        and config.time is None
        and config.iterations is not None
        and config.final != "robust-max"
        and all(dataclasses.replace(s.config, seed=config.seed) == config for s in searchers)
        and all(getattr(x, "game", None) is game for x in states)
    )


def _search_rounds(
    searchers: Sequence[CompiledMCTS], states: Sequence[State], evaluator: Any
) -> list[SearchResult]:
    """:func:`search_many` with one compiled call a round for every search."""
    runs = [s._start(x, None) for s, x in zip(searchers, states, strict=True)]
    first = runs[0]
    b = len(runs)
    # The searches' own arrays, stacked, each search keeping a view of its row.
    fields = Pending._fields
    pend = Pending(*(np.stack([getattr(r.pending, f) for r in runs]) for f in fields))
    ctls = np.stack([r.ctl for r in runs])
    rngs = np.stack([s.rng for s in searchers])
    root_priors = np.stack([r.root_prior for r in runs])
    root_states = np.stack([r.root_state for r in runs])
    capacities = np.stack([r.capacity for r in runs])
    for j, (r, s) in enumerate(zip(runs, searchers, strict=True)):
        r.pending = Pending(*(getattr(pend, f)[j] for f in fields))
        r.ctl, r.root_prior, r.capacity = ctls[j], root_priors[j], capacities[j]
        s.rng = rngs[j]
    trees, extras = TypedList(), TypedList()
    for s in searchers:
        trees.append(s.tree)
        extras.append(s._extra)
    round_fn = _puct_round_fn(first.kernels)
    codes = np.zeros(b, dtype=np.int64)
    for j, s in enumerate(searchers):
        assert s.tree is not None
        capacities[j, 0] = len(s.tree.first_child)
    budget = first.searcher.config.iterations
    assert budget is not None
    game: Any = getattr(states[0], "game", None)
    shape = game.observation_shape() if first.kernels.observation is not None else None
    results: list[SearchResult | None] = [None] * b
    chosen = None if evaluator is None else make_evaluator(evaluator)
    try:
        while True:
            # The iteration budget's rest (no robust-max extension here: see _rounds_apply).
            max_chunks = budget - ctls[:, ITERATIONS]
            round_fn(
                trees, extras, root_priors, root_states, first.params, first.cfg_i,
                first.cfg_f, ctls, rngs, first.bufs, first.fbufs, pend, capacities,
                max_chunks, codes,
            )  # fmt: skip
            waiting = np.flatnonzero(codes == NEED_EVAL).tolist()
            for j in np.flatnonzero((codes >= 0) & (codes != NEED_EVAL)).tolist():
                r, code = runs[j], int(codes[j])
                stopped_by = searchers[j]._after_chunk(r, code)
                if stopped_by is not None:
                    results[j] = searchers[j]._finish(r, stopped_by)
                    codes[j] = -1
                elif code == NEED_SPACE:
                    grown = searchers[j].tree
                    assert grown is not None
                    trees[j], extras[j] = grown, searchers[j]._extra
                    capacities[j, 0] = len(grown.first_child)
            if waiting:
                batch = _round_batch(searchers, states, runs, pend, ctls, waiting, shape)
                if chosen is None:
                    chosen = searchers[waiting[0]]._evaluator
                raw_priors, raw_values = chosen.evaluate(batch)
                priors, values = check_output(raw_priors, raw_values, batch.legal_mask)
                counts = ctls[waiting, PENDING]
                if np.all(counts == 1):
                    pend.priors[waiting, 0] = priors
                    pend.values[waiting, 0] = values
                else:
                    at = 0
                    for j, k in zip(waiting, counts.tolist(), strict=True):
                        pend.priors[j, :k] = priors[at : at + k]
                        pend.values[j, :k] = values[at : at + k]
                        at += k
            elif np.all(codes < 0):
                break
    finally:
        for s in searchers:
            s.rng = s.rng.copy()  # its own word again, not a view of the stack
    return [r for r in results if r is not None]


def _round_batch(
    searchers: Sequence[CompiledMCTS],
    states: Sequence[State],
    runs: Sequence[_Run],
    pend: Pending,
    ctls: Any,
    waiting: list[int],
    shape: tuple[int, ...] | None,
) -> LeafBatch:
    """The waiting searches' leaves as one :class:`LeafBatch`, read from the stacked
    pending rows (one leaf each, the usual case, by one fancy index)."""
    counts = ctls[waiting, PENDING]
    pairs = list(zip(waiting, counts.tolist(), strict=True))
    if np.all(counts == 1):
        rows: Any = np.asarray(waiting)
        masks, to_play = pend.masks[rows, 0], pend.to_play[rows, 0]
        observations = pend.observations[rows, 0] if shape is not None else None
    else:
        masks = np.concatenate([pend.masks[j, :k] for j, k in pairs])
        to_play = np.concatenate([pend.to_play[j, :k] for j, k in pairs])
        observations = None
        if shape is not None:
            observations = np.concatenate([pend.observations[j, :k] for j, k in pairs])
    if observations is not None and shape is not None:
        observations = observations.reshape((len(masks), *shape))

    def make_states() -> list[State]:
        out: list[State] = []
        for j, k in pairs:
            out.extend(searchers[j]._leaf_batch(runs[j].pending, k, states[j]).states)
        return out

    return LeafBatch(masks, to_play, observations=observations, make_states=make_states)


def _search_stepped(
    searchers: Sequence[CompiledMCTS], states: Sequence[State], evaluator: Any
) -> list[SearchResult]:
    """:func:`search_many` by each search's generator (:meth:`CompiledMCTS.search_steps`)."""
    steps = [s.search_steps(x) for s, x in zip(searchers, states, strict=True)]
    results: list[SearchResult | None] = [None] * len(steps)
    waiting: dict[int, LeafBatch] = {}

    def advance(i: int, answer: tuple[Any, Any] | None) -> None:
        try:
            waiting[i] = next(steps[i]) if answer is None else steps[i].send(answer)
        except StopIteration as stop:
            results[i] = stop.value
            waiting.pop(i, None)

    for i in range(len(steps)):
        advance(i, None)
    chosen = None if evaluator is None else make_evaluator(evaluator)
    while waiting:
        order = sorted(waiting)
        batch = LeafBatch.concat([waiting[i] for i in order])
        if chosen is None:
            chosen = searchers[order[0]]._evaluator
        raw_priors, raw_values = chosen.evaluate(batch)
        priors, values = check_output(raw_priors, raw_values, batch.legal_mask)
        at = 0
        for i in order:
            k = len(waiting[i])
            advance(i, (priors[at : at + k], values[at : at + k]))
            at += k
    return [r for r in results if r is not None]
