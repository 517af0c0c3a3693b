"""Sanity checks of the mctx oracle (``mctx_oracle.py``): the random game trees and
mctx's MuZero search on them. Skipped without mctx, an error under
``MCTSLAB_REQUIRE_EXTRAS`` (as the OpenSpiel tests treat pyspiel)."""

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

from mctx_oracle import RandomTree, mctx_gumbel, mctx_muzero, mctx_search

from mctslab.core.testing import check_game

SEEDS = [0, 1, 2, 3, 4]


@pytest.mark.parametrize("seed", SEEDS)
def test_random_tree_passes_check_game(seed: int) -> None:
    tree = RandomTree(seed)
    assert check_game(tree.game(), n_games=30, seed=seed) > 0
    assert tree.legal_actions(0) and not tree.terminal[0]
    assert set(np.unique(tree.terminal_return[tree.terminal])) <= {-1.0, 0.0, 1.0}
    # The table's numbers are exact in float32.
    live = ~tree.terminal
    finite = tree.prior_logits[live][np.isfinite(tree.prior_logits[live])]
    assert np.array_equal(finite.astype(np.float32).astype(np.float64), finite)
    assert np.array_equal(tree.value.astype(np.float32).astype(np.float64), tree.value)


@pytest.mark.parametrize("seed", SEEDS)
def test_mctx_muzero_visits_legal_root_actions(seed: int) -> None:
    tree = RandomTree(seed)
    action, visits = mctx_muzero(tree, 24)
    assert visits.shape == (tree.num_actions,)
    assert int(visits.sum()) == 24
    legal = tree.legal_actions(0)
    assert all(visits[a] == 0 for a in range(tree.num_actions) if a not in legal)
    assert action in legal and visits[action] == visits.max()


def test_mctx_muzero_is_deterministic() -> None:
    for seed in SEEDS[:3]:
        tree = RandomTree(seed)
        a1, v1 = mctx_muzero(tree, 24)
        a2, v2 = mctx_muzero(tree, 24)
        assert a1 == a2 and np.array_equal(v1, v2)


def test_mctx_computes_in_float64_and_gumbel_runs() -> None:
    tree = RandomTree(7)
    assert mctx_search(tree, "muzero", 16).dtype == "float64"
    action, visits, weights = mctx_gumbel(tree, 16, 4)
    assert int(visits.sum()) == 16 and action in tree.legal_actions(0)
    assert weights.sum() == pytest.approx(1.0)
