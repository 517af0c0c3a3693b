"""PUCT (AlphaGo's selection rule) in compiled code.

The tree in numba, leaf batches handed to Python. The same search as the reference
engine's PUCT (:mod:`mctslab.search.puct`, :func:`mctslab.search.mcts.iterate_batch`),
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

from mctslab.search.compiled.options import (
    BATCH,
    C_BASE,
    CHUNK_DONE,
    CUTOFF_DEPTH,
    EVAL_EXTERNAL,
    EVAL_HEURISTIC,
    EVAL_ROLLOUT,
    EVAL_UNIFORM,
    EVALUATOR,
    FPU,
    GUMBEL,
    HIGH,
    IS_EXTENDED,
    ITERATIONS,
    MAX_NODES,
    MAXVISIT_INIT,
    MIN_UTILITY,
    MIX,
    NEED_EVAL,
    NEED_NOISE,
    NEED_SPACE,
    NODE_BUDGET,
    NODES,
    NOISE_DUE,
    NOISY,
    NOT_WIN_LOSS,
    PENDING,
    SIMULATION,
    SOLVER,
    SPAN,
    STOP_AGREEMENT,
    STOP_NODES,
    STOP_PROVEN,
    VALUE_SCALE,
    VERDICT_EVERY,
    VERDICT_THRESHOLD,
    VIRTUAL_LOSS,
    C,
)
from mctslab.search.compiled.phases import (
    backpropagate,
    expand_with_priors,
    leaf_rewards,
    open_node,
    scratch_rows,
    select,
    simulate,
    value_rewards,
)
from mctslab.search.compiled.playouts import game_observation
from mctslab.search.compiled.selection import agree, gumbel_child, puct_child
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


@njit(inline="always", nogil=True)
def run_puct_chunk(  # type: ignore[no-untyped-def]
    legal_fn,
    apply_fn,
    returns_fn,
    heuristic_fn,
    observation_fn,
    tree,
    prior,
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
    playout_fn=None,
    rollout_fn=None,
    heavy_fn=None,
    light_fn=None,
):
    """Run up to ``max_chunk`` PUCT iterations; return why it stopped (a code of
    :mod:`~mctslab.search.compiled`, or ``NEED_EVAL`` / ``NEED_NOISE``).

    As :func:`~mctslab.search.compiled.run_chunk`, plus: ``prior`` (float64 ``[2, nodes]``:
    a node's prior, its own value), ``root_prior`` (float64 ``[2, num_actions]``: the
    noisy root priors, the root actions' Gumbel noise),
    ``pending`` (a :class:`Pending`), ``fbufs`` rows 0-2 (rewards, returns, a
    playout's rewards for ``mix``). ``observation_fn`` is the game's observation
    kernel, or ``None``.
    """
    tree = borrow_tree(tree)
    extra = borrow(prior)
    prior = extra[PRIOR_ROW]
    raw = extra[RAW_ROW]
    root_prior = borrow(root_prior)
    root_state = borrow(root_state)
    ctl = borrow(ctl)
    rng = borrow(rng)
    bufs = borrow(bufs)
    fbufs = borrow(fbufs)
    simulation = cfg_i[SIMULATION]
    cutoff = (cfg_i[CUTOFF_DEPTH], cfg_i[VERDICT_EVERY], cfg_f[VERDICT_THRESHOLD])
    solver = cfg_i[SOLVER] != 0
    max_nodes = cfg_i[MAX_NODES]
    batch = cfg_i[BATCH]
    vl = cfg_i[VIRTUAL_LOSS]
    evaluator = cfg_i[EVALUATOR]
    gumbel = cfg_i[GUMBEL] != 0
    value_scale = cfg_f[VALUE_SCALE]
    maxvisit_init = cfg_f[MAXVISIT_INIT]
    c = cfg_f[C]
    c_base = cfg_f[C_BASE]
    fpu = cfg_f[FPU]
    mix = cfg_f[MIX]
    min_u = cfg_f[MIN_UTILITY]
    span = cfg_f[SPAN]
    max_u = min_u + span
    n_state = root_state.shape[0]
    num_actions = capacity[1]
    state, tmp1, tmp2, a_buf, b_buf, legal, safe = scratch_rows(bufs, n_state)
    rewards = fbufs[0]
    rets = fbufs[1]
    played = fbufs[2]
    paths, depths, states = pending.paths, pending.depths, pending.states
    no_amaf = bufs[7, :0]
    if tree.flags[ROOT] == 0:
        state[:] = root_state
        open_node(
            legal_fn, returns_fn, tree, ROOT, state, params, solver, legal, rets, min_u, max_u
        )
    done = 0
    k = ctl[PENDING]  # leaves whose evaluation Python has just written
    while True:
        if k > 0:
            # Finish a batch, as the reference's iterate_batch: the virtual loss comes
            # off, every leaf gets its children, then each leaf's value is backed up.
            ctl[PENDING] = 0
            for j in range(k):
                for d in range(depths[j] + 1):
                    tree.visits[paths[j, d]] -= vl
            for j in range(k):
                leaf = paths[j, depths[j]]
                expand_with_priors(
                    legal_fn, tree, prior, leaf, states[j], params, legal, pending.priors[j],
                    evaluator != EVAL_EXTERNAL, ctl,
                )  # fmt: skip
                if evaluator == EVAL_HEURISTIC:
                    heuristic_fn(states[j], params, rets)
                    pending.values[j] = min(1.0, max(-1.0, rets[tree.to_play[leaf]]))
                elif evaluator == EVAL_UNIFORM:
                    pending.values[j] = 0.0
            for j in range(k):
                leaf = paths[j, depths[j]]
                if evaluator == EVAL_ROLLOUT:
                    simulate(
                        legal_fn, apply_fn, returns_fn, heuristic_fn, states[j], params,
                        simulation, cutoff, rng, a_buf, b_buf, safe, tmp1, tmp2, rewards,
                        rets, min_u, span, playout_fn, rollout_fn, heavy_fn, light_fn, no_amaf,
                    )  # fmt: skip
                else:
                    value_rewards(pending.values[j], tree.to_play[leaf], rewards)
                    if mix > 0.0:
                        simulate(
                            legal_fn, apply_fn, returns_fn, heuristic_fn, states[j], params,
                            simulation, cutoff, rng, a_buf, b_buf, safe, tmp1, tmp2,
                            played, rets, min_u, span, playout_fn, rollout_fn, heavy_fn,
                            light_fn, no_amaf,
                        )  # fmt: skip
                        for p in range(rewards.shape[0]):
                            rewards[p] = (1.0 - mix) * rewards[p] + mix * played[p]
                raw[leaf] = 2.0 * rewards[tree.to_play[leaf]] - 1.0
                backpropagate(tree, paths[j], depths[j], rewards, solver)
            ctl[ITERATIONS] += k
            done += k
            k = 0
        # The budget checks, in the reference's order (see run_chunk).
        if solver and tree.proven[ROOT] != UNPROVEN:
            return STOP_PROVEN
        if max_nodes >= 0 and ctl[NODES] >= max_nodes:
            return STOP_NODES
        if done >= max_chunk:
            return CHUNK_DONE
        if ctl[IS_EXTENDED] and agree(tree):
            return STOP_AGREEMENT
        if max_nodes < 0 and ctl[HIGH] + batch * num_actions > capacity[0]:
            return NEED_SPACE
        if (
            ctl[NOISE_DUE]
            and tree.first_child[ROOT] >= 0
            and tree.n_untried[ROOT] == 0
            and tree.flags[ROOT] == OPENED
            and tree.proven[ROOT] == UNPROVEN
        ):
            return NEED_NOISE  # the reference draws it at this choice

        # Collect up to `limit` leaves, as the reference's iterate_batch.
        limit = min(batch, max_chunk - done)
        backed = 0
        grow = 0
        choice = (c, c_base, fpu, solver, prior, root_prior, ctl[NOISY] != 0)
        g_choice = (
            prior, raw, root_prior, pending.halving, num_actions, value_scale, maxvisit_init,
            solver,
        )  # fmt: skip
        while k + backed < limit:
            state[:] = root_state
            if gumbel:
                depth = select(
                    legal_fn, apply_fn, returns_fn, gumbel_child, g_choice, tree, state, params,
                    paths[k], solver, legal, rets, min_u, max_u,
                )  # fmt: skip
            else:
                depth = select(
                    legal_fn, apply_fn, returns_fn, puct_child, choice, tree, state, params,
                    paths[k], solver, legal, rets, min_u, max_u,
                )  # fmt: skip
            if depth < 0:
                return NOT_WIN_LOSS
            leaf = paths[k, depth]
            if not (tree.n_untried[leaf] > 0 and tree.proven[leaf] == UNPROVEN):
                # Terminal or proven: its exact rewards, backed up at once.
                leaf_rewards(returns_fn, tree, leaf, state, params, rewards, rets, min_u, span)
                backpropagate(tree, paths[k], depth, rewards, solver)
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
                    return NODE_BUDGET
                break
            grow += tree.n_untried[leaf]
            depths[k] = depth
            states[k, :] = state
            for d in range(depth + 1):
                tree.visits[paths[k, d]] += vl
            k += 1
        done += backed
        if k == 0:
            continue
        if evaluator == EVAL_EXTERNAL:
            # Python's turn: the observations and legal moves of the waiting leaves.
            for j in range(k):
                leaf = paths[j, depths[j]]
                p = tree.to_play[leaf]
                pending.to_play[j] = p
                game_observation(observation_fn, states[j], params, p, pending.observations[j])
                pending.masks[j, :] = False
                n = legal_fn(states[j], params, legal)
                for i in range(n):
                    pending.masks[j, legal[i]] = True
            ctl[PENDING] = k
            return NEED_EVAL


# Inlined into each game's cached round wrapper (kernel_chunks), as run_chunk is.
@njit(inline="always", nogil=True)
def run_puct_round(  # type: ignore[no-untyped-def]
    legal_fn,
    apply_fn,
    returns_fn,
    heuristic_fn,
    observation_fn,
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
    playout_fn=None,
    rollout_fn=None,
    heavy_fn=None,
    light_fn=None,
):
    """One round of many PUCT searches of one game and config in one call
    (:func:`search_many`): search ``j`` runs :func:`run_puct_chunk` on its own tree
    (``trees[j]``, ``extras[j]``: typed lists), root, counters (``ctls[j]``) and
    generator (``rngs[j]``), its pending leaves in row ``j`` of ``pend`` (a
    :class:`Pending` of arrays with a leading search axis), and writes its return
    code to ``codes[j]``; a search whose code is negative (finished) is skipped. The
    scratch buffers are shared: the searches run one after the other."""
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
            legal_fn, apply_fn, returns_fn, heuristic_fn, observation_fn, trees[j], extras[j],
            root_priors[j], root_states[j], params, cfg_i, cfg_f, ctls[j], rngs[j], bufs, fbufs,
            pending, capacities[j], max_chunks[j], playout_fn, rollout_fn, heavy_fn, light_fn,
        )  # fmt: skip
    return 0
