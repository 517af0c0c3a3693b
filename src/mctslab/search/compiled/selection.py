"""The selection rules: which child of a node the descent takes.

Each rule is a function ``(tree, node, choice)`` returning a child's id, inlined into the
descent (:func:`~mctslab.search.compiled.phases.select` takes the rule as an argument):
:func:`uct_child` (UCT: Kocsis and Szepesvári 2006), :func:`ucb1_tuned_child`
(UCB1-Tuned: Auer et al. 2002), :func:`rave_child` (RAVE and progressive bias: Gelly and
Silver 2011; Chaslot et al. 2008), :func:`puct_child` (AlphaGo's PUCT: Silver et al. 2016,
2017) and :func:`gumbel_child` (Gumbel MuZero: Danihelka et al. 2022). ``choice`` is a
tuple of the rule's parameters: for UCT's family ``(c, solver, rave_k, knowledge)``, each rule
reading what it needs. :data:`COMPILED_RULES` registers UCT's family by the names of
:data:`mctslab.search.rules.RULES`; the UCT chunk dispatches on a rule's code, its index
there (:data:`RULE_CODES`, ``Options.rule``). :func:`agree` is robust-max's test at the
root.
"""

from __future__ import annotations

import math
import sys

import numpy as np
from numba import njit

from mctslab.search.compiled.tree import (
    AMAF_SUM,
    AMAF_VISITS,
    BIAS,
    KNOW_VISITS,
    KNOW_WINS,
    NONE,
    PRIOR_ROW,
    RAW_ROW,
    ROOT,
    SQUARES,
    UNPROVEN,
)
from mctslab.search.rules import (
    UCT_INV,
    UCT_INV_SQRT,
    UCT_SQRT_LOG,
    UCT_TABLE_SIZE,
    ucb1_tuned_score,
)

TINY = sys.float_info.min

# The reference's reciprocal tables as arrays (numba freezes a global array into the code).
INV = np.array(UCT_INV)
INV_SQRT = np.array(UCT_INV_SQRT)
SQRT_LOG = np.array(UCT_SQRT_LOG)


@njit(inline="always")  # inlined: a call would pass the whole Tree struct each step
def uct_child(tree, node, choice):  # type: ignore[no-untyped-def]
    """The child of ``node`` with the highest UCT score, as the reference's
    ``_best_uct_child``: ``Q/N + c * sqrt(ln N_parent / N)`` computed as the reference's
    :func:`~mctslab.search.mcts.uct_score` does (``c * sqrt(ln N_parent)`` once per node,
    the reciprocals of small counts from the same tables), unvisited children first,
    ties to the lowest action (children are sorted by action and only a strictly
    greater score replaces the best); MCTS-Solver skips proven children.
    ``choice = (c, solver, rave_k, knowledge)``."""
    c, solver = choice[0], choice[1]
    visits, value_sum, proven, next_sibling = (
        tree.visits,
        tree.value_sum,
        tree.proven,
        tree.next_sibling,
    )
    parent_visits = visits[node]
    if parent_visits < UCT_TABLE_SIZE:
        explore = c * SQRT_LOG[parent_visits]
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
                value = value_sum[ch] * INV[n] + explore * INV_SQRT[n]
            else:
                value = value_sum[ch] * (1.0 / n) + explore * (1.0 / math.sqrt(n))
            if value > best_value:
                best = ch
                best_value = value
        ch = next_sibling[ch]
    return best


# The score, compiled from the one Python function both engines call.
tuned_score = njit(inline="always")(ucb1_tuned_score)


@njit(inline="always")
def ucb1_tuned_child(tree, node, choice):  # type: ignore[no-untyped-def]
    """The child of ``node`` with the highest UCB1-Tuned score, as the reference's
    ``ucb1_tuned_child``: :func:`~mctslab.search.rules.ucb1_tuned_score` (compiled from the
    same function) with ``ln N_parent`` once per node, the squared rewards from
    ``tree.stats[SQUARES]``; unvisited children first, ties to the lowest action,
    MCTS-Solver skips proven children. ``choice = (c, solver, rave_k, knowledge)``."""
    c, solver = choice[0], choice[1]
    visits, value_sum, proven, next_sibling = (
        tree.visits,
        tree.value_sum,
        tree.proven,
        tree.next_sibling,
    )
    squares = tree.stats[SQUARES]
    parent_visits = visits[node]
    log_parent = math.log(parent_visits) if parent_visits else 0.0
    best = NONE
    best_value = -math.inf
    ch = tree.first_child[node]
    while ch >= 0:
        if not (solver and proven[ch] != UNPROVEN):
            n = visits[ch]
            if n == 0:
                return ch
            value = tuned_score(value_sum[ch], squares[ch], n, log_parent, c)
            if value > best_value:
                best = ch
                best_value = value
        ch = next_sibling[ch]
    return best


