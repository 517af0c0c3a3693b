"""Morpion Solitaire: the literature's counts, a hand-checked game, the rules against an
independent pure-Python implementation on random games, invariants of the drawn lines,
the conformance checker, names and drawings.

OpenSpiel's variant is matched with pyspiel in ``test_morpion_openspiel.py``."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter
from itertools import combinations

import numpy as np
import pytest

from mctslab.core.errors import IllegalActionError, InvalidConfigError
from mctslab.core.game import TERMINAL
from mctslab.core.rng import Rng
from mctslab.core.testing import check_game
from mctslab.games.kernels import KernelState
from mctslab.games.morpion import DIRECTIONS, Morpion, greek_cross, to_svg, to_text

Point = tuple[int, int]
STEPS = {0: (1, 0), 1: (0, 1), 2: (1, 1), 3: (-1, 1)}  # E, S, SE, SW; row 0 on top

# The 5T/5D starting cross as every source draws it (Boyer, morpionsolitaire.com).
CROSS_5 = """
...XXXX...
...X..X...
...X..X...
XXXX..XXXX
X........X
X........X
XXXX..XXXX
...X..X...
...X..X...
...XXXX...
"""


class Reference:
    """The rules as the literature states them, apart from the kernels: a set of points
    and the drawn lines as sets of points. A move is ``L`` consecutive points in a row,
    column or diagonal, exactly one of them new; it may share at most one point (T) or
    no point (D) with any drawn line of the same direction. ``size`` bounds the grid
    (``None``: unbounded paper)."""

    def __init__(self, length: int, touching: bool, points: set[Point], size: int | None) -> None:
        self.length, self.touching, self.size = length, touching, size
        self.points = set(points)
        self.lines: dict[int, list[frozenset[Point]]] = {d: [] for d in STEPS}

    def on_grid(self, p: Point) -> bool:
        return self.size is None or (0 <= p[0] < self.size and 0 <= p[1] < self.size)

    def line(self, start: Point, d: int) -> list[Point]:
        dx, dy = STEPS[d]
        return [(start[0] + i * dx, start[1] + i * dy) for i in range(self.length)]

    def legal(self) -> set[tuple[frozenset[Point], int]]:
        """Every legal move as (its points, its direction)."""
        found = set()
        shared = 1 if self.touching else 0  # the most points a parallel line may share
        for x, y in self.points:
            for d, (dx, dy) in STEPS.items():
                for back in range(self.length):
                    pts = self.line((x - back * dx, y - back * dy), d)
                    if not all(self.on_grid(p) for p in pts):
                        continue
                    if sum(p not in self.points for p in pts) != 1:
                        continue
                    line = frozenset(pts)
                    if all(len(line & other) <= shared for other in self.lines[d]):
                        found.add((line, d))
        return found

    def play(self, line: frozenset[Point], d: int) -> Point:
        (new,) = line - self.points
        self.points.add(new)
        self.lines[d].append(line)
        return new


def reference_of(game: Morpion, size: int | None) -> Reference:
    start = game.new_initial_state()
    return Reference(game.length, game.touching, set(game.points(start)), size)


def moves_of(game: Morpion, state: KernelState) -> set[tuple[frozenset[Point], int]]:
    return {
        (frozenset(game.line_points(a)), game.line_of_action(a)[2]) for a in state.legal_actions()
    }


def play_named(game: Morpion, state: KernelState, name: str) -> None:
    state.apply_action(state.string_to_action(name))


# --- the literature's counts ----------------------------------------------------------


def test_the_cross_is_the_literatures() -> None:
    want = {
        (x, y)
        for y, row in enumerate(CROSS_5.strip().splitlines())
        for x, c in enumerate(row)
        if c == "X"
    }
    assert set(greek_cross(5)) == want and len(want) == 36
    assert len(greek_cross(4)) == 24


@pytest.mark.parametrize("variant", ["5T", "5D"])
def test_28_moves_from_the_cross(variant: str) -> None:
    """28 first moves: 12 horizontal, 12 vertical, 2 on each diagonal (the literature's
    count), and the same set as a brute force over every line of the grid."""
    game = Morpion(variant)
    state = game.new_initial_state()
    legal = state.legal_actions()
    assert len(legal) == 28
    by_direction = Counter(DIRECTIONS[game.line_of_action(a)[2]] for a in legal)
    assert by_direction == {"E": 12, "S": 12, "SE": 2, "SW": 2}
    points = set(game.points(state))
    brute = set()
    for y in range(game.size):
        for x in range(game.size):
            for dx, dy in STEPS.values():
                pts = [(x + i * dx, y + i * dy) for i in range(5)]
                if sum(p not in points for p in pts) == 1:
                    brute.add(frozenset(pts))
    assert {frozenset(game.line_points(a)) for a in legal} == brute


@pytest.mark.parametrize("variant", ["4T", "4D", "openspiel"])
def test_40_moves_from_the_small_cross(variant: str) -> None:
    assert len(Morpion(variant).new_initial_state().legal_actions()) == 40


def test_the_cross_is_centred() -> None:
    game = Morpion("5T")
    state = game.new_initial_state()
    assert game.size == 32 and game.bounding_box(state) == (11, 20, 11, 20)
    assert not game.touches_border(state)
    assert Morpion("openspiel").bounding_box(Morpion("openspiel").new_initial_state()) == (
        3,
        9,
        3,
        9,
    )


# --- a hand-checked game ----------------------------------------------------------


def test_a_hand_checked_sequence() -> None:
    """On the cross's row y = 14 (points x = 11..14 and 17..20): extending the left arm
    to (15, 14) leaves (15..19, 14), which touches it at (15, 14), legal in 5T only;
    (16..20, 14) is legal in both, (12..16, 14) overlaps it in both."""
    t, d = Morpion("5T"), Morpion("5D")
    st, sd = t.new_initial_state(), d.new_initial_state()
    for game, state in ((t, st), (d, sd)):
        play_named(game, state, "(11,14) E")
        assert game.points(state)[(15, 14)] == 1
        # Of the 28 first moves, the one played and (10..14, 14) (now overlapping) are
        # gone; no other line through (15, 14) holds four points.
        names = {state.action_to_string(a) for a in state.legal_actions()}
        assert "(16,14) E" in names
        assert "(12,14) E" not in names
    assert len(st.legal_actions()) == 27 and len(sd.legal_actions()) == 26
    assert "(15,14) E" in {st.action_to_string(a) for a in st.legal_actions()}
    assert "(15,14) E" not in {sd.action_to_string(a) for a in sd.legal_actions()}
    with pytest.raises(IllegalActionError):
        play_named(d, sd, "(15,14) E")
    play_named(t, st, "(15,14) E")  # adds (16, 14): the row is full from 11 to 20
    assert t.points(st)[(16, 14)] == 2 and t.score(st) == 2
    names = {st.action_to_string(a) for a in st.legal_actions()}
    assert not any(n.endswith(",14) E") for n in names)
    assert "  o---o---o---o---1---2---o---o---o   o" in to_text(st)
    assert [(m, st.action_to_string(a), p) for m, a, p in t.lines(st)] == [
        (1, "(11,14) E", (15, 14)),
        (2, "(15,14) E", (16, 14)),
    ]
    assert st.returns() == [0.0]  # before the end
    assert not st.is_terminal()


def test_terminal_returns_the_score() -> None:
    game = Morpion("5D")
    state = game.new_initial_state()
    rng = Rng(3)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    assert state.current_player() == TERMINAL
    assert state.returns() == [float(len(state.history()))] == [float(game.score(state))]
    assert state.heuristic() == [2.0 * game.score(state) / game.info.max_utility - 1.0]


# --- the rules against the reference -------------------------------------------------


@pytest.mark.parametrize(("variant", "n_games"), [("5T", 50), ("5D", 50), ("4T", 60), ("4D", 60)])
def test_random_games_match_the_reference(variant: str, n_games: int) -> None:
    """At every step the same legal moves and the same new point as the unbounded
    reference (no game reaches the border of the 32 x 32 grid, so they agree)."""
    game = Morpion(variant)
    for seed in range(n_games):
        rng = Rng(seed)
        ref = reference_of(game, None)
        state = game.new_initial_state()
        while True:
            want = ref.legal()
            assert moves_of(game, state) == want, f"{variant} seed {seed}: {state.history()}"
            if not want:
                assert state.is_terminal()
                break
            action = rng.choice(state.legal_actions())
            line = frozenset(game.line_points(action))
            new = ref.play(line, game.line_of_action(action)[2])
            state.apply_action(action)
            assert game.points(state)[new] == len(state.history())
        assert not game.touches_border(state)
        assert set(game.points(state)) == ref.points


def test_a_small_grid_bounds_the_lines() -> None:
    """On a grid one point wider than the cross, lines stop at its edge: the bounded
    reference agrees at every step."""
    game = Morpion("5T", size=12)
    for seed in range(30):
        rng = Rng(seed)
        ref = reference_of(game, 12)
        state = game.new_initial_state()
        while not state.is_terminal():
            assert moves_of(game, state) == ref.legal(), f"seed {seed}: {state.history()}"
            action = rng.choice(state.legal_actions())
            ref.play(frozenset(game.line_points(action)), game.line_of_action(action)[2])
            state.apply_action(action)
        assert ref.legal() == set()


def _playout_states(game: Morpion, n: int, seed: int) -> list[KernelState]:
    """``n`` random games played by the game's playout kernel (its lines are read back
    from the cells)."""
    start = game.new_initial_state().array
    word = np.array([seed], dtype=np.uint64)
    out = np.zeros(1)
    states = []
    for _ in range(n):
        array = start.copy()
        game.kernels.playout(array, game.params, word, out)  # type: ignore[misc]
        states.append(KernelState(game, array, []))
    return states


@pytest.mark.parametrize("variant", ["5T", "5D", "4T", "4D"])
def test_playouts_draw_lines_the_rules_allow(variant: str) -> None:
    """Over the line list of random playouts: every line is ``L`` consecutive points,
    its new point added by its move and the others before it; in D no two lines of one
    direction share a point, in T none share two."""
    game = Morpion(variant)
    shared = 1 if game.touching else 0
    for state in _playout_states(game, 300, seed=11):
        points = game.points(state)
        lines = game.lines(state)
        assert [m for m, _, _ in lines] == list(range(1, game.score(state) + 1))
        by_direction: dict[int, list[set[Point]]] = {d: [] for d in STEPS}
        for move, action, new in lines:
            pts = game.line_points(action)
            x, y, d = game.line_of_action(action)
            assert pts == [(x + i * STEPS[d][0], y + i * STEPS[d][1]) for i in range(game.length)]
            assert new in pts and points[new] == move
            assert all(points[p] < move for p in pts if p != new)
            by_direction[d].append(set(pts))
        for group in by_direction.values():
            for a, b in combinations(group, 2):
                assert len(a & b) <= shared
        assert len(points) == len(greek_cross(game.length)) + game.score(state)
        assert state.legal_actions() == [] and state.is_terminal()


# --- conformance, encodings, names, drawings -------------------------------------------


@pytest.mark.parametrize(("variant", "n_games"), [("5T", 20), ("5D", 20), ("4T", 20), ("4D", 20)])
def test_check_game(variant: str, n_games: int) -> None:
    assert check_game(Morpion(variant), n_games=n_games, seed=1) > 0


def test_check_game_on_a_small_grid() -> None:
    assert check_game(Morpion("5D", size=13), n_games=10, seed=2) > 0


def test_game_info() -> None:
    for variant, top in (("5T", 485), ("5D", 121), ("4T", 62), ("4D", 35), ("openspiel", 35)):
        info = Morpion(variant).info
        assert info.num_players == 1 and not info.zero_sum
        assert info.max_game_length == top and (info.min_utility, info.max_utility) == (0, top)
    assert Morpion("5T").info.num_actions == 32 * 32 * 4
    assert Morpion("5T", size=12).info.max_game_length == 12 * 12 - 36
    assert Morpion("openspiel").info.num_actions == 460


def test_actions_are_lines_from_their_lowest_point() -> None:
    game = Morpion("5T")
    for action in range(game.info.num_actions):
        x, y, d = game.line_of_action(action)
        assert action == (y * 32 + x) * 4 + d
        back = game.action_of_line(x, y, d)
        assert back is None or back == action
    assert game.action_of_line(30, 0, 0) is None  # (30..34, 0) leaves the grid
    assert game.action_of_line(2, 0, 3) is None
    assert game.action_of_line(4, 0, 3) == 4 * 4 + 3


def test_move_codes_are_the_actions() -> None:
    game = Morpion("5T")
    state = game.new_initial_state()
    code = game.kernels.move_code
    assert code is not None and game.num_move_codes() == game.info.num_actions
    assert all(code(state.array, game.params, a) == a for a in state.legal_actions())


def test_names_parse_back() -> None:
    game = Morpion("5T")
    state = game.new_initial_state()
    for a in state.legal_actions():
        name = state.action_to_string(a)
        assert state.string_to_action(name) == a
        assert state.string_to_action(name.replace(") ", ") dir ").lower()) == a
    a = state.string_to_action("(11,14) E")
    assert game.line_points(a) == [(11 + i, 14) for i in range(5)]
    # OpenSpiel's form: the points as [row,col], in any order
    assert state.string_to_action("[14,15] [14,11] [14,12] [14,13] [14,14]") == a
    for bad in (
        "(11,14) N",
        "(30,0) E",
        "(1,2)",
        "[14,11] [14,12]",
        "[0,0] [0,1] [0,2] [0,3] [0,5]",
    ):
        with pytest.raises(IllegalActionError):
            state.string_to_action(bad)


def test_drawings() -> None:
    game = Morpion("5T")
    state = game.new_initial_state()
    rng = Rng(5)
    for _ in range(12):
        state.apply_action(rng.choice(state.legal_actions()))
    text = to_text(state)
    assert text.count("o") == 36 and all(str(m) in text for m in range(1, 13))
    assert str(state).startswith(text) and "score 12" in str(state)
    svg = ET.fromstring(to_svg(state))
    ns = "{http://www.w3.org/2000/svg}"
    assert len(svg.findall(f".//{ns}line")) == 12
    assert sorted(int(t.text or "") for t in svg.findall(f".//{ns}text")) == list(range(1, 13))
    with pytest.raises(InvalidConfigError):
        to_svg(object())  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"variant": "5X"},
        {"variant": "5t"},
        {"size": 9},
        {"size": 65},
        {"size": True},
        {"size": 20.0},
        {"variant": "openspiel", "size": 15},
    ],
)
def test_bad_parameters(kwargs: dict[str, object]) -> None:
    with pytest.raises(InvalidConfigError):
        Morpion(**kwargs)  # type: ignore[arg-type]


def test_the_published_5d_record_game_is_legal_by_an_independent_check() -> None:
    """The best 5D game of ``benchmarks/results/morpion.json`` (the record run's, published
    in docs/morpion.md) replayed by a checker written from the rules alone, not the
    kernels: from the 36-point cross, every move's line of 5 points has exactly one new
    point and shares no point with an earlier line of its direction (5D: disjoint); the
    game's own replay ends there with that score."""
    import json
    from pathlib import Path

    results = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "morpion.json"
    part = json.loads(results.read_text())["5D"]
    moves = part["best_moves"]
    game = Morpion("5D")
    points = set(game.points(game.new_initial_state()))
    assert len(points) == 36
    steps = [(1, 0), (0, 1), (1, 1), (-1, 1)]
    used: dict[int, set[tuple[int, int]]] = {d: set() for d in range(4)}
    for a in moves:
        x, y, d = game.line_of_action(a)
        line = {(x + k * steps[d][0], y + k * steps[d][1]) for k in range(5)}
        new = line - points
        assert len(new) == 1 and not line & used[d]
        used[d] |= line
        points |= new
    final = game.state_from_actions(moves)
    assert final.is_terminal() and final.returns()[0] == part["best"] == len(moves) >= 80
