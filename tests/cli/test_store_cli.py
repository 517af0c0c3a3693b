"""The results store from the command line (issue 28, items 10 and 11): ``ratings`` counts
each game once and names unfinished runs, ``arena``/``sprt`` refuse a duplicate run, a
full disk, a store edited by hand, a FIFO as ``--db`` and an ``--out`` that cannot be
written are one ``error:`` line with exit 2, and a store never names a program to start."""

from __future__ import annotations

import errno
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from test_cli import assert_user_error
from typer.testing import CliRunner, Result

import mctslab.cli.arena as cli_arena
from mctslab.arena.store import ResultStore
from mctslab.arena.tournament import ArenaConfig, Entrant, play_task, schedule
from mctslab.cli.main import app
from mctslab.core.registry import make

runner = CliRunner()

ARENA = [
    "arena", "tic_tac_toe", "--player", "a=mcts:iterations=20", "--player", "b=random",
    "--games", "4", "--seed", "5", "--workers", "1", "--no-progress",
]  # fmt: skip


def invoke(*args: str) -> Result:
    return runner.invoke(app, list(args))


def ok(*args: str) -> Result:
    result = invoke(*args)
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    return result


def killed_run(db: Path, games: int) -> int:
    """The run ``mctslab arena`` (ARENA) leaves when killed after ``games`` games."""
    cfg = ArenaConfig(
        "tic_tac_toe",
        (Entrant("a", "mcts:iterations=20"), Entrant("b", "random")),
        games=4,
        seed=5,
    )
    version = make("tic_tac_toe").info.version
    with ResultStore(db) as store:
        run_id = store.start_run(
            "arena", "tic_tac_toe", version, cfg.identity(version), 5,
            {"a": "mcts:iterations=20", "b": "random"}, 4,
        )  # fmt: skip
        for task in schedule(cfg)[:games]:
            store.add_game(run_id, play_task(task))
    return run_id


# ratings: each game once ----------------------------------------------------------------------


def test_ratings_count_a_run_played_again_once_and_name_the_unfinished_run(
    tmp_path: Path,
) -> None:
    """The kill -9 case: a run killed after 3 games, then the same configuration played
    again as a new run (as the training loop's evaluation does)."""
    db = tmp_path / "results.sqlite"
    killed = killed_run(db, 3)
    with ResultStore(db) as store:  # a second run of the same configuration
        from mctslab.arena.tournament import run_arena

        cfg = ArenaConfig(
            "tic_tac_toe",
            (Entrant("a", "mcts:iterations=20"), Entrant("b", "random")),
            games=4,
            seed=5,
            workers=1,
        )
        again = run_arena(cfg, store).run_id
    data = json.loads(ok("ratings", "--db", str(db), "--json").stdout)
    assert data["games"] == 4  # was 7
    assert data["duplicates"] == {"games": 3, "runs": [again], "counted": False}
    assert data["unfinished_runs"] == [killed]
    status = {r["id"]: (r["status"], r["duplicates"]) for r in data["runs"]}
    assert status == {killed: ("running", 0), again: ("finished", 3)}
    text = ok("ratings", "--db", str(db)).stdout
    assert f"merged 3 duplicate games from 1 run; 1 unfinished run ({killed})" in text
    assert f"run {killed}: arena, 3 games" in text and "unfinished (killed" in text
    kept = json.loads(ok("ratings", "--db", str(db), "--json", "--keep-duplicates").stdout)
    assert kept["games"] == 7 and kept["duplicates"]["counted"] is True
    # The Elo is the one of the complete run alone.
    alone = json.loads(ok("ratings", "--db", str(db), "--json", "--run", str(again)).stdout)
    assert [p["elo"] for p in alone["players"]] == [p["elo"] for p in data["players"]]


# arena/sprt without --resume on a store that holds the configuration ------------------------


def test_arena_without_resume_refuses_a_configuration_the_store_holds(tmp_path: Path) -> None:
    db = str(tmp_path / "r.db")
    ok(*ARENA, "--db", db)
    line = assert_user_error(invoke(*ARENA, "--db", db))
    assert "already holds run 1 of this configuration (4/4 games, finished)" in line
    assert "--resume" in line
    with ResultStore(db) as store:
        assert [r.played for r in store.runs()] == [4]
    resumed = json.loads(ok(*ARENA, "--db", db, "--resume", "--json").stdout)
    assert (resumed["run"], resumed["played_now"]) == (1, 0)
    ok(*ARENA[:-1], "--seed", "6", "--no-progress", "--db", db)  # another seed: new games
    data = json.loads(ok("ratings", "--db", db, "--json").stdout)
    assert data["games"] == 8 and data["duplicates"]["games"] == 0


