"""The selection rules: their formulas and their registry (what each rule is called, what
it computes, which node statistics it needs, how a user picks it).

A selection rule decides which child a descent takes at a fully expanded decision node.
Here are the formulas both engines compute (:func:`uct_score`, :func:`rave_score`,
:func:`ucb1_tuned_score`; PUCT's are in :mod:`mctslab.search.puct`) and each rule's
:class:`RuleInfo` in :data:`RULES`, under the name that picks it. The choosers, which walk
a node's children, live in the engines:

- the reference engine's pair ``(choose, scores)`` in
  :data:`mctslab.search.reference.selection.SELECTION_RULES`,
- the compiled engine's numba chooser in
  :data:`mctslab.search.compiled.selection.COMPILED_RULES` (UCT's family; PUCT's rules
  run in the PUCT chunk),

and a test (``tests/search/test_selection_rules.py``) checks that every rule registered
here has both and that the two build the same tree. :class:`SearchConfig`'s ``selection``
option, the player specs (``mcts:selection=NAME``), the web lab's choices
(``GET /api/rules``), the step-by-step trace and the tree view read the rules from here.

A score that is plain arithmetic on a child's statistics is written once, as a Python
function of floats (:func:`ucb1_tuned_score`): the reference engine calls it as it is,
the compiled engine compiles the same function with numba, so both compute the same
doubles (IEEE arithmetic, correctly rounded square roots, the C library's ``log``).

Adding a rule: its score here, its chooser in each engine, the three registrations, and
a node-identity test; docs/search.md ("Adding a selection rule") walks through
UCB1-Tuned's.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

from mctslab.search.puct import puct_exploration, puct_score

if TYPE_CHECKING:
    from mctslab.search.config import SearchConfig

__all__ = [
    "RULES",
    "SQUARES",
    "STATISTICS",
    "UCT_INV",
    "UCT_INV_SQRT",
    "UCT_SQRT_LOG",
    "UCT_TABLE_SIZE",
    "ChildView",
    "RuleInfo",
    "exploration",
    "rave_beta",
    "rave_score",
    "rule_info",
    "selectable_rules",
    "ucb1_tuned_score",
    "uct_score",
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
    (``N = 0``), which therefore comes first. The compiled twin is
    :func:`mctslab.search.compiled.selection.uct_child`: the same expression, float for float.
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
    ``+inf`` (first, as under UCT). The compiled twin is
    :func:`mctslab.search.compiled.selection.rave_child`: the same expression, float for
    float."""
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

    Both engines call this function: the compiled engine compiles it with numba
    (:func:`mctslab.search.compiled.selection.ucb1_tuned_child`)."""
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


def _uct_view(s: ChildView, parent_visits: int, config: SearchConfig) -> float:
    return uct_score(s.value_sum, s.visits, exploration(config.c, parent_visits))


def _tuned_view(s: ChildView, parent_visits: int, config: SearchConfig) -> float:
    log_parent = math.log(parent_visits) if parent_visits else 0.0
    return ucb1_tuned_score(s.value_sum, s.squares, s.visits, log_parent, config.c)


def _rave_view(s: ChildView, parent_visits: int, config: SearchConfig) -> float:
    explore = exploration(config.c, parent_visits)
    beta = rave_beta(config.rave, parent_visits)
    return rave_score(
        s.value_sum,
        s.visits,
        s.amaf_sum,
        s.amaf_visits,
        explore,
        beta,
        s.bias,
        s.prior_visits,
        s.prior_wins,
    )


def _puct_view(s: ChildView, parent_visits: int, config: SearchConfig) -> float:
    # Gumbel's root choice follows Sequential Halving's schedule, not a score of each
    # child alone: its view shows the PUCT score too.
    puct = config.puct
    assert puct is not None
    explore = puct_exploration(puct.c, puct.c_base, parent_visits)
    return puct_score(s.value_sum, s.visits, s.prior or 0.0, explore, puct.fpu)


@dataclass(frozen=True)
class RuleInfo:
    """One selection rule, as users and documentation see it.

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
        score: a child's score from its statistics (:class:`ChildView`), its parent's
            visits and the search's config: what the tree view and the lab show beside
            each node (the engines' choosers compute the same numbers their own way).
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
    score: ViewScore
    selectable: bool = False


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
            _uct_view,
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
            _tuned_view,
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
            _rave_view,
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
            _puct_view,
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
            _puct_view,
        ),
    )
}


def rule_info(name: str) -> RuleInfo:
    """The registered rule ``name`` (a ``KeyError`` names the registered ones)."""
    try:
        return RULES[name]
    except KeyError:
        raise KeyError(f"no selection rule {name!r}; registered: {', '.join(RULES)}") from None


def selectable_rules() -> tuple[str, ...]:
    """The rules ``selection=NAME`` picks (UCT's family, without its option-driven RAVE)."""
    return tuple(name for name, info in RULES.items() if info.selectable)
