"""Learning against search at Connect Four: the shipped network (``az:model=connect_four``)
side by side with the project's best pure search, on this machine (CPU only).

Run ``python benchmarks/bench_training.py [--part NAME ...] [--model NAME_OR_PATH]``
(``make bench`` runs every part). Parts (each writes its numbers into
``benchmarks/results/training.json``, keeping the others'):

- ``throughput``: self-play as ``mctslab train`` plays it (64 games at once, 100
  simulations a move, Dirichlet noise): positions and network evaluations per second,
  the share of the time inside the network, with PyTorch on 1 and on 2 threads;
- ``strength``: ``az`` with 200 simulations against compiled UCT with 200 iterations,
  and against compiled UCT + MCTS-Solver with 2,000 and 20,000 iterations a move;
  ``--games`` games each (default 100), colours alternated, two random opening plies
  (the arena's ``openings=2``), in the arena's SQLite store
  ``benchmarks/results/training.db`` (a rerun continues the unfinished runs);
- ``time``: equal time: ``az`` against UCT + solver at 0.5 s a move each, with each
  inference path and leaves a network call (:data:`TIME_MATCHES`; ``--time-match`` picks,
  ``--time-games`` games each, default 100), and the moonshot, ``az`` at 0.1 s against
  UCT + solver at 1 s; then the simulations each side makes in 0.5 s: one fresh search of
  each player from each of ``--time-positions`` positions (default 10: the empty board and
  positions of plies 2 to 18 of a seeded game of UCT with 1,000 iterations a move against
  itself), their medians (``simulations_per_move``) and ``simulations_ratio`` = UCT's
  median / ``az``'s (timing: the numbers depend on the machine and its load);
- ``search_rate``: ``az`` inside a 0.5 s search from the same positions, on each inference
  path (PyTorch, ONNX Runtime) and with 1 to 32 leaves a network call (virtual loss): the
  median simulations, network evaluations a second, and the share of the time spent in the
  evaluator (the rest is the search itself);
- ``quality``: move quality against the exact solver
  (:class:`mctslab.games.connect_four_solver.ConnectFourSolver`): ``--positions``
  positions (default 1,000) at plies 8 to 30 from games of UCT (1,000 iterations a move,
  two random opening plies) against itself, each labelled with the exact score of every
  move; the share of positions where each player's move is optimal (95% Wilson
  intervals): the network alone (``policy:``), ``az`` at 50 / 200 / 800 simulations,
  compiled UCT at 2,000 / 20,000 / 200,000 iterations; a table and
  ``benchmarks/results/training_quality.png``;
- ``versus``: ``--model`` against ``--against`` (default the shipped ``connect_four``),
  200 simulations each, ``--games`` games, colours alternated, two random opening plies:
  whether a newly trained network ships;
- ``curve``: Elo by generation and by hours of training against the fixed baselines,
  from training runs (``--run``, repeated for runs that continue one another with
  ``--init``, each a run directory or a saved segment's JSON such as
  ``results/curve_connect_four_run1.json``, the first run, whose directory
  is not kept, and ``results/curve_connect_four_run2.json``, the second's, rebuilt from
  the shipped card's evaluation with its hours spread evenly over its generations;
  default ``runs/connect_four``; skipped when none is there) into
  ``benchmarks/results/training_curve.png``.

Strength is a score (win 1, draw 1/2) with its 95% Wilson interval; a target is met when
the point estimate meets it, and the interval says what the games allow. The run always
exits 0: benchmarks record, tests assert.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import multiprocessing
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import save_part

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
OUT = RESULTS / "training.json"
PARTS = ("throughput", "strength", "time", "search_rate", "quality", "versus", "curve")


def wilson(points: float, n: int) -> tuple[float, float, float]:
    from mctslab.arena.ratings import wilson_interval

    return wilson_interval(points, n) if n else (math.nan, math.nan, math.nan)


def save(part: str, data: dict[str, Any]) -> None:
    save_part(OUT, part, data, ("torch", "numba", "numpy"))


# 1. Throughput -------------------------------------------------------------------------------


def _throughput(model: str, threads: int, games: int, simulations: int) -> dict[str, Any]:
    import torch

    from mctslab.core.registry import make
    from mctslab.players.network import load_model, resolve_model
    from mctslab.train.selfplay import SelfPlayOptions, play_games

    game = make("connect_four")
    net = load_model(resolve_model(model), game)
    torch.set_num_threads(threads)  # after load_model, which sets one thread
    options = SelfPlayOptions(simulations=simulations, parallel_games=games)
    play_games(net, game, [0, 1], SelfPlayOptions(simulations=4, parallel_games=2))  # warm up
    start = time.perf_counter()
    _, stats = play_games(net, game, list(range(1000, 1000 + games)), options)
    seconds = time.perf_counter() - start
    return {
        "threads": threads,
        "games": stats.games,
        "positions": stats.positions,
        "seconds": seconds,
        "positions_per_s": stats.positions / seconds,
        "evaluations_per_s": stats.evaluations / seconds,
        "mean_batch": stats.evaluations / max(1, stats.positions * simulations) * games,
        "network_share": stats.network_seconds / seconds,
    }


def part_throughput(args: argparse.Namespace) -> None:
    ctx = multiprocessing.get_context("spawn")
    rows = []
    for threads in (1, 2):
        with ctx.Pool(1) as pool:  # a fresh process each: PyTorch's threads are per process
            rows.append(pool.apply(_throughput, (args.model, threads, 64, 100)))
        r = rows[-1]
        print(
            f"self-play, {threads} thread(s): {r['positions_per_s']:.0f} positions/s, "
            f"{r['evaluations_per_s']:.0f} network evaluations/s, "
            f"{100 * r['network_share']:.0f}% of the time in the network"
        )
    save(
        "throughput", {"model": args.model, "parallel_games": 64, "simulations": 100, "rows": rows}
    )


# 2 and 3. Strength through the arena ---------------------------------------------------------


def network_tag(*specs: str) -> str:
    """The first 8 hex digits of the SHA-256 of the weights every ``model=`` of
    ``specs`` names, in order ('' if none): a match's runs in the store are kept by it,
    so that a new network shipped under the same name plays its own games instead of
    resuming the last one's."""
    from mctslab.players.network import resolve_model

    digest = hashlib.sha256()
    found = False
    for spec in specs:
        for option in spec.split(":", 1)[-1].split(","):
            key, _, value = option.partition("=")
            if key.strip() == "model":
                digest.update(resolve_model(value.strip()).read_bytes())
                found = True
    return digest.hexdigest()[:8] if found else ""


