"""What a single-player search returns, and how it keeps the best it has found.

A single-player game (one player, ``returns()[0]`` a score to maximise: minus a tour's
length, the moves of a Morpion game, SameGame's points) is searched for the best
*sequence* of moves, not the best first move: every search here keeps the best complete
sequence any of its playouts reached (:class:`BestTracker`), when it was found (seconds
and playouts since the start) and each improvement on the way (the curve that
``mctslab optimize --plot`` draws). Budgets stop a search between two playouts
(:class:`Budget`): the best so far is the answer.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from time import perf_counter
from typing import Any

from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import State

__all__ = [
    "BestTracker",
    "Budget",
    "Improvement",
    "OptimizeResult",
    "OutOfBudget",
    "Watch",
    "check_single_player",
]


def check_single_player(state: State, num_players: int) -> None:
    """Refuse a game that is not single-player, or a finished one."""
    if num_players != 1:
        raise InvalidConfigError(
            f"single-player searches need a one-player game; this one has {num_players} players"
        )
    if state.is_terminal():
        raise InvalidConfigError("the position is terminal: there is nothing to search")


@dataclass(frozen=True)
class Improvement:
    """A new best score: when (seconds since the start, playouts done) and what."""

    seconds: float
    playouts: int
    score: float


@dataclass(frozen=True)
class OptimizeResult:
    """The best sequence a single-player search found.

    Attributes:
        score: its score (``returns()[0]`` at its end).
        sequence: the moves from the searched position to the end.
        seconds: the search's wall time; ``playouts`` its playouts (complete random or
            policy games from some position of the tree to the end).
        found_seconds, found_playouts: when the best was first reached.
        improvements: every new best, in order (the first playout's included).
        runs: how many times the top level ran (a time budget restarts a finished run,
            the generator's stream going on).
        search: the search's name and options, as a spec (``nrpa:level=3,...``).
        compile_seconds: the compiled versions' first call in this process, compiling (or
            loading from numba's cache) their code: before the clock starts, not counted
            in ``seconds`` (0 for the reference versions, or when already compiled).
    """

    score: float
    sequence: tuple[int, ...]
    seconds: float
    playouts: int
    found_seconds: float
    found_playouts: int
    improvements: tuple[Improvement, ...]
    runs: int
    search: str
    compile_seconds: float = 0.0

    def to_dict(self) -> dict[str, object]:
        return {
            "score": self.score,
            "sequence": list(self.sequence),
            "seconds": self.seconds,
            "playouts": self.playouts,
            "found_seconds": self.found_seconds,
            "found_playouts": self.found_playouts,
            "runs": self.runs,
            "search": self.search,
            "compile_seconds": self.compile_seconds,
            "improvements": [[i.seconds, i.playouts, i.score] for i in self.improvements],
        }


class Watch:
    """A running search seen from another thread (the web lab's runs, a GUI).

    :meth:`stop` asks the search to end at its next budget check (between two playouts
    of a reference search, two chunks of about 20 ms of a compiled one), its best kept;
    :meth:`best` reads the best complete sequence it has published so far: a reference
    search publishes each new best as it finds it, a compiled one at the end of the chunk
    that found it. The travelling salesman's baselines (``sa``, ``ga``) and the searches
    that end by themselves tell their sequence when they return. :attr:`started` is when
    the search's clock started (``time.perf_counter()``; ``None`` before): a compiled
    search compiles first, so a watcher can tell compiling from searching.
    """

    def __init__(self) -> None:
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._best: tuple[float, tuple[int, ...]] = (-math.inf, ())
        self.started: float | None = None

    def stop(self) -> None:
        """Ask the search to stop (it returns its best so far)."""
        self._stop.set()

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    def publish(self, score: float, sequence: Sequence[int]) -> None:
        """The search found ``sequence`` scoring ``score`` (kept if better)."""
        with self._lock:
            if score > self._best[0]:
                self._best = (score, tuple(int(a) for a in sequence))

    def best(self) -> tuple[float, tuple[int, ...]]:
        """The best published ``(score, sequence)``; ``(-inf, ())`` before any."""
        with self._lock:
            return self._best


class OutOfBudget(Exception):
    """Raised between two playouts when the budget is spent (caught by the search)."""


@dataclass
class Budget:
    """A search's budget: wall seconds and/or playouts (``None``: no limit; at least one
    of them, or a search that ends by itself, as NMCS and NRPA runs do), and a
    ``target`` score: the search stops once it has found a sequence scoring at least
    that (a proven optimum, a record to beat), as LKH's ``OPTIMUM`` does. A ``watch``
    (:class:`Watch`) stops it from another thread and is told its improvements; the
    clock starts when the budget is made (the watch's ``started``)."""

    time: float | None = None
    playouts: int | None = None
    target: float | None = None
    watch: Watch | None = None
    start: float = field(default_factory=perf_counter)

    @classmethod
    def of(cls, config: Any, watch: Watch | None = None) -> Budget:
        """The budget of a search's config (its ``time``, ``playouts`` and ``target``)."""
        return cls(config.time, config.playouts, config.target, watch)

    def __post_init__(self) -> None:
        if self.time is not None and not (isinstance(self.time, int | float) and self.time > 0):
            raise InvalidConfigError(f"time must be a number > 0, got {self.time!r}")
        if self.playouts is not None and (
            not isinstance(self.playouts, int)
            or isinstance(self.playouts, bool)
            or self.playouts < 1
        ):
            raise InvalidConfigError(f"playouts must be an integer >= 1, got {self.playouts!r}")
        if self.target is not None and (
            not isinstance(self.target, int | float)
            or isinstance(self.target, bool)
            or not math.isfinite(self.target)
        ):
            raise InvalidConfigError(f"target must be a finite number, got {self.target!r}")
        if self.watch is not None:
            self.watch.started = self.start

    def elapsed(self) -> float:
        return perf_counter() - self.start

    def spent(self, playouts: int, best: float = -math.inf) -> bool:
        """Whether a search that has made ``playouts`` playouts, the best scoring ``best``,
        must stop."""
        if self.watch is not None and self.watch.stopped:
            return True
        if self.playouts is not None and playouts >= self.playouts:
            return True
        if self.target is not None and best >= self.target:
            return True
        return self.time is not None and self.elapsed() >= self.time


class BestTracker:
    """The best complete sequence seen so far, with its improvements; ``on_improve`` is
    told each new best (the CLI's live line)."""

    def __init__(
        self,
        budget: Budget,
        on_improve: Callable[[Improvement], None] | None = None,
    ) -> None:
        self.budget = budget
        self.on_improve = on_improve
        self.score = -math.inf
        self.sequence: tuple[int, ...] = ()
        self.playouts = 0
        self.improvements: list[Improvement] = []

    def check(self) -> None:
        """Raise :class:`OutOfBudget` if the budget is spent (before a playout; the first
        playout is always made, so that there is an answer)."""
        if self.playouts and self.budget.spent(self.playouts, self.score):
            raise OutOfBudget

    def offer(self, score: float, sequence: Sequence[int]) -> None:
        """A playout ended with ``score`` after ``sequence`` (from the searched position)."""
        self.playouts += 1
        if score > self.score:
            self.score = score
            self.sequence = tuple(sequence)
            found = Improvement(self.budget.elapsed(), self.playouts, score)
            self.improvements.append(found)
            if self.budget.watch is not None:
                self.budget.watch.publish(score, self.sequence)
            if self.on_improve is not None:
                self.on_improve(found)

    def result(self, runs: int, search: str) -> OptimizeResult:
        last = self.improvements[-1] if self.improvements else Improvement(0.0, 0, self.score)
        return OptimizeResult(
            score=self.score,
            sequence=self.sequence,
            seconds=self.budget.elapsed(),
            playouts=self.playouts,
            found_seconds=last.seconds,
            found_playouts=last.playouts,
            improvements=tuple(self.improvements),
            runs=runs,
            search=search,
        )
