"""SameGame: the conformance checker on several sizes, hand-made boards for gravity,
column closing, scoring and the penalty, and a differential test against an
independent pure-Python flood fill over the positions of random games."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from mctslab.core.errors import IllegalActionError, InvalidConfigError
from mctslab.core.game import TERMINAL
from mctslab.core.rng import Rng
from mctslab.core.testing import check_game
from mctslab.games.kernels import KernelState
from mctslab.games.samegame import COLOR_NAMES, SameGame, parse_board, penalty_bound


class Reference:
    """The rules written apart from the kernels: the board as a list of columns, each a
    list of colours from the bottom up, groups found by a depth-first flood fill over a
    dict of cells. A group's id is its lowest cell index ``row * columns + column``."""

    def __init__(self, text: str, columns: int) -> None:
        lines = [line for line in text.splitlines() if line]
        self.rows, self.width = len(lines), columns
        self.columns = [
            [int(line[c]) for line in reversed(lines) if line[c] != "."] for c in range(columns)
        ]
        self.columns = [col for col in self.columns if col]
        self.score = 0

    def cells(self) -> dict[tuple[int, int], int]:
        return {(r, c): v for c, col in enumerate(self.columns) for r, v in enumerate(col)}

    def groups(self) -> list[set[tuple[int, int]]]:
        cells, seen, found = self.cells(), set(), []
        for start in cells:
            if start in seen:
                continue
            group, todo = set(), [start]
            while todo:
                r, c = todo.pop()
                if (r, c) in group:
                    continue
                group.add((r, c))
                for nb in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                    if cells.get(nb) == cells[start] and nb not in group:
                        todo.append(nb)
            seen |= group
            found.append(group)
        return found

    def moves(self) -> dict[int, set[tuple[int, int]]]:
        """Every group of two or more by its id."""
        return {min(r * self.width + c for r, c in g): g for g in self.groups() if len(g) >= 2}

    def play(self, action: int) -> None:
        group = self.moves()[action]
        self.columns = [
            [v for r, v in enumerate(col) if (r, c) not in group]
            for c, col in enumerate(self.columns)
        ]
        self.columns = [col for col in self.columns if col]  # empty columns close up
        self.score += (len(group) - 2) ** 2
        if not self.columns:
            self.score += 1000

    def text(self) -> str:
        lines = []
        for r in reversed(range(self.rows)):
            row = [str(col[r]) if r < len(col) else "." for col in self.columns]
            lines.append("".join(row).ljust(self.width, "."))
        return "\n".join(lines)


def board(*rows: str) -> str:
    return "\n".join(rows)


def play(game: SameGame, *cells: str) -> KernelState:
    """The state after playing the groups of the named cells, in order."""
    state = game.new_initial_state()
    for cell in cells:
        state.apply_action(state.string_to_action(cell))
    return state


@pytest.mark.parametrize(
    ("rows", "columns", "colors", "seed", "penalty", "games"),
    [
        (15, 15, 5, 0, False, 6),
        (15, 15, 5, 7, True, 6),
        (5, 5, 3, 1, False, 40),
        (6, 4, 4, 2, True, 40),
        (2, 9, 2, 3, False, 40),
        (10, 3, 5, 4, True, 40),
        (20, 12, 4, 5, False, 4),
        (1, 1, 1, 6, False, 2),
    ],
)
def test_check_game_passes_on_several_sizes_and_seeds(
    rows: int, columns: int, colors: int, seed: int, penalty: bool, games: int
) -> None:
    game = SameGame(rows=rows, columns=columns, colors=colors, seed=seed, penalty=penalty)
    assert check_game(game, n_games=games, seed=seed) >= games


def test_check_game_passes_on_a_board_given_as_text() -> None:
    game = SameGame(board=board("1...", "21..", "1213", "2212"), colors=3)
    assert check_game(game, n_games=30, seed=0) > 30


def test_the_seeded_board_is_numpy_default_rng_uniform_colours_row_0_at_the_bottom() -> None:
    game = SameGame(rows=4, columns=6, colors=5, seed=3)
    want = np.random.default_rng(3).integers(1, 6, size=(4, 6))
    state = game.new_initial_state()
    got = [[game.cell(state, r, c) for c in range(6)] for r in range(4)]
    assert got == want.tolist()
    assert parse_board(game.board_text(state)).tolist() == want.tolist()


def test_gravity_drops_the_blocks_above_the_removed_group() -> None:
    game = SameGame(
        board=board(
            "31.",
            "22.",
            "13.",
            "223",
        ),
        colors=3,
    )
    # the 2s a3-b3 go (the 2s a1-b1 below them are another group): a4 and b4 fall
    state = play(game, "a3")
    assert game.board_text(state) == board(
        "...",
        "31.",
        "13.",
        "223",
    )
    assert game.score(state) == 0 and state.history() == [2 * 3 + 0]