def _match(
    name: str, az: str, opponent: str, games: int, seed: int, workers: int
) -> dict[str, Any]:
    from mctslab.arena.game_task import Entrant
    from mctslab.arena.store import ResultStore
    from mctslab.arena.tournament import ArenaConfig, run_arena

    config = ArenaConfig(
        game="connect_four",
        players=(Entrant("az", az), Entrant("search", opponent)),
        games=games,
        seed=seed,
        openings=2,
        workers=workers,
    )
    start = time.perf_counter()
    tag = network_tag(az, opponent)
    with ResultStore(RESULTS / "training.db") as store:
        result = run_arena(config, store, resume=True, kind=f"bench-training-{name}-{tag}")
    points = [r.score_of("az") for r in result.records]
    scored = [p for p in points if p is not None]
    score, low, high = wilson(sum(scored), len(scored))
    wins = sum(1 for p in scored if p == 1.0)
    draws = sum(1 for p in scored if p == 0.5)
    row = {
        "name": name,
        "az": az,
        "opponent": opponent,
        "networks": tag,
        "games": len(scored),
        "wins": wins,
        "draws": draws,
        "losses": len(scored) - wins - draws,
        "score": score,
        "low": low,
        "high": high,
        "seconds_this_run": time.perf_counter() - start,
    }
    print(
        f"{name}: {az} vs {opponent}: {score:.3f} [{low:.3f}, {high:.3f}] over {len(scored)} games"
    )
    return row


