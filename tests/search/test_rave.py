"""RAVE and progressive bias: the formulas, and node identity between the engines.

Both engines must build the same tree under ``rave`` and ``progressive_bias`` as under
every other option: every node (named by its path of actions) with the same visits,
value sum, all-moves-as-first visits and sum, and bias term, float for float.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

import mctslab
from mctslab.core.errors import InvalidConfigError
from mctslab.search.compiled import CompiledMCTS
from mctslab.search.compiled.tree import AMAF_SUM, AMAF_VISITS, BIAS
from mctslab.search.config import SearchConfig
from mctslab.search.mcts import MCTS
from mctslab.search.puct import PuctConfig
from mctslab.search.reference.selection import rave_beta, rave_score
from mctslab.search.reference.tree import Node

Stats = dict[tuple[int, ...], tuple[int, float, float, float, float]]


def reference_stats(searcher: MCTS) -> Stats:
    out: Stats = {}
    assert searcher.root is not None
    stack: list[tuple[tuple[int, ...], Node]] = [((), searcher.root)]
    while stack:
        path, node = stack.pop()
        if path:
            out[path] = (
                node.visits,
                node.value_sum,
                float(node.amaf_visits),
                node.amaf_sum,
                node.bias,
            )
        stack.extend(((*path, ch.action), ch) for ch in node.children)
    return out


def compiled_stats(searcher: CompiledMCTS) -> Stats:
    tree = searcher.tree
    assert tree is not None
    out: Stats = {}
    stack: list[tuple[tuple[int, ...], int]] = [((), 0)]
    while stack:
        path, i = stack.pop()
        if path:
            stats = tree.stats
            amaf_n, amaf_sum, bias = (
                (stats[AMAF_VISITS, i], stats[AMAF_SUM, i], stats[BIAS, i])
                if stats.shape[0]
                else (0.0, 0.0, 0.0)  # neither option on: no rows
            )
            out[path] = (
                int(tree.visits[i]),
                float(tree.value_sum[i]),
                float(amaf_n),
                float(amaf_sum),
                float(bias),
            )
        ch = int(tree.first_child[i])
        while ch >= 0:
            stack.append(((*path, int(tree.action[ch])), ch))
            ch = int(tree.next_sibling[ch])
    return out


def assert_identical(state: Any, config: SearchConfig) -> tuple[Stats, Any]:
    ref, comp = MCTS(config), CompiledMCTS(config)
    a, b = ref.search(state), comp.search(state)
    want, got = reference_stats(ref), compiled_stats(comp)
    assert set(want) == set(got)
    diff = [p for p in want if want[p] != got[p]]
    assert not diff, (config, diff[:3], [(want[p], got[p]) for p in diff[:3]])
    assert (a.action, a.children, a.nodes) == (b.action, b.children, b.nodes)
    return want, a


CASES = [
    ("tic_tac_toe", []),
    ("tic_tac_toe", [4, 0]),
    ("connect_four", [3, 3]),
    ("nim", []),
    ("bohnenspiel", []),
]


@pytest.mark.parametrize("name,moves", CASES)
@pytest.mark.parametrize(
    "rave,bias,simulation,solver",
    [
        (300.0, 0.0, "random", False),
        (50.0, 0.0, "heavy", False),
        (0.0, 2.0, "random", False),
        (1000.0, 0.5, "cutoff", False),
        (300.0, 1.0, "random", True),
    ],
)
def test_node_identical_under_rave_and_progressive_bias(
    name: str, moves: list[int], rave: float, bias: float, simulation: str, solver: bool
) -> None:
    game = mctslab.make(name)
    state = game.state_from_actions(moves)  # type: ignore[attr-defined]
    iterations = 300 if simulation == "heavy" or name == "bohnenspiel" else 2_000
    config = SearchConfig(
        iterations=iterations,
        seed=7,
        rave=rave,
        progressive_bias=bias,
        simulation=simulation,  # type: ignore[arg-type]
        solver=solver,
    )
    stats, _ = assert_identical(state, config)
    # The statistics the options add are really there (the test compares something).
    if rave:
        assert any(s[2] > s[0] for s in stats.values())  # AMAF counts beyond the visits
    else:
        assert all(s[2] == 0.0 for s in stats.values())
    if bias:
        assert any(s[4] != 0.0 for s in stats.values())


def test_tree_reuse_keeps_the_amaf_statistics_identical() -> None:
    game = mctslab.make("connect_four")
    config = SearchConfig(iterations=800, seed=3, rave=200.0, progressive_bias=1.0)
    ref, comp = MCTS(config), CompiledMCTS(config)
    state = game.new_initial_state()
    for _ in range(4):
        a, b = ref.search(state), comp.search(state)
        assert a.action == b.action
        assert reference_stats(ref) == compiled_stats(comp)
        state.apply_action(a.action)


def test_the_beta_schedule_is_gelly_and_silvers() -> None:
    # beta = sqrt(k / (3 N + k)): 1 before any visit, 1/2 at N = k, 0 without RAVE.
    assert rave_beta(1000.0, 0) == 1.0
    assert rave_beta(1000.0, 1000) == 0.5
    assert rave_beta(0.0, 50) == 0.0
    assert rave_beta(300.0, 10) == pytest.approx(math.sqrt(300 / 330))


def test_the_score_blends_the_means_and_adds_the_bias() -> None:
    explore = 1.0 * math.sqrt(math.log(100))
    beta = rave_beta(300.0, 100)
    # Q/N = 0.2, AMAF mean 0.8, N = 4, w * H = 0.5.
    got = rave_score(0.8, 4, 8.0, 10, explore, beta, 0.5)
    want = (1 - beta) * 0.2 + beta * 0.8 + explore / 2 + 0.5 / 5
    assert got == pytest.approx(want)
    # Unvisited: +inf until RAVE has seen the move, then its AMAF mean at N = 1.
    assert rave_score(0.0, 0, 0.0, 0, explore, beta, 0.5) == math.inf
    assert rave_score(0.0, 0, 3.0, 4, explore, beta, 0.5) == pytest.approx(0.75 + explore + 0.5)


def test_rave_prefers_the_move_its_playouts_like() -> None:
    """With few iterations, RAVE's all-moves-as-first means find Connect Four's centre
    column, the move plain UCT also finds with many more (at 100 iterations UCT has
    barely tried each column)."""
    game = mctslab.make("connect_four")
    config = SearchConfig(iterations=400, seed=1, rave=1000.0, c=0.2)
    result = CompiledMCTS(config).search(game.new_initial_state())
    assert result.action == 3


def test_bad_options_are_refused() -> None:
    with pytest.raises(InvalidConfigError, match="rave"):
        SearchConfig(rave=-1.0)
    with pytest.raises(InvalidConfigError, match="progressive_bias"):
        SearchConfig(progressive_bias=float("nan"))
    with pytest.raises(InvalidConfigError, match="PUCT"):
        SearchConfig(rave=100.0, puct=PuctConfig())
    kuhn = mctslab.make("kuhn_poker").state_from_actions([0, 1])
    with pytest.raises(InvalidConfigError, match="heuristic"):
        MCTS(SearchConfig(progressive_bias=1.0, iterations=10)).search(kuhn)


@pytest.mark.parametrize(
    "simulation,rave,bias",
    [("random", 0.0, 0.0), ("heavy", 0.0, 0.0), ("random", 500.0, 0.0), ("heavy", 500.0, 1.0)],
)
def test_go_playout_policies_and_rave_are_node_identical(
    simulation: str, rave: float, bias: float
) -> None:
    """Go's playout moves (no own-eye fills) and heavy move (atari, captures, MoGo's
    patterns) are kernels both engines call: the trees stay identical with them and RAVE."""
    game = mctslab.make("go", board_size=7)
    state = game.state_from_actions([24, 25, 17])  # type: ignore[attr-defined]
    config = SearchConfig(
        iterations=150,
        seed=5,
        simulation=simulation,  # type: ignore[arg-type]
        rave=rave,
        progressive_bias=bias,
    )
    stats, result = assert_identical(state, config)
    assert result.iterations == 150 and len(stats) > 40
