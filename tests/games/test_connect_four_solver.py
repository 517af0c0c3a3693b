"""The exact Connect Four solver (mctslab.games.connect_four_solver, Pons's design).

Checked against Pons's own test set (tests/data/connect4_Test_L3_R1.txt: 1000 positions
of plies 29 to 41, each with its exact score for the side to move), against the
project's generic exact solver (mctslab.search.minimax.solve) and against the rules of
``mctslab.make("connect_four")``.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import mctslab
from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import State
from mctslab.games.connect_four_solver import (
    MAX_SCORE,
    MIN_SCORE,
    ConnectFourSolver,
    score_of_win,
)
from mctslab.search.minimax import solve

DATA = Path(__file__).resolve().parents[1] / "data" / "connect4_Test_L3_R1.txt"


def _test_set() -> list[tuple[list[int], int]]:
    """``(0-based moves, score)`` for every line of Pons's file (1-based columns)."""
    rows = []
    for line in DATA.read_text().splitlines():
        if line.strip():
            moves, score = line.split()
            rows.append(([int(c) - 1 for c in moves], int(score)))
    return rows


TEST_SET = _test_set()


@pytest.fixture(scope="module")
def solver() -> ConnectFourSolver:
    return ConnectFourSolver(table_size=1 << 20)


def _state(moves: list[int]) -> State:
    state = mctslab.make("connect_four").new_initial_state()
    for m in moves:
        state.apply_action(m)
    return state


def _random_position(rng: random.Random, plies: int) -> list[int]:
    """The moves of a random game of ``plies`` plies that has not ended (restarts if it did)."""
    game = mctslab.make("connect_four")
    while True:
        state = game.new_initial_state()
        for _ in range(plies):
            state.apply_action(rng.choice(state.legal_actions()))
            if state.is_terminal():
                break
        else:
            return state.history()


def test_every_position_of_pons_test_set(solver: ConnectFourSolver) -> None:
    # All 1000 positions: about 0.05 s in all once compiled (measured on 2 busy cores).
    assert len(TEST_SET) == 1000
    wrong = [(m, s, got) for m, s in TEST_SET if (got := solver.score(m)) != s]
    assert not wrong, f"{len(wrong)} wrong scores, e.g. {wrong[:3]}"


def test_move_scores_agree_with_score_on_the_test_set(solver: ConnectFourSolver) -> None:
    for moves, score in TEST_SET[::10]:
        scores = solver.move_scores(moves)
        assert max(scores.values()) == score
        assert set(scores) == set(_state(moves).legal_actions())
        best = max(scores.values())
        assert solver.best_moves(moves) == tuple(c for c in sorted(scores) if scores[c] == best)


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


def test_best_moves_agree_with_the_generic_solver(solver: ConnectFourSolver) -> None:
    # solve() is exact on win/draw/loss only: its best actions are every move of the
    # best outcome class, so the solver's best moves lie among them, and the moves
    # whose exact score has the sign of the best score are exactly them.
    positions = [m for m, _ in TEST_SET if len(m) >= 30][:20]
    assert len(positions) == 20
    for moves in positions:
        result = solve(_state(moves))
        scores = solver.move_scores(moves)
        best = max(scores.values())
        assert _sign(best) == result.outcome
        assert set(solver.best_moves(moves)) <= set(result.best_actions)
        same_class = {c for c, s in scores.items() if _sign(s) == _sign(best)}
        assert same_class == set(result.best_actions), moves


# ply -> seed of random.Random for _random_position, picked among the quicker positions
# (seeds 1008 and 1009 at ply 8 take ~8 s each; these take ~3, 0.4, 0.1, 0.02 s).
EARLY_SEEDS = {8: 1010, 10: 1011, 12: 1013, 14: 1014}


