"""Bohnenspiel: the issue's known answers, hand-made positions for each rule, and a
differential test against an independent pure-Python implementation of the rules."""

from __future__ import annotations

import random

import pytest

import mctslab
from mctslab.core.errors import IllegalActionError, InvalidConfigError
from mctslab.core.game import TERMINAL
from mctslab.core.testing import check_game
from mctslab.games import Bohnenspiel
from mctslab.games.bohnenspiel import MAX_PLIES
from mctslab.games.kernels import KernelState
from mctslab.players.player import MCTSPlayer, make_player, play_game
from mctslab.search.minimax import alphabeta


class Reference:
    """The rules as the issue states them, written apart from the kernels: a list of
    12 pits, two stores, the sown pits remembered as a set."""

    def __init__(
        self, pits: list[int] | None = None, stores: tuple[int, int] = (0, 0), player: int = 0
    ) -> None:
        self.pits = list(pits) if pits is not None else [6] * 12
        self.stores = list(stores)
        self.player = player  # -1 once the game is over
        self.plies = 0

    def side(self, p: int) -> range:
        return range(0, 6) if p == 0 else range(6, 12)

    def legal(self) -> list[int]:
        if self.player < 0:
            return []
        return [i for i in self.side(self.player) if self.pits[i] > 0]

    def play(self, pit: int) -> None:
        assert pit in self.legal()
        mover = self.player
        beans, self.pits[pit] = self.pits[pit], 0
        sown: set[int] = set()
        at = pit
        for _ in range(beans):
            at = (at + 1) % 12  # stores are not on the ring: never sown
            self.pits[at] += 1
            sown.add(at)
        while at in sown and self.pits[at] in (2, 4, 6):
            self.stores[mover] += self.pits[at]
            self.pits[at] = 0
            at = (at - 1) % 12
        self.plies += 1
        opponent = 1 - mover
        if sum(self.pits[i] for i in self.side(opponent)) == 0:
            self.collect(mover)
            self.player = -1
        elif self.plies >= MAX_PLIES:  # mctslab's limit (see mctslab.games.bohnenspiel)
            self.collect(mover)
            self.collect(opponent)
            self.player = -1
        else:
            self.player = opponent

    def collect(self, p: int) -> None:
        for i in self.side(p):
            self.stores[p] += self.pits[i]
            self.pits[i] = 0

    def returns(self) -> list[float]:
        if self.player >= 0 or self.stores[0] == self.stores[1]:
            return [0.0, 0.0]
        return [1.0, -1.0] if self.stores[0] > self.stores[1] else [-1.0, 1.0]


@pytest.fixture(scope="module")
def game() -> Bohnenspiel:
    g = mctslab.make("bohnenspiel")
    assert isinstance(g, Bohnenspiel)
    return g


def _agree(game: Bohnenspiel, state: KernelState, ref: Reference, where: str) -> None:
    assert game.pits(state) == ref.pits, where
    assert game.stores(state) == ref.stores, where
    assert state.legal_actions() == ref.legal(), where
    assert state.current_player() == (TERMINAL if ref.player < 0 else ref.player), where
    assert state.returns() == ref.returns(), where


# The known answers ------------------------------------------------------------


def test_known_answer_first_moves(game: Bohnenspiel) -> None:
    state = game.state_from_actions([0, 11])
    assert game.pits(state) == [1, 8, 8, 8, 8, 8, 7, 6, 6, 6, 6, 0]
    assert game.stores(state) == [0, 0]
    assert state.current_player() == 0


def test_known_answer_capture_of_22(game: Bohnenspiel) -> None:
    state = game.state_from_pits([5, 3, 3, 5, 3, 3, 7, 6, 6, 6, 6, 0])
    state.apply_action(0)
    assert game.stores(state) == [22, 0]
    assert game.pits(state) == [0, 0, 0, 0, 0, 0, 7, 6, 6, 6, 6, 0]
    # Player 0's side is empty but player 1 can move: the game goes on.
    assert state.current_player() == 1


# Each rule on a hand-made position ------------------------------------------------------


