"""A playtesting report of Connect Four from self-play, with ``mctslab analyze``.

Run ``python benchmarks/analyze_connect_four.py [--games N] [--player SPEC ...]``. By
default it runs::

    mctslab analyze connect_four --player mcts:iterations=100 --player mcts:iterations=1000 \\
        --player mcts:iterations=10000 --games 1000 --seed 0 --out ... --json

1000 self-play games at each of three strengths, ten times apart: the first player's
win/draw/loss rates, game lengths, legal actions by ply, the common openings and how the
first player's advantage grows with strength (Connect Four is a first-player win with
perfect play: Allis 1988, Allen 1989). About 5 minutes on 2 cores; iteration budgets,
so the numbers do not depend on the machine's speed or load.

It writes ``benchmarks/results/analyze_connect_four.json`` (the command's ``--json``
output with the date, machine, versions and wall time) and the PNGs
``analyze_connect_four_{lengths,branching,first_player}.png``. It exits 0 whatever it
measures, and with the command's status if the command fails.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import shlex
import shutil
import sys
import tempfile
from pathlib import Path

import common
from tune_connect_four import RESULTS, machine

DEFAULT_PLAYERS = ["mcts:iterations=100", "mcts:iterations=1000", "mcts:iterations=10000"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--player", action="append", default=None, help="a strength (repeatable)")
    parser.add_argument("--games", type=int, default=1000, help="games per strength")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=None, help="default: all cores")
    parser.add_argument("--output-dir", type=Path, default=RESULTS)
    args = parser.parse_args(argv)

    players = args.player or DEFAULT_PLAYERS
    args.output_dir.mkdir(parents=True, exist_ok=True)
    out = args.output_dir / "analyze_connect_four.json"
    with tempfile.TemporaryDirectory() as tmp:
        command = ["mctslab", "analyze", "connect_four"]
        for p in players:
            command += ["--player", p]
        command += ["--games", str(args.games), "--seed", str(args.seed), "--out", "REPORT_DIR",
                    "--json", "--no-progress"]  # fmt: skip
        if args.workers is not None:
            command += ["--workers", str(args.workers)]
        argv_real = [str(Path(tmp) / "report") if a == "REPORT_DIR" else a for a in command[1:]]
        proc, wall = common.run_mctslab(argv_real, Path(tmp) / "analyze.db", shown=command[1:])
        if proc.returncode != 0:
            print(proc.stderr, file=sys.stderr)
            return proc.returncode
        for name in ("lengths", "branching", "first_player"):
            shutil.copy(
                Path(tmp) / "report" / f"{name}.png",
                args.output_dir / f"analyze_connect_four_{name}.png",
            )
        text = (Path(tmp) / "report" / "report.txt").read_text()
    result = json.loads(proc.stdout)
    result.pop("files", None)
    report = {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "machine": machine(),
        "command": shlex.join(command),
        "wall_seconds": wall,
        "result": result,
    }
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(text)
    print(f"{wall:.0f} s; results written to {out} and the PNGs beside it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
