"""When a search stops: its iteration and time budgets and robust-max's extension, in one
place for every loop that spends a budget (the reference engine's ``_run``, the compiled
engine's driver between chunks, ISMCTS, and the web lab's chunked runner).

Robust-max (Coulom 2006; Chaslot et al. 2008, "Progressive strategies for Monte-Carlo
Tree Search", section 4) plays the child that has both the most visits and the best
mean. When the budget is spent and the two rules disagree, the search goes on, for at
most ``robust_max_extra`` times the budget, until they agree (``"agreement"``) or the
stretched budget is spent too (then the most visited child is played).

>>> budget = Budget(iterations=100, seconds=None, robust_max=True, extra=0.5)
>>> budget.stop(99, 0.0, agree=lambda: False) is None
True
>>> budget.stop(100, 0.0, agree=lambda: False) is None  # disagree: stretched to 150
True
>>> budget.stop(120, 0.0, agree=lambda: True)
'agreement'
>>> budget.stop(150, 0.0, agree=lambda: False)
'iterations'

Early stop (Huang, Coulom and Lin 2010, "Time management for Monte-Carlo tree search
applied to the game of Go", section 3.3): the most visited root child is played, so once
its lead over the second exceeds the iterations the budget has left, no more search can
change the move. The iterations left are the budget's, or, under a time budget, the
seconds left at the search's own rate so far; the saved time goes back to the clock.
With a ``factor`` below 1 (``early_stop_factor``; Baier and Winands 2016's ``f_earlystop``)
the search stops once the lead exceeds that fraction of what is left: the move could
still change, but is unlikely to.

>>> early = Budget(iterations=1000, seconds=None, early_stop=True)
>>> early.stop(600, 0.0, agree=lambda: True, lead=lambda: 300) is None  # 400 left
True
>>> early.stop(700, 0.0, agree=lambda: True, lead=lambda: 301)  # 300 left: cannot change
'early'
>>> bold = Budget(iterations=1000, seconds=None, early_stop=True, factor=0.5)
>>> bold.stop(600, 0.0, agree=lambda: True, lead=lambda: 201)  # 400 left, half of it
'early'
>>> timed = Budget(iterations=None, seconds=2.0, early_stop=True)
>>> timed.stop(10_000, 1.0, agree=lambda: True, lead=lambda: 9_000) is None  # ~10,000 left
True
>>> timed.stop(15_000, 1.5, agree=lambda: True, lead=lambda: 6_000)  # ~5,000 left
'early'
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

__all__ = ["SLICE", "SLICE_SECONDS", "Budget", "visit_lead"]

#: The ``stopped_by`` of an interim result of a search in slices
#: (:meth:`mctslab.search.engine.Searcher.search_slices`): its slice ended and the
#: search goes on; the final result names why the search stopped.
SLICE = "slice"
#: The seconds of search in a slice when the caller names none: short enough that a
#: server's searches take turns and a cancel is heard at once, long enough that the
#: interim result's cost (a look at the root's children) is lost in it.
SLICE_SECONDS = 0.05


@dataclass
class Budget:
    """A search's budget: at most ``iterations`` iterations and ``seconds`` seconds of
    search (``None``: no such limit), stretched once by ``1 + extra`` under robust-max
    while its two rules disagree; with ``early_stop``, over as soon as the most visited root
    child's lead cannot be caught in what is left (in ``factor`` times it: ``factor`` < 1
    stops where the lead is unlikely to be caught). Mutable: :meth:`stop` records the
    extension."""

    iterations: float | None
    seconds: float | None
    robust_max: bool = False
    extra: float = 0.0
    early_stop: bool = False
    factor: float = 1.0
    extended: bool = field(default=False, init=False)
    _max_iterations: float = field(init=False, repr=False)
    _max_seconds: float = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._max_iterations = math.inf if self.iterations is None else float(self.iterations)
        self._max_seconds = math.inf if self.seconds is None else float(self.seconds)

    @classmethod
    def of(cls, config: BudgetOptions) -> Budget:
        """The budget of a search configuration (``SearchConfig`` or a sibling)."""
        return cls(
            config.iterations,
            config.time,
            robust_max=getattr(config, "final", None) == "robust-max",
            extra=float(getattr(config, "robust_max_extra", 0.0)),
            early_stop=bool(getattr(config, "early_stop", False)),
            factor=float(getattr(config, "early_stop_factor", 1.0)),
        )

    @property
    def timed(self) -> bool:
        """Whether there is a time budget (the only budget that needs a clock)."""
        return self.seconds is not None

    def stop(
        self,
        iterations: int,
        seconds: float,
        agree: Callable[[], bool],
        lead: Callable[[], int] | None = None,
    ) -> str | None:
        """Why the search stops after ``iterations`` iterations and ``seconds`` seconds of
        search (``"iterations"``, ``"time"``, ``"agreement"`` or ``"early"``), or ``None``
        to go on.

        ``agree()`` is robust-max's test on the current tree
        (:func:`~mctslab.search.result.rules_agree`); it is
        called only under robust-max, when the budget is spent or extended. ``lead()``
        is the most visited root child's visits minus the second's (its only child's
        visits if it has one; :func:`visit_lead`), read only under ``early_stop``.
        """
        out_of_time = seconds >= self._max_seconds
        if iterations >= self._max_iterations or out_of_time:
            if self.robust_max and not self.extended and not agree():
                self.extended = True
                self._max_iterations *= 1.0 + self.extra
                self._max_seconds *= 1.0 + self.extra
                return self.stop(iterations, seconds, agree)
            return "time" if out_of_time else "iterations"
        if self.extended and agree():
            return "agreement"
        if self.early_stop and lead is not None and iterations > 0:
            left = self._left(iterations, seconds)
            if lead() > self.factor * left and (not self.robust_max or agree()):
                return "early"
        return None

    def _left(self, iterations: int, seconds: float) -> float:
        """The iterations the budget has left: the iteration budget's, or the time
        budget's seconds left at the rate so far, whichever is fewer."""
        left = self._max_iterations - iterations
        if self.seconds is not None and seconds > 0.0:
            left = min(left, (self._max_seconds - seconds) * iterations / seconds)
        return left

    def iterations_left(self, iterations: int) -> int | None:
        """How many more iterations the iteration budget allows (``None``: no limit)."""
        if math.isinf(self._max_iterations):
            return None
        return max(0, math.ceil(self._max_iterations - iterations))

    def seconds_left(self, seconds: float) -> float:
        """How many more seconds the time budget allows (``inf``: no limit)."""
        return max(0.0, self._max_seconds - seconds)


def visit_lead(visits: list[int]) -> int:
    """The most visited child's visits minus the second's (the only child's visits; 0
    without children): what early stop compares with the iterations left, the ``lead()``
    that both engines pass to :meth:`Budget.stop`.

    >>> visit_lead([3, 10, 7]), visit_lead([5]), visit_lead([])
    (3, 5, 0)
    """
    if not visits:
        return 0
    top = sorted(visits, reverse=True)
    return top[0] - (top[1] if len(top) > 1 else 0)


class BudgetOptions(Protocol):
    """The options :meth:`Budget.of` reads (``final`` and ``robust_max_extra`` if any)."""

    @property
    def iterations(self) -> int | None: ...

    @property
    def time(self) -> float | None: ...
