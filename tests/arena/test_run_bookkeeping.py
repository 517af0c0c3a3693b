"""The store's run bookkeeping (issue 28, item 10 and the store's part of item 11): runs
marked unfinished, each game pooled once, duplicate runs refused on request, a full disk,
a store edited by hand, a FIFO as the store."""

from __future__ import annotations

import errno
import json
import os
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest

from mctslab.arena.store import (
    SCHEMA_VERSION,
    CorruptStoreError,
    NotAStoreError,
    ResultStore,
    StoreWriteError,
)
from mctslab.arena.tournament import (
    ArenaConfig,
    DuplicateRunError,
    Entrant,
    play_task,
    pool_runs,
    run_arena,
    schedule,
)
from mctslab.core.registry import make

# Iteration budgets: the same task gives the same game, so a run played again is a copy.
PLAYERS = (Entrant("a", "mcts:iterations=20"), Entrant("b", "random"))


def config(**kw: Any) -> ArenaConfig:
    base: dict[str, Any] = {"game": "tic_tac_toe", "players": PLAYERS, "games": 4, "seed": 5}
    return ArenaConfig(**{**base, **kw})


def orphan(store: ResultStore, cfg: ArenaConfig, kind: str, games: int) -> int:
    """A run as a process killed after ``games`` games leaves it (kill -9: no last word)."""
    version = make(cfg.game).info.version
    tasks = schedule(cfg)
    run_id = store.start_run(
        kind,
        cfg.game,
        version,
        cfg.identity(version),
        cfg.seed,
        {p.name: p.spec for p in cfg.players},
        len(tasks),
    )
    for task in tasks[:games]:
        store.add_game(run_id, play_task(task))
    return run_id


# Unfinished runs and games counted once ----------------------------------------------------


def test_a_killed_evaluation_played_again_is_counted_once(tmp_path: Path) -> None:
    """The training loop's case: its evaluation killed after 3 games, then played again
    (without resume) as a new run: 7 stored games, 4 different ones."""
    cfg = config()
    with ResultStore(tmp_path / "results.sqlite") as store:
        killed = orphan(store, cfg, "train-eval", 3)
        again = run_arena(cfg, store, kind="train-eval")
        runs = store.runs()
        assert [(r.id, r.status, r.unfinished) for r in runs] == [
            (killed, "running", True),
            (again.run_id, "finished", False),
        ]
        pool = pool_runs(store, runs)
        assert len(pool.records) == 4  # was 7: the killed run's 3 games counted twice
        assert pool.duplicates == {again.run_id: 3}
        assert [r.id for r in pool.unfinished] == [killed]
        kept = pool_runs(store, runs, keep_duplicates=True)
        assert len(kept.records) == 7 and kept.duplicates == {again.run_id: 3}
        # The same games as the run alone
        alone = pool_runs(store, [runs[1]])
        key = lambda r: (r.seats, r.seed, r.moves)  # noqa: E731
        assert sorted(map(key, pool.records)) == sorted(map(key, alone.records))


def test_games_that_differ_are_all_counted(tmp_path: Path) -> None:
    """Two runs of other seeds share no game: nothing merged."""
    with ResultStore(tmp_path / "r.db") as store:
        run_arena(config(seed=1), store)
        run_arena(config(seed=2), store)
        pool = pool_runs(store, store.runs())
    assert len(pool.records) == 8 and pool.duplicates == {}


def test_same_moves_by_other_players_are_not_merged(tmp_path: Path) -> None:
    """A game is the same only with the same seats as pooled (name, spec, rules)."""
    with ResultStore(tmp_path / "r.db") as store:
        one = run_arena(config(), store)
        other = (Entrant("a", "mcts:iterations=21"), Entrant("b", "random"))
        two = run_arena(config(players=other), store)
        pool = pool_runs(store, store.runs())
    assert len(pool.records) == len(one.records) + len(two.records) and pool.duplicates == {}


