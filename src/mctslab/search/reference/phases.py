"""The reference engine's four phases, each a function, and :func:`iterate`, which calls
them in the order of any lecture (Browne et al. 2012, "A survey of Monte Carlo tree
search methods", figure 2):

1. :func:`select`: descend from the root while nodes are fully expanded, by the search's
   selection rule (:mod:`~mctslab.search.reference.selection`; UCT by default, UCB1
   applied to trees, Kocsis and Szepesvári 2006)::

       UCT(child) = Q(child) / N(child) + c * sqrt(ln N(parent) / N(child))

   sampling chance outcomes by their probabilities;
2. :func:`expand`: grow the leaf, when :func:`should_expand` says so (on its second
   visit; the root at once): one untried child, or all of them (under RAVE too), or
   under PUCT every child with the evaluator's prior (:func:`evaluate_nodes`);
3. :func:`simulate`: play the game out from the new node (random, heavy, cut-off or
   verdict playouts); under PUCT the evaluator's value in place of a playout or mixed
   with one (:func:`evaluation`); a terminal or proven leaf gives its exact rewards
   (:func:`leaf_rewards`);
4. :func:`backpropagate`: add the rewards along the path, each node the reward of the
   player who moved into it (max^n); MCTS-Solver's proofs (:func:`prove`; Winands,
   Björnsson and Saito 2008) and RAVE's all-moves-as-first statistics
   (:func:`update_amaf`; Gelly and Silver 2007) on the way.

:func:`iterate_batch` is PUCT's batched form: many descents under virtual loss, one
evaluator call. An observer (:class:`Recorder`) can hear what each phase of
:func:`iterate` did: the step-by-step trace (:mod:`mctslab.search.trace`) is built from
it, so the trace runs these very functions.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import Protocol

import numpy as np

from mctslab.core.game import (
    CHANCE,
    State,
    draw_outcome,
    heuristic_or_none,
    sample_chance_outcome,
)
from mctslab.core.rng import Rng
from mctslab.search.evaluators import LeafBatch, check_output, value_rewards
from mctslab.search.reference.selection import rule_of
from mctslab.search.reference.tree import (
    Node,
    NodeBudgetReached,
    SearchTree,
    open_node,
    scaled_rewards,
)
from mctslab.search.rules import puct_config
from mctslab.search.solver import value_for

__all__ = [
    "Recorder",
    "add_children",
    "backpropagate",
    "evaluate_nodes",
    "evaluation",
    "expand",
    "heavy_action",
    "iterate",
    "iterate_batch",
    "leaf_rewards",
    "playout",
    "playout_actions",
    "prove",
    "random_action",
    "select",
    "set_knowledge",
    "should_expand",
    "simulate",
    "update_amaf",
]


def select(root: Node, tree: SearchTree) -> list[Node]:
    """Phase 1: descend from the root by UCT (or PUCT) while nodes are fully expanded.

    At a chance node the descent samples an outcome by its probability instead, and
    follows its child. It stops at a node that can grow (one with untried actions,
    or a chance node whose sampled outcome has no child yet: the outcome waits in
    ``tree.outcome`` for :func:`expand`), at a terminal or proven node, or at a child
    that ``expansion="all"`` created and that is reached for the first time, which
    selection opens (reads its position) and which is simulated as it is. Selection
    creates no node. At a fully expanded decision node the child is the search's
    selection rule's choice (:data:`~mctslab.search.reference.selection.SELECTION_RULES`,
    picked by ``SearchConfig.selection_rule``).
    """
    choose = rule_of(tree).choose  # the search's rule (selection.SELECTION_RULES), once
    tree.outcome = None
    path = [root]
    node = root
    while not node.terminal and node.proven is None:
        if node.outcomes is not None:  # a chance node: the dice choose
            action = draw_outcome(node.outcomes, tree.rng)
            child = node.child(action)
            if child is None:  # an outcome not seen before: expansion adds it
                tree.outcome = action
                break
            node = child
            path.append(node)
            continue
        if node.untried or not node.children:
            break
        parent, node = node, choose(node, tree)
        path.append(node)
        if not node.opened:
            assert parent.state is not None
            open_node(node, parent.state.child(node.action), tree)
            break
    return path


def should_expand(leaf: Node, tree: SearchTree) -> bool:
    """The expansion rule: whether the selected leaf grows.

    A node grows once it has been simulated before (or is the root) and has untried
    actions, so that a node is expanded on its second visit; a node just reached for
    the first time under ``expansion="all"`` is simulated as it is. A chance node
    grows when selection sampled an outcome it has no child for.
    """
    if leaf.outcomes is not None:
        return tree.outcome is not None
    if tree.rule.evaluated:  # PUCT evaluates a node the first time it is reached
        return bool(leaf.untried) and leaf.proven is None
    return bool(leaf.untried) and leaf.proven is None and (leaf.visits > 0 or leaf is tree.root)


def expand(node: Node, tree: SearchTree) -> Node:
    """Phase 2: add children to ``node`` and return the one to simulate from (opened).

    ``expansion="one"`` adds one untried action drawn at random; ``"all"`` adds
    every untried action and returns the first (lowest action), the others
    waiting for selection. At a chance node it adds the child of the outcome that
    selection sampled (``tree.outcome``). Under PUCT the evaluator is asked about
    ``node`` (:func:`evaluate_nodes`): every child is added with its prior, and
    ``node`` itself is returned, its value waiting for phase 3. Raises
    :class:`NodeBudgetReached`, before any change, if the new nodes would grow the
    tree past ``max_nodes``.
    """
    config, rng = tree.config, tree.rng
    if node.outcomes is not None:  # a chance node: the outcome selection drew
        assert tree.outcome is not None and node.state is not None
        if config.max_nodes is not None and tree.nodes + 1 > config.max_nodes:
            raise NodeBudgetReached
        child = Node(tree.outcome, CHANCE, node)
        bisect.insort(node.children, child, key=lambda n: n.action)
        tree.nodes += 1
        tree.outcome = None
        open_node(child, node.state.child(child.action), tree)
        return child
    if tree.rule.evaluated:  # all children at once, with the evaluator's priors
        if config.max_nodes is not None and tree.nodes + len(node.untried) > config.max_nodes:
            raise NodeBudgetReached
        evaluate_nodes([node], tree)
        return node
    if config.expansion == "one" and not (config.rave or config.knowledge):  # all at once
        if config.max_nodes is not None and tree.nodes + 1 > config.max_nodes:
            raise NodeBudgetReached
        # The i-th untried action in ascending order, i uniform: a random order of
        # expansion that a compiled tree can follow without storing the list.
        action = node.untried.pop(rng.randint(len(node.untried)))
        new = [Node(action, node.to_play, node)]
    else:
        if config.max_nodes is not None and tree.nodes + len(node.untried) > config.max_nodes:
            raise NodeBudgetReached
        new = [Node(a, node.to_play, node) for a in node.untried]  # ascending
        node.untried = []
    assert node.state is not None
    if config.knowledge:
        set_knowledge(new, node.state, config.knowledge)
    for ch in new:
        bisect.insort(node.children, ch, key=lambda n: n.action)
    tree.nodes += len(new)
    child = new[0]
    open_node(child, node.state.child(child.action), tree)
    return child


def set_knowledge(children: Sequence[Node], state: State, scale: float) -> None:
    """Prior knowledge (Gelly and Silver 2007): each new child starts with ``scale * n0``
    virtual visits and ``scale * w0`` virtual wins, ``(n0, w0)`` the game's knowledge of
    its move in ``state`` (:meth:`~mctslab.games.kernels.KernelState.knowledge`)."""
    visits, wins = state.knowledge()  # type: ignore[attr-defined]
    for ch in children:
        ch.prior_visits = scale * float(visits[ch.action])
        ch.prior_wins = scale * float(wins[ch.action])


def evaluate_nodes(nodes: Sequence[Node], tree: SearchTree) -> None:
    """PUCT's expansion of ``nodes`` with one evaluator call: each gets a child for every
    legal action, with the evaluator's prior, and keeps the rewards of its value in
    ``estimate`` for phase 3 (the ``"uniform+rollout"`` evaluator leaves it to a
    playout)."""
    info, evaluator = tree.info, tree.evaluator
    assert evaluator is not None
    if getattr(evaluator, "builtin", False):
        # Uniform priors 1 / n and the evaluator's value, as the compiled engine
        # computes them (no batch, no renormalisation that could round differently).
        for node in nodes:
            assert node.state is not None
            value = evaluator.leaf_value(node.state, node.to_play)  # type: ignore[attr-defined]
            add_children(node, [1.0 / len(node.untried)] * len(node.untried), tree)
            if value is not None:
                node.estimate = value_rewards(value, node.to_play, info)
        return
    mask = np.zeros((len(nodes), info.num_actions), dtype=np.bool_)
    for i, node in enumerate(nodes):
        mask[i, node.untried] = True
    to_play = np.array([node.to_play for node in nodes], dtype=np.int64)
    states = [node.state for node in nodes]
    batch = LeafBatch(mask, to_play, states=states)  # type: ignore[arg-type]
    priors, values = check_output(*evaluator.evaluate(batch), mask)
    for i, node in enumerate(nodes):
        add_children(node, [float(priors[i, a]) for a in node.untried], tree)
        node.estimate = value_rewards(float(values[i]), node.to_play, info)


def add_children(node: Node, priors: list[float], tree: SearchTree) -> None:
    """Every untried action of ``node`` becomes a child (ascending), with its prior."""
    node.children = [Node(a, node.to_play, node) for a in node.untried]
    for ch, p in zip(node.children, priors, strict=True):
        ch.prior = p
    node.untried = []
    tree.nodes += len(node.children)


def _wins(returns: list[float], player: int) -> bool:
    return all(returns[player] > r for i, r in enumerate(returns) if i != player)


def heavy_action(state: State, rng: Rng) -> int:
    """Win at once if possible; else avoid the moves after which the opponent wins at once
    (which blocks a single threat); else any move. Random among equals."""
    legal = state.legal_actions()
    mover = state.current_player()
    children = [state.child(a) for a in legal]
    for a, ch in zip(legal, children, strict=True):
        if ch.is_terminal() and _wins(ch.returns(), mover):
            return a
    safe = []
    for a, ch in zip(legal, children, strict=True):
        if ch.is_terminal():
            safe.append(a)
            continue
        other = ch.current_player()
        if other == CHANCE or not any(
            _wins(ch.child(b).returns(), other) for b in ch.legal_actions()
        ):
            safe.append(a)
    pool = safe if safe else legal
    return pool[rng.randint(len(pool))]


def playout_actions(state: State) -> list[int]:
    """The moves a playout chooses among: the state's ``playout_actions()`` where it has
    them (a kernel game's ``rollout_actions``: Go's leave out one's own eyes), else the
    legal actions."""
    choices = getattr(state, "playout_actions", None)
    return choices() if choices is not None else state.legal_actions()  # type: ignore[no-any-return]


def random_action(state: State, rng: Rng) -> int:
    """A random playout move: a chance outcome by its probability; else the game's own
    light move (a kernel game's ``light_action``: Go's draws by rejection among the
    empty points), else uniformly among :func:`playout_actions`."""
    if state.current_player() == CHANCE:
        return sample_chance_outcome(state, rng)
    light = getattr(state, "light_action", None)
    own = light(rng) if light is not None else None
    if own is not None:
        return own  # type: ignore[no-any-return]
    legal = playout_actions(state)
    return legal[rng.randint(len(legal))]


def simulate(
    state: State, tree: SearchTree, moves: list[tuple[int, int]] | None = None
) -> list[float]:
    """Phase 3: play out from ``state`` (consumed) and return each player's reward in ``[0, 1]``.

    Random moves are the state's own light move where it has one (a kernel game's
    ``light_action``), else drawn among its playout moves (:func:`playout_actions`); a
    heavy playout plays the game's own heavy move where it has one (a kernel game's
    ``heavy_action``), else :func:`heavy_action`. Under RAVE, ``moves`` receives each
    ``(player, action)`` played by a player (chance outcomes left out)."""
    config, rng, info = tree.config, tree.rng, tree.info
    if config.simulation == "random" and moves is None:  # the common case, fewer calls a ply
        is_terminal, current_player = state.is_terminal, state.current_player
        choices = getattr(state, "playout_actions", None) or state.legal_actions
        apply_action, randint = state.apply_action, rng.randint
        light = getattr(state, "light_action", None)
        while not is_terminal():
            if current_player() == CHANCE:
                apply_action(random_action(state, rng))
                continue
            own = light(rng) if light is not None else None
            if own is None:
                legal = choices()
                own = legal[randint(len(legal))]
            apply_action(own)
        return scaled_rewards(state.returns(), info)
    heavy = getattr(state, "heavy_action", None) if config.simulation == "heavy" else None
    plies = 0
    while not state.is_terminal():
        if config.simulation == "cutoff" and plies >= config.cutoff_depth:
            h = heuristic_or_none(state)
            assert h is not None  # checked when the search starts
            return [(v + 1.0) / 2.0 for v in h]
        if config.simulation == "verdict" and plies % config.verdict_every == 0:
            h = heuristic_or_none(state)
            assert h is not None  # checked when the search starts
            for p, v in enumerate(h):
                if v >= config.verdict_threshold:  # a clear verdict: p wins
                    return [1.0 if i == p else 0.0 for i in range(len(h))]
        mover = state.current_player()
        if config.simulation == "heavy" and mover != CHANCE:
            own = heavy(rng) if heavy is not None else None
            action = own if own is not None else heavy_action(state, rng)
        else:
            action = random_action(state, rng)
        if moves is not None and mover != CHANCE:
            moves.append((mover, action))
        state.apply_action(action)
        plies += 1
    return scaled_rewards(state.returns(), info)


def playout(
    leaf: Node,
    tree: SearchTree,
    moves: list[tuple[int, int]] | None = None,
    recorder: Recorder | None = None,
) -> list[float]:
    """Phase 3 from ``leaf``: :func:`simulate` on a copy of its position (reported to the
    ``recorder`` with the position the playout ended in)."""
    assert leaf.state is not None
    end = leaf.state.clone()
    rewards = simulate(end, tree, moves)
    if recorder is not None:
        recorder.played(leaf, end, rewards)
    return rewards


def evaluation(leaf: Node, tree: SearchTree, recorder: Recorder | None = None) -> list[float]:
    """Phase 3 under PUCT: the rewards of the leaf's evaluation, in place of a playout
    (mixed with one, ``(1 - mix) * v + mix * z``, AlphaGo's ``lambda``); a playout alone
    for the ``"uniform+rollout"`` evaluator and at a chance node (no player to move)."""
    puct = puct_config(tree.config)
    assert leaf.state is not None
    estimate, leaf.estimate = leaf.estimate, None  # used once: the node's first visit
    if estimate is None:
        rewards = playout(leaf, tree, None, recorder)
    elif puct.mix == 0.0:
        rewards = estimate
    else:
        z = playout(leaf, tree, None, recorder)
        m = puct.mix
        rewards = [(1.0 - m) * v + m * r for v, r in zip(estimate, z, strict=True)]
    if leaf.to_play >= 0:
        leaf.raw = 2.0 * rewards[leaf.to_play] - 1.0
    if recorder is not None:
        recorder.evaluated(leaf, estimate, rewards)
    return rewards


def leaf_rewards(leaf: Node) -> list[float] | None:
    """Rewards of a terminal or proven leaf (no playout needed), else ``None``."""
    if leaf.rewards is not None:
        return leaf.rewards
    if leaf.proven is not None:
        r0 = (leaf.proven + 1) / 2
        return [r0, 1.0 - r0]
    return None


def prove(node: Node) -> bool:
    """MCTS-Solver's backup at one node; True if it became proven."""
    if node.proven is not None or node.terminal or not node.opened:
        return False
    if node.outcomes is not None:  # a chance node: proven when every outcome agrees
        values = {ch.proven for ch in node.children}
        if len(node.children) == len(node.outcomes) and len(values) == 1 and None not in values:
            node.proven = values.pop()
            return True
        return False
    p = node.to_play
    best: int | None = None
    complete = not node.untried
    for ch in node.children:
        if ch.proven is None:
            complete = False
            continue
        v = value_for(ch.proven, p)
        if v == 1:
            node.proven = ch.proven
            return True
        if best is None or v > best:
            best = v
    if complete and best is not None:
        node.proven = value_for(best, p)
        return True
    return False


def backpropagate(
    path: list[Node],
    rewards: list[float],
    solver: bool,
    moves: list[tuple[int, int]] | None = None,
    squares: bool = False,
) -> None:
    """Phase 4: from the leaf up to the root, count the visit and add the reward of the
    player who moved into each node; under MCTS-Solver, back up proofs as far as they go.
    Under RAVE (``moves``: the playout's ``(player, action)``), also the all-moves-as-first
    statistics (:func:`update_amaf`); with ``squares`` (a rule that declares them, as
    UCB1-Tuned), the sum of the squared rewards."""
    proving = solver
    for node in reversed(path):
        node.visits += 1
        if node.player >= 0:
            r = rewards[node.player]
            node.value_sum += r
            if squares:
                node.squares += r * r
        if proving and node is not path[-1]:
            proving = prove(node)
    if moves is not None:
        update_amaf(path, moves, rewards)


def update_amaf(path: list[Node], moves: list[tuple[int, int]], rewards: list[float]) -> None:
    """RAVE's all-moves-as-first update (Gelly and Silver 2007): at each decision node of
    the path, every child whose move its player to move played *first* at some later
    point of the iteration (in the tree below or in the playout) counts a visit and that
    player's reward, as if the move had been played at once. Walked from the leaf up, the
    first mover of each action after the node is the last one written."""
    first: dict[int, int] = {}
    for player, action in reversed(moves):
        first[action] = player
    for d in range(len(path) - 1, -1, -1):
        node = path[d]
        if node.to_play < 0:  # a chance node (its outcome is no player's move) or terminal
            continue
        if d + 1 < len(path):
            first[path[d + 1].action] = node.to_play
        p = node.to_play
        r = rewards[p]
        for ch in node.children:
            if first.get(ch.action) == p:
                ch.amaf_visits += 1
                ch.amaf_sum += r


class Recorder(Protocol):
    """An observer of one iteration, told by :func:`iterate` what each phase did (the
    step-by-step trace's :class:`mctslab.search.trace.TraceRecorder`). A search passes
    none: each phase then costs one ``is None`` test more."""

    def selected(self, path: list[Node], tree: SearchTree) -> None:
        """Phase 1 chose ``path`` (root first); no statistic has changed yet."""

    def expanded(self, leaf: Node, child: Node, tree: SearchTree) -> None:
        """Phase 2 grew ``leaf``; ``child`` is the node simulated from (under PUCT,
        ``leaf`` itself, its children added with their priors)."""

    def played(self, start: Node, end: State, rewards: list[float]) -> None:
        """Phase 3 played out from ``start``'s position to ``end`` (over, or cut off)."""

    def evaluated(self, leaf: Node, value: list[float] | None, rewards: list[float]) -> None:
        """Phase 3 under PUCT: the evaluator's ``value`` of ``leaf`` as rewards (``None``:
        it gave none, a playout alone) and the rewards backed up."""

    def backing_up(self, path: list[Node], rewards: list[float]) -> None:
        """Phase 4 is about to add ``rewards`` along ``path``."""


def iterate(tree: SearchTree, recorder: Recorder | None = None) -> None:
    """One iteration: the four phases, as any lecture draws them.

    Raises :class:`NodeBudgetReached` (before any statistic changes) when expanding would grow
    the tree past ``max_nodes``. A ``recorder`` hears what each phase did (:class:`Recorder`:
    :func:`mctslab.search.trace.traced_iteration` builds its trace from it); a search passes
    none.
    """
    path = select(tree.root, tree)
    if recorder is not None:
        recorder.selected(path, tree)
    leaf = path[-1]
    if should_expand(leaf, tree):
        child = expand(leaf, tree)
        if recorder is not None:
            recorder.expanded(leaf, child, tree)
        if child is not leaf:  # PUCT expands the leaf itself
            path.append(child)
        leaf = child
    moves: list[tuple[int, int]] | None = [] if tree.config.rave else None
    rewards = leaf_rewards(leaf)
    if rewards is None:
        if tree.rule.evaluated:
            rewards = evaluation(leaf, tree, recorder)
        else:
            rewards = playout(leaf, tree, moves, recorder)
    if recorder is not None:
        recorder.backing_up(path, rewards)
    backpropagate(path, rewards, tree.config.solver, moves, tree.squares)


def iterate_batch(tree: SearchTree, limit: int) -> int:
    """Up to ``limit`` PUCT iterations whose new leaves the evaluator sees in one call.

    Each descent adds ``virtual_loss`` visits (reward 0: a loss) to the nodes on its
    path, so that the next descent tends elsewhere; it stops collecting at ``limit``
    leaves, at a leaf already waiting (a collision), or where the new nodes would pass
    ``max_nodes``. A terminal or proven leaf is backed up at once. Then one evaluator
    call (:func:`evaluate_nodes`), the virtual loss comes off, and each leaf's value is
    backed up. Returns the iterations done.
    """
    puct, config = puct_config(tree.config), tree.config
    vl = puct.virtual_loss
    pending: list[list[Node]] = []
    waiting: set[int] = set()
    done = grow = 0
    while len(pending) + done < limit:
        path = select(tree.root, tree)
        leaf = path[-1]
        if not should_expand(leaf, tree):
            rewards = leaf_rewards(leaf)
            assert rewards is not None  # no chance nodes (checked), so terminal or proven
            backpropagate(path, rewards, config.solver)
            done += 1
            continue
        if id(leaf) in waiting:
            break
        if config.max_nodes is not None and (
            tree.nodes + grow + len(leaf.untried) > config.max_nodes
        ):
            if not pending and not done:
                raise NodeBudgetReached
            break
        grow += len(leaf.untried)
        waiting.add(id(leaf))
        pending.append(path)
        for node in path:
            node.visits += vl
    if pending:
        for path in pending:
            for node in path:
                node.visits -= vl
        evaluate_nodes([path[-1] for path in pending], tree)
        for path in pending:
            backpropagate(path, evaluation(path[-1], tree), config.solver)
    return done + len(pending)
