"""Morpion Solitaire record runs: the best game a search finds in an hour on this machine,
beside the records (5D: 82 moves, Rosin's NRPA 2010, and 80, Cazenave's NMCS 2009; 5T:
178, Rosin 2011, and 170 by hand, Bruneau 1976).

A run is ``--jobs`` processes (one a core), each searching for ``--hours`` of wall time in
*segments* of ``--segment`` seconds: a segment is one call of the search with its own
seed (``--seed`` + the segment's number), so a segment is a randomized restart, as the
searches' own restarts within a segment are. Every finished segment is written to
``benchmarks/results/morpion.json`` (part ``VARIANT``: the segments with their seed,
seconds, playouts, best score and moves, when it was found), so that a run killed
part-way continues where it stopped with the same command (the segments done are kept,
the segment that was cut is run again). The hour is each job's sum of segment seconds,
compile time excluded. The best game found is drawn to
``benchmarks/results/morpion_VARIANT.svg``.

    python benchmarks/bench_morpion.py --variant 5D --hours 1 --jobs 2
    python benchmarks/bench_morpion.py --variant 5T --hours 1 --jobs 2 --search nrpa:level=3
"""

from __future__ import annotations

import argparse
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from common import save_part

from mctslab.games.morpion import Morpion

OUT = Path(__file__).resolve().parent / "results" / "morpion.json"
RECORDS = {
    "5D": [("Rosin, NRPA, 2010", 82), ("Cazenave, NMCS, 2009", 80)],
    "5T": [("Rosin, NRPA, 2011", 178), ("Bruneau, by hand, 1976", 170)],
}


def segment(variant: str, spec: str, seed: int, seconds: float, job: int) -> dict[str, Any]:
    from mctslab.players.optimizers import parse_optimizer

    game = Morpion(variant)
    state = game.new_initial_state()
    result = parse_optimizer(spec).run(state, seed=seed, time=seconds)
    final = game.state_from_actions(list(result.sequence))
    assert final.is_terminal() and final.returns()[0] == result.score, "a broken game"
    return {
        "job": job, "seed": seed, "spec": spec, "seconds": result.seconds,
        "compile_seconds": result.compile_seconds, "playouts": result.playouts,
        "score": result.score, "found_seconds": result.found_seconds,
        "moves": list(result.sequence),
    }  # fmt: skip


def job_loop(
    variant: str, spec: str, first_seed: int, seconds: float, budget: float, job: int,
    jobs: int, done: list[dict[str, Any]], out: str,
) -> list[dict[str, Any]]:  # fmt: skip
    """One core's share: segments until its seconds reach ``budget`` (resuming ``done``)."""
    mine = [s for s in done if s["job"] == job]
    spent = sum(s["seconds"] for s in mine)
    k = len(mine)
    new = []
    while spent < budget - 1.0:
        seed = first_seed + job + jobs * k
        row = segment(variant, spec, seed, min(seconds, budget - spent), job)
        new.append(row)
        spent += row["seconds"]
        k += 1
        print(f"job {job} seed {seed}: {row['score']:g} moves (found at "
              f"{row['found_seconds']:.0f} s of {row['seconds']:.0f}); this job "
              f"{spent / 60:.1f} of {budget / 60:.1f} min", flush=True)  # fmt: skip
        _record(Path(out), variant, [row])
    return new


def _record(out: Path, variant: str, rows: list[dict[str, Any]]) -> None:
    """Append ``rows`` to the variant's part (read afresh: the jobs write in turn)."""
    import fcntl

    lock = out.with_suffix(".lock")
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        data = json.loads(out.read_text()).get(variant, {}) if out.exists() else {}
        segments = [*data.get("segments", []), *rows]
        best = max(segments, key=lambda s: s["score"])
        per_job: dict[str, float] = {}
        for s in segments:
            key = f"{s['spec']} job {s['job']}"
            per_job[key] = per_job.get(key, 0.0) + s["seconds"]
        save_part(
            out, variant,
            {"segments": segments, "best": best["score"], "best_moves": best["moves"],
             "best_spec": best["spec"], "best_seed": best["seed"],
             "seconds_per_job": per_job, "records": RECORDS.get(variant, []),
             "command": " ".join(sys.argv)},
            ["numba", "numpy"],
        )  # fmt: skip
        game = Morpion(variant)
        svg = out.with_name(f"morpion_{variant}.svg")
        svg.write_text(game.to_svg(game.state_from_actions(best["moves"])))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="5D", choices=sorted(RECORDS))
    parser.add_argument("--search", default="nrpa:level=3")
    parser.add_argument("--hours", type=float, default=1.0)
    parser.add_argument("--segment", type=float, default=600.0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=str(OUT))
    args = parser.parse_args()
    out = Path(args.out)
    data = json.loads(out.read_text()).get(args.variant, {}) if out.exists() else {}
    done = [s for s in data.get("segments", []) if s["spec"] == args.search]
    budget = args.hours * 3600.0
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        futures = [
            pool.submit(
                job_loop,
                args.variant,
                args.search,
                args.seed,
                args.segment,
                budget,
                j,
                args.jobs,
                done,
                str(out),
            )
            for j in range(args.jobs)
        ]
        for f in futures:
            f.result()
    final = json.loads(out.read_text())[args.variant]
    print(f"{args.variant}: best {final['best']:g} moves ({final['best_spec']}, seed "
          f"{final['best_seed']}); records: {RECORDS[args.variant]}")  # fmt: skip


if __name__ == "__main__":
    main()
