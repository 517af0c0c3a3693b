"""The reference MCTS engine: readable, line by line beside any lecture.

Monte Carlo Tree Search (Coulom 2006; Kocsis and Szepesvári 2006, "Bandit based
Monte-Carlo planning"; survey: Browne et al. 2012, "A survey of Monte Carlo
tree search methods") repeats four phases until the budget is spent:

1. :func:`select`: from the root, descend by UCT (UCB1 applied to trees) while
   the node is fully expanded::

       UCT(child) = Q(child) / N(child) + c * sqrt(ln N(parent) / N(child))

   Unvisited children come first; ties go to the lowest action id.
2. :func:`expand`: add one untried child chosen at random (``expansion="one"``)
   or every child at once (``"all"``; each is then simulated when first
   selected).
3. :func:`simulate`: play the game out from the new node: uniformly random moves
   (``"random"``), a heavy playout that wins at once when it can and otherwise
   avoids letting the opponent win at once (``"heavy"``), or at most
   ``cutoff_depth`` random plies scored with the game's ``heuristic()``
   (``"cutoff"``).
4. :func:`backpropagate`: add the playout's rewards to every node on the path.
   Each node keeps the statistics of the player who moved into it, so the
   parent's UCT reads its children directly: no sign flip, and games of any
   number of players work (max^n).

Rewards are the game's returns mapped linearly onto ``[0, 1]`` (win 1, draw
0.5, loss 0 for a game with returns in ``[-1, 1]``), and ``c = sqrt(2)`` is
UCB1's constant on that scale. OpenSpiel's ``MCTSBot`` uses rewards in
``[-1, 1]``: its ``uct_c`` equals ``2 * c`` here (OpenSpiel's ``uct_c = 2``
is ``c = 1``). Reported values are back on the game's own utility scale.

MCTS-Solver (Winands, Björnsson and Saito 2008) is ``solver=True``: terminal
positions are proven and proofs are backed up (a node is a proven win for its
player to move if one child is, and otherwise proven once all children are
proven, at their best value); proven-losing children are never selected, a
proven win is played at once, and the search stops when the root is proven.

:class:`MCTS` keeps its tree between searches (tree reuse);
:func:`search` is the one-shot form.
"""

from __future__ import annotations

import bisect
import math
import time
from dataclasses import asdict, dataclass
from typing import Any, Literal

from mctslab.errors import InvalidConfigError
from mctslab.game import CHANCE, TERMINAL, GameInfo, State, heuristic_or_none
from mctslab.rng import Rng

__all__ = [
    "MCTS",
    "ChildStats",
    "Node",
    "SearchConfig",
    "SearchResult",
    "backpropagate",
    "expand",
    "search",
    "select",
    "simulate",
]

Expansion = Literal["one", "all"]
Simulation = Literal["random", "heavy", "cutoff"]
FinalRule = Literal["robust", "max", "robust-max"]

_EXPANSIONS = ("one", "all")
_SIMULATIONS = ("random", "heavy", "cutoff")
_FINAL_RULES = ("robust", "max", "robust-max")


