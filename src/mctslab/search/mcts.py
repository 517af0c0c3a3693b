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
   selected). The expansion rule, :func:`should_expand`: a node grows on its
   second visit (the root at once), so a new leaf is first simulated as it is.
3. :func:`simulate`: play the game out from the new node: uniformly random moves
   (``"random"``), a heavy playout that wins at once when it can and otherwise
   avoids letting the opponent win at once (``"heavy"``), or at most
   ``cutoff_depth`` random plies scored with the game's ``heuristic()``
   (``"cutoff"``), or random moves with the position judged every
   ``verdict_every`` plies, a clear verdict (a player's heuristic at least
   ``verdict_threshold``) ending the playout as that player's win (``"verdict"``).
4. :func:`backpropagate`: add the playout's rewards to every node on the path.
   Each node keeps the statistics of the player who moved into it, so the
   parent's UCT reads its children directly: no sign flip, and games of any
   number of players work (max^n).

Rewards are the game's returns mapped linearly onto ``[0, 1]`` (win 1, draw
0.5, loss 0 for a game with returns in ``[-1, 1]``), and ``c = sqrt(2)`` is
UCB1's constant on that scale. OpenSpiel's ``MCTSBot`` uses rewards in
``[-1, 1]``: its ``uct_c`` equals ``2 * c`` here (OpenSpiel's ``uct_c = 2``
is ``c = 1``). Reported values are back on the game's own utility scale.

RAVE (Gelly and Silver 2007) and progressive bias (Chaslot et al. 2008) are
``rave=k`` and ``progressive_bias=w``: selection then scores children by
:func:`rave_score`, the all-moves-as-first statistics are updated in
:func:`backpropagate` and a node's heuristic term is computed when it is opened.

MCTS-Solver (Winands, Björnsson and Saito 2008) is ``solver=True``: terminal
positions are proven and proofs are backed up (a node is a proven win for its
player to move if one child is, and otherwise proven once all children are
proven, at their best value); proven-losing children are never selected, a
proven win is played at once, and the search stops when the root is proven.

Chance nodes (dice, deals: ``current_player() == CHANCE``) are part of the tree.
Selection does not choose at them: it samples an outcome by its probability
from ``chance_outcomes()`` and follows that outcome's child (the first time,
expansion creates it), so each outcome is visited in proportion to its probability
and a decision node's mean is an estimate of the expected reward. An outcome
reached for the first time is a new leaf (an expansion), simulated as it is.
Chance nodes keep visit counts but no value of their own (no player moved into
their children). Under MCTS-Solver a chance node is proven only when every
outcome has been reached and all are proven to the same value; outcomes proven
to different values leave it unproven (its expectation is not a win, draw or
loss), and the search goes on estimating it.

