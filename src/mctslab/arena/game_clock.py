"""The time control of one arena game: how long each move may search, and what a move
that takes longer is.

Two controls, both set on the :class:`~mctslab.arena.game_task.GameTask`:

* **A constant clock** (``time_per_move`` alone, ``--time-per-move``): every move may take
  ``T`` seconds; the players were made for it (:func:`~mctslab.arena.game_task.effective_spec`,
  a ``gtp:`` program told ``time_settings 0 T 1``). A move slower than ``T`` by more than
  :data:`~mctslab.arena.game_task.TIME_TOLERANCE` (relative) plus
  :data:`~mctslab.arena.game_task.TIME_GRACE` seconds is an overrun.
* **A game clock** (``main_time``, ``--main-time``): each seat has ``M`` seconds for the
  whole game (:class:`~mctslab.players.clock.Clock`, the clock of ``mctslab gtp``), then
  a byo-yomi period of ``T`` seconds for every move where ``time_per_move`` is set too,
  sudden death where it is not. Before each move an MCTS-based player whose spec names
  no budget of its own is given what its clock allows now
  (:meth:`~mctslab.players.clock.Clock.move_time`: the time left shared among the moves
  the game stage leaves, by :func:`~mctslab.players.time_control.set_move_time`), so that
  the seconds one move saves (``early_stop``) go to the later ones; a ``gtp:`` program is
  told ``time_settings M T S`` when it starts and ``time_left`` before each ``genmove``,
  and plans for itself. A move that takes more than its clock had left
  (:meth:`~mctslab.players.clock.Clock.overrun`) plus ``TIME_GRACE`` is a *flag fall*, an
  overrun. The moves still to come are estimated from the board's points (Go's
  ``board_size`` squared), else from the game's length limit.

Either way, an overrun is recorded with its size (seconds past the limit), and with
``strict`` the player who overran loses the game (termination ``"time"``).
"""

from __future__ import annotations

from typing import Any

from mctslab.core.game import Game, State
from mctslab.players.clock import Clock
from mctslab.players.gtp import GtpPlayer
from mctslab.players.player import Player
from mctslab.players.time_control import base_config, own_budget, set_move_time

__all__ = ["MoveTimer", "expected_points"]


def expected_points(game: Game) -> int:
    """What the clock shares the main time by (:meth:`Clock.move_time`'s ``points``): the
    board's points where the game has a square ``board_size`` (Go), else its length limit."""
    size = getattr(game, "board_size", None)
    if isinstance(size, int) and size > 0:
        return size * size
    return int(game.info.max_game_length)


class MoveTimer:
    """The clocks of one game's seats: :meth:`before` a move sets the mover's budget,
    :meth:`after` it counts the move and says whether it was a forfeit on time."""

    def __init__(
        self,
        *,
        time_per_move: float | None,
        main_time: float | None,
        tolerance: float,
        grace: float,
    ) -> None:
        self.limit = time_per_move
        self.main_time = main_time
        self.grace = grace
        self.allowed = None if time_per_move is None else time_per_move * (1 + tolerance) + grace
        self.clock: Clock | None = None
        if main_time is not None:
            self.clock = Clock()
            byo = time_per_move or 0.0
            self.clock.settings(main=main_time, byo=byo, stones=1 if byo > 0 else 0)
        #: ``(ply, seat, seconds past the limit)`` of every move over its time.
        self.overruns: list[tuple[int, int, float]] = []
        self._bases: dict[int, tuple[Any, bool]] = {}
        self._points = 0

    def seat(self, seat: int, player: Player, spec: str) -> None:
        """Make ``player`` (made from ``spec``) ready for the control: a ``gtp:`` program is
        told its time settings; under a game clock an MCTS-based player's config is kept as
        the base that each move's budget is cut from."""
        if isinstance(player, GtpPlayer):
            player.time_per_move = self.limit
            player.main_time = self.main_time
        elif self.clock is not None and (base := base_config(player)) is not None:
            self._bases[seat] = (base, own_budget(spec))

    def before(self, seat: int, player: Player, state: State, game: Game) -> None:
        """Give ``seat``'s player its budget for the move it is about to choose."""
        if self.clock is None:
            return
        key = str(seat)
        if isinstance(player, GtpPlayer):
            player.clock_left = self.clock.start(key)
        elif seat in self._bases:
            if not self._points:
                self._points = expected_points(game)
            base, own = self._bases[seat]
            factor = float(getattr(base, "time_factor", 1.0))
            seconds = self.clock.move_time(key, len(state.history()), self._points, factor)
            set_move_time(player, base, own=own, seconds=seconds)

    def after(self, seat: int, elapsed: float, ply: int, name: str, strict: bool) -> str | None:
        """Count ``seat``'s move (``ply``, ``elapsed`` seconds); record an overrun and,
        under ``strict``, return the forfeit's text (``None``: the game goes on)."""
        if self.clock is not None:
            key = str(seat)
            available = self.clock.available(key)
            over = self.clock.overrun(key, elapsed)
            self.clock.spent(key, elapsed)
            if over <= self.grace:
                return None
            text = f"{name}: {elapsed:.3f} s for a move, {available:.3f} s left on its clock"
        elif self.allowed is not None and self.limit is not None and elapsed > self.allowed:
            over = elapsed - self.limit
            text = f"{name}: {elapsed:.3f} s for a move, limit {self.limit:g} s"
        else:
            return None
        self.overruns.append((ply, seat, over))
        return text if strict else None
