"""Go's rule kernels: conformance, OpenSpiel differential games, known positions.

The differential test plays seeded uniformly random games in mctslab and in OpenSpiel
side by side (game ``i`` uses ``Rng(i)``; the action is drawn from mctslab's legal
actions and applied to both) and checks at every step the same legal actions, player
and terminal flag, and the same returns at the end, except where the rules differ as
``mctslab.games.go``'s docstring lists: a move repeating an earlier position, which
OpenSpiel allows and scores as an immediate draw (superko refuses it; simple ko plays
on). Known positions are set up by alternating stones with passes (a pass followed by
a stone never ends the game).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np
import pytest

import mctslab
from conftest import require_extra
from mctslab.core.errors import IllegalActionError, InvalidConfigError
from mctslab.core.rng import Rng
from mctslab.core.testing import check_game
from mctslab.games.go import Go, area_score2, playout
from mctslab.games.kernels import KernelState


@pytest.fixture(scope="module")
def pyspiel() -> ModuleType:
    return require_extra("pyspiel", "openspiel")


def point(game: Go, name: str) -> int:
    action = game.parse_action(game.new_initial_state(), name)
    assert action is not None
    return action


def setup(game: Go, black: str, white: str, to_play: str = "B") -> KernelState:
    """A position with the stones named (``"a1 b2"``) and ``to_play`` to move, reached
    by stones alternating with passes (no capture on the way)."""
    pas = game.board_size**2
    b = [point(game, p) for p in black.split()]
    w = [point(game, p) for p in white.split()]
    actions: list[int] = []
    for i in range(max(len(b), len(w))):
        actions.append(b[i] if i < len(b) else pas)
        actions.append(w[i] if i < len(w) else pas)
    if to_play == "W":
        if actions[-1] == pas:
            actions.pop()
        else:
            actions.append(pas)
    assert all(not (x == y == pas) for x, y in itertools.pairwise(actions))
    state = game.state_from_actions(actions)
    assert not state.is_terminal()
    return state


def play(state: KernelState, *names: str) -> KernelState:
    game = state.game
    assert isinstance(game, Go)
    for name in names:
        state.apply_action(point(game, name))
    return state


def stones(state: KernelState) -> str:
    """The board as rows of ``.XO`` from the top."""
    return "\n".join(line[3:] for line in str(state).splitlines()[:-2]).replace("+", ".")


# --- conformance -------------------------------------------------------------------


@pytest.mark.parametrize(
    "params",
    [
        {"board_size": 5},
        {"board_size": 5, "ko": "simple"},
        {"board_size": 7, "komi": 0.0},
        {"board_size": 9},
    ],
    ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()),
)
def test_go_conforms(params: dict[str, Any]) -> None:
    game = mctslab.make("go", **params)
    assert check_game(game, n_games=6 if params["board_size"] == 9 else 15, seed=3) > 100


def test_parameters_and_constants() -> None:
    game = mctslab.make("go")
    assert isinstance(game, Go) and game.board_size == 9 and game.komi == 7.5
    info = game.info
    assert (info.num_actions, info.max_game_length, info.num_players) == (82, 162, 2)
    assert mctslab.make("go", board_size=19).info.num_actions == 362
    assert mctslab.make("go", board_size=5, max_game_length=100).info.max_game_length == 100
    for bad in (
        {"board_size": 4},
        {"board_size": 20},
        {"komi": 7.3},
        {"komi": "x"},
        {"ko": "japanese"},
        {"max_game_length": 1},
    ):
        with pytest.raises(InvalidConfigError):
            mctslab.make("go", **bad)


def test_action_names_are_openspiels_and_parse_back() -> None:
    game = Go(board_size=9)
    state = game.new_initial_state()
    assert [state.action_to_string(a) for a in (0, 1, 8, 9, 80, 81)] == [
        "B a1",
        "B b1",
        "B j1",
        "B a2",
        "B j9",
        "B PASS",
    ]
    for text, action in (("a1", 0), ("J9", 80), ("pass", 81), ("W c2", 11), ("B PASS", 81)):
        assert state.string_to_action(text) == action
    with pytest.raises(IllegalActionError):
        state.string_to_action("i1")  # Go columns skip the letter i
    state.apply_action(40)
    assert state.action_to_string(81) == "W PASS"


# --- OpenSpiel ----------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    board_size: int
    ko: str
    n_games: int
    komi: float = 7.5

    @property
    def id(self) -> str:
        return f"go(board_size={self.board_size},komi={self.komi},ko={self.ko})"


CASES = [
    Case(5, "superko", 2000),
    Case(5, "simple", 2000),
    Case(9, "superko", 2000),
    Case(9, "simple", 2000),
    Case(7, "superko", 500, komi=0.0),  # integer komi: draws
    Case(13, "simple", 100),
    Case(19, "superko", 30),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_random_games_match_openspiel(case: Case, pyspiel: Any) -> None:
    game = Go(board_size=case.board_size, komi=case.komi, ko=case.ko)
    spiel = pyspiel.load_game(f"go(board_size={case.board_size},komi={case.komi})")
    assert game.info.num_actions == spiel.num_distinct_actions()
    assert game.info.max_game_length == spiel.max_game_length()
    assert (game.info.min_utility, game.info.max_utility) == (
        spiel.min_utility(),
        spiel.max_utility(),
    )
    shape = game.observation_shape()
    assert list(shape) == spiel.observation_tensor_shape()
    repeats = refused = 0
    for seed in range(case.n_games):
        rng = Rng(seed)
        state = game.new_initial_state()
        other = spiel.new_initial_state()
        while True:
            where = f"{case.id} seed {seed}, history {state.history()}"
            if other.is_terminal() and not state.is_terminal():
                # OpenSpiel ended the game on a repeated position (a draw); simple ko plays on.
                assert case.ko == "simple" and other.returns() == [0.0, 0.0], where
                repeats += 1
                break
            legal, want = state.legal_actions(), other.legal_actions()
            if legal != want:
                # Superko refuses the moves that repeat a position, and only those:
                # each one ends OpenSpiel's game as a draw.
                assert case.ko == "superko" and set(legal) < set(want), where
                for a in set(want) - set(legal):
                    child = other.child(a)
                    assert child.is_terminal() and child.returns() == [0.0, 0.0], where
                refused += 1
            assert state.current_player() == other.current_player(), where
            assert state.is_terminal() == other.is_terminal(), where
            if seed % 10 == 0:
                for player in (0, 1):
                    np.testing.assert_array_equal(
                        state.observation_tensor(player).ravel(),
                        np.asarray(other.observation_tensor(player), dtype=np.float32),
                        err_msg=where,
                    )
            if state.is_terminal():
                assert state.returns() == other.returns(), where
                break
            action = rng.choice(legal)
            state.apply_action(action)
            other.apply_action(action)
    # the random games do meet the differences (repetitions are rare, not absent)
    if case.n_games >= 1000:
        assert repeats + refused > 0


# --- known positions ------------------------------------------------------------------


def test_capture_removes_the_string_and_counts_it() -> None:
    game = Go(board_size=5)
    state = setup(game, "b2 c3 d2", "c2")  # white c2 in atari at c1
    play(state, "c1")
    assert game.colour_at(state, point(game, "c2")) == 0
    assert game.captures(state) == (1, 0)
    # a two-stone string
    state = setup(game, "a2 b2", "a1 b1")
    play(state, "c1")
    assert game.colour_at(state, 0) == game.colour_at(state, 1) == 0
    assert game.captures(state) == (2, 0)


def test_suicide_is_illegal_but_capturing_is_not() -> None:
    game = Go(board_size=5)
    state = setup(game, "a2 b1", "c3", to_play="W")
    assert point(game, "a1") not in state.legal_actions()  # white a1: no liberty, no capture
    with pytest.raises(IllegalActionError):
        play(state, "a1")
    # a stone that takes the last liberty of its own string: suicide of two stones
    state = setup(game, "a2 b2 c1", "a1", to_play="W")
    assert point(game, "b1") not in state.legal_actions()
    # no liberty of its own, but it captures: legal
    state = setup(game, "a3 b2 c1", "a2 b1")
    play(state, "a1")
    assert game.captures(state) == (2, 0)
    assert game.colour_at(state, point(game, "a1")) == 1


def test_simple_ko_forbids_the_immediate_recapture() -> None:
    for ko in ("simple", "superko"):
        game = Go(board_size=5, ko=ko)
        state = setup(game, "b2 c3 c1", "c2 d3 d1 e2")  # black takes c2 at d2
        play(state, "d2")
        assert game.colour_at(state, point(game, "c2")) == 0
        assert game.captures(state) == (1, 0)
        c2 = point(game, "c2")
        assert c2 not in state.legal_actions()  # white may not retake at once
        play(state, "a5", "a4")  # a ko threat and its answer
        assert c2 in state.legal_actions()  # now it may
        play(state, "c2")
        assert game.colour_at(state, point(game, "d2")) == 0
        assert point(game, "d2") not in state.legal_actions()
        # a pass clears the ko point too
        state.apply_action(game.board_size**2)
        state.apply_action(game.board_size**2 - 1)  # white elsewhere
        assert point(game, "d2") in state.legal_actions()


def test_snapback() -> None:
    game = Go(board_size=5)
    # White a2 b2 (liberties a1 b1) and c1 (liberty b1): black throws in at a1, white
    # captures it at b1 and is left with one liberty, a1, where black takes four stones.
    state = setup(game, "a3 b3 c2 d1", "a2 b2 c1")
    play(state, "a1")  # the throw-in, self-atari
    assert game.colour_at(state, point(game, "a1")) == 1
    play(state, "b1")  # white captures the one stone
    assert game.colour_at(state, point(game, "a1")) == 0
    assert game.captures(state) == (0, 1)
    assert point(game, "a1") in state.legal_actions()  # not a ko: b1 is not in an eye
    play(state, "a1")  # black retakes: four stones
    for name in ("a2", "b2", "b1", "c1"):
        assert game.colour_at(state, point(game, name)) == 0
    assert game.captures(state) == (4, 1)


def test_superko_refuses_a_repeated_position_simple_ko_allows_it() -> None:
    # A move of a random game that recreates an earlier position (not a simple ko).
    game = Go(board_size=5, ko="superko")
    simple = Go(board_size=5, ko="simple")
    found = _find_repetition(simple)
    assert found is not None, "no repetition in the random games searched"
    history, action = found
    state = game.state_from_actions(history)
    assert action not in state.legal_actions()
    other = simple.state_from_actions(history)
    assert action in other.legal_actions()
    seen = set(_hashes(other))
    other.apply_action(action)
    assert _hashes(other)[-1] in seen


def _hashes(state: KernelState) -> list[int]:
    moves = int(state.array[2])
    hist = int(state.game.params[14])
    return [int(h) for h in state.array[hist : hist + moves + 1]]


def _find_repetition(game: Go) -> tuple[list[int], int] | None:
    """A random game's history and a legal move (simple ko) that repeats a position."""
    for seed in range(2000):
        rng = Rng(seed)
        state = game.new_initial_state()
        while not state.is_terminal():
            seen = set(_hashes(state))
            for a in state.legal_actions()[:-1]:
                child = state.child(a)
                if _hashes(child)[-1] in seen:
                    return state.history(), a
            state.apply_action(rng.choice(state.legal_actions()))
    return None


