"""UCT's chunk loop: up to ``max_chunk`` iterations of the four phases in one numba call.

The loop of :func:`run_chunk` reads as the reference engine's ``iterate``:
:func:`~mctslab.search.compiled.phases.select` by :func:`~mctslab.search.compiled.selection.uct_child`
(or :func:`~mctslab.search.compiled.selection.rave_child`), ``expand``, ``simulate``,
``backpropagate``; between iterations, the budget checks that the chunk can make itself.
"""

from __future__ import annotations

from numba import njit

from mctslab.search.compiled.options import (
    BIAS_W,
    CHUNK_DONE,
    CUTOFF_DEPTH,
    EXPANSION,
    EXPANSION_ALL,
    HIGH,
    IS_EXTENDED,
    ITERATIONS,
    MAX_NODES,
    MIN_UTILITY,
    NEED_SPACE,
    NODES,
    NOT_WIN_LOSS,
    RAVE_K,
    SIMULATION,
    SOLVER,
    SPAN,
    STOP_AGREEMENT,
    STOP_NODES,
    STOP_PROVEN,
    VERDICT_EVERY,
    VERDICT_THRESHOLD,
    C,
)
from mctslab.search.compiled.phases import (
    backpropagate,
    expand,
    leaf_rewards,
    open_node,
    scratch_rows,
    select,
    set_bias,
    should_expand,
    simulate,
    update_amaf,
)
from mctslab.search.compiled.selection import agree, rave_child, uct_child
from mctslab.search.compiled.tree import ROOT, UNPROVEN, borrow, borrow_tree


# Inlined into each game's cached wrapper (see the module docstring); nogil: called
# from Python (a game without a wrapper), it lets other threads run meanwhile.
@njit(inline="always", nogil=True)
def run_chunk(  # type: ignore[no-untyped-def]
    legal_fn,
    apply_fn,
    returns_fn,
    heuristic_fn,
    tree,
    root_state,
    params,
    cfg_i,
    cfg_f,
    ctl,
    rng,
    bufs,
    fbufs,
    path,
    capacity,
    max_chunk,
    playout_fn=None,
    rollout_fn=None,
    heavy_fn=None,
    light_fn=None,
):
    """Run up to ``max_chunk`` iterations; return why it stopped (a code above).

    ``tree`` is a :class:`Tree`; ``bufs`` is an int64 matrix of scratch rows: 0 the
    working state, 1-2 scratch states, 3-5 legal-action buffers, 6 the safe-move
    buffer, 7 RAVE's first mover by action (all as long as the longer of state and
    action count); ``fbufs`` rows 0-1 hold rewards and returns; ``path`` the node ids
    of the current descent. ``capacity`` = (node capacity, number of actions).
    ``playout_fn``, ``rollout_fn``, ``heavy_fn``, ``light_fn``: the game's own random
    playout, playout moves, heavy-playout move and random-playout move
    (``RuleKernels.playout``, ``rollout_actions``, ``heavy_action``, ``light_action``),
    each left out where the game has none.

    Under RAVE (``cfg_f[RAVE_K] > 0``) or progressive bias (``cfg_f[BIAS_W] > 0``) the
    descent chooses by :func:`rave_child`, reading ``tree.stats``; RAVE grows a node's
    children together (as ``EXPANSION_ALL``), records the playout's first movers and
    updates the AMAF statistics after the backup (:func:`update_amaf`); progressive
    bias evaluates each node as it is opened (:func:`set_bias`).
    """
    tree = borrow_tree(tree)
    root_state = borrow(root_state)
    params = borrow(params)
    ctl = borrow(ctl)
    rng = borrow(rng)
    bufs = borrow(bufs)
    fbufs = borrow(fbufs)
    path = borrow(path)
    expansion = cfg_i[EXPANSION]
    simulation = cfg_i[SIMULATION]
    cutoff = (cfg_i[CUTOFF_DEPTH], cfg_i[VERDICT_EVERY], cfg_f[VERDICT_THRESHOLD])
    solver = cfg_i[SOLVER] != 0
    max_nodes = cfg_i[MAX_NODES]
    c = cfg_f[C]
    min_u = cfg_f[MIN_UTILITY]
    span = cfg_f[SPAN]
    max_u = min_u + span
    rave_k = cfg_f[RAVE_K]
    bias_w = cfg_f[BIAS_W]
    amaf = rave_k > 0.0
    scored = amaf or bias_w > 0.0
    if amaf:
        expansion = EXPANSION_ALL
    n_state = root_state.shape[0]
    num_actions = capacity[1]
    state, tmp1, tmp2, a_buf, b_buf, legal, safe = scratch_rows(bufs, n_state)
    first = bufs[7, :num_actions] if amaf else bufs[7, :0]
    rewards = fbufs[0]
    rets = fbufs[1]
    if tree.flags[ROOT] == 0:
        state[:] = root_state
        open_node(
            legal_fn, returns_fn, tree, ROOT, state, params, solver, legal, rets, min_u, max_u
        )
    done = 0
    while True:
        # The budget checks, in the reference's order; the iteration and time budgets
        # are the driver's (a chunk ends where they may stop the search).
        if solver and tree.proven[ROOT] != UNPROVEN:
            return STOP_PROVEN
        if max_nodes >= 0 and ctl[NODES] >= max_nodes:
            return STOP_NODES
        if done >= max_chunk:
            return CHUNK_DONE
        if ctl[IS_EXTENDED] and agree(tree):
            return STOP_AGREEMENT
        if max_nodes < 0 and ctl[HIGH] + num_actions > capacity[0]:
            return NEED_SPACE

        # One iteration: the four phases, in the reference's ``iterate``.
        state[:] = root_state
        if scored:
            depth = select(
                legal_fn, apply_fn, returns_fn, rave_child, (c, solver, rave_k), tree, state,
                params, path, solver, legal, rets, min_u, max_u,
            )  # fmt: skip
        else:
            depth = select(
                legal_fn, apply_fn, returns_fn, uct_child, (c, solver), tree, state, params,
                path, solver, legal, rets, min_u, max_u,
            )  # fmt: skip
        if depth < 0:
            return NOT_WIN_LOSS
        if should_expand(tree, path[depth]):
            code, depth = expand(
                legal_fn, apply_fn, returns_fn, tree, state, params, path, depth, expansion,
                max_nodes, num_actions, ctl, rng, solver, legal, rets, min_u, max_u,
            )  # fmt: skip
            if code != CHUNK_DONE:
                return code
        if bias_w > 0.0 and depth > 0 and tree.visits[path[depth]] == 0:  # opened just now
            set_bias(
                returns_fn, heuristic_fn, tree, path, depth, state, params, rets, bias_w, min_u,
                span,
            )  # fmt: skip
        if amaf:
            first[:] = -1
        if not leaf_rewards(
            returns_fn, tree, path[depth], state, params, rewards, rets, min_u, span
        ):
            simulate(
                legal_fn, apply_fn, returns_fn, heuristic_fn, state, params, simulation,
                cutoff, rng, a_buf, b_buf, safe, tmp1, tmp2, rewards, rets, min_u, span,
                playout_fn, rollout_fn, heavy_fn, light_fn, first,
            )  # fmt: skip
        backpropagate(tree, path, depth, rewards, solver)
        if amaf:
            update_amaf(tree, path, depth, rewards, first)
        ctl[ITERATIONS] += 1
        done += 1
