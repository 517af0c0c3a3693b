"""The ``mctslab`` command line: JSON shapes, play, exact solves and one-line user errors."""

from __future__ import annotations

import builtins
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from mctslab.cli.main import app

# typer >= 0.2x's CliRunner keeps stdout and stderr apart (result.stdout / result.stderr;
# result.output is both): there is no mix_stderr argument to pass.
runner = CliRunner()

SEARCH_KEYS = {
    "action",
    "value",
    "children",
    "iterations",
    "nodes",
    "seconds",
    "sims_per_s",
    "proven",
    "player",
    "final_rule",
    "stopped_by",
    "compile_seconds",
}
TIMING_KEYS = {"seconds", "sims_per_s", "compile_seconds"}

# Connect Four, x to move: x x x . on the third row, so column 4 wins at once.
C4_WIN_IN_ONE = "0,4,5,0,4,0,4,2,6,4,1,6,0,1,1,5,1,3,4,5,6,3,2,2,4,3,2,5"


def invoke(*args: str, input: str | None = None) -> Result:
    return runner.invoke(app, list(args), input=input)


def ok(*args: str, input: str | None = None) -> Result:
    result = invoke(*args, input=input)
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    return result


def ok_json(*args: str) -> Any:
    return json.loads(ok(*args, "--json").stdout)


