"""One MCTS iteration, step by step: what each of the four phases did.

:func:`traced_iteration` runs exactly one iteration of the reference engine
(:mod:`mctslab.search.mcts`) on a searcher's tree: it calls the engine's own
:func:`~mctslab.search.reference.phases.iterate` with a recorder
(:class:`TraceRecorder`, a :class:`~mctslab.search.reference.phases.Recorder`) that the
phases tell what they did, so ``k`` traced iterations build the tree that a
``k``-iteration search with the same seed builds, by the same functions and draws. The
trace reads each selection step's scores from the search's selection rule
(:data:`~mctslab.search.reference.selection.SELECTION_RULES`). It returns an
:class:`IterationTrace`:

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

Under another rule of UCT's family (``SearchConfig.selection``, e.g. UCB1-Tuned) the
score is that rule's, read from the rules' registry (``IterationTrace.rule`` names it).

With RAVE or progressive bias (``SearchConfig.rave``, ``progressive_bias``) each child's
score is :func:`mctslab.search.reference.selection.rave_score`, with its
all-moves-as-first statistics ``N~``, ``Q~/N~`` and progressive bias's ``w * H`` beside
it and each level's RAVE weight ``beta``; each update of phase 4 counts the node's
children whose AMAF statistics the iteration updated (``amaf_updates``: the path's child
and the siblings whose move the same player played later in the iteration).

Under PUCT (``SearchConfig.puct``, :mod:`mctslab.search.puct`) the same phases are
recorded with PUCT's quantities: each child's prior ``P`` and its PUCT score
``Q/N + c(N) * P * sqrt(N) / (1 + N)`` in place of UCT (``Q/N`` is ``fpu`` when
unvisited; at the root with this search's exploration noise, if any); the expansion
is the evaluation of the leaf: every child added at once, with the evaluator's
priors (``Expansion.priors``); and phase 3 is the evaluator's value of the leaf
(``Simulation.kind == "evaluation"``, ``Simulation.value``), mixed with a playout
when ``mix > 0``, or a playout alone for the ``"uniform+rollout"`` evaluator
(``kind == "playout"``). With ``batch > 1`` a search evaluates leaves in batches;
a traced iteration is always one descent and one evaluation (``batch = 1``).

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
from mctslab.search.config import SearchConfig
from mctslab.search.mcts import MCTS
from mctslab.search.reference.phases import iterate
from mctslab.search.reference.selection import (
    SELECTION_RULES,
    rave_beta,
    rule_of,
    selection_priors,
)
from mctslab.search.reference.tree import Node, NodeBudgetReached, SearchTree, release_nodes
from mctslab.search.rules import RULES, puct_config

__all__ = [
    "ChildPrior",
    "ChildScore",
    "Expansion",
    "IterationTrace",
    "SelectionStep",
    "Simulation",
    "TraceRecorder",
    "Update",
    "move_root",
    "node_id",
    "score_label",
    "traced_iteration",
    "tree_at",
    "tree_size",
]

LeafKind = Literal["playout", "evaluation", "terminal", "proven"]


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


def move_root(searcher: MCTS, state: State) -> None:
    """Re-root the searcher's tree at ``state``, the position a move led to, as
    :func:`tree_at` does (at a terminal ``state`` the tree is forgotten), and unlink what
    the move left behind (the old tree but the kept subtree) so that reference counting
    frees it at once (:func:`~mctslab.search.reference.tree.release_nodes`: a dropped
    tree is a reference cycle, and a full collection would stop every thread, a server's
    event loop included, for as long as it takes to walk every object of the process:
    up to 0.4 s with 20 busy sessions of the web lab)."""
    old = searcher.root
    if state.is_terminal():
        searcher.reset()
    else:
        tree_at(searcher, state)
    if searcher.root is not old:
        release_nodes(old, keep=searcher.root)


def tree_size(searcher: MCTS) -> tuple[int, int]:
    """``(nodes, root visits)`` of the searcher's tree as its last search or
    :func:`tree_at` left it; ``(0, 0)`` with no tree."""
    tree = searcher.tree
    if tree is None or searcher.root is None:
        return 0, 0
    return tree.nodes, tree.root.visits


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


@dataclass(frozen=True)
class ChildScore:
    """A child as the selection saw it (statistics before this iteration's update).

    ``mean`` is ``Q/N`` in ``[0, 1]`` for the player who moves into the child,
    ``uct`` its selection score: its UCT value (``math.inf`` when unvisited), or under
    PUCT its PUCT score; ``prior`` its prior ``P`` under PUCT (the one selection used:
    at the root, with the search's noise), ``None`` under UCT; ``eligible`` is false
    for a child that MCTS-Solver skips because it is proven. With RAVE, ``uct`` is
    :func:`~mctslab.search.reference.selection.rave_score` and ``amaf_visits`` /
    ``amaf_mean`` the child's all-moves-as-first ``N~`` and ``Q~/N~`` (``None`` without
    RAVE; the mean also while ``N~ = 0``); with progressive bias, ``bias`` its ``w * H``
    (else ``None``).
    """

    action: int
    label: str
    visits: int
    mean: float
    uct: float
    proven: int | None
    eligible: bool
    chosen: bool
    prior: float | None = None
    amaf_visits: int | None = None
    amaf_mean: float | None = None
    bias: float | None = None


@dataclass(frozen=True)
class ChildPrior:
    """A child added by PUCT's expansion, with the evaluator's prior."""

    action: int
    label: str
    prior: float


@dataclass(frozen=True)
class SelectionStep:
    """One level of the descent: the node, its player to move, its children, the pick;
    ``beta`` the weight RAVE gave the children's AMAF means there (``None`` without RAVE)."""

    node: str
    to_play: int
    visits: int
    children: tuple[ChildScore, ...]
    chosen: int
    beta: float | None = None


@dataclass(frozen=True)
class Expansion:
    """The node added to the tree (``added`` > 1 under ``expansion="all"``).

    Under PUCT the leaf itself is evaluated and all its children are added at once:
    ``parent`` and ``node`` are both the leaf's id, ``action`` and ``label`` the move
    into it (``-1`` and ``""`` at the root), ``added`` its number of children and
    ``priors`` each child's prior from the evaluator (``None`` under UCT)."""

    parent: str
    node: str
    action: int
    label: str
    added: int
    untried_left: int
    priors: tuple[ChildPrior, ...] | None = None


@dataclass(frozen=True)
class Simulation:
    """Phase 3. ``kind``: ``"playout"`` (moves played from ``start``), ``"evaluation"``
    (PUCT: the evaluator's value of the leaf, with a playout's moves too when ``mix`` >
    0), ``"terminal"`` (the leaf is the end of the game: its exact rewards, no moves) or
    ``"proven"`` (MCTS-Solver knows the leaf's value). ``cutoff``: the playout stopped
    at the config's cut-off depth and the heuristic scored it. ``rewards``: per player, in
    ``[0, 1]``: what is backed up.

    Under PUCT: ``evaluator`` names the evaluator (``None`` under UCT); ``value`` is the
    evaluator's value as rewards per player in ``[0, 1]`` (``None`` when it gives none:
    ``"uniform+rollout"``, whose value is the playout, or at a chance node);
    ``playout_rewards`` the playout's own rewards when one was mixed in, and ``mix`` the
    playout's share (``rewards = (1 - mix) * value + mix * playout_rewards``)."""

    start: str
    kind: LeafKind
    actions: tuple[int, ...]
    labels: tuple[str, ...]
    cutoff: bool
    rewards: tuple[float, ...]
    evaluator: str | None = None
    value: tuple[float, ...] | None = None
    playout_rewards: tuple[float, ...] | None = None
    mix: float = 0.0


@dataclass(frozen=True)
class Update:
    """Phase 4 at one node. ``player`` moved into the node (``-1`` at the root, which
    counts the visit but has no value); ``reward`` is that player's (``None`` at the root).
    ``amaf_updates``: under RAVE, how many of the node's children got an all-moves-as-first
    update (``N~`` + 1) from this iteration; ``None`` without RAVE."""

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
    amaf_updates: int | None = None


@dataclass(frozen=True)
class IterationTrace:
    """What one iteration did, phase by phase; ``to_dict()`` gives JSON-ready data.

    ``root_visits`` and ``nodes`` are the root's ``N`` and the tree's size after it;
    ``selection_rule`` is ``"uct"`` or ``"puct"`` (the family: playouts' statistics or an
    evaluator's priors), and ``c`` its constant; ``rule`` the rule itself (a key of
    :data:`mctslab.search.rules.RULES`: ``"uct"``, ``"ucb1-tuned"``, ``"rave"``, ...) and
    ``score_label`` its score's short name ("UCT", "UCB1-Tuned", "RAVE", "UCT+PB" for
    progressive bias alone, "PUCT"); ``rave`` and ``progressive_bias`` UCT's options
    ``k`` and ``w`` (0: off).
    """

    selection: tuple[SelectionStep, ...]
    expansion: Expansion | None
    simulation: Simulation
    backpropagation: tuple[Update, ...]
    root_visits: int
    nodes: int
    c: float
    selection_rule: Literal["uct", "puct"] = "uct"
    rave: float = 0.0
    progressive_bias: float = 0.0
    rule: str = "uct"
    score_label: str = "UCT"

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


def _step(parent: Node, chosen: Node, tree: SearchTree) -> SelectionStep:
    """One level of the descent as the selection rule saw it (no statistic has changed
    yet). A chance node's outcomes are drawn, whatever the rule: shown with their UCT
    values and no prior."""
    config = tree.config
    assert parent.state is not None
    decision = parent.outcomes is None
    rule = rule_of(tree) if decision else SELECTION_RULES["uct"]
    scores = rule.scores(parent, tree)
    priors = selection_priors(parent, tree) if decision and tree.rule.evaluated else None
    rave = rule.name == "rave" and bool(config.rave)
    bias = rule.name == "rave" and bool(config.progressive_bias)
    children = tuple(
        ChildScore(
            action=ch.action,
            label=parent.state.action_to_string(ch.action),
            visits=ch.visits,
            mean=ch.mean,
            uct=scores[i],
            proven=ch.proven,
            eligible=not (config.solver and ch.proven is not None),
            chosen=ch is chosen,
            prior=None if priors is None else priors[i],
            amaf_visits=ch.amaf_visits if rave else None,
            amaf_mean=ch.amaf_sum / ch.amaf_visits if rave and ch.amaf_visits else None,
            bias=ch.bias if bias else None,
        )
        for i, ch in enumerate(parent.children)
    )
    beta = rave_beta(config.rave, parent.visits) if rave else None
    return SelectionStep(
        node_id(parent), parent.to_play, parent.visits, children, chosen.action, beta
    )


def _evaluator_name(evaluator: object) -> str:
    """A PUCT evaluator's name: a built-in's, else its class's."""
    if isinstance(evaluator, str):
        return evaluator
    return str(getattr(evaluator, "name", None) or type(evaluator).__name__)


def _labels(state: State, actions: list[int]) -> tuple[str, ...]:
    labels = []
    s = state.clone()
    for a in actions:
        labels.append(s.action_to_string(a))
        s.apply_action(a)
    return tuple(labels)


class TraceRecorder:
    """What the phases of one iteration told (a
    :class:`~mctslab.search.reference.phases.Recorder`), turned into the trace's records.

    Made for ``tree`` before the iteration: its size then counts an expansion's new
    nodes, and its config says whether RAVE's statistics are compared."""

    def __init__(self, tree: SearchTree) -> None:
        self.nodes_before = tree.nodes
        self.rave = bool(tree.config.rave)
        self.selection: tuple[SelectionStep, ...] = ()
        self.expansion: Expansion | None = None
        self.end: State | None = None  # where the playout ended, if there was one
        self.playout_rewards: list[float] | None = None
        self.value: list[float] | None = None  # PUCT: the evaluator's value of the leaf
        self.path: list[Node] = []
        self.rewards: list[float] = []
        self.before: list[tuple[int, float, float, int | None]] = []
        self.amaf_before: list[list[int]] | None = None

    def selected(self, path: list[Node], tree: SearchTree) -> None:
        self.selection = tuple(_step(p, ch, tree) for p, ch in itertools.pairwise(path))

    def expanded(self, leaf: Node, child: Node, tree: SearchTree) -> None:
        assert leaf.state is not None
        added, left = tree.nodes - self.nodes_before, len(leaf.untried)
        if child is leaf:  # PUCT: the leaf evaluated, all its children added with priors
            parent_state = None if leaf.parent is None else leaf.parent.state
            self.expansion = Expansion(
                parent=node_id(leaf),
                node=node_id(leaf),
                action=leaf.action,
                label="" if parent_state is None else parent_state.action_to_string(leaf.action),
                added=added,
                untried_left=left,
                priors=tuple(
                    ChildPrior(ch.action, leaf.state.action_to_string(ch.action), ch.prior)
                    for ch in leaf.children
                ),
            )
        else:
            self.expansion = Expansion(
                parent=node_id(leaf),
                node=node_id(child),
                action=child.action,
                label=leaf.state.action_to_string(child.action),
                added=added,
                untried_left=left,
            )

    def played(self, start: Node, end: State, rewards: list[float]) -> None:
        self.end, self.playout_rewards = end, rewards

    def evaluated(self, leaf: Node, value: list[float] | None, rewards: list[float]) -> None:
        self.value = value

    def backing_up(self, path: list[Node], rewards: list[float]) -> None:
        # Phase 4 changes N, the value sums and proofs (and under RAVE the children's N~):
        # kept before, compared after.
        self.path, self.rewards = path, rewards
        self.before = [(n.visits, n.value_sum, n.mean, n.proven) for n in path]
        if self.rave:
            self.amaf_before = [[ch.amaf_visits for ch in n.children] for n in path]

    def simulation(self, tree: SearchTree) -> Simulation:
        """Phase 3's record: a playout, PUCT's evaluation, or a leaf's exact rewards."""
        leaf = self.path[-1]
        puct = puct_config(tree.config) if tree.rule.evaluated else None
        assert leaf.state is not None
        actions: list[int] = []
        cutoff = False
        if self.end is not None:
            actions = self.end.history()[len(leaf.state.history()) :]
            cutoff = not self.end.is_terminal()
        kind: LeafKind
        mixed = self.value is not None and self.end is not None  # a playout mixed in
        if self.value is not None:
            kind = "evaluation"
        elif self.end is not None:
            kind = "playout"
        else:
            kind = "terminal" if leaf.terminal else "proven"
        return Simulation(
            start=node_id(leaf),
            kind=kind,
            actions=tuple(actions),
            labels=_labels(leaf.state, actions),
            cutoff=cutoff,
            rewards=tuple(self.rewards),
            evaluator=_evaluator_name(puct.evaluator) if puct else None,
            value=None if self.value is None else tuple(self.value),
            playout_rewards=tuple(self.playout_rewards or ()) if mixed else None,
            mix=puct.mix if mixed and puct else 0.0,
        )

    def updates(self) -> tuple[Update, ...]:
        """Phase 4's records, leaf to root."""
        path, rewards = self.path, self.rewards
        amaf: list[int | None] = [None] * len(path)
        if self.amaf_before is not None:
            amaf = [
                sum(ch.amaf_visits != b for ch, b in zip(n.children, was, strict=True))
                for n, was in zip(path, self.amaf_before, strict=True)
            ]
        return tuple(
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
                amaf_updates=u,
            )
            for n, b, u in reversed(list(zip(path, self.before, amaf, strict=True)))
        )

    def trace(self, tree: SearchTree) -> IterationTrace:
        """The iteration's :class:`IterationTrace`, once :func:`iterate` has returned."""
        config, evaluated = tree.config, tree.rule.evaluated
        return IterationTrace(
            selection=self.selection,
            expansion=self.expansion,
            simulation=self.simulation(tree),
            backpropagation=self.updates(),
            root_visits=tree.root.visits,
            nodes=tree.nodes,
            c=puct_config(config).c if evaluated else config.c,
            selection_rule=tree.rule.family,
            rave=config.rave,
            progressive_bias=config.progressive_bias,
            rule=config.selection_rule,
            score_label=score_label(config),
        )