def test_two_passes_end_the_game_and_area_scoring() -> None:
    game = Go(board_size=5, komi=0.5)
    state = setup(game, "c1 c2 c3 c4 c5", "d1 d2 d3 d4 d5")
    state.apply_action(25)
    assert not state.is_terminal()
    state.apply_action(25)
    assert state.is_terminal() and state.current_player() == mctslab.TERMINAL
    # black: 5 stones + 10 points (a, b columns); white: 5 + 5 (e column)
    assert game.score(state) == 15 - 10 - 0.5
    assert state.returns() == [1.0, -1.0]
    assert state.legal_actions() == []


def test_a_pass_then_a_stone_does_not_end_the_game() -> None:
    game = Go(board_size=5)
    state = game.state_from_actions([25, 12, 25])
    assert not state.is_terminal() and state.current_player() == 1


def test_seki_like_shared_liberties_count_for_nobody() -> None:
    game = Go(board_size=5, komi=0.0)
    # Column a and b: black wall on c, white wall on d; a1..a5/b1..b5 mixed so that the
    # empty points a1 and a5 touch both colours: they are neutral (seki's shared liberties).
    black = "c1 c2 c3 c4 c5 b2 b4"
    white = "d1 d2 d3 d4 d5 a2 a3 a4 b3"
    state = setup(game, black, white)
    state.apply_action(25)
    state.apply_action(25)
    # a1, b1 touch black b2 and white a2: neutral; a5 b5 likewise (a4 white, b4 black).
    # black: 7 stones; white: 9 stones + e column (5) = 14.
    assert game.score(state) == 7 - 14
    assert state.returns() == [-1.0, 1.0]
    assert int(area_score2(state.array, game.params)) == 2 * (7 - 14)