def test_an_emptied_column_closes_up_to_the_left() -> None:
    game = SameGame(
        board=board(
            ".1..",
            "213.",
            "2132",
        ),
        colors=3,
    )
    state = play(game, "b1")  # column b's three ones go: c and d move one place left
    assert game.board_text(state) == board(
        "....",
        "23..",
        "232.",
    )
    state.apply_action(state.string_to_action("b1"))  # the two 3s: column c's 2 moves left
    assert game.board_text(state) == board(
        "....",
        "2...",
        "22..",
    )


def test_gravity_and_closing_together_with_two_emptied_columns() -> None:
    game = SameGame(
        board=board(
            "2...3",
            "11113",
            "31123",
        ),
        colors=3,
    )
    # the six 1s: columns b and c empty, a's 2 falls, d and e close up two places
    state = play(game, "a2")
    assert game.board_text(state) == board(
        "..3..",
        "2.3..",
        "323..",
    )
    assert game.score(state) == 16  # (6 - 2)^2
    assert state.legal_actions() == [2]  # the three 3s of column c


def test_scoring_is_n_minus_2_squared_and_clearing_adds_1000() -> None:
    game = SameGame(board=board("1111", "2222"), colors=2)
    state = game.new_initial_state()
    assert state.legal_actions() == [0, 4]
    state.apply_action(0)  # the four twos at the bottom
    assert game.board_text(state) == board("....", "1111")
    assert state.returns() == [0.0]  # not over: KernelState.returns() is zero
    assert game.score(state) == 4
    state.apply_action(0)  # the four ones: the board is clear
    assert state.is_terminal() and state.current_player() == TERMINAL
    assert state.returns() == [4.0 + 4.0 + 1000.0]


def test_a_board_cleared_by_hand_in_three_moves() -> None:
    game = SameGame(board=board("2..", "21.", "11."), colors=2)
    state = play(game, "a1")  # 1s a1, b1, b2: 1 point; b empties, a's twos fall
    assert game.board_text(state) == board("...", "2..", "2..")
    assert game.score(state) == 1 and not state.is_terminal()
    state = play(game, "a1", "a1")
    assert state.is_terminal() and state.returns() == [1001.0]
    assert game.blocks_left(state) == 0


def test_a_game_ends_when_no_group_of_two_is_left_and_the_blocks_left_cost_nothing() -> None:
    game = SameGame(board=board("3..", "112"), colors=3)
    state = play(game, "a1")
    assert game.board_text(state) == board("...", "32.")
    assert state.is_terminal() and state.legal_actions() == []
    assert state.returns() == [0.0] and game.blocks_left(state) == 2


def test_the_penalty_option_subtracts_r_minus_2_squared_per_colour_left() -> None:
    text = board("3..", "112")
    plain, charged = SameGame(board=text, colors=3), SameGame(board=text, colors=3, penalty=True)
    # one 3 and one 2 left: (1 - 2)^2 each
    assert play(plain, "a1").returns() == [0.0]
    assert play(charged, "a1").returns() == [-2.0]
    # over from the start: four 1s (4) and three 2s (1); a colour with none costs nothing
    lone = SameGame(board="1212121", colors=3, penalty=True)
    state = lone.new_initial_state()
    assert state.is_terminal() and state.returns() == [-5.0]
    # a cleared board has no penalty
    assert play(SameGame(board="11", penalty=True), "a1").returns() == [1000.0]


def test_the_penalty_is_taken_only_at_the_end() -> None:
    game = SameGame(board=board("1111", "2223"), colors=3, penalty=True)
    state = game.new_initial_state()
    assert game.score(state) == 0
    state.apply_action(0)  # three 2s: 1 point, the 1s fall; the game goes on
    assert game.board_text(state) == board("...1", "1113")
    assert not state.is_terminal() and game.score(state) == 1
    state.apply_action(0)  # the three 1s on the bottom: 1 point; a 3 and a 1 are left
    assert state.is_terminal() and game.score(state) == 1 + 1 - 1 - 1
    plain = SameGame(board=board("1111", "2223"), colors=3)
    assert plain.state_from_actions([0, 0]).returns() == [2.0]


def test_utility_bounds() -> None:
    info = SameGame().info
    assert (info.num_players, info.zero_sum, info.num_actions) == (1, False, 225)
    assert info.max_utility == 223**2 + 1000 and info.min_utility == 0.0
    assert info.max_game_length == 112
    assert SameGame(penalty=True).info.min_utility == -(223**2)


