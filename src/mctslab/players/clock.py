"""How long a move may think: a game clock (main time, then byo-yomi), kept apart from
the protocol and the arena that use it (as Leela Zero's ``TimeControl.cpp`` and KataGo's
``timecontrols.cpp`` are), so that the allocation rule reads, and is tested, as
arithmetic on seconds.

Two callers: ``mctslab gtp``, where ``time_settings main_time byo_yomi_time
byo_yomi_stones`` and ``time_left colour time stones`` (seconds) set the clock and the
engine also keeps its own clock from the time its moves take, for controllers that send
no ``time_left``; and the arena's game clocks (``--main-time``,
:mod:`mctslab.arena.game_clock`), which keep one clock per seat and call a move that
takes more than the clock had left (:meth:`Clock.overrun`) a flag fall. An MCTS-based player (``mcts``,
``puct``, ``az``; not ``gumbel``, which plans an iteration budget) whose spec names no
budget of its own then searches, with no iteration cap, for::

    in byo-yomi (stones > 0):  (time_left / stones) * 0.9 - 0.15 s
    in main time:              (time_left - 0.15 s) / max(10, (N*N - moves) / 2)
                               + 0.8 * byo_yomi_time / byo_yomi_stones   (when byo-yomi follows)
    in sudden death:           (time_left - 0.15 s - 0.005 s * N*N) / max(10, (N*N - moves) / 2)

and at least 0.05 s (the 0.15 s is kept back for the protocol and the process; the
move count ``moves`` is both colours'; in sudden death 5 ms a point more is kept back,
:func:`keep_back`, for the moves' own cost) while the clock has that to spare: below 1 s
to plan with the floor is a twentieth of it (at least 0.2 ms), so that a long game on an
almost empty clock spends it down geometrically instead of overrunning it by 0.05 s a
move (:func:`floor_time`). A player's ``time_factor`` (1 by default; the
``f_time`` of Baier and Winands' STOP, played with ``early_stop``) multiplies the
main-time share, up to half the main time left. A budget of the spec's own wins
(``mcts:iterations=5000`` searches 5,000 iterations whatever the clock), except that an own
time longer than the clock allows is cut to it (``mcts:time=2`` in 1 s byo-yomi searches
about 0.75 s): the rule of :mod:`mctslab.players.time_control`, the arena's too, which
the engine applies to what :meth:`Clock.move_time` answers. ``time_settings 0 0 0`` or
no ``time_settings`` at all: no clock, the spec's budget alone.

>>> clock = Clock()
>>> clock.settings(main=300, byo=0, stones=0)  # 5 minutes, sudden death, on 9x9
>>> round(clock.move_time("b", moves=0, points=81), 4)  # (300 - 0.15 - 0.405) / 40
7.4861
>>> round(clock.move_time("b", moves=0, points=81, factor=2.5), 4)  # STOP plans longer
18.7153
>>> clock.settings(main=0, byo=10, stones=5)  # 5 stones in every 10 s
>>> round(clock.move_time("b", moves=0, points=81), 4)  # 10 / 5 * 0.9 - 0.15
1.65
>>> clock.settings(main=60, byo=0, stones=0)  # one minute, sudden death
>>> clock.spent("b", 59.5)
>>> clock.start("b"), clock.overrun("b", 0.25), clock.overrun("b", 0.75)
((0.5, 0), -0.25, 0.25)
>>> clock.spent("b", 0.4)  # 0.1 s left, less than is kept back: the shortest search
>>> clock.move_time("b", moves=120, points=81)
0.0002
"""

from __future__ import annotations

from dataclasses import dataclass

from mctslab.search.options import MAX_SECONDS

__all__ = [
    "LATENCY",
    "MIN_MOVES_LEFT",
    "MIN_MOVE_TIME",
    "MOVE_COST",
    "SHORTEST_MOVE_TIME",
    "Clock",
    "floor_time",
    "keep_back",
]

#: Seconds a move keeps back for the protocol and the process.
LATENCY = 0.15
#: The shortest search under a clock (seconds).
MIN_MOVE_TIME = 0.05
#: In main time, the remaining time is shared among at least this many moves.
MIN_MOVES_LEFT = 10
#: The shortest search of all, when the clock is all but spent (seconds).
SHORTEST_MOVE_TIME = 0.0002
#: What a move costs beyond its search (seconds; measured: 3.8 ms a move of the knowledge
#: setting on 9x9 given 0.2 ms), kept back in sudden death for every point of the board.
MOVE_COST = 0.005


