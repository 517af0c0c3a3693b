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
maps a rule's name (``SearchConfig.selection_rule``) to its pair, one for each entry of the
rules' registry :data:`mctslab.search.rules.RULES`, from which it is derived: a rule of
UCT's family gets :func:`argmax_rule`'s pair, written from its registered score function
and per-node terms; a rule with a ``chooser`` of its own (PUCT, Gumbel) the functions of
that name here. Selection looks the rule up once per descent
(:func:`mctslab.search.reference.phases.select`).
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
    RULES,
    UCT_INV,
    UCT_INV_SQRT,
    UCT_SQRT_LOG,
    UCT_TABLE_SIZE,
    RuleInfo,
    child_score,
    exploration,
    puct_config,
    rave_beta,
    rave_score,
    uct_score,
)

__all__ = [
    "SELECTION_RULES",
    "UCT_INV",
    "UCT_INV_SQRT",
    "UCT_SQRT_LOG",
    "UCT_TABLE_SIZE",
    "SelectionRule",
    "argmax_rule",
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


def argmax_rule(info: RuleInfo) -> SelectionRule:
    """The pair of a rule that picks the child with the highest registered score: its
    per-node terms once (``info.terms(c, k, N_parent)``), then each child's score.

    Children are sorted by action, and only a strictly greater score replaces the best
    so far, so ties go to the lowest action; a child scoring ``+inf`` (unvisited) is taken
    at once. Under MCTS-Solver proven children are skipped: a proven child's value is
    known, so visiting it teaches nothing, and an unproven, fully expanded node always has
    an unproven child (else it would be proven), so proven losses are never selected, and
    proven draws don't soak up the visits that the unproven siblings need."""
    terms = info.terms
    assert terms is not None, f"{info.name!r} has a chooser of its own"
    score = child_score(info.score)  # f(child, terms), the registered score of a child

    def choose(node: Node, tree: SearchTree) -> Node:
        config = tree.config
        t = terms(config.c, config.rave, node.visits)
        solver = config.solver
        best: Node | None = None
        best_value = -math.inf
        for ch in node.children:
            if solver and ch.proven is not None:
                continue
            value = score(ch, t)
            if value == math.inf:
                return ch
            if value > best_value:
                best, best_value = ch, value
        assert best is not None
        return best

    def scores(node: Node, tree: SearchTree) -> list[float]:
        # Proven children too: the scores choose compares, for a reader.
        t = terms(tree.config.c, tree.config.rave, node.visits)
        return [score(ch, t) for ch in node.children]

    choose.__doc__ = f"The child with the highest {info.title} score ({info.formula})."
    scores.__doc__ = f"Every child's {info.title} score under ``node``."
    return SelectionRule(info.name, choose, scores)


def uct_value(parent: Node, child: Node, c: float) -> float:
    """:func:`uct_score` of ``child`` under ``parent``."""
    return uct_score(child.value_sum, child.visits, exploration(c, parent.visits))


def puct_child(node: Node, tree: SearchTree) -> Node:
    """The child with the highest :func:`~mctslab.search.puct.puct_score` (at the root,
    with this search's noisy priors); ties go to the lowest action, and under
    MCTS-Solver proven children are skipped, as in :func:`uct_child`."""
    puct = puct_config(tree.config)
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
    puct = puct_config(tree.config)
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
    puct = puct_config(tree.config)
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
    puct = puct_config(tree.config)
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


def _rule_pair(info: RuleInfo) -> SelectionRule:
    """The registry entry's pair: :func:`argmax_rule`'s, or for a rule with a chooser of
    its own the functions ``NAME_child`` and ``NAME_scores`` of this module."""
    if info.chooser is None:
        return argmax_rule(info)
    own = globals()
    scores = info.chooser.removesuffix("_child") + "_scores"
    return SelectionRule(info.name, own[info.chooser], own[scores])


# Gumbel's root choice follows Sequential Halving's schedule, not a score of each child
# alone: the trace shows its children's PUCT scores.
gumbel_scores = puct_scores

#: The selection rules by name (``SearchConfig.selection_rule``): one pair for each rule of
#: :data:`mctslab.search.rules.RULES`, derived from its entry.
SELECTION_RULES: dict[str, SelectionRule] = {name: _rule_pair(info) for name, info in RULES.items()}

# UCT's family by the names the engine's face and the docs know them.
uct_child, uct_scores = SELECTION_RULES["uct"].choose, SELECTION_RULES["uct"].scores
rave_child, rave_scores = SELECTION_RULES["rave"].choose, SELECTION_RULES["rave"].scores
ucb1_tuned_child = SELECTION_RULES["ucb1-tuned"].choose
ucb1_tuned_scores = SELECTION_RULES["ucb1-tuned"].scores


def rule_of(tree: SearchTree) -> SelectionRule:
    """The selection rule of ``tree``'s search (its config's ``selection_rule``)."""
    return SELECTION_RULES[tree.config.selection_rule]


def best_child(node: Node, tree: SearchTree) -> Node:
    """Selection's choice at a fully expanded decision node, by the search's rule."""
    return rule_of(tree).choose(node, tree)
