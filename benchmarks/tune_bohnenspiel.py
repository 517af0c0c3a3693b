"""Tuning MCTS for Bohnenspiel against the course's reference AI with ``mctslab tune``.

Run ``python benchmarks/tune_bohnenspiel.py [--only SWEEP ...] [--games N] [--workers W]``.
Each sweep is one command, the opponent always the reference AI ``minimax:depth=4``::

    mctslab tune bohnenspiel --param GRID --player SPEC --opponent minimax:depth=4 \\
        --games 40 --openings 2 --seed 0 --json

``--games`` games a value (default 40), colours swapped in pairs, two random opening
plies a pair, the same seeds for every value (paired comparison). The sweeps
(:data:`SWEEPS`):

- ``random_1000``: random playouts to the end, 1,000 iterations a move, c from 0.25
  to 1.5;
- ``cutoff4_1000`` and ``cutoff8_1000``: cut-off playouts (``simulation=cutoff``, 4 or
  8 random plies, then the store difference), 1,000 iterations a move, the same c;
- ``time_0.02``: random playouts with MCTS-Solver at 0.02 s a move (the MCTS side's
  own time limit, ``time=0.02``; the reference AI unlimited), c from 0.1 to 1.4.

The first three use iteration budgets: their games do not depend on the machine's speed
or load. ``time_0.02`` does (a time budget): run it on a quiet machine. Every sweep
writes its part of ``benchmarks/results/tune_bohnenspiel.json`` (the command's
``--json`` output: each value's W-D-L, score and 95% interval, the best value and
the verdict; with the command, wall time, date, machine and versions), keeping the
other parts. The games go to a temporary store. It exits 0 whatever it measures, and
with the command's status if a command fails.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import run_mctslab, save_part

OUT = Path(__file__).resolve().parent / "results" / "tune_bohnenspiel.json"
OPPONENT = "minimax:depth=4"
SWEEPS: dict[str, tuple[str, str]] = {  # name: (--param grid, --player base spec)
    "random_1000": ("c=0.25:1.5:0.25", "mcts:iterations=1000"),
    "cutoff4_1000": ("c=0.25:1.5:0.25", "mcts:iterations=1000,simulation=cutoff,cutoff_depth=4"),
    "cutoff8_1000": ("c=0.25:1.5:0.25", "mcts:iterations=1000,simulation=cutoff,cutoff_depth=8"),
    "time_0.02": ("c=0.1,0.2,0.3,0.5,0.75,1.0,1.4", "mcts:time=0.02,solver=1"),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=list(SWEEPS), action="append", help="these sweeps")
    parser.add_argument("--games", type=int, default=40, help="games per value")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--output", type=Path, default=OUT, help="where to write the JSON")
    args = parser.parse_args(argv)

    for name in args.only or list(SWEEPS):
        grid, player = SWEEPS[name]
        command = ["mctslab", "tune", "bohnenspiel", "--param", grid, "--player", player,
                   "--opponent", OPPONENT, "--games", str(args.games), "--openings", "2",
                   "--seed", str(args.seed), "--workers", str(args.workers),
                   "--json", "--no-progress"]  # fmt: skip
        with tempfile.TemporaryDirectory() as tmp:
            proc, wall = run_mctslab(command[1:], Path(tmp) / "tune.db")
        if proc.returncode != 0:
            print(proc.stderr, file=sys.stderr)
            return proc.returncode
        result = json.loads(proc.stdout)
        print(f"{name}: {player}, {grid}")
        for v in result["values"]:
            mark = " *" if v["value"] == result["best"] else ""
            print(
                f"  c={v['value']:<5} {v['wins']:>3}-{v['draws']}-{v['losses']:<3} "
                f"{v['score']:.3f} [{v['low']:.3f}, {v['high']:.3f}]{mark}"
            )
        print(f"  {result['verdict']} ({wall:.0f} s)")
        data = {
            "command": shlex.join(command),
            "timed": "time=" in player,
            "wall_seconds": wall,
            "result": result,
        }
        save_part(args.output, name, data, ("mctslab", "numba"))
    print(f"results written to {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
