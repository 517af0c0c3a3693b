"""UCB1-Tuned against UCT at Connect Four, at equal iterations, through ``mctslab tune``.

Run ``python benchmarks/selection_rules.py [--games N] [--iterations K] [--part NAME ...]``.

Two parts, each one ``mctslab tune`` command (the games are iteration-bounded, so the
numbers do not depend on the machine's speed or load), ``--games`` games a value
(default 2,000), colours swapped in pairs, the same seed pairs for every value:

``paper``
    Each rule as its paper gives it: UCB1-Tuned with ``c = 1`` (Auer, Cesa-Bianchi and
    Fischer 2002) against UCT with ``c = sqrt 2`` (UCB1; mctslab's default)::

        mctslab tune connect_four --param c=1.0 \\
            --player mcts:iterations=1000,selection=ucb1-tuned \\
            --opponent mcts:iterations=1000 --games 2000 --seed 0 --json

``tuned``
    UCB1-Tuned at several ``c`` against UCT at its best ``c`` at Connect Four
    (``c = 0.5``: ``benchmarks/tune_connect_four.py``)::

        mctslab tune connect_four --param c=0.25,0.5,1.0,1.41,2.0 \\
            --player mcts:iterations=1000,selection=ucb1-tuned \\
            --opponent mcts:iterations=1000,c=0.5 --games 2000 --seed 0 --json

Writes ``benchmarks/results/selection_rules.json`` (each part: the command, its JSON
result with every value's wins, draws, losses, score and 95% interval, the wall time,
date, machine and versions). The games go to a temporary results store unless ``--db``
names one (then ``--resume`` continues an interrupted run). About 10 minutes on 2 cores at the defaults. Exits 0 whatever it measures, with
the command's status if a command fails.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import common

RESULTS = Path(__file__).resolve().parent / "results"
OUT = RESULTS / "selection_rules.json"

#: part -> (grid, UCB1-Tuned's base spec, opponent spec); ``{n}`` is the iterations.
PARTS = {
    "paper": ("c=1.0", "mcts:iterations={n},selection=ucb1-tuned", "mcts:iterations={n}"),
    "tuned": (
        "c=0.25,0.5,1.0,1.41,2.0",
        "mcts:iterations={n},selection=ucb1-tuned",
        "mcts:iterations={n},c=0.5",
    ),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="games per value")
    parser.add_argument("--iterations", type=int, default=1000, help="iterations a move")
    parser.add_argument("--part", nargs="+", choices=list(PARTS), default=list(PARTS))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=None, help="default: all cores")
    parser.add_argument("--db", type=Path, default=None, help="keep the games in this store")
    parser.add_argument("--resume", action="store_true", help="continue the runs in --db")
    parser.add_argument("--output", type=Path, default=OUT)
    args = parser.parse_args(argv)

    for part in args.part:
        grid, player, opponent = PARTS[part]
        command = ["tune", "connect_four", "--param", grid,
                   "--player", player.format(n=args.iterations),
                   "--opponent", opponent.format(n=args.iterations),
                   "--games", str(args.games), "--seed", str(args.seed),
                   "--json", "--no-progress"]  # fmt: skip
        if args.workers is not None:
            command += ["--workers", str(args.workers)]
        if args.resume:
            command.append("--resume")
        with tempfile.TemporaryDirectory() as tmp:
            proc, wall = common.run_mctslab(command, args.db or Path(tmp) / "rules.db")
        if proc.returncode != 0:
            print(proc.stderr, file=sys.stderr)
            return proc.returncode
        result = json.loads(proc.stdout)
        shown = "mctslab " + " ".join(command)
        common.save_part(
            args.output,
            part,
            {"command": shown, "wall_seconds": wall, "result": result},
            ("mctslab", "numba"),
        )
        print(
            f"{part}: UCB1-Tuned ({player.format(n=args.iterations)}) "
            f"vs {opponent.format(n=args.iterations)}"
        )
        for v in result["values"]:
            print(
                f"  c={v['value']:<5} {v['wins']:>4}-{v['draws']}-{v['losses']:<4} "
                f"score {v['score']:.3f} [{v['low']:.3f}, {v['high']:.3f}]"
            )
        print(f"  {result['verdict']} ({wall:.0f} s)")
    print(f"results written to {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
