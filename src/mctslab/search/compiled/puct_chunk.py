"""PUCT (AlphaGo's selection rule) in compiled code.

The tree in numba, leaf batches handed to Python. The same search as the reference
engine's PUCT (:mod:`mctslab.search.puct`, :func:`mctslab.search.reference.phases.iterate_batch`),
choice for choice: the phases are UCT's (:mod:`~mctslab.search.compiled.phases`:
:func:`select` with :func:`puct_child` as its rule, :func:`simulate`, :func:`backpropagate`),
and what PUCT adds is:

- :func:`puct_child` (:mod:`~mctslab.search.compiled.selection`): ``Q + c(N) * P *
  sqrt(N) / (1 + N_child)``, float for float as :func:`~mctslab.search.puct.puct_score`;
  at the root, this search's noisy priors;
- :func:`expand_with_priors` (:mod:`~mctslab.search.compiled.phases`): every legal action
  becomes a child, with its prior (kept in an array beside the :class:`Tree`, 8 bytes a
  node, so that UCT's trees stay at 31 bytes);
- :func:`run_puct_chunk` (here): collects up to ``batch`` leaves with virtual loss. A
  built-in evaluator (``uniform+rollout``, ``uniform``, ``heuristic``) is computed right there,
  in compiled code; for any other the chunk writes the leaves' observation tensors
  (the game's ``observation`` kernel) and legal masks to a :class:`Pending` batch and
  returns ``NEED_EVAL``: Python asks the evaluator, writes the priors and values back,
  and the next call finishes those leaves first. It returns ``NEED_NOISE`` when the
  search is about to choose at the expanded root for the first time with Dirichlet
  noise on: Python draws the noise from the same generator (as the reference does at
  that point) and writes the noisy root priors.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit

from mctslab.search.compiled.chunk import chunk_stop
from mctslab.search.compiled.options import (
    EVAL_EXTERNAL,
    EVAL_HEURISTIC,
    EVAL_ROLLOUT,
    EVAL_UNIFORM,
    GO_ON,
    ITERATIONS,
    NEED_EVAL,
    NEED_NOISE,
    NODE_BUDGET,
    NODES,
    NOISE_DUE,
    NOISY,
    NOT_WIN_LOSS,
    PENDING,
    make_scratch,
    read_options,
)
from mctslab.search.compiled.phases import (
    backpropagate,
    expand_with_priors,
    leaf_rewards,
    open_node,
    select,
    simulate,
    value_rewards,
)
from mctslab.search.compiled.playouts import game_observation
from mctslab.search.compiled.selection import gumbel_child, puct_child
from mctslab.search.compiled.tree import (
    OPENED,
    PRIOR_ROW,
    RAW_ROW,
    ROOT,
    UNPROVEN,
    borrow,
    borrow_tree,
)


class Pending(NamedTuple):
    """A batch of leaves waiting for their evaluation (``B`` = the batch size).

    Attributes:
        paths: int64 ``[B, max_depth]``, the node ids from the root to each leaf.
        depths: int64 ``[B]``, each leaf's depth (``paths[k, depths[k]]`` is the leaf).
        states: int64 ``[B, state_size]``, each leaf's position.
        observations: float32 ``[B, observation_size]`` (``[B, 1]`` when the game has
            no ``observation`` kernel), for the player to move.
        masks: bool ``[B, num_actions]``, the legal actions.
        to_play: int64 ``[B]``, the player to move.
        priors: float64 ``[B, num_actions]``, written by Python: normalised over the legal.
        values: float64 ``[B]``, written by Python: in ``[-1, 1]`` for the player to move.
        halving: int64, Gumbel's Sequential Halving schedule (written by Python).
    """

    paths: Any
    depths: Any
    states: Any
    observations: Any
    masks: Any
    to_play: Any
    priors: Any
    values: Any
    halving: Any


def make_pending(
    batch: int,
    depth: int,
    state_size: int,
    observation_size: int,
    num_actions: int,
    halving: int = 1,
) -> Pending:
    return Pending(
        np.zeros((batch, depth), dtype=np.int64),
        np.zeros(batch, dtype=np.int64),
        np.zeros((batch, state_size), dtype=np.int64),
        np.zeros((batch, max(1, observation_size)), dtype=np.float32),
        np.zeros((batch, num_actions), dtype=np.bool_),
        np.zeros(batch, dtype=np.int64),
        np.zeros((batch, num_actions), dtype=np.float64),
        np.zeros(batch, dtype=np.float64),
        np.zeros(max(1, halving), dtype=np.int64),
    )


class Priors(NamedTuple):
    """PUCT's arrays beside the :class:`Tree` (views of the driver's ``extra`` and
    ``root_prior``).

    Attributes:
        prior: float64 ``[capacity]``, each node's prior.
        raw: float64 ``[capacity]``, each node's own value (the evaluator's, or its
            playout's), which Gumbel's completed Q-values read.
        root: float64 ``[2, num_actions]``, by action: the noisy root priors
            (``PRIOR_ROW``) and the root actions' Gumbel noise (``RAW_ROW``).
    """

    prior: Any
    raw: Any
    root: Any


# 15 parameters: the arrays a built-in game's cached wrapper (kernel_chunks) takes and
# passes on, as run_chunk's (numba caches the wrapper, a function of arrays, and not one
# that takes functions); the loop itself (puct_chunk) takes named tuples.
@njit(inline="always", nogil=True)
def run_puct_chunk(  # type: ignore[no-untyped-def]
    kernels,
    tree,
    extra,
    root_prior,
    root_state,
    params,
    cfg_i,
    cfg_f,
    ctl,
    rng,
    bufs,
    fbufs,
    pending,
    capacity,
    max_chunk,
):
    """Run up to ``max_chunk`` PUCT iterations; return why it stopped (a code of
    :mod:`~mctslab.search.compiled.options`, ``NEED_EVAL`` and ``NEED_NOISE`` included).

    As :func:`~mctslab.search.compiled.chunk.run_chunk`, but the game's kernels come as a
    :class:`~.options.Kernels` (``observation`` included: ``None`` where the game has
    none), plus: ``extra`` (float64 ``[2, nodes]``: a node's prior, its own value),
    ``root_prior`` (float64 ``[2, num_actions]``: the noisy root priors, the root actions'
    Gumbel noise), ``pending`` (a :class:`Pending`), ``fbufs`` rows 0-2 (rewards, returns,
    a playout's rewards for ``mix``).
    """
    extra = borrow(extra)
    priors = Priors(extra[PRIOR_ROW], extra[RAW_ROW], borrow(root_prior))
    scratch = make_scratch(borrow(bufs), borrow(fbufs), root_state.shape[0], 0)
    return puct_chunk(
        kernels, read_options(cfg_i, cfg_f), borrow_tree(tree), priors, borrow(root_state),
        borrow(params), borrow(ctl), borrow(rng), scratch, borrow_pending(pending), capacity,
        max_chunk,
    )  # fmt: skip


@njit(inline="always")
def borrow_pending(pending):  # type: ignore[no-untyped-def]
    """The :class:`Pending` of borrowed views of ``pending``'s arrays (see
    :func:`~.tree.borrow`): the helpers of the loop read them at every iteration, and a
    borrowed view costs no reference counting."""
    return Pending(
        borrow(pending.paths),
        borrow(pending.depths),
        borrow(pending.states),
        borrow(pending.observations),
        borrow(pending.masks),
        borrow(pending.to_play),
        borrow(pending.priors),
        borrow(pending.values),
        borrow(pending.halving),
    )


@njit(inline="always")
def puct_chunk(
    kernels,
    options,
    tree,
    priors,
    root_state,
    params,
    ctl,
    rng,
    scratch,
    pending,
    capacity,
    max_chunk,
):  # type: ignore[no-untyped-def]
    """The PUCT chunk's loop, as the reference's ``iterate_batch``: finish the batch whose
    evaluation Python has just written, check the budgets, collect the next batch of
    leaves, and hand it to Python (``NEED_EVAL``) unless a built-in evaluator finishes it
    at the top of the next turn."""
    num_actions = capacity[1]
    if tree.flags[ROOT] == 0:
        scratch.state[:] = root_state
        open_node(kernels, options, tree, ROOT, scratch.state, params, scratch)
    done = 0
    k = ctl[PENDING]  # leaves whose evaluation Python has just written
    while True:
        if k > 0:
            finish_batch(kernels, options, tree, priors, params, ctl, rng, scratch, pending, k)
            done += k
            k = 0
        # The budget checks, in the reference's order (see run_chunk).
        code = chunk_stop(
            options, tree, ctl, done, max_chunk, options.batch * num_actions, capacity[0]
        )
        if code != GO_ON:
            return code
        if (
            ctl[NOISE_DUE]
            and tree.first_child[ROOT] >= 0
            and tree.n_untried[ROOT] == 0
            and tree.flags[ROOT] == OPENED
            and tree.proven[ROOT] == UNPROVEN
        ):
            return NEED_NOISE  # the reference draws it at this choice
        limit = min(options.batch, max_chunk - done)
        code, k, backed = collect_leaves(
            kernels, options, tree, priors, root_state, params, ctl, scratch, pending, limit,
            num_actions,
        )  # fmt: skip
        if code != GO_ON:
            return code
        done += backed
        if k == 0:
            continue
        if options.evaluator == EVAL_EXTERNAL:
            hand_over(kernels, tree, params, scratch, pending, k)
            ctl[PENDING] = k
            return NEED_EVAL


@njit(inline="always")
def finish_batch(kernels, options, tree, priors, params, ctl, rng, scratch, pending, k):  # type: ignore[no-untyped-def]
    """Finish the ``k`` leaves of ``pending``, as the reference's ``iterate_batch``: the
    virtual loss comes off, every leaf gets its children (:func:`expand_with_priors`),
    then each leaf's value (the evaluator's, mixed with a playout's under ``mix``; a
    playout's under ``uniform+rollout``) is backed up."""
    paths, depths, states = pending.paths, pending.depths, pending.states
    prior, raw = priors.prior, priors.raw
    rewards, rets, played = scratch.rewards, scratch.rets, scratch.played
    vl = options.virtual_loss
    evaluator = options.evaluator
    mix = options.mix
    ctl[PENDING] = 0
    for j in range(k):
        for d in range(depths[j] + 1):
            tree.visits[paths[j, d]] -= vl
    for j in range(k):
        leaf = paths[j, depths[j]]
        expand_with_priors(
            kernels, tree, prior, leaf, states[j], params, scratch.legal, pending.priors[j],
            evaluator != EVAL_EXTERNAL, ctl,
        )  # fmt: skip
        if evaluator == EVAL_HEURISTIC:
            kernels.heuristic(states[j], params, rets)
            pending.values[j] = min(1.0, max(-1.0, rets[tree.to_play[leaf]]))
        elif evaluator == EVAL_UNIFORM:
            pending.values[j] = 0.0
    for j in range(k):
        leaf = paths[j, depths[j]]
        if evaluator == EVAL_ROLLOUT:
            simulate(kernels, options, states[j], params, rng, scratch, rewards)
        else:
            value_rewards(pending.values[j], tree.to_play[leaf], rewards)
            if mix > 0.0:
                simulate(kernels, options, states[j], params, rng, scratch, played)
                for p in range(rewards.shape[0]):
                    rewards[p] = (1.0 - mix) * rewards[p] + mix * played[p]
        raw[leaf] = 2.0 * rewards[tree.to_play[leaf]] - 1.0
        backpropagate(tree, paths[j], depths[j], rewards, options.solver)
    ctl[ITERATIONS] += k


@njit(inline="always")
def collect_leaves(
    kernels, options, tree, priors, root_state, params, ctl, scratch, pending, limit, num_actions
):  # type: ignore[no-untyped-def]
    """Descend to up to ``limit`` leaves, as the reference's ``iterate_batch``: by
    :func:`puct_child` (or :func:`gumbel_child`), each waiting leaf with virtual loss on
    its path, its path, depth and position written to ``pending``; a terminal or proven
    leaf is backed up at once. Stops at a collision (a leaf already waiting) or where
    the leaves' children would pass the node budget. Returns ``(GO_ON, leaves waiting,
    leaves backed up)``, or ``NOT_WIN_LOSS`` / ``NODE_BUDGET`` first."""
    paths, depths, states = pending.paths, pending.depths, pending.states
    state = scratch.state
    solver = options.solver
    max_nodes = options.max_nodes
    choice = (
        options.c, options.c_base, options.fpu, solver, priors.prior, priors.root,
        ctl[NOISY] != 0,
    )  # fmt: skip
    g_choice = (
        priors.prior, priors.raw, priors.root, pending.halving, num_actions,
        options.value_scale, options.maxvisit_init, solver,
    )  # fmt: skip
    k = 0
    backed = 0
    grow = 0
    while k + backed < limit:
        state[:] = root_state
        if options.gumbel:
            depth = select(
                kernels, options, gumbel_child, g_choice, tree, state, params, paths[k], scratch
            )
        else:
            depth = select(
                kernels, options, puct_child, choice, tree, state, params, paths[k], scratch
            )
        if depth < 0:
            return NOT_WIN_LOSS, k, backed
        leaf = paths[k, depth]
        if not (tree.n_untried[leaf] > 0 and tree.proven[leaf] == UNPROVEN):
            # Terminal or proven: its exact rewards, backed up at once.
            leaf_rewards(kernels, options, tree, leaf, state, params, scratch)
            backpropagate(tree, paths[k], depth, scratch.rewards, solver)
            ctl[ITERATIONS] += 1
            backed += 1
            continue
        waiting = False
        for j in range(k):
            if paths[j, depths[j]] == leaf:
                waiting = True
        if waiting:
            break  # a collision: this leaf already waits for its value
        if max_nodes >= 0 and ctl[NODES] + grow + tree.n_untried[leaf] > max_nodes:
            if k == 0 and backed == 0:
                return NODE_BUDGET, k, backed
            break
        grow += tree.n_untried[leaf]
        depths[k] = depth
        states[k, :] = state
        for d in range(depth + 1):
            tree.visits[paths[k, d]] += options.virtual_loss
        k += 1
    return GO_ON, k, backed


@njit(inline="always")
def hand_over(kernels, tree, params, scratch, pending, k):  # type: ignore[no-untyped-def]
    """Python's turn: the player to move, observation tensor (the game's ``observation``
    kernel) and legal moves of each of the ``k`` waiting leaves, written to ``pending``."""
    paths, depths, states = pending.paths, pending.depths, pending.states
    legal = scratch.legal
    for j in range(k):
        leaf = paths[j, depths[j]]
        p = tree.to_play[leaf]
        pending.to_play[j] = p
        game_observation(kernels.observation, states[j], params, p, pending.observations[j])
        pending.masks[j, :] = False
        n = kernels.legal(states[j], params, legal)
        for i in range(n):
            pending.masks[j, legal[i]] = True


# 16 parameters: the arrays of every search of the round, which the cached round wrapper
# (kernel_chunks) takes and passes on, as run_puct_chunk's.
@njit(inline="always", nogil=True)
def run_puct_round(  # type: ignore[no-untyped-def]
    kernels,
    trees,
    extras,
    root_priors,
    root_states,
    params,
    cfg_i,
    cfg_f,
    ctls,
    rngs,
    bufs,
    fbufs,
    pend,
    capacities,
    max_chunks,
    codes,
):
    """One round of many PUCT searches of one game and config in one call
    (:func:`~mctslab.search.compiled.batch.search_many`): search ``j`` runs
    :func:`run_puct_chunk` on its own tree (``trees[j]``, ``extras[j]``: typed lists),
    root, counters (``ctls[j]``) and generator (``rngs[j]``), its pending leaves in row
    ``j`` of ``pend`` (a :class:`Pending` of arrays with a leading search axis), and
    writes its return code to ``codes[j]``; a search whose code is negative (finished) is
    skipped. The scratch buffers are shared: the searches run one after the other."""
    for j in range(len(trees)):
        if codes[j] < 0:
            continue
        pending = Pending(
            pend.paths[j],
            pend.depths[j],
            pend.states[j],
            pend.observations[j],
            pend.masks[j],
            pend.to_play[j],
            pend.priors[j],
            pend.values[j],
            pend.halving[j],
        )
        codes[j] = run_puct_chunk(
            kernels, trees[j], extras[j], root_priors[j], root_states[j], params, cfg_i, cfg_f,
            ctls[j], rngs[j], bufs, fbufs, pending, capacities[j], max_chunks[j],
        )  # fmt: skip
    return 0
