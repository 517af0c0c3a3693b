"""The compiled single-player searches against the reference ones: the same draws, the
same policies, the same best sequence after the same playouts (NRPA, NMCS), on a small
travelling salesman written as rule kernels here."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numba import njit

from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import TERMINAL, GameInfo
from mctslab.games.kernels import KernelGame, RuleKernels
from mctslab.games.tsp import TSP
from mctslab.search.single import NMCSConfig, NRPAConfig, nmcs, nrpa
from mctslab.search.single.compiled import compiled_nmcs, compiled_nrpa
from mctslab.search.single.spmcts import SPMCTSConfig, spmcts
from mctslab.search.single.spmcts_compiled import compiled_spmcts

# state: [player, visited mask, current city, cities visited, tour length so far]
# params: [n, dist (n * n)]


@njit
def init(params):  # type: ignore[no-untyped-def]
    s = np.zeros(5, dtype=np.int64)
    s[1] = 1
    return s


@njit
def legal_actions(s, params, out):  # type: ignore[no-untyped-def]
    n = params[0]
    k = 0
    for c in range(1, n):
        if not (s[1] >> c) & 1:
            out[k] = c
            k += 1
    return k


@njit
def apply_action(s, params, a):  # type: ignore[no-untyped-def]
    n = params[0]
    s[4] += params[1 + s[2] * n + a]
    s[1] |= 1 << a
    s[2] = a
    s[3] += 1
    if s[3] == n - 1:
        s[4] += params[1 + a * n]
        s[0] = TERMINAL


@njit
def returns(s, params, out):  # type: ignore[no-untyped-def]
    out[0] = -float(s[4])


@njit
def heuristic(s, params, out):  # type: ignore[no-untyped-def]
    out[0] = 0.0


@njit
def move_code(s, params, a):  # type: ignore[no-untyped-def]
    return s[2] * params[0] + a


@njit
def move_bias(s, params, a):  # type: ignore[no-untyped-def]
    return -float(params[1 + s[2] * params[0] + a]) / 30.0


class KernelTour(KernelGame):
    kernels = RuleKernels(
        init, legal_actions, apply_action, returns, heuristic, move_code=move_code
    )

    def __init__(self, n: int, seed: int) -> None:
        xy = np.random.default_rng(seed).integers(0, 100, size=(n, 2))
        dist = [int(math.hypot(*(xy[i] - xy[j])) + 0.5) for i in range(n) for j in range(n)]
        info = GameInfo("kernel_tour", 1, 1, n, n, False, -200.0 * n, 0.0)
        super().__init__(info, np.array([n, *dist], dtype=np.int64))
        self.n = n

    def num_move_codes(self) -> int:
        return self.n * self.n


def same(a: object, b: object) -> None:
    assert a.score == b.score  # type: ignore[attr-defined]
    assert a.sequence == b.sequence  # type: ignore[attr-defined]
    assert a.playouts == b.playouts and a.runs == b.runs  # type: ignore[attr-defined]
    assert [(i.playouts, i.score) for i in a.improvements] == [  # type: ignore[attr-defined]
        (i.playouts, i.score)
        for i in b.improvements  # type: ignore[attr-defined]
    ]


@pytest.mark.parametrize(
    "n,config",
    [
        (7, NRPAConfig(level=1, iterations=50, seed=3)),
        (8, NRPAConfig(level=2, iterations=12, seed=4)),
        (6, NRPAConfig(level=3, iterations=5, seed=5, alpha=0.5)),
        (9, NRPAConfig(level=2, iterations=10, seed=6, playouts=137)),  # cut mid-run
        (7, NRPAConfig(level=1, iterations=8, seed=7, runs=3)),
        (6, NRPAConfig(level=0, seed=8, runs=4)),
        (8, NRPAConfig(level=2, iterations=10, seed=9, bias=1.0)),  # Generalized NRPA
        (7, NRPAConfig(level=1, iterations=30, seed=10, bias=2.5, alpha=0.7)),
    ],
)
def test_compiled_nrpa_is_the_reference(n: int, config: NRPAConfig) -> None:
    game = KernelTour(n, n + config.seed)
    state = game.new_initial_state()
    same(nrpa(state, config), compiled_nrpa(state, config))


@pytest.mark.parametrize(
    "n,config",
    [
        (7, NMCSConfig(level=1, seed=1)),
        (7, NMCSConfig(level=2, seed=2)),
        (6, NMCSConfig(level=3, seed=3)),
        (8, NMCSConfig(level=2, seed=4, playouts=101)),  # cut mid-run
        (6, NMCSConfig(level=1, seed=5, runs=3)),
    ],
)
def test_compiled_nmcs_is_the_reference(n: int, config: NMCSConfig) -> None:
    game = KernelTour(n, n + config.seed)
    state = game.new_initial_state()
    same(nmcs(state, config), compiled_nmcs(state, config))


def test_the_best_sequence_replays_to_its_score() -> None:
    game = KernelTour(12, 1)
    result = compiled_nrpa(game.new_initial_state(), NRPAConfig(level=2, iterations=30))
    state = game.new_initial_state()
    for a in result.sequence:
        state.apply_action(a)
    assert state.is_terminal() and state.returns()[0] == result.score
    assert result.playouts == 900


def test_compiled_nmcs_refuses_level_0() -> None:
    with pytest.raises(InvalidConfigError, match="level"):
        compiled_nmcs(KernelTour(5, 0).new_initial_state(), NMCSConfig(level=0))


@pytest.mark.parametrize(
    "n,config",
    [
        (7, SPMCTSConfig(iterations=40, seed=1)),
        (8, SPMCTSConfig(iterations=25, seed=2, c=1.0, d=0.1, runs=2)),
        (9, SPMCTSConfig(iterations=60, seed=3, playouts=333)),  # cut mid-run
        (6, SPMCTSConfig(iterations=3, seed=4, runs=3)),  # moves leave the tree
    ],
)
def test_compiled_sp_mcts_is_the_reference(n: int, config: SPMCTSConfig) -> None:
    game = KernelTour(n, n + config.seed)
    state = game.new_initial_state()
    same(spmcts(state, config), compiled_spmcts(state, config))


# The playouts' knowledge: the travelling salesman's move prior and its 2-opt/Or-opt polish.


@pytest.mark.parametrize(
    "n,config",
    [
        (9, NRPAConfig(level=2, iterations=8, seed=11, polish=True)),
        (8, NRPAConfig(level=1, iterations=20, seed=12, bias=3.0, polish=True)),
        (9, NMCSConfig(level=2, seed=13, bias=2.0)),
        (8, NMCSConfig(level=1, seed=14, polish=True, runs=2)),
        (9, NMCSConfig(level=2, seed=15, bias=4.0, polish=True, playouts=150)),
        (9, SPMCTSConfig(iterations=30, seed=16, bias=2.0)),
        (8, SPMCTSConfig(iterations=20, seed=17, polish=True, bias=1.0, playouts=200)),
    ],
)
def test_the_playouts_knowledge_is_the_same_in_both_engines(
    n: int, config: NRPAConfig | NMCSConfig | SPMCTSConfig
) -> None:
    """Biased draws (softmax over beta * prior) and polished sequences: the compiled
    versions make the same draws and keep the same sequences as the reference ones."""
    state = TSP(f"random:{n}:{config.seed}").new_initial_state()
    if isinstance(config, NRPAConfig):
        a, b = nrpa(state, config), compiled_nrpa(state, config)
    elif isinstance(config, NMCSConfig):
        a, b = nmcs(state, config), compiled_nmcs(state, config)
    else:
        a, b = spmcts(state, config), compiled_spmcts(state, config)
    same(a, b)
    replay = state.clone()
    for move in b.sequence:
        replay.apply_action(move)
    assert replay.is_terminal() and replay.returns()[0] == b.score


def test_polished_playouts_end_in_a_two_opt_local_optimum() -> None:
    """With polish, the best tour has no improving 2-opt move left (checked here by brute
    force) and is no longer than the best of the same playouts unpolished."""
    game = TSP("random:11:5")
    state = game.new_initial_state()
    plain = compiled_nmcs(state, NMCSConfig(level=1, seed=2))
    polished = compiled_nmcs(state, NMCSConfig(level=1, seed=2, polish=True))
    assert polished.score >= plain.score
    tour = [0, *polished.sequence]
    d = game.distances
    n = len(tour)
    for i in range(1, n - 1):
        for j in range(i + 1, n):
            a, b, c, e = tour[i - 1], tour[i], tour[j], tour[(j + 1) % n]
            assert d[a, c] + d[b, e] >= d[a, b] + d[c, e]


def test_polish_on_a_game_without_local_search_is_refused() -> None:
    state = KernelTour(5, 0).new_initial_state()
    for run in (
        lambda: nmcs(state, NMCSConfig(level=1, polish=True)),
        lambda: compiled_nmcs(state, NMCSConfig(level=1, polish=True)),
        lambda: compiled_nrpa(state, NRPAConfig(level=1, polish=True)),
        lambda: spmcts(state, SPMCTSConfig(polish=True)),
    ):
        with pytest.raises(InvalidConfigError, match="no local search"):
            run()
    with pytest.raises(InvalidConfigError, match="polish must be"):
        NMCSConfig(polish=1)  # type: ignore[arg-type]
