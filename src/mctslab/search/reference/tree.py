"""The reference engine's tree: :class:`Node` (a position's statistics, its children
sorted by action, the position itself once seen), :class:`SearchTree` (what one search
loop works on: the root, the node count, the generator) and :func:`open_node`, which
reads a node's position the first time a descent reaches it.

Each node keeps the statistics of the player who moved into it (``visits``,
``value_sum`` of that player's rewards on ``[0, 1]``, :func:`scaled_rewards`), so a
parent's selection reads its children directly: no sign flip, and games of any number
of players work (max^n). The compiled twin keeps the same statistics in arrays
(:mod:`mctslab.search.compiled`).
"""

from __future__ import annotations

from collections.abc import Sequence

from mctslab.core.game import CHANCE, TERMINAL, GameInfo, State, heuristic_or_none
from mctslab.core.rng import Rng
from mctslab.search.config import SearchConfig
from mctslab.search.evaluators import Evaluator
from mctslab.search.rules import RuleInfo, puct_config, rule_of_config
from mctslab.search.solver import win_loss_draw
from mctslab.search.tree_reader import NodeStats

__all__ = [
    "Node",
    "NodeBudgetReached",
    "ReferenceReader",
    "SearchTree",
    "count_nodes",
    "open_node",
    "release_nodes",
    "scaled_rewards",
]


class Node:
    """A node of the search tree.

    ``player`` is the player who moved into this node (``-1`` at the root):
    ``visits`` and ``value_sum`` (the sum of that player's rewards in ``[0, 1]``)
    are that player's statistics. ``to_play`` is the player to move here, known
    once the node is *opened* (its state seen during a descent); ``untried``
    holds the legal actions that have no child yet; ``children`` are sorted by
    action. ``proven`` is the solved game value for player 0 (1, 0, -1) under
    MCTS-Solver, else ``None``. ``state`` is the node's position: keeping it
    costs memory but spares replaying the path from the root every iteration
    (the compiled engine replays instead; the choices are the same). Under PUCT,
    ``prior`` is the evaluator's prior of the move into this node and ``estimate``
    the rewards of the node's own evaluation, waiting for phase 3.
    """

    __slots__ = (
        "action",
        "amaf_sum",
        "amaf_visits",
        "bias",
        "children",
        "estimate",
        "opened",
        "outcomes",
        "parent",
        "player",
        "prior",
        "prior_visits",
        "prior_wins",
        "proven",
        "raw",
        "rewards",
        "squares",
        "state",
        "terminal",
        "to_play",
        "untried",
        "value_sum",
        "visits",
    )

    def __init__(self, action: int, player: int, parent: Node | None) -> None:
        self.action = action
        self.player = player
        self.parent = parent
        self.children: list[Node] = []
        self.untried: list[int] = []
        self.visits = 0
        self.value_sum = 0.0
        self.to_play = TERMINAL
        self.opened = False
        self.proven: int | None = None
        self.terminal = False
        self.rewards: list[float] | None = None  # the exact rewards of a terminal node
        self.state: State | None = None  # the node's position, kept once opened
        # At a chance node: its outcomes (action, probability), in the state's order.
        self.outcomes: list[tuple[int, float]] | None = None
        self.prior = 0.0
        self.estimate: list[float] | None = None
        self.raw = 0.0  # Gumbel: the node's own value for its player to move, in [-1, 1]
        # RAVE: the all-moves-as-first visits and reward sum of the move into this node;
        # progressive bias: w * H of its position for the player who moved into it.
        self.amaf_visits = 0
        self.amaf_sum = 0.0
        self.bias = 0.0
        # Prior knowledge: the virtual visits and wins the move into this node starts with.
        self.prior_visits = 0.0
        self.prior_wins = 0.0
        # UCB1-Tuned: the sum of the squared rewards of the player who moved into it
        # (kept only when the search's rule declares "squares").
        self.squares = 0.0

    @property
    def mean(self) -> float:
        """Mean reward in ``[0, 1]`` of the player who moved into this node."""
        return self.value_sum / self.visits if self.visits else 0.0

    def child(self, action: int) -> Node | None:
        for ch in self.children:
            if ch.action == action:
                return ch
        return None

    def __repr__(self) -> str:
        return f"Node(action={self.action}, N={self.visits}, Q={self.value_sum:.3f})"


