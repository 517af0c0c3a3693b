"""Acceptance: MCTS converges to minimax, and MCTS-Solver proves what the oracle knows.

Oracles: exact minimax (``mctslab.minimax.solve``) on every reachable
tic-tac-toe position; Pons's exact scores of Connect Four end-games.
"""

from __future__ import annotations

import pytest

import mctslab
from mctslab.mcts import SearchConfig, search
from test_minimax import C4, connect4_positions
from ttt_positions import reachable_positions

TTT = mctslab.make("tic_tac_toe")
CHUNKS = 8


def _misses(chunk: int, solver: bool) -> tuple[int, list[tuple[tuple[int, ...], int]]]:
    """Search every CHUNKS-th position from ``chunk`` with 20,000 seeded iterations."""
    positions = list(enumerate(reachable_positions()))[chunk::CHUNKS]
    misses = []
    for seed, (history, optimal) in positions:
        config = SearchConfig(iterations=20_000, seed=seed, solver=solver)
        result = search(TTT.state_from_actions(list(history)), config)
        if result.action not in optimal:
            misses.append((history, result.action))
    return len(positions), misses


def test_there_are_4520_reachable_non_terminal_positions() -> None:
    positions = reachable_positions()
    assert len(positions) == 4520
    assert all(optimal for _, optimal in positions)


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_uct_picks_a_minimax_optimal_move_in_99_percent(chunk: int) -> None:
    """Plain UCT, 20,000 iterations: at least 99% of the positions of each eighth."""
    total, misses = _misses(chunk, solver=False)
    assert total == 565 and len(misses) <= total // 100, misses


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_mcts_solver_picks_a_minimax_optimal_move_everywhere(chunk: int) -> None:
    total, misses = _misses(chunk, solver=True)
    assert total == 565 and not misses


@pytest.mark.parametrize("chunk", range(4))
def test_mcts_solver_proves_connect_four_end_games(chunk: int) -> None:
    """The first 100 positions of Test_L3_R1: MCTS-Solver proves the exact outcome."""
    wrong = []
    for i, (moves, outcome) in enumerate(connect4_positions()[chunk * 25 : (chunk + 1) * 25]):
        config = SearchConfig(iterations=200_000, seed=i, solver=True)
        result = search(C4.state_from_actions(moves), config)
        if result.proven != outcome:
            wrong.append((chunk * 25 + i, result.proven, outcome, result.iterations))
    assert not wrong
