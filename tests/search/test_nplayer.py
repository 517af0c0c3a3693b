"""Max^n: the reference engine on a three-player game written in plain Python."""

from __future__ import annotations

from typing import Self

import pytest

import mctslab
from mctslab import TERMINAL, GameInfo, IllegalActionError
from mctslab.core.testing import check_game
from mctslab.players.player import make_player, play_game
from mctslab.search.config import SearchConfig
from mctslab.search.ismcts import ISMCTS, ISMCTSConfig
from mctslab.search.mcts import search


class ThreeTake:
    """Three players in turn take 1 or 2 stones; whoever takes the last one wins.

    Returns: +1 for the winner, -0.5 for each of the two others (zero-sum).
    """

    def __init__(self, stones: int = 7) -> None:
        self.stones = stones
        self.info = GameInfo("three_take", 1, 3, 2, stones, True, -0.5, 1.0)

    def new_initial_state(self) -> ThreeTakeState:
        return ThreeTakeState(self, self.stones, 0, [])

    def state_from_actions(self, actions: list[int]) -> ThreeTakeState:
        state = self.new_initial_state()
        for a in actions:
            state.apply_action(a)
        return state


class ThreeTakeState:
    def __init__(self, game: ThreeTake, left: int, player: int, history: list[int]) -> None:
        self.game, self.left, self.player, self._history = game, left, player, history

    def current_player(self) -> int:
        return TERMINAL if self.left == 0 else self.player

    def legal_actions(self) -> list[int]:  # action a takes a + 1 stones
        return [a for a in (0, 1) if a + 1 <= self.left]

    def legal_actions_mask(self) -> list[bool]:
        return [a in self.legal_actions() for a in (0, 1)]

    def apply_action(self, action: int) -> None:
        if action not in self.legal_actions():
            raise IllegalActionError(f"illegal {action}; legal: {self.legal_actions()}")
        self.left -= action + 1
        self._history.append(action)
        if self.left:
            self.player = (self.player + 1) % 3

    def child(self, action: int) -> Self:
        new = self.clone()
        new.apply_action(action)
        return new

    def clone(self) -> Self:
        return type(self)(self.game, self.left, self.player, list(self._history))

    def is_terminal(self) -> bool:
        return self.left == 0

    def returns(self) -> list[float]:
        if self.left:
            return [0.0, 0.0, 0.0]
        return [1.0 if p == self.player else -0.5 for p in range(3)]

    def action_to_string(self, action: int) -> str:
        return str(action + 1)

    def string_to_action(self, text: str) -> int:
        if text not in ("1", "2"):
            raise IllegalActionError(f"unknown action {text!r}")
        return int(text) - 1

    def history(self) -> list[int]:
        return list(self._history)

    def __str__(self) -> str:
        return f"{self.left} stones, player {self.player} to move"


def test_three_player_game_conforms() -> None:
    check_game(ThreeTake(), n_games=50)


def test_each_node_scores_for_the_player_who_moved_into_it() -> None:
    game = ThreeTake()
    # Two stones left: taking both wins at once.
    state = game.state_from_actions([1, 1, 0])  # 7 - 2 - 2 - 1 = 2 stones, player 0 to move
    assert state.left == 2 and state.current_player() == 0
    result = search(state, SearchConfig(iterations=500, seed=0), game_info=game.info)
    assert result.action == 1 and result.player == 0
    win = next(ch for ch in result.children if ch.action == 1)
    assert win.value == 1.0  # on the utility scale, for player 0


def test_three_player_values_converge_to_max_n() -> None:
    game = ThreeTake()
    # Four stones, player 2 to move. Taking 2 hands player 0 the last two stones;
    # taking 1 leaves 3 to player 0, who must leave 1 or 2 to player 1. Under
    # max^n both moves lose for player 2: both values tend to -0.5.
    state = game.state_from_actions([1, 0])
    assert state.left == 4 and state.current_player() == 2
    a = search(state, SearchConfig(iterations=4000, seed=1), game_info=game.info)
    b = search(state, SearchConfig(iterations=4000, seed=1), game_info=game.info)
    assert a.children == b.children and a.player == 2
    assert all(abs(ch.value + 0.5) < 0.1 for ch in a.children), a.children


