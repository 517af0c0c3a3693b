"""Single-Player Monte-Carlo Tree Search (Schadd, Winands, van den Herik, Chaslot and
Uiterwijk, "Single-Player Monte-Carlo Tree Search", Computers and Games 2008).

UCT for a puzzle: a child's score adds to UCT's a third term, a bound on how much the
child's results spread, so that a rarely tried child whose few results vary a lot is
tried again (in a puzzle one great result is worth finding, not an average)::

    v = x + c * sqrt(ln N_parent / N) + sqrt(S/N - x^2 + D / N)

``x`` the child's mean result, ``S`` the sum of its squared results, ``D`` a constant that
keeps the term large while ``N`` is small. Results are the games' scores, whatever their
range: a node keeps the raw sums, and selection reads them on the scale of the scores
this search has seen, ``(score - lo) / (hi - lo)`` (its mean shifted and divided by the
width, its variance divided by the width squared), so that ``c`` and ``D`` mean the same
on the travelling salesman's lengths and on SameGame's points. The paper's ``C = 0.5``,
``D = 10,000`` were on SameGame's raw points (widths of some thousands): ``D`` here is
in units of the width squared.

A run plays the game to the end: from each position ``iterations`` iterations (select by
``v``, expand one random untried child, play out uniformly at random, back up the score
and its square), then the first move of the best sequence found so far is played and its
subtree kept (the paper's "top score" rule). The best sequence any playout reached is
the answer; a budget left after a finished run starts another (the paper's randomized
restarts), from a fresh tree, the generator's stream going on. The reference version is
here, in the order of an iteration (:class:`SPRun`, :func:`iterate`, :func:`play_top_move`;
an :class:`SPRecorder` observes it for the web lab's step mode); the compiled one
(:mod:`mctslab.search.single.spmcts_compiled`) builds the same trees.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import GameInfo, State
from mctslab.core.options import option
from mctslab.core.rng import Rng
from mctslab.search.single.moves import Biases, Polisher, check_knowledge, knowledge, playout
from mctslab.search.single.result import (
    BestTracker,
    Budget,
    Improvement,
    OptimizeResult,
    OutOfBudget,
    Watch,
    check_single_player,
)

__all__ = [
    "SPMCTSConfig",
    "SPNode",
    "SPRecorder",
    "SPRun",
    "iterate",
    "play_top_move",
    "sp_score",
    "spmcts",
]


@dataclass(frozen=True)
class SPMCTSConfig:
    """SP-MCTS's options.

    Attributes:
        c: the exploration constant (the paper's ``C``: 0.5).
        d: the variance term's ``D``, in units of the scores' width squared.
        iterations: iterations from each position before a move is played.
        seed: the generator's seed.
        time, playouts: budgets (``None``: none); a finished run is followed by another
            (a randomized restart) while budget is left.
        target: stop once a sequence scores at least this (``None``: no target).
        runs: how many runs at most (``None``: as many as the budget allows; with no
            budget at all, one).
        bias, polish: the playouts' knowledge, as NMCS's
            (:func:`~mctslab.search.single.moves.playout`).
    """

    c: float = option(0.5, "the exploration constant C", low=0, high=1e6)
    d: float = option(0.01, "the variance term's D, in the scores' width squared", low=0, high=1e6)
    iterations: int = option(1000, "iterations from each position before a move", low=1, high=10**9)
    seed: int = option(0, "the generator's seed", spec=False)
    time: float | None = option(None, "a wall-clock budget in seconds (none: no limit)", spec=False)
    playouts: int | None = option(None, "a playout budget (none: no limit)", spec=False)
    target: float | None = option(None, "stop once a sequence scores at least this", spec=False)
    runs: int | None = option(None, "runs at most (none: as many as the budget allows)", spec=False)
    bias: float = option(
        0.0,
        "the weight beta of the game's move bias in the playouts (0: uniform)",
        low=0,
        high=1000,
    )
    polish: bool = option(False, "improve each playout's sequence by the game's local search")

    def __post_init__(self) -> None:
        where = "sp-mcts"
        check_knowledge(where, self.bias, self.polish)
        for name in ("c", "d"):
            v = getattr(self, name)
            if not isinstance(v, int | float) or isinstance(v, bool) or not 0 <= v <= 1e6:
                raise InvalidConfigError(f"{where}: {name} must be a number in [0, 1e6], got {v!r}")
        if (
            not isinstance(self.iterations, int)
            or isinstance(self.iterations, bool)
            or not 1 <= self.iterations <= 10**9
        ):
            raise InvalidConfigError(
                f"{where}: iterations must be an integer in [1, 10**9], got {self.iterations!r}"
            )
        if self.runs is not None and (not isinstance(self.runs, int) or self.runs < 1):
            raise InvalidConfigError(f"{where}: runs must be an integer >= 1, got {self.runs!r}")
        Budget.of(self)  # checks them

    @property
    def spec(self) -> str:
        return (
            f"sp-mcts:c={self.c:g},d={self.d:g},iterations={self.iterations},"
            + (f"bias={self.bias:g}," if self.bias else "")
            + ("polish=1," if self.polish else "")
            + f"seed={self.seed}"
        )


def sp_score(
    value_sum: float,
    squares: float,
    visits: int,
    log_parent: float,
    lo: float,
    width: float,
    c: float,
    d: float,
) -> float:
    """SP-MCTS's score of a visited child on the scale of the scores seen (``lo``, the
    lowest, and ``width = hi - lo``, 1 while all were equal)::

        x + c * sqrt(ln N_parent / N) + sqrt(max(0, S/N - x^2) + D / N)

    with ``x = (Q/N - lo) / width`` and ``S/N - x^2`` the raw variance divided by
    ``width^2``. Both engines call this function (numba compiles it as it is)."""
    mean = value_sum / visits
    variance = (squares / visits - mean * mean) / (width * width)
    x = (mean - lo) / width
    return x + c * math.sqrt(log_parent / visits) + math.sqrt(max(0.0, variance) + d / visits)


class SPNode:
    """A node of SP-MCTS's tree: its move, children, untried moves (ascending; the
    ``k``-th drawn is removed), visits, sum of scores and sum of squared scores."""

    __slots__ = ("action", "children", "squares", "terminal", "untried", "value_sum", "visits")

    def __init__(self, action: int, state: State) -> None:
        self.action = action
        self.children: list[SPNode] = []
        self.untried = state.legal_actions()
        self.terminal = state.is_terminal()
        self.visits = 0
        self.value_sum = 0.0
        self.squares = 0.0


class SPRun:
    """One run's search state: the root, the position and moves played, the scores' range,
    the run's best sequence and the nodes it made (its root included)."""

    def __init__(self, state: State, bias: Biases = None, polish: Polisher | None = None) -> None:
        self.bias, self.polish = bias, polish
        self.state = state.clone()
        self.root = SPNode(-1, self.state)
        self.prefix: list[int] = []
        self.lo = math.inf
        self.hi = -math.inf
        self.best = -math.inf
        self.best_seq: list[int] = []
        self.nodes = 1

    def scale(self) -> tuple[float, float]:
        """``(lo, width)``: the scale selection reads the scores on, ``(0, 1)`` while the
        scores seen are all equal."""
        if self.hi > self.lo:
            return self.lo, self.hi - self.lo
        return 0.0, 1.0


