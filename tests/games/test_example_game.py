"""The Hexapawn example (examples/hexapawn.py): a user's plain-Python game that mctslab plays."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

import mctslab
from mctslab.core.testing import check_game
from mctslab.players.player import MCTSPlayer, MinimaxPlayer, play_game
from mctslab.search.config import SearchConfig
from mctslab.search.mcts import search
from mctslab.search.minimax import alphabeta, solve

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "hexapawn.py"


def _load() -> ModuleType:
    # examples/ is not a package: load the file by path.
    spec = importlib.util.spec_from_file_location("hexapawn_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


hexapawn = _load()


def play(*moves: str, columns: int = 3, rows: int = 3) -> object:
    """The state after ``moves`` given by name, e.g. ``play("b1-b2", "a3xb2")``."""
    state = hexapawn.Hexapawn(columns, rows).new_initial_state()
    for move in moves:
        state.apply_action(state.string_to_action(move))
    return state


def test_plain_classes_satisfy_the_protocols_without_inheriting() -> None:
    game = hexapawn.Hexapawn()
    state = game.new_initial_state()
    assert hexapawn.Hexapawn.__mro__ == (hexapawn.Hexapawn, object)
    assert hexapawn.HexapawnState.__mro__ == (hexapawn.HexapawnState, object)
    assert isinstance(game, mctslab.Game)
    assert isinstance(state, mctslab.State)
    assert state.game.info == mctslab.GameInfo(
        name="hexapawn",
        version=1,
        num_players=2,
        num_actions=81,
        max_game_length=8,
        zero_sum=True,
        min_utility=-1.0,
        max_utility=1.0,
    )


def test_check_game_passes() -> None:
    assert check_game(hexapawn.Hexapawn(), n_games=200, seed=0) > 200


@pytest.mark.parametrize(("columns", "rows"), [(4, 4), (3, 4), (4, 3), (5, 6)])
def test_other_board_sizes_pass_check_game(columns: int, rows: int) -> None:
    check_game(hexapawn.Hexapawn(columns, rows), n_games=50, seed=1)


@pytest.mark.parametrize(("columns", "rows"), [(1, 3), (3, 2), (27, 3)])
def test_bad_board_sizes_raise_typed_errors(columns: int, rows: int) -> None:
    with pytest.raises(mctslab.InvalidConfigError):
        hexapawn.Hexapawn(columns, rows)


def test_solve_black_wins_3x3() -> None:
    result = solve(hexapawn.Hexapawn().new_initial_state(), values=True)
    assert result.outcome == -1  # for White, the player to move
    assert [v for _, v in result.action_values] == [-1.0, -1.0, -1.0]


def test_initial_position_and_opening_moves() -> None:
    state = hexapawn.Hexapawn().new_initial_state()
    assert str(state) == "3 B B B\n2 . . .\n1 W W W\n  a b c\nWhite to move"
    assert [state.action_to_string(a) for a in state.legal_actions()] == [
        "a1-a2",
        "b1-b2",
        "c1-c2",
    ]
    assert state.legal_actions() == [0 * 9 + 3, 1 * 9 + 4, 2 * 9 + 5]


def test_known_position_after_b1_b2() -> None:
    state = play("b1-b2")
    assert state.current_player() == 1
    names = [state.action_to_string(a) for a in state.legal_actions()]
    assert names == ["a3-a2", "a3xb2", "c3xb2", "c3-c2"]  # b3 is blocked
    assert state.legal_actions() == [57, 58, 76, 77]
    assert state.history() == [13]


def test_win_by_reaching_the_far_row() -> None:
    state = play("a1-a2", "c3-c2", "a2xb3")
    assert state.is_terminal() and state.current_player() == mctslab.TERMINAL
    assert state.returns() == [1.0, -1.0]
    assert state.legal_actions() == [] and not any(state.legal_actions_mask())
    assert str(state).endswith("White wins")


def test_win_by_capturing_every_pawn() -> None:
    state = play("a1-a2", "b3xa2", "b1-b2", "a3xb2", "c1xb2", "c3xb2")
    assert state.board.count(hexapawn.WHITE) == 0
    assert state.returns() == [-1.0, 1.0]


def test_win_when_the_opponent_cannot_move() -> None:
    state = play("a1-a2", "b3-b2", "c1-c2")
    assert state.board.count(hexapawn.BLACK) == 3  # Black keeps every pawn but is blocked
    assert state.is_terminal() and state.returns() == [1.0, -1.0]


def test_illegal_moves_raise_and_change_nothing() -> None:
    state = play("b1-b2")
    before = (str(state), state.history(), state.legal_actions())
    for action in (0 * 9 + 3, 7 * 9 + 4, -1, 81):  # White's move, blocked pawn, out of range
        with pytest.raises(mctslab.IllegalActionError, match=r"legal actions: 57 \(a3-a2\)"):
            state.apply_action(action)
    assert (str(state), state.history(), state.legal_actions()) == before
    with pytest.raises(mctslab.IllegalActionError, match="game is over"):
        play("a1-a2", "c3-c2", "a2xb3").apply_action(57)


@pytest.mark.parametrize("text", ["", "a3", "a3-a2-a1", "d3-d2", "a0-a1", "a3-a9", "pass"])
def test_unknown_move_text_raises(text: str) -> None:
    state = play("b1-b2")
    with pytest.raises(mctslab.IllegalActionError, match="legal moves: a3-a2, a3xb2"):
        state.string_to_action(text)


def test_move_text_is_lenient_about_case_and_separator() -> None:
    state = play("b1-b2")
    assert state.string_to_action(" A3XB2 ") == state.string_to_action("a3-b2") == 58


def test_transpositions_share_a_key() -> None:
    a = play("a1-a2", "c3-c2", "b1-b2")
    b = play("b1-b2", "c3-c2", "a1-a2")
    assert a.history() != b.history()
    assert a.key() == b.key() and str(a) == str(b)
    assert a.key() != play("a1-a2", "c3-c2").key()


def test_heuristic_is_antisymmetric_and_favours_material() -> None:
    start = hexapawn.Hexapawn().new_initial_state()
    assert start.heuristic() == [0.0, 0.0]
    up = play("b1-b2", "a3-a2", "b2xc3")  # White captured and promoted: exact result
    assert up.heuristic() == up.returns() == [1.0, -1.0]
    material = play("b1-b2", "a3xb2")  # Black is a pawn up
    white, black = material.heuristic()
    assert -1.0 < white < 0.0 and black == -white


def test_mcts_solver_proves_the_3x3_root_lost_for_white() -> None:
    state = hexapawn.Hexapawn().new_initial_state()
    result = search(state, SearchConfig(iterations=20_000, solver=True, seed=0))
    assert result.proven == -1
    assert result.stopped_by == "proven"
    assert all(child.proven == -1 for child in result.children)


def test_mcts_solver_finds_a_winning_move() -> None:
    # 3x3 after a1-a2 c3-c2: a2xb3 reaches the far row at once.
    state = play("a1-a2", "c3-c2")
    result = search(state, SearchConfig(iterations=1000, solver=True, seed=0))
    assert result.proven == 1
    assert result.action in solve(state).best_actions
    # 4x4 (Octapawn) is a first-player win, but no move wins at once: the proof needs depth.
    state = hexapawn.Hexapawn(4, 4).new_initial_state()
    solved = solve(state)
    assert solved.outcome == 1
    assert not any(state.child(a).is_terminal() for a in solved.best_actions)
    result = search(state, SearchConfig(iterations=30_000, solver=True, seed=0))
    assert result.proven == 1 and result.stopped_by == "proven"
    assert result.action in solved.best_actions
    assert solve(state.child(result.action)).outcome == -1  # for Black, now to move


def test_plain_mcts_and_cutoff_simulation_run() -> None:
    state = hexapawn.Hexapawn().new_initial_state()
    result = search(state, SearchConfig(iterations=500, seed=3))
    assert result.action in state.legal_actions() and result.iterations == 500
    cutoff = SearchConfig(iterations=300, simulation="cutoff", cutoff_depth=2, seed=1)
    assert search(state, cutoff).action in state.legal_actions()
    assert alphabeta(state, 3).action in state.legal_actions()


def test_perfect_black_beats_mcts_white() -> None:
    game = hexapawn.Hexapawn()
    white = MCTSPlayer(game.info, SearchConfig(iterations=300, seed=0))
    black = MinimaxPlayer(game.info)
    final = play_game(game.new_initial_state(), [white, black])
    assert final.returns() == [-1.0, 1.0]


def test_the_demo_runs(capsys: pytest.CaptureFixture[str]) -> None:
    hexapawn.main()
    out = capsys.readouterr().out
    assert "value for White -1" in out
    assert "MCTS, 2000 iterations, picks" in out
    assert out.rstrip().endswith("Black wins")
