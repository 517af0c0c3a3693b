"""Go's learned move patterns (Coulom 2007's generalized Bradley-Terry model): the 3x3
classes, the features of known positions, random positions against a plain-Python
oracle of every feature and of the gammas' product, MM on synthetic data, the shipped
model file and its card.

Positions are written as the moves of the game, ``"e5 d4 pass e4"``, Black first."""

from __future__ import annotations

import math
from collections import deque
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest

from mctslab.core.errors import InvalidConfigError
from mctslab.core.rng import Rng
from mctslab.games.go.game import Go
from mctslab.games.go.learned import (
    FAMILIES,
    FAMILY_OFFSETS,
    FAMILY_SIZES,
    LEVELS,
    PAT3_CLASS,
    PAT3_CLASSES,
    PAT3_CODES,
    PRIOR_LARGEPATTERN,
    PRIOR_LARGEPATTERN_MIN,
    Competitions,
    PatternModel,
    before_last_point,
    competitions,
    load_patterns,
    log_likelihood,
    mm_train,
    mm_update,
    move_features,
    move_gammas,
    move_probabilities,
    pattern_priors,
    prediction_rates,
    save_patterns,
)
from mctslab.games.go.patterns import PAT_CELLS
from mctslab.games.go.priors import knowledge, prior_table
from mctslab.games.kernels import KernelState

GAME = Go(board_size=9)
GAME_243 = Go(board_size=9, max_game_length=243)  # the stored games' length limit
N = 9
PASS = N * N
FAMILY = {name: i for i, name in enumerate(FAMILIES)}


def point(name: str) -> int:
    action = GAME.parse_action(GAME.new_initial_state(), name)
    assert action is not None
    return action


def play(moves: str, game: Go = GAME) -> KernelState:
    state = game.new_initial_state()
    for name in moves.split():
        state.apply_action(game.parse_action(state, name))  # type: ignore[arg-type]
    return state


def features(state: KernelState, game: Go = GAME) -> np.ndarray:
    n = game.board_size
    out = np.empty((n * n + 1, len(FAMILIES)), dtype=np.int64)
    move_features(state.array, game.params, PAT3_CLASS, out)
    return out


def level(state: KernelState, name: str, family: str) -> int:
    return int(features(state)[point(name), FAMILY[family]])


# --- the 3x3 classes ---------------------------------------------------------------------


def grid_code(grid: np.ndarray) -> int:
    """The pattern code of a 3x3 grid of colours (its centre ignored)."""
    return sum(int(grid[r, c]) << (2 * i) for i, (r, c) in enumerate(PAT_CELLS))


def grid_of(code: int) -> np.ndarray:
    grid = np.zeros((3, 3), dtype=np.int64)
    for i, (r, c) in enumerate(PAT_CELLS):
        grid[r, c] = (code >> (2 * i)) & 3
    return grid


def images(grid: np.ndarray) -> list[np.ndarray]:
    """The 8 rotations and reflections of a grid, by numpy (not the module's permutations)."""
    return [np.rot90(g, k) for g in (grid, grid.T) for k in range(4)]


def swapped(grid: np.ndarray) -> np.ndarray:
    return np.where(grid == 1, 2, np.where(grid == 2, 1, grid))


def test_pattern_classes_count_the_orbits_of_the_board_neighbourhoods() -> None:
    """Burnside's count of the 3x3 neighbourhoods up to the square's symmetries: 954
    away from the edge (3^8 colourings), 135 on a side, 18 in a corner."""
    assert PAT3_CLASSES == 954 + 135 + 18 == len(PAT3_CODES)
    assert np.all(np.diff(PAT3_CODES) > 0)
    assert sorted(set(PAT3_CLASS.tolist())) == list(range(PAT3_CLASSES + 1))
    # each class's code is the smallest of its images
    for code in PAT3_CODES[::37]:
        assert int(code) == min(grid_code(g) for g in images(grid_of(int(code))))


