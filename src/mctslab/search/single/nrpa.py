"""Nested Rollout Policy Adaptation (Rosin, "Nested rollout policy adaptation for Monte
Carlo tree search", IJCAI 2011).

A *policy* is a weight per move code (:func:`~mctslab.search.single.moves.move_coder`:
the travelling salesman's code is the edge ``(current city, next city)``); a level-0
search is a playout that draws each move with probability ``exp(w(code)) / sum over
the legal moves``. A level-``L`` search runs ``N`` level-``(L - 1)`` searches, each
from a copy of its policy, keeps the best sequence (ties go to the newer one) and
after each *adapts* its policy towards that sequence::

    NRPA(L, pol):
        if L == 0: return playout(root, pol)
        best = -inf
        repeat N times:
            (score, seq) = NRPA(L - 1, copy(pol))
            if score >= best: best, best_seq = score, seq
            pol = adapt(pol, best_seq)
        return best, best_seq

    adapt(pol, seq):                      # a gradient step on log P(seq) under pol
        pol' = copy(pol); s = root
        for m in seq:
            pol'[code(s, m)] += alpha
            z = sum over m' legal at s of exp(pol[code(s, m')])
            for m' legal at s: pol'[code(s, m')] -= alpha * exp(pol[code(s, m')]) / z
            s = s + m
        return pol'

Levels 1 to 4, ``N = 100`` and ``alpha = 1`` in the paper (``N^L`` playouts a run).

With ``bias = beta > 0`` it is Generalized NRPA (Cazenave, "Generalized Nested Rollout
Policy Adaptation", 2020): a move's probability is proportional to ``exp(w(code) + beta
* b(move))``, ``b`` the game's prior knowledge of the move (its ``move_bias`` kernel: the
travelling salesman's prefers short edges), in the playouts and in the adaptation's
probabilities alike.
Probabilities are computed as ``exp(w - max w)``, the same numbers without overflow.
This is the reference engine's version; the compiled one
(:mod:`mctslab.search.single.compiled`) makes the same draws and the same policies.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import GameInfo, State
from mctslab.core.options import option
from mctslab.core.rng import Rng
from mctslab.search.single.moves import (
    Biases,
    MoveCoder,
    Polisher,
    check_knowledge,
    knowledge,
    move_coder,
    softmax_choice,
)
from mctslab.search.single.result import (
    BestTracker,
    Budget,
    Improvement,
    OptimizeResult,
    OutOfBudget,
    Watch,
    check_single_player,
)

__all__ = ["NRPAConfig", "adapt", "nrpa", "policy_playout"]

Policy = dict[int, float]


@dataclass(frozen=True)
class NRPAConfig:
    """Nested Rollout Policy Adaptation's options.

    Attributes:
        level: the nesting level, 1 to 4 (0: one playout of the uniform policy).
        iterations: ``N``, the level-``(L - 1)`` searches of each level (Rosin: 100).
        alpha: the adaptation step (Rosin: 1.0).
        bias: ``beta``, the weight of the game's move bias (Generalized NRPA); 0: Rosin's
            NRPA (a game without a ``move_bias`` has none either way).
        polish: every playout's sequence is improved by the game's local search (its
            ``polish``: the travelling salesman's 2-opt and Or-opt) before it is scored
            and kept, so that the policy adapts towards local optima (NRPA with local
            search); a game without one is refused.
        seed: the generator's seed.
        time, playouts: budgets (``None``: none); a finished run is followed by another
            while budget is left (a restart from the uniform policy), the best of all
            runs kept.
        target: stop once a sequence scores at least this (``None``: no target).
        runs: how many runs at most (``None``: as many as the budget allows; with no
            budget at all, one).
    """

    level: int = option(
        2, "the nesting level (0: one playout of the uniform policy)", low=0, high=4
    )
    iterations: int = option(100, "N: the level-(L - 1) searches of each level", low=1, high=10**6)
    alpha: float = option(1.0, "the adaptation step", low=0, high=100, low_open=True)
    bias: float = option(
        0.0,
        "the weight beta of the game's move bias in the playouts (0: uniform)",
        low=0,
        high=1000,
    )
    polish: bool = option(False, "improve each playout's sequence by the game's local search")
    seed: int = option(0, "the generator's seed", spec=False)
    time: float | None = option(None, "a wall-clock budget in seconds (none: no limit)", spec=False)
    playouts: int | None = option(None, "a playout budget (none: no limit)", spec=False)
    target: float | None = option(None, "stop once a sequence scores at least this", spec=False)
    runs: int | None = option(None, "runs at most (none: as many as the budget allows)", spec=False)

    def __post_init__(self) -> None:
        where = "nrpa"
        if (
            not isinstance(self.level, int)
            or isinstance(self.level, bool)
            or not 0 <= self.level <= 4
        ):
            raise InvalidConfigError(
                f"{where}: level must be an integer in [0, 4], got {self.level!r}"
            )
        if (
            not isinstance(self.iterations, int)
            or isinstance(self.iterations, bool)
            or not 1 <= self.iterations <= 10**6
        ):
            raise InvalidConfigError(
                f"{where}: iterations must be an integer in [1, 10**6], got {self.iterations!r}"
            )
        if not isinstance(self.alpha, int | float) or not 0 < self.alpha <= 100:
            raise InvalidConfigError(f"{where}: alpha must be in (0, 100], got {self.alpha!r}")
        check_knowledge(where, self.bias, self.polish)
        if self.runs is not None and (not isinstance(self.runs, int) or self.runs < 1):
            raise InvalidConfigError(f"{where}: runs must be an integer >= 1, got {self.runs!r}")
        Budget.of(self)  # checks them

    @property
    def spec(self) -> str:
        return (
            f"nrpa:level={self.level},iterations={self.iterations},"
            f"alpha={self.alpha:g},"
            + (f"bias={self.bias:g}," if self.bias else "")
            + ("polish=1," if self.polish else "")
            + f"seed={self.seed}"
        )


def _weights(s: State, legal: list[int], pol: Policy, code: MoveCoder, bias: Biases) -> list[float]:
    """Each legal move's ``w(code) + beta * b(move)`` (``bias``: ``(beta, b)`` or ``None``)."""
    if bias is None:
        return [pol.get(code(s, a), 0.0) for a in legal]
    beta, b = bias
    return [pol.get(code(s, a), 0.0) + beta * b(s, a) for a in legal]


def policy_playout(
    root: State,
    pol: Policy,
    code: MoveCoder,
    rng: Rng,
    bias: Biases = None,
    polish: Polisher | None = None,
) -> tuple[float, list[int]]:
    """A playout from ``root`` drawing each move by ``softmax(pol)`` over the legal moves'
    codes (:func:`~mctslab.search.single.moves.softmax_choice`), then polished by
    ``polish`` if given: (score, moves)."""
    s = root.clone()
    moves: list[int] = []
    while not s.is_terminal():
        legal = s.legal_actions()
        a = legal[softmax_choice(_weights(s, legal, pol, code, bias), rng)]
        s.apply_action(a)
        moves.append(a)
    if polish is not None and moves:
        return polish(root, moves), moves
    return float(s.returns()[0]), moves


def adapt(
    root: State, pol: Policy, seq: list[int], code: MoveCoder, alpha: float, bias: Biases = None
) -> Policy:
    """Rosin's adaptation of ``pol`` towards ``seq`` (probabilities from the old policy)."""
    new = dict(pol)
    s = root.clone()
    for m in seq:
        legal = s.legal_actions()
        codes = [code(s, a) for a in legal]
        weights = _weights(s, legal, pol, code, bias)
        top = max(weights)
        exps = [math.exp(w - top) for w in weights]
        z = 0.0
        for e in exps:
            z += e
        new[code(s, m)] = new.get(code(s, m), 0.0) + alpha
        for c, e in zip(codes, exps, strict=True):
            new[c] = new.get(c, 0.0) - alpha * (e / z)
        s.apply_action(m)
    return new


def _level(
    root: State,
    level: int,
    pol: Policy,
    config: NRPAConfig,
    code: MoveCoder,
    rng: Rng,
    tracker: BestTracker,
    bias: Biases,
    polish: Polisher | None,
) -> tuple[float, list[int]]:
    if level == 0:
        tracker.check()
        score, seq = policy_playout(root, pol, code, rng, bias, polish)
        tracker.offer(score, seq)
        return score, seq
    best, best_seq = -math.inf, []
    for _ in range(config.iterations):
        score, seq = _level(root, level - 1, dict(pol), config, code, rng, tracker, bias, polish)
        if score >= best:
            best, best_seq = score, seq
        pol = adapt(root, pol, best_seq, code, config.alpha, bias)
    return best, best_seq


def nrpa(
    state: State,
    config: NRPAConfig | None = None,
    info: GameInfo | None = None,
    on_improve: Callable[[Improvement], None] | None = None,
    watch: Watch | None = None,
) -> OptimizeResult:
    """Nested Rollout Policy Adaptation from ``state``: the best sequence found."""
    config = config or NRPAConfig()
    info = info or state.game.info  # type: ignore[attr-defined]
    check_single_player(state, info.num_players)
    budget = Budget.of(config, watch)
    tracker = BestTracker(budget, on_improve)
    rng = Rng(config.seed)
    code = move_coder(state)
    bias, polish = knowledge(state, "nrpa", config.bias, config.polish)
    runs = 0
    most = config.runs or (1 if config.time is None and config.playouts is None else None)
    try:
        while most is None or runs < most:
            _level(state, config.level, {}, config, code, rng, tracker, bias, polish)
            runs += 1
    except OutOfBudget:
        runs += 1
    return tracker.result(runs, config.spec)
