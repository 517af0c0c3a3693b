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
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

__all__ = ["Budget"]


@dataclass
class Budget:
    """A search's budget: at most ``iterations`` iterations and ``seconds`` seconds of
    search (``None``: no such limit), stretched once by ``1 + extra`` under robust-max
    while its two rules disagree. Mutable: :meth:`stop` records the extension."""

    iterations: float | None
    seconds: float | None
    robust_max: bool = False
    extra: float = 0.0
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
        )

    @property
    def timed(self) -> bool:
        """Whether there is a time budget (the only budget that needs a clock)."""
        return self.seconds is not None

    def stop(self, iterations: int, seconds: float, agree: Callable[[], bool]) -> str | None:
        """Why the search stops after ``iterations`` iterations and ``seconds`` seconds of
        search (``"iterations"``, ``"time"`` or ``"agreement"``), or ``None`` to go on.

        ``agree()`` is robust-max's test on the current tree
        (:func:`~mctslab.search.mcts.rules_agree`); it is
        called only under robust-max, when the budget is spent or extended.
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
        return None

    def iterations_left(self, iterations: int) -> int | None:
        """How many more iterations the iteration budget allows (``None``: no limit)."""
        if math.isinf(self._max_iterations):
            return None
        return max(0, math.ceil(self._max_iterations - iterations))

    def seconds_left(self, seconds: float) -> float:
        """How many more seconds the time budget allows (``inf``: no limit)."""
        return max(0.0, self._max_seconds - seconds)


class BudgetOptions(Protocol):
    """The options :meth:`Budget.of` reads (``final`` and ``robust_max_extra`` if any)."""

    @property
    def iterations(self) -> int | None: ...

    @property
    def time(self) -> float | None: ...
