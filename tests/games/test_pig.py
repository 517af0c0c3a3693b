"""Pig (mctslab.games.pig): OpenSpiel's rules move by move, the API, the hold strategy."""

from __future__ import annotations

from typing import Any

import pyspiel
import pytest

import mctslab
from mctslab.core.errors import IllegalActionError, InvalidConfigError
from mctslab.core.game import CHANCE, TERMINAL, sample_chance_outcome
from mctslab.core.infoset import NoConsistentWorldError
from mctslab.core.rng import Rng
from mctslab.core.testing import check_game
from mctslab.games.pig import ROLL, STOP, Pig, PigHoldPlayer, PigState

# (our parameters, OpenSpiel's parameters, games)
CASES: list[tuple[dict[str, int], dict[str, int], int]] = [
    ({}, {}, 40),
    ({"target": 20}, {"winscore": 20}, 300),
    ({"players": 3, "target": 20}, {"players": 3, "winscore": 20}, 300),
    ({"players": 4, "target": 20}, {"players": 4, "winscore": 20}, 300),
    ({"target": 20, "horizon": 9}, {"winscore": 20, "horizon": 9}, 300),  # horizon endings
    (
        {"players": 3, "target": 15, "dice": 3, "horizon": 40},
        {"players": 3, "winscore": 15, "diceoutcomes": 3, "horizon": 40},
        300,
    ),
]


def _case_id(case: tuple[dict[str, int], dict[str, int], int]) -> str:
    return ",".join(f"{k}={v}" for k, v in case[0].items()) or "default"


def _pick(state: PigState, rng: Rng) -> int:
    if state.current_player() == CHANCE:
        return sample_chance_outcome(state, rng)
    return rng.choice(state.legal_actions())


def _view(state: Any, players: int, full: bool) -> dict[str, Any]:
    """Everything comparable about a state, mctslab's or OpenSpiel's."""
    terminal = state.is_terminal()
    player = state.current_player()
    legal = list(state.legal_actions())
    view: dict[str, Any] = {
        "player": player,
        "terminal": terminal,
        "legal": legal,
        "history": list(state.history()),
        "returns": list(state.returns()),
        "str": str(state),
        "names": [state.action_to_string(a) for a in legal],
        "chance": [tuple(o) for o in state.chance_outcomes()] if player == CHANCE else [],
        "observations": [state.observation_string(p) for p in range(players)],
    }
    if full:  # the tensors and history strings are long: every few steps
        view["tensors"] = [list(state.observation_tensor(p)) for p in range(players)]
        if isinstance(state, PigState):
            view["infostates"] = [state.information_state_string(p) for p in range(players)]
        else:
            view["infostates"] = [state.history_str()] * players
    return view


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_random_games_match_openspiel(case: tuple[dict[str, int], dict[str, int], int]) -> None:
    params, spiel_params, n_games = case
    game = Pig(**params)
    spiel = pyspiel.load_game("pig", spiel_params)
    players = game.info.num_players
    assert game.observation_tensor_shape() == spiel.observation_tensor_shape()
    assert game.info.num_actions == max(spiel.num_distinct_actions(), spiel.max_chance_outcomes())
    assert game.info.max_game_length == (
        spiel.max_game_length() + spiel.max_chance_nodes_in_history()
    )
    assert (game.info.min_utility, game.info.max_utility) == (
        spiel.min_utility(),
        spiel.max_utility(),
    )
    horizon_endings = 0
    for seed in range(n_games):
        rng = Rng(seed)
        state = game.new_initial_state()
        other = spiel.new_initial_state()
        step = 0
        while True:
            full = step % 7 == 0 or state.is_terminal()
            got, want = _view(state, players, full), _view(other, players, full)
            if got != want:
                diff = {k: (got[k], want[k]) for k in got if got[k] != want[k]}
                pytest.fail(f"pig {params} seed {seed}, history {state.history()}: {diff}")
            if state.is_terminal():
                break
            action = _pick(state, rng)
            state.apply_action(action)
            other.apply_action(action)
            step += 1
        assert len(state.history()) <= game.info.max_game_length
        horizon_endings += state.returns() == [0.0] * players
    if "horizon" in params:
        assert horizon_endings > 0, "no game reached the horizon: the case tests nothing"