:class:`MCTS` keeps its tree between searches (tree reuse);
:func:`search` is the one-shot form.
"""

from __future__ import annotations

import bisect
import math
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal, Protocol, TypeVar

import numpy as np

from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import (
    CHANCE,
    TERMINAL,
    GameInfo,
    State,
    draw_outcome,
    has_chance_nodes,
    heuristic_or_none,
    same_rules,
    sample_chance_outcome,
    state_key,
)
from mctslab.core.rng import Rng
from mctslab.search.budget import Budget
from mctslab.search.evaluators import Evaluator, LeafBatch, check_output, value_rewards
from mctslab.search.gumbel import (
    completed_sigma,
    considered_visits,
    interior_choice,
    log_priors,
    root_score,
)
from mctslab.search.gumbel import (
    final_choice as gumbel_final_choice,
)
from mctslab.search.options import (
    check_budget,
    check_choice,
    check_exploration,
    check_seed,
    is_int,
)
from mctslab.search.puct import PuctConfig, puct_exploration, puct_score

__all__ = [
    "MCTS",
    "ChildStats",
    "Node",
    "NodeBudgetReached",
    "NotWinLossDrawError",
    "SearchConfig",
    "SearchResult",
    "SearchTree",
    "backpropagate",
    "evaluate_nodes",
    "evaluation",
    "expand",
    "exploration",
    "game_info_of",
    "iterate",
    "iterate_batch",
    "leaf_rewards",
    "max_child",
    "rave_beta",
    "rave_score",
    "robust_child",
    "rules_agree",
    "sample_by_visits",
    "search",
    "select",
    "should_expand",
    "simulate",
    "uct_score",
    "uct_value",
]

Expansion = Literal["one", "all"]
Simulation = Literal["random", "heavy", "cutoff", "verdict"]
FinalRule = Literal["robust", "max", "robust-max"]

C = TypeVar("C", bound="ChildLike")

_EXPANSIONS = ("one", "all")
_SIMULATIONS = ("random", "heavy", "cutoff", "verdict")
_PARALLEL = ("auto", "threads", "processes")
_FINAL_RULES = ("robust", "max", "robust-max")


@dataclass(frozen=True)
class SearchConfig:
    """Every option of a search. Values are checked on construction.

    Attributes:
        c: UCT exploration constant on rewards in ``[0, 1]`` (``sqrt(2)``: UCB1).
        expansion: ``"one"`` untried child per iteration (random order) or ``"all"``.
        simulation: ``"random"``, ``"heavy"``, ``"cutoff"`` or ``"verdict"`` playouts.
        cutoff_depth: plies a ``"cutoff"`` playout plays before ``heuristic()`` scores it.
        verdict_every: a ``"verdict"`` playout judges the position by ``heuristic()`` every
            this many plies (from its first position on), the cut-off rule of the
            lecture: a clear verdict ends it, otherwise it goes on.
        verdict_threshold: a clear verdict: a player's heuristic at least this (in
            ``(0, 1]``), scored as that player's win (reward 1, the others 0).
        final: final-move rule: ``"robust"`` (most visits), ``"max"`` (highest
            mean) or ``"robust-max"`` (both; while they disagree the search goes on
            for up to ``robust_max_extra`` times the budget, then plays robust).
        robust_max_extra: fraction of the budget ``"robust-max"`` may add.
        solver: MCTS-Solver (two-player zero-sum games).
        iterations: iteration budget (``None``: no limit).
        time: wall-clock budget in seconds (``None``: no limit).
        max_nodes: tree-size budget (``None``: no limit); the tree never grows past it.
        seed: seed of the :class:`~mctslab.core.rng.Rng` behind every random choice.
        reuse_tree: keep the subtree of the played moves between searches (:class:`MCTS`).
        workers: root parallelism: this many independent searches (seeds ``seed``,
            ``seed + 1``, ...), root statistics merged (:func:`mctslab.make_searcher`
            sets it up).
        parallel: where the workers run: ``"threads"`` of this process (the compiled
            engine releases the GIL: no start-up, one compiled cache), ``"processes"``,
            or ``"auto"``: threads for the compiled engine, processes for the
            reference engine (which holds the GIL).
        puct: AlphaGo's selection rule with an evaluator's priors and values
            (:class:`~mctslab.search.puct.PuctConfig`) in place of UCT and playouts;
            ``None``: UCT. Under PUCT a node's children are created together with
            their priors (``expansion`` does not apply) and ``simulation`` is the
            playout of the ``"uniform+rollout"`` evaluator or of ``mix``.
        rave: RAVE's equivalence parameter ``k`` (Gelly and Silver 2007, 2011): a child's
            value blends its mean with its all-moves-as-first mean, weight ``beta =
            sqrt(k / (3 N_parent + k))`` on the latter (:func:`rave_score`); ``0``: off.
            Under RAVE a node's children are created together (as ``expansion="all"``).
        progressive_bias: progressive bias's weight ``w`` (Chaslot et al. 2008): a
            visited child's score gains ``w * H / (N + 1)``, ``H`` the game's heuristic of
            the child's position for the player who moved into it, on ``[0, 1]``; ``0``: off.
    """

    c: float = math.sqrt(2.0)
    expansion: Expansion = "one"
    simulation: Simulation = "random"
    cutoff_depth: int = 8
    verdict_every: int = 4
    verdict_threshold: float = 0.9
    final: FinalRule = "robust"
    robust_max_extra: float = 0.5
    solver: bool = False
    iterations: int | None = 1000
    time: float | None = None
    max_nodes: int | None = None
    seed: int = 0
    reuse_tree: bool = True
    workers: int = 1
    parallel: Literal["auto", "threads", "processes"] = "auto"
    puct: PuctConfig | None = None
    rave: float = 0.0
    progressive_bias: float = 0.0

    def __post_init__(self) -> None:
        where = "search config"
        check_exploration(where, self.c)
        for name in ("rave", "progressive_bias"):
            value = getattr(self, name)
            if (
                not isinstance(value, int | float)
                or isinstance(value, bool)
                or not math.isfinite(value)
                or not 0 <= value <= 1e9
            ):
                raise InvalidConfigError(
                    f"{where}: {name} must be a finite number in [0, 1e9], got {value!r}"
                )
            if value and self.puct is not None:
                raise InvalidConfigError(
                    f"{where}: {name} is an option of UCT's selection; PUCT has its priors"
                )
        check_choice(where, "expansion", self.expansion, _EXPANSIONS)
        check_choice(where, "simulation", self.simulation, _SIMULATIONS)
        check_choice(where, "final", self.final, _FINAL_RULES)
        check_choice(where, "parallel", self.parallel, _PARALLEL)
        if not is_int(self.verdict_every) or not 1 <= self.verdict_every <= 10**6:
            raise InvalidConfigError(
                f"{where}: verdict_every must be an integer >= 1, got {self.verdict_every!r}"
            )
        if (
            not isinstance(self.verdict_threshold, int | float)
            or isinstance(self.verdict_threshold, bool)
            or not 0.0 < self.verdict_threshold <= 1.0
        ):
            raise InvalidConfigError(
                f"{where}: verdict_threshold must be in (0, 1], got {self.verdict_threshold!r}"
            )
        # Bounded: the compiled engine packs it into an int64 (2**63 overflowed there).
        if not is_int(self.cutoff_depth) or not 0 <= self.cutoff_depth <= 10**9:
            raise InvalidConfigError(
                f"{where}: cutoff_depth must be an integer in [0, 10**9], got {self.cutoff_depth!r}"
            )
        if not isinstance(self.robust_max_extra, int | float) or not (
            0 <= self.robust_max_extra <= 100
        ):
            raise InvalidConfigError(
                f"{where}: robust_max_extra must be in [0, 100], got {self.robust_max_extra!r}"
            )
        if self.max_nodes is not None and (not is_int(self.max_nodes) or self.max_nodes < 2):
            raise InvalidConfigError(
                f"{where}: max_nodes must be an integer >= 2, got {self.max_nodes!r}"
            )
        check_budget(where, self.iterations, self.time, other_budget=self.max_nodes is not None)
        check_seed(where, self.seed)
        if not is_int(self.workers) or not 1 <= self.workers <= 256:
            raise InvalidConfigError(
                f"{where}: workers must be an integer in [1, 256], got {self.workers!r}"
            )
        if self.puct is not None and not isinstance(self.puct, PuctConfig):
            raise InvalidConfigError(f"{where}: puct must be a PuctConfig or None")
        if (
            self.puct is not None
            and self.puct.gumbel
            and (self.iterations is None or self.time is not None)
        ):
            raise InvalidConfigError(
                f"{where}: gumbel=True plans Sequential Halving over an iteration budget: "
                "give iterations, not time"
            )


@dataclass(frozen=True)
class ChildStats:
    """Root statistics of one move, from the point of view of the player to move.

    ``value`` is the mean return on the game's utility scale; ``proven`` is
    1 / 0 / -1 for a proven win / draw / loss, ``None`` if unproven; ``prior`` is
    the evaluator's prior under PUCT (``None`` under UCT); ``policy`` the improved
    policy of a Gumbel search (``softmax(logits + sigma(completed q))``, else ``None``).
    """

    action: int
    visits: int
    value: float
    proven: int | None
    prior: float | None = None
    policy: float | None = None


@dataclass(frozen=True)
class SearchResult:
    """What a search found. ``to_dict()`` gives the CLI's JSON.

    ``value`` is the root's mean return for the player to move; ``final_rule``
    names the rule that picked ``action`` (``"solver"`` when a proof did);
    ``stopped_by`` is ``"iterations"``, ``"time"``, ``"nodes"``, ``"proven"`` or
    ``"agreement"`` (robust-max stopped in its extension once its rules agreed).
    ``seconds`` and ``sims_per_s`` count search time only; ``compile_seconds`` is
    the time spent compiling or loading compiled code for this search.
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
    compile_seconds: float = 0.0

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
        "proven",
        "raw",
        "rewards",
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
        self.nodes = _count(root) if nodes is None else nodes
        # The chance outcome selection sampled at the leaf, which expansion adds.
        self.outcome: int | None = None
        # PUCT: the evaluator, and the root children's priors with this search's
        # Dirichlet noise mixed in (the nodes keep the evaluator's own priors), drawn at
        # the search's first selection at the expanded root.
        self.evaluator: Evaluator | None = None
        self.root_priors: list[float] | None = None
        puct = config.puct
        self.noise_due = puct is not None and (puct.noise_fraction > 0.0 or puct.gumbel)
        # Gumbel: the root actions' noise (by action) and Sequential Halving's schedule.
        self.gumbel: dict[int, float] = {}
        self.halving: list[int] = []


