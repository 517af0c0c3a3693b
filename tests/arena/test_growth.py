"""A run that grows (mctslab.arena.growth): ``arena --resume`` with more ``--games`` plays
only the new games into the same run, the old ones keeping their slots and seeds; a
changed spec or fewer games is refused with one line; Ctrl-C says what is stored."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import mctslab.arena.tournament as tournament
from mctslab.arena.growth import RunChangedError, slot_of
from mctslab.arena.store import GameRecord, ResultStore
from mctslab.arena.tournament import ArenaConfig, Entrant, GameTask, run_arena, schedule
from mctslab.cli.main import app

runner = CliRunner()
PLAYERS = (Entrant("a", "mcts:iterations=5"), Entrant("b", "random"), Entrant("c", "random"))


def config(games: int, players: tuple[Entrant, ...] = PLAYERS) -> ArenaConfig:
    return ArenaConfig("tic_tac_toe", players, games=games, seed=7)


def play(store: ResultStore, games: int, players: tuple[Entrant, ...] = PLAYERS) -> Any:
    return run_arena(config(games, players), store, resume=True, duplicates="refuse")


def by_seats_and_seed(records: Sequence[GameRecord]) -> dict[tuple[Any, ...], GameRecord]:
    return {(r.seats, r.seed): r for r in records}


def test_slots_of_a_grown_run_keep_the_old_games_in_place() -> None:
    old = {(t.seats, t.seed): t.slot for t in schedule(config(2))}
    grown = schedule(config(4), (2, 4))
    assert sorted(t.slot for t in grown) == list(range(12))
    for t in grown:
        if (t.seats, t.seed) in old:
            assert t.slot == old[(t.seats, t.seed)]
    assert [t.slot for t in schedule(config(4))] == list(range(12))  # one block: as before
    assert slot_of(2, 3, (2, 4), 3) == 11
    with pytest.raises(ValueError, match="beyond"):
        slot_of(0, 4, (2, 4), 3)


def test_more_games_grow_the_same_run_and_play_only_the_new_ones(tmp_path: Path) -> None:
    with ResultStore(tmp_path / "r.db") as store:
        first = play(store, 2)
        assert first.planned == 6 and first.played_now == 6
        grown = play(store, 4)
        assert grown.run_id == first.run_id and grown.planned == 12 and grown.played_now == 6
        kept = by_seats_and_seed(first.records)
        now = by_seats_and_seed(grown.records)
        assert len(now) == 12 and all(now[k].moves == kept[k].moves for k in kept)
        again = play(store, 4)  # nothing left to play
        assert again.run_id == first.run_id and again.played_now == 0
        third = play(store, 6)
        assert third.run_id == first.run_id and third.played_now == 6
        [run] = store.runs()
        assert run.config["game_blocks"] == [2, 4, 6] and run.config["games"] == 6
        assert run.played == 18 and not run.unfinished
        # The grown run is the same games a fresh run of 6 a pairing plays.
        fresh = run_arena(config(6), None)
        assert set(by_seats_and_seed(fresh.records)) == set(by_seats_and_seed(third.records))


def test_a_changed_spec_or_fewer_games_is_refused(tmp_path: Path) -> None:
    with ResultStore(tmp_path / "r.db") as store:
        play(store, 4)
        other = (Entrant("a", "mcts:iterations=9"), *PLAYERS[1:])
        with pytest.raises(RunChangedError, match=r"a: mcts:iterations=5 -> mcts:iterations=9"):
            play(store, 4, other)
        with pytest.raises(RunChangedError, match=r"games 4 -> 2"):
            play(store, 2)
        assert [r.played for r in store.runs()] == [12]  # nothing written
        # Other players' names: another run, as before.
        new = play(store, 2, (Entrant("x", "random"), Entrant("y", "random")))
        assert len(store.runs()) == 2 and new.played_now == 2


def arena(db: Path, games: int, *extra: str) -> Any:
    args = ["arena", "tic_tac_toe", "--player", "a=mcts:iterations=5", "--player", "b=random",
            "--games", str(games), "--seed", "3", "--workers", "1", "--db", str(db),
            "--no-progress", *extra]  # fmt: skip
    return runner.invoke(app, args)


def test_the_cli_grows_a_run_and_refuses_a_changed_one_in_one_line(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    assert arena(db, 2).exit_code == 0
    grown = arena(db, 4, "--resume", "--json")
    assert grown.exit_code == 0, grown.stderr
    data = json.loads(grown.stdout)
    assert data["run"] == 1 and data["planned"] == 4 and data["played_now"] == 2
    shrunk = arena(db, 2, "--resume")
    assert shrunk.exit_code == 2 and shrunk.stdout == ""
    [line] = shrunk.stderr.splitlines()
    assert line.startswith("error: cannot resume run 1") and "games 4 -> 2" in line


def test_ctrl_c_says_what_is_stored_and_how_to_go_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = tournament.run_tasks

    def one_then_ctrl_c(tasks: Sequence[GameTask], *args: Any) -> Iterator[GameRecord]:
        yield from real(tasks[:1], 1)
        raise KeyboardInterrupt

    monkeypatch.setattr(tournament, "run_tasks", one_then_ctrl_c)
    db = tmp_path / "r.db"
    result = arena(db, 4)
    assert result.exit_code == 130
    assert (
        f"interrupted: run 1 in {str(db)!r} holds 1 of its 4 games; the same command with "
        "--resume plays the rest"
    ) in result.stderr
    monkeypatch.setattr(tournament, "run_tasks", real)
    rest = arena(db, 4, "--resume", "--json")
    assert json.loads(rest.stdout)["played_now"] == 3