class SPRecorder(Protocol):
    """An observer of one iteration, told by :func:`iterate` what each phase did (the web
    lab's step mode, :mod:`mctslab.web.spmcts_step`, builds its trace from it, as
    :class:`mctslab.search.trace.TraceRecorder` observes the reference engine). A search
    passes none."""

    def selected(self, path: list[SPNode], lo: float, width: float) -> None:
        """Selection descended ``path`` (the root first) on the scale ``lo``, ``width``;
        no node has changed yet."""

    def expanded(self, node: SPNode, child: SPNode, untried: int) -> None:
        """Expansion drew ``child`` of ``node`` among its ``untried`` untried moves."""

    def played(self, moves: list[int], score: float) -> None:
        """The playout played ``moves`` to the end and scored ``score``."""

    def backed_up(self, path: list[SPNode]) -> None:
        """The score was added along ``path`` (the root first)."""


def _best_child(node: SPNode, lo: float, width: float, config: SPMCTSConfig) -> SPNode:
    """The child of highest :func:`sp_score` (the first of equal ones)."""
    log_parent = math.log(node.visits)
    best, best_v = node.children[0], -math.inf
    for ch in node.children:
        v = sp_score(ch.value_sum, ch.squares, ch.visits, log_parent, lo, width, config.c, config.d)
        if v > best_v:
            best, best_v = ch, v
    return best


