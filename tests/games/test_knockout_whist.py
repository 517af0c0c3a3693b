"""Knockout Whist: the rules, the game API, and the determinizations of IS-MCTS."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from mctslab.core.errors import IllegalActionError, InvalidConfigError
from mctslab.core.game import CHANCE, TERMINAL, State
from mctslab.core.infoset import NoConsistentWorldError
from mctslab.core.registry import available_games, make
from mctslab.core.rng import Rng
from mctslab.core.testing import check_game, random_game
from mctslab.games.knockout_whist import (
    NUM_ACTIONS,
    TRUMP_ACTION,
    KnockoutWhist,
    KnockoutWhistState,
    _deal_hands,
    card_name,
)

SUITS = "CDHS"


def cards(text: str) -> list[int]:
    state = KnockoutWhist().new_initial_state()
    return [state.string_to_action(name) for name in text.split()]


def deal(state: KnockoutWhistState, *hands: str, trump: str = "S") -> None:
    """Deal ``hands`` (one per active player, ascending seats) round the table, then trumps."""
    dealt = [cards(h) for h in hands]
    assert len(dealt) == len(state.active_players())
    for i in range(len(dealt[0])):
        for hand in dealt:
            assert state.current_player() == CHANCE
            state.apply_action(hand[i])
    assert state.legal_actions() == [52, 53, 54, 55]
    state.apply_action(TRUMP_ACTION + SUITS.index(trump))


def play(state: KnockoutWhistState, text: str) -> None:
    for c in cards(text):
        state.apply_action(c)


def new(players: int = 2) -> KnockoutWhistState:
    return KnockoutWhist(players).new_initial_state()


# -- the game API ------------------------------------------------------------


@pytest.mark.parametrize(("players", "n_games"), [(2, 12), (3, 8), (5, 4), (7, 3)])
def test_check_game(players: int, n_games: int) -> None:
    assert check_game(KnockoutWhist(players), n_games=n_games, seed=players) > 0


@pytest.mark.parametrize(
    ("players", "length"), [(2, 119), (3, 173), (4, 223), (5, 267), (6, 303), (7, 329)]
)
def test_info(players: int, length: int) -> None:
    info = KnockoutWhist(players).info
    assert (info.name, info.version, info.num_players) == ("knockout_whist", 1, players)
    assert (info.num_actions, info.max_game_length) == (56, length)
    assert (info.zero_sum, info.min_utility, info.max_utility) == (True, -1.0, 1.0)
    assert "knockout_whist" in available_games()
    assert make("knockout_whist", players=players).info == info


@pytest.mark.parametrize("bad", [0, 1, 8, -2, "3", 2.0, True, None])
def test_bad_players(bad: object) -> None:
    with pytest.raises(InvalidConfigError, match=r"\[2, 7\]"):
        KnockoutWhist(bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidConfigError):
        make("knockout_whist", players=bad)
    with pytest.raises(InvalidConfigError, match="valid parameters: players"):
        make("knockout_whist", seats=3)


def test_bad_player_index() -> None:
    state = new(3)
    for bad in (-1, 3, True):
        with pytest.raises(InvalidConfigError, match=r"\[0, 2\]"):
            state.information_state_string(bad)
        with pytest.raises(InvalidConfigError):
            state.observation_string(bad)
        with pytest.raises(InvalidConfigError):
            state.resample_from_infostate(bad, Rng(0))


# -- the rules -----------------------------------------------------------------


def test_deal_and_trump_are_chance_nodes() -> None:
    state = new(3)
    assert state.current_player() == CHANCE
    assert state.legal_actions() == list(range(52))
    outcomes = state.chance_outcomes()
    assert [a for a, _ in outcomes] == list(range(52))
    assert all(p == pytest.approx(1 / 52) for _, p in outcomes)
    state.apply_action(cards("AS")[0])
    assert state.hand(0) == cards("AS")  # the first card goes to the lowest seat
    assert 51 not in state.legal_actions()
    assert state.chance_outcomes()[0][1] == pytest.approx(1 / 51)
    state.apply_action(cards("2C")[0])
    assert state.hand(1) == cards("2C")
    with pytest.raises(IllegalActionError, match="legal actions"):
        state.apply_action(cards("AS")[0])  # dealt already
    with pytest.raises(IllegalActionError):
        state.apply_action(TRUMP_ACTION)  # not during the deal
    for bad in ("3", None, 1.5):  # not an action at all: the same typed error
        with pytest.raises(IllegalActionError, match="legal actions"):
            state.apply_action(bad)  # type: ignore[arg-type]
    assert state.history() == cards("AS") + cards("2C")
    assert state.current_trick() == []
    assert state.trump_suit() is None
    assert state.returns() == [0.0, 0.0, 0.0]
    assert state.chance_outcomes()[-1][0] == 50


def test_follow_suit() -> None:
    state = new(2)
    deal(state, "AH 2C 3C 4C 5C 6C 7C", "KH QH 2D 3D 4D 5D 6D", trump="S")
    assert state.trump_suit() == 3
    assert state.current_player() == 0  # player 0 leads round 1
    assert state.legal_actions() == sorted(state.hand(0))  # the leader plays any card
    assert state.chance_outcomes() == []
    play(state, "2C")
    assert state.current_player() == 1
    assert state.legal_actions() == state.hand(1)  # no club: any card
    play(state, "KH")  # a discard
    assert state.tricks_won() == [1, 0]  # the led suit wins
    play(state, "AH")
    assert state.legal_actions() == cards("QH")  # must follow hearts
    before = (str(state), state.history())
    with pytest.raises(IllegalActionError, match=r"legal actions: 36 \(QH\)"):
        state.apply_action(cards("2D")[0])
    with pytest.raises(IllegalActionError):
        state.apply_action(cards("3C")[0])  # not in the hand
    with pytest.raises(IllegalActionError):
        state.apply_action(TRUMP_ACTION + 1)
    for bad in (-1, NUM_ACTIONS, 1000):
        with pytest.raises(IllegalActionError):
            state.apply_action(bad)
    assert (str(state), state.history()) == before
    mask = state.legal_actions_mask()
    assert len(mask) == NUM_ACTIONS and [a for a, m in enumerate(mask) if m] == cards("QH")


def test_trump_wins_the_trick() -> None:
    state = new(2)
    deal(state, "AH 2C 3C 4C 5C 6C 7C", "2S 2D 3D 4D 5D 6D 7D", trump="S")
    play(state, "AH 2S")
    assert state.tricks_won() == [0, 1]
    assert state.current_player() == 1  # the winner leads


def test_highest_trump_and_highest_of_led_suit() -> None:
    state = new(3)
    deal(
        state,
        "5H 2H 3H 4D 5D 6D 7D",
        "KH 3S AS 8D 9D TD JD",
        "AD 9S 4S 2C 3C 4C 5C",
        trump="S",
    )
    play(state, "5H KH AD")  # the discard AD never wins
    assert state.tricks_won() == [0, 1, 0] and state.current_player() == 1
    assert state.current_trick() == []
    play(state, "3S 4S")  # trumps led: the highest trump wins
    assert state.current_trick() == [(1, cards("3S")[0]), (2, cards("4S")[0])]
    play(state, "4D")
    assert state.tricks_won() == [0, 1, 1] and state.current_player() == 2
    play(state, "9S 2H AS")  # trump led, 2H discarded by player 0 (no spade), AS highest
    assert state.tricks_won() == [0, 2, 1] and state.current_player() == 1


def test_discard_never_wins() -> None:
    state = new(3)
    deal(
        state,
        "2H 3H 4H 5H 6H 7H 8H",
        "AS KS QS JS TS 9S 8S",
        "AD KD QD JD TD 9D 8D",
        trump="C",
    )
    play(state, "2H AS AD")  # no trump played: the lowest heart takes the trick
    assert state.tricks_won() == [1, 0, 0] and state.current_player() == 0


def test_knockout_and_next_round() -> None:
    state = new(3)
    deal(
        state,
        "AS KS QS JS TS 9S 2H",
        "AH 2C 3C 4C 5C 6C 7C",
        "2D 3D 4D 5D 6D 7D 8D",
        trump="S",
    )
    play(state, "AS 2C 2D KS 3C 3D QS 4C 4D JS 5C 5D TS 6C 6D 9S 7C 7D")
    assert state.tricks_won() == [6, 0, 0]
    play(state, "2H AH 8D")  # player 1 takes the last trick; player 2 took none
    assert state.round_number() == 2
    assert state.active_players() == [0, 1]
    assert "player 3: out" in str(state)  # people count from 1; the API's ids from 0
    assert state.observation_string(2).endswith("out 2")
    assert state.current_player() == CHANCE
    for i in range(12):  # six cards each to players 0 and 1 only
        state.apply_action(i)
        assert state.hand(2) == []
    assert state.hand(0) == [0, 2, 4, 6, 8, 10] and state.hand(1) == [1, 3, 5, 7, 9, 11]
    assert state.legal_actions() == [52, 53, 54, 55]
    state.apply_action(TRUMP_ACTION)
    assert state.current_player() == 0  # most tricks in round 1
    play(state, "2C 3C")
    assert state.current_player() == 1  # player 2 is skipped


def test_round_leader_tie_goes_to_the_lowest_seat() -> None:
    state = new(3)
    deal(
        state,
        "AH 2D 3D 4D 5D 6D 7D",
        "AS KS QS 2C 3C 4C 5C",
        "8C 9C TC JC QC KC AC",
        trump="S",
    )
    play(state, "AH 2C 8C 2D AS 9C KS TC 3D QS JC 4D 3C QC 5D KC 6D 4C AC 7D 5C")
    assert state.round_number() == 2 and state.active_players() == [0, 1, 2]
    # Tricks 1, 3, 3: players 1 and 2 tie; player 1 is the lower seat.
    for i in range(18):
        state.apply_action(i)
    state.apply_action(TRUMP_ACTION)
    assert state.current_player() == 1


def test_rounds_deal_seven_down_to_one_card() -> None:
    """Both players take a trick every round: all seven rounds, the longest game."""
    state = new(2)
    low = cards("2C 3C 4C 5C 6C 7C")
    high = cards("AC KC QC JC TC 9C")
    for r in range(1, 8):
        k = 8 - r
        assert state.round_number() == r and state.current_player() == CHANCE
        p0 = [card_name(c) for c in low[: k - 1]] + ["AS"]
        p1 = [card_name(c) for c in high[: k - 1]] + ["2S"]
        deal(state, " ".join(p0), " ".join(p1), trump="H")  # asserts 2k deals
        while state.round_number() == r and not state.is_terminal():
            state.apply_action(min(state.legal_actions()))
        if r < 7:
            assert state.active_players() == [0, 1]
    assert state.is_terminal() and state.current_player() == TERMINAL
    assert state.legal_actions() == [] and state.chance_outcomes() == []
    assert state.active_players() == [0]  # round 7: a 1-1 tie in round 6, player 0 leads AS
    assert state.returns() == [1.0, -1.0]
    assert len(state.history()) == KnockoutWhist(2).info.max_game_length
    assert "player 1 wins" in str(state)
    with pytest.raises(IllegalActionError, match="game is over"):
        state.apply_action(0)


@pytest.mark.parametrize("players", [2, 3, 4, 7])
def test_random_games_end_with_one_winner(players: int) -> None:
    for seed in range(5):
        state = random_game(KnockoutWhist(players), seed)
        assert isinstance(state, KnockoutWhistState)
        winners = state.active_players()
        assert len(winners) == 1 and state.round_number() <= 7
        rets = state.returns()
        assert rets[winners[0]] == 1.0
        assert all(
            r == pytest.approx(-1 / (players - 1)) for p, r in enumerate(rets) if p not in winners
        )
        assert sum(rets) == pytest.approx(0.0)


# -- strings -------------------------------------------------------------------


def test_action_strings() -> None:
    state = new(2)
    for a in range(NUM_ACTIONS):
        assert state.string_to_action(state.action_to_string(a)) == a
    assert [state.action_to_string(a) for a in (0, 8, 12, 13, 51)] == ["2C", "TC", "AC", "2D", "AS"]
    assert state.action_to_string(TRUMP_ACTION + 3) == "trump S"
    assert state.string_to_action("as") == 51
    assert state.string_to_action(" 10s ") == cards("TS")[0]
    assert state.string_to_action("trump spades") == TRUMP_ACTION + 3
    assert state.string_to_action("Trump  h") == TRUMP_ACTION + 2
    for bad in ("ZZ", "1S", "", "trump X", "A S"):
        with pytest.raises(IllegalActionError, match="legal actions"):
            state.string_to_action(bad)
    with pytest.raises(IllegalActionError):
        state.action_to_string(NUM_ACTIONS)


def test_table_during_the_deal() -> None:
    state = new(3)
    for c in cards("AS KS QS 2C"):
        state.apply_action(c)
    text = str(state)
    assert "round 1 of 7, 7 cards each" in text and "trump: not drawn yet" in text
    assert "player 1: 2C AS  (tricks 0)" in text and "player 3: QS  (tricks 0)" in text
    assert "chance: dealing card 5 of 21" in text
    assert state.observation_string(0) == (
        "player 0 | round 1 | trump - | hand 2C AS | trick - | tricks 0:0 1:0 2:0 | out -"
    )
    assert state.information_state_string(2).splitlines() == [
        "player 2",
        "round 1: dealt QS (4 cards dealt)",
    ]


def test_strings_mid_round() -> None:
    state = new(2)
    deal(state, "AH 2C 3C 4C 5C 6C 7C", "KH QH 2D 3D 4D 5D 6D", trump="S")
    play(state, "2C")
    text = str(state)
    assert "round 1 of 7, 7 cards each" in text and "trump: spades" in text
    assert "player 1: 3C 4C 5C 6C 7C AH  (tricks 0)" in text
    assert "trick: player 1 2C" in text and "player 2 to play" in text
    obs = state.observation_string(1)
    assert obs == (
        "player 1 | round 1 | trump S | hand 2D 3D 4D 5D 6D QH KH | trick 0:2C | "
        "tricks 0:0 1:0 | out -"
    )
    assert "AH" not in obs
    info = state.information_state_string(1)
    assert info.splitlines() == [
        "player 1",
        "round 1: dealt 2D 3D 4D 5D 6D QH KH (14 cards dealt)",
        "trump S",
        "plays 0:2C",
    ]
    play(state, "KH AH")
    assert state.information_state_string(0).splitlines()[-1] == "plays 0:2C 1:KH / 0:AH"


def test_information_state_hides_the_other_hands() -> None:
    a, b = new(2), new(2)
    deal(a, "AH 2C 3C 4C 5C 6C 7C", "KH QH 2D 3D 4D 5D 6D")
    deal(b, "AH 2C 3C 4C 5C 6C 7C", "KH QH 2D 3D 4D 5D 7D")
    assert a.information_state_string(0) == b.information_state_string(0)
    assert a.information_state_string(1) != b.information_state_string(1)
    assert a.observation_string(0) == b.observation_string(0)
    play(a, "2C")
    play(b, "2C")
    assert a.information_state_string(0) == b.information_state_string(0)
    play(a, "6D")
    play(b, "7D")
    assert a.information_state_string(0) != b.information_state_string(0)


# -- determinizations ----------------------------------------------------------


def revealed_voids(state: State) -> dict[int, set[int]]:
    """The suits each player failed to follow this round, from the history alone."""
    game = KnockoutWhist(state.game.info.num_players)  # type: ignore[attr-defined]
    replay = game.new_initial_state()
    voids: dict[int, set[int]] = {}
    rnd = 1
    for a in state.history():
        if replay.round_number() != rnd:
            rnd, voids = replay.round_number(), {}
        player = replay.current_player()
        trick = replay.current_trick()
        if player >= 0 and trick and a // 13 != trick[0][1] // 13:
            voids.setdefault(player, set()).add(trick[0][1] // 13)
        replay.apply_action(a)
    if replay.round_number() != rnd:
        voids = {}
    return voids


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (3, 2), (4, 3), (7, 4)])
def test_resample_is_consistent(players: int, seed: int) -> None:
    game = KnockoutWhist(players)
    rng = Rng(seed)
    final = random_game(game, seed)
    history = final.history()
    for cut in range(0, len(history), 7):
        state = game.state_from_actions(history[:cut])
        voids = revealed_voids(state)
        for p in range(players):
            world = state.resample_from_infostate(p, rng)
            assert world.information_state_string(p) == state.information_state_string(p)
            assert world.observation_string(p) == state.observation_string(p)
            assert world.hand(p) == state.hand(p)
            assert world.current_player() == state.current_player()
            replay = game.state_from_actions(world.history())  # a legal game
            assert str(replay) == str(world)
            for q in range(players):
                assert len(world.hand(q)) == len(state.hand(q))
                if q != p:
                    assert not any(c // 13 in voids.get(q, ()) for c in world.hand(q))


def test_resample_uniform_with_a_void() -> None:
    state = new(2)
    deal(state, "AH KH QH JH TH 9H 8H", "2C 3C 4C 5C 6C 7C 8C", trump="S")
    play(state, "AH 2C KH 3C QH 4C JH 5C TH 6C")  # player 1 shows a void in hearts
    rng = Rng(7)
    allowed = [c for c in range(52) if c // 13 != 2 and c not in cards("2C 3C 4C 5C 6C")]
    assert len(allowed) == 34
    n = 3400
    counts: Counter[int] = Counter()
    for _ in range(n):
        world = state.resample_from_infostate(0, rng)
        hand = world.hand(1)
        assert len(hand) == 2 and not any(c // 13 == 2 for c in hand)
        counts.update(hand)
    assert set(counts) == set(allowed)
    expected = 2 * n / 34
    chi2 = sum((counts[c] - expected) ** 2 / expected for c in allowed)
    assert chi2 < 33 + 6 * (2 * 33) ** 0.5  # df 33: mean 33, sd 8.1


def test_deal_hands_is_exactly_uniform() -> None:
    """Two groups with voids, a free player and an undealt card: every consistent deal
    (132 of them, enumerated by brute force) comes out equally often."""
    pool_cards = cards("2C 3C 2D 3D 2H 3H 2S")
    pool = sum(1 << c for c in pool_cards)
    clubs = sum(1 << c for c in cards("2C 3C"))
    red = sum(1 << c for c in cards("2D 3D 2H 3H"))
    sizes = {1: 2, 2: 2, 3: 1, 4: 1}
    allowed = {1: pool & ~clubs, 2: pool & ~clubs, 3: pool & ~red, 4: pool}
    worlds = set()
    for perm in itertools.permutations(pool_cards, 6):
        if all(c // 13 != 0 for c in perm[:4]) and perm[4] // 13 not in (1, 2):
            worlds.add((1 << perm[0] | 1 << perm[1], 1 << perm[2] | 1 << perm[3], *perm[4:]))
    assert len(worlds) == 132
    rng = Rng(3)
    per_world = 40
    counts: Counter[tuple[int, ...]] = Counter()
    for _ in range(per_world * len(worlds)):
        hands = _deal_hands(pool, [1, 2, 3, 4], sizes, allowed, rng)
        counts[hands[1], hands[2], hands[3].bit_length() - 1, hands[4].bit_length() - 1] += 1
    assert set(counts) == worlds
    df = len(worlds) - 1
    chi2 = sum((counts[w] - per_world) ** 2 / per_world for w in worlds)
    assert chi2 < df + 6 * (2 * df) ** 0.5  # mean df, sd sqrt(2 df)


def test_resample_with_a_model() -> None:
    state = new(2)
    deal(state, "AH KH QH JH TH 9H 8H", "2C 3C 4C 5C 6C 7C 8C", trump="S")
    play(state, "AH 2C")
    kd = cards("KD")[0]
    calls = []

    def holds_kd(world: State, player: int) -> float:
        calls.append(player)
        assert isinstance(world, KnockoutWhistState)
        return 1.0 if kd in world.hand(1) else 0.0

    rng = Rng(11)
    for _ in range(20):
        world = state.resample_from_infostate(0, rng, holds_kd)
        assert kd in world.hand(1)
        assert world.information_state_string(0) == state.information_state_string(0)
    assert set(calls) == {0} and len(calls) > 20


def test_model_ruling_out_everything_raises() -> None:
    state = new(2)
    state.apply_action(0)
    state.apply_action(1)
    with pytest.raises(NoConsistentWorldError):
        state.resample_from_infostate(0, Rng(0), lambda world, player: 0.0)


def test_resample_at_the_end_and_during_the_deal() -> None:
    final = random_game(KnockoutWhist(3), 5)
    assert isinstance(final, KnockoutWhistState)
    world = final.resample_from_infostate(1, Rng(0))
    assert world.history() == final.history()  # every card was played: nothing hidden
    state = new(3)
    for a in (5, 9, 40, 41, 42):
        state.apply_action(a)
    world = state.resample_from_infostate(0, Rng(1))
    assert world.hand(0) == [5, 41]
    assert len(world.hand(1)) == 2 and len(world.hand(2)) == 1
    assert not set(world.hand(1) + world.hand(2)) & {5, 41}
    assert world.history()[0] == 5 and world.history()[3] == 41
