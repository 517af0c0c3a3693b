"""Checks shared by the search configurations (``SearchConfig``, ``ISMCTSConfig``,
``PIMCConfig``): each raises :class:`~mctslab.core.errors.InvalidConfigError` with a
one-line message that names the configuration, the option and the bad value.

>>> check_exploration("search config", float("nan"))
Traceback (most recent call last):
    ...
mctslab.core.errors.InvalidConfigError: search config: c must be a finite number >= 0, got nan
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from mctslab.core.errors import InvalidConfigError

__all__ = [
    "check_budget",
    "check_choice",
    "check_exploration",
    "check_seed",
    "is_int",
]

#: The largest iteration budget a search takes.
MAX_ITERATIONS = 10**9
#: Time budgets are below this many seconds (about eleven days).
MAX_SECONDS = 1e6


def is_int(x: object) -> bool:
    """An ``int`` that is not a ``bool``."""
    return isinstance(x, int) and not isinstance(x, bool)


def check_exploration(where: str, c: object) -> None:
    """UCT's constant ``c``: a finite number >= 0."""
    if not isinstance(c, int | float) or isinstance(c, bool) or not math.isfinite(c) or c < 0:
        raise InvalidConfigError(f"{where}: c must be a finite number >= 0, got {c!r}")


def check_choice(where: str, name: str, value: object, choices: Sequence[str]) -> None:
    """``value`` is one of ``choices``."""
    if value not in choices:
        raise InvalidConfigError(
            f"{where}: {name} must be one of {', '.join(choices)}, got {value!r}"
        )


def check_seed(where: str, seed: object) -> None:
    """A seed is an integer."""
    if not is_int(seed):
        raise InvalidConfigError(f"{where}: seed must be an integer, got {seed!r}")


def check_budget(
    where: str, iterations: object, seconds: object, *, other_budget: bool = False
) -> None:
    """``iterations`` in ``[1, 1e9]`` or ``None``, ``seconds`` in ``(0, 1e6)`` or ``None``,
    and at least one of them given (or ``other_budget``, such as a node budget)."""
    if iterations is not None and (
        not is_int(iterations) or not 1 <= iterations <= MAX_ITERATIONS  # type: ignore[operator]
    ):
        raise InvalidConfigError(
            f"{where}: iterations must be a positive integer (at most 1e9), got {iterations!r}"
        )
    if seconds is not None and (
        not isinstance(seconds, int | float)
        or isinstance(seconds, bool)
        or not 0 < seconds < MAX_SECONDS
    ):
        raise InvalidConfigError(
            f"{where}: time must be a positive number of seconds, got {seconds!r}"
        )
    if iterations is None and seconds is None and not other_budget:
        what = "iterations, time or max_nodes" if where == "search config" else "iterations or time"
        raise InvalidConfigError(f"{where}: give at least one budget: {what}")
