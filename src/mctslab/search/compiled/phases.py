"""The four phases of one iteration, as numba functions over the :class:`Tree`.

:func:`select` descends by a selection rule (:mod:`~mctslab.search.compiled.selection`),
:func:`expand` grows the leaf, :func:`simulate` plays out from it
(:mod:`~mctslab.search.compiled.playouts`), :func:`backpropagate` adds the rewards on the
way back up: the reference engine's phases (:mod:`mctslab.search.mcts`), choice for
choice. Their helpers are here too: opening a node (:func:`open_node`), MCTS-Solver's
backup (:func:`prove`: Winands et al. 2008), RAVE's all-moves-as-first update
(:func:`update_amaf`), progressive bias (:func:`set_bias`), prior knowledge
(:func:`set_knowledge`), PUCT's expansion with priors
(:func:`expand_with_priors`) and the exact rewards of a terminal or proven leaf
(:func:`leaf_rewards`). All are inlined into the chunk loops.
"""

from __future__ import annotations

from numba import njit

from mctslab.core.game import TERMINAL
from mctslab.games.kernels import rng_randint
from mctslab.search.compiled.options import (
    CHUNK_DONE,
    EXPANSION_ONE,
    HIGH,
    NODE_BUDGET,
    NODES,
    NOT_WIN_LOSS,
    SIMULATION_CUTOFF,
    SIMULATION_HEAVY,
    SIMULATION_RANDOM,
    SIMULATION_VERDICT,
)
from mctslab.search.compiled.playouts import (
    game_heavy,
    game_knowledge,
    game_light,
    game_playout,
    heavy_action,
)
from mctslab.search.compiled.tree import (
    AMAF_SUM,
    AMAF_VISITS,
    BIAS,
    KNOW_VISITS,
    KNOW_WINS,
    NONE,
    OPENED,
    ROOT,
    SQUARES,
    TERMINAL_FLAG,
    UNPROVEN,
    link,
    new_node,
    relocate,
)


@njit(inline="always")  # inlined: a call passing the kernels on would defeat the cache
def open_node(kernels, options, tree, node, state, params, scratch):  # type: ignore[no-untyped-def]
    """Record the node's position: the player to move, how many legal actions it has,
    and for a terminal position its proof. Returns False when MCTS-Solver meets a
    terminal whose returns are not a win, a draw or a loss (the search must stop)."""
    p = state[0]
    tree.to_play[node] = p
    if p == TERMINAL:
        tree.flags[node] = OPENED | TERMINAL_FLAG
        if options.solver:
            rets = scratch.rets
            kernels.returns(state, params, rets)
            min_u, max_u = options.min_utility, options.max_utility
            if rets[0] == max_u and rets[1] == min_u:
                tree.proven[node] = 1
            elif rets[0] == min_u and rets[1] == max_u:
                tree.proven[node] = -1
            elif rets[0] == 0.0 and rets[1] == 0.0:
                tree.proven[node] = 0
            else:
                return False
        return True
    tree.flags[node] = OPENED
    tree.n_untried[node] = kernels.legal(state, params, scratch.legal)
    return True


@njit(cache=True)
def prove(tree, node):  # type: ignore[no-untyped-def]
    """MCTS-Solver's backup at one node, as the reference's ``_prove``."""
    proven, next_sibling = tree.proven, tree.next_sibling
    if proven[node] != UNPROVEN or tree.flags[node] != OPENED:
        return False
    p = tree.to_play[node]
    best = -9
    complete = tree.n_untried[node] == 0
    ch = tree.first_child[node]
    while ch >= 0:
        if proven[ch] == UNPROVEN:
            complete = False
        else:
            v = proven[ch] if p == 0 else -proven[ch]
            if v == 1:
                proven[node] = proven[ch]
                return True
            if v > best:
                best = v
        ch = next_sibling[ch]
    if complete and best != -9:
        proven[node] = best if p == 0 else -best
        return True
    return False


