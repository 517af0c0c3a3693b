"""Proofs: the compiled engine's MCTS-Solver on John Tromp / Pascal Pons's Test_L3_R1 set.

Run ``python benchmarks/prove_connect_four.py [--limit N] [--time S]``.

Each of the 1000 end-game positions of ``tests/data/connect4_Test_L3_R1.txt`` (a line is
``<moves as 1-based columns> <score>``; the sign of the score is the exact outcome for the
side to move) is searched by ``CompiledMCTS(SearchConfig(time=S, iterations=None,
solver=True, seed=i))``. A position counts as proven when the search proves its root within
the budget; the proof must equal the exact outcome. The run reports how many were proven
correctly, how many stayed unproven, how many were wrong, and the time and iterations to
proof; it writes ``benchmarks/results/prove_connect_four.json`` and exits 1 on any wrong
proof (0 otherwise: an unproven position is a measurement, not a failure).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import mctslab
from mctslab.search.compiled import CompiledMCTS
from mctslab.search.config import SearchConfig

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "connect4_Test_L3_R1.txt"
RESULTS = Path(__file__).resolve().parent / "results" / "prove_connect_four.json"


def load_positions(path: Path = DATA) -> list[tuple[str, list[int], int]]:
    """(moves as written, actions 0-based, outcome for the side to move) per line."""
    rows = []
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        moves, score = line.split()
        s = int(score)
        rows.append((moves, [int(ch) - 1 for ch in moves], (s > 0) - (s < 0)))
    return rows


def quantile(xs: list[float], q: float) -> float:
    """The ``q`` quantile by linear interpolation between order statistics."""
    ys = sorted(xs)
    pos = q * (len(ys) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(ys) - 1)
    return ys[lo] + (ys[hi] - ys[lo]) * (pos - lo)


def stats(xs: list[float]) -> dict[str, float] | None:
    if not xs:
        return None
    return {
        "median": statistics.median(xs),
        "mean": statistics.fmean(xs),
        "p90": quantile(xs, 0.9),
        "p99": quantile(xs, 0.99),
        "max": max(xs),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="first N positions only")
    parser.add_argument("--time", type=float, default=1.0, help="seconds per position")
    parser.add_argument("--output", type=Path, default=RESULTS, help="where to write the JSON")
    args = parser.parse_args(argv)

    game = mctslab.make("connect_four")
    positions = load_positions()[: args.limit]
    started = time.perf_counter()
    compile_seconds = 0.0
    rows: list[dict[str, Any]] = []
    counts = {"correct": 0, "unproven": 0, "wrong": 0}
    by_outcome: dict[int, dict[str, int]] = {
        o: {"correct": 0, "unproven": 0, "wrong": 0} for o in (1, 0, -1)
    }
    for i, (moves, actions, outcome) in enumerate(positions):
        state = game.state_from_actions(actions)
        searcher = CompiledMCTS(SearchConfig(time=args.time, iterations=None, solver=True, seed=i))
        result = searcher.search(state)
        compile_seconds += result.compile_seconds
        if result.proven is None:
            verdict = "unproven"
        elif result.proven == outcome:
            verdict = "correct"
        else:
            verdict = "wrong"
        counts[verdict] += 1
        by_outcome[outcome][verdict] += 1
        rows.append(
            {
                "index": i,
                "moves": moves,
                "outcome": outcome,
                "proven": result.proven,
                "verdict": verdict,
                "action": result.action,
                "seconds": result.seconds,
                "iterations": result.iterations,
                "nodes": result.nodes,
                "stopped_by": result.stopped_by,
            }
        )
        if verdict != "correct":
            print(
                f"position {i:>4} {moves} outcome {outcome:+d}: {verdict.upper()} "
                f"(proven {result.proven}, {result.iterations} iterations, "
                f"{result.seconds:.3f} s)",
                flush=True,
            )
        if (i + 1) % 100 == 0 or i + 1 == len(positions):
            print(
                f"{i + 1:>4}/{len(positions)}  correct {counts['correct']}  "
                f"unproven {counts['unproven']}  wrong {counts['wrong']}",
                flush=True,
            )

    proven_rows = [r for r in rows if r["verdict"] == "correct"]
    seconds = [r["seconds"] for r in proven_rows]
    iterations = [float(r["iterations"]) for r in proven_rows]
    report: dict[str, Any] = {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "machine": {"cpu_count": os.cpu_count(), "platform": platform.platform()},
        "mctslab": mctslab.__version__,
        "settings": {
            "data": str(DATA.relative_to(ROOT)),
            "positions": len(positions),
            "seconds_per_position": args.time,
            "config": "CompiledMCTS(SearchConfig(time=S, iterations=None, solver=True, "
            "seed=i)), c=sqrt(2), expansion='one', simulation='random'",
        },
        "counts": counts,
        "by_outcome": {str(o): v for o, v in by_outcome.items()},
        "seconds_to_proof": stats(seconds),
        "iterations_to_proof": stats(iterations),
        "compile_or_load_seconds": compile_seconds,
        "benchmark_seconds": time.perf_counter() - started,
        "positions": rows,
    }
    n = len(positions)
    print()
    print(f"Test_L3_R1: {n} positions, {args.time} s each, compiled engine with MCTS-Solver")
    print(f"  proven correctly   {counts['correct']:>5}  ({counts['correct'] / max(n, 1):.1%})")
    print(f"  unproven in budget {counts['unproven']:>5}")
    print(f"  wrong proofs       {counts['wrong']:>5}  (must be 0)")
    for o, name in ((1, "wins"), (0, "draws"), (-1, "losses")):
        v = by_outcome[o]
        print(
            f"  {name:<7} for the mover: {sum(v.values()):>4} positions, "
            f"{v['correct']} proven, {v['unproven']} unproven, {v['wrong']} wrong"
        )
    for label, st, unit in (
        ("time to proof", report["seconds_to_proof"], "s"),
        ("iterations to proof", report["iterations_to_proof"], ""),
    ):
        if st is None:
            continue
        fmt = ".4f" if unit else ".0f"
        print(
            f"  {label:<20} median {st['median']:{fmt}}{unit}  mean {st['mean']:{fmt}}{unit}  "
            f"p90 {st['p90']:{fmt}}{unit}  p99 {st['p99']:{fmt}}{unit}  "
            f"max {st['max']:{fmt}}{unit}"
        )
    print(f"  compile/load time {compile_seconds:.2f} s (not counted in the times to proof)")
    print(f"  total run time {report['benchmark_seconds']:.1f} s")
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n")
    print(f"\nresults written to {args.output}")
    return 1 if counts["wrong"] else 0


if __name__ == "__main__":
    sys.exit(main())