@pytest.mark.parametrize(("cells", "colors"), [(1, 5), (2, 5), (3, 2), (4, 3), (6, 4), (7, 2)])
def test_penalty_bound_is_the_most_any_colour_counts_can_cost(cells: int, colors: int) -> None:
    def cost(counts: tuple[int, ...]) -> int:
        return sum((r - 2) ** 2 for r in counts if r > 0)

    counts = itertools.product(range(cells + 1), repeat=colors)
    assert penalty_bound(cells, colors) == max(cost(c) for c in counts if sum(c) <= cells)


def test_each_group_has_exactly_one_action_its_lowest_cell() -> None:
    for seed in range(5):
        game = SameGame(rows=8, columns=8, colors=3, seed=seed)
        rng = random.Random(seed)
        state = game.new_initial_state()
        while not state.is_terminal():
            legal = state.legal_actions()
            ref = Reference(game.board_text(state), game.columns)
            groups = ref.moves()
            assert sorted(groups) == legal
            for action, cells in groups.items():
                ids = {r * game.columns + c for r, c in cells}
                assert len(ids & set(legal)) == 1 and min(ids) == action
                # naming any block of the group gives the group's one action
                for cell in ids:
                    name = f"{chr(ord('a') + cell % game.columns)}{cell // game.columns + 1}"
                    assert state.string_to_action(name) == action
            state.apply_action(rng.choice(legal))


@pytest.mark.parametrize(
    ("rows", "columns", "colors", "seeds"),
    [(15, 15, 5, range(6)), (8, 10, 3, range(20)), (5, 5, 2, range(40)), (12, 6, 4, range(20))],
)
def test_kernels_agree_with_an_independent_flood_fill_on_random_games(
    rows: int, columns: int, colors: int, seeds: range
) -> None:
    checked = 0
    for seed in seeds:
        game = SameGame(rows=rows, columns=columns, colors=colors, seed=seed)
        state = game.new_initial_state()
        ref = Reference(game.board_text(state), columns)
        rng = random.Random(1000 + seed)
        while True:
            moves = ref.moves()
            assert state.legal_actions() == sorted(moves)
            assert state.is_terminal() == (not moves)
            for action, cells in moves.items():
                low, colour, size = game.group(state, action)
                assert (low, size) == (action, len(cells))
                r, c = next(iter(cells))
                assert colour == ref.columns[c][r]
                assert state.action_to_string(action).endswith(
                    f"({COLOR_NAMES[colour - 1]}, {size} blocks)"
                )
            assert game.score(state) == ref.score
            checked += 1
            if not moves:
                break
            action = rng.choice(sorted(moves))
            state.apply_action(action)
            ref.play(action)
            assert game.board_text(state) == ref.text()
        assert state.returns() == [float(ref.score)]
    assert checked > 4 * len(seeds)  # positions, the final ones included


def test_the_heavy_playout_plays_only_legal_moves() -> None:
    for seed, (rows, columns, colors) in enumerate([(15, 15, 5), (6, 6, 3), (10, 4, 2)] * 3):
        game = SameGame(rows=rows, columns=columns, colors=colors, seed=seed)
        state = game.new_initial_state()
        rng = Rng(seed)
        while not state.is_terminal():
            action = state.heavy_action(rng)
            assert action in state.legal_actions()
            state.apply_action(action)


def test_the_heavy_playout_avoids_the_most_frequent_colour_until_it_is_one_group() -> None:
    # four 1s in two groups, a pair of 2s, a pair of 3s: the 1s are tabu
    game = SameGame(board=board("11...", "32...", "3211."), colors=3)
    state = game.new_initial_state()
    ones = {a for a in state.legal_actions() if game.group(state, a)[1] == 1}
    assert ones and len(state.legal_actions()) > len(ones)
    rng = Rng(0)
    played = {state.heavy_action(rng) for _ in range(200)}
    assert played == set(state.legal_actions()) - ones
    # every 1 in one group: now it may be played (and is, among the others)
    joined = SameGame(board=board("11...", "13...", "1322."), colors=3)
    state = joined.new_initial_state()
    played = {state.heavy_action(rng) for _ in range(200)}
    assert played == set(state.legal_actions())
    # nothing but the tabu colour left to play: it is played
    only = SameGame(board="11211", colors=3)
    state = only.new_initial_state()
    assert state.legal_actions() == [0, 3]
    assert {state.heavy_action(rng) for _ in range(50)} == {0, 3}


def test_the_heavy_action_draws_from_the_engines_generator_word() -> None:
    game = SameGame(seed=1)
    state = game.new_initial_state()
    a, b = Rng(5), Rng(5)
    assert [state.heavy_action(a) for _ in range(20)] == [state.heavy_action(b) for _ in range(20)]
    assert a.state == b.state != Rng(5).state


