"""Go's playout kernels: the rollout moves, the light playout, the heavy (MoGo) move.

Positions are set up by alternating stones with passes (a pass followed by a stone never
ends the game), then the previous move the heavy policy answers is played. The heavy move
is drawn from the engines' one-word SplitMix64 generator, so each check runs over many
seeds: a rule of higher priority must win on every seed, a uniform choice must reach
every candidate.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from mctslab.core.rng import Rng
from mctslab.games.go import (
    Go,
    heavy_action,
    heavy_playout,
    light_action,
    playout,
    rollout_actions,
    uniform_action,
)
from mctslab.games.go.layout import P_A2V, P_COLOUR, P_ELIST, P_EPOS, P_W, S_PLAYER
from mctslab.games.go.learned import load_patterns
from mctslab.games.go.patterns import MOGO_PAT3, pattern_code, pattern_matches
from mctslab.games.go.playouts import PAT3_PLAYOUT_MIN, PAT3_PLAYOUT_UNITS
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


def test_playout_ends_by_two_passes_and_draws_as_the_loop_over_light_action() -> None:
    game = Go(board_size=9, max_game_length=4 * 81)  # 2 * 81 cuts a few games short
    start = game.new_initial_state().array
    buf = np.zeros(game.info.num_actions, dtype=np.int64)
    moves = np.zeros(game.info.num_actions, dtype=np.int64)
    finals = []
    for seed in range(40):
        s, word = start.copy(), np.array([seed], dtype=np.uint64)
        out = np.zeros(2)
        plies = playout(s, game.params, word, out)
        assert s[3] == 2 and plies == s[2]  # two passes end it
        assert out[0] == -out[1] and abs(out[0]) == 1  # komi 7.5: no tie
        finals.append(s)
        if seed < 5:  # the loop over light_action, draw for draw, among the rollout moves
            t, loop_word = start.copy(), np.array([seed], dtype=np.uint64)
            while t[0] >= 0:
                a = light_action(t, game.params, loop_word, buf)
                assert a in moves[: rollout_actions(t, game.params, moves)]
                game.kernels.apply_action(t, game.params, a)
            assert np.array_equal(t, s) and loop_word[0] == word[0]
        again = start.copy()
        playout(again, game.params, np.array([seed], dtype=np.uint64), out)
        assert np.array_equal(again, s)
    assert len({f.tobytes() for f in finals}) == 40


def _chi_square_p(counts: list[int]) -> float:
    """The p-value of Pearson's chi-square test of ``counts`` against equal cells (the
    Wilson-Hilferty normal approximation of the chi-square tail, good to a few percent
    from 2 degrees of freedom on; 1 degree: the exact normal tail)."""
    n, k = sum(counts), len(counts)
    x = sum((c - n / k) ** 2 for c in counts) / (n / k)
    df = k - 1
    if df == 1:
        return math.erfc(math.sqrt(x / 2))
    z = ((x / df) ** (1 / 3) - (1 - 2 / (9 * df))) / math.sqrt(2 / (9 * df))
    return 0.5 * math.erfc(z / math.sqrt(2))


def _positions(game: Go, seeds: range, every: int) -> list[KernelState]:
    """Every ``every``-th position of random games (the light playout's moves)."""
    found = []
    for seed in seeds:
        rng = Rng(seed)
        state = game.new_initial_state()
        while not state.is_terminal():
            if len(state.history()) % every == every - 1:
                found.append(state.clone())
            moves = state.playout_actions()
            state.apply_action(moves[rng.randint(len(moves))])
    return found


@pytest.mark.parametrize("kernel", ["light", "uniform"])
def test_rejection_kernels_draw_uniformly_among_their_moves(kernel: str) -> None:
    """light_action is uniform over rollout_actions, uniform_action over legal_actions
    (the pass included): Pearson's test at each of a game's positions (fixed seeds, so
    the p-values are fixed; a biased draw, e.g. the list's order leaking through, gives
    p-values near 0 at the positions with rejections)."""
    game = Go(board_size=7)
    draw = light_action if kernel == "light" else uniform_action
    buf = np.zeros(game.info.num_actions, dtype=np.int64)
    low = []
    for state in _positions(game, range(3), every=9):
        want = state.playout_actions() if kernel == "light" else state.legal_actions()
        counts = dict.fromkeys(want, 0)
        word = np.array([7], dtype=np.uint64)
        for _ in range(60 * len(want)):
            a = draw(state.array, game.params, word, buf)
            assert a in counts
            counts[a] += 1
        if len(want) > 1:
            low.append(_chi_square_p(list(counts.values())))
    assert len(low) >= 10
    assert min(low) > 1e-4, low


def test_the_empty_point_list_follows_captures_and_placements() -> None:
    """The state's list of empty points (light_action's candidates) holds exactly the
    empty points, each at the index its position table says, along random games with
    captures (5x5, simple ko: many captures and recaptures)."""
    game = Go(board_size=5, ko="simple")
    params = game.params
    elist, epos, a2v, col = (int(params[i]) for i in (18, 19, 16, 5))
    assert (P_ELIST, P_EPOS, P_A2V, P_COLOUR) == (18, 19, 16, 5)
    captures = 0
    for seed in range(30):
        rng = Rng(seed)
        state = game.new_initial_state()
        while not state.is_terminal():
            s = state.array
            n = int(s[10])
            listed = s[elist : elist + n].tolist()
            empty = [a for a in range(25) if s[col + params[a2v + a]] == 0]
            assert sorted(listed) == empty and len(set(listed)) == n
            for i, a in enumerate(listed):
                assert s[epos + params[a2v + a]] == i
            legal = state.legal_actions()
            state.apply_action(legal[rng.randint(len(legal))])
        captures += int(state.array[6] + state.array[7])
    assert captures > 100  # the captures' points came back to the list


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


def learned_weights(game: Go, state: KernelState, last: str) -> dict[int, int]:
    """An oracle of the learned rule's draw: the weight of every candidate around
    ``last`` (empty, legal, not an own eye, 3x3 gamma >= PAT3_PLAYOUT_MIN)."""
    table = load_patterns().table
    key = int(state.array[S_PLAYER]) << 16
    n, w = game.board_size, int(game.params[P_W])
    r, c = divmod(point(game, last), n)
    weights = {}
    for dr, dc in itertools.product((-1, 0, 1), repeat=2):
        a = (r + dr) * n + c + dc
        if (dr, dc) == (0, 0) or not (0 <= r + dr < n and 0 <= c + dc < n):
            continue
        v = (r + dr + 1) * w + c + dc + 1
        gamma = table[key | int(pattern_code(state.array, int(game.params[P_COLOUR]), w, v))]
        if (
            game.colour_at(state, a) == 0
            and a in state.legal_actions()
            and not own_eye(game, state, a)
            and gamma >= PAT3_PLAYOUT_MIN
        ):
            weights[a] = max(1, int(gamma * PAT3_PLAYOUT_UNITS))
    return weights


@pytest.mark.parametrize(
    "black,white,last", [("d5", "", "e5"), ("d6", "d5", "e6"), ("e5 d4", "c3 d6", "e4")]
)
def test_pattern_playouts_draw_around_the_last_move_by_the_learned_gammas(
    black: str, white: str, last: str
) -> None:
    game = Go(board_size=9, pattern_playouts=True)
    state = after(game, black, white, last)
    weights = learned_weights(game, state, last)
    assert len(weights) >= 3
    draws = 2000
    counts = {a: 0 for a in weights}
    for seed in range(draws):
        move = heavy(game, state, seed)
        assert move in weights  # only the candidates, never MoGo's rule or a light move
        counts[move] += 1
    total = sum(weights.values())
    for a, k in counts.items():  # each share within 4.5 standard deviations
        p = weights[a] / total
        assert abs(k / draws - p) < 4.5 * math.sqrt(p * (1 - p) / draws), (a, k, p)


def test_pattern_playouts_fall_back_to_the_light_move_with_no_candidate() -> None:
    game = Go(board_size=9, pattern_playouts=True)
    state = after(game, "a1", "", "j9")
    assert learned_weights(game, state, "j9") == {}
    buf = np.zeros(game.info.num_actions, dtype=np.int64)
    for seed in range(20):
        word = np.array([seed], dtype=np.uint64)
        assert heavy(game, state, seed) == int(light_action(state.array, game.params, word, buf))


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


def test_heavy_action_falls_back_to_the_light_move() -> None:
    game = Go(board_size=9)
    buf = np.zeros(game.info.num_actions, dtype=np.int64)
    for state in (
        game.new_initial_state(),  # no previous move
        game.state_from_actions([40, 81]),  # the previous move is a pass
        after(game, "a1", "", "j9"),  # nothing to escape, capture or match around j9
    ):
        choices = rollout(game, state)
        seen = set()
        for seed in range(20):
            word = np.array([seed], dtype=np.uint64)
            light = int(light_action(state.array, game.params, word, buf))
            assert heavy(game, state, seed) == light and light in choices
            seen.add(light)
        assert len(seen) > 10


@pytest.mark.parametrize("size,learned", [(5, False), (9, False), (9, True)])
def test_heavy_action_plays_legal_non_eye_moves_on_random_positions(
    size: int, learned: bool
) -> None:
    """Thousands of positions of games played half by the heavy move, half at random
    (MoGo's patterns, or the learned ones)."""
    game = Go(board_size=size, ko="simple" if size == 5 else "superko", pattern_playouts=learned)
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
