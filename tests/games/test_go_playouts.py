"""Go's playout kernels: the rollout moves, the light playout, the heavy (MoGo) move.

Positions are set up by alternating stones with passes (a pass followed by a stone never
ends the game), then the previous move the heavy policy answers is played. The heavy move
is drawn from the engines' one-word SplitMix64 generator, so each check runs over many
seeds: a rule of higher priority must win on every seed, a uniform choice must reach
every candidate.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from mctslab.core.rng import Rng
from mctslab.games.go import (
    MOGO_PAT3,
    Go,
    heavy_action,
    heavy_playout,
    pattern_matches,
    playout,
    rollout_actions,
)
from mctslab.games.kernels import KernelState

BLACK, WHITE = 1, 2


def point(game: Go, name: str) -> int:
    action = game.parse_action(game.new_initial_state(), name)
    assert action is not None
    return action


def points(game: Go, names: str) -> list[int]:
    return [point(game, p) for p in names.split()]


def setup(game: Go, black: str, white: str, to_play: str = "B") -> KernelState:
    """The stones named, ``to_play`` to move, reached by stones alternating with passes."""
    pas = game.board_size**2
    b, w = points(game, black), points(game, white)
    actions: list[int] = []
    for i in range(max(len(b), len(w))):
        actions.append(b[i] if i < len(b) else pas)
        actions.append(w[i] if i < len(w) else pas)
    if to_play == "W":
        if actions and actions[-1] == pas:
            actions.pop()
        else:
            actions.append(pas)
    assert all(not (x == y == pas) for x, y in itertools.pairwise(actions))
    state = game.state_from_actions(actions)
    assert not state.is_terminal()
    return state


def after(game: Go, black: str, white: str, last: str, to_play: str = "B") -> KernelState:
    """The stones named, then the opponent of ``to_play`` plays ``last``: the previous
    move that the heavy policy answers."""
    state = setup(game, black, white, "W" if to_play == "B" else "B")
    state.apply_action(point(game, last))
    return state


def own_eye(game: Go, state: KernelState, action: int) -> bool:
    """An oracle of the one-point eye rule, from the board as ``colour_at`` reads it."""
    n = game.board_size
    if action == n * n or game.colour_at(state, action) != 0:
        return False
    c = state.current_player() + 1
    r, col = divmod(action, n)

    def at(rr: int, cc: int) -> int:  # 3: off the board
        return game.colour_at(state, rr * n + cc) if 0 <= rr < n and 0 <= cc < n else 3

    if any(at(r + dr, col + dc) not in (c, 3) for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))):
        return False
    diagonals = [at(r + dr, col + dc) for dr in (-1, 1) for dc in (-1, 1)]
    return diagonals.count(3 - c) + (3 in diagonals) < 2


def rollout(game: Go, state: KernelState) -> list[int]:
    buf = np.zeros(game.info.num_actions, dtype=np.int64)
    n = rollout_actions(state.array, game.params, buf)
    return [int(a) for a in buf[:n]]


def heavy(game: Go, state: KernelState, seed: int) -> int:
    buf = np.zeros(game.info.num_actions, dtype=np.int64)
    array = state.array.copy()
    move = int(heavy_action(array, game.params, np.array([seed], dtype=np.uint64), buf))
    assert np.array_equal(array, state.array)  # heavy_action only reads the state
    return move


def heavy_moves(game: Go, state: KernelState, seeds: int = 64) -> set[int]:
    return {heavy(game, state, seed) for seed in range(seeds)}


# --- rollout_actions ------------------------------------------------------------------


def test_rollout_actions_leave_out_own_eyes_only() -> None:
    game = Go(board_size=9)
    # c1 is a black eye on the edge; with a white stone on b2 it is a false eye
    real = setup(game, "b1 d1 c2 b3", "j9")
    false = setup(game, "b1 d1 c2 b3", "b2")
    c1 = point(game, "c1")
    assert c1 in real.legal_actions() and c1 not in rollout(game, real)
    assert c1 in false.legal_actions() and c1 in rollout(game, false)
    # a1 is Black's eye, whose string is in atari: White may capture there
    corner = Go(board_size=5)
    state = setup(corner, "a2 b1 b2", "a3 b3 c2 c1", to_play="W")
    a1 = point(corner, "a1")
    assert own_eye(corner, setup(corner, "a2 b1 b2", "a3 b3 c2 c1"), a1)
    assert a1 in state.legal_actions() and a1 in rollout(corner, state)
    # otherwise exactly the legal points, ascending, without the pass
    pas = game.board_size**2
    assert rollout(game, real) == [a for a in real.legal_actions() if a not in (c1, pas)]


def test_rollout_actions_pass_only_when_nothing_else() -> None:
    game = Go(board_size=5)
    empty = "a1 c3 e5"
    stones = " ".join(
        game.point_name(a) for a in range(25) if game.point_name(a) not in empty.split()
    ).lower()
    state = setup(game, stones, "")
    assert set(state.legal_actions()) == {*points(game, empty), 25}
    assert rollout(game, state) == [25]
    assert rollout(game, setup(game, stones, "", to_play="W")) == [25]  # suicide everywhere
    # one point more on the board, c3 is no eye any more, nor d3: no pass
    state = setup(game, stones.replace("d3 ", ""), "")
    assert rollout(game, state) == points(game, "c3 d3")


def test_rollout_actions_agree_with_an_eye_oracle_on_random_positions() -> None:
    for size in (5, 9):
        game = Go(board_size=size, ko="simple" if size == 5 else "superko")
        pas = size * size
        for g in range(8):
            rng = Rng(100 + g)
            state = game.new_initial_state()
            while not state.is_terminal():
                legal = state.legal_actions()
                want = [a for a in legal if a != pas and not own_eye(game, state, a)]
                assert rollout(game, state) == (want or [pas])
                state.apply_action(legal[rng.randint(len(legal))])


# --- the light playout ----------------------------------------------------------------


def test_playout_ends_by_two_passes_and_draws_as_the_generic_loop() -> None:
    game = Go(board_size=9, max_game_length=4 * 81)  # 2 * 81 cuts a few games short
    start = game.new_initial_state().array
    buf = np.zeros(game.info.num_actions, dtype=np.int64)
    finals = []
    for seed in range(40):
        s, word = start.copy(), np.array([seed], dtype=np.uint64)
        out = np.zeros(2)
        plies = playout(s, game.params, word, out)
        assert s[3] == 2 and plies == s[2]  # two passes end it
        assert out[0] == -out[1] and abs(out[0]) == 1  # komi 7.5: no tie
        finals.append(s)
        if seed < 5:  # the generic loop over rollout_actions, draw for draw
            t, rng = start.copy(), Rng(seed)
            while t[0] >= 0:
                game.kernels.apply_action(
                    t, game.params, buf[rng.randint(rollout_actions(t, game.params, buf))]
                )
            assert np.array_equal(t, s) and rng.state == int(word[0])
        again = start.copy()
        playout(again, game.params, np.array([seed], dtype=np.uint64), out)
        assert np.array_equal(again, s)
    assert len({f.tobytes() for f in finals}) == 40


# --- the heavy move -------------------------------------------------------------------


def test_heavy_action_escapes_an_atari() -> None:
    game = Go(board_size=9)
    # White's e6 puts e5 in atari; extending to e4 gives three liberties
    state = after(game, "e5", "d5 f5", "e6")
    assert heavy_moves(game, state) == {point(game, "e4")}
    # two black strings put in atari at once: both escapes are drawn
    state = after(game, "e5 g5", "d5 e4 h5 g4", "f5")
    assert heavy_moves(game, state) == set(points(game, "e6 g6"))


def test_heavy_action_does_not_escape_into_self_atari() -> None:
    game = Go(board_size=9)
    # extending to e4 leaves e5-e4 one liberty (e3): not an escape
    state = after(game, "e5", "d5 f5 d4 f4", "e6")
    e4 = point(game, "e4")
    assert e4 in state.legal_actions()
    moves = [heavy(game, state, seed) for seed in range(200)]
    assert moves.count(e4) < 20  # only as one uniform move among ~70


def test_heavy_action_captures_next_to_the_last_move() -> None:
    game = Go(board_size=9)
    # White's e5 stone is in atari (e6): capture it
    state = after(game, "d5 f5 e4", "a9", "e5", to_play="B")
    assert heavy_moves(game, state) == {point(game, "e6")}
    # White's last move d6 is safe, but White's c7 next to it (diagonally) is in atari
    state = after(game, "b7 c8 d7 e3", "c7", "d6")
    assert heavy_moves(game, state) == {point(game, "c6")}
    # an escape comes before a capture: e6 puts e5 in atari and is in atari itself (e7)
    state = after(game, "e5 d6 f6", "d5 f5", "e6")
    assert heavy_moves(game, state) == {point(game, "e4")}


def test_heavy_action_plays_mogo_patterns_around_the_last_move() -> None:
    game = Go(board_size=9)
    # White's e5 next to Black's d5 (diagonally): the non-cutting hane e4 / e6 for Black,
    # and d4 / d6, White's hane points (patterns hold for both colours)
    state = after(game, "d5", "", "e5")
    assert heavy_moves(game, state) == set(points(game, "d4 d6 e4 e6"))
    # a cut (MoGo's cut1) at e5 between White's d5 and e6 (last), Black's d6 diagonal
    state = after(game, "d6", "d5", "e6")
    moves = heavy_moves(game, state, 200)
    assert point(game, "e5") in moves
    around = set(points(game, "d5 d6 d7 e5 e7 f5 f6 f7"))
    for move in moves:
        assert move in around and pattern_matches(neighbourhood(game, state, move), 0)


def neighbourhood(game: Go, state: KernelState, action: int) -> tuple[str, str, str]:
    """The 3x3 drawing (rows from the board's top) around ``action``."""
    n = game.board_size
    r, c = divmod(action, n)
    rows = []
    for rr in (r + 1, r, r - 1):
        row = ""
        for cc in (c - 1, c, c + 1):
            if 0 <= rr < n and 0 <= cc < n:
                row += ".XO"[game.colour_at(state, rr * n + cc)]
            else:
                row += "#"
        rows.append(row)
    return rows[0], rows[1], rows[2]


def test_heavy_action_falls_back_to_the_uniform_rollout_move() -> None:
    game = Go(board_size=9)
    for state in (
        game.new_initial_state(),  # no previous move
        game.state_from_actions([40, 81]),  # the previous move is a pass
        after(game, "a1", "", "j9"),  # nothing to escape, capture or match around j9
    ):
        choices = rollout(game, state)
        for seed in range(20):
            rng = Rng(seed)
            assert heavy(game, state, seed) == choices[rng.randint(len(choices))]


@pytest.mark.parametrize("size", [5, 9])
def test_heavy_action_plays_legal_non_eye_moves_on_random_positions(size: int) -> None:
    """Thousands of positions of games played half by the heavy move, half at random."""
    game = Go(board_size=size, ko="simple" if size == 5 else "superko")
    pas = size * size
    checked = 0
    for g in range(24 if size == 9 else 60):
        rng = Rng(7 + g)
        state = game.new_initial_state()
        while not state.is_terminal():
            move = heavy(game, state, rng.next_u64())
            assert move in state.legal_actions()
            assert not own_eye(game, state, move)
            assert move != pas or rollout(game, state) == [pas]
            checked += 1
            legal = state.legal_actions()
            state.apply_action(move if rng.randint(2) else legal[rng.randint(len(legal))])
    assert checked > 2000


def test_heavy_playout_ends_and_is_seeded() -> None:
    game = Go(board_size=9, max_game_length=4 * 81)
    start = game.new_initial_state().array
    out = np.zeros(2)
    for seed in range(20):
        s = start.copy()
        plies = heavy_playout(s, game.params, np.array([seed], dtype=np.uint64), out)
        assert s[3] == 2 and plies == s[2]
        assert out[0] == -out[1] and abs(out[0]) == 1
        t = start.copy()
        heavy_playout(t, game.params, np.array([seed], dtype=np.uint64), out)
        assert np.array_equal(s, t)
        # heavy_playout is heavy_action to the end
        u, word = start.copy(), np.array([seed], dtype=np.uint64)
        buf = np.zeros(game.info.num_actions, dtype=np.int64)
        while u[0] >= 0:
            game.kernels.apply_action(u, game.params, heavy_action(u, game.params, word, buf))
        assert np.array_equal(u, s)


# --- the pattern table ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("rows", "black", "white"),
    [
        (("XOX", "...", "..."), True, True),  # hane: enclosing
        (("XO.", "...", "..."), True, True),  # hane: non-cutting
        (("XO.", "X..", "..."), True, True),  # hane: magari
        (("XOO", "...", "..."), True, False),  # hane: thin, X (black) to play only
        (("XO.", "O..", "..."), True, True),  # cut1
        (("XO.", "O.O", "..."), False, False),  # cut1, but the second pattern
        (("XO.", "O..", ".O."), False, False),  # cut1, but the third pattern
        ((".X.", "O.O", "..."), True, True),  # cut2
        ((".X.", "O.O", "..X"), True, True),  # cut2: x is black or empty
        ((".X.", "O.O", ".O."), False, False),  # cut2, an O below
        (("X..", "O..", "###"), True, True),  # edge 1
        (("X.#", "O.#", "###"), False, False),  # edge 1 in a corner: no edge pattern
        (("X..", "...", "..."), False, False),  # no stone next to the point
        ((".X.", "..O", "###"), True, True),  # edge 2
        ((".XO", "..X", "###"), True, False),  # edge 3, X to play only
        ((".XO", "...", "###"), True, True),  # edge 3 for X, edge 4 for O
        ((".XO", "O.X", "###"), True, True),  # edge 3 for X, edge 5 for O
        (("...", ".X.", "..."), False, False),  # a lone stone
        (("...", "...", "..."), False, False),
    ],
)
def test_mogo_patterns(rows: tuple[str, str, str], black: bool, white: bool) -> None:
    assert pattern_matches(rows, 0) is black
    assert pattern_matches(rows, 1) is white


