"""mctslab's games as OpenSpiel games (mctslab.adapters.openspiel).

Oracles are OpenSpiel's own: its conformance test (``pyspiel.random_sim_test``) on every
registered game, its Python MCTSBot playing through the adapter, and its CFR and
exploitability on Kuhn poker, which must give the numbers they give on OpenSpiel's native
``kuhn_poker`` (and mctslab's own exploitability of the same policy), to 1e-9.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
from typing import Any

import numpy as np
import pytest

import mctslab
from conftest import require_extra
from mctslab.analysis.exploitability import exploitability, policy_value
from mctslab.core.errors import IllegalActionError, InvalidConfigError, UnknownGameError

pyspiel = require_extra("pyspiel", "openspiel")
from open_spiel.python.algorithms import cfr, mcts  # noqa: E402
from open_spiel.python.algorithms import exploitability as spiel_exploitability  # noqa: E402

from mctslab.adapters.openspiel import (  # noqa: E402
    SpielState,
    observation_shape,
    parameter_specification,
    register,
)

GT = pyspiel.GameType
# Kuhn poker's CFR: the iterations, and the exploitability of its average policy then, as
# OpenSpiel's native kuhn_poker measures it (docs/adapters-openspiel.md).
CFR_ITERATIONS = 300
CFR_EXPLOITABILITY = 0.003033960616150022


def _load(game_name: str, **params: Any) -> Any:
    return pyspiel.load_game(register(game_name, **params))


# -- OpenSpiel's conformance test ----------------------------------------------------


@pytest.mark.parametrize("game_name", mctslab.available_games())
def test_random_sim_test_passes_on_every_registered_game(game_name: str) -> None:
    """OpenSpiel's own checks of a game (legal actions, chance outcomes summing to one,
    returns, clone, strings and tensors, serialize/deserialize) on random playouts of
    every mctslab game, single-player ones included (few playouts: each is fast)."""
    game = _load(game_name)
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def test_random_sim_test_passes_with_parameters() -> None:
    """A game made with other parameters (three-player Kuhn poker, a 5-row board)."""
    for game in (_load("kuhn_poker", players=3), _load("connect_four", rows=5)):
        pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


# -- what maps to what -----------------------------------------------------------------


def test_kuhn_poker_is_an_imperfect_information_game_with_chance() -> None:
    game = _load("kuhn_poker")
    kind, info = game.get_type(), mctslab.make("kuhn_poker").info
    assert kind.short_name == "mctslab_kuhn_poker"
    assert kind.dynamics == GT.Dynamics.SEQUENTIAL
    assert kind.chance_mode == GT.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.information == GT.Information.IMPERFECT_INFORMATION
    assert kind.utility == GT.Utility.ZERO_SUM
    assert kind.reward_model == GT.RewardModel.TERMINAL
    assert kind.provides_information_state_string and kind.provides_information_state_tensor
    assert (game.num_players(), game.num_distinct_actions()) == (2, info.num_actions)
    assert (game.min_utility(), game.max_utility()) == (-2.0, 2.0)
    assert game.max_game_length() == info.max_game_length
    state = game.new_initial_state()
    assert state.is_chance_node()
    assert state.chance_outcomes() == [(0, 1 / 3), (1, 1 / 3), (2, 1 / 3)]


def test_tic_tac_toe_is_deterministic_with_perfect_information() -> None:
    kind = _load("tic_tac_toe").get_type()
    assert kind.chance_mode == GT.ChanceMode.DETERMINISTIC
    assert kind.information == GT.Information.PERFECT_INFORMATION
    assert kind.utility == GT.Utility.ZERO_SUM


def test_a_single_player_game_is_general_sum() -> None:
    game = _load("samegame")
    assert game.num_players() == 1
    assert game.get_type().utility == GT.Utility.GENERAL_SUM
    assert game.max_utility() == mctslab.make("samegame").info.max_utility


def test_states_wrap_mctslab_states() -> None:
    """The pyspiel state asks its mctslab state: the same legal actions, names, drawing
    and history as the mctslab game played the same way."""
    game = _load("tic_tac_toe")
    state, twin = game.new_initial_state(), mctslab.make("tic_tac_toe").new_initial_state()
    for action in (4, 0, 8):
        state.apply_action(action)
        twin.apply_action(action)
    assert isinstance(state, SpielState)
    assert state.legal_actions() == twin.legal_actions()
    assert state.action_to_string(1) == twin.action_to_string(1)
    assert str(state) == str(twin)
    assert state.history() == twin.history() == state.mctslab_state.history()
    # Perfect information: the information state is the history, the observation the board.
    assert state.information_state_string(0) == "4, 0, 8"
    assert state.observation_string(1) == str(twin)


def test_clone_is_independent_and_serialize_round_trips() -> None:
    game = _load("connect_four")
    state = game.new_initial_state()
    state.apply_action(3)
    copy = state.clone()
    copy.apply_action(2)
    assert state.history() == [3] and copy.history() == [3, 2]
    assert state.mctslab_state.history() == [3]
    back = game.deserialize_state(copy.serialize())
    assert back.history() == [3, 2] and str(back) == str(copy)
    assert pickle.loads(pickle.dumps(copy._wrapped)).state.history() == [3, 2]


# -- tensors ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("game_name", "shape"), [("tic_tac_toe", [3, 3, 3]), ("connect_four", [3, 6, 7])]
)
def test_observation_tensor_shapes_are_the_games_and_openspiels(
    game_name: str, shape: list[int]
) -> None:
    """The tensor shape is mctslab's, which is OpenSpiel's native game's; its values
    are the mctslab state's observation, flattened."""
    game = _load(game_name)
    assert game.observation_tensor_shape() == shape
    assert list(observation_shape(mctslab.make(game_name)) or ()) == shape
    assert pyspiel.load_game(game_name).observation_tensor_shape() == shape
    state = game.new_initial_state()
    for action in (0, 1, 2):
        state.apply_action(action)
    for player in (0, 1):
        expected = np.asarray(state.mctslab_state.observation_tensor(player)).reshape(-1)
        assert state.observation_tensor(player) == pytest.approx(expected.tolist())