def test_a_pattern_its_images_and_its_colour_swap_share_one_class() -> None:
    rng = np.random.default_rng(1)
    edges = [np.s_[0, :], np.s_[:, 2], np.s_[2, :], np.s_[:, 0]]
    for t in range(300):
        grid = rng.integers(0, 3, size=(3, 3))
        if t % 3 == 1:
            grid[edges[t % 4]] = 3
        elif t % 3 == 2:
            grid[edges[t % 4]] = 3
            grid[edges[(t + 1) % 4]] = 3
        want = PAT3_CLASS[grid_code(grid)]  # Black to move
        assert want > 0
        for g in images(grid):
            assert PAT3_CLASS[grid_code(g)] == want
            # White to move with the colours exchanged: the same neighbourhood for the mover
            assert PAT3_CLASS[(1 << 16) | grid_code(swapped(g))] == want
        # the colours exchanged for the same mover: another class unless symmetric
        other = PAT3_CLASS[grid_code(swapped(grid))]
        same = any(grid_code(g) == grid_code(swapped(grid)) for g in images(grid))
        assert (other == want) == same


def test_codes_no_board_point_has_are_class_zero() -> None:
    all_guards = 0xFFFF
    assert PAT3_CLASS[all_guards] == 0
    one_guard = 3  # a lone off-board diagonal
    assert PAT3_CLASS[one_guard] == 0


# --- features of known positions ------------------------------------------------------------


def test_empty_board_lines_and_no_distances() -> None:
    table = features(GAME.new_initial_state())
    for a in range(PASS):
        r, c = divmod(a, N)
        height = min(r, c, N - 1 - r, N - 1 - c)
        want = height + 1 if height < 3 else 0
        assert table[a, FAMILY["line"]] == want
        assert list(table[a, :8]) == [0, 0, 0, 0, 0, 0, 0, want]
    assert list(table[PASS]) == [1, 0, 0, 0, 0, 0, 0, 0, 0]
    # the empty neighbourhood: the centre, a side and a corner are three classes
    pats = {int(table[point(p), FAMILY["pat3"]]) for p in ("e5", "e1", "a1", "a9", "j5")}
    assert len(pats) == 3


def test_a_capture_of_one_and_of_two_stones() -> None:
    # White's e5 in atari at e6 (Black d5 f5 e4), Black to move
    state = play("d5 e5 f5 pass e4 a9")
    assert level(state, "e6", "capture") == 1
    assert level(state, "e3", "capture") == 0
    state = play("d5 e5 d6 e6 f5 pass f6 pass e4 a9")  # e5-e6 in atari at e7
    assert level(state, "e7", "capture") == 2


def test_an_atari_escape_and_an_escape_into_self_atari() -> None:
    # Black's e5 in atari (White d5 f5 e6): e4 escapes (3 liberties)
    state = play("e5 d5 a9 f5 a8 e6")
    assert level(state, "e4", "escape") == 1
    assert level(state, "e4", "self_atari") == 0
    # the same with White d4 f4 too: e4 leaves e5-e4 one liberty, no escape
    state = play("e5 d5 a9 f5 a8 d4 a7 f4 a6 e6")
    assert level(state, "e4", "escape") == 0
    assert level(state, "e4", "self_atari") == 1
    # two stones saved
    state = play("e5 d5 e4 f5 a9 d4 a8 f4 a7 e6")
    assert level(state, "e3", "escape") == 2


def test_self_atari_and_atari() -> None:
    state = play("a9 d5 a8 f5 a7 e6")  # Black e5 would have e4 only
    assert level(state, "e5", "self_atari") == 1
    assert level(state, "e5", "capture") == 0
    # a capture that leaves one liberty is no self-atari (a1 takes b1)
    state = play("c1 b1 b2 a2")
    assert level(state, "a1", "capture") == 1 and level(state, "a1", "self_atari") == 0
    # White e5 with two liberties left after d5 f5: e4 or e6 puts it in atari
    state = play("d5 e5 f5 a9")
    assert level(state, "e4", "atari") == 1 and level(state, "e6", "atari") == 1
    assert level(state, "c5", "atari") == 0
    # a string with three liberties is not put in atari
    state = play("d5 e5 a1 a9")
    assert level(state, "f5", "atari") == 0


