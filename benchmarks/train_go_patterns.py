"""Train the learned Go move patterns (Coulom 2007) from GNU Go's moves and write the
shipped model and its card:

    .venv/bin/python benchmarks/train_go_patterns.py

reproduces ``src/mctslab/games/go/data/patterns.npz`` and ``patterns.json``.

Data: the 9x9 games of ``benchmarks/results/go.db`` (the arena's store of
``bench_go.py``'s matches, komi 7.5, positional superko) up to game id ``--last-game``
(the store grows while matches run: the id pins the data) in which one seat is GNU Go
3.8 (a seat named ``gnugo<level>``; levels 1 and 10). Each game is replayed with
mctslab's rules; every position where GNU Go moved is a competition whose winner is
GNU Go's move, its passes included (the model has a pass feature; the rates are also
given without them). The other player's moves are not examples (mctslab's searches,
weaker and random). A fixed fifth of the games, those whose id is a multiple of 5, are
held out: no position of theirs is trained on.

Training: :func:`mctslab.games.go.learned.mm_train`, Coulom's MM with one virtual win
and one virtual loss against a gamma of 1 for every level, until a sweep gains less
than 1e-6 nats per position (at most 300 sweeps).

Report (printed and in the card): the held-out top-1 and top-5 rates (the share of
positions whose move played is among the 1 or 5 moves of highest gamma, ties broken at
random) against two baselines on the same positions: a uniformly random legal move,
and the prior-knowledge kernel (:func:`mctslab.games.go.priors.knowledge`, Michi's
node priors) ranking the legal moves by their prior mean ``wins / visits`` and by
their virtual wins (the mean weighted by its visits); the mean log-probability of the
move played; the share of held-out positions that also occur in training (GNU Go is
deterministic and its openings repeat) and the rates on the others.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from mctslab.games.go.game import Go
from mctslab.games.go.learned import (
    FAMILIES,
    FAMILY_SIZES,
    PAT3_CLASS,
    PATTERNS_PATH,
    Competitions,
    competitions,
    feature_names,
    log_likelihood,
    mm_train,
    move_features,
    prediction_rates,
    save_patterns,
)
from mctslab.games.go.priors import knowledge

ROOT = Path(__file__).resolve().parents[1]
DB = ROOT / "benchmarks" / "results" / "go.db"
#: The last game of the store when the shipped model was trained (2026-11-27).
LAST_GAME = 1341
TEACHER = "gnugo"
HOLD_OUT = 5  # games whose id is a multiple: held out
CHECK_GAMES = 3  # held-out games copied into the card, for the tests to recompute


@dataclass
class Record:
    """One game of the store: its id, moves, and whether GNU Go made each."""

    game_id: int
    seats: list[str]
    moves: list[int]
    teacher: list[bool]


def read_games(db: Path, last_game: int) -> list[Record]:
    """The 9x9 games with a GNU Go seat, up to ``last_game``, in the order of their ids."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    rows = con.execute(
        "SELECT g.id, g.seats, g.moves, g.movers, r.config FROM games g "
        "JOIN runs r ON r.id = g.run_id WHERE g.id <= ? ORDER BY g.id",
        (last_game,),
    ).fetchall()
    con.close()
    records = []
    for game_id, seats, moves, movers, config in rows:
        names = json.loads(seats)
        params = json.loads(config)["game_params"]
        if params.get("board_size") != 9 or not any(s.startswith(TEACHER) for s in names):
            continue
        teacher = [names[m].startswith(TEACHER) for m in json.loads(movers)]
        records.append(Record(game_id, names, json.loads(moves), teacher))
    return records