def test_action_names_and_the_parser() -> None:
    game = SameGame(board=board("2..", "21.", "11."), colors=2)
    state = game.new_initial_state()
    assert [state.action_to_string(a) for a in state.legal_actions()] == [
        "a1 (red, 3 blocks)",
        "a2 (green, 2 blocks)",
    ]
    assert state.string_to_action("a1 (red, 3 blocks)") == 0
    assert state.string_to_action("B2") == state.string_to_action("b1") == 0  # any block
    assert state.string_to_action("a3") == 3  # the green pair a2-a3
    assert state.string_to_action("3") == 3  # an action id
    for bad in ("c1", "a4", "z1", "a1 (green, 3 blocks)", "", "a", "a１"):
        with pytest.raises(IllegalActionError):
            state.apply_action(state.string_to_action(bad))
    with pytest.raises(IllegalActionError, match="illegal action 1 in samegame"):
        state.apply_action(1)  # b1 is a block of a group, but not the group's id


def test_move_codes_are_colour_whole_colour_and_size_bucket() -> None:
    game = SameGame(board=board("2..", "21.", "11."), colors=2)
    assert game.num_move_codes() == 2 * 2 * 12
    code = game.kernels.move_code
    assert code is not None
    state = game.new_initial_state()
    # the three 1s are every 1 left: colour 1, whole, size 3 (bucket 1)
    assert code(state.array, game.params, 0) == (0 * 2 + 1) * 12 + 1
    big = SameGame(rows=15, columns=15, colors=5, seed=0)
    for seed in range(3):
        state = big.new_initial_state()
        rng = random.Random(seed)
        while not state.is_terminal():
            for a in state.legal_actions():
                assert 0 <= code(state.array, big.params, a) < big.num_move_codes()
            state.apply_action(rng.choice(state.legal_actions()))


def test_the_heuristic_is_the_score_plus_the_groups_on_the_board_scaled() -> None:
    game = SameGame(board=board("1111", "2223"), colors=3)
    state = game.new_initial_state()
    info = game.info
    estimate = 0 + (4 - 2) ** 2 + (3 - 2) ** 2
    want = 2 * (estimate - info.min_utility) / (info.max_utility - info.min_utility) - 1
    assert state.heuristic() == pytest.approx([want])
    end = play(game, "a1", "a1")
    assert end.is_terminal()
    assert game.kernels.heuristic is not None
    out = np.zeros(1)
    game.kernels.heuristic(end.array, game.params, out)
    assert out.tolist() == pytest.approx(end.heuristic())  # the kernel maps as the wrapper


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1.\n.1\n", "column a has a block above an empty cell"),
        ("1.1\n2.2", "column b is empty"),
        ("12\n123", "differ in length"),
        ("1x\n12", "'x' in row 1"),
        ("16\n12", "'6' in row 1"),
        ("..\n..", "no blocks"),
        ("\n\n", "the board is empty"),
        ("1" * 27, r"rows and columns must be in \[1, 26\]"),
    ],
)
def test_a_bad_board_is_refused_with_the_reason(text: str, message: str) -> None:
    with pytest.raises(InvalidConfigError, match=message):
        SameGame(board=text)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"rows": 0}, "rows must be"),
        ({"columns": 27}, "columns must be"),
        ({"colors": 10}, "colors must be"),
        ({"colors": True}, "colors must be"),
        ({"seed": -1}, "seed must be"),
        ({"penalty": 1}, "penalty must be"),
        ({"board": "12\n21", "rows": 3}, "rows=3 but the board has 2 rows"),
        ({"board": "12\n21", "columns": 3}, "columns=3 but the board has 2 columns"),
    ],
)
def test_bad_parameters_are_refused(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidConfigError, match=message):
        SameGame(**kwargs)  # type: ignore[arg-type]


def test_the_drawings() -> None:
    game = SameGame(board=board("2..", "21.", "11."), colors=2)
    state = game.new_initial_state()
    assert str(state) == "2..\n21.\n11.\nabc\nscore 0, 5 blocks left, 0 moves"
    assert SameGame(board=game.board_text(state), colors=2).params.tolist() == (
        game.params.tolist()
    )
    svg = game.to_svg(state)
    assert svg.startswith("<svg") and svg.count("<rect") == 1 + 5
    assert "<title>a3 green</title>" in svg
    over = play(game, "a1", "a1")
    assert str(over).endswith("score 1001, 0 blocks left, 2 moves, game over")


def test_games_with_the_same_board_play_by_the_same_rules() -> None:
    from mctslab.core.game import same_rules

    assert same_rules(SameGame(seed=4), SameGame(seed=4))
    assert not same_rules(SameGame(seed=4), SameGame(seed=5))
    assert not same_rules(SameGame(seed=4), SameGame(seed=4, penalty=True))
    text = SameGame(seed=4).board_text(SameGame(seed=4).new_initial_state())
    assert same_rules(SameGame(board=text), SameGame(board=text, seed=9))