class NodeBudgetReached(Exception):
    """Raised inside an iteration when expanding would grow the tree past ``max_nodes``."""


def _count(node: Node) -> int:
    total, stack = 0, [node]
    while stack:
        n = stack.pop()
        total += 1
        stack.extend(n.children)
    return total


def _open(node: Node, state: State, tree: SearchTree) -> None:
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
        node.rewards = _rewards(returns, tree.info)
        if tree.config.solver:
            node.proven = _win_loss_draw(returns, tree.info)
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


class NotWinLossDrawError(InvalidConfigError):
    """MCTS-Solver met a terminal position whose returns are not a win, a draw or a loss."""


def _win_loss_draw(returns: list[float], info: GameInfo) -> int:
    """MCTS-Solver's proof of a terminal position for player 0: 1 (player 0 gets the
    game's ``max_utility``, player 1 its ``min_utility``), -1 (the reverse) or 0 (both
    0). Any other returns raise :class:`NotWinLossDrawError`: a proof is a sign, and
    backing up the sign of a score (Kuhn poker's 1 or 2 chips) would prove wrong values."""
    r0, r1 = returns[0], returns[1]
    if r0 == info.max_utility and r1 == info.min_utility:
        return 1
    if r0 == info.min_utility and r1 == info.max_utility:
        return -1
    if r0 == 0.0 and r1 == 0.0:
        return 0
    raise NotWinLossDrawError(not_win_loss_message(info, returns))


def not_win_loss_message(info: GameInfo, returns: Sequence[float]) -> str:
    """The error of MCTS-Solver on a game whose terminal returns are not win/draw/loss."""
    shown = ", ".join(f"{r:g}" for r in returns)
    return (
        f"solver=True needs results that are a win ({info.max_utility:g}), a draw (0) or a "
        f"loss ({info.min_utility:g}); {info.name} ended a game with returns [{shown}]: "
        "search it without the solver"
    )


def check_solver(config: SearchConfig, info: GameInfo) -> None:
    """Refuse MCTS-Solver where its proofs cannot be exact: the game must be two-player
    zero-sum with utilities from ``-u`` to ``u``. Whether every terminal is a win, a draw
    or a loss is checked as terminals are met (:class:`NotWinLossDrawError`)."""
    if not config.solver:
        return
    if info.num_players != 2 or not info.zero_sum:
        raise InvalidConfigError("solver=True needs a two-player zero-sum game")
    if info.min_utility != -info.max_utility:
        raise InvalidConfigError(
            f"solver=True needs win/draw/loss utilities symmetric about 0; {info.name}'s run "
            f"from {info.min_utility:g} to {info.max_utility:g}"
        )


def check_puct(config: SearchConfig, info: GameInfo, state: State) -> None:
    """Refuse what PUCT cannot do with this game: an evaluator's value is one number for
    the player to move, so (except for ``"uniform+rollout"``) the game must be two-player
    zero-sum; ``batch > 1`` has no chance nodes to wait at."""
    puct = config.puct
    assert puct is not None
    if puct.evaluator != "uniform+rollout" and (info.num_players != 2 or not info.zero_sum):
        raise InvalidConfigError(
            f"an evaluator's value is for the player to move, which needs a two-player "
            f"zero-sum game; {info.name} is not (use evaluator='uniform+rollout')"
        )
    if puct.evaluator == "heuristic" and heuristic_or_none(state) is None:
        raise InvalidConfigError(
            f"evaluator='heuristic' needs the game's heuristic(); {info.name} has none"
        )
    if puct.batch > 1 and has_chance_nodes(getattr(state, "game", None)):
        raise InvalidConfigError(
            f"puct batch > 1 needs a game without chance nodes; {info.name} has them"
        )


def _value_for(proven: int, player: int) -> int:
    """A proven value (for player 0) seen by ``player`` in a two-player zero-sum game."""
    return proven if player == 0 else -proven


#: Visit counts below this read the UCT score's reciprocals from tables (below).
UCT_TABLE_SIZE = 4096
#: ``1 / n``, ``1 / sqrt(n)`` and ``sqrt(ln n)`` for ``n < UCT_TABLE_SIZE`` (0 at 0): the
#: same doubles that :func:`uct_score` and :func:`exploration` compute above the table
#: (IEEE division and square root are correctly rounded, and ``ln`` is the C library's
#: in both engines), so a table changes the speed, never a score. The compiled engine
#: reads the same numbers as numpy arrays.
UCT_INV: list[float] = [0.0] + [1.0 / n for n in range(1, UCT_TABLE_SIZE)]
UCT_INV_SQRT: list[float] = [0.0] + [1.0 / math.sqrt(n) for n in range(1, UCT_TABLE_SIZE)]
UCT_SQRT_LOG: list[float] = [0.0] + [math.sqrt(math.log(n)) for n in range(1, UCT_TABLE_SIZE)]


def exploration(c: float, parent_visits: int) -> float:
    """The parent's half of UCT's exploration term, ``c * sqrt(ln N_parent)`` (0 for an
    unvisited parent), computed once per node and shared by its children."""
    if parent_visits < UCT_TABLE_SIZE:
        return c * UCT_SQRT_LOG[parent_visits]
    return c * math.sqrt(math.log(parent_visits))


