"""What a new user meets first on the command line: ``--version``, help that shows no
type after a flag, and the small outputs the first-contact trial found wrong."""

from __future__ import annotations

import re

from typer.testing import CliRunner, Result

from mctslab import __version__
from mctslab.cli.main import app

runner = CliRunner()


def ok(*args: str) -> Result:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    return result


def test_version_prints_mctslab_and_its_runtime() -> None:
    line = ok("--version").stdout.strip()
    assert re.fullmatch(
        rf"mctslab {re.escape(__version__)} \(Python 3\.\d+\.\d+, numba \S+, numpy \S+\)", line
    ), line


def test_help_shows_no_type_after_a_flag() -> None:
    for command in ((), ("games",), ("arena",), ("search",), ("train",)):
        text = ok(*command, "--help").stdout
        assert "<bool>" not in text, command
        assert "--help" in text
    assert "<int>" in ok("arena", "--help").stdout  # options that take a value keep theirs


def test_a_human_at_go_is_black_and_is_not_shown_82_moves_a_prompt() -> None:
    args = [
        "play",
        "go",
        "-p",
        "board_size=9",
        "--player1",
        "human",
        "--player2",
        "random",
        "--seed",
        "1",
    ]
    result = runner.invoke(app, args, input="z9\n?\ne5\n")
    out = result.stdout
    prompts = out.count("your move (82 legal moves, ? lists them)")
    assert prompts >= 3, out
    assert "unknown action 'z9' in go; ? lists the legal moves" in out
    assert out.count("B a1, B b1") == 1  # listed once: when asked with ?
    assert "Black (human) plays B e5" in out and "White (random) plays" in out
    assert "player 1" not in out and "player 2" not in out


def test_search_takes_move_names_and_shows_the_top_moves() -> None:
    out = ok(
        "search", "go", "-p", "board_size=9", "--moves", "e5,d4", "--iterations", "60",
        "--engine", "reference", "--top", "3",
    ).stdout  # fmt: skip
    rows = [line for line in out.splitlines() if line.startswith("│ B ")]
    assert len(rows) == 3, out
    assert re.search(r"^\+\d+ more moves \(\d+ visits\): --top N shows more$", out, re.M), out
    assert "Black to move" in out
    bad = runner.invoke(app, ["search", "go", "--moves", "e5,zz"])
    assert bad.exit_code == 2
    assert "move 2, 'zz', is neither an action id" in bad.stderr
    # Ids and names mix; a number is an id (Connect Four's column names are numbers too).
    same = ok("search", "go", "-p", "board_size=9", "--moves", "40,d4", "--iterations", "60",
              "--engine", "reference", "--top", "3").stdout  # fmt: skip
    assert [line for line in same.splitlines() if line.startswith("│")] == [
        line for line in out.splitlines() if line.startswith("│")
    ]


def test_the_training_table_lines_up_and_says_what_compiling_took(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from conftest import require_extra

    require_extra("torch", "nn")
    args = [
        "train", "tic_tac_toe", "--out", str(tmp_path / "run"), "--generations", "3",
        "--games-per-generation", "4", "--parallel-games", "4", "--simulations", "4",
        "--channels", "8", "--blocks", "1", "--hidden", "8", "--eval-games", "0",
        "--seed", "1", "--no-progress",
    ]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, (result.stdout, result.stderr)
    text = result.stdout + result.stderr
    assert re.search(r"engine ready in \d+\.\d s \(compiled or loaded", text), text
    rows = [line for line in text.splitlines() if re.match(r"^\s*[123]\s+4\s", line)]
    assert len(rows) == 3, text
    header = next(line for line in text.splitlines() if "pos/s" in line)
    ends = {line.rstrip().rindex("-") for line in rows}  # the scores column, "-" each
    assert len(ends) == 1 and header.index("scores") == min(ends), (header, rows)
