"""When MCTS, when minimax: MCTS against iterative-deepening alpha-beta at equal time.

Run ``python benchmarks/bench_mcts_vs_minimax.py [--row GAME:SECONDS:GAMES ...]
[--workers W] [--resume]``.

Each row is one ``mctslab arena`` match on GAME at SECONDS a move for both players::

    mctslab arena GAME --player mcts=MCTS_SPEC --player minimax=minimax:time=SECONDS \\
        --games GAMES --time-per-move SECONDS --openings 2 --seed 2026 --workers W

- ``minimax:time=S`` is alpha-beta at depth 1, 2, 3, ... until its S seconds are spent,
  scoring the frontier with the game's heuristic (tic-tac-toe: open lines; Connect Four:
  open windows; Bohnenspiel: the store difference, the course's reference evaluation),
  the move of the deepest search that finished
  (:func:`mctslab.search.minimax.iterative_deepening`).
- MCTS is the compiled engine with MCTS-Solver (:data:`MCTS_SPECS`; Bohnenspiel's is the
  configuration docs/bohnenspiel.md chose), given the same seconds by the arena's clock.
- Colours are swapped in pairs after 2 random opening plies (the same for both games of a
  pair), so half the games have MCTS first; 2 games at once by default, one core each.

The default rows (:data:`ROWS`) are tic-tac-toe, Connect Four and Bohnenspiel at 1 s a
move and Bohnenspiel at the course project's 3 s a move, 40 games each, about 1.5 hours
on 2 cores (the 1 s Bohnenspiel row 32 minutes, 6 of its games to the ply limit; the 3 s
row 42). Each row's games go to ``benchmarks/results/mcts_vs_minimax/GAME_Ss.db``
(``--resume`` continues an interrupted row), its summary to the part ``GAME_Ss`` of
``benchmarks/results/mcts_vs_minimax.json``:
MCTS's wins, draws and losses in all and by side, its score with a Wilson 95% interval,
game lengths, games that reached the game's longest length (Bohnenspiel's 1,000-ply cap,
a full board in the others) or ended by an error, move times and overruns, the
command, the date and the machine. Lesson 8 (``lessons/08_mcts_or_minimax.ipynb``) shows
the file beside its own short matches.
The script exits 0 whatever it measures, and with a command's status if one fails.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

from common import run_mctslab, save_part

from mctslab.arena.ratings import score_interval
from mctslab.arena.store import ResultStore
from mctslab.core.registry import make

RESULTS = Path(__file__).resolve().parent / "results"
OUT = RESULTS / "mcts_vs_minimax.json"
#: MCTS's player per game (the compiled engine; MCTS-Solver on).
MCTS_SPECS = {
    "tic_tac_toe": "mcts:solver=1",
    "connect_four": "mcts:solver=1",
    "bohnenspiel": "mcts:c=0.3,solver=1,reuse_tree=1",
}
#: (game, seconds a move, games) played by default.
ROWS = (
    ("tic_tac_toe", 1.0, 40),
    ("connect_four", 1.0, 40),
    ("bohnenspiel", 1.0, 40),
    ("bohnenspiel", 3.0, 40),
)


def parse_row(text: str) -> tuple[str, float, int]:
    """``GAME:SECONDS:GAMES`` as a row."""
    try:
        game, seconds, games = text.split(":")
        row = (game, float(seconds), int(games))
    except ValueError:
        raise argparse.ArgumentTypeError(f"a row is GAME:SECONDS:GAMES, got {text!r}") from None
    if game not in MCTS_SPECS:
        raise argparse.ArgumentTypeError(
            f"no MCTS player for {game!r}; games: {', '.join(MCTS_SPECS)}"
        )
    return row


def summary(records: list[Any]) -> dict[str, Any]:
    """MCTS's results over ``records``: in all and by the side it played."""

    def tally(scores: list[float]) -> dict[str, Any]:
        wins = sum(1 for s in scores if s == 1.0)
        draws = sum(1 for s in scores if s == 0.5)
        losses = len(scores) - wins - draws
        mean, low, high = score_interval(wins, draws, losses)
        return {"games": len(scores), "wins": wins, "draws": draws, "losses": losses,
                "score": mean, "score_95": [low, high]}  # fmt: skip

    scored = [(r.seats[0] == "mcts", r.score_of("mcts")) for r in records]
    every = [s for _, s in scored if s is not None]
    return {
        **tally(every),
        "mcts_first": tally([s for first, s in scored if first and s is not None]),
        "mcts_second": tally([s for first, s in scored if not first and s is not None]),
    }


def run_row(game: str, seconds: float, games: int, workers: int, resume: bool) -> int:
    tag = f"{game}_{seconds:g}s"
    db = RESULTS / "mcts_vs_minimax" / f"{tag}.db"
    db.parent.mkdir(parents=True, exist_ok=True)
    if not resume:
        for suffix in ("", "-wal", "-shm"):
            Path(str(db) + suffix).unlink(missing_ok=True)
    argv = [
        "arena", game, "--player", f"mcts={MCTS_SPECS[game]}",
        "--player", f"minimax=minimax:time={seconds:g}", "--games", str(games),
        "--time-per-move", f"{seconds:g}", "--openings", "2", "--seed", "2026",
        "--workers", str(workers), "--json", "--no-progress",
    ]  # fmt: skip
    if resume:
        argv.append("--resume")
    proc, wall = run_mctslab(argv, db)
    if proc.returncode != 0:
        print(proc.stderr, file=sys.stderr)
        return proc.returncode
    arena = json.loads(proc.stdout)
    with ResultStore(db) as store:
        run = store.runs(game)[-1]
        records = list(store.games([run.id]))
    plies = [len(r.moves) for r in records]
    limit = make(game).info.max_game_length
    data = {
        "command": "mctslab " + " ".join(argv),
        "game": game,
        "seconds_a_move": seconds,
        "mcts": MCTS_SPECS[game],
        "minimax": f"minimax:time={seconds:g}",
        "mcts_result": summary(records),
        "plies": {
            "median": statistics.median(plies) if plies else None,
            "max": max(plies, default=None),
            # A full board in tic-tac-toe and Connect Four; Bohnenspiel's 1,000-ply cap.
            "at_max_length": sum(1 for p in plies if p >= limit),
        },
        "errors": [r.error for r in records if r.error],
        "move_times": arena["move_times"],
        "wall_seconds": wall,
    }
    save_part(OUT, tag, data, ["mctslab"])
    res = data["mcts_result"]
    low, high = res["score_95"]
    print(
        f"{tag}: MCTS {res['wins']}-{res['draws']}-{res['losses']} (W-D-L) against "
        f"minimax, score {res['score']:.3f} [{low:.3f}, {high:.3f}]",
        flush=True,
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--row", type=parse_row, action="append", help="GAME:SECONDS:GAMES")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--resume", action="store_true", help="continue interrupted rows")
    args = parser.parse_args(argv)
    for game, seconds, games in args.row or ROWS:
        status = run_row(game, seconds, games, args.workers, args.resume)
        if status:
            return status
    print(f"written {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
