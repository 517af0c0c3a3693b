"""The step-by-step trace of one MCTS iteration (mctslab.search.trace)."""

from __future__ import annotations

import gc
import itertools
import json
import math
from dataclasses import replace
from typing import Any

import pytest

import mctslab
from mctslab.core.errors import InvalidConfigError
from mctslab.search.config import SearchConfig
from mctslab.search.evaluators import LeafBatch
from mctslab.search.mcts import MCTS
from mctslab.search.puct import PuctConfig
from mctslab.search.reference.tree import Node
from mctslab.search.trace import (
    IterationTrace,
    move_root,
    node_id,
    traced_iteration,
    tree_at,
    tree_size,
)


def signature(node: Node) -> tuple[Any, ...]:
    """Everything a node holds that the search decides, its subtree included."""
    return (
        node.action,
        node.player,
        node.visits,
        node.value_sum,
        node.proven,
        node.terminal,
        node.prior,
        node.amaf_visits,
        node.amaf_sum,
        node.bias,
        tuple(sorted(node.untried)),
        tuple(signature(ch) for ch in node.children),
    )


def steps(config: SearchConfig, state: mctslab.State, k: int) -> tuple[MCTS, list[IterationTrace]]:
    searcher = MCTS(config)
    return searcher, [traced_iteration(searcher, state) for _ in range(k)]


CONFIGS = [
    ("tic_tac_toe", [], SearchConfig(seed=1)),
    ("tic_tac_toe", [4], SearchConfig(seed=2, expansion="all", c=0.7)),
    ("tic_tac_toe", [], SearchConfig(seed=3, solver=True)),
    ("connect_four", [3, 3], SearchConfig(seed=4, simulation="heavy")),
    ("connect_four", [], SearchConfig(seed=5, simulation="cutoff", cutoff_depth=3)),
    ("nim", [], SearchConfig(seed=6, solver=True, expansion="all")),
    ("bachet", [], SearchConfig(seed=7, final="max")),
    ("connect_four", [3], SearchConfig(seed=8, rave=300.0, progressive_bias=1.0)),
    ("pig", [], SearchConfig(seed=9, rave=100.0)),  # chance outcomes are no one's move
]


def skewed(batch: LeafBatch) -> tuple[Any, Any]:
    """A user's evaluator: priors that favour high actions, a slight edge to the mover."""
    import numpy as np

    priors = np.arange(1, batch.legal_mask.shape[1] + 1, dtype=np.float64)
    return np.tile(priors, (len(batch), 1)), np.full(len(batch), 0.1)


def puct(seed: int, **options: Any) -> SearchConfig:
    return SearchConfig(seed=seed, puct=PuctConfig(**options))


PUCT_CONFIGS = [
    ("tic_tac_toe", [], puct(11)),
    ("tic_tac_toe", [4], puct(12, evaluator="uniform", fpu=0.5, c=2.0)),
    ("connect_four", [3, 3], puct(13, evaluator="heuristic", mix=0.5)),
    ("tic_tac_toe", [], replace(puct(14, evaluator="heuristic", c_base=19652), solver=True)),
    ("nim", [], puct(15, noise_fraction=0.25, noise_alpha=0.5)),
    ("connect_four", [], puct(16, evaluator=skewed, fpu=1.0)),
    ("pig", [], puct(17)),
]


@pytest.mark.parametrize(("game", "moves", "config"), CONFIGS + PUCT_CONFIGS)
def test_k_traced_steps_build_the_tree_of_a_k_iteration_search(
    game: str, moves: list[int], config: SearchConfig
) -> None:
    state = mctslab.make(game).state_from_actions(moves)
    k = 150
    stepped, traces = steps(config, state, k)
    searched = MCTS(replace(config, iterations=k))
    result = searched.search(state)
    assert stepped.root is not None and searched.root is not None
    if result.stopped_by == "proven":  # the search stops at a proof; so must the stepper
        assert result.iterations <= k
        stepped, traces = steps(config, state, result.iterations)
        with pytest.raises(InvalidConfigError, match="proven the root"):
            traced_iteration(stepped, state)
    assert stepped.root is not None
    assert signature(stepped.root) == signature(searched.root)
    assert stepped.rng.next_u64() == searched.rng.next_u64()  # the same random draws
    assert traces[-1].root_visits == searched.root.visits
    assert traces[-1].nodes == result.nodes == tree_size(stepped)[0]


