"""UCT's chunk loop: up to ``max_chunk`` iterations of the four phases in one numba call.

:func:`run_chunk` (what a game's cached wrapper calls) gathers the :class:`~.options.Kernels`,
the :class:`~.options.Options` and the :class:`~.options.Scratch` rows; :func:`uct_chunk`
loops: :func:`chunk_stop` (the budget checks a chunk can make itself), then
:func:`iterate`, which reads as the reference engine's ``iterate``:
:func:`~.phases.select` by the search's rule (:func:`select_by_rule`), :func:`~.phases.expand`,
:func:`~.phases.simulate`, :func:`~.phases.backpropagate`.

:func:`select_by_rule` is written from the registry of UCT's rules
(:data:`~.selection.COMPILED_RULES`, each chooser written from its entry of
:data:`mctslab.search.rules.RULES`) when this module is imported: one inlined descent per
rule, picked by the rule's code (the entry's ``code``) once an iteration, so that a new
rule needs no branch here.
"""

from __future__ import annotations

from typing import Any

from numba import njit

from mctslab.search.compiled.options import (
    CHUNK_DONE,
    EXPANSION_ALL,
    GO_ON,
    HIGH,
    IS_EXTENDED,
    ITERATIONS,
    NEED_SPACE,
    NODES,
    NOT_WIN_LOSS,
    STOP_AGREEMENT,
    STOP_NODES,
    STOP_PROVEN,
    Kernels,
    make_scratch,
    read_options,
)
from mctslab.search.compiled.phases import (
    backpropagate,
    expand,
    leaf_rewards,
    open_node,
    select,
    set_bias,
    should_expand,
    simulate,
    update_amaf,
)
from mctslab.search.compiled.selection import COMPILED_RULES, agree
from mctslab.search.compiled.tree import ROOT, UNPROVEN, borrow, borrow_tree


# The kernel games' wrapper contract: a game's cached ``search_chunk`` (docs/games.md,
# examples/kernel_game.py, :mod:`mctslab.search.kernel_chunks`) binds its kernels, read
# from a module, and passes them here one by one with the twelve arguments the driver
# hands it (numba caches a function that takes no functions: the wrapper, not this one).
# Hence 21 parameters, where the loop itself (uct_chunk) takes named tuples. Inlined into
# each wrapper; nogil: called from Python (a game without a wrapper), it lets other
# threads run meanwhile.
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
    knowledge_fn=None,
):
    """Run up to ``max_chunk`` iterations; return why it stopped (a code of
    :mod:`~mctslab.search.compiled.options`).

    ``tree`` is a :class:`Tree`; ``cfg_i`` and ``cfg_f`` the search's
    :class:`~.options.Options` (:func:`~.options.option_arrays`); ``bufs`` is an int64
    matrix of scratch rows and ``fbufs`` a float64 one (:class:`~.options.Scratch`, made
    by :func:`~.options.make_scratch`); ``path`` the node ids of the current descent.
    ``capacity`` = (node capacity, number of actions). ``playout_fn``, ``rollout_fn``,
    ``heavy_fn``, ``light_fn``, ``knowledge_fn``: the game's own random playout, playout
    moves, heavy-playout move, random-playout move and prior knowledge
    (``RuleKernels.playout``, ``rollout_actions``, ``heavy_action``, ``light_action``,
    ``knowledge``), each left out where the game has none. The arrays are borrowed (:func:`~.tree.borrow`) for the call.
    """
    kernels = Kernels(
        legal_fn, apply_fn, returns_fn, heuristic_fn, None, playout_fn, rollout_fn, heavy_fn,
        light_fn, knowledge_fn,
    )  # fmt: skip
    options = read_options(cfg_i, cfg_f)
    amaf = options.rave_k > 0.0
    scratch = make_scratch(
        borrow(bufs), borrow(fbufs), root_state.shape[0], capacity[1] if amaf else 0
    )
    return uct_chunk(
        kernels, options, borrow_tree(tree), borrow(root_state), borrow(params), borrow(ctl),
        borrow(rng), scratch, borrow(path), capacity, max_chunk,
    )  # fmt: skip