def part_versus(args: argparse.Namespace) -> None:
    """``--model`` against the shipped network (``--against``, default ``connect_four``),
    200 simulations each, ``--games`` games: what decides whether a new network ships."""
    if args.model == args.against:
        print(f"versus: --model and --against are both {args.model}; skipped")
        return
    row = _match(
        "versus",
        f"az:model={args.model},simulations=200",
        f"az:model={args.against},simulations=200",
        args.games,
        31,
        args.workers,
    )
    save("versus", {"model": args.model, "against": args.against, "rows": [row]})


def part_strength(args: argparse.Namespace) -> None:
    m = args.model
    matches = [
        ("sims200_vs_uct200", f"az:model={m},simulations=200", "mcts:iterations=200", 0.95),
        (
            "sims200_vs_solver2000",
            f"az:model={m},simulations=200",
            "mcts:iterations=2000,solver=1",
            0.70,
        ),
        (
            "sims200_vs_solver20000",
            f"az:model={m},simulations=200",
            "mcts:iterations=20000,solver=1",
            0.50,
        ),
    ]
    rows = []
    for name, az, opp, target in matches:
        row = _match(name, az, opp, args.games, 17, args.workers)
        row["target"] = target
        row["met"] = row["score"] >= target
        rows.append(row)
    save("strength", {"model": m, "rows": rows})


#: ``time``'s matches: (name, az's spec after ``az:model=M,``, the opponent, target).
#: ``time0.5_*``: equal time, 0.5 s a move each, by inference path and leaves a network
#: call (``_solver``: ``az`` with MCTS-Solver too, as its opponent); ``moonshot_*``:
#: ``az`` at 0.1 s against UCT + solver at 1 s (ten times its time).
TIME_MATCHES = (
    ("time0.5_onnx_b8", "time=0.5,backend=onnx,batch=8", "mcts:time=0.5,solver=1", 0.60),
    ("time0.5_onnx_b1", "time=0.5,backend=onnx,batch=1", "mcts:time=0.5,solver=1", 0.60),
    ("moonshot_onnx_b8", "time=0.1,backend=onnx,batch=8", "mcts:time=1,solver=1", 0.50),
    ("moonshot_onnx_b1", "time=0.1,backend=onnx,batch=1", "mcts:time=1,solver=1", 0.50),
    ("moonshot_torch_b1", "time=0.1,backend=torch,batch=1", "mcts:time=1,solver=1", 0.50),
    ("time0.5_onnx_b1_solver", "time=0.5,solver=1", "mcts:time=0.5,solver=1", 0.60),
    ("time0.5_torch_b1", "time=0.5,backend=torch,batch=1", "mcts:time=0.5,solver=1", 0.60),
)


def part_time(args: argparse.Namespace) -> None:
    m = args.model
    chosen = args.time_match or [name for name, *_ in TIME_MATCHES]
    rows = []
    for name, az, opponent, target in TIME_MATCHES:
        if name not in chosen:
            continue
        row = _match(name, f"az:model={m},{az}", opponent, args.time_games, 23, args.workers)
        row["target"] = target
        row["met"] = row["score"] >= target
        rows.append(row)
        save("time", {"model": m, "rows": rows, **_kept_counts()})
    specs = {"az": f"az:model={m},time=0.5", "uct_solver": "mcts:time=0.5,solver=1"}
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(1) as pool:  # a fresh process: one thread, as the arena's players
        counts = pool.apply(_simulations_at_equal_time, (specs, args.time_positions))
    medians = {name: _median(c) for name, c in counts.items()}
    print(
        f"simulations in 0.5 s a move (median of {args.time_positions} positions): "
        f"az {medians['az']:,}, UCT + solver {medians['uct_solver']:,}"
    )
    save(
        "time",
        {
            "model": m,
            "rows": rows,
            "simulations_per_move": medians,
            "simulations_ratio": medians["uct_solver"] / max(1, medians["az"]),
            "simulations_by_position": counts,
            "positions": args.time_positions,
        },
    )


