"""The compiled engine is node-identical to the reference engine.

With the same seed and configuration both engines must build exactly the same
tree: every node (named by its path of actions from the root) with the same
visit count, value sum and proof. When they differ, the failure names the
first iteration after which the trees diverge (found by bisection).
"""

from __future__ import annotations

from typing import Any

import pytest

import mctslab
from mctslab.search.compiled import CompiledMCTS
from mctslab.search.compiled.tree import UNPROVEN
from mctslab.search.config import SearchConfig
from mctslab.search.engine import make_searcher, search
from mctslab.search.mcts import MCTS
from mctslab.search.reference.tree import Node

Signature = dict[tuple[int, ...], tuple[int, float, int | None]]


def reference_tree(searcher: MCTS) -> Signature:
    """Every node of the reference tree: path -> (visits, value sum, proof)."""
    out: Signature = {}
    stack: list[tuple[tuple[int, ...], Node]] = []
    if searcher.root is not None:
        stack.append(((), searcher.root))
    while stack:
        path, node = stack.pop()
        out[path] = (node.visits, node.value_sum if path else 0.0, node.proven)
        stack.extend(((*path, ch.action), ch) for ch in node.children)
    return out


def compiled_tree(searcher: CompiledMCTS) -> Signature:
    """Every node of the compiled tree, in the same form."""
    assert searcher.tree is not None
    first_child, next_sibling, action, visits, value_sum, _, _, proven, _, _ = searcher.tree
    out: Signature = {}
    stack: list[tuple[tuple[int, ...], int]] = [((), 0)]
    while stack:
        path, i = stack.pop()
        p = int(proven[i])
        out[path] = (
            int(visits[i]),
            float(value_sum[i]) if path else 0.0,
            None if p == UNPROVEN else p,
        )
        ch = int(first_child[i])
        while ch >= 0:
            stack.append(((*path, int(action[ch])), ch))
            ch = int(next_sibling[ch])
    return out


def _both(state: mctslab.State, config: SearchConfig) -> tuple[Any, Any, Signature, Signature]:
    ref, comp = MCTS(config), CompiledMCTS(config)
    a, b = ref.search(state), comp.search(state)
    return a, b, reference_tree(ref), compiled_tree(comp)


def first_divergence(state: mctslab.State, config: SearchConfig) -> int:
    """The smallest iteration budget after which the two trees differ."""
    lo, hi = 1, config.iterations or 1
    while lo < hi:
        mid = (lo + hi) // 2
        cfg = SearchConfig(**{**config.__dict__, "iterations": mid})
        if _both(state, cfg)[2] != _both(state, cfg)[3]:
            hi = mid
        else:
            lo = mid + 1
    return lo


def assert_identical(state: mctslab.State, config: SearchConfig) -> None:
    a, b, ta, tb = _both(state, config)
    if ta != tb or a.children != b.children:
        at = first_divergence(state, config)
        pytest.fail(f"the trees diverge after iteration {at} ({config}, moves {state.history()})")
    assert (a.action, a.value, a.iterations, a.nodes, a.proven, a.final_rule, a.stopped_by) == (
        b.action,
        b.value,
        b.iterations,
        b.nodes,
        b.proven,
        b.final_rule,
        b.stopped_by,
    )


# fmt: off
BOHNENSPIEL_LATE = [2, 7, 3, 11, 0, 6, 4, 6, 2, 11, 0, 8, 0, 6, 4, 11, 0, 6,
                    1, 10, 3, 6, 5, 6, 1, 9, 5, 11, 0, 8, 1, 6, 4, 7, 2, 10]
# fmt: on
POSITIONS = {
    "tic_tac_toe": ([], [4, 0], [0, 4, 8]),
    "connect_four": ([3, 3], [3, 3, 2, 4, 2, 2, 4, 4, 5, 1]),
    "nim": ([], [0]),
    "bachet": ([],),
    # The start and a late middle game (player 0 to move, 32-20 in stores, 23 beans left).
    "bohnenspiel": ([], BOHNENSPIEL_LATE),
}
OPTIONS = [
    (expansion, simulation, solver)
    for expansion in ("one", "all")
    for simulation in ("random", "heavy", "cutoff")
    for solver in (False, True)
]