@njit(inline="always")
def select(kernels, options, choose_fn, choice, tree, state, params, path, scratch):  # type: ignore[no-untyped-def]
    """Phase 1, as the reference's ``select``: from the root (``state`` holds the root
    position), descend by ``choose_fn(tree, node, choice)`` (:func:`uct_child`, or
    PUCT's :func:`puct_child`) while the node is opened,
    fully expanded and unproven, playing each action on ``state`` (the tree keeps no
    boards) and recording the node ids in ``path``. A child reached for the first time
    (``expansion="all"``, PUCT) is opened and ends the descent.

    Returns the depth of the leaf (``path[depth]``), or -1 when MCTS-Solver opened a
    terminal whose returns are not a win, a draw or a loss.
    """
    node = ROOT
    depth = 0
    path[0] = ROOT
    while (
        tree.n_untried[node] == 0 and tree.flags[node] == OPENED and tree.proven[node] == UNPROVEN
    ):
        node = choose_fn(tree, node, choice)
        kernels.apply(state, params, tree.action[node])
        depth += 1
        path[depth] = node
        if tree.flags[node] == 0:
            if not open_node(kernels, options, tree, node, state, params, scratch):
                return -1
            break
    return depth


@njit(inline="always")
def should_expand(tree, leaf):  # type: ignore[no-untyped-def]
    """Whether the selected leaf grows, as the reference's ``should_expand``: it has untried
    actions, is unproven, and was visited before (or is the root); a node just
    reached for the first time under ``expansion="all"`` is simulated as it is."""
    return (
        tree.n_untried[leaf] > 0
        and tree.proven[leaf] == UNPROVEN
        and (tree.visits[leaf] > 0 or leaf == ROOT)
    )


@njit(inline="always")
def expand(
    kernels, options, tree, state, params, path, depth, expansion, num_actions, ctl, rng, scratch
):  # type: ignore[no-untyped-def]
    """Phase 2, as the reference's ``expand``: give the leaf ``path[depth]`` new
    children and open the one to simulate from, which ``state`` then holds.

    ``EXPANSION_ONE`` adds the k-th legal action without a child, in ascending order,
    ``k = rng_randint(untried)`` (the reference pops the k-th of its sorted list), and
    when that was the last untried action moves the children together
    (:func:`relocate`; ``num_actions`` sizes the room kept for the next iteration);
    ``EXPANSION_ALL`` adds every legal action and opens the first. Returns
    ``(CHUNK_DONE, depth + 1)``, or ``(NODE_BUDGET, depth)`` when the new nodes would
    pass ``options.max_nodes`` (nothing changed), or ``(NOT_WIN_LOSS, depth)``.
    """
    leaf = path[depth]
    action, next_sibling, first_child = tree.action, tree.next_sibling, tree.first_child
    legal = scratch.legal
    max_nodes = options.max_nodes
    n = kernels.legal(state, params, legal)
    if expansion == EXPANSION_ONE:
        if max_nodes >= 0 and ctl[NODES] + 1 > max_nodes:
            return NODE_BUDGET, depth
        k = rng_randint(rng, tree.n_untried[leaf])
        ch = first_child[leaf]
        chosen = -1
        index = -1
        for j in range(n):
            while ch >= 0 and action[ch] < legal[j]:
                ch = next_sibling[ch]
            if ch >= 0 and action[ch] == legal[j]:
                continue
            if k == 0:
                chosen = legal[j]
                index = j
                break
            k -= 1
        first = new_node(tree, chosen, ctl)
        link(tree, leaf, first)
        tree.n_untried[leaf] -= 1
        # Fully expanded: from now on selection reads all n children at each visit.
        # Moved next to each other while there is room for them and for one more
        # iteration (so that relocating never makes the tree grow).
        if tree.n_untried[leaf] == 0 and ctl[HIGH] + n + num_actions <= first_child.shape[0]:
            first = relocate(tree, leaf, ctl) + index  # the chosen one is the index-th
    else:
        if max_nodes >= 0 and ctl[NODES] + tree.n_untried[leaf] > max_nodes:
            return NODE_BUDGET, depth
        first = NONE
        last = NONE
        for j in range(n):  # the node has no child yet: link them in order
            ch = new_node(tree, legal[j], ctl)
            if last < 0:
                first = ch
                first_child[leaf] = ch
            else:
                next_sibling[last] = ch
            last = ch
        tree.n_untried[leaf] = 0
        if options.know_w > 0.0:
            set_knowledge(kernels, options, tree, leaf, state, params, scratch)
    kernels.apply(state, params, action[first])
    if not open_node(kernels, options, tree, first, state, params, scratch):
        return NOT_WIN_LOSS, depth
    path[depth + 1] = first
    return CHUNK_DONE, depth + 1