def test_an_unfinished_run_is_refused_too_and_resume_completes_it(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    killed_run(db, 1)
    line = assert_user_error(invoke(*ARENA, "--db", str(db)))
    assert "(1/4 games, unfinished)" in line and "--resume" in line
    resumed = json.loads(ok(*ARENA, "--db", str(db), "--resume", "--json").stdout)
    assert (resumed["run"], resumed["played_now"], resumed["games"]) == (1, 3, 4)


def test_sprt_without_resume_refuses_a_configuration_the_store_holds(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    args = [
        "sprt", "tic_tac_toe", "--player", "a=mcts:iterations=20", "--player", "b=random",
        "--max-games", "4", "--workers", "1", "--no-progress", "--db", db,
    ]  # fmt: skip
    first = invoke(*args)
    assert first.exit_code in (0, 1), first.stderr  # 1: no decision in 4 games
    line = assert_user_error(invoke(*args))
    assert "already holds run 1" in line and "--resume" in line


# A store never names a program to start --------------------------------------------------------


def test_resume_ratings_and_export_never_start_a_program_named_in_the_store(
    tmp_path: Path,
) -> None:
    """A store is data: a ``gtp:`` spec written in it (by someone else, or edited in) is
    never run; ``arena --resume`` plays the players of its command line."""
    marker = tmp_path / "started"
    script = tmp_path / "engine.sh"
    script.write_text(f"#!/bin/sh\ntouch {marker}\n")
    script.chmod(0o755)
    db = tmp_path / "r.db"
    killed_run(db, 2)
    conn = sqlite3.connect(db)
    conn.execute("UPDATE players SET spec = ? WHERE name = 'b'", (f"gtp:{script}",))
    conn.commit()
    conn.close()
    resumed = json.loads(ok(*ARENA, "--db", str(db), "--resume", "--json").stdout)
    assert resumed["run"] == 1 and resumed["games"] == 4  # the store's run, played by random
    ok("ratings", "--db", str(db))
    assert_user_error(invoke("export-sgf", "--db", str(db), "--out", str(tmp_path / "o")))
    assert not marker.exists()


# A full disk ---------------------------------------------------------------------------------


class FullDisk:
    """A connection whose disk is full from the ``room + 1``-th game on (the insert runs
    inside its transaction, then the write fails)."""

    def __init__(self, conn: sqlite3.Connection, room: int, error: Exception) -> None:
        self.conn, self.room, self.error = conn, room, error

    def execute(self, sql: str, *args: Any) -> Any:
        cursor = self.conn.execute(sql, *args)
        if sql.startswith("INSERT OR IGNORE INTO games"):
            if self.room == 0:
                raise self.error
            self.room -= 1
        return cursor

    def __getattr__(self, name: str) -> Any:
        return getattr(self.conn, name)


@pytest.mark.parametrize(
    "error",
    [
        sqlite3.OperationalError("database or disk is full"),
        OSError(errno.ENOSPC, "No space left on device"),
    ],
    ids=["sqlite", "oserror"],
)
def test_a_full_disk_during_arena_is_one_error_line_and_the_store_stays_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: Exception
) -> None:
    db = tmp_path / "r.db"
    real_open = cli_arena.open_store

    def full_after_two(path: Path, must_exist: bool = False) -> ResultStore:
        store = real_open(path, must_exist)
        store.conn = FullDisk(store.conn, 2, error)  # type: ignore[assignment]
        return store

    monkeypatch.setattr(cli_arena, "open_store", full_after_two)
    line = assert_user_error(invoke(*ARENA, "--db", str(db)))
    assert "cannot write to the results store" in line
    assert "2 of its 4 games stored" in line and "--resume" in line
    monkeypatch.setattr(cli_arena, "open_store", real_open)
    with ResultStore(db) as store:
        [run] = store.runs()
        assert (run.played, run.status) == (2, "stopped")
        assert [g.slot for g in store.games()] == [0, 1]  # no half-written game
    resumed = json.loads(ok(*ARENA, "--db", str(db), "--resume", "--json").stdout)
    assert (resumed["played_now"], resumed["games"]) == (2, 4)


# export-sgf: an --out that cannot be written, a store edited by hand ------------------------


def _go_store(tmp_path: Path) -> Path:
    db = tmp_path / "go.db"
    ok(
        "arena", "go", "-p", "board_size=5", "--player", "a=random", "--player", "b=random",
        "--games", "2", "--workers", "1", "--db", str(db), "--no-progress",
    )  # fmt: skip
    return db


def test_export_sgf_to_an_out_beneath_a_regular_file_is_one_error_line(tmp_path: Path) -> None:
    db = _go_store(tmp_path)
    blocker = tmp_path / "file"
    blocker.write_text("keep")
    line = assert_user_error(invoke("export-sgf", "--db", str(db), "--out", str(blocker / "o")))
    assert "--out" in line and "not a directory" in line
    assert blocker.read_text() == "keep"


def test_export_sgf_when_a_write_fails_is_one_error_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read-only or full --out (tests may run as root, where chmod does not stop a
    write: the failure is simulated)."""
    import mctslab.cli.sgf as cli_sgf

    db = _go_store(tmp_path)

    def full(path: Path, text: str) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(cli_sgf, "_write", full)
    line = assert_user_error(invoke("export-sgf", "--db", str(db), "--out", str(tmp_path / "o")))
    assert "cannot write to --out" in line and "No space left on device" in line


@pytest.mark.parametrize(
    ("sql", "args", "message"),
    [
        ("UPDATE games SET moves = ? WHERE slot = 1", ("garbage",), "slot 1: bad moves"),
        ("UPDATE games SET moves = ? WHERE slot = 1", ("[0, 0]",), "game 1 in"),
        ("UPDATE games SET moves = ? WHERE slot = 1", ("[999]",), "game 1 in"),
        ("UPDATE games SET seats = ? WHERE slot = 0", ('["a", "b", "c"]',), "two seats"),
        ("UPDATE runs SET config = ?", ('{"game_params": {"board_size": 3}}',), "board_size"),
        ("UPDATE runs SET config = ?", ('{"game_params": {"nope": 1}}',), "nope"),
        ("UPDATE runs SET game = ?", ("chess",), "no Go games in"),
        ("UPDATE runs SET cheating = ?", ("{",), "bad cheating"),
    ],
)
def test_export_sgf_of_a_store_edited_by_hand_is_one_error_line(
    tmp_path: Path, sql: str, args: tuple[str, ...], message: str
) -> None:
    db = _go_store(tmp_path)
    conn = sqlite3.connect(db)
    conn.execute(sql, args)
    conn.commit()
    conn.close()
    out = tmp_path / "o"
    line = assert_user_error(invoke("export-sgf", "--db", str(db), "--out", str(out)))
    assert message in line
    assert not out.exists()  # checked before the first file is written


@pytest.mark.parametrize(
    ("sql", "args"),
    [
        ("UPDATE games SET moves = ? WHERE slot = 1", ("garbage",)),
        ("UPDATE games SET seats = ? WHERE slot = 1", ("[3]",)),
        ("UPDATE games SET score = ? WHERE slot = 1", ("high",)),
        ("UPDATE runs SET config = ?", ("[",)),
    ],
)
def test_ratings_of_a_store_edited_by_hand_is_one_error_line(
    tmp_path: Path, sql: str, args: tuple[str, ...]
) -> None:
    db = tmp_path / "r.db"
    ok(*ARENA, "--db", str(db))
    conn = sqlite3.connect(db)
    conn.execute(sql, args)
    conn.commit()
    conn.close()
    line = assert_user_error(invoke("ratings", "--db", str(db)))
    assert "is damaged or was edited" in line


# A FIFO as --db ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [ARENA, ["ratings"], ["export-sgf", "--out", "never"]],
    ids=["arena", "ratings", "export-sgf"],
)
def test_a_fifo_as_db_is_refused_at_once(tmp_path: Path, command: list[str]) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "mctslab", *command, "--db", str(fifo)],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=tmp_path,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("a FIFO as --db blocked the command")
    assert done.returncode == 2, done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith("error: ") and "not a regular file" in line


# Moves in Unicode digits -----------------------------------------------------------------------


@pytest.mark.parametrize("moves", ["\uff14", "0,\uff14", "\u0664", "4,\u00b2"])
@pytest.mark.parametrize("command", ["search", "solve"])
def test_moves_in_unicode_digits_are_refused(command: str, moves: str) -> None:
    line = assert_user_error(invoke(command, "tic_tac_toe", "--moves", moves))
    assert "--moves" in line and "ASCII digits" in line


def test_a_game_parameter_in_unicode_digits_is_refused() -> None:
    result = invoke("solve", "connect_four", "-p", "rows=\uff14", "-p", "columns=4")
    line = assert_user_error(result)
    assert "rows" in line
