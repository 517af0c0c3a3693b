"""Playout rules at equal iterations: ``verdict`` and fixed-depth ``cutoff`` against random.

Run ``python benchmarks/playout_rules.py [--games N] [--quick] [--workers W]``.
For Connect Four and for Bohnenspiel it runs two ``mctslab tune`` grids against the same
opponent, plain MCTS with random playouts at the same iteration budget::

    mctslab tune GAME --param verdict_threshold=0.2,0.3,0.4,0.5 \\
        --player mcts:iterations=N,simulation=verdict,verdict_every=2 \\
        --opponent mcts:iterations=N --games G --openings 2 --seed 0 --json
    mctslab tune GAME --param cutoff_depth=2,4,8,16 \\
        --player mcts:iterations=N,simulation=cutoff --opponent mcts:iterations=N ...

``verdict``: a random playout whose position the game's heuristic judges every
``verdict_every`` plies (from its first position on); a player's heuristic at least
``verdict_threshold`` ends it at once as that player's win. ``cutoff``: ``cutoff_depth``
random plies, then the heuristic scores the position. Games are played in colour-swapped
pairs with the same seeds for every value (paired comparison), after ``--openings``
random plies so that the games vary. Defaults: 1000 iterations a move in both games,
2000 games per value (16 values, 32,000 games), about 13 minutes on 2 cores. The budgets
are iteration counts, so the games (and the scores) do not depend on the machine's speed or
load. For reference, the heuristics' |h| over random-game positions: Connect Four median
0.10, 90% 0.30, 99% 0.44; Bohnenspiel median 0.08, 90% 0.28, 99% 0.50.

Besides the matches it measures, cheaply and in this process: each rule's playouts from
positions of random games (mean plies, the share cut short, and for ``verdict`` how often
a random playout continued from the cut agrees with the verdict), and the seconds a move
of each player takes (machine dependent; the engine the players use).

It writes ``benchmarks/results/playout_rules.json`` (the commands' ``--json`` outputs,
with the date, machine, versions and wall times) and ``playout_rules.png`` (score against
the value, 95% error bars). ``--quick``: a few games at tiny budgets (a smoke test, under
2 minutes; it writes to a temporary folder unless ``--output-dir`` names one).
It exits 0 whatever it measures, and with a command's status if a command fails.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import shlex
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import common

RESULTS = Path(__file__).resolve().parent / "results"
GAMES = ("connect_four", "bohnenspiel")
RULES = ("verdict", "cutoff")


def machine() -> dict[str, Any]:
    """The machine and versions (:mod:`common`), and the load at the end."""
    return {
        **common.machine(),
        **common.versions("mctslab", "numba"),
        "load_average_at_end": list(os.getloadavg()),
    }


def base_spec(rule: str, iterations: int, verdict_every: int) -> str:
    if rule == "verdict":
        return f"mcts:iterations={iterations},simulation=verdict,verdict_every={verdict_every}"
    return f"mcts:iterations={iterations},simulation=cutoff"


def run_tune(
    game: str, param: str, player: str, opponent: str, args: argparse.Namespace, tmp: Path
) -> tuple[str, float, dict[str, Any]] | int:
    """One ``mctslab tune`` run: (command, wall seconds, its JSON), or its exit status."""
    command = ["mctslab", "tune", game, "--param", param, "--player", player,
               "--opponent", opponent, "--games", str(args.games),
               "--openings", str(args.openings), "--seed", str(args.seed),
               "--workers", str(args.workers), "--json", "--no-progress"]  # fmt: skip
    proc, wall = common.run_mctslab(command[1:], tmp / f"{game}_{param.split('=')[0]}.db")
    if proc.returncode != 0:
        print(proc.stderr, file=sys.stderr)
        return proc.returncode
    print(f"  {wall:.0f} s", flush=True)
    return shlex.join(command), wall, json.loads(proc.stdout)


# --- playouts from random-game positions (a rule's cost and bias, apart from any tree) ---


def random_positions(game: Any, n: int, rng: random.Random) -> list[Any]:
    """``n`` non-terminal positions, each at a uniformly random ply of its own random game."""
    positions = []
    while len(positions) < n:
        state = game.new_initial_state()
        seen = []
        while not state.is_terminal():
            seen.append(state.clone())
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
        positions.append(rng.choice(seen))
    return positions


def play_to_end(state: Any, rng: random.Random) -> int:
    plies = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
        plies += 1
    return plies


def playout(state: Any, rule: str, value: float, every: int, rng: random.Random) -> dict:
    """One playout as ``mcts.simulate`` plays it: plies, how it ended, the called winner."""
    from mctslab.core.game import heuristic_or_none

    plies = 0
    while not state.is_terminal():
        if rule == "cutoff" and plies >= value:
            return {"plies": plies, "cut": True, "winner": None}
        if rule == "verdict" and plies % every == 0:
            h = heuristic_or_none(state)
            assert h is not None
            for p, v in enumerate(h):
                if v >= value:
                    return {"plies": plies, "cut": True, "winner": p}
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
        plies += 1
    return {"plies": plies, "cut": False, "winner": None}


def playout_stats(
    game: Any, positions: list[Any], rule: str, value: float, every: int, seed: int
) -> dict[str, Any]:
    rng = random.Random(seed)
    plies, cuts, agree = [], 0, []
    for pos in positions:
        state = pos.clone()
        out = playout(state, rule, value, every, rng)
        plies.append(out["plies"])
        cuts += out["cut"]
        if out["winner"] is not None:  # would a random playout from the cut agree?
            play_to_end(state, rng)
            r = state.returns()
            best = max(r)
            agree.append(
                1.0 if r[out["winner"]] == best and r.count(best) == 1 else
                0.5 if r[out["winner"]] == best else 0.0
            )  # fmt: skip
    return {
        "positions": len(positions),
        "mean_plies": statistics.fmean(plies),
        "cut_share": cuts / len(positions),
        "verdict_agreement": statistics.fmean(agree) if agree else None,
        "verdicts": len(agree),
    }


def seconds_per_move(game: Any, spec: str, positions: list[Any], seed: int) -> float:
    """Mean seconds of ``choose`` over ``positions`` (a fresh player each; warmed up)."""
    from mctslab.players.player import make_player

    info = game.info
    make_player(spec, info, seed).choose(positions[0].clone())  # compile / warm up
    total = 0.0
    for i, pos in enumerate(positions):
        player = make_player(spec, info, seed + i)
        state = pos.clone()
        start = time.perf_counter()
        player.choose(state)
        total += time.perf_counter() - start
    return total / len(positions)


def side_measurements(
    name: str, iterations: int, grids: dict[str, list[float]], args: argparse.Namespace
) -> dict[str, Any]:
    import mctslab.games  # noqa: F401  (registers the games)
    from mctslab.core.registry import make

    game = make(name)
    rng = random.Random(args.seed)
    positions = [p for p in random_positions(game, args.playout_positions, rng)]
    timing = [p for p in positions if len(p.legal_actions()) > 1][: args.timing_positions]
    out: dict[str, Any] = {
        "playout_positions": len(positions),
        "timing_positions": len(timing),
        "random": {
            "playouts": playout_stats(game, positions, "random", 0, 1, args.seed),
            "seconds_per_move": seconds_per_move(
                game, f"mcts:iterations={iterations}", timing, args.seed
            ),
        },
    }
    for rule, values in grids.items():
        for v in values:
            spec = base_spec(rule, iterations, args.verdict_every)
            spec += f",{'verdict_threshold' if rule == 'verdict' else 'cutoff_depth'}={v}"
            out[f"{rule}={v}"] = {
                "playouts": playout_stats(game, positions, rule, v, args.verdict_every, args.seed),
                "seconds_per_move": seconds_per_move(game, spec, timing, args.seed),
            }
    return out


# --- report ---


def fmt_elo(v: dict[str, Any]) -> str:
    def one(x: float | None, inf: str) -> str:
        return inf if x is None else f"{round(x):+d}"

    inf = "+inf" if v["score"] > 0.5 else "-inf"
    return f"{one(v['elo'], inf):>5} [{one(v['elo_low'], '-inf')}, {one(v['elo_high'], '+inf')}]"


def print_table(name: str, entry: dict[str, Any]) -> None:
    side = entry.get("side", {})
    print(f"\n{name}: {entry['iterations']} iterations a move, both sides; "
          f"{entry['openings']} random opening plies; opponent random playouts")  # fmt: skip
    print(f"{'rule':<8} {'value':>5} {'games':>5} {'W-D-L':>12} {'score':>6}"
          f" {'95% interval':>15} {'Elo [95%]':>18} {'P(best)':>7}"
          f"  {'plies':>5} {'cut':>4} {'agree':>5} {'ms/mv':>6}")  # fmt: skip

    def side_cols(key: str) -> str:
        s = side.get(key)
        if not s:
            return ""
        pl = s["playouts"]
        agree = "" if pl["verdict_agreement"] is None else f"{pl['verdict_agreement']:.2f}"
        return (f"  {pl['mean_plies']:>5.1f} {pl['cut_share']:>4.0%} {agree:>5}"
                f" {1000 * s['seconds_per_move']:>6.1f}")  # fmt: skip

    print(f"{'random':<8} {'':>5} {'':>5} {'':>12} {0.5:>6.3f} {'(the opponent)':>15} "
          f"{'':>18} {'':>7}{side_cols('random')}")  # fmt: skip
    for rule in RULES:
        result = entry["rules"][rule]["result"]
        for v in result["values"]:
            mark = " *" if v["value"] == result["best"] else ""
            wdl = f"{v['wins']}-{v['draws']}-{v['losses']}"
            print(f"{rule:<8} {v['value']:>5g} {v['games']:>5} {wdl:>12} {v['score']:>6.3f}"
                  f"  [{v['low']:.3f}, {v['high']:.3f}] {fmt_elo(v):>18} {v['p_best']:>7.2f}"
                  f"{side_cols(rule + '=' + str(v['value']))}{mark}")  # fmt: skip
    for rule in RULES:
        print(f"  {rule}: {entry['rules'][rule]['result']['verdict']}")


def plot(report: dict[str, Any], png: Path) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, axes = plt.subplots(len(GAMES), len(RULES), figsize=(10, 7), squeeze=False)
    for i, name in enumerate(GAMES):
        entry = report["games"][name]
        for j, rule in enumerate(RULES):
            ax = axes[i][j]
            vals = entry["rules"][rule]["result"]["values"]
            xs = list(range(len(vals)))
            ys = [v["score"] for v in vals]
            err = [[v["score"] - v["low"] for v in vals], [v["high"] - v["score"] for v in vals]]
            ax.errorbar(xs, ys, yerr=err, fmt="o", capsize=4)
            ax.axhline(0.5, color="grey", lw=0.8, ls="--")
            ax.set_xticks(xs, [f"{v['value']:g}" for v in vals])
            ax.set_xlabel("verdict_threshold" if rule == "verdict" else "cutoff_depth")
            ax.set_ylabel("score vs random playouts")
            ax.set_ylim(0, 1)
            ax.set_title(f"{name}: {rule} ({entry['iterations']} it., {vals[0]['games']} games)")
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)
    return True


def parse_grid(text: str) -> list[float]:
    return [float(x) if "." in x else int(x) for x in text.split(",")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="games per value (even)")
    parser.add_argument("--iterations-connect-four", type=int, default=1000)
    parser.add_argument("--iterations-bohnenspiel", type=int, default=1000)
    parser.add_argument("--thresholds", default="0.2,0.3,0.4,0.5", help="verdict_threshold")
    parser.add_argument("--depths", default="2,4,8,16", help="cutoff_depth grid")
    parser.add_argument("--verdict-every", type=int, default=2)
    parser.add_argument("--openings", type=int, default=2, help="random plies first")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--playout-positions", type=int, default=2000)
    parser.add_argument("--timing-positions", type=int, default=30)
    parser.add_argument("--games-only", nargs="*", choices=GAMES, default=list(GAMES))
    parser.add_argument("--quick", action="store_true", help="a smoke test: tiny budgets")
    parser.add_argument("--output-dir", type=Path, default=None, help="default: results/")
    args = parser.parse_args(argv)
    if args.quick:
        args.games, args.iterations_connect_four, args.iterations_bohnenspiel = 4, 100, 100
        args.thresholds, args.depths = "0.3,0.5", "2,8"
        args.playout_positions, args.timing_positions = 50, 3
    iterations = {
        "connect_four": args.iterations_connect_four,
        "bohnenspiel": args.iterations_bohnenspiel,
    }
    grids = {"verdict": parse_grid(args.thresholds), "cutoff": parse_grid(args.depths)}
    params = {"verdict": "verdict_threshold", "cutoff": "cutoff_depth"}

    if args.output_dir is None:  # a smoke test leaves the real results alone
        args.output_dir = (
            Path(tempfile.gettempdir()) / "playout_rules_quick" if args.quick else RESULTS
        )
    args.output_dir.mkdir(parents=True, exist_ok=True)
    stem = "playout_rules"
    out, png = args.output_dir / f"{stem}.json", args.output_dir / f"{stem}.png"
    report: dict[str, Any] = {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "settings": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
        "games": {},
    }
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.games_only:
            n = iterations[name]
            entry: dict[str, Any] = {"iterations": n, "openings": args.openings, "rules": {}}
            for rule in RULES:
                grid = f"{params[rule]}={','.join(str(v) for v in grids[rule])}"
                got = run_tune(
                    name,
                    grid,
                    base_spec(rule, n, args.verdict_every),
                    f"mcts:iterations={n}",
                    args,
                    Path(tmp),
                )
                if isinstance(got, int):
                    return got
                command, wall, result = got
                entry["rules"][rule] = {"command": command, "wall_seconds": wall, "result": result}
            t = time.perf_counter()
            entry["side"] = side_measurements(name, n, grids, args)
            entry["side_wall_seconds"] = time.perf_counter() - t
            report["games"][name] = entry
            print_table(name, entry)
    report["wall_seconds"] = time.perf_counter() - start
    report["machine"] = machine()
    out.write_text(json.dumps(report, indent=2) + "\n")
    wrote = [str(out)]
    if set(args.games_only) == set(GAMES) and plot(report, png):
        wrote.append(str(png))
    print(f"\n{report['wall_seconds']:.0f} s; results written to {' and '.join(wrote)}")
    print("columns: plies = mean playout length from random-game positions; cut = share of "
          "playouts cut short; agree = how often a random playout from a verdict's position "
          "agrees with it; ms/mv = milliseconds a move (this machine)")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