def uct_score(value_sum: float, visits: int, explore: float) -> float:
    """UCB1 applied to trees (Kocsis and Szepesvári 2006), the one formula of the Python
    searches::

        Q / N + c * sqrt(ln N_parent / N)

    computed as ``Q * (1 / N) + explore * (1 / sqrt(N))`` with ``explore =``
    :func:`exploration` ``(c, N_parent)`` (``N_parent``: the parent's visits in UCT, the
    action's availability count in ISMCTS): per child two multiplications and table
    loads instead of two divisions and a square root, the reciprocals of small counts
    read from :data:`UCT_INV` and :data:`UCT_INV_SQRT`. ``+inf`` for an unvisited child
    (``N = 0``), which therefore comes first. The compiled twin is
    :func:`mctslab.search.compiled.uct_child`: the same expression, float for float.
    """
    if visits == 0:
        return math.inf
    if visits < UCT_TABLE_SIZE:
        return value_sum * UCT_INV[visits] + explore * UCT_INV_SQRT[visits]
    return value_sum * (1.0 / visits) + explore * (1.0 / math.sqrt(visits))


def uct_value(parent: Node, child: Node, c: float) -> float:
    """:func:`uct_score` of ``child`` under ``parent``."""
    return uct_score(child.value_sum, child.visits, exploration(c, parent.visits))


def _best_child(node: Node, tree: SearchTree) -> Node:
    """Selection's choice at a fully expanded decision node: UCT (with RAVE or progressive
    bias when set), or PUCT when set."""
    config = tree.config
    if config.puct is not None:
        if config.puct.gumbel:
            return _best_gumbel_child(node, tree)
        return _best_puct_child(node, tree)
    if config.rave or config.progressive_bias:
        return _best_rave_child(node, config)
    return _best_uct_child(node, config)


def rave_beta(k: float, parent_visits: int) -> float:
    """RAVE's weight on the all-moves-as-first mean, Gelly and Silver's hand-picked
    schedule ("Combining online and offline knowledge in UCT", ICML 2007; "Monte-Carlo
    tree search and rapid action value estimation in computer Go", AIJ 2011)::

        beta = sqrt(k / (3 N_parent + k))

    ``k``, the *equivalence parameter*, is the number of visits at which the two means
    weigh the same (``beta = 1/2`` at ``N_parent = k``); 0 without RAVE."""
    return math.sqrt(k / (3.0 * parent_visits + k)) if k > 0.0 else 0.0


def rave_score(
    value_sum: float,
    visits: int,
    amaf_sum: float,
    amaf_visits: int,
    explore: float,
    beta: float,
    bias: float,
) -> float:
    """UCT with RAVE and progressive bias, the score of a child under a parent::

        (1 - beta) * Q / N + beta * Q~ / N~ + c * sqrt(ln N_parent / N) + w * H / (N + 1)

    ``Q~ / N~`` is the child's all-moves-as-first mean (RAVE, :func:`rave_beta`; the
    first term alone while it has no AMAF visit), ``bias = w * H`` progressive bias's
    heuristic term (Chaslot, Winands, van den Herik, Uiterwijk and Bouzy 2008,
    "Progressive strategies for Monte-Carlo tree search"), shrinking as the child is
    visited; ``explore = c * sqrt(ln N_parent)`` (:func:`exploration`). An unvisited child
    (``N = 0``) scores ``Q~ / N~ + c * sqrt(ln N_parent) + w * H`` (its terms at ``N = 1``
    with the AMAF mean for its own) once RAVE has seen its move, else ``+inf`` (first, as
    under UCT). The compiled twin is :func:`mctslab.search.compiled.rave_child`: the same
    expression, float for float."""
    if visits == 0:
        if amaf_visits == 0:
            return math.inf
        return amaf_sum / amaf_visits + explore + bias
    q = value_sum / visits
    if amaf_visits > 0:
        q = (1.0 - beta) * q + beta * (amaf_sum / amaf_visits)
    return q + explore / math.sqrt(visits) + bias / (visits + 1.0)


def _best_rave_child(node: Node, config: SearchConfig) -> Node:
    """The child with the highest :func:`rave_score`: ties to the lowest action, under
    MCTS-Solver proven children skipped, as in :func:`_best_uct_child`."""
    explore = exploration(config.c, node.visits)
    beta = rave_beta(config.rave, node.visits)
    best: Node | None = None
    best_value = -math.inf
    for ch in node.children:
        if config.solver and ch.proven is not None:
            continue
        value = rave_score(
            ch.value_sum, ch.visits, ch.amaf_sum, ch.amaf_visits, explore, beta, ch.bias
        )
        if value == math.inf:
            return ch
        if value > best_value:
            best, best_value = ch, value
    assert best is not None
    return best


def _gumbel_stats(
    children: Sequence[ChildLike], priors: Sequence[float]
) -> tuple[list[float], list[int], list[float]]:
    """The children's values for the player to move on ``[-1, 1]``, visits and priors."""
    return [2.0 * ch.mean - 1.0 for ch in children], [ch.visits for ch in children], list(priors)


def _best_gumbel_child(node: Node, tree: SearchTree) -> Node:
    """Gumbel search's choice (:mod:`~mctslab.search.gumbel`): at the root, among the
    actions whose visits are the count Sequential Halving has due, the best
    ``g + logits + sigma(q)``; below, the action that lags most behind the improved
    policy. Under MCTS-Solver proven children are skipped."""
    puct = tree.config.puct
    assert puct is not None
    if node is tree.root and tree.noise_due:
        _root_noise(tree)
    children = node.children
    if tree.config.solver:
        children = [ch for ch in children if ch.proven is None]
    q, visits, priors = _gumbel_stats(children, [ch.prior for ch in children])
    sigma = completed_sigma(
        q, visits, priors, node.raw, tree.info.num_actions, puct.value_scale, puct.maxvisit_init
    )
    logits = log_priors(priors)
    if node is not tree.root:
        return children[interior_choice(logits, sigma, visits)]
    due = tree.halving[min(sum(ch.visits for ch in node.children), len(tree.halving) - 1)]
    max_logit = max(logits)
    best, best_value = children[0], -math.inf
    for i, ch in enumerate(children):
        value = root_score(tree.gumbel.get(ch.action, 0.0), logits[i], max_logit, sigma[i])
        if ch.visits != due:
            value -= math.inf  # mctx's penalty: not this simulation's candidate
        if value > best_value:
            best, best_value = ch, value
    return best


