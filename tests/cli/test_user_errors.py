"""What a new user meets on the command line: every mistake is one ``error:`` line, exit 2,
found before any game is played (issue 14)."""

from __future__ import annotations

import importlib
import json
import socket
from pathlib import Path

import pytest
from test_cli import assert_user_error
from typer.testing import CliRunner, Result

from conftest import require_extra
from mctslab.cli.main import app

runner = CliRunner()
# The module, not the function mctslab.cli re-exports under the same name.
cli_main = importlib.import_module("mctslab.cli.main")


def invoke(*args: str) -> Result:
    return runner.invoke(app, list(args))


# Output paths are checked before the games: a bad one must not cost the run ----------------


def test_analyze_out_under_a_regular_file_is_refused_before_playing(tmp_path: Path) -> None:
    db, blocker = tmp_path / "r.db", tmp_path / "file"
    blocker.write_text("x")
    args = "analyze tic_tac_toe --player random --games 2 --workers 1 --no-progress"
    result = invoke(*args.split(), "--db", str(db), "--out", str(blocker / "report"))
    line = assert_user_error(result)
    assert "--out" in line and "not a directory" in line
    assert not db.exists()


def test_tune_plot_under_a_regular_file_is_refused_before_playing(tmp_path: Path) -> None:
    db, blocker = tmp_path / "r.db", tmp_path / "file"
    blocker.write_text("x")
    args = "tune tic_tac_toe --param iterations=2,4 --opponent random --games 2 --workers 1"
    result = invoke(
        *args.split(), "--no-progress", "--db", str(db), "--plot", str(blocker / "x.png")
    )
    line = assert_user_error(result)
    assert "--plot" in line and "not a directory" in line
    assert not db.exists()


# serve --------------------------------------------------------------------------------------


def test_serve_on_a_busy_port_says_so_before_printing_the_address() -> None:
    require_extra("uvicorn", "web")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        line = assert_user_error(invoke("serve", "--port", str(port)))
    assert line == f"error: port {port} is in use; try --port {port + 1}"


# solve --------------------------------------------------------------------------------------


def test_solve_a_finished_game_says_it_is_over_and_how_it_ended() -> None:
    line = assert_user_error(invoke("solve", "tic_tac_toe", "--moves", "0,3,1,4,2"))
    assert line == "error: the game is over: x wins (returns 1, -1)"
    line = assert_user_error(invoke("solve", "tic_tac_toe", "--moves", "0,1,2,4,3,5,7,6,8"))
    assert line == "error: the game is over: draw (returns 0, 0)"


def test_a_long_solve_says_it_may_take_very_long(monkeypatch: pytest.MonkeyPatch) -> None:
    # Connect Four from the start runs for hours: past SLOW_SOLVE_SECONDS the solve says so
    # on stderr (tic-tac-toe's 6392 nodes reach the first progress call at 4096).
    monkeypatch.setattr(cli_main, "SLOW_SOLVE_SECONDS", 0.0)
    result = invoke("solve", "tic_tac_toe")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("draw for the player to move")
    assert "may take very long" in result.stderr and "--max-nodes" in result.stderr


def test_a_quick_solve_says_nothing_on_stderr() -> None:
    result = invoke("solve", "tic_tac_toe")
    assert result.exit_code == 0 and result.stderr == ""


# Usage errors: one line, like every other user error ---------------------------------------


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (("search", "tic_tac_toe", "--iterations", "abc"), "'--iterations'"),
        (("serve", "--port", "abc"), "'--port'"),
        (("arena", "tic_tac_toe", "--games", "x"), "'--games'"),
        (("solve",), "Missing argument"),
        (("search", "tic_tac_toe", "--bogus"), "--bogus"),
        (("search", "tic_tac_toe", "--puct", "--fpu", "x"), "'--fpu'"),
        (("search", "tic_tac_toe", "--puct", "--batch", "1.5"), "'--batch'"),
        (("selfplay", "tic_tac_toe", "--out", "x.npz"), "Missing option '--player'"),
        (("selfplay", "tic_tac_toe", "--player", "mcts"), "Missing option '--out'"),
        (("bogus",), "'bogus'"),
    ],
)
def test_usage_errors_are_one_error_line_and_exit_2(args: tuple[str, ...], fragment: str) -> None:
    line = assert_user_error(invoke(*args))
    assert fragment in line and "--help" in line