def assert_user_error(result: Result) -> str:
    """Exit 2, one ``error:`` line on stderr, nothing on stdout, no traceback."""
    assert result.exit_code == 2, (result.stdout, result.stderr, result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    assert "Traceback" not in result.output
    return lines[0]


# games ---------------------------------------------------------------------------------------


def test_games_table_and_json() -> None:
    table = ok("games").stdout
    for name in ("tic_tac_toe", "connect_four", "nim", "bachet"):
        assert name in table
    assert "x_in_row=4" in table
    rows = {row["name"]: row["parameters"] for row in ok_json("games")}
    assert rows["nim"] == {"piles": [1, 3, 5, 7], "max_take": None, "misere": False}
    assert rows["tic_tac_toe"] == {}


# search --------------------------------------------------------------------------------------


def test_search_json_is_complete_and_reproducible() -> None:
    args = ("search", "tic_tac_toe", "--moves", "0,4", "--iterations", "300", "--seed", "1")
    first = ok_json(*args)
    assert set(first) >= SEARCH_KEYS
    assert first["iterations"] == 300
    assert first["player"] == 0
    assert first["stopped_by"] == "iterations"
    children = first["children"]
    assert {c["action"] for c in children} == {1, 2, 3, 5, 6, 7, 8}
    for child in children:
        assert set(child) == {"action", "visits", "value", "mean", "proven", "prior", "policy"}
        assert child["prior"] is None  # UCT has no priors (PUCT's: --puct)
        assert child["policy"] is None  # nor an improved policy (Gumbel search's)
    assert sum(c["visits"] for c in children) == 300
    assert first["action"] in {c["action"] for c in children}
    second = ok_json(*args)

    def stable(d: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in d.items() if k not in TIMING_KEYS}

    assert stable(first) == stable(second)


def test_search_options_are_passed_to_the_config() -> None:
    data = ok_json(
        "search",
        "tic_tac_toe",
        "--moves",
        "0,4",
        "--iterations",
        "400",
        "solver=1",
        "expansion=all",
        "c=1.0",
        "final=robust-max",
        "simulation=heavy",
    )
    assert set(data) >= SEARCH_KEYS
    # expansion=all adds every root child at the first iteration
    assert len(data["children"]) == 7
    # solver=1: MCTS-Solver proves some of the moves within 400 iterations
    assert any(c["proven"] is not None for c in data["children"])
    # A proven move's value is its proven return, as the table shows; its mean apart.
    for c in data["children"]:
        expected = c["mean"] if c["proven"] is None else float(c["proven"])
        assert c["value"] == expected, c
    assert any(c["proven"] is not None and c["mean"] != c["value"] for c in data["children"])


def test_search_stops_as_the_engines_search_does() -> None:
    """Early stop, robust-max and the caps from ``mctslab search`` are the engine's search
    of the same config, as from the web (``tests/web/test_web_api.py``: the runner, ``POST
    /api/move``) and GTP (``tests/cli/test_gtp_engine.py``)."""
    import mctslab
    from mctslab.search.config import SearchConfig

    state = mctslab.make("connect_four").state_from_actions([3])
    for options, config in (
        (["early_stop=1"], SearchConfig(iterations=3000, seed=5, early_stop=True)),
        (["final=robust-max"], SearchConfig(iterations=3000, seed=5, final="robust-max")),
        (["max_nodes=700"], SearchConfig(iterations=3000, seed=5, max_nodes=700)),
    ):
        got = ok_json(
            "search",
            "connect_four",
            "--moves",
            "3",
            "--iterations",
            "3000",
            "--seed",
            "5",
            *options,
        )
        expected = mctslab.search(state, config)
        assert (got["iterations"], got["stopped_by"], got["nodes"]) == (
            expected.iterations,
            expected.stopped_by,
            expected.nodes,
        ), options
        assert [c["visits"] for c in got["children"]] == [c.visits for c in expected.children]


def test_search_max_nodes_and_time_budgets() -> None:
    data = ok_json("search", "tic_tac_toe", "max_nodes=20")
    assert data["nodes"] <= 20
    assert data["stopped_by"] == "nodes"
    timed = ok_json("search", "bachet", "--time", "0.05")
    assert timed["stopped_by"] == "time"  # --time alone lifts the default iteration budget


def test_search_readable_table() -> None:
    out = ok("search", "tic_tac_toe", "--moves", "0,4", "--iterations", "200").stdout
    assert "x to move" in out
    assert "visits" in out
    assert "chosen move: " in out
    assert "200 iterations" in out


def test_search_game_parameters() -> None:
    data = ok_json(
        "search", "nim", "--param", "piles=1;2", "-p", "max_take=1", "--iterations", "50"
    )
    # two piles, take at most 1: the only moves are 1:1 and 2:1
    assert sorted(c["action"] for c in data["children"]) == [0, 1]


# solve ---------------------------------------------------------------------------------------


def test_solve_tic_tac_toe_is_a_draw() -> None:
    data = ok_json("solve", "tic_tac_toe")
    assert set(data) == {"value", "outcome", "best_actions", "action_values", "nodes", "seconds"}
    assert data["outcome"] == 0
    assert data["value"] == 0
    assert data["best_actions"] == list(range(9))
    assert data["action_values"] == []
    valued = ok_json("solve", "tic_tac_toe", "--values")
    assert valued["action_values"] == [[a, 0.0] for a in range(9)]
    out = ok("solve", "tic_tac_toe", "--moves", "0").stdout
    assert out.startswith("draw for the player to move (o); optimal moves: b2\n")


def test_solve_connect_four_win_in_one() -> None:
    data = ok_json("solve", "connect_four", "--moves", C4_WIN_IN_ONE)
    assert data["outcome"] == 1
    assert data["value"] == 1.0
    assert data["best_actions"] == [3]
    out = ok("solve", "connect_four", "--moves", C4_WIN_IN_ONE).stdout
    assert out.startswith("win for the player to move (x); optimal moves: 4\n")


def test_solve_small_connect_four_board() -> None:
    # 4 x 5, three in a row: the centre opening wins, so every reply loses.
    args = ("solve", "connect_four", "-p", "rows=4", "-p", "columns=5", "-p", "x_in_row=3")
    data = ok_json(*args, "--moves", "2")
    assert data["outcome"] == -1
    assert ok_json(*args)["outcome"] == 1


# play ----------------------------------------------------------------------------------------


def test_play_minimax_against_itself_is_a_draw() -> None:
    out = ok("play", "tic_tac_toe", "--player1", "minimax", "--player2", "minimax").stdout
    lines = out.splitlines()
    assert lines[-1] == "draw (returns 0, 0)"
    assert sum(" plays " in line for line in lines) == 9
    assert "x (minimax) plays " in out and "o (minimax) plays " in out
    assert "1  . . ." in out  # the empty board was drawn before the first move


def test_play_mcts_prints_a_summary_per_move() -> None:
    out = ok("play", "tic_tac_toe", "--player1", "mcts:iterations=30", "--player2", "random").stdout
    summaries = [line for line in out.splitlines() if line.strip().startswith("mcts:")]
    assert summaries
    assert all("visits" in s and "30 iterations" in s and "sims/s" in s for s in summaries)


def test_play_human_moves_with_rejected_inputs() -> None:
    # x: a1 a2 a3 wins column a; 'zz' is not a move, the second a1 is taken: both re-prompt.
    typed = "zz\na1\na1\nb1\na2\nb2\na3\n"
    result = ok("play", "tic_tac_toe", "--player1", "human", "--player2", "human", input=typed)
    out = result.stdout
    assert "unknown action 'zz'" in out
    assert "'a1' is not legal here" in out
    assert "x (human) plays a1" in out
    assert "o (human) plays b1" in out
    assert out.splitlines()[-1] == "x wins (returns 1, -1)"


def test_play_from_moves_and_player_numbers() -> None:
    out = ok("play", "bachet", "--player1", "random", "--player2", "random", "--seed", "3").stdout
    assert out.splitlines()[-1] in (
        "player 1 wins (returns 1, -1)",
        "player 2 wins (returns -1, 1)",
    )
    finished = ok("play", "tic_tac_toe", "--moves", "0,3,1,4,2").stdout
    assert finished.splitlines()[-1] == "x wins (returns 1, -1)"
    assert " plays " not in finished


def test_play_abandoned_on_end_of_input() -> None:
    result = invoke("play", "tic_tac_toe", "--player2", "minimax", input="b2\n")
    assert result.exit_code == 1
    assert isinstance(result.exception, SystemExit)
    assert result.stderr.strip() == "game abandoned"
    assert "Traceback" not in result.output


def test_play_abandoned_on_ctrl_c(monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupt(prompt: str = "") -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr(builtins, "input", interrupt)
    result = invoke("play", "tic_tac_toe")
    assert result.exit_code == 130
    assert result.stderr.strip() == "game abandoned"


# user errors ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["search", "chess"], "unknown game 'chess'"),
        (["search", "tic_tac_toe", "foo=1"], "unknown mcts option 'foo'"),
        (["search", "tic_tac_toe", "c=abc"], "bad value 'abc'"),
        (["search", "tic_tac_toe", "solver"], "write key=value"),
        (["search", "tic_tac_toe", "--moves", "0,0"], "illegal action 0"),
        (["search", "tic_tac_toe", "--moves", "1,x"], "bad --moves"),
        (["search", "tic_tac_toe", "--iterations", "0"], "iterations must be a positive"),
        (["search", "tic_tac_toe", "--time", "-1"], "time must be a positive"),
        (["search", "tic_tac_toe", "--moves", "0,3,1,4,2"], "the game is over"),
        (["search", "tic_tac_toe", "--engine", "nope"], "valid engines: auto, reference, compiled"),
        (["search", "nim", "--param", "foo=1"], "unknown parameter 'foo'"),
        (["search", "nim", "--param", "piles"], "bad --param"),
        (["search", "connect_four", "-p", "rows=0"], "rows must be an integer"),
        (["solve", "tic_tac_toe", "--moves", "9"], "illegal action 9"),
        (["solve", "connect_four", "--max-nodes", "100"], "max_nodes=100"),
        (["play", "tic_tac_toe", "--player1", "alien"], "unknown player 'alien'"),
        (["play", "tic_tac_toe", "--player2", "mcts:bar=1"], "unknown mcts option 'bar'"),
    ],
)
def test_user_errors_are_one_line(args: list[str], needle: str) -> None:
    line = assert_user_error(invoke(*args))
    assert needle in line