def test_registered_user_game_is_made_by_name() -> None:
    if "three_take" not in mctslab.available_games():
        mctslab.register("three_take", ThreeTake)
    assert mctslab.make("three_take", stones=5).info.max_game_length == 5


# Chance and hidden information with more than two players ------------------------------------


def test_pig_three_players_max_n_values_belong_to_the_mover() -> None:
    """Three-player Pig to 20, player 1 on 18 and to move: a roll wins unless the die shows
    a 1 (5/6), so rolling is worth nearly a win to player 1, the mover, and beats stopping."""
    game = mctslab.make("pig", players=3, target=20)
    # p0 stops; p1 rolls three 6s (outcome 5 is face 6) and stops on 18; p2 and p0 stop.
    state = game.state_from_actions([1, 0, 5, 0, 5, 0, 5, 1, 1, 1])
    assert state.current_player() == 1 and "Scores: 0 18 0" in str(state)
    result = search(state, SearchConfig(iterations=3000, seed=1))
    values = {ch.action: ch.value for ch in result.children}
    assert result.action == 0 and result.player == 1  # roll
    assert values[0] > 0.85 and values[0] > values[1]


@pytest.mark.parametrize(("players", "games", "wins_at_least"), [(3, 6, 5), (4, 8, 6)])
def test_mcts_beats_random_players_at_multiplayer_pig(
    players: int, games: int, wins_at_least: int
) -> None:
    """MCTS in every seat in turn against random players (a fair share is 1/players)."""
    game = mctslab.make("pig", players=players, target=30)
    wins = 0
    for i in range(games):
        seat = i % players
        seats = [make_player("random", game.info, 10 * i + p) for p in range(players)]
        seats[seat] = make_player("mcts:iterations=200", game.info, i)
        final = play_game(game.new_initial_state(), seats, chance_seed=i)
        assert sum(final.returns()) == pytest.approx(0.0)
        wins += final.returns()[seat] > 0
    assert wins >= wins_at_least


@pytest.mark.parametrize("variant", ["so", "mo"])
def test_ismcts_three_player_kuhn_dominant_calls_and_folds(variant: str) -> None:
    """Three-player Kuhn poker (cards J Q K A): facing a bet, the ace always calls and the
    jack always folds; the search must score each node for the player who acts there."""
    game = mctslab.make("kuhn_poker", players=3)
    ace_facing_bet = game.state_from_actions([0, 3, 1, 1])  # p0 (J) bets, p1 holds the ace
    jack_facing_bet = game.state_from_actions([1, 0, 3, 1])  # p0 (Q) bets, p1 holds the jack
    late_ace = game.state_from_actions([1, 2, 3, 0, 1])  # p0 passes, p1 bets, p2 holds the ace
    config = ISMCTSConfig(iterations=2000, seed=1, variant=variant)  # type: ignore[arg-type]
    assert ISMCTS(config).search(ace_facing_bet).action == 1
    assert ISMCTS(config).search(jack_facing_bet).action == 0
    assert ISMCTS(config).search(late_ace).action == 1


def test_knockout_whist_three_players_plays_to_one_winner_with_ismcts_and_pimc() -> None:
    game = mctslab.make("knockout_whist", players=3)
    seats = [
        make_player("ismcts:iterations=30", game.info, 1),
        make_player("pimc:iterations=30,determinizations=3", game.info, 2),
        make_player("random", game.info, 3),
    ]
    final = play_game(game.new_initial_state(), seats, chance_seed=4)
    returns = final.returns()
    assert sorted(returns) == [-0.5, -0.5, 1.0]