def knowledge_scores(game: Go, records: list[Record]) -> tuple[npt.NDArray[np.float64], ...]:
    """The prior-knowledge kernel's virtual visits and wins of every legal move of each
    example position, in the rows' order of :func:`competitions` (actions ascending)."""
    nn = game.board_size**2
    buf = np.empty((nn + 1, len(FAMILIES)), dtype=np.int64)
    visits = np.empty(nn + 1, dtype=np.int64)
    wins = np.empty(nn + 1, dtype=np.int64)
    out_v: list[npt.NDArray[np.int64]] = []
    out_w: list[npt.NDArray[np.int64]] = []
    for rec in records:
        state = game.new_initial_state()
        for a, example in zip(rec.moves, rec.teacher, strict=True):
            if example:
                move_features(state.array, game.params, PAT3_CLASS, buf)
                legal = np.flatnonzero(buf[:, 0] >= 0)
                knowledge(state.array, game.params, visits, wins)
                out_v.append(visits[legal].copy())
                out_w.append(wins[legal].copy())
            state.apply_action(a)
    v = np.concatenate(out_v).astype(np.float64)
    w = np.concatenate(out_w).astype(np.float64)
    return v, w


def rates(
    scores: npt.NDArray[np.float64], comp: Competitions, keep: npt.NDArray[np.bool_]
) -> list[float]:
    """Top-1 and top-5 rates of ``scores`` (one per row) on the positions ``keep``."""
    starts = comp.starts
    rows = np.repeat(keep, np.diff(starts))
    sub_starts = np.concatenate([[0], np.cumsum(np.diff(starts)[keep])])
    chosen = comp.chosen[keep] - starts[:-1][keep] + sub_starts[:-1]
    return [round(x, 4) for x in prediction_rates(scores[rows], sub_starts, chosen)]


def evaluate(
    gammas: npt.NDArray[np.float64],
    comp: Competitions,
    visits: npt.NDArray[np.float64],
    wins: npt.NDArray[np.float64],
    seen: npt.NDArray[np.bool_],
) -> dict[str, Any]:
    """The held-out report: the model's and the baselines' rates on all positions, on
    those where the move played is not the pass, and on those not met in training."""
    lg = np.log(gammas)[comp.features].sum(axis=1)
    n = np.diff(comp.starts)
    is_pass = comp.features[comp.chosen, 0] != 0
    subsets = {
        "all": np.ones(len(comp.chosen), dtype=bool),
        "no_pass": ~is_pass,
        "unseen": ~seen,
    }
    scorers = {
        "model": lg,
        "uniform": np.zeros(len(lg)),
        "knowledge_mean": wins / visits,
        "knowledge_wins": wins,
    }
    out: dict[str, Any] = {
        "positions": {k: int(m.sum()) for k, m in subsets.items()},
        "mean_legal_moves": round(float(n.mean()), 2),
        "log_likelihood_per_move": {
            "model": round(log_likelihood(gammas, comp) / len(n), 4),
            "uniform": round(float(-np.log(n).mean()), 4),
        },
    }
    for name, scores in scorers.items():
        out[name] = {
            k: dict(zip(("top1", "top5"), rates(scores, comp, m), strict=True))
            for k, m in subsets.items()
        }
    return out


def check_block(gammas: npt.NDArray[np.float64], game: Go, held: list[Record]) -> dict[str, Any]:
    """A few held-out games, their moves and the model's rates on them, for the tests."""
    games = held[:CHECK_GAMES]
    comp = competitions(game, [(r.moves, r.teacher) for r in games])
    lg = np.log(gammas)[comp.features].sum(axis=1)
    top1, top5 = prediction_rates(lg, comp.starts, comp.chosen)
    return {
        "games": [{"id": r.game_id, "moves": r.moves, "teacher": r.teacher} for r in games],
        "positions": len(comp.chosen),
        "top1": top1,
        "top5": top5,
        "log_likelihood": log_likelihood(gammas, comp),
    }


