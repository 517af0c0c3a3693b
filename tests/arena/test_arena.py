"""The arena: scheduling, time control, forfeits, the results store, kill-and-resume,
and a run's identity: resuming under other rules is refused."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from mctslab.arena.store import SCHEMA_VERSION, GameRecord, NotAStoreError, ResultStore
from mctslab.arena.tournament import (
    ArenaConfig,
    Entrant,
    GameTask,
    derive_seed,
    effective_spec,
    move_time_stats,
    play_task,
    run_arena,
    schedule,
)
from mctslab.core.errors import InvalidConfigError, InvalidSpecError
from mctslab.core.game import GameInfo, State
from mctslab.core.registry import make

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


class Clock:
    """The clock moves are timed with, under the test's control: only a player's
    ``think`` moves it, so a move's measured time is exactly what the player says."""

    def __init__(self) -> None:
        self.now = 100.0

    def perf_counter(self) -> float:
        return self.now

    def think(self, seconds: float) -> None:
        self.now += seconds


#: Seconds the 'test-slow' player takes a move on the test's clock: 40 times the limit.
SLOW_MOVE = 2.0
LIMIT = 0.05


class Slow:
    """A move that takes :data:`SLOW_MOVE` seconds: on the test's :class:`Clock` when one
    is installed, else for real (blocking far longer than the limit)."""

    clock: Clock | None = None

    def choose(self, state: State) -> int:
        if Slow.clock is not None:
            Slow.clock.think(SLOW_MOVE)
        else:
            time.sleep(SLOW_MOVE)
        return state.legal_actions()[0]

    def inform(self, action: int) -> None:
        pass


@pytest.fixture
def fake_players(monkeypatch: pytest.MonkeyPatch) -> None:
    """Spec kinds 'test-crash', 'test-illegal' and 'test-slow' for the forfeit tests."""
    import mctslab.arena.game_task as game_task

    real, real_timed = game_task.make_player, game_task.timed_spec
    kinds = {"test-crash": Crasher, "test-illegal": Illegal, "test-slow": Slow}

    def fake(spec: str, info: GameInfo, seed: int = 0) -> object:
        if spec in kinds:
            return kinds[spec]()
        return real(spec, info, seed)

    def timed(spec: str, seconds: float | None) -> str:
        return spec if spec in kinds else real_timed(spec, seconds)

    monkeypatch.setattr(game_task, "make_player", fake)
    monkeypatch.setattr(game_task, "timed_spec", timed)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """Moves timed on a :class:`Clock`: a loaded machine cannot make a fast move slow."""
    import mctslab.arena.game_task as game_task

    fake = Clock()
    monkeypatch.setattr(game_task, "time", fake)
    monkeypatch.setattr(Slow, "clock", fake)
    return fake


@pytest.mark.parametrize("spec", ["test-crash", "test-illegal"])
def test_a_player_that_crashes_or_plays_illegally_loses_and_the_error_is_kept(
    fake_players: None, spec: str
) -> None:
    task = GameTask(0, "tic_tac_toe", (), (Entrant("bad", spec), Entrant("r", "random")), 1)
    record = play_task(task)
    assert record.termination == ("error" if spec == "test-crash" else "illegal")
    assert record.score == 0.0 and record.returns == (-1.0, 1.0)
    assert record.error is not None and record.error.startswith("bad: ")
    assert ("boom" in record.error) if spec == "test-crash" else ("illegal move 99" in record.error)


def test_time_overruns_are_recorded_and_strict_forfeits(fake_players: None, clock: Clock) -> None:
    seats = (Entrant("r", "random"), Entrant("slow", "test-slow"))
    lenient = play_task(GameTask(0, "tic_tac_toe", (), seats, 1, time_per_move=LIMIT))
    assert lenient.termination == "normal"
    slow_moves = lenient.movers.count(1)
    assert slow_moves >= 2 and len(lenient.overruns) == slow_moves
    assert all(seat == 1 for _, seat, _ in lenient.overruns)
    assert all(size == pytest.approx(SLOW_MOVE - LIMIT) for _, _, size in lenient.overruns)
    stats = move_time_stats([lenient])
    assert stats["slow"].overruns == slow_moves and stats["r"].overruns == 0
    assert stats["slow"].p50 == pytest.approx(SLOW_MOVE) and stats["r"].max == 0.0
    strict = play_task(GameTask(0, "tic_tac_toe", (), seats, 1, time_per_move=LIMIT, strict=True))
    assert strict.termination == "time" and strict.score == 1.0
    assert len(strict.moves) == 2  # the slow player's first move was its last
    assert strict.error == f"slow: {SLOW_MOVE:.3f} s for a move, limit {LIMIT:g} s"


