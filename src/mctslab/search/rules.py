"""The selection rules' registry: one entry per rule, carrying its formula, its
statistics, its choosers in both engines and how a user picks it.

A selection rule decides which child a descent takes at a fully expanded decision node.
Each rule is one :class:`RuleInfo` in :data:`RULES`, under the name that picks it
(``SearchConfig.selection_rule``). Its score is written once, here, as a plain numeric
Python function of a child's statistics and of per-node terms (:func:`uct_score`,
:func:`ucb1_tuned_score`, :func:`rave_score`; PUCT's :func:`~mctslab.search.puct.puct_score`
and Gumbel's :func:`~mctslab.search.gumbel.root_score`). Both engines call that one function:
the reference engine as it is, the compiled engine compiled by numba from the same code
(:func:`mctslab.search.compiled.selection.compiled_twin`: the reciprocal tables below are
read as numpy arrays there), so both compute the same doubles (IEEE arithmetic, correctly
rounded square roots, the C library's ``log``).

A rule whose choice is "the child with the highest score" (UCT's family: UCT, UCB1-Tuned,
RAVE with progressive bias and prior knowledge) needs nothing else: the score's parameter
names say what it reads (a name of :data:`CHILD_STATISTICS` is read from each child, the
other parameters are the per-node terms that the entry's ``terms`` function computes, in
order), and each engine writes its chooser from them (the reference engine's
:func:`mctslab.search.reference.selection.argmax_rule`, the compiled engine's
:func:`mctslab.search.compiled.selection.argmax_chooser`, which the UCT chunk's
``select_by_rule`` dispatches to by the rule's code, :data:`RULE_CODES` there, derived from
this registry). A rule with a choice of its own (PUCT, with the root's noisy priors;
Gumbel's Sequential Halving) names its ``chooser``, a function of that name in each
engine's ``selection`` module, both calling the entry's score.

The entry's ``evaluated`` says what PUCT and Gumbel change beyond the choice, so that the
phases ask the rule instead of testing whether the search has a ``PuctConfig``: a node is
evaluated when first reached (its children created together, with the evaluator's
priors) and phase 3 is the evaluation, not a playout.

:class:`SearchConfig`'s ``selection`` option, the player specs (``mcts:selection=NAME``),
the web lab's choices (``GET /api/rules``), the step-by-step trace and the tree view read
the rules from here; ``tests/search/test_selection_rules.py`` checks that every rule has
both engines' choosers and that they build the same tree. Adding a rule: its score
function and its entry here (docs/layout.md, "Adding a selection rule").
"""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

from mctslab.search.gumbel import root_score
from mctslab.search.puct import PuctConfig, puct_exploration, puct_score

if TYPE_CHECKING:
    from mctslab.search.config import SearchConfig

