"""Morpion Solitaire's OpenSpiel variant against OpenSpiel's ``morpion_solitaire``.

``Morpion("openspiel")`` promises OpenSpiel's game exactly: 4D on a 13 x 13 grid, its
24-point cross, its 460 action ids, its returns. As ``test_openspiel_differential.py``
does for the other games, seeded uniformly random games are played in both side by
side (the action drawn from mctslab's legal actions, applied to both), checking at
every step the same legal actions, current player, terminal flag, history, board and
returns (OpenSpiel's returns are the moves so far at every step; mctslab's
``returns()`` are zero before the end, so there the kernel's score is compared).
Game ``i`` uses ``Rng(i)``, so a failure names the seed that replays it."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import require_extra
from mctslab.core.rng import Rng
from mctslab.games.kernels import KernelState
from mctslab.games.morpion import Morpion

pyspiel = require_extra("pyspiel", "openspiel")

N_GAMES = 500


def spiel_board(game: Morpion, state: KernelState) -> str:
    """The position as OpenSpiel prints it: 13 rows of 0/1, row 0 on top."""
    points = game.points(state)
    return "".join(
        "".join("1" if (x, y) in points else "0" for x in range(13)) + "\n" for y in range(13)
    )


def spiel_action_string(game: Morpion, action: int) -> str:
    """OpenSpiel's name of a line: its points ``[row,col]`` in (row, col) order."""
    pts = sorted((y, x) for x, y in game.line_points(action))
    return "".join(f"[{r},{c}] " for r, c in pts)


def test_game_constants_match_openspiel() -> None:
    game, spiel = Morpion("openspiel"), pyspiel.load_game("morpion_solitaire")
    info = game.info
    assert info.num_actions == spiel.num_distinct_actions() == 460
    assert info.max_game_length == spiel.max_game_length() == 35
    assert info.num_players == spiel.num_players() == 1
    assert info.min_utility == spiel.min_utility()
    assert info.max_utility == spiel.max_utility()
    assert spiel.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM and not info.zero_sum


def test_every_action_id_is_openspiels_line() -> None:
    """All 460 ids name the same 4 points as OpenSpiel's action strings, and those
    strings parse back to the id."""
    game = Morpion("openspiel")
    state = game.new_initial_state()
    other = pyspiel.load_game("morpion_solitaire").new_initial_state()
    for action in range(460):
        text = other.action_to_string(action)
        assert spiel_action_string(game, action) == text, action
        assert state.string_to_action(text) == action


def test_initial_position_matches_openspiel() -> None:
    game = Morpion("openspiel")
    state = game.new_initial_state()
    other = pyspiel.load_game("morpion_solitaire").new_initial_state()
    assert state.legal_actions() == other.legal_actions()
    assert spiel_board(game, state) == str(other)


def test_random_games_match_openspiel() -> None:
    game = Morpion("openspiel")
    spiel = pyspiel.load_game("morpion_solitaire")
    score = np.zeros(1)
    lengths = []
    for seed in range(N_GAMES):
        rng = Rng(seed)
        state = game.new_initial_state()
        other = spiel.new_initial_state()
        while True:
            legal = state.legal_actions()
            game.kernels.returns(state.array, game.params, score)
            got = (state.current_player(), state.is_terminal(), legal, state.history())
            want = (
                other.current_player(),
                other.is_terminal(),
                other.legal_actions(),
                other.history(),
            )
            if got != want or [score[0]] != other.returns():
                pytest.fail(
                    f"seed {seed}: after history {state.history()}\n"
                    "  (current_player, is_terminal, legal_actions, history), score\n"
                    f"  mctslab:   {got}, {score[0]}\n"
                    f"  OpenSpiel: {want}, {other.returns()}"
                )
            assert spiel_board(game, state) == str(other), f"seed {seed}: {state.history()}"
            if state.is_terminal():
                break
            assert len(state.history()) < game.info.max_game_length
            action = rng.choice(legal)
            state.apply_action(action)
            other.apply_action(action)
        assert state.returns() == other.returns(), f"seed {seed}: {state.history()}"
        lengths.append(len(state.history()))
    assert max(lengths) <= 35 and len(set(lengths)) > 5


def test_openspiel_variant_is_4d_on_13_by_13() -> None:
    """The same games as ``Morpion("4D", size=13)``, whose ids are row-major lines:
    the legal moves agree as sets of points at every step."""
    os_game, game = Morpion("openspiel"), Morpion("4D", size=13)
    for seed in range(100):
        rng = Rng(seed)
        a, b = os_game.new_initial_state(), game.new_initial_state()
        while True:
            lines_a = sorted(sorted(os_game.line_points(x)) for x in a.legal_actions())
            lines_b = sorted(sorted(game.line_points(x)) for x in b.legal_actions())
            assert lines_a == lines_b, f"seed {seed}: {a.history()}"
            if a.is_terminal():
                assert b.is_terminal()
                break
            action = rng.choice(a.legal_actions())
            x, y, d = os_game.line_of_action(action)
            a.apply_action(action)
            b.apply_action(game.action_of_line(x, y, d))  # type: ignore[arg-type]
        assert a.returns() == b.returns()