@dataclass(frozen=True)
class SearchConfig:
    """Every option of a search. Values are checked on construction.

    Attributes:
        c: UCT exploration constant on rewards in ``[0, 1]`` (``sqrt(2)``: UCB1).
        expansion: ``"one"`` untried child per iteration (random order) or ``"all"``.
        simulation: ``"random"``, ``"heavy"`` or ``"cutoff"`` playouts.
        cutoff_depth: plies a ``"cutoff"`` playout plays before ``heuristic()`` scores it.
        final: final-move rule: ``"robust"`` (most visits), ``"max"`` (highest
            mean) or ``"robust-max"`` (both; while they disagree the search goes on
            for up to ``robust_max_extra`` times the budget, then plays robust).
        robust_max_extra: fraction of the budget ``"robust-max"`` may add.
        solver: MCTS-Solver (two-player zero-sum games).
        iterations: iteration budget (``None``: no limit).
        time: wall-clock budget in seconds (``None``: no limit).
        max_nodes: tree-size budget (``None``: no limit); the tree never grows past it.
        seed: seed of the :class:`~mctslab.rng.Rng` behind every random choice.
        reuse_tree: keep the subtree of the played moves between searches (:class:`MCTS`).
    """

    c: float = math.sqrt(2.0)
    expansion: Expansion = "one"
    simulation: Simulation = "random"
    cutoff_depth: int = 8
    final: FinalRule = "robust"
    robust_max_extra: float = 0.5
    solver: bool = False
    iterations: int | None = 1000
    time: float | None = None
    max_nodes: int | None = None
    seed: int = 0
    reuse_tree: bool = True

    def __post_init__(self) -> None:
        def bad(msg: str) -> InvalidConfigError:
            return InvalidConfigError(f"search config: {msg}")

        if not isinstance(self.c, int | float) or not math.isfinite(self.c) or self.c < 0:
            raise bad(f"c must be a finite number >= 0, got {self.c!r}")
        if self.expansion not in _EXPANSIONS:
            raise bad(f"expansion must be one of {', '.join(_EXPANSIONS)}, got {self.expansion!r}")
        if self.simulation not in _SIMULATIONS:
            raise bad(
                f"simulation must be one of {', '.join(_SIMULATIONS)}, got {self.simulation!r}"
            )
        if self.final not in _FINAL_RULES:
            raise bad(f"final must be one of {', '.join(_FINAL_RULES)}, got {self.final!r}")
        if not _is_int(self.cutoff_depth) or self.cutoff_depth < 0:
            raise bad(f"cutoff_depth must be an integer >= 0, got {self.cutoff_depth!r}")
        if not isinstance(self.robust_max_extra, int | float) or not (
            0 <= self.robust_max_extra <= 100
        ):
            raise bad(f"robust_max_extra must be in [0, 100], got {self.robust_max_extra!r}")
        if self.iterations is not None and (not _is_int(self.iterations) or self.iterations < 1):
            raise bad(f"iterations must be a positive integer, got {self.iterations!r}")
        if self.time is not None and (
            not isinstance(self.time, int | float) or not 0 < self.time < 1e6
        ):
            raise bad(f"time must be a positive number of seconds, got {self.time!r}")
        if self.max_nodes is not None and (not _is_int(self.max_nodes) or self.max_nodes < 2):
            raise bad(f"max_nodes must be an integer >= 2, got {self.max_nodes!r}")
        if self.iterations is None and self.time is None and self.max_nodes is None:
            raise bad("give at least one budget: iterations, time or max_nodes")
        if not _is_int(self.seed):
            raise bad(f"seed must be an integer, got {self.seed!r}")


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


@dataclass(frozen=True)
class ChildStats:
    """Root statistics of one move, from the point of view of the player to move.

    ``value`` is the mean return on the game's utility scale; ``proven`` is
    1 / 0 / -1 for a proven win / draw / loss, ``None`` if unproven.
    """

    action: int
    visits: int
    value: float
    proven: int | None