def test_distances_to_the_last_move_and_the_move_before() -> None:
    """Black c3, White g7, Black to move: g7 is the last move, c3 the one before."""
    state = play("c3 g7")
    assert before_last_point(state.array, GAME.params) == (2 + 1) * 11 + 2 + 1
    for name, want_last, want_before in [
        ("g6", 1, 0),
        ("g5", 2, 0),
        ("f5", 3, 0),
        ("e5", 0, 0),
        ("c4", 0, 1),
        ("d4", 0, 2),
        ("c6", 0, 3),
    ]:
        assert level(state, name, "distance_last") == want_last, name
        assert level(state, name, "distance_before_last") == want_before, name
    # the move before the last was a pass: no such distance
    state = play("pass g7")
    assert before_last_point(state.array, GAME.params) == -1
    assert level(state, "g6", "distance_before_last") == 0
    # the first move: neither
    state = play("e5")
    assert level(state, "e6", "distance_last") == 1
    assert level(state, "e6", "distance_before_last") == 0


def test_the_move_before_the_last_that_captured_counts_as_none() -> None:
    """White's e6 captures Black's e5 (in atari after d5 f5 e4), then Black plays a1:
    the stone of e6 stands but its move captured, so its key is not found."""
    state = play("e5 d5 a9 f5 a8 e4 a7 e6 a1")
    assert before_last_point(state.array, GAME.params) == -1
    assert level(state, "e7", "distance_before_last") == 0
    state = play("e5 d5 a9 f5 a8 e4 a7 e6")  # Black to move: e6 is the last move
    assert level(state, "e7", "distance_last") == 1
    assert level(state, "e5", "distance_last") == -1  # suicide: illegal


def test_pass_levels() -> None:
    assert features(play("e5"))[PASS, 0] == 1
    assert features(play("e5 pass"))[PASS, 0] == 2
    assert list(features(play("e5 pass"))[PASS, 1:]) == [0] * 8


def test_a_finished_game_has_no_features_and_no_gammas() -> None:
    state = play("pass pass")
    assert (features(state) == -1).all()
    model = PatternModel.from_gammas(np.ones(FAMILY_OFFSETS[-1]))
    out = np.ones(PASS + 1)
    move_gammas(state.array, GAME.params, model.table, out)
    assert (out == 0).all()
    with pytest.raises(InvalidConfigError):
        move_probabilities(state, model)


# --- random positions against a plain-Python oracle ----------------------------------------


class Board:
    """The board of a state through the public API, strings by flood fill."""

    def __init__(self, game: Go, state: KernelState) -> None:
        n = game.board_size
        self.n = n
        self.colour = {(a // n, a % n): game.colour_at(state, a) for a in range(n * n)}

    def at(self, r: int, c: int) -> int:
        return self.colour.get((r, c), 3)

    def neighbours(self, r: int, c: int) -> list[tuple[int, int]]:
        return [p for p in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)) if p in self.colour]

    def string(self, p: tuple[int, int]) -> tuple[set[tuple[int, int]], set[tuple[int, int]]]:
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

    def distances(self, start: tuple[int, int]) -> dict[tuple[int, int], int]:
        """Common-fate-graph distances: a step inside a string costs 0, else 1."""
        dist = {start: 0}
        todo = deque([start])
        while todo:
            p = todo.popleft()
            for q in self.neighbours(*p):
                same = self.colour[p] != 0 and self.colour[q] == self.colour[p]
                d = dist[p] + (0 if same else 1)
                if d < dist.get(q, 1 << 30):
                    dist[q] = d
                    (todo.appendleft if same else todo.append)(q)
        return dist


def oracle_class(board: Board, r: int, c: int, player: int) -> int:
    grid = np.array([[board.at(r - 1 + i, c - 1 + j) for j in range(3)] for i in range(3)])
    if player == 1:
        grid = swapped(grid)
    code = min(grid_code(g) for g in images(grid))
    k = int(np.searchsorted(PAT3_CODES, code))
    assert PAT3_CODES[k] == code
    return k + 1