def _best_puct_child(node: Node, tree: SearchTree) -> Node:
    """The child with the highest :func:`~mctslab.search.puct.puct_score` (at the root,
    with this search's noisy priors); ties go to the lowest action, and under
    MCTS-Solver proven children are skipped, as in :func:`_best_uct_child`."""
    puct = tree.config.puct
    assert puct is not None
    explore = puct_exploration(puct.c, puct.c_base, node.visits)
    if node is tree.root and tree.noise_due:
        _root_noise(tree)
    noisy = tree.root_priors if node is tree.root else None
    best: Node | None = None
    best_value = -math.inf
    for i, ch in enumerate(node.children):
        if tree.config.solver and ch.proven is not None:
            continue
        prior = ch.prior if noisy is None else noisy[i]
        value = puct_score(ch.value_sum, ch.visits, prior, explore, puct.fpu)
        if value > best_value:
            best, best_value = ch, value
    assert best is not None
    return best


def _best_uct_child(node: Node, config: SearchConfig) -> Node:
    """The child with the highest :func:`uct_score`.

    Children are sorted by action, and only a strictly greater value replaces the
    best so far, so ties go to the lowest action; unvisited children come first.
    """
    explore = exploration(config.c, node.visits)
    best: Node | None = None
    best_value = -math.inf
    children = node.children
    if config.solver:
        # MCTS-Solver: a proven child's value is known, so visiting it teaches nothing.
        # An unproven, fully expanded node always has an unproven child (else it would
        # be proven), so proven losses are never selected, and proven draws don't soak
        # up the visits that the unproven siblings need to be proven in turn.
        children = [ch for ch in children if ch.proven is None]
    for ch in children:
        value = uct_score(ch.value_sum, ch.visits, explore)
        if value == math.inf:
            return ch
        if value > best_value:
            best, best_value = ch, value
    assert best is not None
    return best


def select(root: Node, tree: SearchTree) -> list[Node]:
    """Phase 1: descend from the root by UCT (or PUCT) while nodes are fully expanded.

    At a chance node the descent samples an outcome by its probability instead, and
    follows its child. It stops at a node that can grow (one with untried actions,
    or a chance node whose sampled outcome has no child yet: the outcome waits in
    ``tree.outcome`` for :func:`expand`), at a terminal or proven node, or at a child
    that ``expansion="all"`` created and that is reached for the first time, which
    selection opens (reads its position) and which is simulated as it is. Selection
    creates no node.
    """
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
        parent, node = node, _best_child(node, tree)
        path.append(node)
        if not node.opened:
            assert parent.state is not None
            _open(node, parent.state.child(node.action), tree)
            break
    return path


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
        _open(child, node.state.child(child.action), tree)
        return child
    if config.puct is not None:
        if config.max_nodes is not None and tree.nodes + len(node.untried) > config.max_nodes:
            raise NodeBudgetReached
        evaluate_nodes([node], tree)
        return node
    if config.expansion == "one" and not config.rave:  # RAVE: all children at once
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
    for ch in new:
        bisect.insort(node.children, ch, key=lambda n: n.action)
    tree.nodes += len(new)
    child = new[0]
    assert node.state is not None
    _open(child, node.state.child(child.action), tree)
    return child


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
            _add_children(node, [1.0 / len(node.untried)] * len(node.untried), tree)
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
        _add_children(node, [float(priors[i, a]) for a in node.untried], tree)
        node.estimate = value_rewards(float(values[i]), node.to_play, info)


def _add_children(node: Node, priors: list[float], tree: SearchTree) -> None:
    """Every untried action of ``node`` becomes a child (ascending), with its prior."""
    node.children = [Node(a, node.to_play, node) for a in node.untried]
    for ch, p in zip(node.children, priors, strict=True):
        ch.prior = p
    node.untried = []
    tree.nodes += len(node.children)


def _root_noise(tree: SearchTree) -> None:
    """AlphaZero's exploration noise: the root children's priors for this search,
    ``(1 - f) * P + f * eta`` with ``eta ~ Dir(noise_alpha)`` (``f = noise_fraction``).
    Drawn once per search, at its first selection at the expanded root (so both
    engines draw it at the same point of the generator's stream)."""
    puct = tree.config.puct
    assert puct is not None
    tree.noise_due = False
    children = tree.root.children
    if puct.gumbel:
        # The Gumbel-top-k's noise, one draw a root action, and the halving schedule for
        # the simulations after the root's evaluation (the first iteration).
        scale = puct.gumbel_scale
        tree.gumbel = {ch.action: scale * tree.rng.gumbel() if scale else 0.0 for ch in children}
        iterations = tree.config.iterations or 1
        tree.halving = considered_visits(min(puct.considered, len(children)), iterations - 1)
        return
    f = puct.noise_fraction
    eta = tree.rng.dirichlet(puct.noise_alpha, len(children))
    tree.root_priors = [(1.0 - f) * ch.prior + f * e for ch, e in zip(children, eta, strict=True)]


def evaluation(leaf: Node, tree: SearchTree) -> list[float]:
    """Phase 3 under PUCT: the rewards of the leaf's evaluation, in place of a playout
    (mixed with one, ``(1 - mix) * v + mix * z``, AlphaGo's ``lambda``); a playout alone
    for the ``"uniform+rollout"`` evaluator and at a chance node (no player to move)."""
    puct = tree.config.puct
    assert puct is not None and leaf.state is not None
    estimate, leaf.estimate = leaf.estimate, None  # used once: the node's first visit
    if estimate is None:
        rewards = simulate(leaf.state.clone(), tree)
    elif puct.mix == 0.0:
        rewards = estimate
    else:
        z = simulate(leaf.state.clone(), tree)
        m = puct.mix
        rewards = [(1.0 - m) * v + m * r for v, r in zip(estimate, z, strict=True)]
    if leaf.to_play >= 0:
        leaf.raw = 2.0 * rewards[leaf.to_play] - 1.0
    return rewards


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


def _playout_actions(state: State) -> list[int]:
    """The moves a playout chooses among: the state's ``playout_actions()`` where it has
    them (a kernel game's ``rollout_actions``: Go's leave out one's own eyes), else the
    legal actions."""
    choices = getattr(state, "playout_actions", None)
    return choices() if choices is not None else state.legal_actions()  # type: ignore[no-any-return]