def test_a_run_stopped_by_ctrl_c_is_marked_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import mctslab.arena.tournament as tournament

    real = tournament.play_task
    calls = []

    def interrupted(task: Any) -> Any:
        calls.append(task.slot)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(task)

    monkeypatch.setattr(tournament, "play_task", interrupted)
    with ResultStore(tmp_path / "r.db") as store:
        with pytest.raises(KeyboardInterrupt):
            run_arena(config(), store)
        [run] = store.runs()
        assert (run.status, run.stop_reason, run.played) == ("stopped", "interrupted (Ctrl-C)", 2)
        monkeypatch.setattr(tournament, "play_task", real)
        resumed = run_arena(config(), store, resume=True)
        [run] = store.runs()
        assert resumed.run_id == run.id and run.status == "finished" and run.played == 4
        assert run.stop_reason is None


# Duplicate runs -----------------------------------------------------------------------------


def test_duplicates_refuse_names_the_run_and_resume(tmp_path: Path) -> None:
    cfg = config()
    with ResultStore(tmp_path / "r.db") as store:
        first = run_arena(cfg, store, duplicates="refuse")
        with pytest.raises(DuplicateRunError) as err:
            run_arena(cfg, store, duplicates="refuse")
        message = str(err.value)
        assert f"run {first.run_id} of this configuration (4/4 games, finished)" in message
        assert "--resume" in message
        assert [r.id for r in store.runs()] == [first.run_id]  # nothing written
        # resume is the way on; another seed is another configuration
        assert run_arena(cfg, store, resume=True, duplicates="refuse").run_id == first.run_id
        assert run_arena(config(seed=6), store, duplicates="refuse").run_id != first.run_id
        # the library's default (the training loop's) still starts a new run
        assert run_arena(cfg, store).run_id not in (first.run_id,)
        with pytest.raises(ValueError, match="duplicates must be"):
            run_arena(cfg, store, duplicates="maybe")


# Schema migration ---------------------------------------------------------------------------


def test_a_version_2_store_gains_the_status_of_its_runs(tmp_path: Path) -> None:
    db = tmp_path / "v2.db"
    with ResultStore(db) as store:
        done = run_arena(config(), store).run_id
        killed = orphan(store, config(seed=9), "arena", 2)
    conn = sqlite3.connect(db)  # back to schema 2: no status, finished time or none
    conn.execute("ALTER TABLE runs DROP COLUMN status")
    conn.execute("ALTER TABLE runs DROP COLUMN stop_reason")
    conn.execute("UPDATE meta SET value = '2' WHERE key = 'version'")
    conn.commit()
    conn.close()
    with ResultStore(db) as store:
        status = {r.id: r.status for r in store.runs()}
    assert status == {done: "finished", killed: "running"}
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT value FROM meta WHERE key = 'version'").fetchone() == (
        str(SCHEMA_VERSION),
    )
    conn.close()


# A full disk --------------------------------------------------------------------------------


class FullDisk:
    """A connection whose disk fills after ``room`` more games: the insert of the next one
    is executed inside its transaction, then the write fails, as SQLite's would."""

    def __init__(self, conn: sqlite3.Connection, room: int, error: Exception) -> None:
        self.conn = conn
        self.room = room
        self.error = error
        self.everything = False  # once True, every write fails (the run cannot be marked)

    def execute(self, sql: str, *args: Any) -> Any:
        if self.everything and sql.startswith(("INSERT", "UPDATE", "BEGIN")):
            raise self.error
        cursor = self.conn.execute(sql, *args)
        if sql.startswith("INSERT OR IGNORE INTO games"):
            if self.room == 0:
                raise self.error
            self.room -= 1
        return cursor

    def __getattr__(self, name: str) -> Any:
        return getattr(self.conn, name)


FULL = [
    sqlite3.OperationalError("database or disk is full"),
    OSError(errno.ENOSPC, "No space left on device"),
]


@pytest.mark.parametrize("error", FULL, ids=["sqlite", "oserror"])
def test_a_full_disk_stops_the_run_with_every_finished_game_kept(
    tmp_path: Path, error: Exception
) -> None:
    db = tmp_path / "r.db"
    with ResultStore(db) as store:
        real = store.conn
        store.conn = FullDisk(real, 2, error)  # type: ignore[assignment]
        with pytest.raises(StoreWriteError) as err:
            run_arena(config(), store)
        message = str(err.value)
        assert str(error).split("] ")[-1] in message or "No space left" in message
        assert "2 of its 4 games stored" in message and "--resume" in message
        store.conn = real
    with ResultStore(db) as store:  # what another process sees: consistent, 2 whole games
        [run] = store.runs()
        assert (run.played, run.status) == (2, "stopped")
        assert sorted(g.slot for g in store.games([run.id])) == [0, 1]
        done = run_arena(config(), store, resume=True)
        assert done.played_now == 2 and len(done.records) == 4
        assert store.runs()[0].status == "finished"


