"""Built-in games: conformance, known positions and parameters."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import mctslab
from mctslab.core.game import TERMINAL
from mctslab.core.testing import ConformanceError, check_game, random_game
from mctslab.games import ConnectFour, KernelState, TicTacToe, connect_four
from mctslab.games.kernels import rng_randint

GAMES = mctslab.available_games()


@pytest.mark.parametrize("name", GAMES)
def test_every_registered_game_conforms(name: str) -> None:
    assert check_game(mctslab.make(name), n_games=30, seed=1) > 30


@pytest.mark.parametrize(
    "name,params",
    [
        ("connect_four", {"rows": 4, "columns": 5, "x_in_row": 3}),
        ("connect_four", {"rows": 8, "columns": 9, "x_in_row": 5}),  # too big for bitboards
        ("nim", {"piles": [2, 5], "max_take": 3, "misere": True}),
        ("nim", {"piles": "3;4;5"}),
        ("bachet", {"stones": 10}),
    ],
)
def test_parameterised_games_conform(name: str, params: dict[str, object]) -> None:
    check_game(mctslab.make(name, **params), n_games=20, seed=2)


def test_unknown_game_lists_the_valid_names() -> None:
    with pytest.raises(mctslab.UnknownGameError, match="tic_tac_toe"):
        mctslab.make("chess960")


def test_unknown_parameter_names_the_valid_ones() -> None:
    with pytest.raises(mctslab.InvalidConfigError, match="rows"):
        mctslab.make("connect_four", colums=7)


@pytest.mark.parametrize(
    "name,params",
    [
        ("connect_four", {"rows": 0}),
        ("connect_four", {"x_in_row": 9}),
        ("nim", {"piles": "1;x"}),
        ("nim", {"piles": [-1]}),
        ("nim", {"max_take": 0}),
    ],
)
def test_bad_parameters_raise_typed_errors(name: str, params: dict[str, object]) -> None:
    with pytest.raises(mctslab.InvalidConfigError):
        mctslab.make(name, **params)


def test_illegal_action_names_the_legal_ones_and_changes_nothing() -> None:
    state = mctslab.make("tic_tac_toe").new_initial_state()
    state.apply_action(4)
    with pytest.raises(mctslab.IllegalActionError, match=r"legal actions: 0 \(a1\)"):
        state.apply_action(4)
    assert state.history() == [4]
    with pytest.raises(ValueError):
        state.apply_action(9)


def test_tic_tac_toe_row_wins_and_draw() -> None:
    game = mctslab.make("tic_tac_toe")
    win = game.state_from_actions([0, 3, 1, 4, 2])  # x takes the top row
    assert win.is_terminal() and win.returns() == [1.0, -1.0]
    assert win.current_player() == mctslab.TERMINAL
    draw = game.state_from_actions([0, 1, 2, 4, 3, 5, 7, 6, 8])
    assert draw.is_terminal() and draw.returns() == [0.0, 0.0]
    assert str(game.new_initial_state().child(4)).splitlines()[2] == "2  . x ."


def test_connect_four_diagonal_and_encodings() -> None:
    game = mctslab.make("connect_four")
    # x builds the diagonal (0,0) (1,1) (2,2) (3,3).
    state = game.state_from_actions([0, 1, 1, 2, 2, 3, 2, 3, 3, 6])
    assert not state.is_terminal()
    state.apply_action(3)
    assert state.returns() == [1.0, -1.0]
    assert game.new_initial_state().string_to_action("4") == 3


def test_connect_four_small_board_fills_to_a_draw() -> None:
    game = mctslab.make("connect_four", rows=2, columns=3, x_in_row=3)
    state = game.state_from_actions([0, 1, 0, 1, 2, 2])
    assert state.is_terminal() and state.returns() == [0.0, 0.0]


def test_nim_normal_and_misere_last_stone() -> None:
    normal = mctslab.make("nim", piles=[2]).new_initial_state()
    normal.apply_action(normal.string_to_action("1:2"))
    assert normal.returns() == [1.0, -1.0]
    misere = mctslab.make("nim", piles=[2], misere=True).new_initial_state()
    misere.apply_action(misere.string_to_action("2"))
    assert misere.returns() == [-1.0, 1.0]


def test_bachet_defaults_and_take_limit() -> None:
    game = mctslab.make("bachet")
    state = game.new_initial_state()
    assert [state.action_to_string(a) for a in state.legal_actions()] == ["1:1", "1:2"]
    assert game.info.name == "bachet" and "(4)" in str(state)
    assert mctslab.make("bachet", stones=7).new_initial_state().legal_actions() == [0, 1]


def test_nim_accepts_openspiel_action_strings() -> None:
    state = mctslab.make("nim", piles="1;3;5").new_initial_state()
    assert state.string_to_action("pile:3, take:5;") == 14
    with pytest.raises(mctslab.IllegalActionError, match="unknown action"):
        state.string_to_action("4:1")


def test_random_game_is_reproducible_from_its_seed() -> None:
    game = mctslab.make("connect_four")
    assert random_game(game, 7).history() == random_game(game, 7).history()
    assert random_game(game, 7).history() != random_game(game, 8).history()


class _SharedCloneState(KernelState):
    def clone(self) -> _SharedCloneState:
        return self


class _BrokenGame(TicTacToe):
    """Tic-tac-toe whose clone shares its board: the checker must notice."""

    def new_initial_state(self) -> KernelState:
        return _SharedCloneState(self, self.kernels.init(self.params), [])


def test_check_game_catches_a_shared_clone() -> None:
    with pytest.raises(ConformanceError, match="independent"):
        check_game(_BrokenGame(), n_games=2)


def test_connect_four_playout_makes_the_generic_loops_draws() -> None:
    """The playout kernel against the generic random loop, from many positions and
    seeds: bitboards with the table of columns (up to 8) and without (10 columns), and
    no bitboards (9 x 9)."""
    boards = (
        {},
        {"rows": 4, "columns": 5, "x_in_row": 3},
        {"rows": 5, "columns": 10},
        {"rows": 9, "columns": 9},
    )
    for params in boards:
        game = mctslab.make("connect_four", **params)
        assert game.kernels.playout is not None
        check_game(game, n_games=60, seed=3)


def test_tic_tac_toe_playout_makes_the_generic_loops_draws() -> None:
    """The playout kernel against the generic random loop, from many positions and seeds."""
    game = mctslab.make("tic_tac_toe")
    assert game.kernels.playout is not None
    check_game(game, n_games=200, seed=5)


def _leftmost_playout(s, params, rng, out):  # type: ignore[no-untyped-def]
    """A playout that draws but always plays the leftmost legal move."""
    buf = np.zeros(params[1], dtype=np.int64)
    plies = 0
    while s[0] != TERMINAL:
        n = connect_four.legal_actions(s, params, buf)
        rng_randint(rng, n)
        connect_four.apply_action(s, params, buf[0])
        plies += 1
    connect_four.returns(s, params, out)
    return plies


class _WrongPlayoutGame(ConnectFour):
    kernels = dataclasses.replace(ConnectFour.kernels, playout=_leftmost_playout)


def test_check_game_catches_a_playout_with_other_draws() -> None:
    with pytest.raises(ConformanceError, match="playout kernel"):
        check_game(_WrongPlayoutGame(), n_games=2)


def test_kernel_games_give_each_thread_its_own_legal_action_buffer() -> None:
    """States of one game listed their legal actions through the game's one scratch
    buffer; searches in two threads (root parallelism, the web lab) then read each
    other's moves. Each thread now has its own, and the game still pickles (process
    workers) with a fresh one."""
    import pickle
    import threading

    game = mctslab.make("connect_four")
    seen: list[object] = []
    thread = threading.Thread(target=lambda: seen.append(game._scratch()))
    thread.start()
    thread.join()
    assert seen[0] is not game._scratch() and game._scratch() is game._scratch()
    state = pickle.loads(pickle.dumps(game.state_from_actions([0] * 6)))
    assert state.legal_actions() == [1, 2, 3, 4, 5, 6]