def test_help_still_works() -> None:
    result = invoke("search", "--help")
    assert result.exit_code == 0 and "--iterations" in result.stdout
    result = invoke()
    assert "Usage" in result.output and "solve" in result.output


# Player specs and seats ---------------------------------------------------------------------


@pytest.mark.parametrize("spec", ["mcts:iterations=5,,c=1", "mcts:iterations=5,"])
def test_an_empty_option_in_a_player_spec_is_an_error(spec: str) -> None:
    line = assert_user_error(
        invoke("play", "tic_tac_toe", "--player1", spec, "--player2", "random")
    )
    assert line == f"error: empty option in {spec!r}: write key=value,key=value"


@pytest.mark.parametrize("command", ["arena", "tune", "analyze"])
def test_zero_workers_is_refused_like_negative_workers(tmp_path: Path, command: str) -> None:
    db = tmp_path / "r.db"
    args = {
        "arena": ("--player", "a=random", "--player", "b=random"),
        "tune": ("--param", "iterations=2,4", "--opponent", "random"),
        "analyze": ("--player", "random"),
    }[command]
    common = ("--games", "2", "--db", str(db), "--no-progress")
    lines = [
        assert_user_error(invoke(command, "tic_tac_toe", *args, *common, "--workers", str(n)))
        for n in (0, -3)
    ]
    assert lines == [
        "error: workers must be an integer >= 1, got 0",
        "error: workers must be an integer >= 1, got -3",
    ]
    assert not db.exists()


@pytest.mark.parametrize(
    ("args", "counted"),
    [
        (("--player1", "random", "--player2", "random", "--player", "random"), "got 3 players"),
        (("--player2", "random", "--player", "random", "--player", "random"), "got 3 players"),
    ],
)
def test_mixing_player1_player2_and_player_counts_every_player(
    args: tuple[str, ...], counted: str
) -> None:
    line = assert_user_error(invoke("play", "tic_tac_toe", *args))
    assert counted in line and "either --player" in line


# Intervals: Wilson's, which does not collapse to a point after a few games ------------------


def test_tune_score_interval_after_four_draws_is_wilsons(tmp_path: Path) -> None:
    # Exact minimax against itself: four draws. The normal approximation said 0.500
    # (0.500-0.500), as sure as after a million games.
    result = invoke(
        "tune", "tic_tac_toe", "--player", "minimax", "--param", "depth=9",
        "--opponent", "minimax", "--games", "4", "--workers", "1",
        "--db", str(tmp_path / "r.db"), "--no-progress", "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    (value,) = json.loads(result.stdout)["values"]
    assert (value["wins"], value["draws"], value["losses"]) == (0, 4, 0)
    assert (value["low"], value["high"]) == pytest.approx((0.1500, 0.8500), abs=1e-4)


def test_analyze_first_player_score_interval_is_wilsons(tmp_path: Path) -> None:
    result = invoke(
        "analyze", "tic_tac_toe", "--player", "minimax", "--games", "4", "--workers", "1",
        "--db", str(tmp_path / "r.db"), "--no-progress", "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    (strength,) = json.loads(result.stdout)["strengths"]
    score = strength["first_score"]
    assert (score["mean"], score["low"], score["high"]) == pytest.approx(
        (0.5, 0.15, 0.85), abs=1e-4
    )


# arena and ratings: the same default anchor -------------------------------------------------


def test_arena_and_ratings_pick_the_same_default_anchor(tmp_path: Path) -> None:
    db = str(tmp_path / "r.db")
    result = invoke(
        "arena", "tic_tac_toe", "--player", "zz=random", "--player", "aa=random",
        "--games", "4", "--workers", "1", "--db", db, "--no-progress", "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    from_arena = json.loads(result.stdout)["anchor"]
    result = invoke("ratings", "--db", db, "--json")
    assert result.exit_code == 0, result.stderr
    assert from_arena == json.loads(result.stdout)["anchor"]