__all__ = [
    "CHILD_STATISTICS",
    "RULES",
    "SQUARES",
    "STATISTICS",
    "UCT_INV",
    "UCT_INV_SQRT",
    "UCT_SQRT_LOG",
    "UCT_TABLE_SIZE",
    "ChildView",
    "RuleInfo",
    "child_score",
    "exploration",
    "puct_config",
    "rave_beta",
    "rave_score",
    "rave_terms",
    "rule_info",
    "rule_of_config",
    "score_call",
    "selectable_rules",
    "tuned_terms",
    "ucb1_tuned_score",
    "uct_score",
    "uct_terms",
]

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
    (``N = 0``), which therefore comes first. Both engines choose by this function (the
    compiled one compiled from it, the tables as arrays).
    """
    if visits == 0:
        return math.inf
    if visits < UCT_TABLE_SIZE:
        return value_sum * UCT_INV[visits] + explore * UCT_INV_SQRT[visits]
    return value_sum * (1.0 / visits) + explore * (1.0 / math.sqrt(visits))


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
    prior_visits: float = 0.0,
    prior_wins: float = 0.0,
) -> float:
    """UCT with RAVE, progressive bias and prior knowledge, the score of a child::

        (1 - beta) * (Q + Q0) / (N + N0) + beta * (Q~ + Q0) / (N~ + N0)
            + c * sqrt(ln N_parent / (N + N0)) + w * H / (N + 1)

    ``Q~ / N~`` is the child's all-moves-as-first mean (RAVE, :func:`rave_beta`; the
    first term alone while it has no AMAF visit), ``bias = w * H`` progressive bias's
    heuristic term (Chaslot, Winands, van den Herik, Uiterwijk and Bouzy 2008,
    "Progressive strategies for Monte-Carlo tree search"), shrinking as the child is
    visited; ``explore = c * sqrt(ln N_parent)`` (:func:`exploration`). ``N0`` and ``Q0``
    (``prior_visits``, ``prior_wins``) are the game's prior knowledge of the move: virtual
    visits and wins that both the child's mean and its all-moves-as-first mean start
    with (Gelly and Silver 2007, "Combining online and offline knowledge in UCT", and
    2011's heuristic MC-RAVE; Fuego's default, ``PRIOR_INIT_BOTH``), 0 without it. A
    child with ``N + N0 = 0`` scores ``Q~ / N~ + c * sqrt(ln N_parent) + w * H`` (its
    terms at ``N = 1`` with the AMAF mean for its own) once RAVE has seen its move, else
    ``+inf`` (first, as under UCT). Both engines choose by this function (the compiled
    one compiled from it, reading ``N0`` and ``Q0`` as 0 without prior knowledge)."""
    n = visits + prior_visits
    m = amaf_visits + prior_visits
    if n == 0:
        if m == 0:
            return math.inf
        return (amaf_sum + prior_wins) / m + explore + bias
    q = (value_sum + prior_wins) / n
    if m > 0:
        q = (1.0 - beta) * q + beta * ((amaf_sum + prior_wins) / m)
    return q + explore / math.sqrt(n) + bias / (visits + 1.0)


def ucb1_tuned_score(
    value_sum: float, squares: float, visits: int, log_parent: float, c: float
) -> float:
    """UCB1-Tuned's score of a child (Auer, Cesa-Bianchi and Fischer 2002, section 4)::

        Q/N + c * sqrt(ln N_parent / N * min(1/4, V)),
        V = S/N - (Q/N)^2 + sqrt(2 ln N_parent / N)

    ``S`` is the sum of the squared rewards (in ``[0, 1]``) backed up through the child,
    so ``V`` is an upper confidence bound on the rewards' variance; ``1/4`` is the
    largest variance of a reward in ``[0, 1]``, so where the rewards vary little the
    exploration term shrinks below UCB1's. With ``c = 1`` this is the paper's rule;
    ``c`` scales the term as UCT's ``c`` does (``log_parent = ln N_parent``, computed
    once per node). ``+inf`` for an unvisited child (first, as under UCT); ``V`` is
    floored at 0 (rounding can take ``S/N - (Q/N)^2`` a hair below 0 when the square
    root term is 0, at ``N_parent = 1``).

    Both engines call this function: the compiled engine compiles it with numba."""
    if visits == 0:
        return math.inf
    mean = value_sum / visits
    ratio = log_parent / visits
    variance = squares / visits - mean * mean + math.sqrt(2.0 * ratio)
    return mean + c * math.sqrt(ratio * max(0.0, min(0.25, variance)))


#: The node statistics a rule may declare beyond every node's ``N`` and ``Q``: their
#: meaning, for the documentation and the checks.
STATISTICS = {
    "amaf": "all-moves-as-first visits and reward sum (RAVE)",
    "bias": "progressive bias's w * H of the node's position",
    "squares": "the sum of the squared rewards backed up through the node",
    "prior": "the evaluator's prior of the move into the node",
    "knowledge": "the game's prior knowledge of the move into the node: virtual visits and wins",
}
SQUARES = "squares"

#: The child statistics a score function may read, by its parameter's name: the
#: attributes of :class:`ChildView` (and of the reference engine's nodes); the compiled
#: engine reads each from its tree's arrays (0 for the prior knowledge it does not keep).
CHILD_STATISTICS = (
    "visits",
    "value_sum",
    "squares",
    "amaf_visits",
    "amaf_sum",
    "bias",
    "prior",
    "prior_visits",
    "prior_wins",
)


class ChildView(Protocol):
    """A child's statistics, as either engine's tree reports them (0 where not kept)."""

    @property
    def visits(self) -> int: ...
    @property
    def value_sum(self) -> float: ...
    @property
    def squares(self) -> float: ...
    @property
    def amaf_visits(self) -> int: ...
    @property
    def amaf_sum(self) -> float: ...
    @property
    def bias(self) -> float: ...
    @property
    def prior(self) -> float | None: ...
    @property
    def prior_visits(self) -> float: ...
    @property
    def prior_wins(self) -> float: ...


ViewScore = Callable[[ChildView, int, "SearchConfig"], float]
#: A rule's per-node terms from ``(c, k, N_parent)`` (``SearchConfig.c``, RAVE's
#: ``SearchConfig.rave``, the parent's visits): its score's parameters that are not child
#: statistics, in their order, computed once per node and shared by its children.
TermsFn = Callable[[float, float, int], tuple[float, ...]]


def uct_terms(c: float, k: float, parent_visits: int) -> tuple[float]:
    """UCT's per-node term: ``explore =`` :func:`exploration` ``(c, N_parent)``."""
    return (exploration(c, parent_visits),)