def _random_action(state: State, rng: Rng) -> int:
    """A random playout move: a chance outcome by its probability; else the game's own
    light move (a kernel game's ``light_action``: Go's draws by rejection among the
    empty points), else uniformly among :func:`_playout_actions`."""
    if state.current_player() == CHANCE:
        return sample_chance_outcome(state, rng)
    light = getattr(state, "light_action", None)
    own = light(rng) if light is not None else None
    if own is not None:
        return own  # type: ignore[no-any-return]
    legal = _playout_actions(state)
    return legal[rng.randint(len(legal))]


def simulate(
    state: State, tree: SearchTree, moves: list[tuple[int, int]] | None = None
) -> list[float]:
    """Phase 3: play out from ``state`` (consumed) and return each player's reward in ``[0, 1]``.

    Random moves are the state's own light move where it has one (a kernel game's
    ``light_action``), else drawn among its playout moves (:func:`_playout_actions`); a
    heavy playout plays the game's own heavy move where it has one (a kernel game's
    ``heavy_action``), else :func:`_heavy_action`. Under RAVE, ``moves`` receives each
    ``(player, action)`` played by a player (chance outcomes left out)."""
    config, rng, info = tree.config, tree.rng, tree.info
    if config.simulation == "random" and moves is None:  # the common case, fewer calls a ply
        is_terminal, current_player = state.is_terminal, state.current_player
        choices = getattr(state, "playout_actions", None) or state.legal_actions
        apply_action, randint = state.apply_action, rng.randint
        light = getattr(state, "light_action", None)
        while not is_terminal():
            if current_player() == CHANCE:
                apply_action(_random_action(state, rng))
                continue
            own = light(rng) if light is not None else None
            if own is None:
                legal = choices()
                own = legal[randint(len(legal))]
            apply_action(own)
        return _rewards(state.returns(), info)
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
            action = own if own is not None else _heavy_action(state, rng)
        else:
            action = _random_action(state, rng)
        if moves is not None and mover != CHANCE:
            moves.append((mover, action))
        state.apply_action(action)
        plies += 1
    return _rewards(state.returns(), info)


def _prove(node: Node) -> bool:
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


def backpropagate(
    path: list[Node],
    rewards: list[float],
    solver: bool,
    moves: list[tuple[int, int]] | None = None,
) -> None:
    """Phase 4: from the leaf up to the root, count the visit and add the reward of the
    player who moved into each node; under MCTS-Solver, back up proofs as far as they go.
    Under RAVE (``moves``: the playout's ``(player, action)``), also the all-moves-as-first
    statistics (:func:`_update_amaf`)."""
    proving = solver
    for node in reversed(path):
        node.visits += 1
        if node.player >= 0:
            node.value_sum += rewards[node.player]
        if proving and node is not path[-1]:
            proving = _prove(node)
    if moves is not None:
        _update_amaf(path, moves, rewards)


def _update_amaf(path: list[Node], moves: list[tuple[int, int]], rewards: list[float]) -> None:
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


def should_expand(leaf: Node, tree: SearchTree) -> bool:
    """The expansion rule: whether the selected leaf grows.

    A node grows once it has been simulated before (or is the root) and has untried
    actions, so that a node is expanded on its second visit; a node just reached for
    the first time under ``expansion="all"`` is simulated as it is. A chance node
    grows when selection sampled an outcome it has no child for.
    """
    if leaf.outcomes is not None:
        return tree.outcome is not None
    if tree.config.puct is not None:  # PUCT evaluates a node the first time it is reached
        return bool(leaf.untried) and leaf.proven is None
    return bool(leaf.untried) and leaf.proven is None and (leaf.visits > 0 or leaf is tree.root)


def iterate(tree: SearchTree) -> None:
    """One iteration: the four phases, as any lecture draws them.

    Raises :class:`NodeBudgetReached` (before any statistic changes) when expanding would grow
    the tree past ``max_nodes``. :func:`mctslab.search.trace.traced_iteration` runs the same
    steps and records what each phase did.
    """
    path = select(tree.root, tree)
    leaf = path[-1]
    if should_expand(leaf, tree):
        child = expand(leaf, tree)
        if child is not leaf:  # PUCT expands the leaf itself
            path.append(child)
        leaf = child
    moves: list[tuple[int, int]] | None = [] if tree.config.rave else None
    rewards = leaf_rewards(leaf)
    if rewards is None:
        assert leaf.state is not None
        if tree.config.puct is not None:
            rewards = evaluation(leaf, tree)
        else:
            rewards = simulate(leaf.state.clone(), tree, moves)
    backpropagate(path, rewards, tree.config.solver, moves)


def iterate_batch(tree: SearchTree, limit: int) -> int:
    """Up to ``limit`` PUCT iterations whose new leaves the evaluator sees in one call.

    Each descent adds ``virtual_loss`` visits (reward 0: a loss) to the nodes on its
    path, so that the next descent tends elsewhere; it stops collecting at ``limit``
    leaves, at a leaf already waiting (a collision), or where the new nodes would pass
    ``max_nodes``. A terminal or proven leaf is backed up at once. Then one evaluator
    call (:func:`evaluate_nodes`), the virtual loss comes off, and each leaf's value is
    backed up. Returns the iterations done.
    """
    puct, config = tree.config.puct, tree.config
    assert puct is not None
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


def leaf_rewards(leaf: Node) -> list[float] | None:
    """Rewards of a terminal or proven leaf (no playout needed), else ``None``."""
    if leaf.rewards is not None:
        return leaf.rewards
    if leaf.proven is not None:
        r0 = (leaf.proven + 1) / 2
        return [r0, 1.0 - r0]
    return None


class ChildLike(Protocol):
    """What the final-move rules read of a root child (a :class:`Node`, or the
    compiled engine's view of one)."""

    action: int
    visits: int
    value_sum: float
    proven: int | None

    @property
    def mean(self) -> float: ...


@dataclass
class RootChild:
    """A root child's statistics apart from any tree (the compiled engine's and the
    root-parallel searcher's view of one); ``proven`` is for player 0."""

    action: int
    visits: int
    value_sum: float
    proven: int | None
    prior: float | None = None

    @property
    def mean(self) -> float:
        return self.value_sum / self.visits if self.visits else 0.0


def robust_child(children: Sequence[C]) -> C:
    return max(children, key=lambda n: (n.visits, n.mean, -n.action))


def max_child(children: Sequence[C]) -> C:
    seen = [n for n in children if n.visits] or children
    return max(seen, key=lambda n: (n.mean, n.visits, -n.action))


