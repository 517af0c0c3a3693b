"""What a person at a card game is shown (``human_view``): the cards in words, players
counted from 1, and nothing of the other players' hidden cards."""

from __future__ import annotations

import pytest

import mctslab
from mctslab.core.game import CHANCE, sample_chance_outcome
from mctslab.core.rng import Rng


def _random_states(name: str, params: dict[str, int], games: int) -> list[mctslab.State]:
    game = mctslab.make(name, **params)
    rng = Rng(7)
    out = []
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.current_player() == CHANCE:
                state.apply_action(sample_chance_outcome(state, rng))
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.randint(len(legal))])
            out.append(state.clone())
    return out


@pytest.mark.parametrize("players", [2, 3])
def test_kuhn_poker_shows_a_seat_its_own_card_only(players: int) -> None:
    for state in _random_states("kuhn_poker", {"players": players}, 30):
        cards = [state.card(p) for p in range(players)]  # type: ignore[attr-defined]
        for seat in range(players):
            text = state.human_view(seat)  # type: ignore[attr-defined]
            assert text.startswith(f"You are player {seat + 1};")
            first = text.splitlines()[0]
            own = cards[seat]
            name = state.card_name(own) if own is not None else "not dealt yet"  # type: ignore[attr-defined]
            assert f"your card: {name} " in first
            assert "Cards:" not in text  # the other players' cards are not listed
        everything = state.human_view()  # type: ignore[attr-defined]
        for seat, card in enumerate(cards):
            if card is not None:
                assert f"player {seat + 1} {state.card_name(card)}" in everything  # type: ignore[attr-defined]


def test_kuhn_poker_names_checks_bets_calls_and_folds() -> None:
    game = mctslab.make("kuhn_poker", players=3)
    state = game.state_from_actions([3, 0, 1, 0, 1, 0, 1])  # checks, bet, fold, call
    text = state.human_view(0)  # type: ignore[attr-defined]
    assert "your card: K (low to high: T J Q K)" in text
    assert "Betting: player 1 checks, player 2 bets, player 3 folds, player 1 calls" in text
    assert "Player 1 wins 5 chips (returns +3, -2, -1)" in text
    assert state.returns() == [3.0, -2.0, -1.0]


def test_knockout_whist_shows_a_seat_its_own_hand_only() -> None:
    for state in _random_states("knockout_whist", {"players": 3}, 3):
        hands = [set(state.hand(p)) for p in range(3)]  # type: ignore[attr-defined]
        for seat in range(3):
            text = state.human_view(seat)  # type: ignore[attr-defined]
            assert text.startswith(f"You are player {seat + 1};")
            hand_line = next((ln for ln in text.splitlines() if ln.startswith("Your hand:")), "")
            shown = set(hand_line.removeprefix("Your hand: ").split()) - {"-"}
            names = (
                {state.action_to_string(c) for c in hands[seat]}
                if state.current_player() >= 0
                else None
            )
            if names is not None and hands[seat]:
                assert shown == names
            assert not any(line.startswith("Player ") and ":" in line for line in text.splitlines())
        assert "Player 1:" in state.human_view()  # type: ignore[attr-defined]
