"""The travelling salesman's outside peers as ``benchmarks/bench_optimize.py`` runs them
(LKH-3 through ``elkai``, OR-Tools' routing solver with guided local search), and one of
mctslab's rows beside them: each returns a closed tour of every city whose length is
recomputed here from the distance matrix, never below the instance's proven optimum;
LKH-3 reaches eil51's optimum (426), as it does in the benchmark."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import require_extra
from mctslab.games.tsp import TSP, known_optimum

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def bench() -> Any:
    require_extra("elkai", "tsp-peers")
    require_extra("ortools", "tsp-peers")
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import bench_optimize
    finally:
        sys.path.remove(str(BENCHMARKS))
    return bench_optimize


@pytest.mark.parametrize(
    ("method", "budget"), [("lkh3", 5.0), ("ortools", 0.3), ("gnrpa+2opt", 2.0), ("nn", 1.0)]
)
def test_a_benchmark_row_is_a_real_tour_no_shorter_than_the_optimum(
    bench: Any, method: str, budget: float
) -> None:
    row = bench.run_one(method, "eil51", budget, 0, True)
    assert row["optimum"] == known_optimum("eil51") == 426
    assert row["length"] >= 426 and row["gap"] == pytest.approx(100 * (row["length"] - 426) / 426)
    if method == "lkh3":
        assert row["length"] == 426
    if method == "ortools":
        assert row["seconds"] <= budget + 1.0  # its time limit is the budget


def test_the_summary_gives_students_t_intervals(bench: Any) -> None:
    rows = [
        {"method": "sa", "instance": "eil51", "budget": 1.0, "seed": s, "gap": g,
         "length": 426, "found_seconds": 0.1, "spec": "sa"}
        for s, g in enumerate([0.0, 0.0, 0.0, 0.0, 5.0])
    ]  # fmt: skip
    (row,) = bench.summarize(rows)
    assert row["runs"] == 5 and row["mean_gap"] == 1.0 and row["best_gap"] == 0.0
    assert row["optima_found"] == 4
    # s = sqrt(5), so the half-width is t(0.975, 4) = 2.776 exactly
    assert row["gap_high"] == pytest.approx(1.0 + 2.776)
    assert row["gap_low"] == 0.0  # 1 - 2.776, clipped: a gap is never negative


def test_tours_are_checked(bench: Any) -> None:
    game = TSP("eil51")
    assert bench._tour_length(game.distances, list(range(51))) > 426