def _iterations(name: str, simulation: str) -> int:
    # The reference engine's heavy playouts try every move and every reply in Python:
    # about 5 ms a playout on Connect Four (7 x 7 trial moves a ply) and on Nim
    # (up to 16 x 16); 10,000 of them would take a minute per case there.
    if simulation == "heavy" and name in ("connect_four", "nim"):
        return 1_500
    # Bohnenspiel's games are long (about 60 plies from the start) and its heavy
    # playouts try 6 x 6 moves a ply: about 0.3 ms a ply in Python.
    if name == "bohnenspiel":
        return 200 if simulation == "heavy" else 3_000
    return 10_000


@pytest.mark.parametrize("name", sorted(POSITIONS))
@pytest.mark.parametrize("expansion,simulation,solver", OPTIONS)
def test_node_identical_to_the_reference(
    name: str, expansion: str, simulation: str, solver: bool
) -> None:
    game = mctslab.make(name)
    for i, moves in enumerate(POSITIONS[name]):
        config = SearchConfig(
            iterations=_iterations(name, simulation),
            seed=100 + i,
            expansion=expansion,  # type: ignore[arg-type]
            simulation=simulation,  # type: ignore[arg-type]
            solver=solver,
            cutoff_depth=4,
        )
        assert_identical(game.state_from_actions(moves), config)


@pytest.mark.parametrize("final", ["max", "robust-max"])
def test_final_rules_identical(final: str) -> None:
    state = mctslab.make("connect_four").state_from_actions([3])
    for seed in range(6):
        assert_identical(state, SearchConfig(iterations=300, seed=seed, final=final))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("iterations", "seed", "extra", "stopped_by"),
    [
        (400, 2, 0.5, "iterations"),  # the rules agree when the budget is spent
        (400, 8, 0.5, "agreement"),  # extended, then stopped as soon as they agree
        (200, 32, 0.02, "iterations"),  # extended, still disagreeing when it is spent
    ],
)
def test_robust_max_endings_identical(
    iterations: int, seed: int, extra: float, stopped_by: str
) -> None:
    # The seeds of test_mcts.py's test_final_rules_pick_what_they_say: the driver's Budget
    # (between chunks) and the chunk's agreement test stop where the reference stops.
    config = SearchConfig(
        iterations=iterations, seed=seed, final="robust-max", robust_max_extra=extra
    )
    state = mctslab.make("connect_four").new_initial_state()
    assert_identical(state, config)
    assert CompiledMCTS(config).search(state).stopped_by == stopped_by


def test_a_search_chunk_wrapper_with_the_wrong_arguments_is_named() -> None:
    from mctslab.games.kernels import RuleKernels
    from mctslab.search.compiled.driver import CHUNK_ARGUMENTS

    game = mctslab.make("tic_tac_toe")
    k = game.kernels  # type: ignore[attr-defined]

    def old_wrapper(tree, root, params, ci, cf, ctl, ctl_f, rng, bufs, fbufs, path, cap, n):  # type: ignore[no-untyped-def]
        raise AssertionError("never called")

    class OldStyle(type(game)):  # type: ignore[misc]
        kernels = RuleKernels(
            k.init, k.legal_actions, k.apply_action, k.returns, k.heuristic, old_wrapper
        )

    assert len(CHUNK_ARGUMENTS) == 12
    with pytest.raises(mctslab.InvalidConfigError, match="search_chunk takes 13 arguments"):
        CompiledMCTS(SearchConfig(iterations=10)).search(OldStyle().new_initial_state())


@pytest.mark.parametrize("expansion", ["one", "all"])
def test_node_budget_identical(expansion: str) -> None:
    state = mctslab.make("connect_four").new_initial_state()
    config = SearchConfig(iterations=None, max_nodes=777, seed=3, expansion=expansion)  # type: ignore[arg-type]
    assert_identical(state, config)