def test_usage_errors_exit_2() -> None:
    result = invoke("search", "tic_tac_toe", "--iterations", "abc")
    assert result.exit_code == 2
    assert "Traceback" not in result.output


# the installed console script ----------------------------------------------------------------


def _command() -> list[str]:
    script = Path(sys.executable).with_name("mctslab")
    return [str(script)] if script.exists() else [sys.executable, "-m", "mctslab"]


def _run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*_command(), *args], input=stdin, capture_output=True, text=True, timeout=120
    )


def test_console_script_search_json() -> None:
    proc = _run("search", "tic_tac_toe", "--moves", "0,4", "--iterations", "100", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert set(data) >= SEARCH_KEYS
    assert sum(c["visits"] for c in data["children"]) == 100


def test_console_script_user_error_and_end_of_input() -> None:
    proc = _run("search", "tic_tac_toe", "--moves", "0,0")
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.startswith("error: --moves, move 2: illegal action 0")
    assert len(proc.stderr.splitlines()) == 1
    # a long message is not wrapped, whatever the terminal width
    assert len(proc.stderr.splitlines()[0]) > 80
    proc = _run("play", "tic_tac_toe", "--player2", "random", stdin="")
    assert proc.returncode == 1
    assert proc.stderr.strip() == "game abandoned"
    assert "Traceback" not in proc.stderr


def test_play_pig_with_three_players_and_dice() -> None:
    args = ["play", "pig", "-p", "players=3", "-p", "target=15", "--chance-seed", "3"]
    out = ok(*args, "--player", "random", "--player", "pig-hold:at=5", "--player", "random").stdout
    assert "chance: Roll" in out and out.strip().splitlines()[-1].count("wins") == 1
    again = ok(*args, "--player", "random", "--player", "pig-hold:at=5", "--player", "random")
    assert again.stdout == out  # the same seeds: the same game


def test_play_a_card_game_with_ismcts() -> None:
    out = ok(
        "play", "kuhn_poker", "--player", "ismcts:iterations=50", "--player", "pimc:iterations=50"
    ).stdout
    assert "chance: Deal:" in out and "ismcts" in out


def test_play_needs_one_player_per_seat() -> None:
    message = assert_user_error(invoke("play", "pig", "-p", "players=3", "--player", "random"))
    assert "pig has 3 players, got 1" in message


def test_search_says_when_mcts_saw_hidden_cards() -> None:
    result = ok("search", "kuhn_poker", "--moves", "0,2", "--iterations", "100")
    assert "hides information" in result.stderr


def test_a_human_at_a_card_game_sees_only_its_own_cards() -> None:
    """Kuhn poker, the human in seat 1: the deals are not named, and what it is shown
    before its move is its own card, the pot and the betting in words (the state's
    human_view), not the whole table; the cards are shown at the end."""
    result = ok(
        "play", "kuhn_poker", "--player", "ismcts:iterations=50", "--player", "human",
        "--chance-seed", "1", input="Pass\nPass\nBet\n",
    )  # fmt: skip
    out = result.stdout
    assert "chance: 2 hidden deals" in out and "Deal:" not in out
    before_move, after = out.split("player 2 to move")
    assert "You are player 2; your card: K (low to high: J Q K)" in before_move
    assert "Pot: 2 chips (player 1: 1, player 2: 1)" in before_move
    assert "Betting: player 1 checks; player 2 to act" in before_move
    assert "Cards:" not in before_move and "player 1 Q" not in before_move  # seat 1: the Q
    assert "Cards: player 1 Q, player 2 K" in after


def test_search_says_whose_value_and_which_one() -> None:
    # The table's value and the chosen move's are one number (the move's, for the
    # player to move); the position's mean is named as such.
    out = ok("search", "connect_four", "--moves", "3,3,4", "--iterations", "2000").stdout
    assert "value for o" in out  # the table's column
    line = next(ln for ln in out.splitlines() if ln.startswith("chosen move:"))
    chosen = line.split()[2]
    row = next(ln for ln in out.splitlines() if ln.startswith(f"│ {chosen} "))
    table_value = row.split("│")[3].strip()
    assert f"value for o: move {table_value}, position " in line


def test_a_proven_move_prints_its_proven_value() -> None:
    out = ok(
        "search", "tic_tac_toe", "--moves", "0,3,1,4", "--iterations", "2000", "solver=1"
    ).stdout
    line = next(ln for ln in out.splitlines() if ln.startswith("chosen move:"))
    assert "move +1 (proven win), position proven: win" in line
    played = ok(
        "play", "tic_tac_toe", "--player1", "minimax", "--player2", "mcts:time=0.2,solver=1"
    ).stdout
    summaries = [ln for ln in played.splitlines() if ln.strip().startswith("mcts:")]
    assert summaries and all("value 0 (proven draw) for o" in ln for ln in summaries[-2:])


def test_play_counts_players_from_one_for_people() -> None:
    # Pig's str(state) is OpenSpiel's ("Current player: 0"); people see its human_view.
    out = ok("play", "pig", "-p", "target=10", "--player1", "random", "--player2", "random").stdout
    assert "Current player:" not in out
    assert "Scores: player 1 0, player 2 0; target 10" in out
    assert "player 0" not in out
    whist = ok(
        "play", "knockout_whist", "-p", "players=3",
        "--player", "random", "--player", "random", "--player", "random",
    ).stdout  # fmt: skip
    assert "player 0" not in whist and "player 3" in whist


def test_tables_written_to_a_pipe_are_not_cut_at_80_columns(tmp_path: Path) -> None:
    # rich cuts a table to 80 columns off a terminal: the intervals ended in "…".
    result = runner.invoke(
        app,
        [
            "analyze", "connect_four", "--player", "mcts:iterations=20", "--games", "4",
            "--workers", "1", "--no-progress", "--db", str(tmp_path / "a.db"),
        ],
        env={"COLUMNS": None},  # type: ignore[dict-item]
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "…" not in result.stdout
    assert "(0.51-1.00)" in result.stdout or "(0.00-0.49)" in result.stdout