def test_pattern_table_is_symmetric() -> None:
    """Every rotation and reflection of a neighbourhood, and its colour exchange with the
    other player to move, get the same verdict, over all 4**8 neighbourhoods."""
    cells = [(0, 0), (0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1), (2, 2)]
    codes = np.arange(1 << 16)
    fields = [(codes >> (2 * i)) & 3 for i in range(8)]

    def recode(f: list[np.ndarray]) -> np.ndarray:
        return sum((f[i] << (2 * i) for i in range(8)), np.zeros(1 << 16, dtype=np.int64))

    table = MOGO_PAT3.reshape(2, 1 << 16)
    assert table[0].any() and not table[0].all()
    transforms = [
        lambda r, c: (c, 2 - r),  # a quarter turn
        lambda r, c: (2 - r, 2 - c),
        lambda r, c: (2 - c, r),
        lambda r, c: (r, 2 - c),  # mirrors
        lambda r, c: (2 - r, c),
        lambda r, c: (c, r),
        lambda r, c: (2 - c, 2 - r),
    ]
    for t in transforms:
        moved = recode([fields[cells.index(t(*cells[i]))] for i in range(8)])
        assert np.array_equal(table[:, moved], table)
    swap = np.array([0, 2, 1, 3])
    swapped = recode([swap[f] for f in fields])
    assert np.array_equal(table[1, swapped], table[0])
    assert np.array_equal(table[0, swapped], table[1])
    # some verdicts depend on the player to move (the thin hane, edge 3 to 5)
    assert not np.array_equal(table[0], table[1])