@njit(inline="always")
def rave_child(tree, node, choice):  # type: ignore[no-untyped-def]
    """The child of ``node`` with the highest RAVE / progressive-bias / prior-knowledge
    score, as the reference's ``_best_rave_child`` and
    :func:`~mctslab.search.rules.rave_score`, float for float: ``(1 - beta) (Q + Q0) /
    (N + N0) + beta (Q~ + Q0) / (N~ + N0) + c sqrt(ln N_parent / (N + N0)) + w H / (N +
    1)``, ``beta = sqrt(k / (3 N_parent + k))``, ``N0`` and ``Q0`` the child's virtual
    visits and wins of prior knowledge (``tree.stats[KNOW_VISITS]``, ``[KNOW_WINS]``: 0
    without it); a
    child with ``N + N0 = 0`` scores its AMAF mean plus ``c sqrt(ln N_parent) + w H``, or
    comes first while RAVE has not seen its move; ties to the lowest action;
    MCTS-Solver skips proven children. ``choice = (c, solver, k, knowledge)``."""
    c, solver, k, knowledge = choice[0], choice[1], choice[2], choice[3]
    visits, value_sum, proven, next_sibling = (
        tree.visits,
        tree.value_sum,
        tree.proven,
        tree.next_sibling,
    )
    amaf_n, amaf_sum, bias = tree.stats[AMAF_VISITS], tree.stats[AMAF_SUM], tree.stats[BIAS]
    parent_visits = visits[node]
    if parent_visits < UCT_TABLE_SIZE:
        explore = c * SQRT_LOG[parent_visits]
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
            if knowledge:
                n0 = tree.stats[KNOW_VISITS, ch]
                q0 = tree.stats[KNOW_WINS, ch]
            else:
                n0 = 0.0
                q0 = 0.0
            ne = n + n0
            me = m + n0
            if ne == 0:
                if me == 0.0:
                    return ch
                value = (amaf_sum[ch] + q0) / me + explore + bias[ch]
            else:
                q = (value_sum[ch] + q0) / ne
                if me > 0.0:
                    q = (1.0 - beta) * q + beta * ((amaf_sum[ch] + q0) / me)
                value = q + explore / math.sqrt(ne) + bias[ch] / (n + 1.0)
            if value > best_value:
                best = ch
                best_value = value
        ch = next_sibling[ch]
    return best


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


#: UCT's family of rules by their registry names (:data:`mctslab.search.rules.RULES`):
#: the rules the UCT chunk can descend by. PUCT and Gumbel (:func:`puct_child`,
#: :func:`gumbel_child`) take the PUCT chunk's arrays and run there.
COMPILED_RULES = {
    "uct": uct_child,
    "rave": rave_child,
    "ucb1-tuned": ucb1_tuned_child,
}
#: A rule's code (``Options.rule``): its index in :data:`COMPILED_RULES`.
RULE_CODES = {name: code for code, name in enumerate(COMPILED_RULES)}


@njit(cache=True)
def mean(value_sum, visits, i):  # type: ignore[no-untyped-def]
    return value_sum[i] / visits[i] if visits[i] else 0.0


@njit(cache=True)
def better(visits_a, mean_a, visits_b, mean_b, by_visits):  # type: ignore[no-untyped-def]
    """Lexicographic (visits, mean) or (mean, visits) comparison: is a strictly better?"""
    if by_visits:
        return visits_a > visits_b or (visits_a == visits_b and mean_a > mean_b)
    return mean_a > mean_b or (mean_a == mean_b and visits_a > visits_b)


@njit(cache=True)
def agree(tree):  # type: ignore[no-untyped-def]
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
        m = mean(value_sum, visits, ch)
        if robust < 0 or better(
            visits[ch], m, visits[robust], mean(value_sum, visits, robust), True
        ):
            robust = ch
        if not (any_visited and visits[ch] == 0) and (
            best < 0 or better(visits[ch], m, visits[best], mean(value_sum, visits, best), False)
        ):
            best = ch
        ch = next_sibling[ch]
    return robust < 0 or robust == best