def oracle_stone_distances(game: Go, state: KernelState, back: int) -> dict[tuple[int, int], int]:
    """Distances from the stone of the move ``back`` plies ago (1: the last), if it is
    a stone still standing whose move captured nothing (the module's rule), else none."""
    history = state.history()
    if len(history) < back or history[-back] == game.board_size**2:
        return {}
    a = history[-back]
    before = game.state_from_actions(history[:-back])
    after = game.state_from_actions(history[: len(history) - back + 1])
    mover = before.current_player()
    board = Board(game, state)
    captured = int(after.array[6 + mover]) - int(before.array[6 + mover])
    if board.colour[divmod(a, game.board_size)] != mover + 1 or (back == 2 and captured):
        return {}
    return board.distances(divmod(a, game.board_size))


def oracle_row(game: Go, state: KernelState, board: Board, a: int, dists: list[dict]) -> list[int]:  # type: ignore[type-arg]
    n, player = game.board_size, state.current_player()
    colour = player + 1
    p = r, c = divmod(a, n)
    captured = saved = atari = 0
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
            elif board.colour[q] != colour and len(libs) == 2:
                atari = 1
    child = state.clone()
    child.apply_action(a)
    libs_after = len(Board(game, child).string(p)[1])
    height = min(r, c, n - 1 - r, n - 1 - c)
    row = [0, min(captured, 2), 0, int(not captured and libs_after == 1), atari]
    if saved and libs_after >= 2:
        row[2] = min(saved, 2)
    for dist in dists:
        d = dist.get(p, 99)
        row.append(d if 1 <= d <= 3 else 0)
    row.append(height + 1 if height < 3 else 0)
    row.append(oracle_class(board, r, c, player))
    return row


def oracle_features(game: Go, state: KernelState) -> np.ndarray:
    n = game.board_size
    out = np.full((n * n + 1, len(FAMILIES)), -1, dtype=np.int64)
    board = Board(game, state)
    dists = [oracle_stone_distances(game, state, 1), oracle_stone_distances(game, state, 2)]
    for a in state.legal_actions():
        if a == n * n:
            passed = bool(state.history()) and state.history()[-1] == n * n
            out[a] = [2 if passed else 1, 0, 0, 0, 0, 0, 0, 0, 0]
        else:
            out[a] = oracle_row(game, state, board, a, dists)
    return out


def random_positions(game: Go, seed: int, every: int) -> list[KernelState]:
    """Every ``every``-th position of a game of heavy playout moves, with a random legal
    move one time in four (self-ataris, odd shapes)."""
    rng = Rng(seed)
    state = game.new_initial_state()
    found = []
    while not state.is_terminal():
        if len(state.history()) % every == 0:
            found.append(state.clone())
        if rng.randint(4) == 0:
            legal = state.legal_actions()
            drawn = legal[rng.randint(len(legal))]
        else:
            drawn = state.heavy_action(rng)
        state.apply_action(drawn)
    return found


def random_model(seed: int) -> PatternModel:
    rng = np.random.default_rng(seed)
    return PatternModel.from_gammas(np.exp(rng.normal(0, 1, FAMILY_OFFSETS[-1])))


