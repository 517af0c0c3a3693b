"""The lessons' teaching aids (mctslab.teaching): the bandit simulator against its
definitions, and the raw-reward, any-log UCB and its worked example against the texts."""

from __future__ import annotations

import math

import numpy as np
import pytest

import mctslab
from mctslab.core.errors import InvalidConfigError
from mctslab.teaching.bandits import BanditError, regret_curves, simulate
from mctslab.teaching.graphs import game_graph, to_dot
from mctslab.teaching.listing import mcts
from mctslab.teaching.ucb import ucb, worked_example


def test_a_run_is_its_seeds_and_its_regret_is_the_expected_loss() -> None:
    means = [0.2, 0.5, 0.8]
    a = simulate(means, "epsilon-greedy", steps=500, seed=7)
    b = simulate(means, "epsilon-greedy", steps=500, seed=7)
    assert np.array_equal(a.arms, b.arms) and np.array_equal(a.rewards, b.rewards)
    assert not np.array_equal(a.arms, simulate(means, "epsilon-greedy", 500, seed=8).arms)
    # Pseudo-regret: the best mean minus the chosen arm's, summed; pulls count the arms.
    assert np.allclose(a.regret, np.cumsum(0.8 - np.asarray(means)[a.arms]))
    assert a.pulls.tolist() == np.bincount(a.arms, minlength=3).tolist()
    assert a.arms[:3].tolist() == [0, 1, 2]  # each arm once first


def test_ucb1_pulls_the_worse_arm_about_logarithmically() -> None:
    """Auer et al.'s bound: a worse arm with gap Delta is pulled at most about
    8 ln T / Delta^2 times (plus a constant); its pulls grow far slower than T."""
    pulls = {
        steps: simulate([0.4, 0.6], "ucb1", steps=steps, seed=3).pulls[0]
        for steps in (1_000, 10_000)
    }
    assert pulls[10_000] < 8 * math.log(10_000) / 0.2**2 + 2
    assert pulls[10_000] < 3 * pulls[1_000]  # ten times the pulls, not ten times the errors


def test_greedy_can_lock_onto_a_worse_arm_and_epsilon_never_stops_exploring() -> None:
    greedy = simulate([0.9, 0.92], "greedy", steps=10_000, seed=0)
    assert greedy.pulls[0] > 9_900  # one unlucky evening at the better one
    explorer = simulate([0.9, 0.92], "epsilon-greedy", steps=10_000, seed=0, epsilon=0.2)
    assert explorer.pulls[0] > 0.2 * 10_000 / 2 * 0.8  # about epsilon / K of the pulls


def test_regret_curves_carry_intervals_over_seeds() -> None:
    [curve] = regret_curves([0.3, 0.7], ["ucb1"], steps=300, seeds=10)
    runs = np.stack([simulate([0.3, 0.7], "ucb1", 300, s).regret for s in range(10)])
    assert curve.runs == 10 and np.allclose(curve.mean, runs.mean(axis=0))
    assert np.all(curve.low <= curve.mean) and np.all(curve.mean <= curve.high)


@pytest.mark.parametrize(
    ("call", "word"),
    [
        (lambda: simulate([], "ucb1", 10), "means"),
        (lambda: simulate([1.5], "ucb1", 10), "means"),
        (lambda: simulate([0.5], "softmax", 10), "softmax"),
        (lambda: simulate([0.5], "ucb1", 0), "steps"),
        (lambda: simulate([0.5], "epsilon-greedy", 5, epsilon=2.0), "epsilon"),
        (lambda: regret_curves([0.5], seeds=1), "seeds"),
        (lambda: ucb(1.0, 1, 2, log_base=1.0), "log base"),
    ],
)
def test_bad_input_is_a_value_error_naming_it(call: object, word: str) -> None:
    with pytest.raises(InvalidConfigError, match=word) as err:
        call()  # type: ignore[operator]
    assert isinstance(err.value, ValueError)
    if word != "log base":
        assert isinstance(err.value, BanditError)


def test_ucb_is_the_standard_formula_with_the_natural_log() -> None:
    assert ucb(0.5, 0, 10) == math.inf
    assert ucb(0.5, 4, 100) == pytest.approx(0.5 + math.sqrt(2) * math.sqrt(math.log(100) / 4))
    assert ucb(0.5, 4, 100, c=0.0) == 0.5