def test_connect_four_end_games_identical_with_the_solver() -> None:
    from test_minimax import connect4_positions

    game = mctslab.make("connect_four")
    for i, (moves, _) in enumerate(connect4_positions()[:12]):
        assert_identical(
            game.state_from_actions(moves), SearchConfig(iterations=3000, seed=i, solver=True)
        )


def test_tree_reuse_identical() -> None:
    game = mctslab.make("connect_four")
    config = SearchConfig(iterations=3000, seed=9)
    ref, comp = MCTS(config), CompiledMCTS(config)
    state = game.new_initial_state()
    for _ in range(6):  # both searchers play both sides, keeping their trees
        a, b = ref.search(state), comp.search(state)
        assert reference_tree(ref) == compiled_tree(comp)
        assert a.children == b.children and a.nodes == b.nodes
        state.apply_action(a.action)
    assert comp.nodes < 3000 * 6  # the compacted tree kept only the subtree


def test_time_budget_and_compile_time_are_reported() -> None:
    state = mctslab.make("connect_four").new_initial_state()
    result = CompiledMCTS(SearchConfig(iterations=None, time=0.05)).search(state)
    assert result.stopped_by == "time" and result.iterations > 100
    assert result.compile_seconds >= 0 and result.seconds > 0
    assert sum(ch.visits for ch in result.children) == result.iterations


def test_auto_engine_picks_compiled_for_kernel_games_and_reference_otherwise() -> None:
    from test_nplayer import ThreeTake

    state = mctslab.make("tic_tac_toe").new_initial_state()
    assert isinstance(make_searcher(SearchConfig(), state), CompiledMCTS)
    assert isinstance(make_searcher(SearchConfig(), state, "reference"), MCTS)
    other = ThreeTake().new_initial_state()
    assert isinstance(make_searcher(SearchConfig(), other), MCTS)
    with pytest.raises(mctslab.InvalidConfigError, match="rule kernels"):
        search(other, SearchConfig(), other.game.info, engine="compiled")
    with pytest.raises(mctslab.InvalidConfigError, match="valid engines"):
        make_searcher(SearchConfig(), state, "gpu")


def test_compiled_engine_errors_match_the_reference() -> None:
    game = mctslab.make("tic_tac_toe")
    with pytest.raises(mctslab.InvalidConfigError, match="over"):
        CompiledMCTS(SearchConfig()).search(game.state_from_actions([0, 3, 1, 4, 2]))
    with pytest.raises(mctslab.InvalidConfigError, match="too small"):
        CompiledMCTS(SearchConfig(max_nodes=5, expansion="all")).search(game.new_initial_state())


def test_scores_above_the_reciprocal_tables_identical() -> None:
    """Past ``UCT_TABLE_SIZE`` visits UCT's reciprocals are computed instead of read
    from the tables: a child with thousands of visits (x wins at once with c1) keeps
    the engines identical on both sides of the boundary."""
    from mctslab.search.reference.selection import UCT_TABLE_SIZE

    state = mctslab.make("tic_tac_toe").state_from_actions([0, 3, 1, 4])
    config = SearchConfig(iterations=12_000, seed=4)
    a, _, _, _ = _both(state, config)
    assert max(ch.visits for ch in a.children) > UCT_TABLE_SIZE
    assert_identical(state, config)


def test_reciprocal_tables_hold_the_computed_doubles() -> None:
    """The tables are a cache, not an approximation: every entry is the double that
    ``uct_score`` and ``exploration`` compute above them."""
    import math

    from mctslab.search.compiled.selection import INV, SQRT_LOG
    from mctslab.search.reference.selection import (
        UCT_INV,
        UCT_INV_SQRT,
        UCT_SQRT_LOG,
        exploration,
        uct_score,
    )

    for n in (1, 2, 3, 7, 1000, 4095):
        assert UCT_INV[n] == 1.0 / n and UCT_INV_SQRT[n] == 1.0 / math.sqrt(n)
        assert UCT_SQRT_LOG[n] == math.sqrt(math.log(n))
        assert INV[n] == UCT_INV[n] and SQRT_LOG[n] == UCT_SQRT_LOG[n]
    explore = exploration(1.5, 100)
    assert explore == 1.5 * math.sqrt(math.log(100))
    assert uct_score(7.0, 10, explore) == pytest.approx(0.7 + 1.5 * math.sqrt(math.log(100) / 10))
    assert uct_score(7e3, 10_000, explore) == 7e3 * (1 / 10_000) + explore * (1 / math.sqrt(1e4))