def test_a_game_without_an_observation_tensor_provides_none() -> None:
    assert not _load("knockout_whist").get_type().provides_observation_tensor


def test_kuhn_poker_strings_and_tensors_are_openspiels() -> None:
    """Every history of Kuhn poker: the information state strings and tensors and the
    observation tensors of both players are those of OpenSpiel's native kuhn_poker."""
    ours, native = _load("kuhn_poker"), pyspiel.load_game("kuhn_poker")
    assert ours.information_state_tensor_shape() == native.information_state_tensor_shape()
    assert ours.observation_tensor_shape() == native.observation_tensor_shape()
    stack = [(ours.new_initial_state(), native.new_initial_state())]
    visited = 0
    while stack:
        a, b = stack.pop()
        visited += 1
        assert a.current_player() == b.current_player()
        assert a.returns() == b.returns()
        if not a.is_chance_node():
            for p in range(2):
                assert a.information_state_string(p) == b.information_state_string(p)
                assert a.information_state_tensor(p) == b.information_state_tensor(p)
                assert a.observation_tensor(p) == b.observation_tensor(p)
        assert a.legal_actions() == b.legal_actions()
        stack += [(a.child(x), b.child(x)) for x in a.legal_actions()]
    assert visited == 58  # Kuhn poker's histories, chance nodes included


# -- OpenSpiel's algorithms through the adapter -----------------------------------------


def _play_with_mcts(game: Any, simulations: int, seed: int) -> Any:
    rng = np.random.RandomState(seed)
    bot = mcts.MCTSBot(
        game, 2.0, simulations, mcts.RandomRolloutEvaluator(1, rng), random_state=rng, solve=True
    )
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(bot.step(state))
    return state


@pytest.mark.parametrize(("game_name", "simulations"), [("tic_tac_toe", 200), ("connect_four", 30)])
def test_openspiel_mcts_bot_plays_a_game_to_the_end(game_name: str, simulations: int) -> None:
    """OpenSpiel's Python MCTSBot plays both sides; the game it played is a legal game
    of mctslab's, with the same result."""
    state = _play_with_mcts(_load(game_name), simulations, seed=7)
    assert sum(state.returns()) == 0
    replayed = mctslab.make(game_name).state_from_actions(state.history())
    assert replayed.is_terminal() and replayed.returns() == state.returns()