def test_game_ends_at_max_game_length() -> None:
    game = Go(board_size=5, max_game_length=4)
    state = game.state_from_actions([0, 1, 2, 3])
    assert state.is_terminal()


def test_observation_planes() -> None:
    game = Go(board_size=5)
    state = game.state_from_actions([0, 24])
    obs = state.observation_tensor()
    assert obs.shape == (4, 5, 5)
    assert obs[0, 0, 0] == 1 and obs[1, 4, 4] == 1 and obs[2].sum() == 23
    assert obs[3].sum() == 0  # black to play
    state.apply_action(25)
    assert state.observation_tensor(0)[3].sum() == 25


# --- playouts and search --------------------------------------------------------------


def test_the_playout_never_fills_an_own_eye_and_ends_by_passes() -> None:
    game = Go(board_size=9, max_game_length=4 * 81)  # OpenSpiel's 2 * 81 cuts a few short
    rng = np.array([7], dtype=np.uint64)
    out = np.zeros(2)
    ended = 0
    for _ in range(50):
        s = game.new_initial_state().array.copy()
        playout(s, game.params, rng, out)
        ended += int(s[3]) >= 2
        assert out[0] == -out[1] and abs(out[0]) == 1
    assert ended == 50
    # black to move with a one-point eye at a1: the policy does not fill it (a game
    # one move longer than the set-up plays one ply of the policy)
    short = Go(board_size=5, max_game_length=7)
    state = setup(short, "a2 b1 b2", "e5")
    eye = point(short, "a1")
    assert eye in state.legal_actions()
    for seed in range(30):
        s = state.array.copy()
        rng[0] = seed
        assert playout(s, short.params, rng, out) == 1
        assert int(s[8]) != eye


