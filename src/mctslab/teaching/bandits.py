"""Multi-armed bandits: the problem UCT's selection rule comes from, simulated.

A Bernoulli bandit has ``K`` arms; pulling arm ``i`` pays 1 with probability ``mu_i``,
else 0. A policy chooses an arm each step from what it has seen; its **regret** after
``T`` steps is what it lost in expectation against always pulling the best arm,
``R_T = sum_t (mu* - mu_{a_t})`` (the pseudo-regret: expected payoffs, not the noisy
rewards). The three classic policies:

- ``greedy``: each arm once, then always the arm with the best mean so far. It can lock
  onto a worse arm for ever after an unlucky start: regret linear in ``T``.
- ``epsilon-greedy``: the same, but a uniformly random arm with probability ``epsilon``:
  it keeps exploring at a fixed rate, so its regret also grows linearly (about
  ``epsilon * T * mean gap``).
- ``ucb1`` (Auer, Cesa-Bianchi and Fischer, "Finite-time Analysis of the Multiarmed
  Bandit Problem", 2002): each arm once, then the arm maximising
  ``mean_i + c * sqrt(ln N / n_i)`` (``N`` pulls in all, ``n_i`` of arm ``i``; ``c =
  sqrt(2)`` in the paper). Its regret grows as ``ln T``: an arm that is ``Delta`` worse is
  pulled about ``8 ln T / Delta^2`` times. UCT is this rule at every node of a tree
  (Kocsis and Szepesvari, 2006).

Ties go to the lowest arm. Every random draw comes from ``seed``.

>>> run = simulate([0.2, 0.8], "ucb1", steps=200, seed=1)
>>> run.pulls.tolist()  # the better arm gets most of the pulls
[16, 184]
>>> round(float(run.regret[-1]), 1)
9.6
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mctslab.core.errors import InvalidConfigError

__all__ = ["POLICIES", "BanditError", "BanditRun", "RegretCurve", "regret_curves", "simulate"]

#: The policies :func:`simulate` knows.
POLICIES = ("greedy", "epsilon-greedy", "ucb1")


class BanditError(InvalidConfigError):
    """A bandit that cannot be simulated: no arms, a mean outside [0, 1], an unknown
    policy, a step count or epsilon out of range."""


@dataclass(frozen=True)
class BanditRun:
    """One run: the arm chosen at each step, its reward (0 or 1), the pulls of each arm
    at the end and the cumulative pseudo-regret after each step."""

    policy: str
    arms: np.ndarray
    rewards: np.ndarray
    pulls: np.ndarray
    regret: np.ndarray


def _check(means: Sequence[float], policy: str, steps: int, epsilon: float) -> None:
    if len(means) < 1 or not all(0.0 <= m <= 1.0 for m in means):
        raise BanditError(f"a Bernoulli bandit's means are in [0, 1], got {list(means)}")
    if policy not in POLICIES:
        raise BanditError(f"unknown policy {policy!r}; the policies: {', '.join(POLICIES)}")
    if steps < 1:
        raise BanditError(f"steps must be >= 1, got {steps}")
    if not 0.0 <= epsilon <= 1.0:
        raise BanditError(f"epsilon must be in [0, 1], got {epsilon}")


def simulate(
    means: Sequence[float],
    policy: str,
    steps: int,
    seed: int = 0,
    epsilon: float = 0.1,
    c: float = math.sqrt(2),
) -> BanditRun:
    """Run ``policy`` for ``steps`` pulls on the Bernoulli arms ``means`` (see the module's
    docstring); ``epsilon`` is epsilon-greedy's exploration rate, ``c`` UCB1's constant."""
    _check(means, policy, steps, epsilon)
    rng = np.random.default_rng(seed)
    mu = np.asarray(means, dtype=np.float64)
    k = len(mu)
    pulls = np.zeros(k, dtype=np.int64)
    wins = np.zeros(k, dtype=np.float64)
    arms = np.zeros(steps, dtype=np.int64)
    rewards = np.zeros(steps, dtype=np.int64)
    draws = rng.random(steps)  # the arm's payoff: 1 if below its mean
    explore = rng.random(steps)  # epsilon-greedy's coin
    random_arm = rng.integers(0, k, size=steps)
    for t in range(steps):
        if t < k:
            arm = t  # each arm once first
        elif policy == "epsilon-greedy" and explore[t] < epsilon:
            arm = int(random_arm[t])
        elif policy == "ucb1":
            arm = int(np.argmax(wins / pulls + c * np.sqrt(math.log(t) / pulls)))
        else:
            arm = int(np.argmax(wins / pulls))
        reward = int(draws[t] < mu[arm])
        arms[t], rewards[t] = arm, reward
        pulls[arm] += 1
        wins[arm] += reward
    regret = np.cumsum(mu.max() - mu[arms])
    return BanditRun(policy, arms, rewards, pulls, regret)


@dataclass(frozen=True)
class RegretCurve:
    """A policy's cumulative regret after each step over ``runs`` seeds: the ``mean`` and
    its 95% interval (``low``, ``high``: mean +- 1.96 standard errors)."""

    policy: str
    runs: int
    mean: np.ndarray
    low: np.ndarray
    high: np.ndarray


def regret_curves(
    means: Sequence[float],
    policies: Sequence[str] = POLICIES,
    steps: int = 1000,
    seeds: int = 100,
    epsilon: float = 0.1,
    c: float = math.sqrt(2),
) -> list[RegretCurve]:
    """Each policy's :class:`RegretCurve` over seeds ``0 .. seeds - 1`` (the same seeds,
    so the same payoff draws, for every policy)."""
    if seeds < 2:
        raise BanditError(f"an interval needs seeds >= 2, got {seeds}")
    curves = []
    for policy in policies:
        runs = np.stack(
            [simulate(means, policy, steps, s, epsilon, c).regret for s in range(seeds)]
        )
        mean = runs.mean(axis=0)
        half = 1.96 * runs.std(axis=0, ddof=1) / math.sqrt(seeds)
        curves.append(RegretCurve(policy, seeds, mean, mean - half, mean + half))
    return curves
