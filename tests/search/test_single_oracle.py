"""The single-player searches against an exact oracle: on 100 random Euclidean
travelling-salesman instances of 8 to 12 cities (``random:N:SEED``, N = 8 + i mod 5,
SEED = 1000 + i), level-2 NRPA and NMCS find Held-Karp's optimum in at least 95 of them
(issue 30's correctness target).

Both use the game's edge-length prior (``bias=4``: Generalized NRPA's weights, NMCS's
playout draws); NRPA makes one run of ``N = 100`` iterations (10,000 playouts), NMCS
restarts until it has made as many playouts. Measured when this was written: NRPA 98,
NMCS 96; with no prior, 42 and 66 (``docs/optimize.md``). The searches are compiled and
node for node the reference ones (``single/test_single_compiled.py``), so this holds for both.
"""

from __future__ import annotations

from functools import cache

import pytest

from mctslab.games.tsp import TSP, held_karp
from mctslab.players.optimizers import parse_optimizer

INSTANCES = [(8 + i % 5, 1000 + i) for i in range(100)]


@cache
def optimum(n: int, seed: int) -> int:
    return int(held_karp(TSP(f"random:{n}:{seed}").distances)[0])


@pytest.mark.parametrize(
    ("spec", "playouts"),
    [("nrpa:level=2,bias=4", None), ("nmcs:level=2,bias=4", 10_000)],
)
def test_level_2_finds_held_karps_optimum_on_95_of_100_instances(
    spec: str, playouts: int | None
) -> None:
    missed = []
    for n, seed in INSTANCES:
        state = TSP(f"random:{n}:{seed}").new_initial_state()
        result = parse_optimizer(spec).run(state, seed=seed, playouts=playouts)
        assert -result.score >= optimum(n, seed)  # never shorter than the optimum
        if -result.score != optimum(n, seed):
            missed.append((n, seed, -result.score, optimum(n, seed)))
    assert len(missed) <= 5, missed