def test_random_positions_match_the_oracle_and_the_gammas_their_product() -> None:
    """Every third position of four random games (9x9 and 13x13, superko and simple
    ko): the features equal the oracle's, each gamma the product of its features'
    gammas in a random model (0 on an illegal point), the probabilities sum to 1; and
    every level of the small families is met (the comparison is not vacuous)."""
    met = np.zeros(FAMILY_OFFSETS[-1], dtype=bool)
    offsets = np.asarray(FAMILY_OFFSETS[:-1])
    for seed in range(4):
        game = Go(board_size=13 if seed == 3 else 9, ko="simple" if seed % 2 else "superko")
        nn = game.board_size**2
        model = random_model(seed)
        for state in random_positions(game, seed, every=3):
            want = oracle_features(game, state)
            assert np.array_equal(features(state, game), want), game.render(state)
            gammas = np.empty(nn + 1)
            move_gammas(state.array, game.params, model.table, gammas)
            for a in range(nn + 1):
                if want[a, 0] < 0:
                    assert gammas[a] == 0.0
                else:
                    product = math.prod(float(model.gammas[i]) for i in want[a] + offsets)
                    assert gammas[a] == pytest.approx(product, rel=1e-12)
                    met[want[a] + offsets] = True
            p = move_probabilities(state, model)
            assert p.sum() == pytest.approx(1.0) and np.array_equal(p > 0, want[:, 0] >= 0)
    assert met[: FAMILY_OFFSETS[-2]].all()
    assert met[FAMILY_OFFSETS[-2] :].sum() > 300  # pattern classes


# --- MM on synthetic data ---------------------------------------------------------------------


def synthetic(seed: int, positions: int, moves: int) -> tuple[Competitions, np.ndarray]:
    """Competitions of a known generalized Bradley-Terry model: two families of 4 and 5
    levels (level 0 at gamma 1), each move a random level of each, the winner drawn
    from ``gamma_j / sum gamma``."""
    rng = np.random.default_rng(seed)
    sizes = (4, 5)
    true = np.array([1.0, 3.0, 0.5, 8.0, 1.0, 0.2, 2.0, 5.0, 1.5])
    feats = np.stack(
        [rng.integers(0, 4, positions * moves), 4 + rng.integers(0, 5, positions * moves)], axis=1
    ).astype(np.int32)
    strength = true[feats].prod(axis=1).reshape(positions, moves)
    p = strength / strength.sum(axis=1, keepdims=True)
    winners = np.array([rng.choice(moves, p=row) for row in p])
    starts = np.arange(positions + 1, dtype=np.int64) * moves
    chosen = starts[:-1] + winners
    comp = Competitions(feats, starts, chosen, sizes, np.arange(positions, dtype=np.int64))
    return comp, true


def test_each_mm_step_raises_the_log_likelihood_and_the_posterior() -> None:
    comp, _ = synthetic(3, 400, 6)
    for virtual in (0.0, 1.0):
        g = np.ones(9)
        lg = np.zeros(len(comp.features))
        before = log_likelihood(g, comp, virtual)
        for _ in range(5):
            for family in (0, 1):
                mm_update(g, lg, comp, family, virtual)
                after = log_likelihood(g, comp, virtual)
                assert after >= before - 1e-9
                before = after
                assert np.allclose(lg, np.log(g)[comp.features].sum(axis=1))
        assert g[0] == g[4] == 1.0  # level 0 held
    assert log_likelihood(np.ones(9), comp) == pytest.approx(-400 * math.log(6))


def test_mm_recovers_the_gammas_of_a_synthetic_model() -> None:
    comp, true = synthetic(4, 4000, 8)
    g, history = mm_train(comp, sweeps=300, tol=1e-10, virtual=1.0)
    assert all(b >= a - 1e-9 for a, b in pairwise(history))
    assert np.abs(np.log(g) - np.log(true)).max() < 0.2, g


def test_prediction_rates_break_ties_at_random() -> None:
    # two positions: the move played is best (rate 1), then tied with two others
    scores = np.array([3.0, 1.0, 2.0, 5.0, 5.0, 5.0, 1.0])
    starts = np.array([0, 3, 7])
    chosen = np.array([0, 4])
    top1, top2 = prediction_rates(scores, starts, chosen, ks=(1, 2))
    assert top1 == pytest.approx((1 + 1 / 3) / 2)
    assert top2 == pytest.approx((1 + 2 / 3) / 2)