def test_openspiel_mcts_bot_takes_a_win_in_one() -> None:
    """x on a1, b1; o on a2, b2: c1 (2) wins, which MCTS-Solver finds from the returns."""
    game = _load("tic_tac_toe")
    state = game.new_initial_state()
    for action in (0, 3, 1, 4):
        state.apply_action(action)
    rng = np.random.RandomState(1)
    bot = mcts.MCTSBot(game, 2.0, 100, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
    assert bot.step(state) == 2


def _cfr_average_policy(game: Any, iterations: int) -> Any:
    solver = cfr.CFRSolver(game)
    for _ in range(iterations):
        solver.evaluate_and_update_policy()
    return solver.average_policy()


def _as_mctslab_policy(policy: Any) -> dict[str, dict[int, float]]:
    """OpenSpiel's ``TabularPolicy`` as mctslab's: information state -> action -> probability."""
    return {
        key: {
            int(a): float(policy.action_probability_array[row][a])
            for a in np.flatnonzero(policy.legal_actions_mask[row])
        }
        for key, row in policy.state_lookup.items()
    }


def test_cfr_on_kuhn_poker_through_the_adapter_is_openspiels() -> None:
    """CFR's average policy after 300 iterations is as exploitable through the adapter as
    on OpenSpiel's native kuhn_poker, and mctslab's own exploitability of it on mctslab's
    Kuhn poker agrees, to 1e-9; its value for player 0 nears the game's, -1/18."""
    ours = _load("kuhn_poker")
    native = pyspiel.load_game("kuhn_poker")
    policy = _cfr_average_policy(ours, CFR_ITERATIONS)
    native_policy = _cfr_average_policy(native, CFR_ITERATIONS)
    assert sorted(policy.state_lookup) == sorted(native_policy.state_lookup)
    through = spiel_exploitability.exploitability(ours, policy)
    direct = spiel_exploitability.exploitability(native, native_policy)
    table = _as_mctslab_policy(policy)
    own = exploitability(mctslab.make("kuhn_poker"), table)
    assert through == pytest.approx(direct, abs=1e-9)
    assert own == pytest.approx(direct, abs=1e-9)
    assert direct == pytest.approx(CFR_EXPLOITABILITY, abs=1e-9)
    value = policy_value(mctslab.make("kuhn_poker"), table)
    assert value[0] == pytest.approx(-1 / 18, abs=1e-3)
    assert value[0] + value[1] == pytest.approx(0.0, abs=1e-12)


# -- names, parameters and errors --------------------------------------------------------


def test_register_returns_the_name_load_game_takes() -> None:
    assert register("connect_four") == "mctslab_connect_four"
    assert register("connect_four") == "mctslab_connect_four"  # registered once
    name = register("connect_four", rows=5)
    assert name == "mctslab_connect_four(rows=5)"
    by_name = pyspiel.load_game(name)
    by_dict = pyspiel.load_game("mctslab_connect_four", {"rows": 5})
    assert by_name.observation_tensor_shape() == by_dict.observation_tensor_shape() == [3, 5, 7]
    assert by_name.max_game_length() == 35


def test_parameters_are_carried_in_openspiels_types() -> None:
    assert parameter_specification("nim") == {"piles": "1;3;5;7", "misere": False}
    assert register("nim", piles=(1, 2)) == "mctslab_nim(piles=1;2)"
    assert pyspiel.load_game("mctslab_nim(piles=1;2)").num_distinct_actions() == (
        mctslab.make("nim", piles=(1, 2)).info.num_actions
    )
    assert register("go", komi=6.0, board_size=5) == "mctslab_go(board_size=5,komi=6.0)"
    assert pyspiel.load_game("mctslab_go(board_size=5,komi=6.0)").num_distinct_actions() == 26


def test_unknown_game_is_mctslabs_error() -> None:
    with pytest.raises(UnknownGameError, match="unknown game 'nope'"):
        register("nope")
    with pytest.raises(InvalidConfigError, match="OpenSpiel's own game"):
        register("openspiel:kuhn_poker")


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"rows": -1}, "rows must be"),
        ({"bogus": 1}, "unknown parameter 'bogus'"),
        ({"rows": "a,b"}, "cannot be an OpenSpiel parameter"),
    ],
)
def test_bad_parameters_are_mctslabs_errors(params: dict[str, Any], match: str) -> None:
    with pytest.raises(InvalidConfigError, match=match):
        register("connect_four", **params)


def test_a_parameter_without_an_openspiel_type_is_refused() -> None:
    with pytest.raises(InvalidConfigError, match="'max_game_length' of 'go' is not an OpenSpiel"):
        register("go", max_game_length=10)


def test_an_illegal_action_names_the_legal_ones() -> None:
    state = _load("tic_tac_toe").new_initial_state()
    state.apply_action(4)
    with pytest.raises(IllegalActionError, match=r"illegal action 4 in tic_tac_toe; legal"):
        state.apply_action(4)
    assert state.history() == [4]  # nothing applied


def test_the_adapters_face_imports_no_framework() -> None:
    code = (
        "import sys, mctslab.adapters; "
        "print(sorted(m for m in ('pyspiel', 'pettingzoo', 'gymnasium') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300
    )
    assert out.stdout.strip() == "[]"