def _kept_counts() -> dict[str, Any]:
    """The simulation counts of the last ``time`` run, kept while its matches are redone."""
    if not OUT.exists():
        return {}
    old = json.loads(OUT.read_text()).get("time", {})
    keys = ("simulations_per_move", "simulations_ratio", "simulations_by_position", "positions")
    return {k: old[k] for k in keys if k in old}


def _simulations_at_equal_time(specs: dict[str, str], count: int) -> dict[str, list[int]]:
    """Each player's simulations in one fresh search from each of ``count`` positions."""
    from mctslab.core.registry import make
    from mctslab.players.player import make_player

    game = make("connect_four")
    positions = _game_positions(game, count)
    out: dict[str, list[int]] = {name: [] for name in specs}
    for name, spec in specs.items():
        make_player(spec, game.info, 0).choose(game.new_initial_state())  # warm up
        for position in positions:
            player = make_player(spec, game.info, 0)
            player.choose(position.clone())
            out[name].append(player.last_result.iterations)  # type: ignore[attr-defined]
    return out


# 3b. The network's rate inside a search -----------------------------------------------------

#: ``search_rate``'s settings of ``az``: the inference path and the leaves per network call.
RATE_SETTINGS = (
    ("torch", 1),
    ("onnx", 1),
    ("onnx", 4),
    ("onnx", 8),
    ("onnx", 16),
    ("onnx", 32),
)


class _Timed:
    """An evaluator that adds up the seconds its inner evaluator takes (observations
    encoded, the network run, the priors masked) and the leaves it is asked for."""

    rollout = False

    def __init__(self, inner: Any) -> None:
        from mctslab.search.evaluators import make_evaluator

        self.inner = make_evaluator(inner)  # a PyTorch module is wrapped as the search would
        self.name = getattr(self.inner, "name", "network")
        self.seconds = 0.0
        self.leaves = 0
        self.calls = 0

    def evaluate(self, batch: Any) -> tuple[Any, Any]:
        start = time.perf_counter()
        out = self.inner.evaluate(batch)
        self.seconds += time.perf_counter() - start
        self.leaves += len(batch)
        self.calls += 1
        return out  # type: ignore[no-any-return]


def _search_rates(model: str, seconds: float, count: int) -> list[dict[str, Any]]:
    """One fresh ``seconds`` search of ``az`` from each of ``count`` positions, at each of
    :data:`RATE_SETTINGS`: the median simulations, network evaluations a second, mean
    leaves a call, and the share of the search's time spent in the evaluator."""
    from dataclasses import replace

    from mctslab.core.registry import make
    from mctslab.players.player import make_player

    game = make("connect_four")
    positions = _game_positions(game, count)
    rows = []
    for backend, batch in RATE_SETTINGS:
        spec = f"az:model={model},time={seconds},backend={backend},batch={batch}"
        warm = make_player(spec, game.info, 0)
        warm.choose(game.new_initial_state())  # loads the network; compiles the engine
        loaded = warm.config.puct.evaluator  # type: ignore[attr-defined]
        sims, evals, shares, means = [], [], [], []
        for position in positions:
            player = make_player(spec, game.info, 0)  # a fresh tree, the network as loaded:
            timed = _Timed(loaded)
            cfg = player.config  # type: ignore[attr-defined]
            player.config = replace(cfg, puct=replace(cfg.puct, evaluator=timed))  # type: ignore[attr-defined]
            start = time.perf_counter()
            player.choose(position.clone())
            wall = time.perf_counter() - start
            sims.append(player.last_result.iterations)  # type: ignore[attr-defined]
            evals.append(timed.leaves / wall)
            shares.append(timed.seconds / wall)
            means.append(timed.leaves / max(1, timed.calls))
        row = {
            "backend": warm.backend,  # type: ignore[attr-defined]
            "batch": batch,
            "simulations": _median(sims),
            "evaluations_per_s": _median(evals),
            "mean_batch": _median(means),
            "evaluator_share": _median(shares),
            "simulations_by_position": sims,
        }
        print(
            f"{backend:>5} batch {batch:>2}: {row['simulations']:>7,} simulations, "
            f"{row['evaluations_per_s']:>8,.0f} evaluations/s, "
            f"{100 * row['evaluator_share']:.0f}% in the evaluator",
            flush=True,
        )
        rows.append(row)
    return rows


