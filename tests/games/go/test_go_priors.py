"""Go's prior knowledge (node priors, Michi's rules): known positions, then random ones
against a plain-Python oracle of every rule.

Positions are set up with the stones of the player not to move first, then those of the
player to move, a pass between two stones of one colour; then the opponent plays
``last`` (a point, or ``pass``: then no 3x3 pattern and no distance prior applies). The
expected priors are written as sums of the module's constants, each naming its rule.
"""

from __future__ import annotations

from collections import deque

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mctslab.core.errors import InvalidConfigError
from mctslab.core.rng import Rng
from mctslab.games.go import Go
from mctslab.games.go.patterns import pattern_matches
from mctslab.games.go.priors import (
    CFG_FAR,
    PRIOR_CAPTURE_MANY,
    PRIOR_CAPTURE_ONE,
    PRIOR_CFG,
    PRIOR_EMPTYAREA,
    PRIOR_EVEN,
    PRIOR_OWN_EYE,
    PRIOR_PAT3,
    PRIOR_SELFATARI,
    cfg_distances,
    knowledge,
    prior_table,
)
from mctslab.games.kernels import KernelState

EVEN = (PRIOR_EVEN, PRIOR_EVEN // 2)
ONE = (PRIOR_CAPTURE_ONE, PRIOR_CAPTURE_ONE)
MANY = (PRIOR_CAPTURE_MANY, PRIOR_CAPTURE_MANY)
PAT3 = (PRIOR_PAT3, PRIOR_PAT3)
SELFATARI = (PRIOR_SELFATARI, 0)
OWN_EYE = (PRIOR_OWN_EYE, 0)
LOW_EMPTY = (PRIOR_EMPTYAREA, 0)  # first and second line, nothing around
HIGH_EMPTY = (PRIOR_EMPTYAREA, PRIOR_EMPTYAREA)  # third line, nothing around


def cfg(d: int) -> tuple[int, int]:
    return (PRIOR_CFG[d - 1], PRIOR_CFG[d - 1])


def plus(*parts: tuple[int, int]) -> tuple[int, int]:
    """The even prior plus ``parts``."""
    return (EVEN[0] + sum(p[0] for p in parts), EVEN[1] + sum(p[1] for p in parts))


def point(game: Go, name: str) -> int:
    action = game.parse_action(game.new_initial_state(), name)
    assert action is not None
    return action


def position(
    game: Go, black: str, white: str, to_play: str = "B", last: str = "pass"
) -> KernelState:
    """The stones named, then the opponent of ``to_play`` plays ``last``."""
    pas = game.board_size**2
    mover = {"B": black, "W": white}[to_play].split()
    other = {"B": white, "W": black}[to_play].split()
    assert mover or last != "pass"  # else the last two moves would be passes
    colour = {"B": 0, "W": 1}
    opponent = "W" if to_play == "B" else "B"
    state = game.new_initial_state()
    for who, name in [(opponent, p) for p in other] + [(to_play, p) for p in mover]:
        if state.current_player() != colour[who]:
            state.apply_action(pas)
        state.apply_action(point(game, name))
    if state.current_player() != colour[opponent]:
        assert last != "pass" or state.history()[-1] != pas
        state.apply_action(pas)
    state.apply_action(pas if last == "pass" else point(game, last))
    assert not state.is_terminal() and state.current_player() == colour[to_play]
    return state


def prior(game: Go, state: KernelState, name: str) -> tuple[int, int]:
    return prior_table(state)[point(game, name)]


# --- the even prior and the empty area ------------------------------------------------


@pytest.mark.parametrize("size", [9, 13, 19])
def test_empty_board_even_prior_with_the_empty_area_by_line(size: int) -> None:
    """Every action gets the even prior; with no stone anywhere, the first and second
    lines are penalised (visits only), the third line gets the bonus (visits and wins);
    the fourth line on and the pass get the even prior alone."""
    game = Go(board_size=size)
    table = prior_table(game.new_initial_state())
    assert len(table) == size * size + 1
    assert table[size * size] == EVEN
    for a in range(size * size):
        r, c = divmod(a, size)
        height = min(r, c, size - 1 - r, size - 1 - c)
        want = {0: plus(LOW_EMPTY), 1: plus(LOW_EMPTY), 2: plus(HIGH_EMPTY)}.get(height, EVEN)
        assert table[a] == want, (game.point_name(a), height)
    assert table[point(game, "a1")] == (20, 5) and table[point(game, "c3")] == (20, 15)
    assert table[point(game, "d4")] == (10, 5)


def test_empty_area_ends_within_manhattan_distance_three_of_a_stone() -> None:
    """A stone at Manhattan distance 3 cancels the empty-area prior, one at 4 does not
    (the last move a pass: no distance prior)."""
    game = Go(board_size=9)
    state = position(game, "e5", "", to_play="B", last="pass")
    assert prior(game, state, "c3") == plus(HIGH_EMPTY)  # e5 at distance 4
    assert prior(game, state, "d3") == EVEN  # at distance 3
    assert prior(game, state, "b5") == EVEN  # second line, at distance 3
    assert prior(game, state, "a5") == plus(LOW_EMPTY)  # first line, at distance 4
    assert prior(game, state, "c7") == plus(HIGH_EMPTY)
    assert prior(game, state, "g6") == EVEN  # distance 3


# --- captures, escapes, self-atari, own eyes -------------------------------------------


def test_capturing_one_stone_gets_capture_one() -> None:
    game = Go(board_size=9)
    state = position(game, "d5 f5 e4", "e5")  # White's e5 in atari at e6
    assert prior(game, state, "e6") == plus(ONE)
    assert prior(game, state, "e3") == EVEN  # no rule applies


def test_capturing_two_stones_gets_capture_many() -> None:
    game = Go(board_size=9)
    # a two-stone string in atari at e7
    state = position(game, "d5 d6 f5 f6 e4", "e5 e6")
    assert prior(game, state, "e7") == plus(MANY)
    # two single stones, both in atari at e5: two stones captured by one move
    state = position(game, "c5 d4 d6 g5 f4 f6", "d5 f5")
    assert prior(game, state, "e5") == plus(MANY)


def test_a_capture_that_leaves_one_liberty_is_no_self_atari() -> None:
    game = Go(board_size=9)
    # Black a1 captures b1 and has one liberty left (b1): capture, no penalty
    state = position(game, "c1 b2", "b1 a2")
    assert prior(game, state, "a1") == plus(ONE)


def test_an_atari_escape_gets_its_bonus() -> None:
    game = Go(board_size=9)
    state = position(game, "e5", "d5 f5 e6")  # extending to e4: three liberties
    assert prior(game, state, "e4") == plus(ONE)
    state = position(game, "e5 e4", "d5 f5 d4 f4 e6")  # saves two stones
    assert prior(game, state, "e3") == plus(MANY)
    # White to move escapes too (the rules are the mover's)
    state = position(game, "d5 f5 e6", "e5", to_play="W")
    assert prior(game, state, "e4") == plus(ONE)


def test_an_escape_into_self_atari_gets_the_penalty_not_the_bonus() -> None:
    game = Go(board_size=9)
    state = position(game, "e5", "d5 f5 d4 f4 e6")  # e5-e4 would have e3 only
    assert prior(game, state, "e4") == plus(SELFATARI)


def test_self_atari_gets_the_penalty() -> None:
    game = Go(board_size=9)
    state = position(game, "a9", "d5 f5 e6")  # a single stone into e4-only
    assert prior(game, state, "e5") == plus(SELFATARI)
    # a stone joining e4 (two liberties, not in atari) into a string with e3 only
    state = position(game, "e4", "d4 f4 d5 f5 e6")
    assert prior(game, state, "e5") == plus(SELFATARI)
    assert prior(game, state, "e3") == EVEN  # the other way has liberties


def test_filling_an_own_eye_is_penalised() -> None:
    game = Go(board_size=9)
    state = position(game, "b1 d1 c2 b3", "j9")  # c1: Black's one-point eye
    assert prior(game, state, "c1") == plus(OWN_EYE)
    assert prior_table(position(game, "j9", "b1 d1 c2 b3", to_play="W"))[point(game, "c1")] == plus(
        OWN_EYE
    )
    # a White stone on b2 makes it a false eye (on the edge: no diagonal enemy)
    state = position(game, "b1 d1 c2 b3", "b2")
    assert prior(game, state, "c1") == EVEN


# --- patterns and distances around the last move ----------------------------------------


def test_mogo_patterns_around_the_last_move() -> None:
    """White's e5 beside Black's d5 (the heavy playout's test): the hane points d4, d6,
    e4, e6 match for Black; distances from e5: e4, e6, f5 at 1 (beside it), d4, d6, f4,
    f6, c5 at 2 (beside d5, one node away)."""
    game = Go(board_size=9)
    state = position(game, "d5", "", last="e5")
    for name in ("e4", "e6"):
        assert prior(game, state, name) == plus(PAT3, cfg(1)), name
    for name in ("d4", "d6"):
        assert prior(game, state, name) == plus(PAT3, cfg(2)), name
    assert prior(game, state, "f5") == plus(cfg(1))
    for name in ("f4", "f6", "c5"):
        assert prior(game, state, name) == plus(cfg(2)), name
    # the same neighbourhoods after a pass: neither a pattern nor a distance
    quiet = position(game, "d5", "e5")
    for name in ("e4", "d4", "f5"):
        assert prior(game, quiet, name) == EVEN, name


def test_cfg_distance_runs_along_strings_at_no_cost() -> None:
    """White's e5 joins c5-d5: b5 is next to the last move's string (distance 1, three
    points from e5); a step costs 1 but crossing Black's string e6-e8 costs nothing:
    e9 is at 2."""
    game = Go(board_size=9)
    state = position(game, "e6 e7 e8", "c5 d5", to_play="B", last="e5")
    n, w = game.board_size, game.board_size + 2
    dist = cfg_distances(
        state.array,
        game.params,
        (point(game, "e5") // n + 1) * w + point(game, "e5") % n + 1,
        np.zeros(w * w, dtype=np.int64),
        np.zeros(w * w, dtype=np.int64),
    )

    def d(name: str) -> int:
        a = point(game, name)
        return int(dist[(a // n + 1) * w + a % n + 1])

    assert [d(p) for p in ("c5", "d5", "e5")] == [0, 0, 0]
    assert [d(p) for p in ("b5", "c4", "c6", "d4", "d6", "e4", "f5", "e6", "e8")] == [1] * 9
    assert [d(p) for p in ("a5", "b4", "b6", "e9", "d8", "f8", "d7", "f7")] == [2] * 8
    assert [d(p) for p in ("a4", "a6", "b3", "d9", "f9", "c8")] == [3] * 6
    assert d("a3") == d("a2") == d("h1") == CFG_FAR
    assert prior(game, state, "b5") == plus(cfg(1))
    assert prior(game, state, "b4") == plus(cfg(2))
    assert prior(game, state, "e9") == plus(cfg(2))
    assert prior(game, state, "a4") == plus(cfg(3))
    assert prior(game, state, "h1") == plus(LOW_EMPTY)  # beyond 3, nothing near: edge
    assert prior(game, state, "g2") == plus(LOW_EMPTY)  # f5 is 3+2 away, e5 too


# --- the kernel's contract ------------------------------------------------------------


def test_knowledge_writes_every_action_reads_only_and_is_deterministic() -> None:
    game = Go(board_size=9)
    state = position(game, "d5 f5 e4 c3", "e5 g7", last="f4")
    k = game.info.num_actions
    before = state.array.copy()
    visits = np.full(k + 3, -1, dtype=np.int64)
    wins = np.full(k + 3, -1, dtype=np.int64)
    knowledge(state.array, game.params, visits, wins)
    assert np.array_equal(state.array, before)
    assert (visits[:k] >= PRIOR_EVEN).all() and (wins[:k] >= 0).all()
    assert (wins[:k] <= visits[:k]).all()
    assert (visits[k:] == -1).all() and (wins[k:] == -1).all()  # nothing past the actions
    legal = set(state.legal_actions())
    for a in range(k):  # illegal points (stones) hold the even prior
        if a not in legal:
            assert (visits[a], wins[a]) == EVEN
    again = prior_table(state)
    assert again == [(int(x), int(y)) for x, y in zip(visits[:k], wins[:k], strict=True)]
    assert prior_table(state) == again


def test_prior_table_refuses_a_finished_game() -> None:
    game = Go(board_size=9)
    state = game.state_from_actions([81, 81])
    with pytest.raises(InvalidConfigError):
        prior_table(state)


# --- random positions against a plain-Python oracle --------------------------------------


class Board:
    """The board of a state read through the public API, its strings by flood fill."""

    def __init__(self, game: Go, state: KernelState) -> None:
        self.n = n = game.board_size
        self.colour = {(a // n, a % n): game.colour_at(state, a) for a in range(n * n)}

    def at(self, r: int, c: int) -> int:
        return self.colour.get((r, c), 3)  # 3: off the board

    def neighbours(self, r: int, c: int) -> list[tuple[int, int]]:
        return [p for p in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)) if p in self.colour]

    def string(self, p: tuple[int, int]) -> tuple[set[tuple[int, int]], set[tuple[int, int]]]:
        """The stones of the string on ``p`` and its liberties."""
        colour = self.colour[p]
        stones, libs, todo = {p}, set(), [p]
        while todo:
            for q in self.neighbours(*todo.pop()):
                if self.colour[q] == 0:
                    libs.add(q)
                elif self.colour[q] == colour and q not in stones:
                    stones.add(q)
                    todo.append(q)
        return stones, libs


def oracle_distances(board: Board, start: tuple[int, int]) -> dict[tuple[int, int], int]:
    """Common-fate-graph distances by 0-1 BFS: a step costs 0 between stones of one
    colour (one string), else 1."""
    dist = {start: 0}
    todo = deque([start])
    while todo:
        p = todo.popleft()
        for q in board.neighbours(*p):
            same = board.colour[p] != 0 and board.colour[q] == board.colour[p]
            d = dist[p] + (0 if same else 1)
            if d < dist.get(q, 1 << 30):
                dist[q] = d
                (todo.appendleft if same else todo.append)(q)
    return dist


def oracle_own_eye(board: Board, r: int, c: int, colour: int) -> bool:
    if any(board.at(*q) != colour for q in board.neighbours(r, c)):
        return False
    diagonals = [board.at(r + dr, c + dc) for dr in (-1, 1) for dc in (-1, 1)]
    return diagonals.count(3 - colour) + (3 in diagonals) < 2


def oracle_parts(
    game: Go, state: KernelState, board: Board, dist: dict[tuple[int, int], int], a: int
) -> dict[str, tuple[int, int]]:
    """The rules that apply to legal point ``a`` and their ``(visits, wins)``, from the
    board alone (and the board after the move, by the rules' apply_action, for the
    liberties of the mover's string); ``dist``: the distances from the last move."""
    n, player = game.board_size, state.current_player()
    colour = player + 1
    p = r, c = divmod(a, n)
    parts: dict[str, tuple[int, int]] = {}
    captured = saved = 0
    seen: list[set[tuple[int, int]]] = []
    for q in board.neighbours(*p):
        if board.colour[q] in (1, 2) and not any(q in s for s in seen):
            stones, libs = board.string(q)
            seen.append(stones)
            if libs == {p}:
                if board.colour[q] == colour:
                    saved += len(stones)
                else:
                    captured += len(stones)
    child = state.clone()
    child.apply_action(a)
    assert child.array[6 + player] - state.array[6 + player] == captured
    libs_after = len(Board(game, child).string(p)[1])
    if captured:
        parts["capture many" if captured >= 2 else "capture one"] = MANY if captured >= 2 else ONE
    if saved and libs_after >= 2:
        parts["escape many" if saved >= 2 else "escape one"] = MANY if saved >= 2 else ONE
    if not captured and libs_after == 1:
        parts["self-atari"] = SELFATARI
    if oracle_own_eye(board, r, c, colour):
        parts["own eye"] = OWN_EYE
    last = state.history()[-1] if state.history() else n * n
    if last != n * n and max(abs(r - last // n), abs(c - last % n)) == 1:
        rows = tuple(
            "".join(".XO#"[board.at(rr, cc)] for cc in (c - 1, c, c + 1))
            for rr in (r + 1, r, r - 1)
        )
        if pattern_matches(rows, player):
            parts["pattern"] = PAT3
    if 1 <= dist.get(p, CFG_FAR) <= len(PRIOR_CFG):
        parts[f"distance {dist[p]}"] = cfg(dist[p])
    height = min(r, c, n - 1 - r, n - 1 - c)
    empty = all(
        board.at(r + dr, c + dc) in (0, 3)
        for dr in range(-3, 4)
        for dc in range(-3, 4)
        if abs(dr) + abs(dc) <= 3
    )
    if height <= 2 and empty:
        parts["empty area"] = HIGH_EMPTY if height == 2 else LOW_EMPTY
    return parts


def oracle_table(game: Go, state: KernelState) -> tuple[list[tuple[int, int]], set[str]]:
    """Every rule of the module's docstring, from the board alone; the rules met."""
    n, pas = game.board_size, game.board_size**2
    board = Board(game, state)
    last = state.history()[-1] if state.history() else pas
    dist = oracle_distances(board, divmod(last, n)) if last != pas else {}
    table = [EVEN] * (pas + 1)
    met: set[str] = set()
    for a in state.legal_actions():
        if a != pas:
            parts = oracle_parts(game, state, board, dist, a)
            table[a] = plus(*parts.values())
            met |= set(parts)
    return table, met


def random_positions(game: Go, seed: int, heavy: bool, every: int) -> list[KernelState]:
    """Every ``every``-th position of a game of heavy or light playout moves (a random
    legal move one time in five, for captures, self-ataris and own eyes filled)."""
    rng = Rng(seed)
    state = game.new_initial_state()
    found = []
    while not state.is_terminal():
        if len(state.history()) % every == 0:
            found.append(state.clone())
        drawn: int | None
        if rng.randint(5) == 0:
            legal = state.legal_actions()
            drawn = legal[rng.randint(len(legal))]
        else:
            drawn = state.heavy_action(rng) if heavy else state.light_action(rng)
        assert drawn is not None
        state.apply_action(drawn)
    return found


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 2**32), st.booleans(), st.sampled_from([9, 13]))
def test_random_positions_match_a_plain_python_oracle(seed: int, heavy: bool, size: int) -> None:
    """Positions of games from any seed, heavy or light moves, simple ko or superko:
    the bounds on every action, the even prior on the pass and the illegal points, and
    the kernel's table equal to the oracle's."""
    game = Go(board_size=size, ko="simple" if seed % 2 else "superko")
    for state in random_positions(game, seed, heavy, every=5 if size == 9 else 11):
        table = prior_table(state)
        legal = set(state.legal_actions())
        for a, (visits, wins) in enumerate(table):
            assert visits >= PRIOR_EVEN and 0 <= wins <= visits
            if a not in legal or a == size * size:
                assert (visits, wins) == EVEN
        assert table == oracle_table(game, state)[0]


@pytest.mark.parametrize("size", [9, 13])
def test_fixed_random_games_match_the_oracle_and_meet_every_rule(size: int) -> None:
    """The oracle over every third position of games from fixed seeds, and every rule
    met on them (so that the comparison is not vacuous)."""
    game = Go(board_size=size)
    met: set[str] = set()
    for seed in range(4 if size == 9 else 2):
        for state in random_positions(game, seed, heavy=seed % 2 == 0, every=3):
            want, rules = oracle_table(game, state)
            assert prior_table(state) == want
            met |= rules
    assert met == {
        "capture one",
        "capture many",
        "escape one",
        "escape many",
        "self-atari",
        "own eye",
        "pattern",
        "distance 1",
        "distance 2",
        "distance 3",
        "empty area",
    }