def tuned_terms(c: float, k: float, parent_visits: int) -> tuple[float, float]:
    """UCB1-Tuned's per-node terms: ``log_parent = ln N_parent`` (0 at 0) and ``c``."""
    return (math.log(parent_visits) if parent_visits else 0.0, c)


def rave_terms(c: float, k: float, parent_visits: int) -> tuple[float, float]:
    """RAVE's per-node terms: ``explore =`` :func:`exploration` ``(c, N_parent)`` and
    ``beta =`` :func:`rave_beta` ``(k, N_parent)``."""
    return (exploration(c, parent_visits), rave_beta(k, parent_visits))


def score_call(
    score: Callable[..., float], child: Callable[[str], str], term: Callable[[int], str]
) -> str:
    """The source of the call ``SCORE(...)`` of a score function, its arguments spelled by
    an engine: ``child(name)`` for a parameter named after a child statistic
    (:data:`CHILD_STATISTICS`), ``term(i)`` for the ``i``-th of the others (the rule's
    per-node terms). Both engines write their choosers of UCT's family from this, so the
    score's signature is the only place that says what a rule reads."""
    args, i = [], 0
    for name in inspect.signature(score).parameters:
        if name in CHILD_STATISTICS:
            args.append(child(name))
        else:
            args.append(term(i))
            i += 1
    return f"SCORE({', '.join(args)})"


@functools.cache
def child_score(score: Callable[..., float]) -> Callable[[ChildView, tuple[float, ...]], float]:
    """``f(child, terms)``: ``score`` of ``child`` (a :class:`ChildView`: the tree view's
    statistics or the reference engine's node), its arguments read by the names of the
    score's parameters (:func:`score_call`: ``child.visits``, ``child.value_sum``, ... and
    ``terms[i]``), written once per score function."""
    call = score_call(score, lambda name: f"ch.{name}", lambda i: f"t[{i}]")
    fn: Callable[[ChildView, tuple[float, ...]], float] = eval(
        f"lambda ch, t: {call}", {"SCORE": score}
    )
    return fn


def puct_config(config: SearchConfig) -> PuctConfig:
    """The PUCT parameters of a search whose rule is ``evaluated`` (PUCT's family): the
    one place that asks whether a search has them."""
    if config.puct is None:
        raise TypeError(f"the {config.selection_rule!r} rule has no PUCT parameters")
    return config.puct


def _puct_view(s: ChildView, parent_visits: int, config: SearchConfig) -> float:
    # Gumbel's root choice follows Sequential Halving's schedule, not a score of each
    # child alone: its view shows the PUCT score too.
    puct = puct_config(config)
    explore = puct_exploration(puct.c, puct.c_base, parent_visits)
    return puct_score(s.value_sum, s.visits, s.prior or 0.0, explore, puct.fpu)


@dataclass(frozen=True)
class RuleInfo:
    """One selection rule: its registry entry, read by both engines, users and the docs.

    Attributes:
        name: the registry's key: ``SearchConfig.selection_rule``, and for a rule with
            ``selectable`` set the value of ``SearchConfig.selection`` (and of
            ``mcts:selection=``) that picks it.
        title: its name in prose.
        label: its score's short name, as a table's column heads it ("UCT").
        formula: the child's score, as the docstrings and the lab write it.
        reference: the paper that defines it.
        family: ``"uct"``: scores from playouts' statistics, run by UCT's loop (and the
            compiled UCT chunk); ``"puct"``: with an evaluator's priors (PUCT's loop).
        statistics: what it reads beyond ``N`` and ``Q`` (keys of :data:`STATISTICS`);
            the engines keep a statistic only when the search's rule declares it.
        how: how a user turns it on.
        score: the formula, written once: a plain numeric function (numba-compilable)
            whose parameters named in :data:`CHILD_STATISTICS` are a child's statistics
            and the others the per-node terms (``terms``, or the chooser's own).
        terms: the per-node terms of a rule that picks the child with the highest
            ``score`` (:data:`TermsFn`; each engine writes that chooser from ``score`` and
            ``terms``); ``None`` for a rule with a ``chooser`` of its own.
        code: UCT's family: the rule's code in the compiled UCT chunk (``Options.rule``,
            the case of its ``select_by_rule``): fixed per rule, not its place here, since
            compiled code cached on disk has the codes built in; ``None`` for PUCT's family.
        chooser: the name of the rule's own chooser, a function of that name in both
            engines' ``selection`` modules (each calling ``score``); ``None``: the
            engines' argmax chooser.
        view: a child's score for the tree view where ``terms`` cannot give it (PUCT's
            exploration reads the ``PuctConfig``); ``None``: from ``score`` and ``terms``
            (:meth:`view_score`).
        evaluated: a rule of an evaluator (PUCT's family): a node is evaluated when first
            reached, its children created together with their priors, and phase 3 is the
            evaluation (with a playout mixed in, by ``PuctConfig.mix``).
        root_halving: Sequential Halving at the root (Gumbel): the root's noise and
            schedule are drawn for the whole iteration budget, which must be known up
            front, and the final move is the halving's survivor.
        selectable: picked by ``selection=NAME`` (the other rules are turned on by their
            own options: ``rave=``/``progressive_bias=``, ``puct:``, ``gumbel:``).
    """

    name: str
    title: str
    label: str
    formula: str
    reference: str
    family: Literal["uct", "puct"]
    statistics: tuple[str, ...]
    how: str
    score: Callable[..., float]
    terms: TermsFn | None = None
    code: int | None = None
    chooser: str | None = None
    view: ViewScore | None = None
    evaluated: bool = False
    root_halving: bool = False
    selectable: bool = False

    def view_score(self, s: ChildView, parent_visits: int, config: SearchConfig) -> float:
        """A child's score from its statistics (:class:`ChildView`), its parent's visits
        and the search's config: what the tree view and the lab show beside each node,
        the number the engines' choosers compare."""
        if self.view is not None:
            return self.view(s, parent_visits, config)
        assert self.terms is not None
        return child_score(self.score)(s, self.terms(config.c, config.rave, parent_visits))