def test_the_worked_example_matches_the_text_and_the_choice_ignores_the_base() -> None:
    """The Vietnamese text's example: UCT(B) = 10.6907 < UCT(C) = 10.9769 at the fourth
    iteration with log10; 11.0481 and 11.4823 with ln; C selected and expanded into G
    either way; any base selects the same nodes on this tree."""
    ten = worked_example((20, 10, 0, 15), log_base=10)
    assert [round(v, 4) for v in ten[3].scores.values()] == [10.6907, 10.9769]
    assert ten[3].path == ("A", "C", "G") and ten[3].expanded == "C"
    assert ten[2].expanded == "B" and ten[2].simulated == "E"
    assert ten[3].after["A"] == (4, 11.25)
    for base in (2.0, math.e, 10.0, 100.0):
        assert [s.path for s in worked_example(log_base=base)] == [s.path for s in ten]


def test_the_merged_graph_of_tic_tac_toe_has_its_5478_positions_and_draws() -> None:
    """The known count of tic-tac-toe's legal positions (the empty board included) is
    5,478; backward induction values the start a draw, as the exact solver does."""
    start = mctslab.make("tic_tac_toe").new_initial_state()
    graph = game_graph(start, merge=True, max_nodes=6_000, label=str)
    assert len(graph.nodes) == 5_478
    assert graph.nodes[0].returns == (0.0, 0.0)
    assert mctslab.solve(start).outcome == 0
    # A node's history rebuilds it; its best actions are the exact solver's, as a set.
    game = mctslab.make("tic_tac_toe")
    for node in graph.nodes[:: len(graph.nodes) // 150]:
        state = game.state_from_actions(list(node.history))
        assert str(state) == node.label
        if node.player >= 0:
            assert set(node.best_actions) == set(mctslab.solve(state).best_actions)
    # Every non-final node's best moves keep its value for the mover.
    for node in graph.nodes[:200]:
        kids = {move: graph.node(b) for a, b, move in graph.edges if a == node.id}
        for move in node.best:
            assert kids[move].returns == node.returns


def test_a_graph_refuses_chance_and_size() -> None:
    with pytest.raises(InvalidConfigError, match="chance"):
        game_graph(mctslab.make("pig").new_initial_state())
    with pytest.raises(InvalidConfigError, match="more than 100 nodes"):
        game_graph(mctslab.make("tic_tac_toe").new_initial_state(), max_nodes=100)


def test_the_drawing_shapes_the_mover_and_fills_the_outcome() -> None:
    graph = game_graph(mctslab.make("bachet").new_initial_state(), merge=True)
    dot = to_dot(graph, 'Bachet "4"')
    assert dot.startswith("digraph game {") and 'label="Bachet \\"4\\""' in dot
    assert dot.count("shape=box") == 3 and dot.count("shape=ellipse") == 3
    assert dot.count("doubleoctagon") == 2 and dot.count('style="bold"') >= 1


def test_the_listing_finds_wins_and_blocks_and_its_perspective_bug_does_not() -> None:
    """The listing's UCT against the exact solver on the two lesson positions: the
    correct credit plays a solver's best move in every seed; the player-to-move credit
    plays a losing or drawing move instead."""
    game = mctslab.make("tic_tac_toe")
    for moves in ([0, 3, 1, 4], [0, 3, 8, 4]):
        state = game.state_from_actions(moves)
        best = set(mctslab.solve(state).best_actions)
        assert all(mcts(state, 300, seed=s) in best for s in range(5))
        assert not any(mcts(state, 300, seed=s, credit="to_move") in best for s in range(5))


def test_the_listing_is_its_seed_and_refuses_what_it_cannot_do() -> None:
    state = mctslab.make("tic_tac_toe").new_initial_state()
    assert mcts(state, 50, seed=3) == mcts(state, 50, seed=3)
    with pytest.raises(InvalidConfigError, match="iterations"):
        mcts(state, 0)
    with pytest.raises(InvalidConfigError, match="exploration"):
        mcts(state, 10, exploration="triple")  # type: ignore[arg-type]
    over = mctslab.make("tic_tac_toe").state_from_actions([0, 3, 1, 4, 2])
    with pytest.raises(InvalidConfigError, match="over"):
        mcts(over, 10)


def test_the_listings_outcome_weights_change_what_it_plays() -> None:
    """O must block a3 to draw: with a draw between a win and a loss it does (both
    scales), with a draw worth a loss it never does (the lesson's position)."""
    state = mctslab.make("tic_tac_toe").state_from_actions([2, 1, 7, 5, 8])
    assert mctslab.solve(state).best_actions == (6,)
    assert all(mcts(state, 400, seed=s) == 6 for s in range(5))
    assert all(mcts(state, 400, seed=s, outcomes=(1.0, 0.0, -1.0)) == 6 for s in range(5))
    assert not any(mcts(state, 400, seed=s, outcomes=(1.0, 0.0, 0.0)) == 6 for s in range(5))
