"""Go's end-of-game judgement (:mod:`mctslab.games.go.status`): which strings are dead,
alive or in seki, against GNU Go's ``final_status_list dead`` on the finished games of
``tests/data/go/gnugo_games.json`` (what GNU Go 3.8 said is recorded there, and
``tests/games/test_go_gnugo.py`` checks the record against a live GNU Go), and on known
positions.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

import mctslab
from mctslab.games.go import Go
from mctslab.games.go.status import (
    SETTLED,
    agreed_score,
    area_owners,
    final_status,
    strings,
)
from mctslab.games.kernels import KernelState
from mctslab.players.gtp import action_to_vertex, vertex_to_action

GAMES = Path(__file__).parents[2] / "data" / "go" / "gnugo_games.json"

# 5x5: Black's wall on column b, White's on column c, then a black stone at e3 (14) in
# White's area and two passes.
WALLS = [a for r in range(5) for a in (5 * r + 1, 5 * r + 2)]
INVADED = [*WALLS, 14, 25, 25]


def _go(size: int = 5, **params: object) -> Go:
    game = mctslab.make("go", board_size=size, **params)
    assert isinstance(game, Go)
    return game


def _finished(record: dict[str, object]) -> tuple[Go, KernelState]:
    game = _go(9, komi=record["komi"], max_game_length=record["max_game_length"])
    moves = [vertex_to_action(m, 9) for m in str(record["moves"]).split()]
    return game, game.state_from_actions(moves)  # type: ignore[arg-type]


def test_dead_stones_as_gnugo_on_all_22_finished_games() -> None:
    records = json.loads(GAMES.read_text())
    assert len(records) == 22
    differ = []
    for record in records:
        game, state = _finished(record)
        theirs = {vertex_to_action(v, 9) for v in record["gnugo_dead"].split()}
        ours = {p for string in final_status(game, state).dead for p in string}
        if ours != theirs:
            differ.append((record["name"], sorted(ours ^ theirs)))
    assert not differ
    # Not only "nothing is dead": 17 games have dead stones, up to 31 of them.
    assert sum(1 for r in records if r["gnugo_dead"]) == 17


def test_the_finished_games_are_settled_and_early_ends_are_not() -> None:
    """A judgement needs a settled board (the mean of |ownership| at least 0.5):
    the 21 games of the file played to the end are settled (the seki's shared liberties
    included); the one stopped by two passes at move 28 is not, nor is any board of nine
    random moves and a pass (the web lab judged "2 dead stones" on one of those)."""
    records = json.loads(GAMES.read_text())
    unsettled = []
    for record in records:
        game, state = _finished(record)
        status = final_status(game, state)
        mean = sum(abs(o) for o in status.ownership) / 81
        assert status.settled == (mean >= SETTLED)
        if not status.settled:
            unsettled.append((record["name"], len(str(record["moves"]).split())))
    assert unsettled == [("random vs mcts:iterations=500 seed 26", 28)]
    game = _go(9)
    for seed in range(8):
        rng = random.Random(seed)
        state = game.new_initial_state()
        for _ in range(9):
            state.apply_action(rng.choice([a for a in state.legal_actions() if a != 81]))
        state.apply_action(81)
        status = final_status(game, state)  # type: ignore[arg-type]
        assert not status.settled, (seed, len(status.undecided))
        assert agreed_score(game, state).settled is False  # type: ignore[arg-type]


def test_the_seki_is_seki_though_the_playouts_break_it() -> None:
    """The hand-made seki: a black ring (and its two stones A5 A6) and a white string
    B4-B7 with the same two liberties, A4 and A7, and no eye. The playouts fill a shared
    liberty once nothing else is left, and the black strings are captured in most of
    them (alone they would be called dead); the seki rule keeps all three strings."""
    record = next(r for r in json.loads(GAMES.read_text()) if r["name"] == "seki")
    game, state = _finished(record)
    status = final_status(game, state)
    named = [sorted(action_to_vertex(p, 9) for p in s) for s in status.seki]
    assert named == [
        sorted(["A3", "B3", "C3", "C4", "C5", "C6", "C7", "A8", "B8", "C8"]),
        ["B4", "B5", "B6", "B7"],
        ["A5", "A6"],
    ]
    assert status.dead == ()
    assert status.ownership[vertex_to_action("C5", 9)] < 0  # the ring: White's, mostly


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


def test_a_game_stopped_at_its_length_limit_is_played_out_beyond_it() -> None:
    """The game ends at 11 moves, before the lone stone is captured; the judgement's
    playouts are not cut off there."""
    game = _go(komi=0.5, max_game_length=11)
    state = game.state_from_actions(INVADED[:11])
    assert state.is_terminal()
    assert final_status(game, state, playouts=100).dead == ((14,),)


def test_adjudicate_scores_a_game_at_its_length_limit_by_agreement_only() -> None:
    """Go.adjudicate (the arena's rule for games at the length limit): the lone stone,
    alive for Tromp-Taylor (Black +5.5), is removed (White wins by 0.5 + its area); a
    game over by two passes is Tromp-Taylor's and not adjudicated."""
    capped = _go(komi=0.5, max_game_length=11)
    state = capped.state_from_actions(INVADED[:11])
    assert capped.ended_by_length(state) and capped.score(state) > 0
    agreement = agreed_score(capped, state, playouts=100)
    assert agreement.dead == (14,) and agreement.score < 0
    judged = capped.adjudicate(state)
    assert judged is not None
    returns, note = judged
    assert returns == [-1.0, 1.0]
    assert "length limit of 11 moves" in note and "1 dead stones removed" in note
    passed = _go(komi=0.5)
    over = passed.state_from_actions(INVADED)
    assert over.is_terminal() and not passed.ended_by_length(over)
    assert passed.adjudicate(over) is None
    assert not capped.ended_by_length(capped.state_from_actions(INVADED[:5]))  # not over


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