def test_first_step_on_a_fresh_tic_tac_toe_root() -> None:
    state = mctslab.make("tic_tac_toe").new_initial_state()
    searcher = MCTS(SearchConfig(seed=0))
    trace = traced_iteration(searcher, state)
    root = searcher.root
    assert root is not None
    assert root.visits == 1 and len(root.children) == 1
    child = root.children[0]
    # Selection stops at once: the root still has untried moves.
    assert trace.selection == ()
    assert trace.expansion is not None
    assert trace.expansion.parent == "" and trace.expansion.node == str(child.action)
    assert trace.expansion.action == child.action and trace.expansion.added == 1
    assert trace.expansion.untried_left == 8
    sim = trace.simulation
    assert sim.start == str(child.action) and sim.kind == "playout" and not sim.cutoff
    # The playout plays out the game: its moves, then the board is full or won.
    end = state.child(child.action)
    for a in sim.actions:
        end.apply_action(a)
    assert end.is_terminal()
    replay = state.child(child.action)
    for a, label in zip(sim.actions, sim.labels, strict=True):
        assert replay.action_to_string(a) == label
        replay.apply_action(a)
    assert math.isclose(sum(sim.rewards), 1.0)
    # Backpropagation: leaf first, then the root.
    leaf, top = trace.backpropagation
    assert leaf.node == str(child.action) and leaf.player == 0
    assert (leaf.visits_before, leaf.visits_after) == (0, 1)
    assert leaf.reward == sim.rewards[0] and leaf.value_sum_after == sim.rewards[0]
    assert top.node == "" and top.player == -1 and top.reward is None
    assert (top.visits_before, top.visits_after) == (0, 1)
    assert trace.path == ("", str(child.action))
    assert trace.root_visits == 1 and trace.nodes == 2


def test_selection_reports_uct_of_every_child_and_takes_the_best() -> None:
    state = mctslab.make("tic_tac_toe").new_initial_state()
    _searcher, traces = steps(SearchConfig(seed=3, c=1.0), state, 30)
    # Ten iterations expand the root's nine moves; from then on selection descends.
    assert all(t.selection == () for t in traces[:9])
    for trace in traces[9:]:
        assert len(trace.selection) >= 1
        first = trace.selection[0]
        assert first.node == "" and first.to_play == 0 and len(first.children) == 9
        chosen = [c for c in first.children if c.chosen]
        assert len(chosen) == 1 and chosen[0].action == first.chosen
        best = max(c.uct for c in first.children)
        assert chosen[0].uct == best
        # Ties go to the lowest action.
        assert chosen[0].action == min(c.action for c in first.children if c.uct == best)
        for c in first.children:
            expected = c.mean + 1.0 * math.sqrt(math.log(first.visits) / c.visits)
            assert c.uct == pytest.approx(expected)
        # Each level goes one node deeper along the path.
        for level, step in enumerate(trace.selection):
            assert step.node == trace.path[level]


def test_backpropagation_flips_the_reward_between_levels() -> None:
    state = mctslab.make("connect_four").new_initial_state()
    _, traces = steps(SearchConfig(seed=11), state, 200)
    deep = [t for t in traces if len(t.backpropagation) >= 4]
    assert deep
    for trace in deep:
        updates = [u for u in trace.backpropagation if u.player >= 0]
        for below, above in itertools.pairwise(updates):
            assert below.player != above.player
            assert below.reward is not None and above.reward is not None
            assert below.reward + above.reward == pytest.approx(1.0)  # r, then 1 - r
        for u in trace.backpropagation:
            assert u.visits_after == u.visits_before + 1
            added = 0.0 if u.reward is None else u.reward
            assert u.value_sum_after == pytest.approx(u.value_sum_before + added)


def test_terminal_and_proven_leaves_are_reported_without_a_playout() -> None:
    state = mctslab.make("bachet").new_initial_state()
    _, traces = steps(SearchConfig(seed=0), state, 40)
    terminal = [t for t in traces if t.simulation.kind == "terminal"]
    assert terminal and all(t.simulation.actions == () for t in terminal)
    _, solved = steps(SearchConfig(seed=0, solver=True), state, 8)
    kinds = {t.simulation.kind for t in solved}
    assert "terminal" in kinds
    assert any(u.proven_after is not None for t in solved for u in t.backpropagation)


def test_cutoff_playouts_stop_at_the_depth() -> None:
    state = mctslab.make("connect_four").new_initial_state()
    _, traces = steps(SearchConfig(seed=2, simulation="cutoff", cutoff_depth=3), state, 20)
    for trace in traces:
        sim = trace.simulation
        assert len(sim.actions) <= 3
        assert sim.cutoff == (len(sim.actions) == 3)


def test_expansion_all_adds_every_child() -> None:
    state = mctslab.make("tic_tac_toe").new_initial_state()
    _, traces = steps(SearchConfig(seed=2, expansion="all"), state, 3)
    first = traces[0].expansion
    assert first is not None and first.added == 9 and first.untried_left == 0
    # The next iterations reach the other new children by selection, and simulate them as
    # they are: no expansion.
    assert traces[1].expansion is None and len(traces[1].selection) == 1


def test_errors_name_the_problem() -> None:
    game = mctslab.make("tic_tac_toe")
    over = game.state_from_actions([0, 3, 1, 4, 2])
    with pytest.raises(InvalidConfigError, match="game is over"):
        traced_iteration(MCTS(SearchConfig()), over)
    small = MCTS(SearchConfig(max_nodes=3, seed=0))
    state = game.new_initial_state()
    traced_iteration(small, state)
    traced_iteration(small, state)
    with pytest.raises(InvalidConfigError, match="max_nodes=3"):
        traced_iteration(small, state)


