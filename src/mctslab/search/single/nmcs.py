"""Nested Monte-Carlo Search (Cazenave, "Nested Monte-Carlo Search", IJCAI 2009).

A level-0 search is a uniformly random playout. A level-``L`` search from a position
tries every legal move, runs a level-``(L - 1)`` search after each, and plays the first
move of the best sequence found so far (over this and every earlier step: the best
sequence is kept and followed, so the level never does worse than its best child
search); it goes on from the new position until the game ends::

    nested(s, L):
        best = -inf; played = []
        while s is not terminal:
            for m in legal(s):
                (score, seq) = playout(s + m) if L == 1 else nested(s + m, L - 1)
                if score > best: best, best_seq = score, played + [m] + seq
            m = best_seq[len(played)]; s = s + m; played += [m]
        return best, best_seq

Levels 1 to 4; a level-``L`` search makes about ``b^L d^L / L!`` playouts for branching
``b`` and depth ``d``. This is the reference engine's version, over any
:class:`~mctslab.core.game.State` of a single-player game; the compiled one
(:mod:`mctslab.search.single.compiled`) makes the same draws.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import GameInfo, State
from mctslab.core.options import option
from mctslab.core.rng import Rng
from mctslab.search.single.moves import Biases, Polisher, check_knowledge, knowledge, playout
from mctslab.search.single.result import (
    BestTracker,
    Budget,
    Improvement,
    OptimizeResult,
    OutOfBudget,
    Watch,
    check_single_player,
)

__all__ = ["NMCSConfig", "nmcs"]


@dataclass(frozen=True)
class NMCSConfig:
    """Nested Monte-Carlo Search's options.

    Attributes:
        level: the nesting level, 1 to 4 (0: one random playout).
        seed: the generator's seed (every random move comes from it).
        time: a wall-clock budget in seconds (``None``: none); ``playouts``: a playout
            budget. With a budget left after a finished run, the search runs again (the
            generator's stream going on) and keeps the best of all runs.
        target: stop once a sequence scores at least this (``None``: no target).
        runs: how many runs at most (``None``: as many as the budget allows; with no
            budget at all, one).
        bias: ``beta``: the playouts draw each move with probability proportional to
            ``exp(beta * b(move))``, ``b`` the game's ``move_bias`` (0: uniformly; a game
            without a prior plays uniformly either way).
        polish: each playout's sequence is improved by the game's local search before it
            is scored (:func:`~mctslab.search.single.moves.playout`).
    """

    level: int = option(2, "the nesting level (0: one random playout)", low=0, high=4)
    seed: int = option(0, "the generator's seed", spec=False)
    time: float | None = option(None, "a wall-clock budget in seconds (none: no limit)", spec=False)
    playouts: int | None = option(None, "a playout budget (none: no limit)", spec=False)
    target: float | None = option(None, "stop once a sequence scores at least this", spec=False)
    runs: int | None = option(None, "runs at most (none: as many as the budget allows)", spec=False)
    bias: float = option(
        0.0,
        "the weight beta of the game's move bias in the playouts (0: uniform)",
        low=0,
        high=1000,
    )
    polish: bool = option(False, "improve each playout's sequence by the game's local search")

    def __post_init__(self) -> None:
        check_knowledge("nmcs", self.bias, self.polish)
        if (
            not isinstance(self.level, int)
            or isinstance(self.level, bool)
            or not 0 <= self.level <= 4
        ):
            raise InvalidConfigError(
                f"nmcs: level must be an integer in [0, 4], got {self.level!r}"
            )
        if self.runs is not None and (not isinstance(self.runs, int) or self.runs < 1):
            raise InvalidConfigError(f"nmcs: runs must be an integer >= 1, got {self.runs!r}")
        Budget.of(self)  # checks them

    @property
    def spec(self) -> str:
        return (
            f"nmcs:level={self.level},"
            + (f"bias={self.bias:g}," if self.bias else "")
            + ("polish=1," if self.polish else "")
            + f"seed={self.seed}"
        )


def _nested(
    state: State,
    level: int,
    prefix: list[int],
    rng: Rng,
    tracker: BestTracker,
    bias: Biases = None,
    polish: Polisher | None = None,
) -> tuple[float, list[int]]:
    """A level-``level`` search from ``state`` (left unchanged), reached by ``prefix`` from
    the searched position: (its best score, its best sequence from ``state``)."""
    if level == 0 or state.is_terminal():
        tracker.check()
        moves: list[int] = []
        score = playout(state.clone(), rng, moves, bias, polish)
        tracker.offer(score, prefix + moves)
        return score, moves
    s = state.clone()
    best, best_seq = -math.inf, []
    played: list[int] = []
    while not s.is_terminal():
        for a in s.legal_actions():
            score, seq = _nested(
                s.child(a), level - 1, [*prefix, *played, a], rng, tracker, bias, polish
            )
            if score > best:
                best, best_seq = score, [*played, a, *seq]
        a = best_seq[len(played)]
        s.apply_action(a)
        played.append(a)
    return best, best_seq


def nmcs(
    state: State,
    config: NMCSConfig | None = None,
    info: GameInfo | None = None,
    on_improve: Callable[[Improvement], None] | None = None,
    watch: Watch | None = None,
) -> OptimizeResult:
    """Nested Monte-Carlo Search from ``state`` (a single-player game's position): the
    best sequence found (:class:`OptimizeResult`). ``on_improve`` hears every new best."""
    config = config or NMCSConfig()
    info = info or state.game.info  # type: ignore[attr-defined]
    check_single_player(state, info.num_players)
    budget = Budget.of(config, watch)
    tracker = BestTracker(budget, on_improve)
    rng = Rng(config.seed)
    bias, polish = knowledge(state, "nmcs", config.bias, config.polish)
    runs = 0
    most = config.runs or (1 if config.time is None and config.playouts is None else None)
    try:
        while most is None or runs < most:
            _nested(state, config.level, [], rng, tracker, bias, polish)
            runs += 1
    except OutOfBudget:
        runs += 1  # the run the budget stopped
    return tracker.result(runs, config.spec)