def top_features(gammas: npt.NDArray[np.float64]) -> dict[str, float]:
    """Every gamma but the pattern classes', by name."""
    names = feature_names()
    small = sum(FAMILY_SIZES[:-1])
    return {names[i]: round(float(gammas[i]), 4) for i in range(small)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path, default=DB)
    parser.add_argument("--last-game", type=int, default=LAST_GAME)
    parser.add_argument("--sweeps", type=int, default=300)
    parser.add_argument("--tol", type=float, default=1e-6)
    parser.add_argument("--out", type=Path, default=PATTERNS_PATH)
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    game = Go(board_size=9, komi=7.5, max_game_length=243)
    records = read_games(args.db, args.last_game)
    train = [r for r in records if r.game_id % HOLD_OUT != 0]
    held = [r for r in records if r.game_id % HOLD_OUT == 0]
    comp = competitions(game, [(r.moves, r.teacher) for r in train])
    test = competitions(game, [(r.moves, r.teacher) for r in held])
    t1 = time.perf_counter()
    print(
        f"{len(train)} training games ({len(comp.chosen)} positions), {len(held)} held out ({len(test.chosen)}): {t1 - t0:.1f} s"
    )
    gammas, history = mm_train(comp, sweeps=args.sweeps, tol=args.tol)
    t2 = time.perf_counter()
    print(
        f"MM: {len(history) - 1} sweeps, log-posterior {history[0]:.1f} -> {history[-1]:.1f}: {t2 - t1:.1f} s"
    )
    visits, wins = knowledge_scores(game, held)
    seen = np.isin(test.keys, comp.keys)
    report = evaluate(gammas, test, visits, wins, seen)
    train_lg = np.log(gammas)[comp.features].sum(axis=1)
    train_rates = prediction_rates(train_lg, comp.starts, comp.chosen)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    save_patterns(args.out, gammas)
    elapsed = time.perf_counter() - t0
    card = {
        "description": (
            "Coulom's generalized Bradley-Terry model of the move played (Coulom 2007, "
            "'Computing Elo ratings of move patterns in the game of Go'), trained by MM on "
            "GNU Go 3.8's moves (levels 1 and 10, passes included) in the 9x9 games of "
            "benchmarks/results/go.db; a fifth of the games (id a multiple of 5) held out."
        ),
        "command": [
            "python",
            "benchmarks/train_go_patterns.py",
            *(argv if argv is not None else sys.argv[1:]),
        ],
        "date": time.strftime("%Y-%m-%d"),
        "seconds": round(elapsed, 1),
        "data": {
            "db": "benchmarks/results/go.db",
            "last_game": args.last_game,
            "game_params": {"board_size": 9, "komi": 7.5, "superko": "positional"},
            "teacher": "GNU Go 3.8 (seats gnugo1 and gnugo10)",
            "games": {"train": len(train), "held_out": len(held)},
            "positions": {"train": len(comp.chosen), "held_out": len(test.chosen)},
            "held_out_seen_in_training": round(float(seen.mean()), 4),
        },
        "families": dict(zip(FAMILIES, FAMILY_SIZES, strict=True)),
        "features": int(sum(FAMILY_SIZES)),
        "training": {
            "sweeps": len(history) - 1,
            "pat3_classes_met": int(np.unique(comp.features[:, -1]).size - 1),
            "prior": "1 virtual win and 1 virtual loss against gamma 1, every level",
            "log_posterior": [round(history[0], 1), round(history[-1], 1)],
            "train_top1_top5": [round(x, 4) for x in train_rates],
        },
        "held_out": report,
        "gammas": top_features(gammas),
        "check": check_block(gammas, game, held),
    }
    card_path = args.out.with_suffix(".json")
    card_path.write_text(json.dumps(card, indent=1) + "\n", encoding="utf-8")
    print_report(report, card)
    print(f"wrote {args.out} and {card_path} in {elapsed:.1f} s")
    return 0


def print_report(report: dict[str, Any], card: dict[str, Any]) -> None:
    print(
        f"held-out positions: {report['positions']}, legal moves {report['mean_legal_moves']} on average"
    )
    print(f"seen in training: {card['data']['held_out_seen_in_training']:.1%}")
    print(f"{'':16s} {'all':>14s} {'no pass':>14s} {'unseen':>14s}   (top-1 / top-5)")
    for name in ("model", "uniform", "knowledge_mean", "knowledge_wins"):
        cells = [
            f"{report[name][k]['top1']:.3f} / {report[name][k]['top5']:.3f}"
            for k in ("all", "no_pass", "unseen")
        ]
        print(f"{name:16s} " + " ".join(f"{c:>14s}" for c in cells))
    print(f"log-likelihood per move: {report['log_likelihood_per_move']}")
    print(f"training top-1 / top-5: {card['training']['train_top1_top5']}")
    for name, g in card["gammas"].items():
        print(f"  {name:32s} {g:8.3f}")


if __name__ == "__main__":
    raise SystemExit(main())