def test_to_dict_is_json_and_ids_are_action_paths() -> None:
    state = mctslab.make("tic_tac_toe").new_initial_state()
    searcher, traces = steps(SearchConfig(seed=5), state, 25)
    for trace in traces:
        data = trace.to_dict()
        text = json.dumps(data, allow_nan=False)  # unvisited children: uct None
        assert json.loads(text)["path"] == list(trace.path)
    root = searcher.root
    assert root is not None
    grandchild = next(ch for ch in root.children if ch.children).children[0]
    assert node_id(root) == ""
    assert node_id(grandchild) == f"{grandchild.parent.action}.{grandchild.action}"  # type: ignore[union-attr]


def test_tree_at_reroots_like_a_search_and_draws_nothing() -> None:
    game = mctslab.make("tic_tac_toe")
    searcher, _ = steps(SearchConfig(seed=1), game.new_initial_state(), 50)
    assert searcher.root is not None
    kept = max(searcher.root.children, key=lambda n: n.visits)
    before = searcher.rng.state
    root, nodes = tree_at(searcher, game.state_from_actions([kept.action]))
    assert root is kept and root.parent is None
    assert nodes == tree_size(searcher)[0] == len(_walk(root))
    assert searcher.rng.state == before
    assert tree_size(MCTS(SearchConfig())) == (0, 0)


def _walk(node: Node) -> list[Node]:
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        out.append(n)
        stack.extend(n.children)
    return out


def test_puct_steps_record_priors_the_evaluators_value_and_puct_scores() -> None:
    state = mctslab.make("tic_tac_toe").new_initial_state()
    searcher = MCTS(puct(3, evaluator="heuristic", mix=0.25, c=1.5))
    first = traced_iteration(searcher, state)
    assert first.selection_rule == "puct" and first.c == 1.5
    # The root is evaluated: its nine children are added at once, with uniform priors.
    exp = first.expansion
    assert exp is not None and exp.node == exp.parent == "" and exp.added == 9
    assert exp.priors is not None and [p.action for p in exp.priors] == list(range(9))
    assert sum(p.prior for p in exp.priors) == pytest.approx(1.0)
    assert exp.priors[4].label == state.action_to_string(4)
    sim = first.simulation
    assert sim.kind == "evaluation" and sim.evaluator == "heuristic" and sim.mix == 0.25
    assert sim.value is not None and sim.playout_rewards is not None and sim.actions
    expected = [0.75 * v + 0.25 * z for v, z in zip(sim.value, sim.playout_rewards, strict=True)]
    assert list(sim.rewards) == pytest.approx(expected)
    second = traced_iteration(searcher, state)
    (level,) = second.selection
    assert all(c.prior == pytest.approx(1 / 9) for c in level.children)
    chosen = next(c for c in level.children if c.chosen)
    assert chosen.uct == max(c.uct for c in level.children)
    assert chosen.uct == pytest.approx(0.0 + 1.5 * (1 / 9) * 1.0)  # fpu 0, sqrt(1) / (1 + 0)
    exp = second.expansion
    assert exp is not None and exp.node == exp.parent == str(chosen.action)
    assert exp.label == chosen.label and exp.added == 8
    data = json.loads(json.dumps(second.to_dict(), allow_nan=False))
    assert data["expansion"]["priors"][0]["prior"] == pytest.approx(1 / 8)
    assert data["simulation"]["value"] is not None


def test_uniform_rollout_steps_are_playouts_and_uct_steps_have_no_priors() -> None:
    state = mctslab.make("tic_tac_toe").new_initial_state()
    trace = traced_iteration(MCTS(puct(1)), state)
    assert trace.simulation.kind == "playout" and trace.simulation.evaluator == "uniform+rollout"
    assert trace.simulation.value is None and trace.simulation.actions
    uct = traced_iteration(MCTS(SearchConfig(seed=1)), state)
    assert uct.selection_rule == "uct" and uct.expansion is not None
    assert uct.expansion.priors is None and uct.simulation.evaluator is None


def test_move_root_frees_what_the_move_left_behind_without_the_cyclic_collector() -> None:
    state = mctslab.make("tic_tac_toe").new_initial_state()
    searcher = MCTS(SearchConfig(iterations=2000, seed=0))
    searcher.search(state)
    root = searcher.root
    assert root is not None
    keep = max(root.children, key=lambda n: n.visits)
    kept_visits = keep.visits
    state.apply_action(keep.action)
    gc.collect()
    gc.disable()
    try:
        move_root(searcher, state)
        assert searcher.root is keep and keep.visits == kept_visits and keep.children
        assert root.children == []  # the rest of the old tree, unlinked
        del root
        assert gc.collect() < 50  # nothing of the 2000-node tree was left to the collector
    finally:
        gc.enable()


def test_move_root_at_a_terminal_position_forgets_the_tree() -> None:
    state = mctslab.make("tic_tac_toe").new_initial_state()
    searcher = MCTS(SearchConfig(iterations=200, seed=0))
    searcher.search(state)
    old = searcher.root
    assert old is not None and old.children
    for action in (4, 0, 1, 2, 7):  # the centre column: X wins
        state.apply_action(action)
    assert state.is_terminal()
    move_root(searcher, state)
    assert searcher.root is None and old.children == []
