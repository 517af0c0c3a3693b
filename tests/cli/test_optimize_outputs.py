"""``mctslab optimize``'s files and lines: outputs written whole or not at all (a full
disk leaves the file that was there intact, the table is shown first, one ``error:``
line), outputs that would hang or clash refused before the runs, the live line as plain
lines off a terminal, what SA and the GA count, and one seed's mean without an interval.
"""

from __future__ import annotations

import errno
import io
import json
import os
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from mctslab.cli.main import app
from mctslab.cli.optimize import _Live
from mctslab.games.tsp import read_tour
from mctslab.players.optimizers import parse_optimizer
from mctslab.search.single.result import Improvement

runner = CliRunner()
BASE = ["optimize", "tsp", "-p", "instance=random:9:4", "--playouts", "300"]


def no_space(*args: Any, **kwargs: Any) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.mark.parametrize("option", ["--out", "--tour", "--svg", "--plot"])
def test_a_full_disk_leaves_the_old_file_intact_and_the_table_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, option: str
) -> None:
    old = tmp_path / "old.file"
    old.write_text("the earlier run's result\n")
    # The data is written and flushed, then synced: a full disk fails there at the latest.
    monkeypatch.setattr(os, "fsync", no_space)
    game = ["samegame", "-p", "rows=5", "-p", "columns=5"] if option == "--svg" else BASE[1:4]
    args = ["optimize", *game, "--playouts", "300", "--search", "random", option, str(old)]
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert old.read_text() == "the earlier run's result\n"  # not truncated, not replaced
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.file"]  # no temporary left
    assert "random" in result.stdout and "best" in result.stdout  # the table came first
    lines = result.stderr.strip().splitlines()
    assert lines[-1].startswith("error: cannot write " + option), lines
    assert "No space left on device" in lines[-1] and "left as it was" in lines[-1]
    assert "Traceback" not in result.output


def test_the_files_are_written_whole(tmp_path: Path) -> None:
    out, tour, plot = tmp_path / "best.json", tmp_path / "best.tour", tmp_path / "curve.png"
    out.write_text("old")
    args = [*BASE, "--search", "exact", "--out", str(out), "--tour", str(tour),
            "--plot", str(plot), "--quiet"]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert data["search"] == "exact" and len(data["sequence"]) == 8
    assert len(read_tour(tour, dimension=9).tour) == 9
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["best.json", "best.tour", "curve.png"]


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda p: os.mkfifo(p), "not a regular file"),
        (lambda p: p.mkdir(), "is a directory"),
    ],
)
def test_an_output_that_would_hang_or_fail_is_refused_before_the_runs(
    tmp_path: Path, make: Any, words: str
) -> None:
    target = tmp_path / "target"
    make(target)
    for option in ("--out", "--tour", "--svg", "--plot"):
        game = ["samegame"] if option == "--svg" else BASE[1:4]
        result = runner.invoke(app, ["optimize", *game, "--playouts", "5", option, str(target)])
        assert result.exit_code == 2, (option, result.output)
        assert result.stdout == ""  # refused before any run
        line = result.stderr.strip()
        assert line.startswith(f"error: {option}") and words in line and "\n" not in line, line


def test_two_outputs_naming_one_file_are_refused(tmp_path: Path) -> None:
    same = str(tmp_path / "x")
    result = runner.invoke(app, [*BASE, "--out", same, "--plot", same])
    assert result.exit_code == 2
    assert "--out and --plot name the same file" in result.stderr


def test_off_a_terminal_the_live_line_is_one_plain_line_a_run() -> None:
    result = runner.invoke(app, [*BASE, "--search", "nrpa:level=1", "--search", "sa",
                                 "--search", "ga", "--search", "nn", "--seeds", "2"])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "\r" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 8, lines  # 4 searches x 2 seeds, one line each
    assert lines[0].startswith("nrpa:level=1 seed 0: best ") and "300 playouts in" in lines[0]
    sa = [line for line in lines if line.startswith("sa seed")]
    assert all("300 moves in" in line for line in sa), sa  # SA counts its 2-opt moves
    assert all("300 generations in" in line for line in lines if line.startswith("ga seed"))
    assert "playouts" not in " ".join(sa) and "(0 playouts)" not in result.stderr
    assert all("found at" not in line for line in lines if line.startswith("nn seed"))


def test_on_a_terminal_the_live_line_is_rewritten_in_place(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    tty = Tty()
    monkeypatch.setattr("sys.stderr", tty)
    live = _Live(True)
    opt = parse_optimizer("nrpa:level=1")
    live.improved(opt, 0, Improvement(0.5, 12, -700.0))
    live.improved(opt, 0, Improvement(0.75, 1234, -650.0))
    from mctslab.games.tsp import TSP

    result = opt.run(TSP("random:6:1").new_initial_state(), playouts=20)
    live.ended(opt, 0, result)
    text = tty.getvalue()
    assert text.startswith("\rnrpa:level=1 seed 0: best -700 at 0.50 s (12 playouts)")
    assert "\rnrpa:level=1 seed 0: best -650 at 0.75 s (1,234 playouts)" in text
    assert text.endswith(f" in {result.seconds:.2f} s\n") and text.count("\n") == 1
    last = text.rsplit("\r", 1)[1]
    assert len(last.rstrip("\n")) >= len(
        "nrpa:level=1 seed 0: best -650 at 0.75 s (1,234 playouts)"
    )
    assert not _Live(False).enabled


def test_one_seed_prints_no_interval_and_sa_its_moves_a_second() -> None:
    # A wide table: at 80 columns (a worker of the suite that looks like a terminal or a
    # notebook to rich) the cell "-427 (1 seed, no interval)" wraps onto two lines.
    wide = {"COLUMNS": "200"}
    result = runner.invoke(app, [*BASE, "--search", "sa", "--search", "nn", "--quiet"], env=wide)
    assert result.exit_code == 0, result.output
    assert "(1 seed, no interval)" in result.stdout
    assert "best of 1 seed," in result.stdout
    assert " moves" in result.stdout  # SA's rate is in moves a second
    json_result = runner.invoke(app, [*BASE, "--search", "sa", "--quiet", "--json"])
    row = json.loads(json_result.stdout)["rows"][0]
    assert row["low"] is None and row["high"] is None and row["counts"] == "moves"
    assert row["runs"][0]["playouts"] == 300
    two = runner.invoke(app, [*BASE, "--search", "random", "--quiet", "--seeds", "2", "--json"])
    row = json.loads(two.stdout)["rows"][0]
    assert row["low"] <= row["mean"] <= row["high"]
