"""One MCTS iteration, step by step: what each of the four phases did.

:func:`traced_iteration` runs exactly one iteration of the reference engine
(:mod:`mctslab.search.mcts`) on a searcher's tree, with the same phase functions and
the same random draws as :func:`mctslab.search.mcts.iterate`, so ``k`` traced
iterations build the tree that a ``k``-iteration search with the same seed
builds. It returns an :class:`IterationTrace`:

1. ``selection``: one :class:`SelectionStep` per level of the descent, with
   every child's visits ``N``, mean reward ``Q/N`` and UCT value (Kocsis and
   Szepesvári 2006)::

       UCT(child) = Q(child) / N(child) + c * sqrt(ln N(parent) / N(child))

   (infinite for an unvisited child; ``to_dict()`` writes it as ``None``, JSON
   having no infinity) and the child the descent took.
2. ``expansion``: the node added (``expansion="one"``) or the first of the
   nodes added (``"all"``), or ``None`` when the leaf did not grow (a terminal
   or proven node, or a node reached for the first time under ``"all"``).
3. ``simulation``: the playout's moves and the rewards it ended with, or the
   exact rewards of a terminal or proven leaf (no playout).
4. ``backpropagation``: for each node of the path, leaf to root, ``N`` and the
   value sum before and after, and the reward added: the reward *of the player
   who moved into the node*, so in a two-player game the reward alternates
   (``r``, ``1 - r``) from one level to the next: the "flip" of negamax.

Rewards and means are on the engine's scale ``[0, 1]`` (win 1, draw 0.5,
loss 0), the scale UCT's ``c`` is set on. Node ids are the actions from the
search root joined by dots: ``""`` is the root, ``"4.0.8"`` the node reached by
playing 4, 0 then 8 from it.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import asdict, dataclass
from typing import Any, Literal

from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import GameInfo, State
from mctslab.search.mcts import (
    MCTS,
    Node,
    NodeBudgetReached,
    backpropagate,
    expand,
    leaf_rewards,
    select,
    should_expand,
    simulate,
    uct_value,
)

__all__ = [
    "ChildScore",
    "Expansion",
    "IterationTrace",
    "SelectionStep",
    "Simulation",
    "Update",
    "node_id",
    "traced_iteration",
    "tree_at",
    "tree_size",
]

LeafKind = Literal["playout", "terminal", "proven"]


def node_id(node: Node) -> str:
    """The node's id: the actions from the search root, joined by dots (``""``: the root)."""
    actions: list[str] = []
    while node.parent is not None:
        actions.append(str(node.action))
        node = node.parent
    return ".".join(reversed(actions))


def tree_at(searcher: MCTS, state: State, game_info: GameInfo | None = None) -> tuple[Node, int]:
    """The searcher's tree re-rooted at ``state`` as its next search would do it (its
    subtree kept, or a fresh root), and the tree's node count. Draws no random number."""
    tree = searcher.prepare(state, game_info)
    return tree.root, tree.nodes


def tree_size(searcher: MCTS) -> tuple[int, int]:
    """``(nodes, root visits)`` of the searcher's tree as its last search or
    :func:`tree_at` left it; ``(0, 0)`` with no tree."""
    tree = searcher._tree
    if tree is None or searcher.root is None:
        return 0, 0
    return tree.nodes, tree.root.visits


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


@dataclass(frozen=True)
class ChildScore:
    """A child as the selection saw it (statistics before this iteration's update).

    ``mean`` is ``Q/N`` in ``[0, 1]`` for the player who moves into the child,
    ``uct`` its UCT value (``math.inf`` when unvisited); ``eligible`` is false
    for a child that MCTS-Solver skips because it is proven.
    """

    action: int
    label: str
    visits: int
    mean: float
    uct: float
    proven: int | None
    eligible: bool
    chosen: bool


@dataclass(frozen=True)
class SelectionStep:
    """One level of the descent: the node, its player to move, its children, the pick."""

    node: str
    to_play: int
    visits: int
    children: tuple[ChildScore, ...]
    chosen: int


@dataclass(frozen=True)
class Expansion:
    """The node added to the tree (``added`` > 1 under ``expansion="all"``)."""

    parent: str
    node: str
    action: int
    label: str
    added: int
    untried_left: int


@dataclass(frozen=True)
class Simulation:
    """Phase 3. ``kind``: ``"playout"`` (moves played from ``start``), ``"terminal"``
    (the leaf is the end of the game: its exact rewards, no moves) or ``"proven"``
    (MCTS-Solver knows the leaf's value). ``cutoff``: the playout stopped at
    ``cutoff_depth`` and the heuristic scored it. ``rewards``: per player, in ``[0, 1]``."""

    start: str
    kind: LeafKind
    actions: tuple[int, ...]
    labels: tuple[str, ...]
    cutoff: bool
    rewards: tuple[float, ...]


@dataclass(frozen=True)
class Update:
    """Phase 4 at one node. ``player`` moved into the node (``-1`` at the root, which
    counts the visit but has no value); ``reward`` is that player's (``None`` at the root)."""

    node: str
    action: int
    player: int
    reward: float | None
    visits_before: int
    visits_after: int
    value_sum_before: float
    value_sum_after: float
    mean_before: float
    mean_after: float
    proven_before: int | None
    proven_after: int | None