def test_competitions_select_the_positions_and_the_rows() -> None:
    moves = [point("e5"), point("c3"), point("g7"), PASS]
    comp = competitions(GAME, [(moves, [False, True, False, True])])
    assert len(comp.chosen) == 2 and comp.starts[0] == 0
    first = features(play("e5"))
    legal = np.flatnonzero(first[:, 0] >= 0)
    assert comp.starts[1] == len(legal)
    assert np.array_equal(comp.features[: comp.starts[1]], first[legal] + FAMILY_OFFSETS[:-1])
    assert comp.chosen[0] == int(np.searchsorted(legal, point("c3")))
    assert comp.features[comp.chosen[1], 0] == 1  # White's pass
    with pytest.raises(InvalidConfigError):
        competitions(GAME, [([point("e5"), point("e5")], [False, True])])


# --- pattern priors ---------------------------------------------------------------------------


def test_pattern_priors_add_michis_large_pattern_prior() -> None:
    state = play("c3 g7 e5")
    model = random_model(7)
    p = move_probabilities(state, model)
    visits = np.full(PASS + 1, 10.0)
    wins = np.full(PASS + 1, 5.0)
    pattern_priors(state.array, GAME.params, model.table, visits, wins, float(PRIOR_LARGEPATTERN))
    bonus = np.where(p > PRIOR_LARGEPATTERN_MIN, PRIOR_LARGEPATTERN * np.sqrt(p), 0.0)
    assert np.allclose(visits, 10.0 + bonus) and np.allclose(wins, 5.0 + bonus)
    assert (bonus > 0).any() and (bonus == 0).any()
    over = play("pass pass")
    pattern_priors(over.array, GAME.params, model.table, visits, wins, 100.0)
    assert np.allclose(visits, 10.0 + bonus)


def test_a_game_made_with_patterns_adds_their_prior_to_the_hand_made_one() -> None:
    # Go(patterns=s) binds node_priors: priors.knowledge, plus s * sqrt(p) truncated
    # (the search's int64 priors) where the shipped model's p > 0.001.
    game = Go(board_size=9, patterns=60)
    moves = "e5 d4 c3 d6 e4"
    plain, learned = play(moves), play(moves, game)
    hand_visits = np.zeros(PASS + 1, dtype=np.int64)
    hand_wins = np.zeros(PASS + 1, dtype=np.int64)
    knowledge(plain.array, GAME.params, hand_visits, hand_wins)
    p = move_probabilities(plain, load_patterns())
    bonus = np.where(p > PRIOR_LARGEPATTERN_MIN, 60 * np.sqrt(p), 0.0)
    visits, wins = learned.knowledge()
    assert list(visits) == [int(v + b) for v, b in zip(hand_visits, bonus, strict=True)]
    assert list(wins) == [int(w + b) for w, b in zip(hand_wins, bonus, strict=True)]
    assert prior_table(learned) == list(zip(visits.tolist(), wins.tolist(), strict=True))
    assert (bonus >= 1).sum() >= 3
    # the rules are the same game's: moves, legality and hashes do not change
    assert learned.legal_actions() == plain.legal_actions()
    assert learned.array.tolist() == plain.array.tolist()
    assert Go(board_size=9, patterns=0).params.tolist() == GAME.params.tolist()


@pytest.mark.parametrize("value", [-1, 10_001, "many", True, float("nan")])
def test_bad_pattern_scales_are_refused(value: object) -> None:
    with pytest.raises(InvalidConfigError, match="patterns"):
        Go(board_size=9, patterns=value)  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [2, "yes", None, 0.5])
def test_bad_pattern_playouts_are_refused(value: object) -> None:
    with pytest.raises(InvalidConfigError, match="pattern_playouts"):
        Go(board_size=9, pattern_playouts=value)  # type: ignore[arg-type]


# --- the model file ---------------------------------------------------------------------------


