"""The arena's headline match: MCTS against the course's reference AI on Connect Four.

Run ``python benchmarks/arena_connect_four.py [--games N] [--time S] [--workers W]``.

``minimax:depth=4`` (alpha-beta to depth 4 with Connect Four's open-windows
heuristic) plays the compiled MCTS engine (``mcts:solver=1,c=0.5,reuse_tree=1``,
a time budget of ``S`` seconds a move) through ``mctslab arena``: colours swapped
in pairs, 2 random opening plies per pair (the same for both games of a pair) so
that the pairs differ, every move timed against the limit. The games go to
``benchmarks/results/arena_connect_four.db``; the summary (score with its 95%
interval, Elo difference, move times, overruns) to ``arena_connect_four.json``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--time", type=float, default=0.5, help="seconds a move")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)
    RESULTS.mkdir(exist_ok=True)
    db = RESULTS / "arena_connect_four.db"
    db.unlink(missing_ok=True)
    for suffix in ("-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    cmd = [
        sys.executable, "-m", "mctslab", "arena", "connect_four",
        "--player", "mcts=mcts:solver=1,c=0.5,reuse_tree=1",
        "--player", "minimax4=minimax:depth=4",
        "--games", str(args.games), "--time-per-move", str(args.time),
        "--openings", "2", "--seed", str(args.seed), "--workers", str(args.workers),
        "--db", str(db), "--json",
    ]  # fmt: skip
    print(" ".join(cmd[2:]), flush=True)
    done = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
    if done.returncode != 0:
        return done.returncode
    report = json.loads(done.stdout)
    report["command"] = "mctslab " + " ".join(cmd[3:])
    (RESULTS / "arena_connect_four.json").write_text(json.dumps(report, indent=2) + "\n")
    subprocess.run([sys.executable, "-m", "mctslab", "ratings", "--db", str(db)], check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
