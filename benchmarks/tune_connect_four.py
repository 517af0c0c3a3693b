"""Tuning UCT's exploration constant ``c`` at Connect Four with ``mctslab tune``.

Run ``python benchmarks/tune_connect_four.py [--games N] [--grid c=...] [--workers W]``.
By default it runs::

    mctslab tune connect_four --param c=0.25:2.0:0.25 --player mcts:iterations=3000 \\
        --opponent mcts:iterations=3000,c=1.4 --games 1000 --seed 0 --plot ... --json

8 values of ``c`` x 1000 games against the same opponent (``c=1.4``, about ``sqrt 2``, the
default), colours swapped in pairs, the same 500 seed pairs for every value (paired
comparison). About 10 minutes on 2 cores. The budgets are iteration counts, so the games
(and the numbers) do not depend on the machine's speed or load.

It writes ``benchmarks/results/tune_connect_four.json`` (the command's ``--json`` output,
with the date, machine, versions and wall time) and ``tune_connect_four.png`` (score
against ``c`` with 95% error bars). The games go to a temporary results store unless
``--db`` names one (then ``--resume`` continues an interrupted run). It exits 0 whatever
it measures, and with the command's status if the command fails.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import shlex
import sys
import tempfile
from importlib import metadata
from pathlib import Path
from typing import Any

import common

RESULTS = Path(__file__).resolve().parent / "results"


def machine() -> dict[str, Any]:
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count() or 1
    return {
        "cores": cores,
        "platform": platform.platform(),
        "python": platform.python_version(),
        "mctslab": metadata.version("mctslab"),
        "numba": metadata.version("numba"),
        "load_average_at_end": list(os.getloadavg()),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grid", default="c=0.25:2.0:0.25", help="the --param grid")
    parser.add_argument("--player", default="mcts:iterations=3000", help="base spec")
    parser.add_argument("--opponent", default="mcts:iterations=3000,c=1.4")
    parser.add_argument("--games", type=int, default=1000, help="games per value")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=None, help="default: all cores")
    parser.add_argument("--db", type=Path, default=None, help="keep the games in this store")
    parser.add_argument("--resume", action="store_true", help="continue the run in --db")
    parser.add_argument("--output-dir", type=Path, default=RESULTS)
    args = parser.parse_args(argv)

    args.output_dir.mkdir(parents=True, exist_ok=True)
    png = args.output_dir / "tune_connect_four.png"
    out = args.output_dir / "tune_connect_four.json"
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or Path(tmp) / "tune.db"
        command = ["mctslab", "tune", "connect_four", "--param", args.grid,
                   "--player", args.player, "--opponent", args.opponent,
                   "--games", str(args.games), "--seed", str(args.seed),
                   "--plot", str(png), "--json", "--no-progress"]  # fmt: skip
        if args.workers is not None:
            command += ["--workers", str(args.workers)]
        if args.resume:
            command.append("--resume")
        proc, wall = common.run_mctslab(command[1:], db)
    if proc.returncode != 0:
        print(proc.stderr, file=sys.stderr)
        return proc.returncode
    result = json.loads(proc.stdout)
    report = {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "machine": machine(),
        "command": shlex.join(command),
        "wall_seconds": wall,
        "result": result,
    }
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"{'c':>6}  {'W-D-L':>11}  {'score':>6}  {'95% interval':>15}  {'Elo':>5}  P(best)")
    for v in result["values"]:
        elo = "inf" if v["elo"] is None else f"{round(v['elo']):+d}"
        mark = " *" if v["value"] == result["best"] else ""
        print(
            f"{v['value']:>6}  {v['wins']:>3}-{v['draws']}-{v['losses']:<3}  {v['score']:>6.3f}"
            f"  [{v['low']:.3f}, {v['high']:.3f}]  {elo:>5}  {v['p_best']:.2f}{mark}"
        )
    print(result["verdict"])
    print(f"{wall:.0f} s; results written to {out} and {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