def rules_agree(children: Sequence[ChildLike]) -> bool:
    """Robust-max's test: the most visited child is also the best valued (true at a
    root without children); see :class:`~mctslab.search.budget.Budget`."""
    return not children or robust_child(children) is max_child(children)


def _draw_reward(to_play: int, info: GameInfo) -> float:
    """The reward of a draw (return 0) for ``to_play``."""
    return _rewards([0.0] * info.num_players, info)[to_play]


def sample_by_visits(children: Sequence[C], temperature: float, rng: Rng) -> C:
    """A child drawn with probability proportional to ``N ** (1 / temperature)``
    (AlphaZero's self-play move; weights computed as ``exp((ln N - ln N_max) / T)`` so
    that a low temperature does not overflow); unvisited children are never drawn."""
    seen = [n for n in children if n.visits] or list(children)
    top = max(n.visits for n in seen)
    if top == 0:
        return seen[rng.randint(len(seen))]
    weights = [math.exp((math.log(n.visits) - math.log(top)) / temperature) for n in seen]
    u = rng.random() * sum(weights)
    for n, w in zip(seen, weights, strict=True):
        u -= w
        if u < 0.0:
            return n
    return seen[-1]


def final_choice(
    children: Sequence[C],
    to_play: int,
    config: SearchConfig,
    info: GameInfo,
    rng: Rng | None = None,
) -> tuple[C, str]:
    """The move to play: the final-move rule, after MCTS-Solver's proofs have their say;
    under PUCT with a temperature (and no solver) a move sampled by visits from ``rng``."""
    puct = config.puct
    if puct is not None and puct.temperature > 0 and not config.solver and children:
        return sample_by_visits(children, puct.temperature, rng or Rng(config.seed)), "sampled"
    if config.solver:
        p = to_play
        wins = [n for n in children if n.proven is not None and _value_for(n.proven, p) == 1]
        if wins:
            return robust_child(wins), "solver"
        open_ = [n for n in children if n.proven is None]
        draws = [n for n in children if n.proven is not None and n.proven == 0]
        if not open_:  # every move is proven: a draw if there is one, else the most-visited loss
            return robust_child(draws or children), "solver"
        pick = max_child(open_) if config.final == "max" else robust_child(open_)
        if draws and pick.mean < _draw_reward(p, info):
            return robust_child(draws), "solver"  # a sure draw beats an unproven move that loses
        return pick, config.final
    if config.final == "max":
        return max_child(children), "max"
    return robust_child(children), config.final


def _most_visited(node: Node) -> Node | None:
    """``node``'s child of most visits (the lowest action on a tie), ``None`` if none has any."""
    best: Node | None = None
    for ch in node.children:
        if ch.visits > 0 and (
            best is None or (ch.visits, -ch.action) > (best.visits, -best.action)
        ):
            best = ch
    return best


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
        self._tree: SearchTree | None = None  # the last search's, to keep its node count
        self._game: object = None  # the game of the kept tree (tree reuse checks its rules)
        self._info: GameInfo | None = None
        self._evaluator: Evaluator | None = None  # PUCT's, made on the first search

    def reset(self) -> None:
        """Forget the tree (the generator keeps its stream)."""
        self.root = None
        self._root_history = []
        self._tree = None
        self._game, self._info = None, None

    def root_children(self) -> list[tuple[int, int, float, int | None]]:
        """(action, visits, value sum, proof for player 0) of each root child."""
        if self.root is None:
            return []
        return [(ch.action, ch.visits, ch.value_sum, ch.proven) for ch in self.root.children]

    def principal_variation(self, action: int | None = None, limit: int = 20) -> list[int]:
        """The line the kept tree expects from the last search's root: ``action`` (by
        default the most visited root child), then at each node below it its most visited
        child (the lowest action on a tie), while it has visits, at most ``limit`` moves;
        ``[]`` without a tree, ``[action]`` for a root child never created. The same line
        as :meth:`mctslab.search.compiled.CompiledMCTS.principal_variation` on a
        node-identical tree."""
        node = self.root
        line: list[int] = []
        if action is not None:
            if node is None or limit < 1:
                return [action][:limit]
            line.append(action)
            node = node.child(action)
        while node is not None and len(line) < limit:
            best = _most_visited(node)
            if best is None:
                break
            line.append(best.action)
            node = best
        return line

    def _root_for(self, state: State, info: GameInfo) -> Node:
        """The kept node of ``state`` if the tree can be reused, else a new root.

        A kept tree is reused only for the same rules (:func:`mctslab.core.game.same_rules`:
        the game's class, info, version and parameters) and a history that extends the
        kept root's; the node found must hold the same position as ``state``.
        """
        history = state.history()
        game = getattr(state, "game", None)
        old = self.root
        if (
            old is not None
            and self.config.reuse_tree
            and info == self._info
            and same_rules(game, self._game)
        ):
            n = len(self._root_history)
            if history[:n] == self._root_history:
                node: Node | None = old
                for action in history[n:]:
                    node = node.child(action) if node is not None else None
                if node is not None and node.opened and _same_position(node, state):
                    node.parent = None
                    self.root, self._root_history = node, history
                    return node
        root = Node(-1, -1, None)
        self.root, self._root_history = root, history
        self._game, self._info = game, info
        self._tree = None
        return root

    def search(self, state: State, game_info: GameInfo | None = None) -> SearchResult:
        """Search from ``state`` within the budget and return the chosen move and statistics."""
        tree = self.prepare(state, game_info)
        try:
            return _run(tree)
        except NotWinLossDrawError:
            self.reset()  # the iteration stopped half-way: the tree is not kept
            raise

    def prepare(self, state: State, game_info: GameInfo | None = None) -> SearchTree:
        """Check the config against the game and set up the tree for ``state`` (reused
        where it can be): what :meth:`search` and the step-by-step tracer start from."""
        config = self.config
        if config.workers != 1:
            raise InvalidConfigError("workers > 1: make the searcher with mctslab.make_searcher")
        if state.is_terminal():
            raise InvalidConfigError("cannot search a terminal state: the game is over")
        if state.current_player() == CHANCE:
            raise InvalidConfigError(
                "cannot search a chance node: no player chooses here (sample an outcome)"
            )
        info = game_info or game_info_of(state)
        check_solver(config, info)
        if config.simulation in ("cutoff", "verdict") and heuristic_or_none(state) is None:
            raise InvalidConfigError(
                f"simulation={config.simulation!r} needs the game's heuristic(); "
                f"{info.name} has none"
            )
        if config.progressive_bias and heuristic_or_none(state) is None:
            raise InvalidConfigError(
                f"progressive_bias needs the game's heuristic(); {info.name} has none"
            )
        if config.puct is not None:
            check_puct(config, info, state)
            if self._evaluator is None:
                self._evaluator = config.puct.make_evaluator()
        if config.puct is not None and config.puct.gumbel:
            self.reset()  # Sequential Halving plans its budget from an empty root
        root = self._root_for(state, info)
        root.player = -1
        last = self._tree
        # The same root as last time (more searches of one position): its count is known,
        # which spares walking a large tree again.
        nodes = last.nodes if last is not None and last.root is root else None
        tree = SearchTree(root, info, config, self.rng, nodes)
        tree.evaluator = self._evaluator
        if not root.opened:
            _open(root, state.clone(), tree)
        self._tree = tree
        return tree