@njit(inline="always")
def uct_chunk(
    kernels, options, tree, root_state, params, ctl, rng, scratch, path, capacity, max_chunk
):  # type: ignore[no-untyped-def]
    """The chunk's loop: the budget checks, then one iteration, until one of them stops it.

    Under RAVE (``options.rave_k > 0``) or progressive bias (``options.bias_w > 0``) the
    descent chooses by RAVE's rule (``options.rule``), reading ``tree.stats``; RAVE grows a node's
    children together (as ``EXPANSION_ALL``), records the playout's first movers and
    updates the AMAF statistics after the backup (:func:`update_amaf`); progressive
    bias evaluates each node as it is opened (:func:`set_bias`).
    """
    expansion = EXPANSION_ALL if options.rave_k > 0.0 or options.know_w > 0.0 else options.expansion
    num_actions = capacity[1]
    if tree.flags[ROOT] == 0:
        scratch.state[:] = root_state
        open_node(kernels, options, tree, ROOT, scratch.state, params, scratch)
    done = 0
    while True:
        # The budget checks, in the reference's order; the iteration and time budgets
        # are the driver's (a chunk ends where they may stop the search).
        code = chunk_stop(options, tree, ctl, done, max_chunk, num_actions, capacity[0])
        if code != GO_ON:
            return code
        code = iterate(
            kernels, options, tree, root_state, params, ctl, rng, scratch, path, expansion,
            num_actions,
        )  # fmt: skip
        if code != CHUNK_DONE:
            return code
        ctl[ITERATIONS] += 1
        done += 1


@njit(inline="always")
def chunk_stop(options, tree, ctl, done, max_chunk, room, capacity):  # type: ignore[no-untyped-def]
    """Whether the chunk stops before its next iteration, in the reference's order: the
    root proven, the node budget, the chunk's iterations done, robust-max's agreement
    (under its extension), no ``room`` left for the next iteration's nodes; ``GO_ON``
    when none of them holds."""
    max_nodes = options.max_nodes
    if options.solver and tree.proven[ROOT] != UNPROVEN:
        return STOP_PROVEN
    if max_nodes >= 0 and ctl[NODES] >= max_nodes:
        return STOP_NODES
    if done >= max_chunk:
        return CHUNK_DONE
    if ctl[IS_EXTENDED] and agree(tree):
        return STOP_AGREEMENT
    if max_nodes < 0 and ctl[HIGH] + room > capacity:
        return NEED_SPACE
    return GO_ON


@njit(inline="always")
def iterate(
    kernels, options, tree, root_state, params, ctl, rng, scratch, path, expansion, num_actions
):  # type: ignore[no-untyped-def]
    """One iteration: the four phases, as in the reference's ``iterate``. Returns
    ``CHUNK_DONE``, or why the iteration could not be made (``NODE_BUDGET``,
    ``NOT_WIN_LOSS``)."""
    state = scratch.state
    state[:] = root_state
    solver, rave_k, bias_w = options.solver, options.rave_k, options.bias_w
    depth = select_by_rule(kernels, options, tree, state, params, path, scratch)
    if depth < 0:
        return NOT_WIN_LOSS
    if should_expand(tree, path[depth]):
        code, depth = expand(
            kernels, options, tree, state, params, path, depth, expansion, num_actions, ctl, rng,
            scratch,
        )  # fmt: skip
        if code != CHUNK_DONE:
            return code
    if bias_w > 0.0 and depth > 0 and tree.visits[path[depth]] == 0:  # opened just now
        set_bias(kernels, options, tree, path, depth, state, params, scratch)
    amaf = rave_k > 0.0
    if amaf:
        scratch.first[:] = -1
    if not leaf_rewards(kernels, options, tree, path[depth], state, params, scratch):
        simulate(kernels, options, state, params, rng, scratch, scratch.rewards)
    backpropagate(tree, path, depth, scratch.rewards, solver)
    if amaf:
        update_amaf(tree, path, depth, scratch.rewards, scratch.first)
    return CHUNK_DONE


def _select_by_rule_source(names: list[str]) -> str:
    """The source of :func:`select_by_rule` for the rules ``names`` (codes 0, 1, ...)."""
    call = "select(kernels, options, RULE_{}, choice, tree, state, params, path, scratch)"
    lines = [
        "def select_by_rule(kernels, options, tree, state, params, path, scratch):",
        "    choice = (options.c, options.solver, options.rave_k, options.know_w > 0.0)",
    ]
    for code in range(len(names) - 1):
        lines += [f"    if options.rule == {code}:", f"        return {call.format(code)}"]
    lines.append(f"    return {call.format(len(names) - 1)}")
    return "\n".join(lines) + "\n"


def _make_select_by_rule() -> Any:
    names = list(COMPILED_RULES)
    scope: dict[str, Any] = {"select": select}
    scope.update({f"RULE_{code}": COMPILED_RULES[name] for code, name in enumerate(names)})
    exec(_select_by_rule_source(names), scope)
    fn = scope["select_by_rule"]
    fn.__doc__ = (
        "Phase 1 by the search's rule: :func:`~.phases.select` with the rule of code "
        "``options.rule`` (" + ", ".join(f"{c}: {n}" for c, n in enumerate(names)) + "), "
        "its ``choice = (c, solver, rave_k, knowledge)``. Written from "
        ":data:`~.selection.COMPILED_RULES`."
    )
    return njit(inline="always")(fn)


select_by_rule = _make_select_by_rule()