def keep_back(points: int) -> float:
    """The seconds a sudden-death clock never plans to search: the :data:`LATENCY` plus
    :data:`MOVE_COST` for each of ``points`` moves still to come (0.555 s on 9x9, 1.955 s
    on 19x19), what each move costs beyond its search however short that is.

    >>> round(keep_back(81), 3)
    0.555
    """
    return LATENCY + MOVE_COST * points


def floor_time(spare: float) -> float:
    """The shortest search a clock with ``spare`` seconds to plan with allows:
    :data:`MIN_MOVE_TIME` while that is at least ``2 * MIN_MOVES_LEFT`` times it (1 s),
    else a twentieth of it (at least :data:`SHORTEST_MOVE_TIME`, 0.2 ms). A flat floor
    spends time the clock does not have once a long game has used it up: in 16 of the 100
    games of the STOP row (docs/go.md) our clock ran out late in a lost game and every
    later move overran it by the floor's 0.05 s.

    >>> floor_time(30.0), round(floor_time(0.4), 4), floor_time(-0.1)
    (0.05, 0.02, 0.0002)
    """
    return max(SHORTEST_MOVE_TIME, min(MIN_MOVE_TIME, spare / (2 * MIN_MOVES_LEFT)))


@dataclass
class Clock:
    """The time settings and each colour's clock: ``left[colour] = (seconds, stones)``,
    ``stones == 0`` in main time, else the stones still to play in the byo-yomi period."""

    main: float = 0.0
    byo: float = 0.0
    stones: int = 0
    on: bool = False

    def __post_init__(self) -> None:
        self.left: dict[str, tuple[float, int]] = {}

    def settings(self, main: float, byo: float, stones: int) -> None:
        # GTP: byo-yomi time > 0 with 0 stones means no limit; all zero too.
        self.main, self.byo, self.stones = main, byo, stones
        self.on = not (byo > 0 and stones == 0) and not (main == 0 and byo == 0)
        self.left = {}

    def start(self, colour: str) -> tuple[float, int]:
        """``colour``'s ``(seconds, stones)``: as ``time_left`` or :meth:`spent` last left
        them, else the settings' start (main time, or a first byo-yomi period)."""
        if colour in self.left:
            return self.left[colour]
        return (self.main, 0) if self.main > 0 else (self.byo, self.stones)

    def move_time(self, colour: str, moves: int, points: int, factor: float = 1.0) -> float | None:
        """Seconds the next move of ``colour`` may search (``None``: no clock). In main
        time the share is multiplied by ``factor`` (a player's ``time_factor``, STOP's
        ``f_time``), never past half the main time left; byo-yomi is not stretched. In
        sudden death :func:`keep_back` more is kept for the moves' own cost. Never more
        than half of :data:`~mctslab.search.options.MAX_SECONDS`, a search's limit."""
        if not self.on:
            return None
        left, stones = self.start(colour)
        sudden = not (self.byo > 0 and self.stones > 0)
        if stones > 0:
            t = left / stones * 0.9 - LATENCY
            spare = left - LATENCY
        else:
            usable = left - (keep_back(points) if sudden else LATENCY)
            share = usable / max(MIN_MOVES_LEFT, (points - moves) // 2)
            t = min(share * factor, usable / 2) if factor != 1.0 else share
            spare = usable
            if not sudden:
                t += 0.8 * self.byo / self.stones
                spare += self.byo
        # A search's time budget stays below MAX_SECONDS: a clock of days (STOP's factor
        # times a main-time share, plus byo-yomi) must not ask for more.
        return min(max(floor_time(spare), t), MAX_SECONDS / 2)

    def available(self, colour: str) -> float | None:
        """The seconds ``colour``'s next move may take before its flag falls (``None``: no
        clock): what is left of its main time, plus the first byo-yomi period where one
        follows (a move that runs out of main time goes on in it), or what is left of the
        byo-yomi period it is in."""
        if not self.on:
            return None
        left, stones = self.start(colour)
        if stones == 0 and self.byo > 0 and self.stones > 0:
            left += self.byo
        return left

    def overrun(self, colour: str, seconds: float) -> float:
        """How far a move of ``colour`` that took ``seconds`` went past :meth:`available`
        (negative or zero: in time; ``0.0`` without a clock). Read it before
        :meth:`spent` counts the move."""
        available = self.available(colour)
        return 0.0 if available is None else seconds - available

    def spent(self, colour: str, seconds: float) -> None:
        """Count a move of ``colour`` that took ``seconds`` (until ``time_left`` corrects it)."""
        if not self.on:
            return
        left, stones = self.start(colour)
        left -= seconds
        if stones == 0:
            if left <= 0 and self.byo > 0 and self.stones > 0:
                left, stones = self.byo, self.stones
        else:
            stones -= 1
            if stones == 0:
                left, stones = self.byo, self.stones
        self.left[colour] = (max(0.0, left), stones)