def iterate(
    run: SPRun,
    config: SPMCTSConfig,
    rng: Rng,
    tracker: BestTracker,
    recorder: SPRecorder | None = None,
) -> None:
    """One iteration: select by :func:`sp_score`, expand one random untried child, play
    out, back up the score and its square. A ``recorder`` hears each phase."""
    node, s = run.root, run.state.clone()
    path = [node]
    lo, width = run.scale()
    while not node.untried and node.children:
        node = _best_child(node, lo, width, config)
        s.apply_action(node.action)
        path.append(node)
    if recorder is not None:
        recorder.selected(list(path), lo, width)
    if node.untried:
        untried = len(node.untried)
        a = node.untried.pop(rng.randint(untried))
        s.apply_action(a)
        child = SPNode(a, s)
        node.children.append(child)
        path.append(child)
        run.nodes += 1
        if recorder is not None:
            recorder.expanded(node, child, untried)
    tracker.check()
    moves: list[int] = []
    score = playout(s, rng, moves, run.bias, run.polish)
    if recorder is not None:
        recorder.played(moves, score)
    sequence = [*run.prefix, *(n.action for n in path[1:]), *moves]
    tracker.offer(score, sequence)
    if score > run.best:
        run.best, run.best_seq = score, sequence
    run.lo, run.hi = min(run.lo, score), max(run.hi, score)
    for n in path:
        n.visits += 1
        n.value_sum += score
        n.squares += score * score
    if recorder is not None:
        recorder.backed_up(path)


def play_top_move(run: SPRun) -> int:
    """The "top score" rule: play the first move of the run's best sequence and keep its
    subtree as the new root; the move played."""
    a = run.best_seq[len(run.prefix)]
    child = next((ch for ch in run.root.children if ch.action == a), None)
    run.state.apply_action(a)
    if child is None:  # the best sequence left the tree here: its move becomes a node
        run.root.untried.remove(a)
        child = SPNode(a, run.state)
        run.root.children.append(child)
        run.nodes += 1
    run.root = child
    run.prefix.append(a)
    return a


def _run(
    state: State,
    config: SPMCTSConfig,
    rng: Rng,
    tracker: BestTracker,
    bias: Biases = None,
    polish: Polisher | None = None,
) -> None:
    run = SPRun(state, bias, polish)
    while not run.state.is_terminal():
        for _ in range(config.iterations):
            iterate(run, config, rng, tracker)
        play_top_move(run)


def spmcts(
    state: State,
    config: SPMCTSConfig | None = None,
    info: GameInfo | None = None,
    on_improve: Callable[[Improvement], None] | None = None,
    watch: Watch | None = None,
) -> OptimizeResult:
    """Single-Player MCTS from ``state``: the best sequence found."""
    config = config or SPMCTSConfig()
    info = info or state.game.info  # type: ignore[attr-defined]
    check_single_player(state, info.num_players)
    budget = Budget.of(config, watch)
    tracker = BestTracker(budget, on_improve)
    rng = Rng(config.seed)
    bias, polish = knowledge(state, "sp-mcts", config.bias, config.polish)
    runs = 0
    most = config.runs or (1 if config.time is None and config.playouts is None else None)
    try:
        while most is None or runs < most:
            _run(state, config, rng, tracker, bias, polish)
            runs += 1
    except OutOfBudget:
        runs += 1
    return tracker.result(runs, config.spec)
