"""Known-result matches for chance and hidden information: Knockout Whist and Pig.

Run ``python benchmarks/cards_and_dice.py [--only NAME] [--games N] [--workers W]``.
Each match is a ``mctslab arena`` run (colours swapped in pairs, every game
stored, dice and deals drawn from the game's seed so both games of a pair are
dealt alike):

- ``whist_ismcts_vs_random``: SO-ISMCTS with 1,000 iterations a move against a
  random player, 2-player Knockout Whist (target: at least 65% wins, as reported
  for the reference implementation by Cowling, Powley and Whitehouse 2012);
- ``whist_ismcts_vs_pimc``: SO-ISMCTS against PIMC (10 determinizations),
  1,000 iterations a move each;
- ``whist3_ismcts_vs_random``: 3-player Knockout Whist, ISMCTS in one seat
  and random players in the others (max^n statistics; a fair share is 1/3);
- ``pig_mcts_vs_hold20``: MCTS (reference engine, chance nodes in the tree,
  1,000 iterations, random playouts) against the classic "hold at 20"
  strategy, Pig to 100;
- ``pig_mcts_cutoff_vs_hold20``: the same with the playout cut at once and
  scored by Pig's ``heuristic()`` (progress to the target, the turn total
  counted): the tree itself weighs a roll's risk;
- ``pig_random_playout_length``: no match, but what a random playout is to the
  MCTS above: ``--playouts`` games of Pig to 100 between two uniformly random
  players (roll or stop, the dice from the game's chance outcomes, seeds 0 to
  ``--playouts`` - 1), counting the players' decisions (chance outcomes not
  counted) and the games cut by the horizon; the mean, median and quartiles.

The 3-player match plays :func:`mctslab.players.player.play_game` directly (the arena
pairs two players), rotating ISMCTS through the seats.

Writes ``benchmarks/results/cards_and_dice.json``: for every match the first
player's wins, draws and losses, per side too, with Wilson 95% intervals on the
win rate (the date and machine of the last match run); the playout lengths, with
their own date and machine, under ``pig_random_playout``. Iteration budgets: the results do not depend on the machine's speed.
About 40 minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import multiprocessing
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from bohnenspiel_vs_minimax import RESULTS, machine, wilson

import mctslab
from mctslab.arena.store import ResultStore
from mctslab.players.player import make_player, play_game

MATCHES: dict[str, dict[str, Any]] = {
    "whist_ismcts_vs_random": {
        "game": "knockout_whist",
        "a": ("ismcts", "ismcts:iterations=1000"),
        "b": ("random", "random"),
        "games": 200,
        "target": 0.65,
    },
    "whist_ismcts_vs_pimc": {
        "game": "knockout_whist",
        "a": ("ismcts", "ismcts:iterations=1000"),
        "b": ("pimc", "pimc:iterations=1000,determinizations=10"),
        "games": 100,
    },
    "pig_mcts_vs_hold20": {
        "game": "pig",
        "a": ("mcts", "mcts:iterations=1000"),
        "b": ("hold20", "pig-hold:at=20"),
        "games": 100,
    },
    "pig_mcts_cutoff_vs_hold20": {
        "game": "pig",
        "a": ("mcts", "mcts:iterations=1000,simulation=cutoff,cutoff_depth=0"),
        "b": ("hold20", "pig-hold:at=20"),
        "games": 200,
    },
}
THREE_PLAYER = {
    "game": "knockout_whist",
    "params": {"players": 3},
    "spec": "ismcts:iterations=1000",
    "games": 60,
}


def summary(scores: list[float], target: float | None = None) -> dict[str, Any]:
    n = len(scores)
    wins = sum(1 for s in scores if s == 1.0)
    draws = sum(1 for s in scores if s == 0.5)
    out: dict[str, Any] = {
        "games": n,
        "wins": wins,
        "draws": draws,
        "losses": n - wins - draws,
        "win_rate": wins / n if n else 0.0,
        "win_rate_95": wilson(wins, n),
    }
    if target is not None:
        out["target"] = target
        out["pass"] = n > 0 and wins / n >= target
    return out


def arena_match(name: str, match: dict[str, Any], games: int | None, workers: int) -> dict:  # type: ignore[type-arg]
    a_name, a_spec = match["a"]
    b_name, b_spec = match["b"]
    n = games or match["games"]
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "games.db"
        cmd = [
            sys.executable, "-m", "mctslab", "arena", match["game"],
            "--player", f"{a_name}={a_spec}", "--player", f"{b_name}={b_spec}",
            "--games", str(n), "--seed", "2026", "--workers", str(workers),
            "--db", str(db), "--json", "--no-progress",
        ]  # fmt: skip
        print(f"{name}: mctslab {' '.join(cmd[3:])}", flush=True)
        start = time.perf_counter()
        done = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, check=True)
        seconds = time.perf_counter() - start
        with ResultStore(db) as store:
            run = store.runs(match["game"])[-1]
            records = list(store.games([run.id]))
    all_scores = [s for r in records if (s := r.score_of(a_name)) is not None]
    first = [s for r in records if r.seats[0] == a_name and (s := r.score_of(a_name)) is not None]
    second = [s for r in records if r.seats[1] == a_name and (s := r.score_of(a_name)) is not None]
    out = {
        "game": match["game"],
        "player": a_spec,
        "opponent": b_spec,
        "all": summary(all_scores, match.get("target")),
        "first": summary(first),
        "second": summary(second),
        "errors": [r.error for r in records if r.error],
        "seconds": seconds,
        "arena": json.loads(done.stdout),
    }
    s = out["all"]
    lo, hi = s["win_rate_95"]
    print(f"  {a_name} vs {b_name}: {s['wins']}-{s['draws']}-{s['losses']} (W-D-L), "
          f"wins {s['win_rate']:.1%} [{lo:.1%}, {hi:.1%}]", flush=True)  # fmt: skip
    return out


def three_player_game(i: int) -> bool:
    """Game ``i``: ISMCTS in seat ``i % 3``, each deal played three times (once a seat)."""
    game = mctslab.make(THREE_PLAYER["game"], **THREE_PLAYER["params"])
    seat = i % 3
    players = [make_player("random", game.info, 100 * i + p) for p in range(3)]
    players[seat] = make_player(THREE_PLAYER["spec"], game.info, 100 * i + seat)
    final = play_game(game.new_initial_state(), players, chance_seed=i // 3)
    return final.returns()[seat] > 0


def three_player(games: int | None, workers: int) -> dict[str, Any]:
    n = games or THREE_PLAYER["games"]
    print(f"whist3_ismcts_vs_random: {n} games", flush=True)
    start = time.perf_counter()
    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        wins = sum(pool.map(three_player_game, range(n)))
    lo, hi = wilson(wins, n)
    print(f"  ismcts in 3-player whist: {wins}/{n} wins [{lo:.1%}, {hi:.1%}]", flush=True)
    return {
        "game": "knockout_whist(players=3)",
        "player": THREE_PLAYER["spec"],
        "opponents": "random, random",
        "games": n,
        "wins": wins,
        "win_rate": wins / n,
        "win_rate_95": (lo, hi),
        "fair_share": 1 / 3,
        "seconds": time.perf_counter() - start,
    }


def pig_random_playout(playouts: int) -> dict[str, Any]:
    """Decisions (rolls and stops, not dice) in ``playouts`` random games of Pig to 100."""
    from mctslab.core.game import CHANCE, sample_chance_outcome
    from mctslab.core.rng import Rng

    game = mctslab.make("pig")
    print(f"pig_random_playout_length: {playouts} random games of Pig to {game.target}")
    start = time.perf_counter()
    decisions: list[int] = []
    plies: list[int] = []
    at_horizon = 0
    for seed in range(playouts):
        rng = Rng(seed)
        state = game.new_initial_state()
        count = 0
        while not state.is_terminal():
            if state.current_player() == CHANCE:
                state.apply_action(sample_chance_outcome(state, rng))
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.randint(len(legal))])
                count += 1
        decisions.append(count)
        plies.append(len(state.history()))
        at_horizon += all(r == 0 for r in state.returns())
    q1, median, q3 = statistics.quantiles(decisions, n=4)
    print(
        f"  decisions: mean {statistics.fmean(decisions):.1f}, median {median:g}; "
        f"plies with the dice: mean {statistics.fmean(plies):.1f}"
    )
    return {
        "game": f"pig(target={game.target})",
        "players": "uniformly random legal actions (roll or stop)",
        "playouts": playouts,
        "seeds": f"0 to {playouts - 1} (one Rng for the players and the dice)",
        "decisions_mean": statistics.fmean(decisions),
        "decisions_median": median,
        "decisions_quartiles": [q1, q3],
        "decisions_min_max": [min(decisions), max(decisions)],
        "plies_mean": statistics.fmean(plies),
        "plies_median": statistics.median(plies),
        "ended_without_a_winner": at_horizon,
        "seconds": time.perf_counter() - start,
        "date": dt.date.today().isoformat(),
        "machine": machine(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    names = [*MATCHES, "whist3_ismcts_vs_random", "pig_random_playout_length"]
    parser.add_argument("--only", choices=names, action="append", help="run these matches only")
    parser.add_argument("--games", type=int, default=None, help="games per match")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--playouts", type=int, default=10_000, help="random Pig games")
    parser.add_argument("--output-dir", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    args.output_dir.mkdir(parents=True, exist_ok=True)
    out_path = args.output_dir / "cards_and_dice.json"
    report: dict[str, Any] = {}
    if out_path.exists() and args.only:
        report = json.loads(out_path.read_text())  # update the chosen matches only
    report.setdefault("matches", {})
    for name in args.only or names:
        if name == "pig_random_playout_length":  # its own date and machine
            report["pig_random_playout"] = pig_random_playout(args.playouts)
            out_path.write_text(json.dumps(report, indent=2) + "\n")
            continue
        if name == "whist3_ismcts_vs_random":
            report["matches"][name] = three_player(args.games, args.workers)
        else:
            report["matches"][name] = arena_match(name, MATCHES[name], args.games, args.workers)
        report["date"] = dt.date.today().isoformat()
        report["machine"] = machine()
        out_path.write_text(json.dumps(report, indent=2) + "\n")
    print(f"written {out_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
