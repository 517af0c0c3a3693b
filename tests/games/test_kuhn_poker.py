"""Kuhn poker (mctslab.games.kuhn_poker): OpenSpiel's rules and encodings, determinizations."""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any

import pyspiel
import pytest

import mctslab
from mctslab.core.errors import IllegalActionError, InvalidConfigError
from mctslab.core.game import CHANCE, TERMINAL, State, sample_chance_outcome
from mctslab.core.infoset import NoConsistentWorldError, determinize
from mctslab.core.rng import Rng
from mctslab.core.testing import check_game
from mctslab.games.kuhn_poker import BET, PASS, KuhnPoker, KuhnPokerState

JACK, QUEEN, KING = 0, 1, 2


def _pick(state: KuhnPokerState, rng: Rng) -> int:
    if state.current_player() == CHANCE:
        return sample_chance_outcome(state, rng)
    return rng.choice(state.legal_actions())


def _view(state: Any, players: int) -> dict[str, Any]:
    """Everything comparable about a state, mctslab's or OpenSpiel's."""
    player = state.current_player()
    legal = list(state.legal_actions())
    return {
        "player": player,
        "terminal": state.is_terminal(),
        "legal": legal,
        "history": list(state.history()),
        "returns": list(state.returns()),
        "str": str(state),
        "names": [state.action_to_string(a) for a in legal],
        "chance": [tuple(o) for o in state.chance_outcomes()] if player == CHANCE else [],
        "infostates": [state.information_state_string(p) for p in range(players)],
        "observations": [state.observation_string(p) for p in range(players)],
        "infostate_tensors": [list(state.information_state_tensor(p)) for p in range(players)],
        "observation_tensors": [list(state.observation_tensor(p)) for p in range(players)],
    }


@pytest.mark.parametrize("players,n_games", [(2, 300), (3, 300), (4, 150), (10, 30)])
def test_random_games_match_openspiel(players: int, n_games: int) -> None:
    game = KuhnPoker(players)
    spiel = pyspiel.load_game("kuhn_poker", {"players": players})
    info = game.info
    assert info.num_actions == max(spiel.num_distinct_actions(), spiel.max_chance_outcomes())
    assert info.max_game_length == spiel.max_game_length() + spiel.max_chance_nodes_in_history()
    assert (info.min_utility, info.max_utility) == (spiel.min_utility(), spiel.max_utility())
    assert game.information_state_tensor_shape() == spiel.information_state_tensor_shape()
    assert game.observation_tensor_shape() == spiel.observation_tensor_shape()
    endings: Counter[tuple[float, ...]] = Counter()
    for seed in range(n_games):
        rng = Rng(seed)
        state = game.new_initial_state()
        other = spiel.new_initial_state()
        while True:
            got, want = _view(state, players), _view(other, players)
            if got != want:
                diff = {k: (got[k], want[k]) for k in got if got[k] != want[k]}
                pytest.fail(f"kuhn_poker({players}) seed {seed}, history {state.history()}: {diff}")
            if state.is_terminal():
                break
            action = _pick(state, rng)
            state.apply_action(action)
            other.apply_action(action)
        assert len(state.history()) <= info.max_game_length
        endings[tuple(state.returns())] += 1
    assert len(endings) >= 2 * players  # folds, calls and showdowns of every kind occurred


def test_every_two_player_game_matches_openspiel() -> None:
    """All 6 deals x 5 betting sequences of the two-player game, exhaustively."""
    game, spiel = KuhnPoker(), pyspiel.load_game("kuhn_poker")
    for deal in itertools.permutations(range(3), 2):
        for betting in ([0, 0], [0, 1, 0], [0, 1, 1], [1, 0], [1, 1]):
            state = game.state_from_actions([*deal, *betting])
            other = spiel.new_initial_state()
            for a in [*deal, *betting]:
                other.apply_action(a)
            assert state.is_terminal() and other.is_terminal()
            assert state.returns() == other.returns()
            assert _view(state, 2) == _view(other, 2)


def test_known_encodings() -> None:
    state = KuhnPoker().state_from_actions([JACK, KING, PASS, BET])
    assert str(state) == "0 2 pb"
    assert state.information_state_string(0) == "0pb"
    assert state.information_state_string(1) == "2pb"
    assert state.observation_string(0) == "012"
    assert state.information_state_tensor(0) == [1, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0]
    assert state.observation_tensor(1) == [0, 1, 0, 0, 1, 1, 2]
    assert state.current_player() == 0 and state.pot == 3
    state.apply_action(PASS)  # Jack folds
    assert state.is_terminal() and state.current_player() == TERMINAL
    assert state.returns() == [-1.0, 1.0]
    three = KuhnPoker(3).state_from_actions([3, 1, 0, BET, BET, PASS])  # 3 bets, 1 calls, 0 folds
    assert three.is_terminal() and three.returns() == [3.0, -2.0, -1.0]


def test_check_game_passes() -> None:
    check_game(KuhnPoker(), n_games=100, seed=1)
    check_game(KuhnPoker(4), n_games=50, seed=2)


def test_registered_under_kuhn_poker() -> None:
    game = mctslab.make("kuhn_poker", players=3)
    assert isinstance(game, KuhnPoker) and game.info.num_players == 3
    assert mctslab.core.registry.game_parameters("kuhn_poker") == {"players": 2}


