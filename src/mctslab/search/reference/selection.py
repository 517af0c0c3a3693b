"""The reference engine's selection rules: how a descent chooses a child at a fully
expanded decision node.

- UCT (:func:`uct_child`): UCB1 applied to trees (Kocsis and Szepesvári 2006, "Bandit
  based Monte-Carlo planning"; Auer, Cesa-Bianchi and Fischer 2002 for UCB1)::

      UCT(child) = Q(child) / N(child) + c * sqrt(ln N(parent) / N(child))

- UCT with RAVE and progressive bias (:func:`rave_child`; Gelly and Silver 2007,
  Chaslot et al. 2008)::

      (1 - beta) * Q / N + beta * Q~ / N~ + c * sqrt(ln N_parent / N) + w * H / (N + 1)

- PUCT (:func:`puct_child`; Silver et al. 2016, AlphaGo), with the priors of an
  evaluator (:mod:`mctslab.search.puct`)::

      Q / N + c(N_parent) * P * sqrt(N_parent) / (1 + N)

- Gumbel root search (:func:`gumbel_child`; Danihelka et al. 2022, "Policy improvement
  by planning with Gumbel"): Sequential Halving at the root, the improved policy below
  (:mod:`mctslab.search.gumbel`).

A rule is a pair of functions of ``(node, tree)`` (:class:`SelectionRule`): ``choose``
returns the child the descent takes, ``scores`` every child's score as the rule sees it
(what the step-by-step trace shows, :mod:`mctslab.search.trace`). :data:`SELECTION_RULES`
maps a rule's name (``SearchConfig.selection_rule``) to its pair; selection looks the rule
up once per descent (:func:`mctslab.search.reference.phases.select`). Adding a rule is
writing its pair and registering it. The compiled twins of ``uct_child`` and
``rave_child`` are :mod:`mctslab.search.compiled`'s functions of the same names.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from mctslab.search.config import SelectionRuleName
from mctslab.search.gumbel import (
    completed_sigma,
    considered_visits,
    interior_choice,
    log_priors,
    root_score,
)
from mctslab.search.puct import puct_exploration, puct_score
from mctslab.search.reference.tree import Node, SearchTree
from mctslab.search.result import gumbel_stats

__all__ = [
    "SELECTION_RULES",
    "UCT_INV",
    "UCT_INV_SQRT",
    "UCT_SQRT_LOG",
    "UCT_TABLE_SIZE",
    "SelectionRule",
    "best_child",
    "exploration",
    "gumbel_child",
    "puct_child",
    "puct_scores",
    "rave_beta",
    "rave_child",
    "rave_score",
    "rave_scores",
    "root_noise",
    "rule_of",
    "selection_priors",
    "uct_child",
    "uct_score",
    "uct_scores",
    "uct_value",
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


def uct_child(node: Node, tree: SearchTree) -> Node:
    """The child with the highest :func:`uct_score`.

    Children are sorted by action, and only a strictly greater value replaces the
    best so far, so ties go to the lowest action; unvisited children come first.
    """
    config = tree.config
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


def uct_scores(node: Node, tree: SearchTree) -> list[float]:
    """Every child's :func:`uct_score` under ``node`` (proven children too: the scores
    :func:`uct_child` compares, for a reader)."""
    explore = exploration(tree.config.c, node.visits)
    return [uct_score(ch.value_sum, ch.visits, explore) for ch in node.children]


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


def rave_child(node: Node, tree: SearchTree) -> Node:
    """The child with the highest :func:`rave_score`: ties to the lowest action, under
    MCTS-Solver proven children skipped, as in :func:`uct_child`."""
    config = tree.config
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


def rave_scores(node: Node, tree: SearchTree) -> list[float]:
    """Every child's :func:`rave_score` under ``node``, as :func:`rave_child` compares them."""
    config = tree.config
    explore = exploration(config.c, node.visits)
    beta = rave_beta(config.rave, node.visits)
    return [
        rave_score(ch.value_sum, ch.visits, ch.amaf_sum, ch.amaf_visits, explore, beta, ch.bias)
        for ch in node.children
    ]


def puct_child(node: Node, tree: SearchTree) -> Node:
    """The child with the highest :func:`~mctslab.search.puct.puct_score` (at the root,
    with this search's noisy priors); ties go to the lowest action, and under
    MCTS-Solver proven children are skipped, as in :func:`uct_child`."""
    puct = tree.config.puct
    assert puct is not None
    explore = puct_exploration(puct.c, puct.c_base, node.visits)
    if node is tree.root and tree.noise_due:
        root_noise(tree)
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


def selection_priors(node: Node, tree: SearchTree) -> list[float]:
    """The priors PUCT's selection uses at ``node``: at the root, this search's priors with
    exploration noise once drawn (:func:`root_noise`), else the evaluator's."""
    if node is tree.root and tree.root_priors is not None:
        return list(tree.root_priors)
    return [ch.prior for ch in node.children]


def puct_scores(node: Node, tree: SearchTree) -> list[float]:
    """Every child's :func:`~mctslab.search.puct.puct_score` under ``node``, with the priors
    :func:`puct_child` reads (:func:`selection_priors`). Gumbel's rule shows these too: its
    root choice follows Sequential Halving's schedule, not a score of each child alone."""
    puct = tree.config.puct
    assert puct is not None
    explore = puct_exploration(puct.c, puct.c_base, node.visits)
    priors = selection_priors(node, tree)
    return [
        puct_score(ch.value_sum, ch.visits, priors[i], explore, puct.fpu)
        for i, ch in enumerate(node.children)
    ]


def gumbel_child(node: Node, tree: SearchTree) -> Node:
    """Gumbel search's choice (:mod:`~mctslab.search.gumbel`): at the root, among the
    actions whose visits are the count Sequential Halving has due, the best
    ``g + logits + sigma(q)``; below, the action that lags most behind the improved
    policy. Under MCTS-Solver proven children are skipped."""
    puct = tree.config.puct
    assert puct is not None
    if node is tree.root and tree.noise_due:
        root_noise(tree)
    children = node.children
    if tree.config.solver:
        children = [ch for ch in children if ch.proven is None]
    q, visits, priors = gumbel_stats(children, [ch.prior for ch in children])
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


def root_noise(tree: SearchTree) -> None:
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


ChooseFn = Callable[[Node, SearchTree], Node]
ScoresFn = Callable[[Node, SearchTree], list[float]]


@dataclass(frozen=True)
class SelectionRule:
    """A selection rule: ``choose(node, tree)``, the child a descent takes at a fully
    expanded decision node (ties to the lowest action; under MCTS-Solver, proven children
    skipped), and ``scores(node, tree)``, each child's score as the rule sees it."""

    name: SelectionRuleName
    choose: ChooseFn
    scores: ScoresFn


#: The selection rules by name (``SearchConfig.selection_rule``).
SELECTION_RULES: dict[str, SelectionRule] = {
    "uct": SelectionRule("uct", uct_child, uct_scores),
    "rave": SelectionRule("rave", rave_child, rave_scores),
    "puct": SelectionRule("puct", puct_child, puct_scores),
    "gumbel": SelectionRule("gumbel", gumbel_child, puct_scores),
}


def rule_of(tree: SearchTree) -> SelectionRule:
    """The selection rule of ``tree``'s search (its config's ``selection_rule``)."""
    return SELECTION_RULES[tree.config.selection_rule]


def best_child(node: Node, tree: SearchTree) -> Node:
    """Selection's choice at a fully expanded decision node, by the search's rule."""
    return rule_of(tree).choose(node, tree)