def test_a_move_that_really_takes_too_long_forfeits(fake_players: None) -> None:
    """The same on the real clock: the slow player moves first and blocks 40 times the
    limit, so its first move is the game's last whatever the machine's load."""
    seats = (Entrant("slow", "test-slow"), Entrant("r", "random"))
    record = play_task(GameTask(0, "tic_tac_toe", (), seats, 1, time_per_move=LIMIT, strict=True))
    assert record.termination == "time" and record.score == 0.0 and len(record.moves) == 1
    [(ply, seat, size)] = record.overruns
    assert (ply, seat) == (0, 0) and size >= SLOW_MOVE - LIMIT


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


class _OtherVersion:
    """A game as another version of its rules would report it (everything else the same)."""

    def __init__(self, game: Any, version: int) -> None:
        self._game = game
        self.info = replace(game.info, version=version)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)


def _rules_version(monkeypatch: pytest.MonkeyPatch, version: int) -> None:
    """From now on the arena sees the games' rules at ``version``."""
    import mctslab.arena.tournament as arena_mod

    real = arena_mod.make
    monkeypatch.setattr(
        arena_mod, "make", lambda name, **kw: _OtherVersion(real(name, **kw), version)
    )


def test_resume_after_a_rules_change_names_both_versions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cfg = config(games=2, players=(Entrant("a", FAST), Entrant("b", "random")))
    with ResultStore(tmp_path / "r.db") as store:
        first = run_arena(cfg, store)
        _rules_version(monkeypatch, 2)
        with pytest.raises(InvalidConfigError) as err:
            run_arena(cfg, store, resume=True)
        message = str(err.value)
        assert f"cannot resume run {first.run_id}" in message
        assert "tic_tac_toe version 1" in message and "tic_tac_toe version 2" in message
        assert message.index("version 1") < message.index("version 2")  # old, then new
        assert len(store.runs()) == 1 and store.runs()[0].played == 2  # nothing written
        fresh = run_arena(cfg, store)  # a new run under the new rules is fine ...
        again = run_arena(cfg, store, resume=True)  # ... and resumes as such
        assert fresh.run_id != first.run_id and again.run_id == fresh.run_id
        assert again.played_now == 0 and store.runs()[-1].game_version == 2


def test_resume_with_other_game_parameters_names_both(tmp_path: Path) -> None:
    players = (Entrant("a", "random"), Entrant("b", "random"))
    small = ArenaConfig(
        "connect_four", players, games=2, game_params=(("columns", 4), ("rows", 4), ("x_in_row", 3))
    )
    with ResultStore(tmp_path / "r.db") as store:
        first = run_arena(small, store)
        bigger = replace(small, game_params=(("columns", 5), ("rows", 4), ("x_in_row", 3)))
        with pytest.raises(InvalidConfigError) as err:
            run_arena(bigger, store, resume=True)
        message = str(err.value)
        version = make("connect_four").info.version
        assert f"cannot resume run {first.run_id}" in message
        assert f"connect_four version {version} with columns=4, rows=4, x_in_row=3" in message
        assert f"connect_four version {version} with columns=5, rows=4, x_in_row=3" in message
        assert [r.id for r in store.runs()] == [first.run_id]
        # The same parameters resume as before.
        assert run_arena(small, store, resume=True).run_id == first.run_id


_SCHEMA_1 = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO meta VALUES ('schema', 'mctslab-results'), ('version', '1');
CREATE TABLE runs (
    id INTEGER PRIMARY KEY, kind TEXT NOT NULL, game TEXT NOT NULL,
    game_version INTEGER NOT NULL, config TEXT NOT NULL, config_hash TEXT NOT NULL,
    seed INTEGER NOT NULL, planned INTEGER, created TEXT NOT NULL, finished TEXT
);
CREATE INDEX runs_hash ON runs (config_hash);
CREATE TABLE players (
    run_id INTEGER NOT NULL REFERENCES runs (id), name TEXT NOT NULL, spec TEXT NOT NULL,
    PRIMARY KEY (run_id, name)
);
CREATE TABLE games (
    id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs (id),
    slot INTEGER NOT NULL, seats TEXT NOT NULL, seed INTEGER NOT NULL, opening TEXT NOT NULL,
    moves TEXT NOT NULL, returns TEXT NOT NULL, score REAL, termination TEXT NOT NULL,
    error TEXT, move_times TEXT NOT NULL, movers TEXT NOT NULL, overruns TEXT NOT NULL,
    started TEXT NOT NULL, finished TEXT NOT NULL, UNIQUE (run_id, slot)
);
"""


def test_a_store_written_before_the_version_joined_the_identity_is_migrated_and_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A schema-1 store whose run identity has no version: opened, it gains the cheating
    column; --resume finds its run by the version stored beside it."""
    from mctslab.arena.store import config_hash

    cfg = config(games=2, players=(Entrant("a", FAST), Entrant("b", "random")))
    old_identity = {k: v for k, v in cfg.identity(1).items() if k != "game_version"}
    db = tmp_path / "old.db"
    conn = sqlite3.connect(db)
    conn.executescript(_SCHEMA_1)
    conn.execute(
        "INSERT INTO runs (kind, game, game_version, config, config_hash, seed, planned, created)"
        " VALUES ('arena', 'tic_tac_toe', 1, ?, ?, 7, 2, 'then')",
        (json.dumps(old_identity, sort_keys=True), config_hash(old_identity)),
    )
    conn.executemany("INSERT INTO players VALUES (1, ?, ?)", [("a", FAST), ("b", "random")])
    conn.commit()
    conn.close()
    with ResultStore(db) as store:
        [run] = store.runs()
        assert run.cheating == () and run.game_version == 1
        resumed = run_arena(cfg, store, resume=True)
        assert resumed.run_id == run.id and resumed.played_now == 2
        _rules_version(monkeypatch, 3)
        with pytest.raises(InvalidConfigError, match=r"version 1.*version 3"):
            run_arena(cfg, store, resume=True)
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT value FROM meta WHERE key = 'version'").fetchone() == (
        str(SCHEMA_VERSION),
    )
    conn.close()


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