def test_the_shipped_model_loads_and_its_card_matches_a_recomputation() -> None:
    model = load_patterns()
    assert model.gammas.shape == (FAMILY_OFFSETS[-1],)
    assert model.table.shape == ((2 << 16) + FAMILY_OFFSETS[-1],)
    assert np.all(model.gammas[list(FAMILY_OFFSETS[:-1])] == 1.0)
    card = model.card
    for key in ("command", "date", "data", "held_out", "training", "check"):
        assert key in card
    assert card["families"] == dict(zip(FAMILIES, FAMILY_SIZES, strict=True))
    held = card["held_out"]
    assert held["model"]["all"]["top1"] > held["knowledge_mean"]["all"]["top1"]
    assert held["model"]["all"]["top1"] > held["uniform"]["all"]["top1"]
    check = card["check"]
    comp = competitions(GAME_243, [(g["moves"], g["teacher"]) for g in check["games"]])
    assert len(comp.chosen) == check["positions"]
    lg = np.log(model.gammas)[comp.features].sum(axis=1)
    top1, top5 = prediction_rates(lg, comp.starts, comp.chosen)
    assert (top1, top5) == pytest.approx((check["top1"], check["top5"]))
    assert log_likelihood(model.gammas, comp) == pytest.approx(check["log_likelihood"])


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    gammas = random_model(5).gammas
    path = tmp_path / "m.npz"
    save_patterns(path, gammas)
    model = load_patterns(path)
    assert np.array_equal(model.gammas, gammas) and model.card == {}
    assert np.array_equal(model.table[: 2 << 16], gammas[FAMILY_OFFSETS[-2] + PAT3_CLASS])


def test_a_file_with_pickled_objects_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "evil.npz"
    good = dict(np.load(_saved(tmp_path), allow_pickle=False))
    good["gammas"] = np.array([{"not": "data"}], dtype=object)
    np.savez(path, **good)
    with pytest.raises(InvalidConfigError):
        load_patterns(path)
    with pytest.raises(ValueError):  # InvalidConfigError is a ValueError
        load_patterns(path)


def _saved(tmp_path: Path) -> Path:
    path = tmp_path / "good.npz"
    save_patterns(path, np.ones(FAMILY_OFFSETS[-1]))
    return path


def test_files_of_another_layout_or_no_file_are_refused(tmp_path: Path) -> None:
    good = dict(np.load(_saved(tmp_path), allow_pickle=False))
    for key, value in [
        ("family_sizes", np.array([*FAMILY_SIZES[:-1], 5])),
        ("pat3_class", np.zeros(2 << 16, dtype=np.int32)),
        ("format", np.array([99])),
        ("gammas", -np.ones(FAMILY_OFFSETS[-1])),
    ]:
        path = tmp_path / f"bad_{key}.npz"
        np.savez(path, **{**good, key: value})
        with pytest.raises(InvalidConfigError):
            load_patterns(path)
    del good["gammas"]
    np.savez(tmp_path / "short.npz", **good)
    with pytest.raises(InvalidConfigError):
        load_patterns(tmp_path / "short.npz")
    with pytest.raises(InvalidConfigError):
        load_patterns(tmp_path / "missing.npz")
    (tmp_path / "text.npz").write_text("not a zip")
    with pytest.raises(InvalidConfigError):
        load_patterns(tmp_path / "text.npz")


def test_level_names_cover_every_family() -> None:
    assert len(LEVELS) == len(FAMILIES) - 1
    assert tuple(len(x) for x in LEVELS) == FAMILY_SIZES[:-1]


def test_the_shipped_model_is_read_once_a_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every Go game made with ``patterns`` carries the shipped table: the file is read
    once (a match makes a game per move's state copy and per game), and the table cannot
    be written through."""
    import mctslab.games.go.learned as learned

    reads: list[int] = []
    real = learned.load_patterns

    def counting(path: object = None) -> learned.PatternModel:
        reads.append(1)
        return real()

    learned.shipped_table.cache_clear()
    monkeypatch.setattr(learned, "load_patterns", counting)
    try:
        first, second = Go(board_size=9, patterns=30), Go(board_size=9, patterns=50)
        assert len(reads) == 1
        assert second.params.size == first.params.size  # both carry the whole table
        with pytest.raises(ValueError, match="read-only"):
            learned.shipped_table()[0] = 1.0
    finally:
        learned.shipped_table.cache_clear()