@pytest.mark.parametrize(
    "params", [{}, {"players": 3, "target": 20}, {"target": 12, "dice": 2, "horizon": 5}]
)
def test_check_game_passes(params: dict[str, int]) -> None:
    check_game(Pig(**params), n_games=30, seed=3)


def test_registered_under_pig() -> None:
    game = mctslab.make("pig", players=3, target=50)
    assert isinstance(game, Pig) and game.info.num_players == 3 and game.target == 50
    assert mctslab.core.registry.game_parameters("pig") == {
        "players": 2,
        "target": 100,
        "dice": 6,
        "horizon": 1000,
    }


@pytest.mark.parametrize(
    "params,match",
    [
        ({"players": 1}, r"players must be an integer \[2, 10\]"),
        ({"players": 11}, r"\[2, 10\]"),
        ({"target": 0}, r"target must be an integer \[1, 1000\]"),
        ({"dice": 1}, r"dice must be an integer \[2, 100\]"),
        ({"horizon": 0}, r"horizon must be an integer \[1, 10000\]"),
        # Bounded above: a billion faces or plies would hang a search (found by fuzzing).
        ({"target": 1001}, r"target must be an integer \[1, 1000\]"),
        ({"dice": 1_000_000_000}, r"dice must be an integer \[2, 100\]"),
        ({"horizon": 10_001}, r"horizon must be an integer \[1, 10000\]"),
        ({"players": True}, "players"),
        ({"target": 2.5}, "target"),
    ],
)
def test_bad_parameters_raise(params: dict[str, Any], match: str) -> None:
    with pytest.raises(InvalidConfigError, match=match):
        Pig(**params)
    with pytest.raises(InvalidConfigError):
        mctslab.make("pig", **params)


def test_illegal_actions_raise_and_change_nothing() -> None:
    game = Pig(target=10)
    state = game.new_initial_state()
    with pytest.raises(IllegalActionError, match=r"legal actions: 0 \(roll\), 1 \(stop\)"):
        state.apply_action(2)
    state.apply_action(ROLL)
    assert state.current_player() == CHANCE
    assert state.legal_actions() == [0, 1, 2, 3, 4, 5]
    with pytest.raises(IllegalActionError, match=r"5 \(Roll 6\)"):
        state.apply_action(6)
    state.apply_action(5)  # a six
    state.apply_action(ROLL)
    state.apply_action(4)  # a five: 11 >= 10, only stop is legal
    assert state.legal_actions() == [STOP]
    with pytest.raises(IllegalActionError, match=r"legal actions: 1 \(stop\)$"):
        state.apply_action(ROLL)
    assert state.history() == [0, 5, 0, 4]
    state.apply_action(STOP)
    assert state.is_terminal() and state.current_player() == TERMINAL
    assert state.returns() == [1.0, -1.0]
    with pytest.raises(IllegalActionError, match="game is over"):
        state.apply_action(STOP)
    with pytest.raises(IllegalActionError):
        state.apply_action("stop")  # type: ignore[arg-type]


def test_a_one_loses_the_turn_total_and_the_names_round_trip() -> None:
    state = Pig(players=3).state_from_actions([ROLL, 3, ROLL, 0])  # a 4, then a 1
    assert state.turn_total == 0 and state.scores == [0, 0, 0]
    assert state.current_player() == 1 and state.turn_player == 1
    assert str(state) == "Scores: 0 0 0, Turn total: 0\nCurrent player: 1\n"
    state.apply_action(ROLL)
    assert str(state) == "Scores: 0 0 0, Turn total: 0\nCurrent player: 1 (rolling)\n"
    assert state.string_to_action("Roll 3") == 2 and state.string_to_action("6") == 5
    with pytest.raises(IllegalActionError):
        state.string_to_action("Roll 7")
    state.apply_action(2)
    assert state.string_to_action(" STOP ") == STOP
    assert [state.action_to_string(a) for a in (ROLL, STOP)] == ["roll", "stop"]
    with pytest.raises(IllegalActionError, match="legal actions: roll, stop"):
        state.string_to_action("hold")


