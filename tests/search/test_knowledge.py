"""Prior knowledge (node priors: Gelly and Silver 2007): the score, the options, and node
identity between the engines.

Under ``knowledge=S`` a node's children are made together, each starting with ``S``
times the game's ``knowledge`` kernel's virtual visits and wins for its move (Go's:
:mod:`mctslab.games.go.priors`). Both engines must build the same tree: every node with
the same visits, value sum, all-moves-as-first statistics and virtual visits and wins,
float for float.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import mctslab
from mctslab.core.errors import InvalidConfigError
from mctslab.players.player import parse_spec, search_config
from mctslab.search.compiled import CompiledMCTS
from mctslab.search.compiled.tree import AMAF_SUM, AMAF_VISITS, KNOW_VISITS, KNOW_WINS
from mctslab.search.config import SearchConfig
from mctslab.search.mcts import MCTS
from mctslab.search.reference.selection import rave_score
from mctslab.search.reference.tree import Node

Stats = dict[tuple[int, ...], tuple[int, float, float, float, float, float]]


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
                node.prior_visits,
                node.prior_wins,
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
            s = tree.stats
            out[path] = (
                int(tree.visits[i]),
                float(tree.value_sum[i]),
                float(s[AMAF_VISITS, i]),
                float(s[AMAF_SUM, i]),
                float(s[KNOW_VISITS, i]),
                float(s[KNOW_WINS, i]),
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


def go_state(size: int, moves: list[str], **params: Any) -> Any:
    game = mctslab.make("go", board_size=size, **params)
    state = game.new_initial_state()
    for m in moves:
        state.apply_action(state.string_to_action(m))
    return state


@pytest.mark.parametrize(
    "knowledge,rave,simulation,c",
    [
        (1.0, 0.0, "random", 1.0),
        (0.5, 3000.0, "random", 0.0),
        (1.0, 30000.0, "heavy", 0.0),
        (2.0, 300.0, "heavy", 0.4),
    ],
)
def test_go_with_prior_knowledge_is_node_identical(
    knowledge: float, rave: float, simulation: str, c: float
) -> None:
    state = go_state(7, ["d4", "d5", "c5", "e4"])
    config = SearchConfig(
        iterations=300,
        seed=11,
        knowledge=knowledge,
        rave=rave,
        c=c,
        simulation=simulation,  # type: ignore[arg-type]
    )
    stats, result = assert_identical(state, config)
    assert result.iterations == 300 and len(stats) > 100
    # Every node carries its kernel's priors times the scale (the test compares them).
    priors = [s[4] for s in stats.values()]
    assert min(priors) >= 10 * knowledge and max(priors) > 10 * knowledge


@pytest.mark.parametrize("simulation", ["random", "heavy"])
def test_go_with_learned_pattern_priors_is_node_identical(simulation: str) -> None:
    # A game made with patterns=100 binds the same knowledge kernel, its priors larger;
    # with pattern_playouts its heavy playouts draw by the learned gammas.
    state = go_state(7, ["d4", "d5", "c5", "e4"], patterns=100, pattern_playouts=True)
    config = SearchConfig(
        iterations=300,
        seed=4,
        knowledge=1.0,
        rave=3000.0,
        c=0.0,
        simulation=simulation,  # type: ignore[arg-type]
    )
    stats, result = assert_identical(state, config)
    assert result.iterations == 300 and len(stats) > 100
    plain = go_state(7, ["d4", "d5", "c5", "e4"])
    assert max(state.knowledge()[0]) > max(plain.knowledge()[0])


def test_the_root_children_start_with_the_kernels_priors_times_the_scale() -> None:
    state = go_state(9, ["e5", "e6", "d6", "d5", "f5"])
    visits, wins = state.knowledge()
    for engine in (MCTS, CompiledMCTS):
        searcher = engine(SearchConfig(iterations=5, seed=1, knowledge=0.5))
        searcher.search(state)
        stats = (
            reference_stats(searcher)  # type: ignore[arg-type]
            if engine is MCTS
            else compiled_stats(searcher)  # type: ignore[arg-type]
        )
        for a in state.legal_actions():
            assert stats[(a,)][4] == 0.5 * visits[a]
            assert stats[(a,)][5] == 0.5 * wins[a]


def test_knowledge_leads_a_short_search_to_the_capture() -> None:
    """White's last stone, e6, is in atari (its last liberty e7). Under RAVE with 60
    simulations the capture's prior (15 for the capture, 24 for the distance to the last
    move, on top of the even 10/5) makes it the most visited move, on three seeds; the
    same searches without knowledge never try it."""
    state = go_state(9, ["e5", "a9", "d6", "a8", "f6", "e6"])
    capture = state.string_to_action("e7")
    for seed in range(3):
        for scale in (1.0, 0.0):
            config = SearchConfig(iterations=60, seed=seed, knowledge=scale, c=0.0, rave=3000.0)
            result = CompiledMCTS(config).search(state)
            visits = {ch.action: ch.visits for ch in result.children}
            if scale:
                assert result.action == capture and visits[capture] >= 25
            else:
                assert visits[capture] == 0


def test_zero_priors_leave_the_rave_score_unchanged_and_priors_count_as_visits() -> None:
    for args in [(3.0, 5, 10.0, 20, 0.7, 0.3, 0.2), (0.0, 0, 4.0, 9, 0.5, 0.8, 0.0)]:
        assert rave_score(*args) == rave_score(*args, 0.0, 0.0)
    # N = 4 real visits with Q = 3 and 10 virtual visits with 8 virtual wins, no RAVE:
    # (3 + 8) / 14 + c sqrt(ln N_parent) / sqrt(14) + w H / 5.
    got = rave_score(3.0, 4, 0.0, 0, 0.9, 0.0, 0.5, 10.0, 8.0)
    assert got == pytest.approx(11 / 14 + 0.9 / math.sqrt(14) + 0.5 / 5)
    # An unvisited child with priors is scored, not +inf.
    assert rave_score(0.0, 0, 0.0, 0, 1.0, 0.0, 0.0, 10.0, 5.0) == pytest.approx(
        0.5 + 1 / math.sqrt(10)
    )
    assert rave_score(0.0, 0, 0.0, 0, 1.0, 0.0, 0.0) == math.inf


@pytest.mark.parametrize("engine", [MCTS, CompiledMCTS])
def test_a_game_without_a_knowledge_kernel_is_refused(engine: Any) -> None:
    state = mctslab.make("tic_tac_toe").new_initial_state()
    with pytest.raises(InvalidConfigError, match="knowledge needs the game's prior-knowledge"):
        engine(SearchConfig(iterations=10, knowledge=1.0)).search(state)


@pytest.mark.parametrize("value", [-1.0, math.inf, math.nan, True])
def test_bad_knowledge_scales_are_refused(value: Any) -> None:
    with pytest.raises(InvalidConfigError, match=r"knowledge must be in \[0, 1e9\]"):
        SearchConfig(knowledge=value)


def test_knowledge_is_a_spec_option_and_keeps_its_statistics_row() -> None:
    kind, options = parse_spec("mcts:knowledge=0.5,rave=3000,c=0,iterations=50")
    config = search_config(options)
    assert kind == "mcts"
    assert config.knowledge == 0.5 and config.selection_rule == "rave"
    assert "knowledge" in config.statistics
    assert "knowledge" not in SearchConfig(rave=100.0).statistics


def test_tree_reuse_keeps_the_priors_identical() -> None:
    config = SearchConfig(iterations=200, seed=4, knowledge=1.0, rave=3000.0, c=0.0)
    ref, comp = MCTS(config), CompiledMCTS(config)
    state = go_state(7, [])
    for _ in range(3):
        a, b = ref.search(state), comp.search(state)
        assert a.action == b.action
        assert reference_stats(ref) == compiled_stats(comp)
        state.apply_action(a.action)
    assert np.isfinite(comp.tree.stats).all()  # type: ignore[union-attr]
