"""Go's end-of-game judgement (:mod:`mctslab.games.go_status`): which strings are dead,
alive or in seki, against GNU Go's ``final_status_list dead`` on the finished games of
``tests/data/go/gnugo_games.json`` (what GNU Go 3.8 said is recorded there, and
``test_go_gnugo.py`` checks the record against a live GNU Go), and on known positions.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import mctslab
from mctslab.games.go import Go
from mctslab.games.go_status import area_owners, final_status, strings
from mctslab.players.gtp import vertex_to_action

GAMES = Path(__file__).parent.parent / "data" / "go" / "gnugo_games.json"

# 5x5: Black's wall on column b, White's on column c, then a black stone at e3 (14) in
# White's area and two passes.
WALLS = [a for r in range(5) for a in (5 * r + 1, 5 * r + 2)]
INVADED = [*WALLS, 14, 25, 25]


def _go(size: int = 5, **params: object) -> Go:
    game = mctslab.make("go", board_size=size, **params)
    assert isinstance(game, Go)
    return game


def test_dead_stones_as_gnugo_on_20_of_the_22_finished_games() -> None:
    """The two others are the method's known limit: the playouts do not know seki (the
    hand-made seki's white string is captured in them), and a random game where four of
    GNU Go's dead stones live in the playouts."""
    records = json.loads(GAMES.read_text())
    assert len(records) == 22
    agree, differ = [], []
    for record in records:
        game = _go(9, komi=record["komi"], max_game_length=record["max_game_length"])
        moves = [vertex_to_action(m, 9) for m in record["moves"].split()]
        state = game.state_from_actions(moves)  # type: ignore[arg-type]
        theirs = {vertex_to_action(v, 9) for v in record["gnugo_dead"].split()}
        ours = {p for string in final_status(game, state).dead for p in string}
        (agree if ours == theirs else differ).append(record["name"])
    assert len(agree) >= 20, differ
    assert set(differ) <= {"seki", "random vs random seed 7"}, differ
    # Games with dead stones are among those that agree: not only "nothing is dead".
    dead_games = [r["name"] for r in records if r["gnugo_dead"]]
    assert len(set(dead_games) & set(agree)) >= 14


def test_a_lone_stone_in_the_others_area_is_dead_though_tromp_taylor_counts_it() -> None:
    game = _go(komi=0.5)
    state = game.state_from_actions(INVADED)
    assert state.is_terminal() and game.score(state) == 10 + 1 - 5 - 0.5  # e3 alive, d-e neutral
    status = final_status(game, state, playouts=100)
    assert status.dead == ((14,),)
    assert status.alive == (tuple(WALLS[0::2]), tuple(WALLS[1::2]))
    assert status.seki == ()
    # Ownership: Black's wall and area positive, White's negative, e3 White's.
    assert all(status.ownership[5 * r] > 0 for r in range(5))
    assert all(status.ownership[5 * r + 3] < 0 for r in range(5))
    assert status.ownership[14] < 0
    # The game before the passes (not over) is judged the same.
    before = game.state_from_actions(INVADED[:-2])
    assert final_status(game, before, playouts=100).dead == ((14,),)


def test_the_same_seed_gives_the_same_judgement() -> None:
    game = _go(9)
    state = game.state_from_actions([40, 41, 30, 31, 50, 49, 39, 81])
    a, b = final_status(game, state, seed=3), final_status(game, state, seed=3)
    assert a == b
    assert all(-1.0 <= x <= 1.0 for x in a.ownership)


def test_two_strings_sharing_their_last_liberties_are_in_seki() -> None:
    """Black a1 (liberties a2, b1) and White a3 (a2, a4) share a2: whoever fills it
    puts its own string in atari. The game ends at its length limit, so the judgement is
    the board's own area (no playouts): nothing dead, and the rule alone decides."""
    game = _go(max_game_length=3)
    state = game.state_from_actions([0, 10, 11])  # B a1, W a3, B b3
    assert state.is_terminal()
    status = final_status(game, state)
    assert status.dead == ()
    assert status.seki == ((0,), (10,))
    assert status.alive == ((11,),)  # b3: four liberties


def test_fewer_than_one_playout_is_refused() -> None:
    game = _go()
    with pytest.raises(ValueError, match="playouts must be >= 1"):
        final_status(game, game.new_initial_state(), playouts=0)


def test_strings_and_area_owners_of_a_small_board() -> None:
    # 3x3, row 0 at the bottom: two black strings, one white.
    stones = [1, 1, 0, 2, 0, 0, 2, 0, 1]
    assert strings(stones, 3) == [(0, 1), (3, 6), (8,)]
    assert area_owners(stones, 3) == [1, 1, 0, 2, 0, 0, 2, 0, 1]
    assert area_owners([0, 0, 0, 0, 1, 0, 0, 0, 0], 3) == [1] * 9