@dataclass(frozen=True)
class IterationTrace:
    """What one iteration did, phase by phase; ``to_dict()`` gives JSON-ready data.

    ``root_visits`` and ``nodes`` are the root's ``N`` and the tree's size after it.
    """

    selection: tuple[SelectionStep, ...]
    expansion: Expansion | None
    simulation: Simulation
    backpropagation: tuple[Update, ...]
    root_visits: int
    nodes: int
    c: float

    @property
    def path(self) -> tuple[str, ...]:
        """The ids of the iteration's path, root first (the expanded node last, if any)."""
        return tuple(u.node for u in reversed(self.backpropagation))

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for step in data["selection"]:
            for child in step["children"]:
                child["uct"] = _finite(child["uct"])  # JSON has no infinity: None
        data["path"] = list(self.path)
        return data


def _scores(parent: Node, chosen: Node, state: State, c: float, solver: bool) -> SelectionStep:
    children = tuple(
        ChildScore(
            action=ch.action,
            label=state.action_to_string(ch.action),
            visits=ch.visits,
            mean=ch.mean,
            uct=uct_value(parent, ch, c),
            proven=ch.proven,
            eligible=not (solver and ch.proven is not None),
            chosen=ch is chosen,
        )
        for ch in parent.children
    )
    return SelectionStep(node_id(parent), parent.to_play, parent.visits, children, chosen.action)


def _labels(state: State, actions: list[int]) -> tuple[str, ...]:
    labels = []
    s = state.clone()
    for a in actions:
        labels.append(s.action_to_string(a))
        s.apply_action(a)
    return tuple(labels)


def traced_iteration(
    searcher: MCTS, state: State, game_info: GameInfo | None = None
) -> IterationTrace:
    """Run one iteration of ``searcher`` from ``state`` (its tree reused as by ``search``)
    and report what each phase did.

    The steps are those of :func:`mctslab.search.mcts.iterate`, one by one, with the same
    functions and draws from the searcher's generator. Raises
    :class:`~mctslab.core.errors.InvalidConfigError` for a terminal state, a root that
    MCTS-Solver has proven (a search would stop there) or a tree at ``max_nodes``.
    """
    tree = searcher.prepare(state, game_info)
    config, root = tree.config, tree.root
    if config.solver and root.proven is not None:
        raise InvalidConfigError("MCTS-Solver has proven the root: no iteration is left to run")
    if config.max_nodes is not None and tree.nodes >= config.max_nodes:
        raise InvalidConfigError(f"the tree is at max_nodes={config.max_nodes}: it cannot grow")
    nodes_before = tree.nodes

    # Phase 1: selection. Selection opens nodes but changes no statistic, so the
    # children's scores read after it are those the descent compared.
    path = select(root, tree)
    selection = []
    for parent, chosen in itertools.pairwise(path):
        assert parent.state is not None
        selection.append(_scores(parent, chosen, parent.state, config.c, config.solver))

    # Phase 2: expansion.
    leaf = path[-1]
    expansion = None
    if should_expand(leaf, tree):
        try:
            new = expand(leaf, tree)
        except NodeBudgetReached:
            raise InvalidConfigError(
                f"the tree is at max_nodes={config.max_nodes}: it cannot grow"
            ) from None
        assert leaf.state is not None
        expansion = Expansion(
            parent=node_id(leaf),
            node=node_id(new),
            action=new.action,
            label=leaf.state.action_to_string(new.action),
            added=tree.nodes - nodes_before,
            untried_left=len(leaf.untried),
        )
        path.append(new)
        leaf = new

    # Phase 3: simulation (or the exact value of a terminal or proven leaf).
    assert leaf.state is not None
    exact = leaf_rewards(leaf)
    actions: list[int] = []
    cutoff = False
    kind: LeafKind
    if exact is not None:
        rewards = exact
        kind = "terminal" if leaf.terminal else "proven"
    else:
        playout = leaf.state.clone()
        rewards = simulate(playout, tree)
        actions = playout.history()[len(leaf.state.history()) :]
        cutoff = not playout.is_terminal()
        kind = "playout"
    simulation = Simulation(
        start=node_id(leaf),
        kind=kind,
        actions=tuple(actions),
        labels=_labels(leaf.state, actions),
        cutoff=cutoff,
        rewards=tuple(rewards),
    )

    # Phase 4: backpropagation, recorded leaf to root.
    before = [(n.visits, n.value_sum, n.mean, n.proven) for n in path]
    backpropagate(path, rewards, config.solver)
    updates = tuple(
        Update(
            node=node_id(n),
            action=n.action,
            player=n.player,
            reward=rewards[n.player] if n.player >= 0 else None,
            visits_before=b[0],
            visits_after=n.visits,
            value_sum_before=b[1],
            value_sum_after=n.value_sum,
            mean_before=b[2],
            mean_after=n.mean,
            proven_before=b[3],
            proven_after=n.proven,
        )
        for n, b in reversed(list(zip(path, before, strict=True)))
    )
    return IterationTrace(
        selection=tuple(selection),
        expansion=expansion,
        simulation=simulation,
        backpropagation=updates,
        root_visits=root.visits,
        nodes=tree.nodes,
        c=config.c,
    )
