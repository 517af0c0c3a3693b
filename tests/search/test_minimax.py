"""Minimax: the exact solver against known theory and the Connect Four test set."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

import mctslab
from mctslab.search import minimax
from mctslab.search.minimax import alphabeta, iterative_deepening, solve

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


def test_iterative_deepening_matches_alphabeta_at_the_depth_it_reached() -> None:
    """With a generous clock and ``max_depth``, the deepest search is plain alpha-beta at
    that depth: the same value on Connect Four positions (whose plies fix the depth left,
    so the values tables agree), the moves tried in another order."""
    for actions, _ in connect4_positions()[:12]:
        state = C4.state_from_actions(actions)
        for depth in (1, 3, 5):
            deep = iterative_deepening(state, 60.0, max_depth=depth)
            plain = alphabeta(state, depth)
            assert deep.value == pytest.approx(plain.value, abs=1e-12)
            # A proven win or loss, or a search to every end, stops before max_depth.
            assert deep.depth == depth or deep.exact
            assert deep.depth <= depth


def test_iterative_deepening_is_exact_where_it_reaches_every_end() -> None:
    """Tic-tac-toe is searched to its last ply in well under a second: the result says
    ``exact`` and agrees with the solver (value and an optimal move) on every position
    of a few random games."""
    game = mctslab.make("tic_tac_toe")
    rng = mctslab.core.rng.Rng(5)
    for _ in range(6):
        state = game.new_initial_state()
        while not state.is_terminal():
            found = iterative_deepening(state, 30.0)
            truth = solve(state)
            assert found.exact and found.value == truth.value
            assert found.action in truth.best_actions
            legal = state.legal_actions()
            state.apply_action(legal[rng.randint(len(legal))])


def test_iterative_deepening_takes_a_win_and_blocks() -> None:
    win = C4.state_from_actions([0, 6, 1, 6, 2, 6])  # x to move: column 4 wins
    found = iterative_deepening(win, 30.0)
    assert found.action == 3 and found.value == 1.0 and found.exact and found.depth == 1
    block = C4.state_from_actions([0, 6, 1, 6, 2])  # o must block column 4
    assert iterative_deepening(block, 30.0, max_depth=6).action == 3


class _Clock:
    """A clock that moves ``step`` seconds each time it is read."""

    def __init__(self, step: float) -> None:
        self.now, self.step = 0.0, step

    def perf_counter(self) -> float:
        self.now += self.step
        return self.now


def test_iterative_deepening_stops_at_its_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Depth 1 always finishes; a deeper search the clock interrupts is dropped, and the
    result names the depth that finished (a fake clock: no wall-clock assertion)."""
    state = mctslab.make("bohnenspiel").new_initial_state()
    monkeypatch.setattr(minimax, "time", _Clock(10.0))
    found = iterative_deepening(state, 1.0)
    assert found.depth == 1 and not found.exact
    assert found.action == alphabeta(state, 1).action
    monkeypatch.setattr(minimax, "time", _Clock(1e-4))
    # 1e-4 s a clock reading, one every 256 nodes: the deadline of 0.05 s passes after
    # some 500 readings, about 128,000 nodes.
    deeper = iterative_deepening(state, 0.05)
    assert 1 < deeper.depth < 40 and not deeper.exact


@pytest.mark.parametrize(
    ("budget", "depth", "match"),
    [
        (0.0, None, "time budget"),
        (float("nan"), None, "time budget"),
        (True, None, "time budget"),
        (1.0, 0, "max_depth"),
        (1.0, 2.5, "max_depth"),
    ],
)
def test_iterative_deepening_refuses_bad_budgets(budget: float, depth: object, match: str) -> None:
    with pytest.raises(mctslab.InvalidConfigError, match=match):
        iterative_deepening(C4.new_initial_state(), budget, max_depth=depth)  # type: ignore[arg-type]


def test_minimax_player_with_a_clock() -> None:
    """``minimax:time=S`` deepens within ``S`` seconds a move, ``depth`` caps it."""
    info = C4.info
    player = mctslab.make_player("minimax:time=5,depth=2", info)
    assert player.name == "minimax-t5"
    state = C4.state_from_actions([0, 6, 1, 6, 2])
    assert player.choose(state) == 3
    assert player.last is not None and player.last.depth == 2  # type: ignore[attr-defined]
    for bad, match in [
        ("minimax:time=0", "positive"),
        ("minimax:time=-1", "positive"),
        ("minimax:time=x", "time"),
        ("minimax:deep=3", "valid options: depth, time"),
    ]:
        with pytest.raises(mctslab.InvalidSpecError, match=match):
            mctslab.make_player(bad, info)


def test_iterative_deepening_stops_at_its_deepest_in_a_circling_end_game(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two beans circling in Bohnenspiel (stores 36 and 34): every depth ends in the
    heuristic (the ply limit is far), so without a cap the deepening went on until
    Python's recursion limit (a RecursionError in a 3 s match). With a clock that never
    runs out it now stops at ``MAX_DEPTH``."""
    game = mctslab.make("bohnenspiel")
    moves = [5, 7, 3, 6, 5, 8, 5, 10, 2, 7, 3, 9, 4, 6, 3, 11, 3, 8, 1, 11, 5, 6, 4, 7, 0, 6]
    state = game.state_from_actions([*moves, 3, 11, 2, 9, 1, 8, 2])
    assert sum(game.pits(state)) == 2 and sorted(game.stores(state)) == [34, 36]
    monkeypatch.setattr(minimax, "time", _Clock(0.0))
    found = iterative_deepening(state, 1.0)
    assert found.depth == minimax.MAX_DEPTH and not found.exact
