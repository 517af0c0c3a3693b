"""The Bohnenspiel course project's pass criterion: MCTS against the reference AI.

Run ``python benchmarks/bohnenspiel_vs_minimax.py [--time S] [--games N] [--workers W]``.

The course's reference AI, ``minimax:depth=4`` (alpha-beta to depth 4 scoring
the store difference), plays mctslab's best MCTS configuration for Bohnenspiel
(:data:`SPEC`: random playouts to the end of the game, ``c=0.3``,
MCTS-Solver, tree reuse; see docs/bohnenspiel.md for how it was
chosen) at ``S`` seconds a move, through ``mctslab
arena``: ``N`` games, colours swapped in pairs, so ``N / 2`` with MCTS moving
first and ``N / 2`` second; 2 random opening plies per pair (the same for both
games of a pair) so that the pairs differ; every move timed against the limit,
with 2 games at once (``--workers``: one core each). The project passes with
at least 90% wins on each side (:data:`TARGET`).

The games go to ``benchmarks/results/bohnenspiel_vs_minimax_<S>s.db``; the
summary to ``bohnenspiel_vs_minimax_<S>s.json``: wins, draws and losses of MCTS
per side with Wilson 95% intervals on the win rate, game lengths, games ended by
the ply limit (``mctslab.games.bohnenspiel.MAX_PLIES``), move times and
overruns, the date and the machine. ``--resume`` continues an interrupted run.
Another MCTS configuration (``--spec``) is measured with ``--name NAME``, which
writes ``bohnenspiel_vs_minimax_<S>s_NAME.*`` instead: the configuration first tried,
``--spec mcts:simulation=cutoff,cutoff_depth=8,c=0.5,solver=1,reuse_tree=1 --name
cutoff``, is the comparison of docs/bohnenspiel.md.
The script exits 0 whatever it measures (benchmarks record, tests assert).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

from mctslab.arena.store import ResultStore
from mctslab.games.bohnenspiel import MAX_PLIES

RESULTS = Path(__file__).resolve().parent / "results"
SPEC = "mcts:c=0.3,solver=1,reuse_tree=1"
REFERENCE = "minimax:depth=4"
TARGET = 0.9
Z95 = 1.959963984540054


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval for ``successes`` out of ``n`` trials."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def side_summary(scores: list[float]) -> dict[str, Any]:
    """Wins, draws, losses of MCTS on one side, its win rate and score with 95% intervals."""
    n = len(scores)
    wins = sum(1 for s in scores if s == 1.0)
    draws = sum(1 for s in scores if s == 0.5)
    win_rate = wins / n if n else 0.0
    score = sum(scores) / n if n else 0.0
    return {
        "games": n,
        "wins": wins,
        "draws": draws,
        "losses": n - wins - draws,
        "win_rate": win_rate,
        "win_rate_95": wilson(wins, n),
        "score": score,
        "score_95": wilson(sum(scores), n),
        "pass": n > 0 and win_rate >= TARGET,
    }


def machine() -> dict[str, Any]:
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cpu": model or platform.processor(), "cores": os.cpu_count()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time", type=float, default=3.0, help="seconds a move")
    parser.add_argument("--games", type=int, default=40, help="games in all (half per side)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--openings", type=int, default=2)
    parser.add_argument("--spec", default=SPEC, help="the MCTS player")
    parser.add_argument(
        "--name", default="", help="a suffix of the files (another --spec: keep the main ones)"
    )
    parser.add_argument("--resume", action="store_true", help="continue an interrupted run")
    args = parser.parse_args(argv)
    RESULTS.mkdir(exist_ok=True)
    tag = f"{args.time:g}s" + (f"_{args.name}" if args.name else "")
    db = RESULTS / f"bohnenspiel_vs_minimax_{tag}.db"
    if not args.resume:
        for suffix in ("", "-wal", "-shm"):
            Path(str(db) + suffix).unlink(missing_ok=True)
    cmd = [
        sys.executable, "-m", "mctslab", "arena", "bohnenspiel",
        "--player", f"mcts={args.spec}", "--player", f"minimax4={REFERENCE}",
        "--games", str(args.games), "--time-per-move", str(args.time),
        "--openings", str(args.openings), "--seed", str(args.seed),
        "--workers", str(args.workers), "--db", str(db), "--json", "--no-progress",
    ]  # fmt: skip
    if args.resume:
        cmd.append("--resume")
    print(" ".join(cmd[2:]), flush=True)
    done = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
    if done.returncode != 0:
        return done.returncode
    arena = json.loads(done.stdout)
    with ResultStore(db) as store:
        run = store.runs("bohnenspiel")[-1]
        records = list(store.games([run.id]))
    first = [r.score_of("mcts") for r in records if r.seats[0] == "mcts"]
    second = [r.score_of("mcts") for r in records if r.seats[1] == "mcts"]
    plies = [len(r.moves) for r in records]
    report = {
        "date": dt.date.today().isoformat(),
        "machine": machine(),
        "command": "mctslab " + " ".join(cmd[3:]),
        "mcts": args.spec,
        "reference": REFERENCE,
        "time_per_move": args.time,
        "target": TARGET,
        "first": side_summary([s for s in first if s is not None]),
        "second": side_summary([s for s in second if s is not None]),
        "plies": {
            "median": statistics.median(plies) if plies else None,
            "max": max(plies, default=None),
            "at_limit": sum(1 for p in plies if p >= MAX_PLIES),
        },
        "errors": [r.error for r in records if r.error],
        "move_times": arena["move_times"],
        "arena": arena,
    }
    out = RESULTS / f"bohnenspiel_vs_minimax_{tag}.json"
    out.write_text(json.dumps(report, indent=2) + "\n")
    for side in ("first", "second"):
        s = report[side]
        lo, hi = s["win_rate_95"]
        verdict = "PASS" if s["pass"] else "MISS"
        print(
            f"MCTS as {side:6}: {s['wins']}-{s['draws']}-{s['losses']} (W-D-L), "
            f"wins {s['win_rate']:.0%} [{lo:.0%}, {hi:.0%}]  {verdict} (target {TARGET:.0%})"
        )
    print(f"written {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
