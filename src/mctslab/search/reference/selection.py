"""The reference engine's selection rules: how a descent chooses a child at a fully
expanded decision node.

- UCT (:func:`uct_child`): UCB1 applied to trees (Kocsis and Szepesvári 2006, "Bandit
  based Monte-Carlo planning"; Auer, Cesa-Bianchi and Fischer 2002 for UCB1)::

      UCT(child) = Q(child) / N(child) + c * sqrt(ln N(parent) / N(child))

- UCT with RAVE, progressive bias and prior knowledge (:func:`rave_child`; Gelly and Silver 2007,
  Chaslot et al. 2008)::

      (1 - beta) * Q / N + beta * Q~ / N~ + c * sqrt(ln N_parent / N) + w * H / (N + 1)

- PUCT (:func:`puct_child`; Silver et al. 2016, AlphaGo), with the priors of an
  evaluator (:mod:`mctslab.search.puct`)::

      Q / N + c(N_parent) * P * sqrt(N_parent) / (1 + N)

- Gumbel root search (:func:`gumbel_child`; Danihelka et al. 2022, "Policy improvement
  by planning with Gumbel"): Sequential Halving at the root, the improved policy below
  (:mod:`mctslab.search.gumbel`).

- UCB1-Tuned (:func:`ucb1_tuned_child`; Auer, Cesa-Bianchi and Fischer 2002), the score
  :func:`mctslab.search.rules.ucb1_tuned_score`::

      Q/N + c * sqrt(ln N_parent / N * min(1/4, S/N - (Q/N)^2 + sqrt(2 ln N_parent / N)))

A rule is a pair of functions of ``(node, tree)`` (:class:`SelectionRule`): ``choose``
returns the child the descent takes, ``scores`` every child's score as the rule sees it
(what the step-by-step trace shows, :mod:`mctslab.search.trace`). :data:`SELECTION_RULES`
maps a rule's name (``SearchConfig.selection_rule``, a key of the rules' registry
:data:`mctslab.search.rules.RULES`) to its pair; selection looks the rule up once per
descent (:func:`mctslab.search.reference.phases.select`). Adding a rule is writing its
pair and registering it here, beside its compiled twin (UCT's family:
:data:`mctslab.search.compiled.selection.COMPILED_RULES`, the functions of the same
names).
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
from mctslab.search.rules import (
    UCT_INV,
    UCT_INV_SQRT,
    UCT_SQRT_LOG,
    UCT_TABLE_SIZE,
    exploration,
    rave_beta,
    rave_score,
    ucb1_tuned_score,
    uct_score,
)

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
    "ucb1_tuned_child",
    "ucb1_tuned_scores",
    "uct_child",
    "uct_score",
    "uct_scores",
    "uct_value",
]


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
            ch.value_sum,
            ch.visits,
            ch.amaf_sum,
            ch.amaf_visits,
            explore,
            beta,
            ch.bias,
            ch.prior_visits,
            ch.prior_wins,
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
        rave_score(
            ch.value_sum,
            ch.visits,
            ch.amaf_sum,
            ch.amaf_visits,
            explore,
            beta,
            ch.bias,
            ch.prior_visits,
            ch.prior_wins,
        )
        for ch in node.children
    ]


def ucb1_tuned_child(node: Node, tree: SearchTree) -> Node:
    """The child with the highest :func:`~mctslab.search.rules.ucb1_tuned_score`
    (UCB1-Tuned): ties to the lowest action, unvisited children first, under MCTS-Solver
    proven children skipped, as in :func:`uct_child`."""
    config = tree.config
    c, solver = config.c, config.solver
    log_parent = math.log(node.visits) if node.visits else 0.0
    best: Node | None = None
    best_value = -math.inf
    for ch in node.children:
        if solver and ch.proven is not None:
            continue
        value = ucb1_tuned_score(ch.value_sum, ch.squares, ch.visits, log_parent, c)
        if value == math.inf:
            return ch
        if value > best_value:
            best, best_value = ch, value
    assert best is not None
    return best


def ucb1_tuned_scores(node: Node, tree: SearchTree) -> list[float]:
    """Every child's :func:`~mctslab.search.rules.ucb1_tuned_score` under ``node``."""
    c = tree.config.c
    log_parent = math.log(node.visits) if node.visits else 0.0
    return [
        ucb1_tuned_score(ch.value_sum, ch.squares, ch.visits, log_parent, c) for ch in node.children
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


#: The selection rules by name (``SearchConfig.selection_rule``): one pair for each rule of
#: :data:`mctslab.search.rules.RULES` (a test holds the two registries together).
SELECTION_RULES: dict[str, SelectionRule] = {
    "uct": SelectionRule("uct", uct_child, uct_scores),
    "ucb1-tuned": SelectionRule("ucb1-tuned", ucb1_tuned_child, ucb1_tuned_scores),
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