@pytest.mark.parametrize("players", [1, 11, 0, True, 2.0, "2"])
def test_bad_parameters_raise(players: Any) -> None:
    with pytest.raises(InvalidConfigError, match=r"players must be an integer in \[2, 10\]"):
        KuhnPoker(players)
    with pytest.raises(InvalidConfigError):
        mctslab.make("kuhn_poker", players=players)


def test_illegal_actions_raise_and_change_nothing() -> None:
    state = KuhnPoker().new_initial_state()
    with pytest.raises(IllegalActionError, match=r"legal actions: 0 \(Deal:0\), 1 \(Deal:1\)"):
        state.apply_action(3)
    state.apply_action(KING)
    with pytest.raises(IllegalActionError, match=r"legal actions: 0 \(Deal:0\), 1 \(Deal:1\)$"):
        state.apply_action(KING)  # dealt already
    state.apply_action(QUEEN)
    with pytest.raises(IllegalActionError, match=r"0 \(Pass\), 1 \(Bet\)"):
        state.apply_action(2)
    assert state.history() == [KING, QUEEN]
    assert state.string_to_action("bet") == BET and state.string_to_action(" P ") == PASS
    with pytest.raises(IllegalActionError, match="legal actions: Pass, Bet"):
        state.string_to_action("raise")
    state.apply_action(PASS)
    state.apply_action(PASS)
    assert state.returns() == [1.0, -1.0]
    with pytest.raises(IllegalActionError, match="game is over"):
        state.apply_action(PASS)
    fresh = KuhnPoker().new_initial_state()
    assert fresh.string_to_action("Deal:2") == 2 and fresh.string_to_action("1") == 1


def _worlds_seen(state: KuhnPokerState, player: int, draws: int, seed: int) -> Counter[str]:
    rng = Rng(seed)
    seen: Counter[str] = Counter()
    want = state.information_state_string(player)
    for _ in range(draws):
        world = state.resample_from_infostate(player, rng)
        assert world.information_state_string(player) == want
        assert world.history()[state.game.players :] == state.history()[state.game.players :]
        replay = KuhnPoker(state.game.players).state_from_actions(world.history())
        assert str(replay) == str(world) and replay.returns() == world.returns()
        seen[str(world)] += 1
    return seen


@pytest.mark.parametrize(
    "players,history,player,worlds",
    [
        (2, [JACK, KING, PASS, BET], 0, 2),  # the opponent holds the Queen or the King
        (2, [JACK, KING, BET, BET], 1, 2),  # terminal: nothing is revealed in OpenSpiel
        (3, [2, 0, 3, BET], 1, 6),  # 3 cards left for 2 opponents: 3 * 2 deals
        (3, [2, 0], 0, 3),  # mid-deal: player 1's card only
        (3, [2], 2, 4),  # player 2 has no card yet: 4 possible cards for player 0
        (2, [], 0, 1),  # nothing dealt: the only world is the initial state
    ],
)
def test_resample_draws_every_consistent_world_uniformly(
    players: int, history: list[int], player: int, worlds: int
) -> None:
    state = KuhnPoker(players).state_from_actions(history)
    draws = 600 * worlds
    seen = _worlds_seen(state, player, draws, seed=11)
    assert len(seen) == worlds, seen
    expected = draws / worlds
    chi2 = sum((count - expected) ** 2 / expected for count in seen.values())
    # The 99.9% quantile of chi-square with (worlds - 1) <= 5 degrees of freedom is 20.5.
    assert chi2 < 20.5, seen
    assert str(state) in seen


def test_resample_keeps_the_true_state_unchanged_and_is_reproducible() -> None:
    state = KuhnPoker(3).state_from_actions([1, 3, 0, PASS])
    before = (str(state), state.history())
    a = str(state.resample_from_infostate(0, Rng(5)))
    assert a == str(state.resample_from_infostate(0, Rng(5))) == str(determinize(state, 0, Rng(5)))
    assert (str(state), state.history()) == before


def test_an_opponent_model_restricts_the_worlds() -> None:
    state = KuhnPoker().state_from_actions([JACK, QUEEN, PASS, BET])

    def opponent_holds_the_king(world: State, player: int) -> float:
        assert isinstance(world, KuhnPokerState)
        return 1.0 if world.card(1 - player) == KING else 0.0

    rng = Rng(3)
    cards = Counter(
        state.resample_from_infostate(0, rng, opponent_holds_the_king).card(1) for _ in range(200)
    )
    assert cards == {KING: 200}

    def half_as_likely_with_the_queen(world: State, player: int) -> float:
        assert isinstance(world, KuhnPokerState)
        return 0.5 if world.card(1) == QUEEN else 1.0

    cards = Counter(
        state.resample_from_infostate(0, rng, half_as_likely_with_the_queen).card(1)
        for _ in range(3000)
    )
    assert 900 < cards[QUEEN] < 1100 and cards[KING] == 3000 - cards[QUEEN]  # 1/3 expected

    with pytest.raises(NoConsistentWorldError):
        state.resample_from_infostate(0, rng, lambda world, player: 0.0)
    with pytest.raises(InvalidConfigError, match="player"):
        state.resample_from_infostate(2, rng)


def test_resample_from_the_holder_of_the_king_never_gives_it_away() -> None:
    state = KuhnPoker(3).state_from_actions([0, 3, 2, PASS, BET])
    rng = Rng(9)
    for _ in range(300):
        world = state.resample_from_infostate(1, rng)
        assert world.card(1) == 3 and world.betting() == [PASS, BET]
        assert 3 not in (world.card(0), world.card(2))
