"""Minimax: the exact solver against known theory and the Connect Four test set."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

import mctslab
from mctslab.search.minimax import alphabeta, solve

DATA = Path(__file__).resolve().parents[1] / "data" / "connect4_Test_L3_R1.txt"
C4 = mctslab.make("connect_four")


@functools.cache
def connect4_positions() -> list[tuple[list[int], int]]:
    """(actions, outcome for the side to move) of the 1000 positions of Test_L3_R1."""
    rows = []
    for line in DATA.read_text().splitlines():
        moves, score = line.split()
        s = int(score)
        rows.append(([int(c) - 1 for c in moves], (s > 0) - (s < 0)))
    return rows


def test_tic_tac_toe_is_a_draw() -> None:
    result = solve(mctslab.make("tic_tac_toe").new_initial_state(), values=True)
    assert result.outcome == 0 and result.value == 0.0
    assert result.best_actions == tuple(range(9))  # every first move draws
    assert dict(result.action_values) == dict.fromkeys(range(9), 0.0)


def test_tic_tac_toe_known_positions() -> None:
    game = mctslab.make("tic_tac_toe")
    # x in a corner, o on an edge next to it: x wins.
    assert solve(game.state_from_actions([0, 1])).outcome == 1
    # x in the centre, o on an edge: x wins too; o in a corner holds the draw.
    assert solve(game.state_from_actions([4, 1])).outcome == 1
    assert solve(game.state_from_actions([4, 0])).outcome == 0
    # o must answer a centre opening in a corner: edges lose.
    assert set(solve(game.state_from_actions([4])).best_actions) == {0, 2, 6, 8}


def test_bachet_first_player_takes_one() -> None:
    result = solve(mctslab.make("bachet").new_initial_state())
    assert result.outcome == 1 and result.best_actions == (0,)


@pytest.mark.parametrize("max_take", [None, 1, 2, 3])
def test_nim_agrees_with_bouton_theory(max_take: int | None) -> None:
    """Normal play: the mover loses iff xor(pile mod (m + 1)) == 0 (no limit: xor(piles))."""
    checked = 0
    for a in range(0, 5):
        for b in range(0, 5):
            for c in range(0, 4):
                if a + b + c == 0:
                    continue
                state = mctslab.make("nim", piles=[a, b, c], max_take=max_take).new_initial_state()
                m = max_take if max_take is not None else 1 << 20
                loses = (a % (m + 1)) ^ (b % (m + 1)) ^ (c % (m + 1)) == 0
                assert solve(state).outcome == (-1 if loses else 1), (a, b, c, max_take)
                checked += 1
    assert checked == 99


def test_misere_nim_agrees_with_bouton_theory() -> None:
    """Misère: with a pile above 1 as normal play; with only 1s, the mover wins iff their count is even."""
    for piles in ([1], [1, 1], [1, 1, 1], [2], [1, 2], [2, 2], [1, 2, 3], [3, 4, 5]):
        state = mctslab.make("nim", piles=piles, misere=True).new_initial_state()
        x = functools.reduce(lambda u, v: u ^ v, piles)
        wins = (len(piles) % 2 == 0) if max(piles) == 1 else x != 0
        assert solve(state).outcome == (1 if wins else -1), piles


@pytest.mark.parametrize("chunk", range(4))
def test_connect_four_test_set_win_draw_loss(chunk: int) -> None:
    """All 1000 positions of Pons's Test_L3_R1, 250 per test so they run in parallel."""
    positions = connect4_positions()[chunk * 250 : (chunk + 1) * 250]
    wrong = []
    for i, (moves, outcome) in enumerate(positions):
        got = solve(C4.state_from_actions(moves)).outcome
        if got != outcome:
            wrong.append((chunk * 250 + i, got, outcome))
    assert len(positions) == 250 and not wrong


def test_alphabeta_takes_a_win_and_blocks() -> None:
    win = C4.state_from_actions([0, 6, 1, 6, 2, 6])  # x to move: column 4 wins
    assert alphabeta(win, 1).action == 3 and alphabeta(win, 1).value == 1.0
    block = C4.state_from_actions([0, 6, 1, 6, 2])  # o to move must block column 4
    assert alphabeta(block, 2).action == 3
    assert alphabeta(block, 4).action == 3


def test_alphabeta_depth_and_errors() -> None:
    state = C4.new_initial_state()
    result = alphabeta(state, 3)
    assert result.depth == 3 and result.nodes > 7 and -1 < result.value < 1
    with pytest.raises(mctslab.InvalidConfigError, match="depth"):
        alphabeta(state, 0)


def test_solver_refuses_what_it_cannot_solve() -> None:
    game = mctslab.make("tic_tac_toe")
    over = game.state_from_actions([0, 3, 1, 4, 2])
    with pytest.raises(mctslab.InvalidConfigError, match="over"):
        solve(over)
    with pytest.raises(mctslab.InvalidConfigError, match="max_nodes"):
        solve(C4.new_initial_state(), max_nodes=1000)
    info = mctslab.GameInfo("three", 1, 3, 9, 9, True, -1.0, 1.0)
    with pytest.raises(mctslab.InvalidConfigError, match="two-player"):
        solve(game.new_initial_state(), game_info=info)
