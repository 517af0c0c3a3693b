"""A search's options: :class:`SearchConfig`, shared by both engines (the reference
engine, :mod:`mctslab.search.mcts`, and its compiled twin), and the checks of a config
against the game a search starts on (:func:`check_puct`; MCTS-Solver's is
:func:`mctslab.search.solver.check_solver`).

``SearchConfig.selection_rule`` names the rule selection applies at a decision node
(UCT, UCB1-Tuned, UCT with RAVE or progressive bias, PUCT, Gumbel): a key of the selection
rules' registry, :data:`mctslab.search.rules.RULES`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import GameInfo, State, has_chance_nodes, heuristic_or_none
from mctslab.core.options import check_options, option
from mctslab.search.options import MAX_ITERATIONS, MAX_SECONDS, check_budget
from mctslab.search.puct import PuctConfig
from mctslab.search.rules import RULES, RuleInfo, puct_config, selectable_rules

__all__ = [
    "Expansion",
    "FinalRule",
    "SearchConfig",
    "SelectionRuleName",
    "Simulation",
    "check_knowledge",
    "check_puct",
]

Expansion = Literal["one", "all"]
Simulation = Literal["random", "heavy", "cutoff", "verdict"]
FinalRule = Literal["robust", "max", "robust-max"]
#: A key of :data:`mctslab.search.rules.RULES` (the registry is open: a name, not a Literal).
SelectionRuleName = str


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
        early_stop: stop as soon as the most visited root child's lead over the second
            exceeds the iterations the budget has left (under a time budget: the seconds
            left at the search's rate so far), since no more search could change the
            move (Huang, Coulom and Lin 2010, "Time management for Monte-Carlo tree
            search applied to the game of Go"; :class:`~mctslab.search.budget.Budget`):
            the saved time goes back to the clock. Needs ``final`` ``"robust"`` or
            ``"robust-max"`` (under the latter, once the two rules agree). The compiled
            engine looks between chunks, about a hundred times a search.
        early_stop_factor: with ``early_stop``, stop once the lead exceeds this fraction
            of the iterations left (in ``(0, 1]``; 1: the move cannot change; below 1:
            it is unlikely to, Baier and Winands' ``f_earlystop``, "Time management for
            Monte Carlo tree search", IEEE TCIAIG 2016).
        time_factor: under a game clock's main time, search this multiple of the
            clock's share for the move (in ``(0, 10]``; Baier and Winands' ``f_time``:
            their STOP plans each search longer and lets ``early_stop`` end most of
            them sooner; :meth:`mctslab.players.clock.Clock.move_time`). No effect
            without a game clock.
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
            sqrt(k / (3 N_parent + k))`` on the latter
            (:func:`~mctslab.search.reference.selection.rave_score`); ``0``: off.
            Under RAVE a node's children are created together (as ``expansion="all"``).
        progressive_bias: progressive bias's weight ``w`` (Chaslot et al. 2008): a
            visited child's score gains ``w * H / (N + 1)``, ``H`` the game's heuristic of
            the child's position for the player who moved into it, on ``[0, 1]``; ``0``: off.
        knowledge: the scale ``S`` of the game's prior knowledge (Gelly and Silver 2007;
            Fuego's and Pachi's priors): a new child starts with ``S * n0`` virtual visits
            and ``S * w0`` virtual wins, ``(n0, w0)`` the game's ``knowledge`` kernel's
            for the move (Go: captures, atari escapes, MoGo's patterns, the distance to
            the last move, first-line and self-atari penalties:
            :mod:`mctslab.games.go.priors`); they count in the child's mean and
            exploration term (:func:`~mctslab.search.rules.rave_score`), not in its
            visits. ``0``: off. Under it a node's children are created together.
        selection: UCT's selection rule, a selectable rule of the registry
            (:func:`mctslab.search.rules.selectable_rules`): ``"uct"`` or
            ``"ucb1-tuned"`` (:func:`~mctslab.search.rules.ucb1_tuned_score`, Auer et al.
            2002: ``c = 1`` is their rule). RAVE and progressive bias extend ``"uct"``, and
            PUCT has its own rule: neither combines with another choice.
    """

    c: float = option(
        math.sqrt(2.0),
        "UCT's exploration constant on rewards in [0, 1]",
        low=0,
        lab=True,
        under_puct=False,
    )
    expansion: Expansion = option(
        "one",
        "untried children added per iteration: one (random order) or all",
        lab=True,
        under_puct=False,
    )
    simulation: Simulation = option(
        "random",
        "playout policy: random, heavy, cutoff (heuristic after cutoff_depth) or verdict",
        lab="Playout policy: random, heavy, cutoff (the heuristic after cutoff_depth "
        "plies) or verdict (under PUCT, of the 'uniform+rollout' evaluator's playouts).",
    )
    cutoff_depth: int = option(
        8,
        "plies a cutoff playout plays before the heuristic scores it",
        low=0,
        high=10**9,
        lab=True,
    )
    verdict_every: int = option(
        4, "a verdict playout asks the heuristic every this many plies", low=1, high=10**6
    )
    verdict_threshold: float = option(
        0.9, "a clear verdict: a player's heuristic at least this", low=0, high=1, low_open=True
    )
    final: FinalRule = option(
        "robust",
        "final-move rule: robust (most visits), max (best mean) or robust-max",
        lab=True,
    )
    robust_max_extra: float = option(
        0.5, "the fraction of the budget robust-max may add", low=0, high=100
    )
    early_stop: bool = option(
        False, "stop once no more search could change the most visited move", under_puct=False
    )
    early_stop_factor: float = option(
        1.0,
        "early stop once the lead exceeds this fraction of the iterations left",
        low=0,
        high=1,
        low_open=True,
        under_puct=False,
    )
    time_factor: float = option(
        1.0,
        "search this multiple of the game clock's share for the move",
        low=0,
        high=10,
        low_open=True,
        under_puct=False,
    )
    solver: bool = option(False, "MCTS-Solver: prove wins and losses", lab=True)
    iterations: int | None = option(
        1000,
        "iteration budget (none: no limit)",
        low=1,
        high=MAX_ITERATIONS,
        aliases=("iters", "n", "simulations"),
        lab=True,
        check=False,
    )
    time: float | None = option(
        None,
        "wall-clock budget in seconds (none: no limit)",
        low=0,
        high=MAX_SECONDS,
        low_open=True,
        high_open=True,
        lab=True,
        check=False,
    )
    max_nodes: int | None = option(
        None, "tree-size budget (none: no limit)", low=2, aliases=("nodes",)
    )
    seed: int = option(0, "seed of every random choice", lab=True)
    reuse_tree: bool = option(True, "keep the played moves' subtree between searches")
    workers: int = option(
        1,
        "root parallelism: independent searches, root statistics merged",
        low=1,
        high=256,
        aliases=("threads",),
    )
    parallel: Literal["auto", "threads", "processes"] = option(
        "auto", "where the workers run: threads, processes or auto"
    )
    puct: PuctConfig | None = option(
        None, "PUCT's options (a puct: spec); none: UCT", spec=False, check=False
    )
    rave: float = option(
        0.0,
        "RAVE's equivalence parameter k (0: off)",
        low=0,
        high=1e9,
        under_puct=False,
        lab="RAVE's equivalence parameter k (selection 'uct'; 0: off): a child's "
        "score blends its mean with its all-moves-as-first mean Q~/N~, weighted beta = "
        "sqrt(k / (3 N_parent + k)); a node's children are added at once. Under PUCT: 400.",
    )
    progressive_bias: float = option(
        0.0,
        "progressive bias's weight w (0: off)",
        low=0,
        high=1e9,
        under_puct=False,
        lab="Progressive bias's weight w (selection 'uct'; 0: off): a visited "
        "child's score gains w * H / (N + 1), H the game's heuristic of its position in "
        "[0, 1]. Needs the game's heuristic (else 400). Under PUCT: 400.",
    )
    knowledge: float = option(
        0.0,
        "the scale S of the game's prior knowledge (0: off)",
        low=0,
        high=1e9,
        under_puct=False,
        lab="Prior knowledge's scale S (selection 'uct'; 0: off): a new child starts "
        "with S times the game's virtual visits and wins for its move (Go: captures, atari "
        "escapes, patterns, distance to the last move). Needs the game's knowledge kernel "
        "(else 400). Under PUCT: 400.",
    )
    selection: str = option(
        "uct",
        "UCT's selection rule: uct or ucb1-tuned",
        choices=selectable_rules,
        lab=True,
        under_puct=False,
    )

    def __post_init__(self) -> None:
        where = "search config"
        check_options(self, where)  # each field's type, range and choices, as declared
        for name in ("rave", "progressive_bias", "knowledge"):
            if getattr(self, name) and self.puct is not None:
                raise InvalidConfigError(
                    f"{where}: {name} is an option of UCT's selection; PUCT has its priors"
                )
        if self.selection != "uct" and (self.rave or self.progressive_bias or self.knowledge):
            raise InvalidConfigError(
                f"{where}: rave, progressive_bias and knowledge extend UCT's rule; "
                f"selection={self.selection!r} does not take them"
            )
        if self.selection != "uct" and self.puct is not None:
            raise InvalidConfigError(
                f"{where}: selection={self.selection!r} is a rule of UCT's family; PUCT has its own"
            )
        if self.early_stop and self.final == "max":
            raise InvalidConfigError(
                f"{where}: early_stop watches the most visited child, which final='max' "
                "does not play; use final='robust' or 'robust-max'"
            )
        check_budget(where, self.iterations, self.time, other_budget=self.max_nodes is not None)
        if not isinstance(self.puct, PuctConfig | None):
            raise InvalidConfigError(f"{where}: puct must be a PuctConfig or None")
        if self.rule.root_halving and (self.iterations is None or self.time is not None):
            raise InvalidConfigError(
                f"{where}: gumbel=True plans Sequential Halving over an iteration budget: "
                "give iterations, not time"
            )

    @property
    def selection_rule(self) -> SelectionRuleName:
        """The rule selection applies at a fully expanded decision node: ``selection``
        (``"uct"``: UCB1, Kocsis and Szepesvári 2006; ``"ucb1-tuned"``), ``"rave"`` (UCT
        with RAVE or progressive bias), ``"puct"`` (AlphaGo's) or ``"gumbel"`` (Gumbel root
        search): a key of :data:`mctslab.search.rules.RULES`, whose engines'
        implementations are registered under the same name."""
        if self.puct is not None:
            return "gumbel" if self.puct.gumbel else "puct"
        if self.rave or self.progressive_bias or self.knowledge:
            return "rave"
        return self.selection

    @property
    def rule(self) -> RuleInfo:
        """The registry entry of the search's rule (:data:`RULES`): what a caller asks of
        the search's kind, instead of testing whether ``puct`` is set: ``evaluated`` (an
        evaluator's priors and values: PUCT's family), ``root_halving`` (Gumbel's
        Sequential Halving at the root)."""
        return RULES[self.selection_rule]

    @property
    def statistics(self) -> tuple[str, ...]:
        """The node statistics the search's rule declares (:data:`RULES`' ``statistics``),
        and ``"knowledge"`` when the search has prior knowledge."""
        declared = RULES[self.selection_rule].statistics
        return (*declared, "knowledge") if self.knowledge else declared


def check_knowledge(state: State, info: GameInfo) -> None:
    """Refuse ``knowledge`` for a game without a prior-knowledge kernel
    (``RuleKernels.knowledge``)."""
    kernels = getattr(getattr(state, "game", None), "kernels", None)
    if getattr(kernels, "knowledge", None) is None:
        raise InvalidConfigError(
            f"knowledge needs the game's prior-knowledge kernel; {info.name} has none"
        )


def check_puct(config: SearchConfig, info: GameInfo, state: State) -> None:
    """Refuse what PUCT cannot do with this game: an evaluator's value is one number for
    the player to move, so (except for ``"uniform+rollout"``) the game must be two-player
    zero-sum; ``batch > 1`` has no chance nodes to wait at."""
    puct = puct_config(config)
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
