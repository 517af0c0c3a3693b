"""The arena's game clocks (``--main-time``): each seat's clock counts its moves, an
MCTS player is given what its clock allows, a move past the clock is a flag fall (a
loss under ``strict``), and the control is part of a run's identity only when set."""

from __future__ import annotations

import math

import pytest

from mctslab.arena.game_clock import MoveTimer, expected_points
from mctslab.arena.game_task import TIME_GRACE, TIME_TOLERANCE
from mctslab.arena.pooling import played_spec
from mctslab.arena.tournament import ArenaConfig, Entrant, GameTask, play_task, schedule
from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import GameInfo, State
from mctslab.core.registry import make
from mctslab.players.clock import LATENCY, MIN_MOVE_TIME, MIN_MOVES_LEFT, Clock, keep_back
from mctslab.players.player import make_player


def timer(main: float | None, byo: float | None = None) -> MoveTimer:
    return MoveTimer(time_per_move=byo, main_time=main, tolerance=TIME_TOLERANCE, grace=TIME_GRACE)


def test_available_time_is_main_time_then_the_byo_yomi_period() -> None:
    clock = Clock()
    clock.settings(main=10, byo=2, stones=1)
    assert clock.available("b") == 12  # a move may run from main time into the period
    clock.spent("b", 9.5)
    assert clock.available("b") == 2.5 and clock.overrun("b", 3.0) == pytest.approx(0.5)
    clock.spent("b", 1.0)  # main time gone: byo-yomi, one stone in 2 s
    assert clock.start("b") == (2, 1) and clock.available("b") == 2
    clock.settings(main=0, byo=0, stones=0)
    assert clock.available("b") is None and clock.overrun("b", 100.0) == 0.0


def test_sudden_death_flag_falls_once_the_main_time_is_spent() -> None:
    t = timer(main=1.0)
    moves = [t.after(1, 0.3, ply, "slow", strict=False) for ply in range(4)]
    assert moves == [None] * 4  # lenient: recorded, not forfeited
    assert len(t.overruns) == 1
    ply, seat, over = t.overruns[0]
    assert (ply, seat) == (3, 1) and over == pytest.approx(0.2)  # 0.3 s with 0.1 s left
    strict = timer(main=1.0)
    texts = [strict.after(0, 0.3, ply, "slow", strict=True) for ply in range(4)]
    assert texts[:3] == [None] * 3
    assert texts[3] == "slow: 0.300 s for a move, 0.100 s left on its clock"
    # Seats have clocks of their own.
    both = timer(main=1.0)
    assert all(both.after(seat, 0.45, 0, "x", strict=True) is None for seat in (0, 1, 0, 1))
    assert both.overruns == []


def test_byo_yomi_after_main_time_and_the_grace() -> None:
    t = timer(main=1.0, byo=0.5)
    for ply in range(10):  # 0.3 s a move: main time, then one stone every 0.5 s
        assert t.after(1, 0.3, ply, "p", strict=True) is None
    assert t.after(1, 0.5 + TIME_GRACE / 2, 10, "p", strict=True) is None  # in the grace
    assert t.after(1, 0.6, 11, "p", strict=True) is not None
    assert [(p, s) for p, s, _ in t.overruns] == [(11, 1)]


def test_a_constant_clock_is_as_before() -> None:
    t = timer(main=None, byo=0.1)
    assert t.clock is None
    assert t.after(0, 0.1 * (1 + TIME_TOLERANCE) + TIME_GRACE / 2, 0, "p", strict=True) is None
    assert t.after(0, 0.2, 1, "p", strict=True) == "p: 0.200 s for a move, limit 0.1 s"