@njit(inline="always")
def leaf_rewards(kernels, options, tree, leaf, state, params, scratch):  # type: ignore[no-untyped-def]
    """The exact rewards of a terminal or proven leaf, as the reference's
    ``leaf_rewards`` (no playout needed): written to ``scratch.rewards``; False otherwise."""
    rewards = scratch.rewards
    if tree.flags[leaf] & TERMINAL_FLAG:
        rets = scratch.rets
        kernels.returns(state, params, rets)
        min_u, span = options.min_utility, options.span
        for p in range(rewards.shape[0]):
            rewards[p] = (rets[p] - min_u) / span
        return True
    if tree.proven[leaf] != UNPROVEN:
        r0 = (tree.proven[leaf] + 1) / 2
        rewards[0] = r0
        rewards[1] = 1.0 - r0
        return True
    return False


@njit(inline="always")
def simulate(kernels, options, state, params, rng, scratch, rewards):  # type: ignore[no-untyped-def]
    """Phase 3, as the reference's ``simulate``: play out from ``state`` (consumed) and
    write each player's reward in ``[0, 1]`` to ``rewards``: uniformly random moves
    (``SIMULATION_RANDOM``, the game's ``light`` move, else the k-th of its playout
    moves, ``k = rng_randint(n)``: the game's own ``playout`` when it has one, which
    makes the same draws), the heavy playout (``SIMULATION_HEAVY``: the game's ``heavy``
    move, else the generic rule, :func:`~.playouts.heavy_action`), ``cutoff_depth`` random
    plies scored by the heuristic (``SIMULATION_CUTOFF``), or random plies judged by the
    heuristic every ``verdict_every`` plies, a player at ``verdict_threshold`` or more
    winning at once (``SIMULATION_VERDICT``); ``options`` says which. The optional
    kernels (``playout``, ``rollout``, ``heavy``, ``light`` of :class:`~.options.Kernels`)
    are ``None`` each where the game has none. Under RAVE ``scratch.first`` (by action, -1
    where nobody played it yet; an empty array otherwise) receives the player who plays
    each action first."""
    simulation = options.simulation
    cutoff_depth = options.cutoff_depth
    verdict_every = options.verdict_every
    verdict_threshold = options.verdict_threshold
    min_u, span = options.min_utility, options.span
    a_buf, first, rets = scratch.a_buf, scratch.first, scratch.rets
    record = first.shape[0] > 0
    num_players = rewards.shape[0]
    if (
        simulation == SIMULATION_RANDOM
        and not record
        and game_playout(kernels.playout, state, params, rng, rets) >= 0
    ):
        for p in range(num_players):
            rewards[p] = (rets[p] - min_u) / span
        return
    plies = 0
    while state[0] != TERMINAL:
        if simulation == SIMULATION_CUTOFF and plies >= cutoff_depth:
            kernels.heuristic(state, params, rets)
            for p in range(num_players):
                rewards[p] = (rets[p] + 1.0) / 2.0
            return
        if simulation == SIMULATION_VERDICT and plies % verdict_every == 0:
            kernels.heuristic(state, params, rets)
            winner = -1
            for p in range(num_players):
                if winner < 0 and rets[p] >= verdict_threshold:
                    winner = p
            if winner >= 0:  # a clear verdict: the playout ends as winner's win
                for p in range(num_players):
                    rewards[p] = 1.0 if p == winner else 0.0
                return
        mover = state[0]
        if simulation == SIMULATION_HEAVY:
            a = game_heavy(kernels.heavy, state, params, rng, a_buf)
            if a < 0:
                a = heavy_action(kernels, state, params, rng, scratch)
        else:
            a = game_light(kernels.light, kernels.rollout, kernels.legal, state, params, rng, a_buf)
        if record and first[a] < 0:
            first[a] = mover
        kernels.apply(state, params, a)
        plies += 1
    kernels.returns(state, params, rets)
    for p in range(num_players):
        rewards[p] = (rets[p] - min_u) / span


@njit(inline="always")
def backpropagate(tree, path, depth, rewards, solver):  # type: ignore[no-untyped-def]
    """Phase 4, as the reference's ``backpropagate``: from the leaf up to the root,
    count the visit and add the reward of the player who moved into each node (its
    parent's ``to_play``); under MCTS-Solver, back up proofs as far as they go. Where the
    tree keeps the squared rewards (:data:`~.tree.SQUARES`: UCB1-Tuned), add them too."""
    visits, value_sum, to_play = tree.visits, tree.value_sum, tree.to_play
    squares = tree.stats.shape[0] > SQUARES
    proving = solver
    for d in range(depth, -1, -1):
        nd = path[d]
        visits[nd] += 1
        if d > 0:
            r = rewards[to_play[path[d - 1]]]
            value_sum[nd] += r
            if squares:
                tree.stats[SQUARES, nd] += r * r
        if proving and d != depth:
            proving = prove(tree, nd)