def test_fully_expanded_nodes_have_their_children_side_by_side() -> None:
    """A node that became fully expanded has its children in consecutive slots (moved
    by ``_relocate``) but for the last few, the freed slots are reused, and no slot is lost: the nodes
    reachable from the root are exactly the ``nodes`` reported, and the slots used
    are those plus the free list."""
    from mctslab.search.compiled.options import FREE, HIGH
    from mctslab.search.compiled.tree import NONE

    game = mctslab.make("connect_four")
    searcher = CompiledMCTS(SearchConfig(iterations=20_000, seed=2))
    result = searcher.search(game.new_initial_state())
    tree = searcher.tree
    assert tree is not None
    reachable, together, full = 0, 0, 0
    stack = [0]
    while stack:
        i = stack.pop()
        reachable += 1
        children = []
        ch = int(tree.first_child[i])
        while ch >= 0:
            children.append(ch)
            ch = int(tree.next_sibling[ch])
        stack.extend(children)
        if children and tree.n_untried[i] == 0:
            full += 1
            together += children == list(range(children[0], children[0] + len(children)))
    assert reachable == result.nodes
    # (The last few to fill up may stay apart: a move needs room for one more iteration
    # within the exact allocation of an iteration budget.)
    assert full > 500 and together >= full - 3
    high, free = searcher._slots
    assert HIGH != FREE
    free_slots = 0
    while free != NONE:
        free_slots += 1
        free = int(tree.next_sibling[free])
    assert high == result.nodes + free_slots


def test_continued_search_with_freed_slots_identical() -> None:
    """A kept tree searched again from the same position (no compaction: its free list
    and used slots carry over) stays identical to the reference's."""
    state = mctslab.make("connect_four").new_initial_state()
    config = SearchConfig(iterations=2_000, seed=5)
    ref, comp = MCTS(config), CompiledMCTS(config)
    for _ in range(3):
        a, b = ref.search(state), comp.search(state)
        assert reference_tree(ref) == compiled_tree(comp)
        assert a.children == b.children and a.nodes == b.nodes


def test_principal_variations_identical_and_follow_the_most_visited_children() -> None:
    """Both engines' ``principal_variation`` read the same line from node-identical trees
    (tree reuse included: the compiled root is node 0 again after a compaction), and the
    line is the most visited child at each step (checked against the reference's nodes)."""
    game = mctslab.make("connect_four")
    config = SearchConfig(iterations=2000, seed=4)
    ref, comp = MCTS(config), CompiledMCTS(config)
    assert ref.principal_variation() == comp.principal_variation() == []
    assert ref.principal_variation(3, limit=4) == comp.principal_variation(3, limit=4) == [3]
    state = game.new_initial_state()
    for _ in range(3):
        a, b = ref.search(state), comp.search(state)
        line = ref.principal_variation(limit=12)
        assert line == comp.principal_variation(limit=12) and len(line) >= 4
        assert line[0] == max(a.children, key=lambda ch: (ch.visits, -ch.action)).action
        node = ref.root
        for move in line:  # each move: the most visited child, the lowest action on a tie
            assert node is not None
            most = max(ch.visits for ch in node.children)
            assert move == min(ch.action for ch in node.children if ch.visits == most)
            node = node.child(move)
        for action in (0, 6):  # a given first move, then the line below it
            got = ref.principal_variation(action, limit=5)
            assert got == comp.principal_variation(action, limit=5) and got[0] == action
        assert ref.principal_variation(limit=0) == comp.principal_variation(limit=0) == []
        state.apply_action(b.action)
