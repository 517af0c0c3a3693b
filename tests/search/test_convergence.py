"""Acceptance: MCTS converges to minimax, and MCTS-Solver proves what the oracle knows.

Oracles: exact minimax (``mctslab.search.minimax.solve``) on every reachable
tic-tac-toe position; Pons's exact scores of Connect Four end-games.

The full sweeps run on the compiled engine, which builds the reference
engine's tree node for node (``test_compiled.py``); a sample of the positions
is searched with both engines here too, so the reference engine's own choices
are checked against the oracle directly.
"""

from __future__ import annotations

import pytest
from test_minimax import C4, connect4_positions
from ttt_positions import reachable_positions

import mctslab
from mctslab.search.config import SearchConfig
from mctslab.search.engine import search

TTT = mctslab.make("tic_tac_toe")
CHUNKS = 4
SAMPLE = 23  # the reference engine searches every 23rd position (197 of them)


def _sweep(
    chunk: int, solver: bool, engine: str = "compiled", step: int = CHUNKS
) -> tuple[int, list[tuple[tuple[int, ...], int]]]:
    """Search the positions ``chunk, chunk + step, ...`` with 20,000 seeded iterations."""
    positions = list(enumerate(reachable_positions()))[chunk::step]
    misses = []
    for seed, (history, optimal) in positions:
        config = SearchConfig(iterations=20_000, seed=seed, solver=solver)
        result = search(TTT.state_from_actions(list(history)), config, engine=engine)
        if result.action not in optimal:
            misses.append((history, result.action))
    return len(positions), misses


def test_there_are_4520_reachable_non_terminal_positions() -> None:
    positions = reachable_positions()
    assert len(positions) == 4520
    assert all(optimal for _, optimal in positions)


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_uct_picks_a_minimax_optimal_move_in_99_percent(chunk: int) -> None:
    """Plain UCT, 20,000 iterations: at least 99% of the positions of each quarter."""
    total, misses = _sweep(chunk, solver=False)
    assert total == 1130 and len(misses) <= total // 100, misses


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_mcts_solver_picks_a_minimax_optimal_move_everywhere(chunk: int) -> None:
    total, misses = _sweep(chunk, solver=True)
    assert total == 1130 and not misses


@pytest.mark.parametrize("solver", [False, True])
def test_reference_engine_on_a_sample_of_positions(solver: bool) -> None:
    """The reference engine itself, on every 23rd position: the same bar, same moves."""
    total, misses = _sweep(0, solver=solver, engine="reference", step=SAMPLE)
    _, compiled_misses = _sweep(0, solver=solver, engine="compiled", step=SAMPLE)
    assert total == 197 and misses == compiled_misses
    assert len(misses) <= (total // 100 if not solver else 0), misses


@pytest.mark.parametrize("chunk", range(4))
def test_mcts_solver_proves_connect_four_end_games(chunk: int) -> None:
    """The first 100 positions of Test_L3_R1: MCTS-Solver proves the exact outcome."""
    wrong = []
    for i, (moves, outcome) in enumerate(connect4_positions()[chunk * 25 : (chunk + 1) * 25]):
        config = SearchConfig(iterations=200_000, seed=i, solver=True)
        result = search(C4.state_from_actions(moves), config, engine="reference")
        if result.proven != outcome:
            wrong.append((chunk * 25 + i, result.proven, outcome, result.iterations))
    assert not wrong


def test_compiled_mcts_solver_proves_a_sample_of_connect_four_end_games() -> None:
    """Every 10th of the 1000 positions, compiled engine, a fixed budget of 500,000
    iterations (the benchmark gives it 1 s each instead, for all 1000)."""
    wrong = []
    for i, (moves, outcome) in list(enumerate(connect4_positions()))[::10]:
        config = SearchConfig(iterations=500_000, seed=i, solver=True)
        result = search(C4.state_from_actions(moves), config, engine="compiled")
        if result.proven != outcome:
            wrong.append((i, result.proven, outcome, result.iterations))
    assert not wrong
