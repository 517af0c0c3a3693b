"""Gumbel root search: policy improvement by planning with Gumbel (Danihelka et al. 2022).

"Policy improvement by planning with Gumbel" (ICLR 2022; mctx's
``gumbel_muzero_policy``) makes a search with very few simulations still improve on
its prior. At the root it samples ``m`` actions without replacement by the Gumbel-top-k
trick (``g(a) + logits(a)``, ``g ~ Gumbel(0, 1)``) and shares the simulations among
them by Sequential Halving, keeping the half with the best ``g + logits + sigma(q)``
at each stage; below the root it picks deterministically the action whose visit share
lags most behind the improved policy. Its result is the surviving action and the
improved policy ``softmax(logits + sigma(completed q))``.

Completed Q-values and their scale, as mctx's ``qtransform_completed_by_mix_value``
(``q`` on values in ``[-1, 1]`` for the player to move)::

    v_mix = (v + S * sum_{visited} pi(a) q(a) / sum_{visited} pi(a)) / (S + 1)
    cq(a) = q(a) if visited else v_mix
    cq    = (cq - min cq) / max(max cq - min cq, 1e-8)
    sigma = (maxvisit_init + max_a N(a)) * value_scale * cq

with ``v`` the node's own value (its first evaluation), ``S = sum_a N(a)``, ``pi`` the
priors (at least the smallest positive double). As in mctx, ``min`` and ``max`` run
over all of the game's actions, so ``v_mix`` takes part whenever an action (illegal
ones included) has no visit.

This module holds the formulas on plain lists, used by the reference engine
(:mod:`mctslab.search.mcts`); the compiled engine computes the same in numba.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence

__all__ = [
    "TINY",
    "completed_sigma",
    "considered_visits",
    "final_choice",
    "improved_policy",
    "interior_choice",
    "log_priors",
    "root_score",
]

#: The smallest positive double: mctx's floor of a prior (``finfo.tiny``).
TINY = sys.float_info.min


def considered_visits(m: int, n: int) -> list[int]:
    """Sequential Halving's schedule (mctx ``seq_halving.get_sequence_of_considered_visits``):
    for each of ``n`` simulations, the visit count that a root action must have to be
    chosen. ``m`` actions get ``max(1, n / (ceil(log2 m) * m))`` visits each, then the
    best half, and so on down to two."""
    if m <= 1:
        return list(range(n))
    log2m = math.ceil(math.log2(m))
    out: list[int] = []
    visits = [0] * m
    considered = m
    while len(out) < n:
        extra = max(1, int(n / (log2m * considered)))
        for _ in range(extra):
            out.extend(visits[:considered])
            for i in range(considered):
                visits[i] += 1
        considered = max(2, considered // 2)
    return out[:n]


def log_priors(priors: Sequence[float]) -> list[float]:
    """The priors as logits, ``log(max(p, TINY))`` (softmax gives the priors back)."""
    return [math.log(max(p, TINY)) for p in priors]


def completed_sigma(
    q: Sequence[float],
    visits: Sequence[int],
    priors: Sequence[float],
    raw: float,
    num_actions: int,
    value_scale: float,
    maxvisit_init: float,
) -> list[float]:
    """``sigma(completed q)`` of each child (see the module docstring): ``q`` the
    children's values for the player to move (any number where unvisited), ``visits``
    their counts, ``priors`` their priors, ``raw`` the node's own value."""
    total = sum(visits)
    sum_p = 0.0
    for p, n in zip(priors, visits, strict=True):
        if n > 0:
            sum_p += max(TINY, p)
    weighted = 0.0
    if total > 0:
        for p, n, v in zip(priors, visits, q, strict=True):
            if n > 0:
                weighted += max(TINY, p) * v / sum_p
    v_mix = (raw + total * weighted) / (total + 1)
    completed = [v if n > 0 else v_mix for v, n in zip(q, visits, strict=True)]
    seen = list(completed)
    if sum(1 for n in visits if n > 0) < num_actions:
        seen.append(v_mix)  # an action without a visit (illegal ones too) holds v_mix
    low, high = min(seen), max(seen)
    scale = (maxvisit_init + max(visits, default=0)) * value_scale
    return [scale * ((v - low) / max(high - low, 1e-8)) for v in completed]


def root_score(gumbel: float, logit: float, max_logit: float, sigma: float) -> float:
    """A root action's score, ``max(-1e9, g + (logit - max_logit) + sigma)`` (mctx's
    ``score_considered``, before the penalty for a visit count not due)."""
    return max(-1e9, gumbel + (logit - max_logit) + sigma)


def improved_policy(logits: Sequence[float], sigma: Sequence[float]) -> list[float]:
    """``softmax(logits + sigma)``: the improved policy of a node."""
    z = [lg + s for lg, s in zip(logits, sigma, strict=True)]
    top = max(z)
    e = [math.exp(x - top) for x in z]
    total = 0.0
    for x in e:  # left to right, as the compiled engine adds (not Python 3.12's fsum-like sum)
        total += x
    return [x / total for x in e]


def interior_choice(logits: Sequence[float], sigma: Sequence[float], visits: Sequence[int]) -> int:
    """Below the root: the index maximising ``pi'(a) - N(a) / (1 + sum N)`` (the action
    whose visit share lags most behind the improved policy ``pi'``); ties to the lowest."""
    policy = improved_policy(logits, sigma)
    denom = 1 + sum(visits)
    best, best_value = 0, -math.inf
    for i, (p, n) in enumerate(zip(policy, visits, strict=True)):
        value = p - n / denom
        if value > best_value:
            best, best_value = i, value
    return best


def final_choice(
    q: Sequence[float],
    visits: Sequence[int],
    priors: Sequence[float],
    raw: float,
    gumbel: Sequence[float],
    num_actions: int,
    value_scale: float,
    maxvisit_init: float,
) -> tuple[int, list[float]]:
    """The search's move and improved policy: among the most visited root children, the
    index with the best :func:`root_score` (mctx's final Sequential Halving step); the
    policy ``softmax(logits + sigma)`` over the children."""
    sigma = completed_sigma(q, visits, priors, raw, num_actions, value_scale, maxvisit_init)
    logits = log_priors(priors)
    top = max(visits)
    max_logit = max(logits)
    best, best_value = 0, -math.inf
    for i, n in enumerate(visits):
        if n != top:
            continue
        value = root_score(gumbel[i], logits[i], max_logit, sigma[i])
        if value > best_value:
            best, best_value = i, value
    return best, improved_policy(logits, sigma)
