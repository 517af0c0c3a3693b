"""The selection rules: which child of a node the descent takes.

Each rule is a function ``(tree, node, choice)`` returning a child's id, inlined into the
descent (:func:`~mctslab.search.compiled.phases.select` takes the rule as an argument).
Every score is the registry's one Python function
(:data:`mctslab.search.rules.RULES`' ``score``), compiled by :func:`compiled_twin`:

- UCT's family (UCT, UCB1-Tuned, RAVE with progressive bias and prior knowledge) gets
  :func:`argmax_chooser`'s chooser, written from the rule's score and per-node terms when
  this module is imported; ``choice = (c, solver, rave_k, knowledge)``, each rule reading
  what it needs. :data:`COMPILED_RULES` holds them by the registry's names, in its order,
  and :data:`RULE_CODES` their codes (``Options.rule``), on which the UCT chunk's
  ``select_by_rule`` dispatches.
- PUCT's family has choosers of its own, named by their entries: :func:`puct_child`
  (AlphaGo's PUCT: Silver et al. 2016, 2017) and :func:`gumbel_child` (Gumbel MuZero:
  Danihelka et al. 2022), run by the PUCT chunk.

:func:`agree` is robust-max's test at the root.
"""

from __future__ import annotations

import math
import sys
import types
from collections.abc import Callable
from typing import Any

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
    RULES,
    UCT_INV,
    UCT_INV_SQRT,
    UCT_SQRT_LOG,
    RuleInfo,
    score_call,
)

TINY = sys.float_info.min

# The reference's reciprocal tables as arrays (numba freezes a global array into the code).
INV = np.array(UCT_INV)
INV_SQRT = np.array(UCT_INV_SQRT)
SQRT_LOG = np.array(UCT_SQRT_LOG)


# The reciprocal tables that the registry's Python functions read as lists, as arrays.
_TABLES = {"UCT_INV": INV, "UCT_INV_SQRT": INV_SQRT, "UCT_SQRT_LOG": SQRT_LOG}


def compiled_twin(fn: Callable[..., Any]) -> Any:
    """``fn`` (a score or per-node terms function of :mod:`mctslab.search.rules`,
    :mod:`~mctslab.search.puct` or :mod:`~mctslab.search.gumbel`) compiled by numba, inlined
    where it is called: the same code object, its global tables read as the numpy arrays
    of the same numbers (numba cannot read a global list) and the Python functions it calls
    (:func:`~mctslab.search.rules.exploration` in UCT's terms) compiled the same way, so
    the compiled engine computes the reference engine's doubles with the reference
    engine's function. Inlined: a call inside the children's loop would cost more than
    the score."""
    if fn in _TWINS:
        return _TWINS[fn]
    scope = dict(fn.__globals__)
    for name in fn.__code__.co_names:
        if name in _TABLES:
            scope[name] = _TABLES[name]
        elif isinstance(scope.get(name), types.FunctionType):
            scope[name] = compiled_twin(scope[name])
    twin = types.FunctionType(fn.__code__, scope, fn.__name__, fn.__defaults__, fn.__closure__)
    twin.__doc__ = fn.__doc__
    _TWINS[fn] = njit(inline="always")(twin)
    return _TWINS[fn]


_TWINS: dict[Callable[..., Any], Any] = {}


# How the compiled tree spells a child's statistic (the score's parameter of that name).
_READS = {
    "visits": "visits[ch]",
    "value_sum": "value_sum[ch]",
    "squares": "stats[SQUARES, ch]",
    "amaf_visits": "stats[AMAF_VISITS, ch]",
    "amaf_sum": "stats[AMAF_SUM, ch]",
    "bias": "stats[BIAS, ch]",
    "prior_visits": "(stats[KNOW_VISITS, ch] if knowledge else 0.0)",
    "prior_wins": "(stats[KNOW_WINS, ch] if knowledge else 0.0)",
}

_ARGMAX_SOURCE = """
def choose(tree, node, choice):
    c, solver, k, knowledge = choice[0], choice[1], choice[2], choice[3]
    visits, value_sum, proven, next_sibling, stats = (
        tree.visits, tree.value_sum, tree.proven, tree.next_sibling, tree.stats
    )
    t = TERMS(c, k, visits[node])
    best = NONE
    best_value = -math.inf
    ch = tree.first_child[node]
    while ch >= 0:
        if not (solver and proven[ch] != UNPROVEN):
            value = {call}
            if value == math.inf:
                return ch
            if value > best_value:
                best = ch
                best_value = value
        ch = next_sibling[ch]
    return best
"""


