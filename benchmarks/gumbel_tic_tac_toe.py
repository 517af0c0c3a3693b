"""Gumbel search against PUCT with few simulations: every tic-tac-toe position.

Run ``python benchmarks/gumbel_tic_tac_toe.py [--iterations N] [--every K]``.

Over every reachable non-terminal tic-tac-toe position (4,520, transpositions merged;
the oracle of ``tests/search/ttt_positions.py``: each position's minimax-optimal moves
from :func:`mctslab.search.minimax.solve`), one search per position with the reference
engine (:class:`mctslab.search.mcts.MCTS`), seeded by the position's index, and an
evaluator that knows nothing about moves and everything about values: uniform priors
over the legal moves and the exact minimax value of the leaf for the player to move
(the setting of ``tests/search/test_puct.py``'s Gumbel test, which takes every 5th
position). Three searches of ``--iterations`` iterations (default 5: the root's
evaluation and 4 simulations):

- ``gumbel``: ``PuctConfig(gumbel=True, gumbel_scale=0.0)`` (no Gumbel noise: the
  prior's top moves, Sequential Halving);
- ``gumbel_noise``: ``PuctConfig(gumbel=True)`` (Gumbel noise of scale 1, the default);
- ``puct``: ``PuctConfig()`` (AlphaZero's selection rule).

For each, the share of positions where the move played is minimax-optimal; and, as the
baseline of knowing nothing, the share a uniformly random legal move would get (the mean
over positions of optimal moves / legal moves). The numbers are counts: they do not
depend on the machine. Writes ``benchmarks/results/gumbel_tic_tac_toe.json`` (with the
date, the machine and the versions). About a minute on one core.
"""

from __future__ import annotations

import argparse
import sys
import time
from functools import cache
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import save_part

import mctslab
from mctslab.search.minimax import solve

OUT = Path(__file__).resolve().parent / "results" / "gumbel_tic_tac_toe.json"
GAME = mctslab.make("tic_tac_toe")


def reachable_positions() -> list[tuple[tuple[int, ...], frozenset[int]]]:
    """(history reaching it, optimal actions) of every reachable non-terminal position, in
    depth-first order, each board once (as ``tests/search/ttt_positions.py``)."""
    seen: dict[bytes, tuple[int, ...]] = {}

    def walk(state: Any) -> None:
        key = state.key()
        if key in seen or state.is_terminal():
            return
        seen[key] = tuple(state.history())
        for a in state.legal_actions():
            walk(state.child(a))

    walk(GAME.new_initial_state())
    return [
        (h, frozenset(solve(GAME.state_from_actions(list(h))).best_actions)) for h in seen.values()
    ]


@cache
def _value(history: tuple[int, ...]) -> float:
    return float(solve(GAME.state_from_actions(list(history))).outcome)


def values_only(batch: Any) -> tuple[Any, Any]:
    """Uniform priors over the legal moves, the exact value for the player to move."""
    import numpy as np

    values = np.array([_value(tuple(s.history())) for s in batch.states])
    return np.where(batch.legal_mask, 1.0, 0.0), values


SEARCHES: dict[str, dict[str, Any]] = {
    "gumbel": {"gumbel": True, "gumbel_scale": 0.0},
    "gumbel_noise": {"gumbel": True},
    "puct": {},
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=5, help="iterations a search")
    parser.add_argument("--every", type=int, default=1, help="every K-th position only")
    parser.add_argument("--output", type=Path, default=OUT, help="where to write the JSON")
    args = parser.parse_args(argv)

    from mctslab.search.config import SearchConfig
    from mctslab.search.mcts import MCTS
    from mctslab.search.puct import PuctConfig

    started = time.perf_counter()
    positions = reachable_positions()
    chosen = list(enumerate(positions))[:: args.every]
    optimal = {name: 0 for name in SEARCHES}
    random_share = 0.0
    for seed, (history, best) in chosen:
        state = GAME.state_from_actions(list(history))
        random_share += len(best) / len(state.legal_actions())
        for name, options in SEARCHES.items():
            puct = PuctConfig(evaluator=values_only, **options)
            config = SearchConfig(iterations=args.iterations, seed=seed, puct=puct)
            optimal[name] += MCTS(config).search(state).action in best
    n = len(chosen)
    data = {
        "game": "tic_tac_toe",
        "positions": n,
        "reachable_positions": len(positions),
        "every": args.every,
        "iterations": args.iterations,
        "simulations": args.iterations - 1,
        "engine": "reference (MCTS)",
        "evaluator": "uniform priors over the legal moves, exact minimax value",
        "seeds": "the position's index in depth-first order",
        "searches": {name: {"puct_options": SEARCHES[name]} for name in SEARCHES},
        "optimal": {name: optimal[name] for name in SEARCHES},
        "optimal_share": {name: optimal[name] / n for name in SEARCHES},
        "random_legal_move_optimal_share": random_share / n,
        "seconds": time.perf_counter() - started,
    }
    for name in SEARCHES:
        print(f"{name:>13}: optimal in {optimal[name]} of {n} ({optimal[name] / n:.1%})")
    print(f"random legal move: {random_share / n:.1%} (expected)")
    save_part(args.output, "optimal_moves", data, ("mctslab", "numpy"))
    print(f"results written to {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