def test_three_player_returns_are_zero_sum() -> None:
    state = Pig(players=3, target=5).state_from_actions([ROLL, 1, ROLL, 2, STOP])
    assert state.is_terminal() and state.scores == [5, 0, 0]
    assert state.returns() == [1.0, -0.5, -0.5]
    assert state.heuristic() == state.returns()


def test_heuristic_and_key() -> None:
    game = Pig(target=20)
    state = game.state_from_actions([ROLL, 4, STOP, ROLL, 2])  # 5 banked, then a 3 in hand
    assert state.heuristic() == pytest.approx([5 / 20 - 3 / 20, 3 / 20 - 5 / 20])
    again = game.state_from_actions([ROLL, 4, STOP, ROLL, 2])
    assert again.key() == state.key() and hash(again.key()) == hash(state.key())
    assert state.child(STOP).key() != state.key()


def test_resample_is_a_copy_and_honours_the_model() -> None:
    state = Pig().state_from_actions([ROLL, 4, STOP, ROLL])
    world = state.resample_from_infostate(1, Rng(0))
    assert world is not state and world.history() == state.history() and str(world) == str(state)
    assert world.information_state_string(0) == state.information_state_string(0) == "0, 4, 1, 0"
    world.apply_action(3)
    assert state.current_player() == CHANCE  # independent
    assert state.resample_from_infostate(0, Rng(0), lambda w, p: 1.0).history() == state.history()
    with pytest.raises(NoConsistentWorldError):
        state.resample_from_infostate(0, Rng(0), lambda w, p: 0.0)
    with pytest.raises(InvalidConfigError, match="player"):
        state.resample_from_infostate(2, Rng(0))


def test_hold_player_decisions() -> None:
    player = PigHoldPlayer()
    assert player.name == "pig-hold-20"
    game = Pig()
    # Player 0's turn total: 6 + 6 + 5 + 2 = 19, or 6 + 6 + 5 + 3 = 20.
    at_19 = game.state_from_actions([ROLL, 5, ROLL, 5, ROLL, 4, ROLL, 1])
    assert at_19.turn_total == 19 and player.choose(at_19) == ROLL
    at_20 = game.state_from_actions([ROLL, 5, ROLL, 5, ROLL, 4, ROLL, 2])
    assert at_20.turn_total == 20 and player.choose(at_20) == STOP
    # Score + turn total reaching the target: stop even below hold_at.
    near = Pig(target=25).state_from_actions([ROLL, 5, ROLL, 5, ROLL, 4, STOP, STOP, ROLL, 5])
    assert near.scores == [17, 0] and near.turn_total == 6 and near.current_player() == 0
    assert player.choose(near) == ROLL  # 23 < 25
    near.apply_action(ROLL)
    near.apply_action(1)  # a 2: 17 + 8 = 25
    assert player.choose(near) == STOP
    assert PigHoldPlayer(5).choose(game.state_from_actions([ROLL, 4])) == STOP
    player.inform(STOP)
    with pytest.raises(InvalidConfigError):
        PigHoldPlayer(0)


def test_hold_player_beats_random_play() -> None:
    game = Pig(target=30)
    hold, rng, wins = PigHoldPlayer(), Rng(7), 0
    for g in range(200):
        state = game.new_initial_state()
        me = g % 2
        while not state.is_terminal():
            if state.current_player() == me:
                state.apply_action(hold.choose(state))
            else:
                state.apply_action(_pick(state, rng))
        wins += state.returns()[me] > 0
    assert wins > 150