def score_label(config: SearchConfig) -> str:
    """The short name of the search's selection score (:attr:`RuleInfo.label`; under the
    RAVE rule with progressive bias alone, "UCT+PB")."""
    if config.selection_rule == "rave" and not config.rave:
        return "UCT+PB"
    return RULES[config.selection_rule].label


def traced_iteration(
    searcher: MCTS, state: State, game_info: GameInfo | None = None
) -> IterationTrace:
    """Run one iteration of ``searcher`` from ``state`` (its tree reused as by ``search``)
    and report what each phase did.

    The iteration is the engine's own :func:`~mctslab.search.reference.phases.iterate`,
    observed by a :class:`TraceRecorder`, with draws from the searcher's generator; traced
    iterations at one position continue one search (PUCT's root noise is drawn once, at
    the first). Raises :class:`~mctslab.core.errors.InvalidConfigError` for a terminal
    state, a root that MCTS-Solver has proven (a search would stop there) or a tree at
    ``max_nodes``.
    """
    last = searcher.tree
    tree = searcher.prepare(state, game_info)
    config, root = tree.config, tree.root
    if last is not None and last.root is root:
        # Steps at one position are one search in progress: PUCT's root noise, drawn
        # once per search, carries over from the step before.
        tree.root_priors, tree.noise_due = last.root_priors, last.noise_due
    if config.solver and root.proven is not None:
        raise InvalidConfigError("MCTS-Solver has proven the root: no iteration is left to run")
    if config.max_nodes is not None and tree.nodes >= config.max_nodes:
        raise InvalidConfigError(f"the tree is at max_nodes={config.max_nodes}: it cannot grow")
    recorder = TraceRecorder(tree)
    try:
        iterate(tree, recorder)
    except NodeBudgetReached:
        raise InvalidConfigError(
            f"the tree is at max_nodes={config.max_nodes}: it cannot grow"
        ) from None
    return recorder.trace(tree)
