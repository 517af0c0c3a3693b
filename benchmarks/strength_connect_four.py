"""Playing strength: mctslab's compiled engine against OpenSpiel's C++ MCTSBot at Connect Four.

Run ``python benchmarks/strength_connect_four.py [--games N] [--time S] [--seed K] [--c C ...]``.
By default it plays two matches of 100 games at 0.1 s per move: mctslab with ``c=1.0`` (the
same exploration as its opponent) and with ``c=0.5`` (less exploration, which plays better
at this budget).

Both sides search for the same wall-clock time per move, single-threaded, with MCTS-Solver
and uniformly random playouts:

* mctslab: ``CompiledMCTS(SearchConfig(time=S, iterations=None, solver=True, c=C))``, one
  searcher per game, so that it keeps (re-roots) its tree between its moves;
* OpenSpiel: ``pyspiel.MCTSBot(uct_c=2*C_ref, RandomRolloutEvaluator(1, seed), solve=True,
  max_wall_clock_time=S)`` with ``max_simulations`` far out of reach (``10**7``), so that its
  own time limit ends each search; it builds a fresh tree every move. ``uct_c=2`` on returns
  in ``[-1, 1]`` is mctslab's ``c=1`` on rewards in ``[0, 1]``.

Colours alternate: mctslab moves first in even-numbered games. Each move is applied to a
``pyspiel`` state and to an mctslab state in lockstep, and the two must agree on the player
to move, the legal moves, the end of the game and the returns. Both sides are timed around
their search call, so that equal time per move can be checked. The score is
``(wins + draws / 2) / games`` for mctslab, with 95% confidence intervals (normal
approximation on the per-game scores, and Wilson's). The run always exits 0 (benchmarks
record, tests assert); the numbers go to ``benchmarks/results/strength_connect_four.json``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import platform
import statistics
import sys
import time
from collections import Counter
from importlib import metadata
from pathlib import Path
from typing import Any

import pyspiel

import mctslab
from mctslab.search.compiled import CompiledMCTS
from mctslab.search.config import SearchConfig

RESULTS = Path(__file__).resolve().parent / "results" / "strength_connect_four.json"
OPENSPIEL_UCT_C = 2.0  # OpenSpiel's uct_c on returns in [-1, 1] (mctslab c=1.0 on [0, 1])
OPENSPIEL_MAX_SIMULATIONS = 10**7  # never reached: max_wall_clock_time ends each search
OPENSPIEL_MAX_MEMORY_MB = 1000  # far above what these searches use
TARGET = 0.75
Z95 = 1.959963984540054


def wilson(score: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval for a proportion ``score`` out of ``n`` trials."""
    if n == 0:
        return (0.0, 1.0)
    denom = 1.0 + z * z / n
    centre = (score + z * z / (2 * n)) / denom
    half = z * math.sqrt(score * (1 - score) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def normal_ci(scores: list[float], z: float = Z95) -> tuple[float, float]:
    """Normal approximation on the per-game scores (1, 1/2, 0)."""
    n = len(scores)
    mean = statistics.fmean(scores)
    if n < 2:
        return (0.0, 1.0)
    half = z * statistics.stdev(scores) / math.sqrt(n)
    return (max(0.0, mean - half), min(1.0, mean + half))


def openspiel_bot(game: Any, seconds: float, seed: int) -> Any:
    evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
    return pyspiel.MCTSBot(
        game,
        evaluator,
        OPENSPIEL_UCT_C,
        OPENSPIEL_MAX_SIMULATIONS,
        OPENSPIEL_MAX_MEMORY_MB,
        True,  # solve
        seed,
        False,  # verbose
        pyspiel.ChildSelectionPolicy.UCT,
        seconds,  # max_wall_clock_time
    )


def play_game(
    index: int, mctslab_first: bool, c: float, seconds: float, seed: int
) -> dict[str, Any]:
    """One game; returns its record (moves, per-move times and simulations, result)."""
    os_game = pyspiel.load_game("connect_four")
    os_state = os_game.new_initial_state()
    ml_state = mctslab.make("connect_four").new_initial_state()
    ml_seed = seed * 1_000_003 + index
    os_seed = (seed * 1_000_003 + index + 500_000) % (2**31 - 1)
    searcher = CompiledMCTS(
        SearchConfig(c=c, time=seconds, iterations=None, solver=True, seed=ml_seed)
    )
    bot = openspiel_bot(os_game, seconds, os_seed)
    ml_player = 0 if mctslab_first else 1
    moves: list[int] = []
    ml_times: list[float] = []
    ml_iters: list[int] = []
    ml_full: list[bool] = []  # did the search run to its time limit (no proof stopped it)?
    os_full: list[bool] = []
    os_times: list[float] = []
    os_sims: list[int] = []
    ml_proof: dict[str, Any] | None = None  # first move at which mctslab proved the root
    ml_first_reply: dict[str, Any] | None = None
    while not os_state.is_terminal():
        player = os_state.current_player()
        assert player == ml_state.current_player(), (moves, player)
        assert list(os_state.legal_actions()) == ml_state.legal_actions(), moves
        if player == ml_player:
            start = time.perf_counter()
            result = searcher.search(ml_state)
            ml_times.append(time.perf_counter() - start)
            ml_iters.append(result.iterations)
            ml_full.append(result.stopped_by == "time")
            action = result.action
            if ml_proof is None and result.proven is not None:
                ml_proof = {"ply": len(moves), "value": result.proven}
            if ml_first_reply is None:
                ml_first_reply = {
                    "ply": len(moves),
                    "action": action,
                    "iterations": result.iterations,
                    "visits": {ch.action: ch.visits for ch in result.children},
                }
        else:
            start = time.perf_counter()
            root = bot.mcts_search(os_state)
            os_times.append(time.perf_counter() - start)
            os_sims.append(int(root.explore_count))
            os_full.append(not root.outcome)
            action = int(root.best_child().action)
        os_state.apply_action(action)
        ml_state.apply_action(action)
        moves.append(action)
        assert os_state.is_terminal() == ml_state.is_terminal(), moves
    returns = list(os_state.returns())
    assert returns == ml_state.returns(), (moves, returns, ml_state.returns())
    r = returns[ml_player]
    return {
        "game": index,
        "mctslab_player": ml_player,
        "mctslab_seed": ml_seed,
        "openspiel_seed": os_seed,
        "moves": "".join(str(a + 1) for a in moves),
        "plies": len(moves),
        "result": "W" if r > 0 else ("L" if r < 0 else "D"),
        "score": 1.0 if r > 0 else (0.0 if r < 0 else 0.5),
        "mctslab_move_seconds": ml_times,
        "mctslab_iterations": ml_iters,
        "openspiel_move_seconds": os_times,
        "openspiel_simulations": os_sims,
        "mctslab_timed_out": ml_full,
        "openspiel_timed_out": os_full,
        "mctslab_proof": ml_proof,
        "mctslab_first_move": ml_first_reply,
    }


def _timed_out_moves(records: list[dict[str, Any]], side: str) -> list[float]:
    """Move times of the searches that ran to the time limit (no proof stopped them)."""
    return [
        t
        for g in records
        for t, full in zip(g[f"{side}_move_seconds"], g[f"{side}_timed_out"], strict=True)
        if full
    ]


def summarise(c: float, seconds: float, records: list[dict[str, Any]]) -> dict[str, Any]:
    scores = [g["score"] for g in records]
    n = len(records)
    score = statistics.fmean(scores)
    wdl = Counter(g["result"] for g in records)
    ml_t = [t for g in records for t in g["mctslab_move_seconds"]]
    os_t = [t for g in records for t in g["openspiel_move_seconds"]]
    ml_tf = _timed_out_moves(records, "mctslab")
    os_tf = _timed_out_moves(records, "openspiel")
    ml_i = [i for g in records for i in g["mctslab_iterations"]]
    os_s = [s for g in records for s in g["openspiel_simulations"]]
    openings = {
        "mctslab_first": Counter(g["moves"][0] for g in records if g["mctslab_player"] == 0),
        "openspiel_first": Counter(g["moves"][0] for g in records if g["mctslab_player"] == 1),
        "mctslab_reply": Counter(
            g["moves"][:2] for g in records if g["mctslab_player"] == 1 and g["plies"] >= 2
        ),
    }
    first_iters = [
        g["mctslab_first_move"]["iterations"] for g in records if g["mctslab_player"] == 0
    ]
    as_first = [g["score"] for g in records if g["mctslab_player"] == 0]
    as_second = [g["score"] for g in records if g["mctslab_player"] == 1]
    return {
        "c": c,
        "openspiel_uct_c": OPENSPIEL_UCT_C,
        "seconds_per_move": seconds,
        "games": n,
        "wins": wdl["W"],
        "draws": wdl["D"],
        "losses": wdl["L"],
        "score": score,
        "ci95_normal": normal_ci(scores),
        "ci95_wilson": wilson(score, n),
        "score_as_first": statistics.fmean(as_first) if as_first else None,
        "score_as_second": statistics.fmean(as_second) if as_second else None,
        "target": TARGET,
        "passed": score >= TARGET,
        "mctslab_mean_move_seconds": statistics.fmean(ml_t) if ml_t else 0.0,
        "openspiel_mean_move_seconds": statistics.fmean(os_t) if os_t else 0.0,
        "mctslab_mean_unsolved_move_seconds": statistics.fmean(ml_tf) if ml_tf else 0.0,
        "openspiel_mean_unsolved_move_seconds": statistics.fmean(os_tf) if os_tf else 0.0,
        "mctslab_unsolved_moves": len(ml_tf),
        "openspiel_unsolved_moves": len(os_tf),
        "mctslab_max_move_seconds": max(ml_t, default=0.0),
        "openspiel_max_move_seconds": max(os_t, default=0.0),
        "mctslab_moves": len(ml_t),
        "openspiel_moves": len(os_t),
        "mctslab_mean_iterations_per_move": statistics.fmean(ml_i) if ml_i else 0.0,
        "openspiel_mean_simulations_per_move": statistics.fmean(os_s) if os_s else 0.0,
        "mctslab_sims_per_s": sum(ml_i) / sum(ml_t) if ml_t else 0.0,
        "openspiel_sims_per_s": sum(os_s) / sum(os_t) if os_t else 0.0,
        "mctslab_opening_iterations_mean": statistics.fmean(first_iters) if first_iters else None,
        "openings_columns_1_based": {k: dict(sorted(v.items())) for k, v in openings.items()},
        "per_game": records,
    }


def render(s: dict[str, Any]) -> str:
    lo, hi = s["ci95_normal"]
    wlo, whi = s["ci95_wilson"]
    op = s["openings_columns_1_based"]
    lines = [
        f"mctslab c={s['c']} vs OpenSpiel MCTSBot uct_c={s['openspiel_uct_c']}, "
        f"{s['seconds_per_move']} s per move, {s['games']} games",
        f"  W/D/L                  {s['wins']}/{s['draws']}/{s['losses']}",
        f"  mctslab score          {s['score']:.3f}   95% CI normal [{lo:.3f}, {hi:.3f}]"
        f"   Wilson [{wlo:.3f}, {whi:.3f}]",
        f"  score as first/second  {_fmt(s['score_as_first'])} / {_fmt(s['score_as_second'])}",
        f"  mean time per move     mctslab {s['mctslab_mean_move_seconds']:.4f} s "
        f"({s['mctslab_moves']} moves, max {s['mctslab_max_move_seconds']:.4f})   "
        f"OpenSpiel {s['openspiel_mean_move_seconds']:.4f} s "
        f"({s['openspiel_moves']} moves, max {s['openspiel_max_move_seconds']:.4f})",
        f"  ... unsolved roots     mctslab {s['mctslab_mean_unsolved_move_seconds']:.4f} s "
        f"({s['mctslab_unsolved_moves']} moves)   "
        f"OpenSpiel {s['openspiel_mean_unsolved_move_seconds']:.4f} s "
        f"({s['openspiel_unsolved_moves']} moves)   (searches that ran to the time limit)",
        f"  simulations per move   mctslab {s['mctslab_mean_iterations_per_move']:.0f} "
        f"({s['mctslab_sims_per_s']:.0f}/s, reused tree)   "
        f"OpenSpiel {s['openspiel_mean_simulations_per_move']:.0f} "
        f"({s['openspiel_sims_per_s']:.0f}/s, fresh tree)",
        f"  openings (column 1-7)  mctslab first: {op['mctslab_first']}  "
        f"OpenSpiel first: {op['openspiel_first']}",
        f"  mctslab replies        {op['mctslab_reply']}",
        f"  mctslab iterations on its opening move: {_fmt(s['mctslab_opening_iterations_mean'], 0)}",
        f"  target score >= {s['target']:.2f}: {'PASS' if s['passed'] else 'MISS'}",
    ]
    return "\n".join(lines)


def _fmt(x: float | None, digits: int = 3) -> str:
    return "n/a" if x is None else f"{x:.{digits}f}"


def warm_up() -> float:
    """Load (or compile) the compiled engine, tree reuse included, before any timed move."""
    start = time.perf_counter()
    state = mctslab.make("connect_four").new_initial_state()
    searcher = CompiledMCTS(SearchConfig(iterations=100, solver=True))
    searcher.search(state)
    state.apply_action(3)
    state.apply_action(3)
    searcher.search(state)  # re-roots the kept tree: loads the compaction kernel too
    return time.perf_counter() - start


def versions() -> dict[str, str]:
    def version(dist: str) -> str:
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            return "not installed"

    return {
        "python": platform.python_version(),
        "mctslab": mctslab.__version__,
        "numba": version("numba"),
        "open_spiel": version("open-spiel"),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="games per value of c")
    parser.add_argument("--time", type=float, default=0.1, help="seconds per move, both sides")
    parser.add_argument("--seed", type=int, default=0, help="base seed of both sides")
    parser.add_argument(
        "--c",
        type=float,
        nargs="+",
        default=[1.0, 0.5],
        help="mctslab exploration constant(s), one match each (1.0: OpenSpiel's uct_c=2)",
    )
    parser.add_argument("--output", type=Path, default=RESULTS, help="where to write the JSON")
    args = parser.parse_args(argv)

    started = time.perf_counter()
    warm = warm_up()
    print(f"compiled engine loaded in {warm:.2f} s (not counted in any move)")
    print(
        f"OpenSpiel MCTSBot: uct_c={OPENSPIEL_UCT_C}, solve=True, RandomRolloutEvaluator(1, seed), "
        f"max_wall_clock_time={args.time} s, max_simulations={OPENSPIEL_MAX_SIMULATIONS} "
        "(its own time limit ends each search: no calibration of simulations needed)"
    )
    matches = []
    for c in args.c:
        print(f"\n== mctslab c={c}: {args.games} games at {args.time} s per move ==", flush=True)
        records = []
        total = 0.0
        for g in range(args.games):
            rec = play_game(g, g % 2 == 0, c, args.time, args.seed)
            records.append(rec)
            total += rec["score"]
            ml_t = rec["mctslab_move_seconds"]
            os_t = rec["openspiel_move_seconds"]
            proof = rec["mctslab_proof"]
            proof_text = (
                f"proved {proof['value']:+d} at ply {proof['ply']}" if proof else "no proof"
            )
            print(
                f"game {g + 1:>3}/{args.games}  mctslab {'first ' if g % 2 == 0 else 'second'}"
                f"  {rec['result']}  plies {rec['plies']:>2}  moves {rec['moves']:<42}"
                f"  time/move ml {statistics.fmean(ml_t):.3f} os {statistics.fmean(os_t):.3f}"
                f"  {proof_text:<22} score {total / (g + 1):.3f}",
                flush=True,
            )
        summary = summarise(c, args.time, records)
        matches.append(summary)
        print()
        print(render(summary), flush=True)

    report: dict[str, Any] = {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "machine": {
            "cpu_count": os.cpu_count(),
            "platform": platform.platform(),
            "load_average_at_end": list(os.getloadavg()),
        },
        "versions": versions(),
        "settings": {
            "games": args.games,
            "seconds_per_move": args.time,
            "seed": args.seed,
            "mctslab": "CompiledMCTS(SearchConfig(time=S, iterations=None, solver=True, c=C)), "
            "expansion='one', simulation='random', final='robust', tree reused between moves",
            "openspiel": "pyspiel.MCTSBot(uct_c=2.0, RandomRolloutEvaluator(1, seed), solve=True, "
            "max_wall_clock_time=S), fresh tree each move",
            "openspiel_max_simulations": OPENSPIEL_MAX_SIMULATIONS,
            "openspiel_max_memory_mb": OPENSPIEL_MAX_MEMORY_MB,
            "time_limit": "both sides stop on their own wall-clock limit; times measured "
            "around each search call",
            "mctslab_first_in": "even-numbered games (0-based)",
            "note": "plain UCT with random playouts is known to drift away from the centre "
            "column on the empty Connect Four board after about a million simulations",
        },
        "compile_or_load_seconds": warm,
        "matches": matches,
        "benchmark_seconds": time.perf_counter() - started,
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n")
    print(f"\nresults written to {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
