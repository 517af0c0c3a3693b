"""``mctslab arena``, ``ratings`` and ``sprt`` from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mctslab.cli import app

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
