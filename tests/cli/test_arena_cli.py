"""``mctslab arena``, ``ratings`` and ``sprt`` from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mctslab.arena.store import ResultStore
from mctslab.cli.main import app

runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_arena_json_ratings_and_store(tmp_path: Path) -> None:
    db = str(tmp_path / "r.db")
    code, out, err = run(
        "arena", "tic_tac_toe", "--player", "strong=mcts:iterations=300",
        "--player", "rnd=random", "--games", "6", "--seed", "1", "--workers", "1",
        "--db", db, "--json", "--no-progress",
    )  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    assert data["games"] == 6 and data["planned"] == 6 and data["played_now"] == 6
    players = {p["name"]: p for p in data["players"]}
    assert players["strong"]["wins"] + players["strong"]["draws"] + players["strong"]["losses"] == 6
    assert players["strong"]["wins"] >= 4 and players["strong"]["score"] > players["rnd"]["score"]
    assert set(data["move_times"]) == {"strong", "rnd"}
    code, out, err = run("ratings", "--db", db, "--json", "--anchor", "rnd")
    assert code == 0, err
    again = json.loads(out)
    assert again["games"] == 6 and again["anchor"] == "rnd"
    code, out, _ = run("ratings", "--db", db)
    assert code == 0 and "strong" in out and "pairwise" in out


def test_sprt_accepts_h1_for_a_much_stronger_player(tmp_path: Path) -> None:
    code, out, err = run(
        "sprt", "tic_tac_toe", "--player", "a=mcts:iterations=200", "--player", "b=random",
        "--elo0", "0", "--elo1", "100", "--workers", "1", "--db", str(tmp_path / "s.db"),
        "--json", "--no-progress",
    )  # fmt: skip
    assert code == 0, err
    status = json.loads(out)
    assert status["decision"] == "H1"
    assert status["llr"] >= status["upper"]
    assert 2 * status["pairs"] == status["games"] < 200


def test_sprt_accepts_h0_between_equal_players(tmp_path: Path) -> None:
    code, out, err = run(
        "sprt", "nim", "--player", "a=minimax", "--player", "b=minimax",
        "--elo0", "0", "--elo1", "100", "--workers", "1", "--db", str(tmp_path / "s.db"),
        "--json", "--no-progress",
    )  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["decision"] == "H0"


def test_sprt_gives_up_at_max_games(tmp_path: Path) -> None:
    code, out, _ = run(
        "sprt", "tic_tac_toe", "--player", "a=minimax", "--player", "b=minimax",
        "--elo0", "0", "--elo1", "5", "--max-games", "4", "--workers", "1",
        "--db", str(tmp_path / "s.db"), "--no-progress",
    )  # fmt: skip
    assert code == 1 and "no decision after 4 games" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["arena", "chess", "--player", "a=random", "--player", "b=random"], "unknown game"),
        (["arena", "tic_tac_toe", "--player", "a=mcts:bogus=1", "--player", "b=random"], "bogus"),
        (["arena", "tic_tac_toe", "--player", "a=random"], "at least two"),
        (["arena", "tic_tac_toe", "--player", "a", "--player", "b=random"], "NAME=SPEC"),
        (["arena", "tic_tac_toe", "--player", "a=random", "--player", "b=human"], "human"),
        (["arena", "tic_tac_toe", "--player", "a=random", "--player", "b=random", "--games", "0"],
         "positive"),
        (["arena", "tic_tac_toe", "--player", "a=random", "--player", "b=random",
          "--time-per-move", "-1"], "positive"),
        (["arena", "tic_tac_toe", "--player", "a=random", "--player", "b=random",
          "--main-time", "0"], "main time"),
        (["arena", "tic_tac_toe", "--player", "a=mcts:iterations=0", "--player", "b=random"],
         "iterations"),
        (["sprt", "tic_tac_toe", "--player", "a=random", "--player", "b=random", "--elo0", "5",
          "--elo1", "1"], "elo0"),
        (["sprt", "tic_tac_toe", "--player", "a=random"], "exactly two"),
    ],
)  # fmt: skip
def test_user_errors_exit_2_with_one_line_and_no_store(
    tmp_path: Path, args: list[str], message: str
) -> None:
    db = tmp_path / "never.db"
    code, out, err = run(*args, "--db", str(db), "--no-progress")
    assert code == 2, (out, err)
    assert err.startswith("error: ") and err.count("\n") == 1 and message in err
    assert not db.exists()


def test_a_file_that_is_not_a_store_is_refused_and_untouched(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("precious\n")
    code, _, err = run(
        "arena", "tic_tac_toe", "--player", "a=random", "--player", "b=random",
        "--db", str(notes), "--no-progress",
    )  # fmt: skip
    assert code == 2 and "not an mctslab results store" in err
    assert notes.read_text() == "precious\n"
    code, _, err = run("ratings", "--db", str(notes))
    assert code == 2 and notes.read_text() == "precious\n"


def test_ratings_errors(tmp_path: Path) -> None:
    missing = tmp_path / "missing.db"
    code, _, err = run("ratings", "--db", str(missing))
    assert code == 2 and "no results store" in err and not missing.exists()
    db = str(tmp_path / "two.db")
    for game in ("tic_tac_toe", "nim"):
        code, _, err = run(
            "arena", game, "--player", "a=random", "--player", "b=minimax", "--games", "2",
            "--db", db, "--no-progress", "--workers", "1",
        )  # fmt: skip
        assert code == 0, err
    code, _, err = run("ratings", "--db", db)
    assert code == 2 and "several games" in err
    code, out, err = run("ratings", "--db", db, "--game", "nim", "--json")
    assert code == 0 and json.loads(out)["games"] == 2
    code, _, err = run("ratings", "--db", db, "--game", "nim", "--anchor", "zz")
    assert code == 2 and "zz" in err


def _arena(db: Path, *players: str, games: int = 2) -> None:
    args = ["arena", "tic_tac_toe", "--games", str(games), "--workers", "1", "--db", str(db)]
    for p in players:
        args += ["--player", p]
    code, _, err = run(*args, "--no-progress")
    assert code == 0, err


def test_ratings_keep_apart_two_players_that_share_a_name(tmp_path: Path) -> None:
    """Two runs, each with a player called 'mcts': 1 and 300 iterations. Pooled by name
    they would be one player; they are two, each named with its spec, and the output
    says which runs were pooled and that the name stands for both."""
    db = tmp_path / "r.db"
    _arena(db, "mcts=mcts:iterations=1", "rnd=random", games=4)
    _arena(db, "mcts=mcts:iterations=300", "rnd=random", games=4)
    code, out, err = run("ratings", "--db", str(db), "--game", "tic_tac_toe", "--json")
    assert code == 0, err
    data = json.loads(out)
    weak, strong = "mcts [mcts:iterations=1]", "mcts [mcts:iterations=300]"
    players = {p["name"]: p for p in data["players"]}
    assert set(players) == {weak, strong, "rnd"}
    assert players[weak]["games"] == players[strong]["games"] == 4
    assert players["rnd"]["games"] == 8  # the same name and spec in both runs: one player
    assert data["shared_names"] == {"mcts": [weak, strong]}
    assert data["specs"][weak]["spec"] == "mcts:iterations=1" and data["specs"][weak]["runs"] == [1]
    assert data["specs"]["rnd"]["runs"] == [1, 2]
    assert [r["id"] for r in data["runs"]] == [1, 2]
    code, out, err = run("ratings", "--db", str(db), "--game", "tic_tac_toe")
    assert code == 0, err
    assert "pooled 2 runs" in out and "run 1: arena, 4 games" in out and "run 2:" in out
    assert f"'mcts' names 2 different players, rated apart: {weak} in run(s) 1; {strong}" in out
    code, _, err = run("ratings", "--db", str(db), "--anchor", "mcts")
    assert code == 2 and weak in err and strong in err
    code, out, err = run("ratings", "--db", str(db), "--anchor", strong, "--json")
    assert code == 0 and json.loads(out)["anchor"] == strong


def test_ratings_sum_many_runs_by_kind(tmp_path: Path) -> None:
    """A training run's store holds a run an evaluation: beyond 8 runs, ratings says how
    many of each kind with their ids and games, not a line each (--json lists each)."""
    db = tmp_path / "r.db"
    for i in range(9):
        _arena(db, f"a{i}=random", "b=random", games=2)
    code, out, err = run("ratings", "--db", str(db), "--game", "tic_tac_toe")
    assert code == 0, err
    assert "pooled 9 runs:" in out and "run 1:" not in out
    assert "9 arena runs (ids 1 to 9), 18 games, tic_tac_toe" in out
    code, out, err = run("ratings", "--db", str(db), "--game", "tic_tac_toe", "--json")
    assert [r["id"] for r in json.loads(out)["runs"]] == list(range(1, 10))


def test_ratings_keep_apart_a_spec_played_under_two_rules_versions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import dataclasses

    import mctslab.arena.tournament as arena_mod

    db = tmp_path / "r.db"
    _arena(db, "uct=mcts:iterations=20", "rnd=random")
    real = arena_mod.make

    class NextVersion:
        def __init__(self, game: object) -> None:
            self._game = game
            self.info = dataclasses.replace(game.info, version=game.info.version + 1)  # type: ignore[attr-defined]

        def __getattr__(self, name: str) -> object:
            return getattr(self._game, name)

    monkeypatch.setattr(arena_mod, "make", lambda name, **kw: NextVersion(real(name, **kw)))
    _arena(db, "uct=mcts:iterations=20", "rnd=random")
    code, out, err = run("ratings", "--db", str(db), "--json")
    assert code == 0, err
    data = json.loads(out)
    version = real("tic_tac_toe").info.version
    assert data["shared_names"] == {
        "uct": [f"uct [version {version}]", f"uct [version {version + 1}]"],
        "rnd": [f"rnd [version {version}]", f"rnd [version {version + 1}]"],
    }
    assert all(p["games"] == 2 for p in data["players"])


def test_a_game_clock_from_the_command_line(tmp_path: Path) -> None:
    """``--main-time``: the games are played under each seat's clock and the run stores it
    in its identity (another main time is another run, the same one resumes)."""
    db = tmp_path / "clock.db"
    args = ("arena", "tic_tac_toe", "--player", "a=mcts", "--player", "b=random",
            "--games", "2", "--main-time", "1", "--strict", "--workers", "1",
            "--db", str(db), "--no-progress", "--json")  # fmt: skip
    code, out, err = run(*args)
    assert code == 0, err
    data = json.loads(out)
    assert data["played_now"] == 2 and data["forfeits"] == []
    code, out, err = run(*args, "--resume")
    assert code == 0 and json.loads(out)["played_now"] == 0
    with ResultStore(db) as store:
        (only,) = store.runs()
        assert only.config["main_time"] == 1.0