@pytest.mark.parametrize("plies", sorted(EARLY_SEEDS))
def test_early_positions_are_solved_consistently(plies: int) -> None:
    # Random-game positions (seeded). Measured on this busy 2-core machine, every
    # move's score of one position takes (median of 10): ply 8 ~2.5 s, ply 10 ~0.3 s,
    # ply 12 ~0.06 s, ply 16 ~5 ms, ply 20 ~0.2 ms.
    solver = ConnectFourSolver(table_size=1 << 21)
    moves = _random_position(random.Random(EARLY_SEEDS[plies]), plies)
    assert len(moves) == plies
    scores = solver.move_scores(moves)
    assert set(scores) == set(_state(moves).legal_actions())
    score = solver.score(moves)
    assert max(scores.values()) == score
    assert all(MIN_SCORE <= s <= MAX_SCORE for s in scores.values())
    best = solver.best_moves(moves)
    assert best == tuple(c for c in sorted(scores) if scores[c] == score)
    assert solver.nodes > 0


def test_immediate_wins_follow_the_games_rules(solver: ConnectFourSolver) -> None:
    # Late positions of random games: a move scores as an immediate win exactly when
    # the game says that move ends it with a win for the mover.
    rng = random.Random(7)
    checked = 0
    for _ in range(40):
        moves = _random_position(rng, rng.randrange(28, 36))
        state = _state(moves)
        scores = solver.move_scores(moves)
        me = state.current_player()
        for c, s in scores.items():
            child = state.child(c)
            wins = child.is_terminal() and child.returns()[me] > 0
            assert (s == score_of_win(len(moves) + 1)) == wins, (moves, c, s)
            checked += wins
    assert checked > 0


def test_scoring_rule() -> None:
    solver = ConnectFourSolver(table_size=1 << 12)
    # x on columns 1, 4, 3: x wins with its 4th stone, the 7th of the game: (44 - 7) // 2
    assert solver.score([1, 1, 4, 4, 3, 3]) == score_of_win(7) == MAX_SCORE == 18
    # o must block both ends: it cannot, and loses to x's 4th stone
    assert solver.score([1, 1, 2, 2, 3]) == -score_of_win(7) == -18
    assert score_of_win(42) == score_of_win(41) == 1


def test_finished_games_raise(solver: ConnectFourSolver) -> None:
    rng = random.Random(3)
    game = mctslab.make("connect_four")
    for _ in range(20):
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        with pytest.raises(InvalidConfigError):
            solver.score(state.history())
        with pytest.raises(InvalidConfigError):
            solver.move_scores(state.history())


@pytest.mark.parametrize(
    "moves",
    [
        [7],  # no column 7
        [-1],
        [3, 3, 3, 3, 3, 3, 3],  # a full column
        [0, 1, 0, 1, 0, 1, 0],  # x has won (vertically) with its 4th stone
        [0, 1, 0, 1, 0, 1, 0, 2],  # and a move after the end
        [3.0],  # not an integer
        [True],
    ],
)
def test_illegal_sequences_raise(solver: ConnectFourSolver, moves: list[int]) -> None:
    with pytest.raises(InvalidConfigError):
        solver.score(moves)
    with pytest.raises(InvalidConfigError):
        solver.best_moves(moves)


def test_a_full_board_raises() -> None:
    # a drawn random game (found with random.Random(11)): 42 stones, no four in a row
    moves = [int(c) for c in "236011640232433403561552213162546064415005"]
    state = _state(moves)
    assert state.is_terminal() and state.returns() == [0.0, 0.0]
    solver = ConnectFourSolver(table_size=1 << 12)
    with pytest.raises(InvalidConfigError, match="full"):
        solver.score(moves)
    assert solver.move_scores(moves[:-1]) == {5: 0}  # the last stone: a draw


@pytest.mark.parametrize(
    "kwargs", [{"rows": 5}, {"columns": 8}, {"table_size": 1000}, {"table_size": 0}]
)
def test_bad_configuration_raises(kwargs: dict[str, int]) -> None:
    with pytest.raises(InvalidConfigError):
        ConnectFourSolver(**kwargs)


def test_reset_empties_the_table() -> None:
    solver = ConnectFourSolver(table_size=1 << 12)
    moves, score = TEST_SET[0]
    assert solver.score(moves) == score
    solver.reset()
    assert solver.nodes == 0
    assert solver.score(moves, reset=True) == score