class SearchTree:
    """The root, the node count and the generator: what one search loop works on."""

    def __init__(
        self, root: Node, info: GameInfo, config: SearchConfig, rng: Rng, nodes: int | None = None
    ) -> None:
        self.root = root
        self.info = info
        self.config = config
        self.rng = rng
        self.nodes = count_nodes(root) if nodes is None else nodes
        # The chance outcome selection sampled at the leaf, which expansion adds.
        self.outcome: int | None = None
        # PUCT: the evaluator, and the root children's priors with this search's
        # Dirichlet noise mixed in (the nodes keep the evaluator's own priors), drawn at
        # the search's first selection at the expanded root.
        self.evaluator: Evaluator | None = None
        self.root_priors: list[float] | None = None
        self.noise_due = self.rule.evaluated and (
            puct_config(config).noise_fraction > 0.0 or puct_config(config).gumbel
        )
        # Gumbel: the root actions' noise (by action) and Sequential Halving's schedule.
        self.gumbel: dict[int, float] = {}
        self.halving: list[int] = []
        # The statistics beyond N and Q that backpropagation keeps for the rule.
        self.squares = "squares" in config.statistics

    @property
    def rule(self) -> RuleInfo:
        """The registry entry of the search's selection rule (read from the config each
        time: a caller may hand the tree another config between searches)."""
        return rule_of_config(self.config)


class NodeBudgetReached(Exception):
    """Raised inside an iteration when expanding would grow the tree past ``max_nodes``."""


def count_nodes(node: Node) -> int:
    """The nodes of the subtree under ``node``, ``node`` included."""
    total, stack = 0, [node]
    while stack:
        n = stack.pop()
        total += 1
        stack.extend(n.children)
    return total


class ReferenceReader:
    """The reference tree's nodes from ``root``, searched from the position of ``history``
    (:class:`~mctslab.search.tree_reader.TreeReader`); ``puct``: the nodes' priors are
    PUCT's (under UCT a node has none)."""

    def __init__(self, root: Node, history: list[int], puct: bool = False) -> None:
        self._root = root
        self._history = list(history)
        self._puct = puct

    @property
    def history(self) -> list[int]:
        return self._history

    def root(self) -> Node:
        return self._root

    def children(self, node: Node) -> Sequence[Node]:
        return node.children

    def stats(self, node: Node) -> NodeStats:
        return NodeStats(
            node.action,
            node.visits,
            node.value_sum,
            node.proven,
            len(node.untried),
            node.prior if self._puct else None,
            node.amaf_visits,
            node.amaf_sum,
            node.bias,
            node.squares,
            node.prior_visits,
            node.prior_wins,
        )


def release_nodes(root: Node | None, keep: Node | None = None) -> None:
    """Unlink a discarded tree (all of it but ``keep``'s subtree) so that reference
    counting frees it at once.

    A node points to its parent and the parent to its children, so a dropped tree is a
    reference cycle. Left to Python's cyclic garbage collector, it would be freed by a
    full collection, which stops every thread for as long as it takes to walk every
    object of the process (a server's event loop included: up to 0.4 s with 20 busy
    sessions of the web lab).
    """
    stack = [] if root is None else [root]
    while stack:
        node = stack.pop()
        if node is keep:
            continue
        stack.extend(node.children)
        node.children = []
        node.parent = None


def open_node(node: Node, state: State, tree: SearchTree) -> None:
    """Give the node its state and record what it says: player to move, legal actions,
    and for a terminal position its rewards (and, under MCTS-Solver, its proof)."""
    node.opened = True
    node.state = state
    node.to_play = state.current_player()
    if node.to_play == CHANCE:
        outcomes = state.chance_outcomes()  # type: ignore[attr-defined]
        node.outcomes = [(int(a), float(p)) for a, p in outcomes]
    elif node.to_play == TERMINAL:
        node.terminal = True
        returns = state.returns()
        node.rewards = scaled_rewards(returns, tree.info)
        if tree.config.solver:
            node.proven = win_loss_draw(returns, tree.info)
    else:
        node.untried = list(state.legal_actions())  # ours to change: never the caller's list
    w = tree.config.progressive_bias
    if w and node.player >= 0:
        # Progressive bias's H: the position's value for the player who moved into it, on
        # [0, 1] (a terminal's exact reward; else the heuristic, (h + 1) / 2).
        if node.rewards is not None:
            h = node.rewards[node.player]
        else:
            values = heuristic_or_none(state)
            assert values is not None  # checked when the search starts
            h = (values[node.player] + 1.0) / 2.0
        node.bias = w * h


def scaled_rewards(returns: list[float], info: GameInfo) -> list[float]:
    """The game's returns mapped linearly onto the engine's scale ``[0, 1]`` (win 1, draw
    0.5, loss 0 for returns in ``[-1, 1]``), the scale UCB1's ``c = sqrt(2)`` is set on."""
    span = info.max_utility - info.min_utility
    return [(r - info.min_utility) / span for r in returns]