def argmax_chooser(info: RuleInfo) -> Any:
    """The compiled chooser of a rule that picks the child with the highest registered
    score, as the reference's :func:`~mctslab.search.reference.selection.argmax_rule`:
    the per-node terms once (``info.terms``, compiled), each child's score
    (``info.score``, compiled) with its arguments read from the tree by the score's
    parameter names (:func:`~mctslab.search.rules.score_call`), a ``+inf`` child
    taken at once, ties to the lowest action (children are sorted by action and only a
    strictly greater score replaces the best), MCTS-Solver skipping proven children.
    ``choice = (c, solver, rave_k, knowledge)``. Written from the entry when this module
    is imported; inlined into the descent (a call would pass the whole Tree struct each
    step)."""
    assert info.terms is not None, f"{info.name!r} has a chooser of its own"
    call = score_call(info.score, _READS.__getitem__, lambda i: f"t[{i}]")
    scope: dict[str, Any] = {
        "math": math,
        "NONE": NONE,
        "UNPROVEN": UNPROVEN,
        "SQUARES": SQUARES,
        "AMAF_VISITS": AMAF_VISITS,
        "AMAF_SUM": AMAF_SUM,
        "BIAS": BIAS,
        "KNOW_VISITS": KNOW_VISITS,
        "KNOW_WINS": KNOW_WINS,
        "SCORE": compiled_twin(info.score),
        "TERMS": compiled_twin(info.terms),
    }
    exec(_ARGMAX_SOURCE.format(call=call), scope)
    fn = scope["choose"]
    fn.__name__ = fn.__qualname__ = info.name.replace("-", "_") + "_child"
    fn.__doc__ = f"The child with the highest {info.title} score ({info.formula})."
    return njit(inline="always")(fn)


#: PUCT's score and Gumbel's root score, compiled from the registry's functions.
puct_score = compiled_twin(RULES["puct"].score)
gumbel_root_score = compiled_twin(RULES["gumbel"].score)


@njit(inline="always")
def puct_child(tree, node, choice):  # type: ignore[no-untyped-def]
    """The child of ``node`` with the highest PUCT score, as the reference's
    ``puct_child``: the registry's :func:`~mctslab.search.puct.puct_score` compiled,
    ``Q + explore * P / (1 + N)`` with ``explore = sqrt(N_parent) * c(N_parent)`` (as
    :func:`~mctslab.search.puct.puct_exploration`) and ``Q = value_sum / N`` (``fpu``
    when unvisited); at the root with noise on,
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
            p = root_prior[PRIOR_ROW, action[ch]] if at_root else prior[ch]
            value = puct_score(value_sum[ch], visits[ch], p, explore, fpu)
            if value > best_value:
                best = ch
                best_value = value
        ch = next_sibling[ch]
    return best


@njit(inline="always")
def gumbel_child(tree, node, choice):  # type: ignore[no-untyped-def]
    """Gumbel search's choice, as the reference's ``gumbel_child`` and
    :mod:`~mctslab.search.gumbel`'s formulas, float for float: completed Q-values
    ``sigma``; at the root, among the children whose visits are Sequential Halving's
    count due, the best :func:`~mctslab.search.gumbel.root_score` (the registry's
    function compiled), ``max(-1e9, g + (logit - max logit) + sigma)``; below, the best
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
                g = root_rows[RAW_ROW, tree.action[ch]]
                value = gumbel_root_score(g, logit, max_logit, sigma)
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


#: UCT's family of rules by their registry names (:data:`mctslab.search.rules.RULES`), in
#: the order of their codes: the rules the UCT chunk can descend by, each written by
#: :func:`argmax_chooser` from its entry. PUCT and Gumbel (:func:`puct_child`,
#: :func:`gumbel_child`) take the PUCT chunk's arrays and run there.
COMPILED_RULES = {
    info.name: argmax_chooser(info)
    for info in sorted(
        (info for info in RULES.values() if info.family == "uct"), key=lambda info: info.code or 0
    )
}
#: A rule's code (``Options.rule``): its entry's ``code``, its index in
#: :data:`COMPILED_RULES` (the chunk's ``select_by_rule`` tests the codes in turn).
RULE_CODES = {name: code for code, name in enumerate(COMPILED_RULES)}
if any(RULES[name].code != code for name, code in RULE_CODES.items()):
    raise ValueError(f"UCT's family needs the codes 0, 1, ...: {RULE_CODES}")


# UCT's family by the names the engine's face and the docs know them.
uct_child = COMPILED_RULES["uct"]
ucb1_tuned_child = COMPILED_RULES["ucb1-tuned"]
rave_child = COMPILED_RULES["rave"]


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
