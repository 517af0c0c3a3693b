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
   avoids letting the opponent win at once (``"heavy"``), or a few random plies
   (the config's cut-off depth) scored with the game's ``heuristic()``
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

The engine's parts are modules by concept; this module defines the searcher alone, and
each part is imported from the module that defines it:

- :mod:`mctslab.search.config`: :class:`~mctslab.search.config.SearchConfig` (shared
  with the compiled twin, as are the three below);
- :mod:`mctslab.search.result`: :class:`~mctslab.search.result.SearchResult` and the
  final-move rules;
- :mod:`mctslab.search.solver`: MCTS-Solver's proofs and checks;
- :mod:`mctslab.search.budget`: the budget and early stop's lead (:func:`visit_lead`);
- :mod:`mctslab.search.reference.tree`: :class:`Node`, :class:`SearchTree`;
- :mod:`mctslab.search.reference.selection`: the selection rules (:func:`uct_score`,
  :func:`rave_score`, PUCT's and Gumbel's choices) and their registry,
  ``SELECTION_RULES``, from which ``SearchConfig.selection_rule`` picks;
- :mod:`mctslab.search.reference.phases`: :func:`select`, :func:`expand`,
  :func:`simulate`, :func:`backpropagate`, and :func:`iterate`, which calls them.

Here: :class:`MCTS` (tree reuse, the search loop) and :func:`search`.
"""

from __future__ import annotations

import math
import time

from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import CHANCE, GameInfo, State, heuristic_or_none, same_rules, state_key
from mctslab.core.rng import Rng
from mctslab.search.budget import SLICE, SLICE_SECONDS, Budget, visit_lead
from mctslab.search.config import SearchConfig, check_knowledge, check_puct
from mctslab.search.evaluators import Evaluator
from mctslab.search.reference.phases import iterate, iterate_batch
from mctslab.search.reference.tree import (
    Node,
    NodeBudgetReached,
    ReferenceReader,
    SearchTree,
    open_node,
    release_nodes,
)
from mctslab.search.result import SearchResult, Slices, make_result, rules_agree
from mctslab.search.rules import puct_config
from mctslab.search.solver import NotWinLossDrawError, check_solver

__all__ = ["MCTS", "game_info_of", "search"]


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

    @property
    def tree(self) -> SearchTree | None:
        """The tree of the last search (or of :meth:`prepare`), ``None`` before any."""
        return self._tree

    #: What a cap on this engine's tree counts: nodes of Python objects.
    node_kind = "reference"

    def reset(self) -> None:
        """Forget the tree (the generator keeps its stream)."""
        self.root = None
        self._root_history = []
        self._tree = None
        self._game, self._info = None, None

    def release(self) -> None:
        """Forget the tree and free it at once (:func:`release_nodes`: a tree is a
        reference cycle, which only a full garbage collection would free otherwise)."""
        root = self.root
        self.reset()
        release_nodes(root)

    def tree_reader(self) -> ReferenceReader | None:
        """A reader of the kept tree (what the tree view walks); ``None`` without one."""
        if self.root is None:
            return None
        return ReferenceReader(self.root, self._root_history, self.config.rule.evaluated)

    def tree_size(self) -> tuple[int, int]:
        """``(nodes, root visits)`` of the kept tree; ``(0, 0)`` without one."""
        tree = self._tree
        if tree is None or self.root is None:
            return 0, 0
        return tree.nodes, tree.root.visits

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

    def _root_for(self, state: State, info: GameInfo, reuse: bool) -> Node:
        """The kept node of ``state`` if the tree can be reused, else a new root.

        A kept tree is reused only for the same rules (:func:`mctslab.core.game.same_rules`:
        the game's class, info, version and parameters) and a history that extends the
        kept root's; the node found must hold the same position as ``state``.
        """
        history = state.history()
        game = getattr(state, "game", None)
        old = self.root
        if old is not None and reuse and info == self._info and same_rules(game, self._game):
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

    def search(
        self,
        state: State,
        game_info: GameInfo | None = None,
        *,
        config: SearchConfig | None = None,
    ) -> SearchResult:
        """Search from ``state`` within the budget (of ``config``, by default the
        searcher's own) and return the chosen move and statistics."""
        tree = self.prepare(state, game_info, config)
        try:
            return _run(tree)
        except NotWinLossDrawError:
            self.reset()  # the iteration stopped half-way: the tree is not kept
            raise

    def search_slices(
        self,
        state: State,
        game_info: GameInfo | None = None,
        *,
        config: SearchConfig | None = None,
        slice_seconds: float = SLICE_SECONDS,
    ) -> Slices:
        """:meth:`search` in slices of about ``slice_seconds`` of search, a result after
        each (see :class:`mctslab.search.engine.Searcher`): the loop of :meth:`search`,
        which looks at the clock between iterations to end a slice, so that run to its
        end it builds the same tree and returns the same result."""
        tree = self.prepare(state, game_info, config)
        try:
            yield from _slices(tree, slice_seconds)
        except NotWinLossDrawError:
            self.reset()
            raise

    def prepare(
        self,
        state: State,
        game_info: GameInfo | None = None,
        config: SearchConfig | None = None,
    ) -> SearchTree:
        """Check the config (``config``, by default the searcher's own) against the game
        and set up the tree for ``state`` (reused where it can be): what :meth:`search`
        and the step-by-step tracer start from."""
        config = config or self.config
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
        if config.knowledge:
            check_knowledge(state, info)
        if config.rule.evaluated:
            check_puct(config, info, state)
            if self._evaluator is None:
                self._evaluator = puct_config(config).make_evaluator()
        if config.rule.root_halving:
            self.reset()  # Sequential Halving plans its budget from an empty root
        root = self._root_for(state, info, config.reuse_tree)
        root.player = -1
        last = self._tree
        # The same root as last time (more searches of one position): its count is known,
        # which spares walking a large tree again.
        nodes = last.nodes if last is not None and last.root is root else None
        tree = SearchTree(root, info, config, self.rng, nodes)
        tree.evaluator = self._evaluator
        if not root.opened:
            open_node(root, state.clone(), tree)
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
    """The :class:`~mctslab.core.game.GameInfo` of ``state``'s game (``state.game.info``);
    :class:`~mctslab.core.errors.InvalidConfigError` if the state has no ``.game``."""
    game = getattr(state, "game", None)
    info = getattr(game, "info", None)
    if not isinstance(info, GameInfo):
        raise InvalidConfigError(
            "pass game_info=game.info: the state has no .game attribute to read it from"
        )
    return info


def _run(tree: SearchTree) -> SearchResult:
    """The search loop (:func:`_slices` in one slice): the four phases, repeated until
    the budget is spent."""
    return next(_slices(tree, None))  # in one slice, the only result is the final one


def _slices(tree: SearchTree, slice_seconds: float | None) -> Slices:
    """The search loop in slices of ``slice_seconds`` of search (``None``: one slice):
    the four phases, repeated until the budget is spent; at the end of each slice an
    interim result (``stopped_by`` :data:`~mctslab.search.budget.SLICE`), the clock
    stopped until the next slice is asked for (``send`` a number: its seconds)."""
    config, root = tree.config, tree.root
    budget = Budget.of(config)
    batch = puct_config(config).batch if config.rule.evaluated else 1  # PUCT's leaves a round

    def agree() -> bool:
        return rules_agree(root.children)

    def lead() -> int:
        return visit_lead([ch.visits for ch in root.children])

    start = time.perf_counter()
    searched = 0.0  # the seconds of search of the slices before this one
    slice_end = math.inf if slice_seconds is None else start + slice_seconds
    iterations = first = 0  # first: the iterations when this slice began
    while True:
        if config.solver and root.proven is not None:
            stopped_by = "proven"
            break
        if config.max_nodes is not None and tree.nodes >= config.max_nodes:
            stopped_by = "nodes"
            break
        now = time.perf_counter() if budget.timed or slice_seconds is not None else 0.0
        seconds = searched + now - start if budget.timed else 0.0
        stop = budget.stop(iterations, seconds, agree=agree, lead=lead)
        if stop is not None:
            stopped_by = stop
            break
        if now >= slice_end and iterations > first:
            length = slice_end - start
            searched += now - start
            asked = yield _result(tree, iterations, searched, SLICE, Rng(tree.rng.state))
            length = length if asked is None else asked
            start, first = time.perf_counter(), iterations
            slice_end = start + length
        try:
            if batch > 1:
                limit = batch
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
    seconds = searched + time.perf_counter() - start
    yield _result(tree, iterations, seconds, stopped_by, tree.rng)


def _result(
    tree: SearchTree, iterations: int, seconds: float, stopped_by: str, rng: Rng
) -> SearchResult:
    """The result of the tree as it stands (PUCT's temperature draws the move from
    ``rng``: the tree's own generator, or a copy for an interim result)."""
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
        rng=rng,
        gumbel=(tree.gumbel, root.raw),
    )


def search(
    state: State, config: SearchConfig | None = None, game_info: GameInfo | None = None
) -> SearchResult:
    """One search from ``state`` with a fresh tree: ``MCTS(config).search(state)``."""
    return MCTS(config).search(state, game_info)