def test_light_playouts_end_with_returns_of_the_game() -> None:
    """The light playout kernel from the empty 9x9 board ends games with zero-sum returns
    of +-1 (or 0 on a tie), whatever the seed (speed is measured by benchmarks, not here)."""
    game = Go(board_size=9)
    kernels = game.kernels
    assert kernels.playout is not None
    start = game.new_initial_state().array
    for seed in range(20):
        rng = np.array([seed], dtype=np.uint64)
        out = np.zeros(2)
        kernels.playout(start.copy(), game.params, rng, out)
        assert out[0] == -out[1] and out[0] in (-1.0, 0.0, 1.0)


def test_compiled_mcts_plays_a_5x5_game_to_the_end() -> None:
    from mctslab.search.compiled import CompiledMCTS
    from mctslab.search.config import SearchConfig

    game = Go(board_size=5)
    state = game.new_initial_state()
    searcher = CompiledMCTS(SearchConfig(iterations=200, seed=1))
    while not state.is_terminal():
        result = searcher.search(state)
        assert result.action in state.legal_actions()
        state.apply_action(result.action)
    assert len(state.history()) <= game.info.max_game_length
    assert sorted(state.returns()) == [-1.0, 1.0]


def test_both_engines_search_the_same_go_tree() -> None:
    from mctslab.search.compiled import CompiledMCTS
    from mctslab.search.config import SearchConfig
    from mctslab.search.mcts import MCTS

    game = Go(board_size=5)
    state = game.state_from_actions([12, 6, 18])
    config = SearchConfig(iterations=300, seed=4)
    a, b = MCTS(config).search(state), CompiledMCTS(config).search(state)
    assert a.action == b.action
    assert [(c.action, c.visits, c.value) for c in a.children] == [
        (c.action, c.visits, c.value) for c in b.children
    ]