def _same_position(node: Node, state: State) -> bool:
    """Whether the kept ``node`` holds ``state``'s position (a last check before reuse:
    the same player to move, legal actions and, where the game has one, ``key()``)."""
    kept = node.state
    return (
        kept is not None
        and kept.current_player() == state.current_player()
        and kept.legal_actions() == state.legal_actions()
        and state_key(kept) == state_key(state)
    )


def game_info_of(state: State) -> GameInfo:
    game = getattr(state, "game", None)
    info = getattr(game, "info", None)
    if not isinstance(info, GameInfo):
        raise InvalidConfigError(
            "pass game_info=game.info: the state has no .game attribute to read it from"
        )
    return info


def _run(tree: SearchTree) -> SearchResult:
    """The search loop: the four phases, repeated until the budget is spent."""
    config, root = tree.config, tree.root
    budget = Budget.of(config)

    def agree() -> bool:
        return rules_agree(root.children)

    start = time.perf_counter()
    iterations = 0
    while True:
        if config.solver and root.proven is not None:
            stopped_by = "proven"
            break
        if config.max_nodes is not None and tree.nodes >= config.max_nodes:
            stopped_by = "nodes"
            break
        seconds = time.perf_counter() - start if budget.timed else 0.0
        stop = budget.stop(iterations, seconds, agree=agree)
        if stop is not None:
            stopped_by = stop
            break
        try:
            if config.puct is not None and config.puct.batch > 1:
                limit = config.puct.batch
                if config.iterations is not None:
                    limit = max(1, min(limit, config.iterations - iterations))
                iterations += iterate_batch(tree, limit)
            else:
                iterate(tree)
                iterations += 1
        except NodeBudgetReached:
            if not root.children:
                raise InvalidConfigError(
                    f"max_nodes={config.max_nodes} is too small to expand the root"
                ) from None
            stopped_by = "nodes"
            break
    seconds = time.perf_counter() - start
    return _result(tree, iterations, seconds, stopped_by)


def _result(tree: SearchTree, iterations: int, seconds: float, stopped_by: str) -> SearchResult:
    root = tree.root
    return make_result(
        root.children,
        root.to_play,
        root.proven,
        tree.config,
        tree.info,
        iterations=iterations,
        nodes=tree.nodes,
        seconds=seconds,
        stopped_by=stopped_by,
        rng=tree.rng,
        gumbel=(tree.gumbel, root.raw),
    )


def make_result(
    children: Sequence[ChildLike],
    to_play: int,
    root_proven: int | None,
    config: SearchConfig,
    info: GameInfo,
    *,
    iterations: int,
    nodes: int,
    seconds: float,
    stopped_by: str,
    compile_seconds: float = 0.0,
    rng: Rng | None = None,
    gumbel: tuple[dict[int, float], float] | None = None,
) -> SearchResult:
    """The :class:`SearchResult` of a root's children (shared by both engines); ``rng``
    draws the move when PUCT plays with a temperature; ``gumbel`` = (the root actions'
    Gumbel noise, the root's own value) gives a Gumbel search its move and policy."""
    p = to_play
    policy: list[float | None] = [None] * len(children)
    gumbel_pick: ChildLike | None = None
    puct = config.puct
    if puct is not None and puct.gumbel and gumbel is not None and children:
        noise, raw = gumbel
        q, counts, priors = _gumbel_stats(children, [ch.prior or 0.0 for ch in children])  # type: ignore[attr-defined]
        index, weights = gumbel_final_choice(
            q,
            counts,
            priors,
            raw,
            [noise.get(ch.action, 0.0) for ch in children],
            info.num_actions,
            puct.value_scale,
            puct.maxvisit_init,
        )
        gumbel_pick, policy = children[index], list(weights)
    span = info.max_utility - info.min_utility

    def utility(mean: float) -> float:
        return info.min_utility + mean * span

    stats = tuple(
        ChildStats(
            action=ch.action,
            visits=ch.visits,
            value=utility(ch.mean) if ch.visits else 0.0,
            proven=None if ch.proven is None else _value_for(ch.proven, p),
            prior=getattr(ch, "prior", None) if config.puct is not None else None,
            policy=policy[i],
        )
        for i, ch in enumerate(children)
    )
    visits = sum(ch.visits for ch in children)
    total = sum(ch.value_sum for ch in children)
    if gumbel_pick is not None and not (
        config.solver and any(ch.proven is not None for ch in children)
    ):
        chosen, rule = gumbel_pick, "gumbel"
    else:
        chosen, rule = final_choice(children, p, config, info, rng)
    return SearchResult(
        action=chosen.action,
        value=utility(total / visits) if visits else 0.0,
        children=stats,
        iterations=iterations,
        nodes=nodes,
        seconds=seconds,
        sims_per_s=iterations / seconds if seconds > 0 else 0.0,
        proven=None if root_proven is None else _value_for(root_proven, p),
        player=p,
        final_rule=rule,
        stopped_by=stopped_by,
        compile_seconds=compile_seconds,
    )


def search(
    state: State, config: SearchConfig | None = None, game_info: GameInfo | None = None
) -> SearchResult:
    """One search from ``state`` with a fresh tree: ``MCTS(config).search(state)``."""
    return MCTS(config).search(state, game_info)
