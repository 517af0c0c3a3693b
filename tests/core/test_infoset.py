"""Determinizations and opponent models (mctslab.core.infoset) on Kuhn poker, where every
consistent world can be listed."""

from __future__ import annotations

from collections import Counter

import pytest

import mctslab
from mctslab.core.infoset import (
    NoConsistentWorldError,
    determinize,
    information_key,
    is_perfect_information,
    policy_model,
    sample_world,
)
from mctslab.core.rng import Rng
from mctslab.search.ismcts import ISMCTS, ISMCTSConfig

J, Q, K = 0, 1, 2
PASS, BET = 0, 1


def test_policy_model_is_bayes_rule_over_the_deals() -> None:
    """Player 1 bets with the king always, with the jack (a bluff) half the time, never
    with the queen. Player 0 holds the queen and saw a bet after its pass: player 1 holds
    the king with chance 1 / (1 + 0.5) = 2/3, the jack 1/3."""
    game = mctslab.make("kuhn_poker")
    policy = {"0p": {PASS: 0.5, BET: 0.5}, "1p": {PASS: 1.0, BET: 0.0}, "2p": {PASS: 0.0, BET: 1.0}}
    model = policy_model(policy)
    state = game.state_from_actions([Q, K, PASS, BET])
    rng = Rng(1)
    cards = Counter(state.resample_from_infostate(0, rng, model).history()[1] for _ in range(3000))
    assert set(cards) == {J, K}
    assert cards[K] / 3000 == pytest.approx(2 / 3, abs=0.03)
    # Without the model both cards are equally likely.
    plain = Counter(state.resample_from_infostate(0, rng).history()[1] for _ in range(3000))
    assert plain[K] / 3000 == pytest.approx(1 / 2, abs=0.03)


def test_a_model_that_rules_out_every_world_raises() -> None:
    state = mctslab.make("kuhn_poker").state_from_actions([Q, K, PASS, BET])
    never = policy_model({"0p": {PASS: 1.0, BET: 0.0}, "2p": {PASS: 1.0, BET: 0.0}})
    with pytest.raises(NoConsistentWorldError):
        state.resample_from_infostate(0, Rng(0), never)
    with pytest.raises(NoConsistentWorldError):
        sample_world(lambda: state, 0, Rng(0), lambda w, p: 0.0, max_tries=5)


def test_ismcts_with_an_opponent_model_folds_against_a_player_who_never_bluffs() -> None:
    """Holding the queen, facing a bet after checking: against uniform beliefs calling is
    worth about 0 (half the time the jack), against a player who bets only the king it
    loses 2, so a search with that model folds."""
    game = mctslab.make("kuhn_poker")
    honest = policy_model({"0p": {PASS: 1.0, BET: 0.0}, "2p": {PASS: 0.0, BET: 1.0}})
    state = game.state_from_actions([Q, J, PASS, BET])  # the true card does not matter
    config = ISMCTSConfig(iterations=2000, seed=0)
    with_model = ISMCTS(config, honest).search(state)
    assert with_model.action == PASS
    values = {ch.action: ch.value for ch in with_model.children}
    assert values[BET] == pytest.approx(-2.0)


def test_perfect_information_helpers() -> None:
    ttt = mctslab.make("tic_tac_toe")
    state = ttt.state_from_actions([4, 0])
    copy = determinize(state, 0, Rng(0))
    assert copy is not state and copy.history() == state.history()
    assert information_key(state, 1) == (4, 0)
    assert is_perfect_information(ttt) and is_perfect_information(mctslab.make("pig"))
    assert not is_perfect_information(mctslab.make("kuhn_poker"))
    assert not is_perfect_information(mctslab.make("knockout_whist"))