@njit(inline="always")
def update_amaf(tree, path, depth, rewards, first):  # type: ignore[no-untyped-def]
    """RAVE's all-moves-as-first update, as the reference's ``_update_amaf``: ``first``
    holds, by action, the player who first played it in the playout (-1: nobody); from
    the leaf up, each tree move is written over it (it came earlier), and every child of
    the node whose move its player to move played first afterwards counts a visit and
    that player's reward."""
    to_play, action, next_sibling = tree.to_play, tree.action, tree.next_sibling
    amaf_n, amaf_sum = tree.stats[AMAF_VISITS], tree.stats[AMAF_SUM]
    for d in range(depth, -1, -1):
        nd = path[d]
        p = to_play[nd]
        if p < 0:  # terminal
            continue
        if d < depth:
            first[action[path[d + 1]]] = p
        r = rewards[p]
        ch = tree.first_child[nd]
        while ch >= 0:
            if first[action[ch]] == p:
                amaf_n[ch] += 1.0
                amaf_sum[ch] += r
            ch = next_sibling[ch]


@njit(inline="always")
def set_bias(kernels, options, tree, path, depth, state, params, scratch):  # type: ignore[no-untyped-def]
    """Progressive bias's ``w * H`` of the leaf just opened (``state`` holds it), as the
    reference's ``_open``: for the player who moved into it, the terminal's exact reward,
    else its heuristic on ``[0, 1]``; ``w = options.bias_w``."""
    rets = scratch.rets
    leaf = path[depth]
    p = tree.to_play[path[depth - 1]]
    if tree.flags[leaf] & TERMINAL_FLAG:
        kernels.returns(state, params, rets)
        h = (rets[p] - options.min_utility) / options.span
    else:
        kernels.heuristic(state, params, rets)
        h = (rets[p] + 1.0) / 2.0
    tree.stats[BIAS, leaf] = options.bias_w * h


@njit(inline="always")
def set_knowledge(kernels, options, tree, leaf, state, params, scratch):  # type: ignore[no-untyped-def]
    """Prior knowledge of the children just made at ``leaf`` (``state`` holds its
    position), as the reference's ``set_knowledge``: each starts with ``S * n0`` virtual
    visits and ``S * w0`` virtual wins, ``(n0, w0)`` the game's ``knowledge`` kernel's for
    its move, ``S = options.know_w`` (Gelly and Silver 2007). The kernel writes into the
    playout's move buffers (``a_buf``, ``b_buf``), free until the simulation."""
    visits, wins = scratch.a_buf, scratch.b_buf
    game_knowledge(kernels.knowledge, state, params, visits, wins)
    w = options.know_w
    ch = tree.first_child[leaf]
    while ch >= 0:
        a = tree.action[ch]
        tree.stats[KNOW_VISITS, ch] = w * visits[a]
        tree.stats[KNOW_WINS, ch] = w * wins[a]
        ch = tree.next_sibling[ch]


@njit(inline="always")
def expand_with_priors(kernels, tree, prior, leaf, state, params, legal, priors_row, uniform, ctl):  # type: ignore[no-untyped-def]
    """PUCT's expansion, as the reference's ``_add_children``: a child for every legal
    action of the leaf (ascending), with prior ``1 / n`` (``uniform``) or
    ``priors_row[action]``."""
    n = kernels.legal(state, params, legal)
    last = NONE
    for j in range(n):
        ch = new_node(tree, legal[j], ctl)
        prior[ch] = 1.0 / n if uniform else priors_row[legal[j]]
        if last < 0:
            tree.first_child[leaf] = ch
        else:
            tree.next_sibling[last] = ch
        last = ch
    tree.n_untried[leaf] = 0


@njit(inline="always")
def value_rewards(value, to_play, rewards):  # type: ignore[no-untyped-def]
    """A value in ``[-1, 1]`` for ``to_play`` as rewards in ``[0, 1]``, as the reference's
    ``value_rewards``."""
    r = (value + 1.0) / 2.0
    for p in range(rewards.shape[0]):
        rewards[p] = 1.0 - r
    rewards[to_play] = r
