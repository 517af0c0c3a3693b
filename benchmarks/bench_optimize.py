"""Single-player search on the travelling salesman against the best solvers, at equal wall
time, and the compiled searches' speed against the same algorithms in plain Python.

Two parts, each a part of ``benchmarks/results/optimize.json``:

``table`` (the default): every method on every TSPLIB instance shipped with mctslab
(eil51, berlin52, st70, kroA100, each with its proven optimum) at every time budget,
``--seeds`` runs each (seeds 0, 1, ...): the tour length found, its gap to the optimum,
when the best was found. The methods:

- mctslab's MCTS family with no local search: ``nrpa`` (Rosin's NRPA, level 3, no
  knowledge), ``gnrpa`` (Generalized NRPA: the edge-length prior, ``bias=4``), ``nmcs``
  (level 2, playouts drawn with the same prior), ``sp-mcts`` (the same playouts);
- with a local search in the playouts: ``gnrpa+2opt`` (``polish=1``: every playout's tour
  improved by 2-opt and Or-opt before it is scored and learned from);
- the baselines the course compares MCTS with: ``nn`` (nearest neighbour), ``2opt`` (2-opt
  from it), ``random`` (random tours, the best kept), ``sa`` (simulated annealing),
  ``ga`` (a genetic algorithm);
- the peers: ``lkh3`` (LKH-3 through the ``elkai`` package: one run, which LKH's own
  parameters end; deterministic, so one seed) and ``ortools`` (OR-Tools' routing solver,
  path-cheapest-arc then guided local search, its time limit the budget; one seed).

Every run gets the same budget in wall seconds, single-threaded, two runs at a time on
the two cores (``--jobs``). mctslab's searches stop early once they reach the proven
optimum (``target``: they cannot improve on it, so the length at the budget is the
same) unless ``--no-stop``; their compile time is excluded (it is spent before the
clock starts, and recorded). A run already in the results file is not run again: the
same command continues an interrupted run. The gaps' 95% intervals are Student's t over
the seeds.

``speed``: NRPA (level 2) and NMCS (level 1) with the same seed and playout budget in
the compiled engine and in the reference (plain Python over the same rules): the same
sequence comes out of both (checked), and the playouts a second of each.

    python benchmarks/bench_optimize.py                       # the whole table (hours)
    python benchmarks/bench_optimize.py --budgets 1,10 --seeds 5
    python benchmarks/bench_optimize.py --budgets 60 --methods gnrpa,gnrpa+2opt,sa,lkh3,ortools
    python benchmarks/bench_optimize.py speed
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from common import save_part

from mctslab.arena.ratings import mean_interval
from mctslab.games.tsp import TSP, known_optimum

OUT = Path(__file__).resolve().parent / "results" / "optimize.json"
INSTANCES = ("eil51", "berlin52", "st70", "kroA100")
BUDGETS = (1.0, 10.0, 60.0)

#: name -> (runner, mctslab spec or None, deterministic: one seed is enough)
METHODS: dict[str, tuple[str, str | None, bool]] = {
    "nrpa": ("mctslab", "nrpa:level=3", False),
    "gnrpa": ("mctslab", "nrpa:level=3,bias=4", False),
    "nmcs": ("mctslab", "nmcs:level=2,bias=4", False),
    "sp-mcts": ("mctslab", "sp-mcts:bias=4", False),
    "gnrpa+2opt": ("mctslab", "nrpa:level=2,bias=4,polish=1", False),
    "nn": ("mctslab", "nn", True),
    "2opt": ("mctslab", "2opt", True),
    "random": ("mctslab", "random", False),
    "sa": ("mctslab", "sa", False),
    "ga": ("mctslab", "ga", False),
    "lkh3": ("elkai", None, True),
    "ortools": ("ortools", None, True),
}
FAMILY = {
    "nrpa": "MCTS family, no local search",
    "gnrpa": "MCTS family, no local search",
    "nmcs": "MCTS family, no local search",
    "sp-mcts": "MCTS family, no local search",
    "gnrpa+2opt": "MCTS family, 2-opt/Or-opt in the playouts",
    "nn": "baseline",
    "2opt": "baseline",
    "random": "baseline",
    "sa": "baseline",
    "ga": "baseline",
    "lkh3": "peer",
    "ortools": "peer",
}


def _tour_length(dist: Any, tour: list[int]) -> int:
    n = len(tour)
    return int(sum(int(dist[tour[i], tour[(i + 1) % n]]) for i in range(n)))


def run_mctslab(spec: str, instance: str, budget: float, seed: int, stop: bool) -> dict[str, Any]:
    from mctslab.players.optimizers import parse_optimizer

    game = TSP(instance)
    state = game.new_initial_state()
    optimum = known_optimum(instance)
    target = -float(optimum) if stop and optimum is not None else None
    opt = parse_optimizer(spec)
    start = time.perf_counter()
    if opt.kind in ("nn", "2opt"):
        result = opt.run(state, seed=seed)
    else:
        result = opt.run(state, seed=seed, time=budget, target=target)
    wall = time.perf_counter() - start
    tour = [0, *result.sequence]
    length = _tour_length(game.distances, tour)
    assert length == -result.score and sorted(tour) == list(range(game.n)), "a broken tour"
    return {
        "length": length,
        "found_seconds": result.found_seconds,
        "seconds": result.seconds,
        "wall_seconds": wall,
        "compile_seconds": result.compile_seconds,
        "playouts": result.playouts,
        "stopped_at_optimum": target is not None and result.score >= target,
    }


def run_elkai(instance: str, budget: float) -> dict[str, Any]:
    import elkai

    game = TSP(instance)
    start = time.perf_counter()
    tour = elkai.DistanceMatrix(game.distances.tolist()).solve_tsp(runs=1)
    seconds = time.perf_counter() - start
    tour = tour[:-1] if len(tour) == game.n + 1 else tour
    assert sorted(tour) == list(range(game.n)), "a broken tour"
    return {
        "length": _tour_length(game.distances, tour),
        "found_seconds": seconds,
        "seconds": seconds,
        "wall_seconds": seconds,
        "within_budget": seconds <= budget,
    }


def run_ortools(instance: str, budget: float) -> dict[str, Any]:
    from ortools.constraint_solver import pywrapcp, routing_enums_pb2

    game = TSP(instance)
    n = game.n
    start = time.perf_counter()
    manager = pywrapcp.RoutingIndexManager(n, 1, 0)
    routing = pywrapcp.RoutingModel(manager)
    transit = routing.RegisterTransitMatrix(game.distances.tolist())
    routing.SetArcCostEvaluatorOfAllVehicles(transit)
    params = pywrapcp.DefaultRoutingSearchParameters()
    params.first_solution_strategy = routing_enums_pb2.FirstSolutionStrategy.PATH_CHEAPEST_ARC
    params.local_search_metaheuristic = (
        routing_enums_pb2.LocalSearchMetaheuristic.GUIDED_LOCAL_SEARCH
    )
    params.time_limit.FromMilliseconds(int(budget * 1000))
    best = [math.inf, 0.0]

    def seen() -> None:
        cost = routing.CostVar().Max()
        if cost < best[0]:
            best[0], best[1] = cost, time.perf_counter() - start

    routing.AddAtSolutionCallback(seen)
    solution = routing.SolveWithParameters(params)
    seconds = time.perf_counter() - start
    index, tour = routing.Start(0), []
    while not routing.IsEnd(index):
        tour.append(manager.IndexToNode(index))
        index = solution.Value(routing.NextVar(index))
    assert sorted(tour) == list(range(n)), "a broken tour"
    return {
        "length": _tour_length(game.distances, tour),
        "found_seconds": best[1],
        "seconds": seconds,
        "wall_seconds": seconds,
    }


def run_one(method: str, instance: str, budget: float, seed: int, stop: bool) -> dict[str, Any]:
    runner, spec, _ = METHODS[method]
    if runner == "mctslab":
        assert spec is not None
        data = run_mctslab(spec, instance, budget, seed, stop)
    elif runner == "elkai":
        data = run_elkai(instance, budget)
    else:
        data = run_ortools(instance, budget)
    optimum = known_optimum(instance)
    assert optimum is not None
    data.update(
        method=method, instance=instance, budget=budget, seed=seed, spec=spec,
        optimum=optimum, gap=100.0 * (data["length"] - optimum) / optimum,
    )  # fmt: skip
    return data


def _key(row: dict[str, Any]) -> tuple[str, str, float, int]:
    return (row["method"], row["instance"], float(row["budget"]), int(row["seed"]))


def summarize(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per (instance, budget, method): the mean gap with its 95% interval, the best."""
    groups: dict[tuple[str, float, str], list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault((r["instance"], float(r["budget"]), r["method"]), []).append(r)
    order = {m: i for i, m in enumerate(METHODS)}
    out = []
    for (instance, budget, method), rs in sorted(
        groups.items(),
        key=lambda kv: (INSTANCES.index(kv[0][0]), kv[0][1], order.get(kv[0][2], 99)),
    ):
        gaps = [r["gap"] for r in rs]
        mean, low, high = mean_interval(gaps)
        out.append({
            "instance": instance, "budget": budget, "method": method,
            "family": FAMILY.get(method, ""), "spec": rs[0].get("spec"), "runs": len(rs),
            "mean_gap": mean, "gap_low": max(0.0, low), "gap_high": high,
            "best_gap": min(gaps), "mean_length": sum(r["length"] for r in rs) / len(rs),
            "best_length": min(r["length"] for r in rs),
            "optima_found": sum(1 for r in rs if r["gap"] == 0.0),
            "mean_found_seconds": sum(r["found_seconds"] for r in rs) / len(rs),
        })  # fmt: skip
    return out


def print_table(summary: list[dict[str, Any]]) -> None:
    last = None
    for s in summary:
        if (s["instance"], s["budget"]) != last:
            last = (s["instance"], s["budget"])
            print(f"\n{s['instance']} at {s['budget']:g} s a run")
            print(f"  {'method':12s} {'runs':>4s} {'mean gap % [95%]':>24s} {'best':>7s} "
                  f"{'optima':>6s} {'to best (s)':>11s}")  # fmt: skip
        interval = f"{s['mean_gap']:.2f} [{s['gap_low']:.2f}, {s['gap_high']:.2f}]"
        print(f"  {s['method']:12s} {s['runs']:4d} {interval:>24s} {s['best_gap']:7.2f} "
              f"{s['optima_found']:4d}/{s['runs']:<1d} {s['mean_found_seconds']:11.2f}")  # fmt: skip


def table(args: argparse.Namespace) -> None:
    methods = args.methods.split(",") if args.methods else list(METHODS)
    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        sys.exit(f"error: unknown method(s) {', '.join(unknown)}; known: {', '.join(METHODS)}")
    instances = args.instances.split(",")
    budgets = [float(b) for b in args.budgets.split(",")]
    out = Path(args.out)
    existing = json.loads(out.read_text()).get("tsp", {}) if out.exists() else {}
    rows: list[dict[str, Any]] = list(existing.get("rows", []))
    done = {_key(r) for r in rows}
    todo = [
        (m, i, b, s)
        for b in budgets
        for i in instances
        for m in methods
        for s in range(1 if METHODS[m][2] else args.seeds)
        if (m, i, b, s) not in done
    ]
    print(f"{len(todo)} runs to make ({len(done)} already in {out})", flush=True)

    def save() -> None:
        save_part(
            out, "tsp",
            {"rows": rows, "summary": summarize(rows), "command": " ".join(sys.argv),
             "jobs": args.jobs, "stop_at_optimum": not args.no_stop},
            ["numba", "numpy", "elkai", "ortools"],
        )  # fmt: skip

    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        futures = {
            pool.submit(run_one, m, i, b, s, not args.no_stop): (m, i, b, s) for m, i, b, s in todo
        }
        for future in as_completed(futures):
            row = future.result()
            rows.append(row)
            print(f"{row['method']:12s} {row['instance']:9s} {row['budget']:5g} s seed "
                  f"{row['seed']}: {row['length']} (gap {row['gap']:.2f}%, best at "
                  f"{row['found_seconds']:.2f} s)", flush=True)  # fmt: skip
            save()
    if rows:
        save()
        print_table(summarize(rows))


def _rate(run: Callable[[], Any], least: float = 1.0, calls: int = 3) -> tuple[Any, float, int]:
    """Run ``run`` until ``least`` seconds have passed and at least ``calls`` times: (its
    result, the median seconds a call, the calls)."""
    times: list[float] = []
    result = None
    total = 0.0
    while total < least or len(times) < calls:
        t = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - t)
        total += times[-1]
    times.sort()
    return result, times[len(times) // 2], len(times)


def speed(args: argparse.Namespace) -> None:
    from mctslab.search.single import NMCSConfig, NRPAConfig, nmcs, nrpa
    from mctslab.search.single.compiled import compiled_nmcs, compiled_nrpa

    state = TSP(args.instance).new_initial_state()
    cases = [
        ("nrpa level 2", NRPAConfig(level=2, seed=1, playouts=args.playouts), nrpa, compiled_nrpa),
        ("nmcs level 1", NMCSConfig(level=1, seed=1, playouts=args.playouts), nmcs, compiled_nmcs),
    ]
    rows = []
    for name, config, reference, compiled in cases:
        compiled(state, config)  # compile (or load numba's cache) before timing
        ref, ref_s, ref_n = _rate(lambda c=config, f=reference: f(state, c), least=0.0, calls=1)
        comp, comp_s, comp_n = _rate(lambda c=config, f=compiled: f(state, c))
        same = (ref.score, ref.sequence) == (comp.score, comp.sequence)
        row = {
            "search": name, "instance": args.instance, "playouts": config.playouts,
            "same_result": same,
            "reference_playouts_per_s": config.playouts / ref_s,
            "compiled_playouts_per_s": config.playouts / comp_s,
            "speedup": ref_s / comp_s, "reference_calls": ref_n, "compiled_calls": comp_n,
        }  # fmt: skip
        rows.append(row)
        print(f"{name} on {args.instance}, {config.playouts} playouts: reference "
              f"{row['reference_playouts_per_s']:,.0f}/s, compiled "
              f"{row['compiled_playouts_per_s']:,.0f}/s: {row['speedup']:.0f}x "
              f"(same result: {same})", flush=True)  # fmt: skip
    save_part(
        Path(args.out), "speed", {"rows": rows, "command": " ".join(sys.argv)}, ["numba", "numpy"]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="part")
    t = sub.add_parser("table", help="the comparison table (default)")
    for p in (parser, t):
        p.add_argument("--instances", default=",".join(INSTANCES))
        p.add_argument("--budgets", default=",".join(f"{b:g}" for b in BUDGETS))
        p.add_argument("--methods", default="")
        p.add_argument("--seeds", type=int, default=5)
        p.add_argument("--jobs", type=int, default=2)
        p.add_argument("--no-stop", action="store_true", help="run every budget to its end")
        p.add_argument("--out", default=str(OUT))
    s = sub.add_parser("speed", help="compiled against plain Python, equal playouts")
    s.add_argument("--instance", default="eil51")
    s.add_argument("--playouts", type=int, default=2000)
    s.add_argument("--out", default=str(OUT))
    args = parser.parse_args()
    if args.part == "speed":
        speed(args)
    else:
        table(args)


if __name__ == "__main__":
    main()