def _median(values: list[Any]) -> Any:
    return sorted(values)[len(values) // 2]


def _game_positions(game: Any, count: int) -> list[Any]:
    """The empty board and positions of plies 2, 4, ... of a seeded game of UCT (1,000
    iterations a move) against itself: ``count`` positions in all."""
    from mctslab.players.player import make_player

    uct = make_player("mcts:iterations=1000", game.info, 5)
    state = game.new_initial_state()
    positions = [state.clone()]
    while len(positions) < count and not state.is_terminal():
        state.apply_action(uct.choose(state.clone()))
        if len(state.history()) % 2 == 0:
            positions.append(state.clone())
    return positions


def part_search_rate(args: argparse.Namespace) -> None:
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(1) as pool:  # a fresh process: one thread for each inference path
        rows = pool.apply(_search_rates, (args.model, 0.5, args.time_positions))
    base = rows[0]["evaluations_per_s"]
    for row in rows:
        row["speedup"] = row["evaluations_per_s"] / base
    save(
        "search_rate",
        {
            "model": args.model,
            "seconds": 0.5,
            "positions": args.time_positions,
            "rows": rows,
            "note": "speedup: evaluations a second over the first row (PyTorch, batch 1)",
        },
    )


# 4. Move quality against the exact solver ----------------------------------------------------


def _positions(count: int, seed: int) -> list[list[int]]:
    """``count`` positions at plies 8 to 30 from games of UCT (1,000 iterations) against
    itself after two random opening plies, spread evenly over the plies."""
    import numpy as np

    from mctslab.core.registry import make
    from mctslab.players.player import make_player

    game = make("connect_four")
    rng = np.random.default_rng(seed)
    by_ply: dict[int, list[list[int]]] = {p: [] for p in range(8, 31)}
    want = math.ceil(count / len(by_ply))
    g = 0
    while any(len(v) < want for v in by_ply.values()):
        g += 1
        state = game.new_initial_state()
        moves: list[int] = []
        players = [
            make_player("mcts:iterations=1000", game.info, seed * 1000 + g + k) for k in (0, 1)
        ]
        while not state.is_terminal() and len(moves) <= 30:
            if len(moves) < 2:
                a = int(rng.choice(state.legal_actions()))
            else:
                a = players[state.current_player()].choose(state.clone())
            if len(moves) in by_ply and len(by_ply[len(moves)]) < want and rng.random() < 0.5:
                by_ply[len(moves)].append(list(moves))
            state.apply_action(a)
            moves.append(a)
    picked = [p for v in by_ply.values() for p in v]
    return picked[:count]


def _label(chunk: list[list[int]]) -> list[dict[str, int]]:
    from mctslab.games.connect_four_solver import ConnectFourSolver

    solver = ConnectFourSolver()
    return [{str(k): v for k, v in solver.move_scores(moves).items()} for moves in chunk]


def _moves_of(spec: str, model: str, chunk: list[tuple[int, list[int]]]) -> list[int]:
    import torch

    from mctslab.core.registry import make
    from mctslab.players.player import make_player

    torch.set_num_threads(1)
    game = make("connect_four")
    out = []
    for index, moves in chunk:
        player = make_player(spec.replace("MODEL", model), game.info, seed=index)
        state = game.state_from_actions(moves)
        out.append(int(player.choose(state)))
    return out


QUALITY_PLAYERS = (
    ("network alone", "policy:model=MODEL", 1),
    ("az 50", "az:model=MODEL,simulations=50", 50),
    ("az 200", "az:model=MODEL,simulations=200", 200),
    ("az 800", "az:model=MODEL,simulations=800", 800),
    ("uct 2000", "mcts:iterations=2000", 2000),
    ("uct 20000", "mcts:iterations=20000", 20000),
    ("uct 200000", "mcts:iterations=200000", 200000),
)


def labelled_positions(
    count: int, workers: int
) -> tuple[list[list[int]], list[dict[str, int]], float]:
    """The positions and every move's exact score, computed once and kept in
    ``results/training_positions.json`` (the solver's labels do not depend on any player)."""
    cache = RESULTS / "training_positions.json"
    if cache.exists():
        data = json.loads(cache.read_text())
        if data["count"] == count:
            return data["positions"], data["scores"], data["label_seconds"]
    ctx = multiprocessing.get_context("spawn")
    start = time.perf_counter()
    positions = _positions(count, 29)
    print(f"{len(positions)} positions at plies 8-30 in {time.perf_counter() - start:.0f} s")
    start = time.perf_counter()
    with ctx.Pool(workers) as pool:
        chunks = [positions[i::workers] for i in range(workers)]
        labelled = pool.map(_label, chunks)
    scores: list[dict[str, int]] = [{}] * len(positions)
    for i in range(workers):
        for j, row in enumerate(labelled[i]):
            scores[i + j * workers] = row
    label_s = time.perf_counter() - start
    print(f"labelled by the exact solver in {label_s:.0f} s")
    RESULTS.mkdir(parents=True, exist_ok=True)
    cache.write_text(
        json.dumps(
            {"count": count, "positions": positions, "scores": scores, "label_seconds": label_s}
        )
    )
    return positions, scores, label_s


def part_quality(args: argparse.Namespace) -> None:
    ctx = multiprocessing.get_context("spawn")
    workers = max(1, args.workers)
    positions, scores, label_s = labelled_positions(args.positions, workers)
    if args.label_only:
        return
    # Two readings of "optimal": the exact solver's best score (the fastest win, the
    # slowest loss), and the game-theoretic outcome kept (a move whose score has the sign
    # of the best: a win kept, a draw kept, or any move of a lost position), which is
    # what minimax.solve's best_actions are.
    optimal = [{int(a) for a, v in s.items() if v == max(s.values())} for s in scores]
    sign = [{int(a) for a, v in s.items() if _sign(v) == _sign(max(s.values()))} for s in scores]
    rows = []
    indexed = list(enumerate(positions))
    for name, spec, sims in QUALITY_PLAYERS:
        start = time.perf_counter()
        with ctx.Pool(workers) as pool:
            parts = pool.starmap(
                _moves_of, [(spec, args.model, indexed[i::workers]) for i in range(workers)]
            )
        chosen = [0] * len(positions)
        for i, part in enumerate(parts):
            for j, a in enumerate(part):
                chosen[i + j * workers] = a
        hits = sum(1 for a, best in zip(chosen, optimal, strict=True) if a in best)
        kept = sum(1 for a, good in zip(chosen, sign, strict=True) if a in good)
        rate, low, high = wilson(hits, len(positions))
        krate, klow, khigh = wilson(kept, len(positions))
        rows.append(
            {
                "player": name,
                "spec": spec.replace("MODEL", args.model),
                "simulations": sims,
                "optimal": hits,
                "positions": len(positions),
                "rate": rate,
                "low": low,
                "high": high,
                "outcome_kept": kept,
                "outcome_rate": krate,
                "outcome_low": klow,
                "outcome_high": khigh,
                "moves": chosen,
                "seconds": time.perf_counter() - start,
            }
        )
        print(
            f"{name:>14}: best score {rate:.3f} [{low:.3f}, {high:.3f}], outcome kept "
            f"{krate:.3f} [{klow:.3f}, {khigh:.3f}] of {len(positions)} positions"
        )
    plot_quality(rows)
    plies = [len(p) for p in positions]
    save(
        "quality",
        {
            "model": args.model,
            "positions": len(positions),
            "plies": [min(plies), max(plies)],
            "label_seconds": label_s,
            "rows": rows,
        },
    )


def _sign(v: int) -> int:
    return (v > 0) - (v < 0)


def plot_quality(rows: list[dict[str, Any]]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for ax, key, what in (
        (axes[0], "outcome_", "moves that keep the game-theoretic outcome"),
        (axes[1], "", "moves of the exact best score"),
    ):
        for family, marker in (("az", "o"), ("uct", "s")):
            fam = [r for r in rows if r["player"].startswith(family)]
            if family == "az":
                fam = [r for r in rows if r["player"] == "network alone"] + fam
            xs = [r["simulations"] for r in fam]
            ys = [r[f"{key}rate"] for r in fam]
            err = [
                [r[f"{key}rate"] - r[f"{key}low"] for r in fam],
                [r[f"{key}high"] - r[f"{key}rate"] for r in fam],
            ]
            label = "network + PUCT (1 = the network alone)" if family == "az" else "compiled UCT"
            ax.errorbar(xs, ys, yerr=err, marker=marker, capsize=3, label=label)
        ax.set_xscale("log")
        ax.set_xlabel("simulations (iterations) a move")
        ax.set_ylabel(f"share of {what}", fontsize=9)
        ax.set_title(f"Connect Four, plies 8-30: {what}", fontsize=10)
        ax.legend()
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(RESULTS / "training_quality.png", dpi=90)
    plt.close(fig)


# 5. The training curve -------------------------------------------------------------------


def _run_curve(run: Path) -> dict[str, Any] | None:
    """A training run's curve: every generation's wall time and Elo (with its interval,
    from the run's last ratings), the baselines' Elo; from a run directory, or from a
    JSON file of an earlier ``curve`` segment (a run whose directory is gone: its rows as
    this part saved them). ``None`` where ``run`` is neither."""
    if run.suffix == ".json" and run.is_file():
        data: dict[str, Any] = json.loads(run.read_text())
        return data
    if not (run / "state.json").exists():
        return None
    state = json.loads((run / "state.json").read_text())
    history = state["history"]
    last = next((h["ratings"] for h in reversed(history) if h.get("ratings")), {})
    rows = []
    for h in history:
        rating = last.get(f"gen-{h['generation']:04d}")
        rows.append(
            {
                "generation": h["generation"],
                "wall_seconds": h.get("wall_seconds"),
                "elo": rating.get("elo") if rating else None,
                "low": rating.get("low") if rating else None,
                "high": rating.get("high") if rating else None,
                "scores": h.get("scores"),
            }
        )
    run_json = json.loads((run / "run.json").read_text())
    return {
        "run": str(run),
        "config": run_json.get("config", {}),
        "generations": state["generation"],
        "wall_seconds": state["wall_seconds"],
        "baselines": {k: v for k, v in last.items() if not k.startswith("gen-")},
        "rows": rows,
    }


def plot_curve(segments: list[dict[str, Any]]) -> None:
    """Elo by generation and by hours of training, the runs one after another (a run
    started with ``--init`` from the last one's network continues its curve); the
    baselines of the last run as dashed lines."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    gen0 = wall0 = 0.0
    for i, seg in enumerate(segments):
        rated = [r for r in seg["rows"] if r["elo"] is not None]
        label = f"run {i + 1}: {seg.get('label') or seg.get('run', '')}"
        # a segment rebuilt from a model card knows only its run's total time: its hours
        # are spread evenly over the generations, drawn dotted and said in the legend
        estimated = bool(seg.get("wall_seconds_estimated"))
        for ax, x_of, style, name in (
            (axes[0], lambda r, g=gen0: g + r["generation"], "-", label),
            (
                axes[1],
                lambda r, w=wall0: (w + (r["wall_seconds"] or 0.0)) / 3600,
                ":" if estimated else "-",
                label + (" (hours spread evenly)" if estimated else ""),
            ),
        ):
            ax.errorbar(
                [x_of(r) for r in rated],
                [r["elo"] for r in rated],
                yerr=[
                    [r["elo"] - r["low"] for r in rated],
                    [r["high"] - r["elo"] for r in rated],
                ],
                marker="o",
                markersize=3,
                capsize=2,
                linestyle=style,
                label=name,
            )
        gen0 += seg["generations"]
        wall0 += seg["wall_seconds"]
    baselines = segments[-1]["baselines"]
    for ax, xlabel in (
        (axes[0], "generation"),
        (axes[1], "hours of training (this 2-core machine)"),
    ):
        for j, (name, b) in enumerate(sorted(baselines.items())):
            ax.axhline(b["elo"], linestyle="--", color=f"C{j + 3}", alpha=0.6, label=name)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("Elo (uct100 = 0), 95% interval")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    axes[0].set_title("Connect Four network: Elo by generation", fontsize=10)
    axes[1].set_title("... and by wall time", fontsize=10)
    fig.tight_layout()
    fig.savefig(RESULTS / "training_curve.png", dpi=90)
    plt.close(fig)


def part_curve(args: argparse.Namespace) -> None:
    segments = []
    for i, name in enumerate(args.run or [str(ROOT / "runs" / "connect_four")]):
        seg = _run_curve(Path(name))
        if seg is None:
            print(f"curve: no training run at {name}; skipped")
            continue
        if args.label and i < len(args.label):
            seg["label"] = args.label[i]
        segments.append(seg)
        print(
            f"curve: {name}: {seg['generations']} generations, "
            f"{seg['wall_seconds'] / 60:.0f} min of training"
        )
    if not segments:
        return
    plot_curve(segments)
    save(
        "curve",
        {
            "segments": segments,
            "generations": sum(s["generations"] for s in segments),
            "wall_seconds": sum(s["wall_seconds"] for s in segments),
        },
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--part", action="append", choices=PARTS, help="parts to run (default: all)"
    )
    parser.add_argument("--model", default="connect_four", help="the network (name or path)")
    parser.add_argument(
        "--against", default="connect_four", help="versus: the network it meets (name or path)"
    )
    parser.add_argument("--games", type=int, default=100, help="games a strength match")
    parser.add_argument("--time-games", type=int, default=100, help="games a time match")
    parser.add_argument(
        "--time-match",
        action="append",
        choices=[name for name, *_ in TIME_MATCHES],
        help="time: the matches to play (default: all)",
    )
    parser.add_argument(
        "--time-positions", type=int, default=10, help="positions for simulations at 0.5 s"
    )
    parser.add_argument("--positions", type=int, default=1000, help="positions for move quality")
    parser.add_argument("--workers", type=int, default=2, help="processes")
    parser.add_argument(
        "--run",
        action="append",
        help="curve: a training run's directory, or a saved segment's JSON; repeat for runs "
        "that continue one another (--init); default runs/connect_four",
    )
    parser.add_argument("--label", action="append", help="curve: each --run's label")
    parser.add_argument(
        "--label-only", action="store_true", help="quality: only make and label the positions"
    )
    args = parser.parse_args()
    for part in args.part or PARTS:
        print(f"== {part}", flush=True)
        globals()[f"part_{part}"](args)


if __name__ == "__main__":
    main()
