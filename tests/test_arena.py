"""The arena: scheduling, time control, forfeits, the results store, kill-and-resume."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mctslab.arena import (
    ArenaConfig,
    Entrant,
    GameTask,
    effective_spec,
    move_time_stats,
    play_task,
    run_arena,
    schedule,
)
from mctslab.errors import InvalidConfigError, InvalidSpecError
from mctslab.game import GameInfo, State
from mctslab.registry import make
from mctslab.store import GameRecord, NotAStoreError, ResultStore

FAST = "mcts:iterations=60"


def config(**kw: object) -> ArenaConfig:
    base: dict[str, object] = {
        "game": "tic_tac_toe",
        "players": (Entrant("a", FAST), Entrant("b", "random"), Entrant("c", "minimax:depth=2")),
        "games": 4,
        "seed": 7,
    }
    base.update(kw)
    return ArenaConfig(**base)  # type: ignore[arg-type]


def test_schedule_round_robin_with_colours_swapped_in_pairs() -> None:
    tasks = schedule(config(openings=2))
    assert len(tasks) == 3 * 4
    assert [t.slot for t in tasks] == list(range(12))
    for k in range(0, 12, 2):
        first, second = tasks[k], tasks[k + 1]
        assert first.seats == second.seats[::-1]
        assert first.seed == second.seed and first.opening_seed == second.opening_seed
    # each player meets each other player with both colours
    pairs = {(t.seats[0].name, t.seats[1].name) for t in tasks}
    assert pairs == {(x, y) for x in "abc" for y in "abc" if x != y}
    # different pairs of a pairing get different seeds
    assert tasks[0].seed != tasks[2].seed


def test_same_opening_for_both_games_of_a_pair_and_games_are_reproducible() -> None:
    tasks = schedule(config(openings=3))
    r1, r2 = play_task(tasks[0]), play_task(tasks[1])
    assert len(r1.opening) == 3 and r1.opening == r2.opening
    assert r1.moves[:3] == r1.opening
    again = play_task(tasks[0])
    assert again.moves == r1.moves and again.returns == r1.returns


def test_record_fields_scores_and_move_times() -> None:
    record = play_task(schedule(config())[0])
    assert record.termination == "normal" and record.error is None
    assert len(record.move_times) == len(record.moves) == len(record.movers)
    assert all(t is not None and t >= 0 for t in record.move_times)
    state = make("tic_tac_toe").new_initial_state()
    for seat, action in zip(record.movers, record.moves, strict=True):
        assert state.current_player() == seat
        state.apply_action(action)
    assert state.is_terminal() and list(record.returns) == state.returns()
    expected = 1.0 if record.returns[0] > 0 else (0.0 if record.returns[0] < 0 else 0.5)
    assert record.score == expected


class Crasher:
    def choose(self, state: State) -> int:
        raise RuntimeError("boom")

    def inform(self, action: int) -> None:
        pass


class Illegal:
    def choose(self, state: State) -> int:
        return 99

    def inform(self, action: int) -> None:
        pass


class Slow:
    def choose(self, state: State) -> int:
        time.sleep(0.2)
        return state.legal_actions()[0]

    def inform(self, action: int) -> None:
        pass


@pytest.fixture
def fake_players(monkeypatch: pytest.MonkeyPatch) -> None:
    """Spec kinds 'test-crash', 'test-illegal' and 'test-slow' for the forfeit tests."""
    import mctslab.arena as arena_mod

    real = arena_mod.make_player

    def fake(spec: str, info: GameInfo, seed: int = 0) -> object:
        kinds = {"test-crash": Crasher, "test-illegal": Illegal, "test-slow": Slow}
        if spec in kinds:
            return kinds[spec]()
        return real(spec, info, seed)

    monkeypatch.setattr(arena_mod, "make_player", fake)
    monkeypatch.setattr(arena_mod, "parse_spec", lambda spec: (spec.split(":")[0], {}))


@pytest.mark.parametrize("spec", ["test-crash", "test-illegal"])
def test_a_player_that_crashes_or_plays_illegally_loses_and_the_error_is_kept(
    fake_players: None, spec: str
) -> None:
    task = GameTask(0, "tic_tac_toe", (), (Entrant("bad", spec), Entrant("r", "random")), 1)
    record = play_task(task)
    assert record.termination == "error"
    assert record.score == 0.0 and record.returns == (-1.0, 1.0)
    assert record.error is not None and record.error.startswith("bad: ")
    assert ("boom" in record.error) if spec == "test-crash" else ("illegal move 99" in record.error)


def test_time_overruns_are_recorded_and_strict_forfeits(fake_players: None) -> None:
    seats = (Entrant("r", "random"), Entrant("slow", "test-slow"))
    lenient = play_task(GameTask(0, "tic_tac_toe", (), seats, 1, time_per_move=0.05))
    assert lenient.termination == "normal"
    assert lenient.overruns and all(seat == 1 for _, seat, _ in lenient.overruns)
    assert all(size > 0.1 for _, _, size in lenient.overruns)
    stats = move_time_stats([lenient])
    assert stats["slow"].overruns == len(lenient.overruns) and stats["r"].overruns == 0
    assert stats["slow"].p50 >= 0.2 > stats["r"].max
    strict = play_task(GameTask(0, "tic_tac_toe", (), seats, 1, time_per_move=0.05, strict=True))
    assert strict.termination == "time" and strict.score == 1.0
    assert len(strict.moves) == 2  # the slow player's first move was its last


def test_time_control_gives_budgetless_mcts_the_limit() -> None:
    assert effective_spec("mcts", 0.5) == "mcts:time=0.5"
    assert effective_spec("mcts:c=1", 0.5) == "mcts:c=1,time=0.5"
    assert effective_spec("mcts:iterations=10", 0.5) == "mcts:iterations=10"
    assert effective_spec("minimax:depth=2", 0.5) == "minimax:depth=2"
    assert effective_spec("mcts", None) == "mcts"


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"players": (Entrant("a", FAST),)}, "at least two"),
        ({"players": (Entrant("a", FAST), Entrant("a", "random"))}, "given twice"),
        ({"games": 0}, "positive"),
        ({"time_per_move": -1.0}, "positive"),
        ({"strict": True}, "needs a time"),
        ({"backend": "mpi"}, "unknown backend"),
        ({"players": (Entrant("a b", FAST), Entrant("b", "random"))}, "bad player name"),
    ],
)
def test_bad_configs(kw: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidConfigError, match=message):
        config(**kw)


def test_bad_spec_fails_before_the_store_is_written(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    bad = config(players=(Entrant("a", "mcts:bogus=1"), Entrant("b", "random")))
    with ResultStore(db) as store:
        with pytest.raises(InvalidSpecError, match="bogus"):
            run_arena(bad, store)
        assert store.runs() == []


def test_store_roundtrip_resume_and_no_double_count(tmp_path: Path) -> None:
    cfg = config(games=2)
    with ResultStore(tmp_path / "r.db") as store:
        first = run_arena(cfg, store)
        assert first.planned == 6 and first.played_now == 6 and len(first.records) == 6
        again = run_arena(cfg, store, resume=True)
        assert again.run_id == first.run_id and again.played_now == 0
        assert [r.moves for r in again.records] == [r.moves for r in first.records]
        assert store.add_game(first.run_id, first.records[0]) is False
        fresh = run_arena(cfg, store)  # without --resume: a new run
        assert fresh.run_id != first.run_id
        [run] = [r for r in store.runs() if r.id == first.run_id]
        assert run.played == 6 and run.finished is not None and run.players["a"] == FAST


def test_parallel_workers_play_the_same_games(tmp_path: Path) -> None:
    cfg = config(games=2)
    with ResultStore(tmp_path / "one.db") as s1, ResultStore(tmp_path / "two.db") as s2:
        one = run_arena(cfg, s1)
        two = run_arena(ArenaConfig(**{**cfg.__dict__, "workers": 2}), s2)
    key = lambda r: (r.slot, r.seats, r.moves, r.returns)  # noqa: E731
    assert sorted(map(key, one.records)) == sorted(map(key, two.records))


def test_not_a_store_is_refused_and_left_untouched(tmp_path: Path) -> None:
    text = tmp_path / "notes.db"
    text.write_text("my notes\n")
    with pytest.raises(NotAStoreError, match="not an mctslab results store"):
        ResultStore(text)
    assert text.read_text() == "my notes\n"
    other = tmp_path / "other.db"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()
    before = other.read_bytes()
    with pytest.raises(NotAStoreError, match="SQLite database but not"):
        ResultStore(other)
    assert other.read_bytes() == before


def _games_in(db: Path) -> int:
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            return int(conn.execute("SELECT COUNT(*) FROM games").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.Error:
        return 0


def test_kill_and_resume_loses_nothing_and_counts_nothing_twice(tmp_path: Path) -> None:
    """SIGKILL a real ``mctslab arena`` (and its workers) mid-run, then ``--resume``."""
    db = tmp_path / "killed.db"
    args = [
        sys.executable, "-m", "mctslab", "arena", "tic_tac_toe",
        "--player", "a=mcts:iterations=300", "--player", "b=mcts:iterations=30",
        "--games", "40", "--seed", "3", "--workers", "2", "--db", str(db), "--no-progress",
    ]  # fmt: skip
    proc = subprocess.Popen(
        args, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    deadline = time.monotonic() + 120
    while _games_in(db) < 6 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert proc.poll() is None, "the run ended before it could be killed"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    killed_at = _games_in(db)
    assert 6 <= killed_at < 40
    with ResultStore(db) as store:
        [run] = store.runs()
        assert run.finished is None and run.played == killed_at
        kept = {r.slot: r for r in store.games([run.id])}
    done = subprocess.run([*args, "--resume", "--json"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    with ResultStore(db) as store:
        [run] = store.runs()
        records = list(store.games([run.id]))
    assert run.finished is not None
    assert sorted(r.slot for r in records) == list(range(40))  # all there, none twice
    for r in records:  # games finished before the kill are untouched
        if r.slot in kept:
            assert r == kept[r.slot]
    # the resumed tournament is the one an uninterrupted run plays
    cfg = ArenaConfig(
        "tic_tac_toe",
        (Entrant("a", "mcts:iterations=300"), Entrant("b", "mcts:iterations=30")),
        games=40,
        seed=3,
    )
    for task in schedule(cfg)[::7]:
        replay = play_task(task)
        stored = next(r for r in records if r.slot == task.slot)
        assert (replay.seats, replay.moves, replay.returns) == (
            stored.seats,
            stored.moves,
            stored.returns,
        )


def test_game_record_score_of() -> None:
    r = GameRecord(0, ("x", "y"), 0, (), (), (1.0, -1.0), 1.0)
    assert r.score_of("x") == 1.0 and r.score_of("y") == 0.0 and r.score_of("z") is None