# `mctslab arena` with its games from slot BLOCK_FROM on never finishing: the run is
# still going whenever the test kills it, however loaded the machine. The arena's
# workers are forked, so they play the patched function too.
_BLOCKING_ARENA = """
import sys, time
import mctslab.arena.tournament as arena

play = arena.play_task
block_from = int(sys.argv[1])

def play_or_block(task):
    if task.slot >= block_from:
        time.sleep(3600)
    return play(task)

arena.play_task = play_or_block
from mctslab.cli.main import main

sys.argv = ["mctslab", *sys.argv[2:]]
main()
"""


def test_kill_and_resume_loses_nothing_and_counts_nothing_twice(tmp_path: Path) -> None:
    """SIGKILL a real ``mctslab arena`` (and its workers) mid-run, then ``--resume``."""
    db = tmp_path / "killed.db"
    games, block_from, kill_after = 40, 20, 6
    cli = [
        "arena", "tic_tac_toe",
        "--player", "a=mcts:iterations=300", "--player", "b=mcts:iterations=30",
        "--games", str(games), "--seed", "3", "--workers", "2", "--db", str(db), "--no-progress",
    ]  # fmt: skip
    proc = subprocess.Popen(
        [sys.executable, "-c", _BLOCKING_ARENA, str(block_from), *cli],
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        # Kill at any moment after the first games are in: between games, or while one is
        # being written. The deadline only bounds a broken run.
        deadline = time.monotonic() + 300
        while _games_in(db) < kill_after and proc.poll() is None:
            assert time.monotonic() < deadline, "no games stored in 300 s"
            time.sleep(0.05)
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
    finally:
        with contextlib.suppress(ProcessLookupError):  # gone already: the assert says why
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    killed_at = _games_in(db)
    assert kill_after <= killed_at <= block_from
    with ResultStore(db) as store:
        [run] = store.runs()
        assert run.finished is None and run.played == killed_at
        kept = {r.slot: r for r in store.games([run.id])}
    args = [sys.executable, "-m", "mctslab", *cli]
    done = subprocess.run([*args, "--resume", "--json"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    with ResultStore(db) as store:
        [run] = store.runs()
        records = list(store.games([run.id]))
    assert run.finished is not None
    assert sorted(r.slot for r in records) == list(range(games))  # all there, none twice
    for r in records:  # games finished before the kill are untouched
        if r.slot in kept:
            assert r == kept[r.slot]
    # the resumed tournament is the one an uninterrupted run plays
    cfg = ArenaConfig(
        "tic_tac_toe",
        (Entrant("a", "mcts:iterations=300"), Entrant("b", "mcts:iterations=30")),
        games=games,
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


def test_a_go_game_at_its_length_limit_is_scored_by_agreement_and_says_so() -> None:
    """Issue 28: Go games stopped by the move limit were scored as the board stood, dead
    stones counted alive. The arena now scores them as GTP programs and people would
    (``Go.adjudicate``: final_status's dead stones removed) under termination "length";
    a game over by two passes keeps Tromp-Taylor's count ("normal")."""
    seats = (Entrant("a", "random"), Entrant("b", "random"))
    params = (("board_size", 5), ("komi", 0.5), ("max_game_length", 12))
    record = play_task(GameTask(0, "go", params, seats, seed=5))
    assert record.termination == "length" and len(record.moves) == 12
    assert record.error is not None and "scored by agreement" in record.error
    game = make("go", board_size=5, komi=0.5, max_game_length=12)
    state = game.state_from_actions(record.moves)
    judged = game.adjudicate(state, derive_seed(5, "adjudicate"))  # type: ignore[attr-defined]
    assert judged is not None and list(record.returns) == judged[0]
