"""Differential tests: mctslab's built-in rules against OpenSpiel's.

mctslab's ``tic_tac_toe``, ``connect_four`` and ``nim`` promise OpenSpiel's action
encodings and rules. Each case below plays seeded uniformly random games in both
implementations side by side (the action is drawn from mctslab's legal actions and
applied to both) and checks, at every step, the same legal actions, current player
and terminal flag, and the same returns. Game ``i`` of a case uses ``Rng(i)``, so a
failure names the seed that replays it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pyspiel
import pytest

import mctslab
from mctslab.core.rng import Rng


@dataclass(frozen=True)
class Case:
    """One game under both implementations: mctslab's parameters and OpenSpiel's."""

    name: str
    params: dict[str, Any] = field(default_factory=dict)
    spiel_params: dict[str, Any] = field(default_factory=dict)
    n_games: int = 2000

    @property
    def id(self) -> str:
        shown = ",".join(f"{k}={v}" for k, v in self.spiel_params.items())
        return f"{self.name}({shown})" if shown else self.name


def _nim(piles: str, misere: bool, n_games: int = 2000) -> Case:
    # OpenSpiel's nim defaults to misère: always pass is_misere explicitly.
    return Case(
        "nim",
        {"piles": piles, "misere": misere},
        {"pile_sizes": piles, "is_misere": misere},
        n_games,
    )


def _connect_four(rows: int, columns: int, x_in_row: int, n_games: int) -> Case:
    params = {"rows": rows, "columns": columns, "x_in_row": x_in_row}
    return Case("connect_four", params, params, n_games)


CASES = [
    Case("tic_tac_toe"),
    Case("connect_four"),
    _connect_four(5, 6, 3, 2000),
    _connect_four(6, 7, 5, 2000),
    _connect_four(3, 8, 4, 2000),  # x_in_row > rows: no vertical wins
    _connect_four(8, 9, 4, 300),  # too big for bitboards: the cell-scanning rules
    _nim("1;3;5;7", misere=False),
    _nim("1;3;5;7", misere=True),
    _nim("2;4", misere=False),
    _nim("2;4", misere=True),
    _nim("5", misere=False),
    _nim("5", misere=True),
    _nim("3;0;2", misere=False),  # an empty pile from the start
    _nim("3;0;2", misere=True),
]


def _load(case: Case) -> tuple[Any, Any]:
    return mctslab.make(case.name, **case.params), pyspiel.load_game(case.name, case.spiel_params)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_game_constants_match_openspiel(case: Case) -> None:
    game, spiel = _load(case)
    info = game.info
    assert info.num_actions == spiel.num_distinct_actions(), case.id
    assert info.max_game_length == spiel.max_game_length(), case.id
    assert info.num_players == spiel.num_players(), case.id
    assert info.min_utility == spiel.min_utility(), case.id
    assert info.max_utility == spiel.max_utility(), case.id


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_random_games_match_openspiel(case: Case) -> None:
    game, spiel = _load(case)
    max_length = game.info.max_game_length
    for seed in range(case.n_games):
        rng = Rng(seed)
        state = game.new_initial_state()
        other = spiel.new_initial_state()
        while True:
            legal = state.legal_actions()
            got = (state.current_player(), state.is_terminal(), legal, state.history())
            want = (
                other.current_player(),
                other.is_terminal(),
                other.legal_actions(),
                other.history(),
            )
            if got != want:
                pytest.fail(
                    f"{case.id} seed {seed}: after history {state.history()}\n"
                    "  (current_player, is_terminal, legal_actions, history)\n"
                    f"  mctslab:   {got}\n  OpenSpiel: {want}"
                )
            if state.is_terminal():
                break
            assert len(state.history()) < max_length, (
                f"{case.id} seed {seed}: longer than max_game_length {max_length}, "
                f"history {state.history()}"
            )
            action = rng.choice(legal)
            state.apply_action(action)
            other.apply_action(action)
        if state.returns() != other.returns():
            pytest.fail(
                f"{case.id} seed {seed}: returns differ after history {state.history()}: "
                f"mctslab {state.returns()}, OpenSpiel {other.returns()}"
            )