#: Every selection rule, by name, in the order the documentation lists them.
RULES: dict[str, RuleInfo] = {
    info.name: info
    for info in (
        RuleInfo(
            "uct",
            "UCT (UCB1 applied to trees)",
            "UCT",
            "Q/N + c * sqrt(ln N_parent / N)",
            "Kocsis and Szepesvári 2006; Auer, Cesa-Bianchi and Fischer 2002 (UCB1)",
            "uct",
            (),
            "mcts: (the default)",
            uct_score,
            uct_terms,
            code=0,
            selectable=True,
        ),
        RuleInfo(
            "ucb1-tuned",
            "UCB1-Tuned",
            "UCB1-Tuned",
            "Q/N + c * sqrt(ln N_parent / N * min(1/4, V)), "
            "V = S/N - (Q/N)^2 + sqrt(2 ln N_parent / N)",
            "Auer, Cesa-Bianchi and Fischer 2002, 'Finite-time analysis of the "
            "multiarmed bandit problem' (c = 1 is their rule)",
            "uct",
            (SQUARES,),
            "mcts:selection=ucb1-tuned",
            ucb1_tuned_score,
            tuned_terms,
            code=2,
            selectable=True,
        ),
        RuleInfo(
            "rave",
            "UCT with RAVE, progressive bias and prior knowledge",
            "RAVE",
            "(1 - beta) (Q + Q0)/(N + N0) + beta (Q~ + Q0)/(N~ + N0) "
            "+ c * sqrt(ln N_parent / (N + N0)) "
            "+ w H / (N + 1), beta = sqrt(k / (3 N_parent + k))",
            "Gelly and Silver 2007, 2011; Chaslot et al. 2008",
            "uct",
            ("amaf", "bias"),
            "mcts:rave=K, mcts:progressive_bias=W and/or mcts:knowledge=S",
            rave_score,
            rave_terms,
            code=1,
        ),
        RuleInfo(
            "puct",
            "PUCT (AlphaGo, AlphaZero)",
            "PUCT",
            "Q/N + c(N_parent) * P * sqrt(N_parent) / (1 + N)",
            "Silver et al. 2016, 2017; Rosin 2011",
            "puct",
            ("prior",),
            "puct: (or az:)",
            puct_score,
            chooser="puct_child",
            view=_puct_view,
            evaluated=True,
        ),
        RuleInfo(
            "gumbel",
            "Gumbel root search (Sequential Halving, improved policy below)",
            "Gumbel",
            "root: g + logits + sigma(q) among the halving's candidates; below: "
            "argmax pi'(a) - N(a) / (1 + sum N)",
            "Danihelka et al. 2022, 'Policy improvement by planning with Gumbel'",
            "puct",
            ("prior",),
            "gumbel:",
            root_score,
            chooser="gumbel_child",
            view=_puct_view,
            evaluated=True,
            root_halving=True,
        ),
    )
}


def rule_info(name: str) -> RuleInfo:
    """The registered rule ``name`` (a ``KeyError`` names the registered ones)."""
    try:
        return RULES[name]
    except KeyError:
        raise KeyError(f"no selection rule {name!r}; registered: {', '.join(RULES)}") from None


def rule_of_config(config: SearchConfig) -> RuleInfo:
    """The registry entry of ``config``'s rule (``SearchConfig.selection_rule``)."""
    return RULES[config.selection_rule]


def selectable_rules() -> tuple[str, ...]:
    """The rules ``selection=NAME`` picks (UCT's family, without its option-driven RAVE)."""
    return tuple(name for name, info in RULES.items() if info.selectable)