def test_sowing_with_12_beans_passes_the_chosen_pit(game: Bohnenspiel) -> None:
    state = game.state_from_pits([12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
    state.apply_action(0)
    # Pits 1..11 and then the chosen pit itself: the last bean lands where it started.
    assert game.pits(state) == [1] * 12
    assert game.stores(state) == [0, 0]


def test_sowing_23_and_24_beans_goes_round_twice(game: Bohnenspiel) -> None:
    # 23 beans: pits 1..11 twice, the chosen pit once; the last pit (11) holds 2 and
    # the chain takes pits 11 down to 1 (2 each, 22), stopping at the chosen pit's 1.
    state = game.state_from_pits([23, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
    state.apply_action(0)
    assert game.stores(state) == [23, 0]  # 22 captured, then the 1 left on its own side
    assert state.is_terminal() and state.returns() == [1.0, -1.0]
    # 24 beans: the chosen pit is sown twice and is the last pit; every pit was sown,
    # so the chain runs backwards round the ring until pit 1 (1 + 2 = 3 beans).
    state = game.state_from_pits([24, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
    state.apply_action(0)
    assert game.stores(state) == [25, 0]  # 2 + 10 x 2 captured, then pit 1's 3 collected


def test_capture_chain_takes_both_sides_and_stops_at_an_unsown_pit(game: Bohnenspiel) -> None:
    # Player 0 sows pit 4's 3 beans into 5, 6, 7 -> 2, 4, 2: all three are taken,
    # player 1's pits as well; the chain then meets the chosen pit (not sown this
    # move, now empty) and stops, though pits 2 and 3 before it hold 2 and 4.
    state = game.state_from_pits([1, 0, 2, 4, 3, 1, 3, 1, 5, 0, 0, 0])
    state.apply_action(4)
    assert game.pits(state) == [1, 0, 2, 4, 0, 0, 0, 0, 5, 0, 0, 0]
    assert game.stores(state) == [8, 0]
    # A chain also stops at the first pit without 2, 4 or 6 beans.
    state = game.state_from_pits([1, 1, 0, 0, 0, 0, 0, 0, 0, 3, 2, 3], player=1)
    state.apply_action(9)  # 3 beans: 10, 11, 0 -> 3, 4, 2: 0 and 11 taken, 10 stops it
    assert game.stores(state) == [0, 6]
    assert game.pits(state) == [0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0]
    # No chain at all when the last pit holds an odd number or more than 6.
    state = game.state_from_pits([1, 0, 0, 0, 0, 0, 1, 2, 3, 0, 0, 0], player=1)
    state.apply_action(8)  # 3 beans: 9, 10, 11 -> 1, 1, 1
    assert game.stores(state) == [0, 0]
    state = game.state_from_pits([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 7], player=1)
    state.apply_action(10)  # 1 bean: 11 -> 8
    assert game.stores(state) == [0, 0]


def test_end_when_the_next_player_has_no_beans(game: Bohnenspiel) -> None:
    # Player 0 takes pit 5's 4 beans; player 1's side is then empty, so player 0
    # adds pit 0's 2 beans to their store and the game is over.
    state = game.state_from_pits([2, 0, 0, 0, 1, 3, 0, 0, 0, 0, 0, 0], stores=(30, 36))
    state.apply_action(4)
    assert state.is_terminal()
    assert game.stores(state) == [36, 36]
    assert game.pits(state) == [0] * 12
    assert state.returns() == [0.0, 0.0]  # 36-36: a draw
    assert state.legal_actions() == []
    # The player to move may have an empty side: the game goes on while the one to
    # move next has beans; here player 1 moves, player 0 is still empty, so player 1
    # adds their own side to their store.
    state = game.state_from_pits([0] * 6 + [1, 0, 0, 0, 0, 3], stores=(34, 34), player=1)
    state.apply_action(6)
    assert state.is_terminal()
    assert game.stores(state) == [34, 38]
    assert state.returns() == [-1.0, 1.0]


def test_endless_circling_ends_at_the_ply_limit(game: Bohnenspiel) -> None:
    # One bean a side: player 1, behind, never ends the game (pit 11 before pit 6).
    state = game.state_from_pits([1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0], stores=(40, 30))
    while not state.is_terminal():
        state.apply_action(max(state.legal_actions()))
    assert int(state.array[2]) == MAX_PLIES == game.info.max_game_length
    assert sum(game.stores(state)) == 72 and game.pits(state) == [0] * 12
    assert state.returns() == [1.0, -1.0]
    assert "game over after 1000 plies: player 0 wins" in str(state)


def test_bean_conservation_and_lengths_over_random_games(game: Bohnenspiel) -> None:
    rng = random.Random(11)
    longest = 0
    for _ in range(300):
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            assert sum(game.pits(state)) + sum(game.stores(state)) == 72
        longest = max(longest, len(state.history()))
        stores = game.stores(state)
        assert game.pits(state) == [0] * 12  # the last beans went to a store
        assert state.returns()[0] == (stores[0] > stores[1]) - (stores[0] < stores[1])
    assert longest < MAX_PLIES


# Differential: the kernels against the reference ----------------------------------------


def test_random_games_match_the_reference(game: Bohnenspiel) -> None:
    rng = random.Random(2026)
    for g in range(2000):
        state, ref = game.new_initial_state(), Reference()
        _agree(game, state, ref, f"game {g} start")
        while not state.is_terminal():
            action = rng.choice(ref.legal())
            state.apply_action(action)
            ref.play(action)
            _agree(game, state, ref, f"game {g} after {state.history()}")
        assert ref.player < 0


def test_random_positions_match_the_reference(game: Bohnenspiel) -> None:
    # Set-up positions with big pits (up to 30 beans: sowings that go round twice)
    # and every legal move from each.
    rng = random.Random(7)
    for k in range(3000):
        big = rng.random() < 0.3
        pits = [rng.randrange(31) if big else rng.randrange(8) for _ in range(12)]
        player = rng.randrange(2)
        for i in range(6 * player, 6 * player + 6):
            pits[i] *= rng.random() < 0.7  # some empty pits on the mover's side
        if not any(pits[6 * player : 6 * player + 6]):
            pits[6 * player + rng.randrange(6)] = rng.randrange(1, 30)
        stores = (rng.randrange(20), rng.randrange(20))
        for action in Reference(pits, stores, player).legal():
            state = game.state_from_pits(pits, stores, player)
            ref = Reference(pits, stores, player)
            state.apply_action(action)
            ref.play(action)
            _agree(game, state, ref, f"position {k}: {pits} {stores} player {player} {action}")


# The game API ---------------------------------------------------------------------------


def test_conforms_to_the_game_api(game: Bohnenspiel) -> None:
    assert check_game(game, n_games=50, seed=3) > 1000
    info = game.info
    assert (info.name, info.version, info.num_players, info.num_actions) == (
        "bohnenspiel",
        1,
        2,
        12,
    )
    assert info.zero_sum and (info.min_utility, info.max_utility) == (-1.0, 1.0)


def test_action_names_are_the_servers_fields(game: Bohnenspiel) -> None:
    state = game.new_initial_state()
    assert [state.action_to_string(a) for a in range(12)] == [str(f) for f in range(1, 13)]
    assert state.string_to_action("6") == 5
    with pytest.raises(IllegalActionError):
        state.string_to_action("13")
    with pytest.raises(IllegalActionError, match="legal actions: 0 \\(1\\)"):
        state.apply_action(6)  # player 1's pit: not player 0's move


def test_board_drawing(game: Bohnenspiel) -> None:
    state = game.state_from_actions([0, 11])
    lines = str(state).splitlines()
    assert lines[0].split()[:6] == ["12", "11", "10", "9", "8", "7"]
    assert lines[1].split()[:6] == ["0", "6", "6", "6", "6", "7"]  # pits 11..6
    assert lines[3].split()[:6] == ["1", "8", "8", "8", "8", "8"]  # pits 0..5
    assert lines[4].split()[:6] == ["1", "2", "3", "4", "5", "6"]
    assert lines[2].split()[:2] == ["0", "0"]  # player 1's store left, player 0's right
    assert lines[-1] == "player 0 to move (ply 2)"


def test_heuristic_is_the_scaled_store_difference(game: Bohnenspiel) -> None:
    state = game.new_initial_state()
    assert state.heuristic() == [0.0, 0.0]
    state = game.state_from_pits([5, 3, 3, 5, 3, 3, 7, 6, 6, 6, 6, 0])
    state.apply_action(0)
    assert state.heuristic() == pytest.approx([22 / 72, -22 / 72])
    done = game.state_from_pits([0] * 6 + [1, 0, 0, 0, 0, 3], stores=(34, 34), player=1)
    done.apply_action(6)
    assert done.heuristic() == [-1.0, 1.0]  # exact returns at the end


def test_set_up_positions_are_checked(game: Bohnenspiel) -> None:
    with pytest.raises(InvalidConfigError, match="12 pits"):
        game.state_from_pits([6] * 11)
    with pytest.raises(InvalidConfigError, match="non-negative"):
        game.state_from_pits([6] * 11 + [-1])
    with pytest.raises(InvalidConfigError, match="player 1 has no bean"):
        game.state_from_pits([6] * 6 + [0] * 6, player=1)
    with pytest.raises(InvalidConfigError, match="player must be 0 or 1"):
        game.state_from_pits([6] * 12, player=2)


# Search on Bohnenspiel ------------------------------------------------------------------


def test_depth_limited_minimax_takes_the_big_capture(game: Bohnenspiel) -> None:
    state = game.state_from_pits([5, 3, 3, 5, 3, 3, 7, 6, 6, 6, 6, 0])
    result = alphabeta(state, 4)
    assert result.action == 0
    assert alphabeta(game.new_initial_state(), 4).action in range(6)


def test_reference_ai_plays_whole_games(game: Bohnenspiel) -> None:
    players = [make_player("minimax:depth=4", game.info), make_player("random", game.info, seed=1)]
    final = play_game(game.new_initial_state(), players)
    assert final.is_terminal()
    assert final.returns()[0] == 1.0  # the reference AI beats random play


def test_mcts_plays_a_forced_move_at_once(game: Bohnenspiel) -> None:
    # The circling end game: player 0 has one bean, so one move; no search is run
    # (with a 60 s budget the test would otherwise take a minute).
    state = game.state_from_pits([1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0], stores=(40, 30))
    player = make_player("mcts:time=60", game.info)
    assert isinstance(player, MCTSPlayer)
    assert player.choose(state) == 0
    assert player.last_result is None and player.searcher is None


def test_mcts_finds_the_capture_on_both_engines(game: Bohnenspiel) -> None:
    state = game.state_from_pits([5, 3, 3, 5, 3, 3, 7, 6, 6, 6, 6, 0])
    for engine in ("compiled", "reference"):
        config = mctslab.SearchConfig(
            iterations=2000, seed=1, simulation="cutoff", cutoff_depth=4, c=0.5
        )
        result = mctslab.search(state, config, engine=engine)
        assert result.action == 0, engine
