"""The games' own random playout kernels (``RuleKernels.playout``): Bohnenspiel and Nim.

Each must make exactly the draws of the generic loop (``generic_playout``: the
``k``-th legal action, ``k = rng_randint(rng, n)``, each ply) and leave the same
final state array and generator state: ``check_game`` compares them from every
fourth position of its random games, the tests below from set-up positions it never
reaches, and the compiled engine must build the same tree with the playout, without
it and as the reference engine.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

import mctslab
from mctslab.core.game import TERMINAL
from mctslab.core.testing import ConformanceError, check_game, random_game
from mctslab.games import bohnenspiel, nim
from mctslab.games.bohnenspiel import MAX_PLIES, Bohnenspiel
from mctslab.games.kernels import KernelState, rng_randint
from mctslab.games.nim import Nim
from mctslab.search.compiled import CompiledMCTS
from mctslab.search.config import SearchConfig
from mctslab.search.mcts import MCTS

NIM_VARIANTS = [
    ("nim", {}),
    ("nim", {"piles": [2, 5], "max_take": 3, "misere": True}),
    ("nim", {"piles": "3;4;5"}),
    ("nim", {"piles": [30, 0, 17], "max_take": 5}),
    ("nim", {"piles": [7] * 9, "max_take": 2, "misere": True}),
    ("nim", {"piles": [600, 1000]}),  # over 1,024 legal moves: the remainder by division
    ("bachet", {}),
    ("bachet", {"stones": 10}),
    ("bachet", {"stones": 21, "max_take": 3, "misere": True}),
]


@pytest.mark.parametrize("utility", ["win_loss"])
def test_bohnenspiel_playout_makes_the_generic_loops_draws(utility: str) -> None:
    game = mctslab.make("bohnenspiel", utility=utility)
    assert game.kernels.playout is bohnenspiel.playout
    assert check_game(game, n_games=150, seed=4) > 150 * 30


@pytest.mark.parametrize("name,params", NIM_VARIANTS)
def test_nim_playout_makes_the_generic_loops_draws(name: str, params: dict[str, Any]) -> None:
    game = mctslab.make(name, **params)
    assert game.kernels.playout is nim.playout
    check_game(game, n_games=60, seed=6)


def _compare_with_the_generic_loop(game: Any, state: KernelState, seed: int) -> int:
    """Play the generic loop and the playout kernel from ``state``; assert the same
    final array, plies, returns and generator state; return the plies."""
    k, params = game.kernels, game.params
    want, got = state.array.copy(), state.array.copy()
    want_rng = np.array([seed], dtype=np.uint64)
    got_rng = want_rng.copy()
    legal = np.zeros(game.info.num_actions, dtype=np.int64)
    plies = 0
    while want[0] != TERMINAL:
        n = k.legal_actions(want, params, legal)
        k.apply_action(want, params, legal[rng_randint(want_rng, n)])
        plies += 1
    want_out, got_out = np.zeros(2), np.zeros(2)
    k.returns(want, params, want_out)
    assert k.playout(got, params, got_rng, got_out) == plies
    assert np.array_equal(got, want), (got, want)
    assert np.array_equal(got_out, want_out)
    assert got_rng[0] == want_rng[0]
    return plies


@pytest.mark.parametrize("utility", ["win_loss", "score"])
def test_bohnenspiel_playout_from_set_up_positions(utility: str) -> None:
    # (check_game cannot run on utility="score": a terminal state's heuristic() is its
    # returns, outside [-1, 1]; so both utilities are compared here.)
    game = Bohnenspiel(utility)
    rng = np.random.default_rng(7)
    for seed in range(300):
        pits = [int(v) for v in rng.integers(0, 13, 12)]
        pits[int(rng.integers(0, 6))] += 1  # player 0 can move
        state = game.state_from_pits(pits, stores=(int(rng.integers(0, 40)), 3))
        _compare_with_the_generic_loop(game, state, seed)
    # More than 255 beans on the board: the fallback to the generic rules.
    big = game.state_from_pits([30, 0, 25, 1, 40, 2, 33, 0, 50, 4, 41, 38], stores=(5, 9))
    for seed in range(50):
        _compare_with_the_generic_loop(game, big, seed)
    # Near the ply limit, where each player stores their own side.
    total = 0
    for seed in range(100):
        state = random_game(game, seed)
        early = game.state_from_actions(state.history()[:10])
        early.array[2] = MAX_PLIES - 3
        total += _compare_with_the_generic_loop(game, early, seed)
    assert total <= 300  # every one of them cut off at the limit or before


def _bad_playout(s, params, rng, out):  # type: ignore[no-untyped-def]
    """The generic loop, but the last legal move where it would play the first."""
    legal = np.zeros(12, dtype=np.int64)
    plies = 0
    while s[0] != TERMINAL:
        n = bohnenspiel.legal_actions(s, params, legal)
        k = rng_randint(rng, n)
        bohnenspiel.apply_action(s, params, legal[n - 1 if k == 0 else k])
        plies += 1
    bohnenspiel.returns(s, params, out)
    return plies


class _BadPlayoutBohnenspiel(Bohnenspiel):
    kernels = dataclasses.replace(Bohnenspiel.kernels, playout=_bad_playout, search_chunk=None)


def test_check_game_catches_a_playout_with_other_draws() -> None:
    with pytest.raises(ConformanceError, match="playout kernel"):
        check_game(_BadPlayoutBohnenspiel(), n_games=3)
    with pytest.raises(AssertionError):
        bad = _BadPlayoutBohnenspiel()
        _compare_with_the_generic_loop(bad, bad.new_initial_state(), 1)


class _NoPlayoutBohnenspiel(Bohnenspiel):
    # Without its playout and its cached wrapper: the compiled engine binds the
    # kernels itself and plays the generic loop.
    kernels = dataclasses.replace(Bohnenspiel.kernels, playout=None, search_chunk=None)


class _NoPlayoutNim(Nim):
    kernels = dataclasses.replace(Nim.kernels, playout=None, search_chunk=None)


def _root(result: Any) -> tuple[Any, ...]:
    return (result.children, result.action, result.value, result.nodes, result.iterations)


@pytest.mark.parametrize(
    "game,plain,moves",
    [
        (Bohnenspiel(), _NoPlayoutBohnenspiel(), []),
        (Bohnenspiel(), _NoPlayoutBohnenspiel(), [2, 7, 3, 11, 0, 6, 4, 6, 2, 11]),
        (Nim(), _NoPlayoutNim(), []),
        (Nim([3, 8, 2], max_take=3, misere=True), _NoPlayoutNim([3, 8, 2], 3, True), [1]),
    ],
)
def test_compiled_search_is_node_identical_with_the_playout(
    game: Any, plain: Any, moves: list[int]
) -> None:
    """The compiled engine with the game's playout, with the generic loop and the
    reference engine build the same tree from the same seed."""
    config = SearchConfig(c=1.0, iterations=3000, seed=1)
    state = game.state_from_actions(moves)
    fast = CompiledMCTS(config).search(state)
    generic = CompiledMCTS(config).search(plain.state_from_actions(moves))
    reference = MCTS(config).search(state)
    assert _root(fast) == _root(generic) == _root(reference)


def test_a_finished_score_game_heuristic_stays_in_range() -> None:
    """Bohnenspiel with ``utility="score"`` returns the store difference (up to 72) at
    the end; its ``heuristic()`` there is that difference mapped onto [-1, 1] (the
    contract's range, and what minimax scores a terminal position), so the game
    passes the conformance checks."""
    game = mctslab.make("bohnenspiel", utility="score")
    check_game(game, n_games=5, seed=1)
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    r = state.returns()[0]
    assert abs(r) > 1 and state.heuristic() == pytest.approx([r / 72, -r / 72])