def test_an_mcts_player_is_given_what_its_clock_allows() -> None:
    """Before each move the search's budget is the clock's share (no iteration cap); a
    spec with a budget of its own keeps it; the share grows as the clock saves time."""
    game = make("go", board_size=9)
    info: GameInfo = game.info
    state: State = game.new_initial_state()
    t = timer(main=60.0)
    free = make_player("mcts:rave=3000", info, seed=1)
    fixed = make_player("mcts:iterations=500", info, seed=1)
    t.seat(0, free, "mcts:rave=3000")
    t.seat(1, fixed, "mcts:iterations=500")
    assert expected_points(game) == 81
    t.before(0, free, state, game)
    share = (60.0 - keep_back(81)) / max(MIN_MOVES_LEFT, 81 // 2)  # sudden death
    assert free.config.time == pytest.approx(share) and free.config.iterations is None
    assert free.config.rave == 3000  # the rest of the spec is kept
    t.before(1, fixed, state, game)
    assert fixed.config.iterations == 500 and fixed.config.time is None
    t.after(0, 0.1, 0, "free", strict=False)  # a move that stopped early saved time
    state.apply_action(40)
    state.apply_action(41)
    t.before(0, free, state, game)
    later = (59.9 - keep_back(81)) / max(MIN_MOVES_LEFT, (81 - 2) // 2)
    assert free.config.time == pytest.approx(later) and later > share


def test_time_factor_stretches_the_main_time_share() -> None:
    """STOP's ``f_time`` (``time_factor``): the clock's main-time share times the
    factor, never past half the time left; byo-yomi is not stretched."""
    game = make("go", board_size=9)
    state: State = game.new_initial_state()
    t = timer(main=60.0)
    stop = make_player("mcts:early_stop=1,time_factor=2.5", game.info, seed=1)
    t.seat(0, stop, "mcts:early_stop=1,time_factor=2.5")
    t.before(0, stop, state, game)
    share = (60.0 - keep_back(81)) / max(MIN_MOVES_LEFT, 81 // 2)
    assert stop.config.time == pytest.approx(2.5 * share)
    assert stop.config.early_stop and stop.config.iterations is None
    clock = Clock()
    clock.settings(main=10, byo=0, stones=0)
    assert clock.move_time("b", 200, 81, factor=8.0) == pytest.approx((10 - keep_back(81)) / 2)
    clock.settings(main=0, byo=10, stones=5)
    assert clock.move_time("b", 0, 81, factor=3.0) == clock.move_time("b", 0, 81)


@pytest.mark.parametrize("factor", [1.0, 2.5])
def test_a_long_game_never_plans_past_its_sudden_death_clock(factor: float) -> None:
    """The STOP row's flag falls (docs/go.md): 121 of our moves on 9x9 (the arena's
    length limit, 243 plies) under 90 s sudden death, each taking what the clock allows
    plus 3.8 ms (what a move of the knowledge setting given 0.2 ms takes here), with no
    early stop (a lost game), stay within the clock. The old rule (0.15 s kept back, a
    flat floor of 0.05 s) ran it out, at our move 45 under ``factor`` 2.5 and 78 under 1."""
    clock = Clock()
    clock.settings(main=90, byo=0, stones=0)
    old_left = 90.0
    floors = 0
    cost = 0.0038
    for move in range(121):
        allowed = clock.move_time("b", moves=2 * move, points=81, factor=factor)
        assert allowed is not None and allowed > 0
        assert clock.overrun("b", allowed + cost) <= 0, f"flag fell at our move {move}"
        floors += allowed < MIN_MOVE_TIME
        clock.spent("b", allowed + cost)
        share = (old_left - LATENCY) / max(MIN_MOVES_LEFT, (81 - 2 * move) // 2)
        old = min(factor * share, (old_left - LATENCY) / 2) if factor > 1 else share
        old_left -= max(MIN_MOVE_TIME, old) + cost
    assert floors > 0
    assert old_left < 0


def test_expected_points_without_a_board() -> None:
    game = make("connect_four")
    assert expected_points(game) == game.info.max_game_length == 42


def test_a_game_under_a_clock_is_played_and_its_seats_stay_within_it() -> None:
    """Tic-tac-toe, both searches under 2 s of sudden death: the game is played out, no
    flag falls (each search keeps back the protocol's latency), and a search is not
    capped by the default 1,000 iterations (its budget is the clock's)."""
    seats = (Entrant("a", "mcts"), Entrant("b", "mcts:early_stop=1"))
    record = play_task(GameTask(0, "tic_tac_toe", (), seats, 3, main_time=2.0, strict=True))
    assert record.termination == "normal", record.error
    assert record.overruns == ()


@pytest.mark.parametrize("bad", [0.0, -1.0, math.nan, math.inf])
def test_bad_main_time_is_refused(bad: float) -> None:
    with pytest.raises(InvalidConfigError, match="main time"):
        ArenaConfig("tic_tac_toe", (Entrant("a", "random"), Entrant("b", "random")), main_time=bad)


def test_strict_needs_a_clock_and_the_identity_keeps_old_runs() -> None:
    players = (Entrant("a", "random"), Entrant("b", "random"))
    with pytest.raises(InvalidConfigError, match="strict"):
        ArenaConfig("tic_tac_toe", players, strict=True)
    plain = ArenaConfig("tic_tac_toe", players)
    assert "main_time" not in plain.identity(1)  # a run from before clocks keeps its hash
    clocked = ArenaConfig("tic_tac_toe", players, main_time=30.0, strict=True)
    assert clocked.identity(1)["main_time"] == 30.0
    assert all(task.main_time == 30.0 for task in schedule(clocked))


def test_played_spec_tells_clocked_runs_apart() -> None:
    assert played_spec("mcts", None) == "mcts"
    assert played_spec("mcts", 1.0) == "mcts:time=1.0"
    assert played_spec("mcts", None, 30) == "mcts [clock 30 s]"
    assert played_spec("mcts", 0.5, 30.0) == "mcts [clock 30 s + 0.5 s a move]"