@dataclass(frozen=True)
class SearchResult:
    """What a search found. ``to_dict()`` gives the CLI's JSON.

    ``value`` is the root's mean return for the player to move; ``final_rule``
    names the rule that picked ``action`` (``"solver"`` when a proof did);
    ``stopped_by`` is ``"iterations"``, ``"time"``, ``"nodes"`` or ``"proven"``.
    ``seconds`` and ``sims_per_s`` count search time only.
    """

    action: int
    value: float
    children: tuple[ChildStats, ...]
    iterations: int
    nodes: int
    seconds: float
    sims_per_s: float
    proven: int | None
    player: int
    final_rule: str
    stopped_by: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class Node:
    """A node of the search tree.

    ``player`` is the player who moved into this node (``-1`` at the root):
    ``visits`` and ``value_sum`` (the sum of that player's rewards in ``[0, 1]``)
    are that player's statistics. ``to_play`` is the player to move here, known
    once the node is *opened* (its state seen during a descent); ``untried``
    holds the legal actions that have no child yet; ``children`` are sorted by
    action. ``proven`` is the solved game value for player 0 (1, 0, -1) under
    MCTS-Solver, else ``None``.
    """

    __slots__ = (
        "action",
        "children",
        "opened",
        "parent",
        "player",
        "proven",
        "returns",
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
        self.returns: list[float] | None = None  # set on terminal nodes

    @property
    def terminal(self) -> bool:
        return self.opened and self.to_play == TERMINAL

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


class _Tree:
    """The root, the node count and the generator: what one search loop works on."""

    def __init__(self, root: Node, info: GameInfo, config: SearchConfig, rng: Rng) -> None:
        self.root = root
        self.info = info
        self.config = config
        self.rng = rng
        self.nodes = _count(root)


class _NodeBudget(Exception):
    """Raised inside an iteration when expanding would grow the tree past ``max_nodes``."""


def _count(node: Node) -> int:
    total, stack = 0, [node]
    while stack:
        n = stack.pop()
        total += 1
        stack.extend(n.children)
    return total


def _open(node: Node, state: State, solver: bool) -> None:
    """Record what the node's state says: player to move, legal actions, terminal proof."""
    node.opened = True
    node.to_play = state.current_player()
    if node.to_play == CHANCE:
        raise InvalidConfigError("the reference engine's tree does not take chance nodes yet")
    if node.to_play == TERMINAL:
        node.returns = state.returns()
        if solver:
            r = node.returns
            node.proven = (r[0] > r[1]) - (r[0] < r[1])
    else:
        node.untried = state.legal_actions()


def _value_for(proven: int, player: int) -> int:
    """A proven value (for player 0) seen by ``player`` in a two-player zero-sum game."""
    return proven if player == 0 else -proven


def uct_value(parent: Node, child: Node, c: float) -> float:
    """UCB1 applied to trees: ``Q/N + c * sqrt(ln N_parent / N_child)``; unvisited: ``+inf``."""
    if child.visits == 0:
        return math.inf
    return child.value_sum / child.visits + c * math.sqrt(math.log(parent.visits) / child.visits)


def _best_uct_child(node: Node, config: SearchConfig) -> Node:
    best: Node | None = None
    best_value = -math.inf
    for ch in node.children:  # sorted by action: strict '>' keeps the lowest action on ties
        if config.solver and ch.proven is not None and _value_for(ch.proven, node.to_play) < 0:
            continue  # MCTS-Solver: a proven loss is never selected
        value = uct_value(node, ch, config.c)
        if best is None or value > best_value:
            best, best_value = ch, value
    assert best is not None  # an unproven node always has a child that is not a proven loss
    return best


def select(root: Node, state: State, config: SearchConfig) -> list[Node]:
    """Phase 1: descend from the root by UCT while nodes are fully expanded.

    ``state`` (a copy of the root state) is advanced along the path. The descent
    stops at a node with untried actions, a terminal or proven node, or a child
    seen for the first time (``expansion="all"``), which is then simulated.
    """
    path = [root]
    node = root
    while not node.untried and not node.terminal and node.proven is None and node.children:
        node = _best_uct_child(node, config)
        state.apply_action(node.action)
        path.append(node)
        if not node.opened:
            _open(node, state, config.solver)
            break
    return path


def expand(node: Node, state: State, tree: _Tree) -> Node:
    """Phase 2: add children to ``node`` and return the one to simulate from.

    ``expansion="one"`` adds one untried action drawn at random; ``"all"`` adds
    every untried action and returns the first (lowest action), the others
    waiting for selection. ``state`` is advanced to the returned child.
    """
    config, rng = tree.config, tree.rng
    if config.expansion == "one":
        if config.max_nodes is not None and tree.nodes + 1 > config.max_nodes:
            raise _NodeBudget
        i = rng.randint(len(node.untried))
        action = node.untried[i]
        node.untried[i] = node.untried[-1]
        node.untried.pop()
        new = [Node(action, node.to_play, node)]
    else:
        if config.max_nodes is not None and tree.nodes + len(node.untried) > config.max_nodes:
            raise _NodeBudget
        new = [Node(a, node.to_play, node) for a in sorted(node.untried)]
        node.untried = []
    for ch in new:
        bisect.insort(node.children, ch, key=lambda n: n.action)
    tree.nodes += len(new)
    child = new[0]
    state.apply_action(child.action)
    _open(child, state, config.solver)
    return child


def _rewards(returns: list[float], info: GameInfo) -> list[float]:
    span = info.max_utility - info.min_utility
    return [(r - info.min_utility) / span for r in returns]


def _wins(returns: list[float], player: int) -> bool:
    return all(returns[player] > r for i, r in enumerate(returns) if i != player)


def _heavy_action(state: State, rng: Rng) -> int:
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


def _random_action(state: State, rng: Rng) -> int:
    if state.current_player() == CHANCE:
        x = rng.random()
        outcomes = state.chance_outcomes()  # type: ignore[attr-defined]
        for action, prob in outcomes:
            x -= prob
            if x < 0:
                return int(action)
        return int(outcomes[-1][0])
    legal = state.legal_actions()
    return legal[rng.randint(len(legal))]


def simulate(state: State, tree: _Tree) -> list[float]:
    """Phase 3: play out from ``state`` (consumed) and return each player's reward in ``[0, 1]``."""
    config, rng, info = tree.config, tree.rng, tree.info
    plies = 0
    while not state.is_terminal():
        if config.simulation == "cutoff" and plies >= config.cutoff_depth:
            h = heuristic_or_none(state)
            assert h is not None  # checked when the search starts
            return [(v + 1.0) / 2.0 for v in h]
        if config.simulation == "heavy" and state.current_player() != CHANCE:
            action = _heavy_action(state, rng)
        else:
            action = _random_action(state, rng)
        state.apply_action(action)
        plies += 1
    return _rewards(state.returns(), info)


def _prove(node: Node) -> bool:
    """MCTS-Solver's backup at one node; True if it became proven."""
    if node.proven is not None or node.terminal or not node.opened:
        return False
    p = node.to_play
    best: int | None = None
    complete = not node.untried
    for ch in node.children:
        if ch.proven is None:
            complete = False
            continue
        v = _value_for(ch.proven, p)
        if v == 1:
            node.proven = ch.proven
            return True
        if best is None or v > best:
            best = v
    if complete and best is not None:
        node.proven = _value_for(best, p)
        return True
    return False


def backpropagate(path: list[Node], rewards: list[float], solver: bool) -> None:
    """Phase 4: from the leaf up to the root, count the visit and add the reward of the
    player who moved into each node; under MCTS-Solver, back up proofs as far as they go."""
    proving = solver
    for node in reversed(path):
        node.visits += 1
        if node.player >= 0:
            node.value_sum += rewards[node.player]
        if proving and node is not path[-1]:
            proving = _prove(node)


def _leaf_rewards(leaf: Node, info: GameInfo) -> list[float] | None:
    """Rewards of a terminal or proven leaf (no playout needed), else ``None``."""
    if leaf.returns is not None:
        return _rewards(leaf.returns, info)
    if leaf.proven is not None:
        r0 = (leaf.proven + 1) / 2
        return [r0, 1.0 - r0]
    return None


def _robust(children: list[Node]) -> Node:
    return max(children, key=lambda n: (n.visits, n.mean, -n.action))


def _max(children: list[Node]) -> Node:
    seen = [n for n in children if n.visits] or children
    return max(seen, key=lambda n: (n.mean, n.visits, -n.action))


def _final_choice(root: Node, config: SearchConfig) -> tuple[Node, str]:
    children = root.children
    if config.solver:
        p = root.to_play
        wins = [n for n in children if n.proven is not None and _value_for(n.proven, p) == 1]
        if wins:
            return _robust(wins), "solver"
        alive = [n for n in children if n.proven is None or _value_for(n.proven, p) >= 0]
        if not alive:  # every move loses: keep the one that resisted longest
            return _robust(children), "solver"
        children = alive
    if config.final == "max":
        return _max(children), "max"
    return _robust(children), config.final


class MCTS:
    """A searcher that keeps its tree between moves (tree reuse).

    >>> import mctslab
    >>> game = mctslab.make("bachet")
    >>> result = MCTS(SearchConfig(iterations=500, seed=1)).search(game.new_initial_state())
    >>> result.action  # take 1 of 4 stones, leaving the opponent a multiple of 3
    0
    """

    def __init__(self, config: SearchConfig | None = None) -> None:
        self.config = config or SearchConfig()
        self.rng = Rng(self.config.seed)
        self.root: Node | None = None
        self._root_history: list[int] = []

    def reset(self) -> None:
        """Forget the tree (the generator keeps its stream)."""
        self.root = None
        self._root_history = []

    def _root_for(self, state: State) -> Node:
        history = state.history()
        old = self.root
        if old is not None and self.config.reuse_tree:
            n = len(self._root_history)
            if history[:n] == self._root_history:
                node: Node | None = old
                for action in history[n:]:
                    node = node.child(action) if node is not None else None
                if node is not None and node.opened:
                    node.parent = None
                    self.root, self._root_history = node, history
                    return node
        root = Node(-1, -1, None)
        _open(root, state, self.config.solver)
        self.root, self._root_history = root, history
        return root

    def search(self, state: State, game_info: GameInfo | None = None) -> SearchResult:
        """Search from ``state`` within the budget and return the chosen move and statistics."""
        config = self.config
        if state.is_terminal():
            raise InvalidConfigError("cannot search a terminal state: the game is over")
        info = game_info or _info_of(state)
        if config.solver and (info.num_players != 2 or not info.zero_sum):
            raise InvalidConfigError("solver=True needs a two-player zero-sum game")
        if config.simulation == "cutoff" and heuristic_or_none(state) is None:
            raise InvalidConfigError(
                f"simulation='cutoff' needs the game's heuristic(); {info.name} has none"
            )
        root = self._root_for(state)
        root.player = -1
        tree = _Tree(root, info, config, self.rng)
        return _run(tree, state)


def _info_of(state: State) -> GameInfo:
    game = getattr(state, "game", None)
    info = getattr(game, "info", None)
    if not isinstance(info, GameInfo):
        raise InvalidConfigError(
            "pass game_info=game.info: the state has no .game attribute to read it from"
        )
    return info


def _run(tree: _Tree, root_state: State) -> SearchResult:
    """The search loop: the four phases, repeated until the budget is spent."""
    config, root = tree.config, tree.root
    start = time.perf_counter()
    iterations = 0
    extra = 1.0  # budget multiplier, raised by robust-max while its two rules disagree
    stopped_by = "iterations"
    while True:
        if config.solver and root.proven is not None:
            stopped_by = "proven"
            break
        if config.max_nodes is not None and tree.nodes >= config.max_nodes:
            stopped_by = "nodes"
            break
        over = _over_budget(config, iterations, time.perf_counter() - start, extra)
        if over:
            if (
                config.final == "robust-max"
                and extra == 1.0
                and root.children
                and _robust(root.children) is not _max(root.children)
            ):
                extra = 1.0 + config.robust_max_extra
                continue
            stopped_by = over
            break
        if extra > 1.0 and _robust(root.children) is _max(root.children):
            stopped_by = "iterations" if config.iterations is not None else "time"
            break
        state = root_state.clone()
        try:
            path = select(root, state, config)
            leaf = path[-1]
            # A leaf seen before (or the root) grows; a node just reached for the
            # first time under expansion="all" is simulated as it is.
            if leaf.untried and leaf.proven is None and (leaf.visits > 0 or leaf is root):
                leaf = expand(leaf, state, tree)
                path.append(leaf)
        except _NodeBudget:
            if not root.children:
                raise InvalidConfigError(
                    f"max_nodes={config.max_nodes} is too small to expand the root"
                ) from None
            stopped_by = "nodes"
            break
        rewards = _leaf_rewards(leaf, tree.info)
        if rewards is None:
            rewards = simulate(state, tree)
        backpropagate(path, rewards, config.solver)
        iterations += 1
    seconds = time.perf_counter() - start
    return _result(tree, iterations, seconds, stopped_by)


def _over_budget(config: SearchConfig, iterations: int, elapsed: float, extra: float) -> str:
    if config.iterations is not None and iterations >= config.iterations * extra:
        return "iterations"
    if config.time is not None and elapsed >= config.time * extra:
        return "time"
    return ""


def _result(tree: _Tree, iterations: int, seconds: float, stopped_by: str) -> SearchResult:
    root, info, config = tree.root, tree.info, tree.config
    p = root.to_play
    span = info.max_utility - info.min_utility

    def utility(mean: float) -> float:
        return info.min_utility + mean * span

    children = tuple(
        ChildStats(
            action=ch.action,
            visits=ch.visits,
            value=utility(ch.mean) if ch.visits else 0.0,
            proven=None if ch.proven is None else _value_for(ch.proven, p),
        )
        for ch in root.children
    )
    visits = sum(ch.visits for ch in root.children)
    total = sum(ch.value_sum for ch in root.children)
    chosen, rule = _final_choice(root, config)
    return SearchResult(
        action=chosen.action,
        value=utility(total / visits) if visits else 0.0,
        children=children,
        iterations=iterations,
        nodes=tree.nodes,
        seconds=seconds,
        sims_per_s=iterations / seconds if seconds > 0 else 0.0,
        proven=None if root.proven is None else _value_for(root.proven, p),
        player=p,
        final_rule=rule,
        stopped_by=stopped_by,
    )


def search(
    state: State, config: SearchConfig | None = None, game_info: GameInfo | None = None
) -> SearchResult:
    """One search from ``state`` with a fresh tree: ``MCTS(config).search(state)``."""
    return MCTS(config).search(state, game_info)
