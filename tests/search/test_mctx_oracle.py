"""PUCT and Gumbel against DeepMind's mctx on random game trees (``mctx_oracle.py``).

The same table "network" feeds both: priors ``softmax(logits)`` and values for the
player to move. Settings that make them comparable:

- mctx's ``muzero_policy`` with ``qtransform_by_min_max(-1, 1)``: its normalised
  ``Q`` is our mean reward in ``[0, 1]``, and an unvisited child counts as
  ``min_value``: our ``fpu=0``; ``pb_c_init``/``pb_c_base`` are our ``c``/``c_base``;
  ``dirichlet_fraction=0`` (no root noise).
- mctx evaluates the root before its ``num_simulations`` descents; our first
  iteration is that evaluation, so ``iterations = num_simulations + 1``.
- the chosen action is the most visited one; where several tie in visits mctx draws
  among them, we take the best mean (the robust rule's tie-break).
- mctx breaks exact ties with ``1e-7`` uniform noise, we by the lowest action; the
  table's logits are distinct, so exact ties do not arise (near ties within ``1e-7``
  could differ; none occurs on these seeds).
"""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from conftest import extras_required

# Found, not imported: jax runs in the oracle's own child process (mctx_oracle.mctx_search).
if importlib.util.find_spec("mctx") is None:
    if extras_required():
        raise ImportError("mctx (a dev extra) is required: MCTSLAB_REQUIRE_EXTRAS is set")
    pytest.skip("needs mctx and jax: pip install mctx", allow_module_level=True)

from mctx_oracle import RandomTree, mctx_gumbel, mctx_muzero

from mctslab.search.config import SearchConfig
from mctslab.search.evaluators import LeafBatch
from mctslab.search.mcts import MCTS
from mctslab.search.puct import PuctConfig


def table_evaluator(tree: RandomTree):  # type: ignore[no-untyped-def]
    """The tree's table network as an evaluator: softmax of the node's logits, its value."""

    def evaluate(batch: LeafBatch) -> tuple[np.ndarray, np.ndarray]:
        nodes = [int(s.key()) for s in batch.states]  # type: ignore[attr-defined]
        logits = tree.prior_logits[nodes]
        e = np.exp(logits - logits.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True), tree.value[nodes]

    return evaluate


def our_puct(tree: RandomTree, simulations: int, **options: object) -> tuple[int, np.ndarray]:
    puct = PuctConfig(c=1.25, c_base=19652.0, fpu=0.0, evaluator=table_evaluator(tree), **options)  # type: ignore[arg-type]
    config = SearchConfig(iterations=simulations + 1, seed=0, puct=puct)
    result = MCTS(config).search(tree.game().new_initial_state())
    visits = np.zeros(tree.num_actions, dtype=np.int64)
    for ch in result.children:
        visits[ch.action] = ch.visits
    return result.action, visits


CASES = [
    (seed, sims, shape) for seed in range(12) for sims in (8, 25, 64) for shape in ((5, 4), (3, 6))
]


@pytest.mark.parametrize(("seed", "simulations", "shape"), CASES)
def test_puct_matches_mctx_muzero_policy(
    seed: int, simulations: int, shape: tuple[int, int]
) -> None:
    tree = RandomTree(seed, num_actions=shape[0], depth=shape[1])
    action, visits = mctx_muzero(tree, simulations, pb_c_init=1.25, pb_c_base=19652.0)
    ours, our_visits = our_puct(tree, simulations)
    assert our_visits.tolist() == visits.tolist()
    # The most visited action; on a tie in visits mctx draws among the tied ones (its
    # temperature-0 sample) and we take the best mean, so only a tie may differ.
    assert ours == action or visits[ours] == visits[action] == visits.max()


def test_a_different_constant_changes_the_visits_as_in_mctx() -> None:
    """The comparison can fail: c = 4 against mctx's 1.25 gives other visit counts."""
    tree = RandomTree(3, num_actions=5, depth=4)
    _, visits = mctx_muzero(tree, 64, pb_c_init=1.25, pb_c_base=19652.0)
    puct = PuctConfig(c=4.0, c_base=19652.0, evaluator=table_evaluator(tree))
    result = MCTS(SearchConfig(iterations=65, puct=puct)).search(tree.game().new_initial_state())
    ours = np.zeros(tree.num_actions, dtype=np.int64)
    for ch in result.children:
        ours[ch.action] = ch.visits
    assert ours.tolist() != visits.tolist()
    _, wide = mctx_muzero(tree, 64, pb_c_init=4.0, pb_c_base=19652.0)
    assert ours.tolist() == wide.tolist()


GUMBEL_CASES = [
    (seed, sims, considered, shape)
    for seed in range(8)
    for sims in (8, 25, 64)
    for considered in (2, 4, 16)
    for shape in ((5, 4), (6, 3))
]


@pytest.mark.parametrize(("seed", "simulations", "considered", "shape"), GUMBEL_CASES)
def test_gumbel_matches_mctx_gumbel_muzero_policy(
    seed: int, simulations: int, considered: int, shape: tuple[int, int]
) -> None:
    """Gumbel noise at scale 0 (mctx's ``gumbel_scale=0``), mctx's defaults otherwise
    (``value_scale=0.1``, ``maxvisit_init=50``, mixed value, rescaled Q): the same move,
    root visit counts and improved policy (``action_weights``)."""
    tree = RandomTree(seed, num_actions=shape[0], depth=shape[1])
    action, visits, weights = mctx_gumbel(tree, simulations, considered)
    puct = PuctConfig(
        gumbel=True, considered=considered, gumbel_scale=0.0, evaluator=table_evaluator(tree)
    )
    config = SearchConfig(iterations=simulations + 1, puct=puct)
    result = MCTS(config).search(tree.game().new_initial_state())
    ours = np.zeros(tree.num_actions, dtype=np.int64)
    policy = np.zeros(tree.num_actions)
    for ch in result.children:
        ours[ch.action] = ch.visits
        policy[ch.action] = ch.policy
    assert ours.tolist() == visits.tolist()
    assert result.action == action
    assert np.allclose(policy, weights, atol=1e-9)
