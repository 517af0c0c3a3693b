"""Speed before and after a change, in the same run: two source trees, the same searches.

Run ``python benchmarks/ab_speed.py --old OLD_SRC [--new NEW_SRC] [--repeats R]``, where
``OLD_SRC`` is the ``src`` directory of an older checkout (``git archive <commit> src |
tar -x -C /tmp/old``). Each repeat runs one worker process per tree, in turns (old,
new, then new, old in the next repeat, so that a drifting machine load favours neither),
each importing mctslab from its tree and timing, after a warm-up that compiles:

- compiled UCT from the empty board, Connect Four and tic-tac-toe, at 10,000 and
  100,000 iterations (``SearchResult.seconds``: search time, compilation apart);
- ``B`` compiled PUCT searches of 100 simulations stepped together by ``search_many``
  with a trivial evaluator in Python (uniform priors, value 0), ``B`` = 1, 16, 256 (the
  batching path a network's searches take; wall seconds).

It prints each case's median seconds per tree and the median of the per-repeat ratios
new / old (below 1: the new tree is faster), and writes them to
``benchmarks/results/ab_speed.json`` with the date, machine and both trees' commits
where known. For a quiet machine; a few minutes a repeat.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common

OUT = Path(__file__).resolve().parent / "results" / "ab_speed.json"

WORKER = r"""
import json, sys, time
import numpy as np
import mctslab
from mctslab.search.compiled import CompiledMCTS, search_many
from mctslab.search.config import SearchConfig
from mctslab.search.puct import PuctConfig

def uct(game, n, seed):
    state = mctslab.make(game).new_initial_state()
    return CompiledMCTS(SearchConfig(iterations=n, seed=seed)).search(state).seconds

def uniform(batch):
    mask = batch.legal_mask.astype(np.float64)
    return mask / mask.sum(axis=1, keepdims=True), np.zeros(len(mask))

def many(b, n, seed):
    state = mctslab.make("connect_four").new_initial_state()
    searchers = [CompiledMCTS(SearchConfig(iterations=n, seed=seed + i,
                 puct=PuctConfig(c=1.25, evaluator=uniform, batch=1))) for i in range(b)]
    start = time.perf_counter()
    search_many(searchers, [state] * b)
    return time.perf_counter() - start

seed = int(sys.argv[1])
uct("connect_four", 200, 0); uct("tic_tac_toe", 200, 0); many(2, 10, 0)  # compile
out = {}
for game, short in (("connect_four", "c4"), ("tic_tac_toe", "ttt")):
    for n in (10_000, 100_000):
        out[f"uct_{short}_{n // 1000}k"] = uct(game, n, seed)
for b in (1, 16, 256):
    out[f"puct_B{b}"] = many(b, 100, seed)
print(json.dumps(out))
"""


def run(src: Path, seed: int) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    proc = subprocess.run(
        [sys.executable, "-c", WORKER, str(seed)], env=env, capture_output=True, text=True
    )
    if proc.returncode != 0:
        raise SystemExit(f"worker failed for {src}:\n{proc.stderr}")
    data: dict[str, float] = json.loads(proc.stdout.strip().splitlines()[-1])
    return data


def commit_of(src: Path) -> str | None:
    proc = subprocess.run(
        ["git", "-C", str(src), "rev-parse", "HEAD"], capture_output=True, text=True
    )
    return proc.stdout.strip() or None if proc.returncode == 0 else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, required=True, help="the older tree's src")
    parser.add_argument("--new", type=Path, default=Path(__file__).resolve().parents[1] / "src")
    parser.add_argument("--old-label", default=None, help="what the old tree is (a commit)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--output", type=Path, default=OUT)
    args = parser.parse_args(argv)
    trees = {"old": args.old.resolve(), "new": args.new.resolve()}
    for name, src in trees.items():
        if not (src / "mctslab" / "__init__.py").exists():
            raise SystemExit(f"--{name}: {src} holds no mctslab package")
    print("warm-up (compiling both trees)...", flush=True)
    for src in trees.values():
        run(src, 0)
    times: dict[str, dict[str, list[float]]] = {"old": {}, "new": {}}
    for r in range(args.repeats):
        order = ("old", "new") if r % 2 == 0 else ("new", "old")
        for name in order:
            for case, seconds in run(trees[name], 100 + r).items():
                times[name].setdefault(case, []).append(seconds)
        print(f"repeat {r + 1} of {args.repeats} done", flush=True)
    rows = []
    for case in times["new"]:
        old, new = times["old"][case], times["new"][case]
        ratio = statistics.median(n / o for n, o in zip(new, old, strict=True))
        rows.append({
            "case": case, "old_median_s": statistics.median(old),
            "new_median_s": statistics.median(new), "ratio_new_over_old": ratio,
            "old_s": old, "new_s": new,
        })  # fmt: skip
        print(f"{case:>14}: old {statistics.median(old):.4f} s, new {statistics.median(new):.4f} s,"
              f" new/old {ratio:.3f}")  # fmt: skip
    common.save_part(
        args.output,
        "ab",
        {
            "old": args.old_label or commit_of(trees["old"]) or str(trees["old"]),
            "new": commit_of(trees["new"]) or str(trees["new"]),
            "repeats": args.repeats,
            "rows": rows,
        },
        ("numba", "numpy"),
    )
    print(f"results written to {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