def test_a_disk_too_full_to_mark_the_run_leaves_it_unfinished(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    with ResultStore(db) as store:
        real = store.conn
        full = FullDisk(real, 1, FULL[0])
        store.conn = full  # type: ignore[assignment]
        real_add = store.add_game

        def add_then_fill(run_id: int, record: Any) -> bool:
            try:
                return real_add(run_id, record)
            except StoreWriteError:
                full.everything = True
                raise

        store.add_game = add_then_fill  # type: ignore[method-assign]
        with pytest.raises(StoreWriteError):
            run_arena(config(), store)
        store.conn = real
        [run] = store.runs()
        assert (run.played, run.status, run.unfinished) == (1, "running", True)


# A store edited by hand, a store that is not a file -------------------------------------------


@pytest.mark.parametrize(
    ("column", "value", "shown"),
    [
        ("moves", "garbage", "bad moves 'garbage'"),
        ("moves", '["a", 1]', "bad moves"),
        ("moves", "[true]", "bad moves"),
        ("seats", '"ab"', "bad seats"),
        ("seats", "[1, 2]", "bad seats"),
        ("returns", '["x"]', "bad returns"),
        ("score", "high", "bad score"),
        ("movers", "[7]", "bad movers"),
        ("overruns", "[[1]]", "bad overruns"),
        ("started", b"\xff", "bad started"),  # a blob where the time was
    ],
)
def test_a_game_edited_by_hand_names_the_run_the_slot_and_the_column(
    tmp_path: Path, column: str, value: object, shown: str
) -> None:
    db = tmp_path / "r.db"
    with ResultStore(db) as store:
        run_id = run_arena(config(), store).run_id
    conn = sqlite3.connect(db)
    conn.execute(f"UPDATE games SET {column} = ? WHERE slot = 2", (value,))
    conn.commit()
    conn.close()
    with ResultStore(db) as store, pytest.raises(CorruptStoreError) as err:
        list(store.games())
    assert f"run {run_id}, slot 2: {shown}" in str(err.value)
    assert isinstance(err.value, ValueError)  # a user error: one line in the CLI


@pytest.mark.parametrize(
    ("column", "value"),
    [("config", "{not json"), ("config", "[1]"), ("cheating", "5"), ("status", "odd")],
)
def test_a_run_edited_by_hand_is_refused(tmp_path: Path, column: str, value: str) -> None:
    db = tmp_path / "r.db"
    with ResultStore(db) as store:
        run_id = run_arena(config(), store).run_id
    conn = sqlite3.connect(db)
    conn.execute(f"UPDATE runs SET {column} = ?", (value,))
    conn.commit()
    conn.close()
    with ResultStore(db) as store, pytest.raises(CorruptStoreError, match=f"run {run_id}: bad"):
        store.runs()


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.db"
    os.mkfifo(fifo)
    outcome: list[BaseException | None] = []

    def open_it() -> None:
        try:
            ResultStore(fifo)
            outcome.append(None)
        except BaseException as err:  # handed to the test's thread
            outcome.append(err)

    worker = threading.Thread(target=open_it, daemon=True)
    worker.start()
    worker.join(10)
    if worker.is_alive():  # blocked in open(): unblock it with a writer, then fail
        with open(fifo, "wb"):
            pass
        pytest.fail("opening a FIFO as the store blocked")
    [err] = outcome
    assert isinstance(err, NotAStoreError) and "not a regular file" in str(err)


def test_a_device_is_refused(tmp_path: Path) -> None:
    with pytest.raises(NotAStoreError, match="not a regular file"):
        ResultStore("/dev/null")
    assert json.dumps(None)  # /dev/null untouched: nothing to check, it is a device
