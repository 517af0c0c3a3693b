"""Minimax baselines: the exact solver and the depth-limited "reference AI".

Both are negamax with alpha-beta pruning (Knuth and Moore 1975, "An analysis of
alpha-beta pruning") and a transposition table, over any two-player zero-sum
game of the State API:

- :func:`solve`: the exact game value for the player to move (1 win, 0 draw,
  -1 loss), every optimal action, and the number of nodes searched.
- :func:`alphabeta`: search ``depth`` plies and score the frontier with the
  game's ``heuristic()``: the classic reference AI MCTS players are measured
  against (e.g. the depth-4 minimax of the Bohnenspiel course project).
- :func:`iterative_deepening`: :func:`alphabeta` at depth 1, 2, 3, ... until a time
  budget runs out, playing the move of the deepest search that finished (Slate and
  Atkin 1977, Chess 4.5; the usual way a minimax player is given a clock). Each
  depth tries first the best moves the previous one found; it stops early once a
  search reached no frontier (the value is then the game's) or proved a win or a loss.

Values are on ``[-1, 1]``: terminal returns are mapped linearly from
``[min_utility, max_utility]``, heuristics are already there. Players may move
twice in a row (the sign flips only when the player to move changes).

Move ordering: the move stored in the transposition table first, then the
state's optional ``ordered_actions()`` (Connect Four: centre columns first),
else ascending action ids. Ties between equally good moves go to the first in
that order for :func:`alphabeta` and are all listed by :func:`solve`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Hashable
from dataclasses import asdict, dataclass
from typing import Any

from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import CHANCE, GameInfo, State, heuristic_or_none, state_key

__all__ = [
    "MAX_DEPTH",
    "PROGRESS_EVERY",
    "MinimaxResult",
    "ProgressFn",
    "SolveResult",
    "alphabeta",
    "iterative_deepening",
    "solve",
]

_EXACT, _LOWER, _UPPER = 0, 1, 2
_INF_DEPTH = 1 << 30
#: :func:`solve` calls its ``on_progress`` every this many nodes (a power of two: a mask test).
PROGRESS_EVERY = 1 << 12
#: :func:`iterative_deepening` reads the clock every this many nodes (a power of two).
CLOCK_EVERY = 1 << 8
#: The deepest :func:`iterative_deepening` goes: each ply is two Python frames, and
#: Python's default recursion limit is 1,000 (a Bohnenspiel end game with a few beans
#: circling deepens without end: the ply limit of 1,000 is far and nothing is exact).
MAX_DEPTH = 200
#: ``on_progress(nodes)``: told the nodes searched so far.
ProgressFn = Callable[[int], None]


@dataclass(frozen=True)
class SolveResult:
    """The exact value of a position for the player to move.

    ``outcome`` is 1 / 0 / -1 (win / draw / loss); ``value`` the value on
    ``[-1, 1]``; ``best_actions`` the moves that reach ``value``;
    ``action_values`` the exact value of every legal move when asked for
    (``solve(..., values=True)``), else empty.
    """

    value: float
    outcome: int
    best_actions: tuple[int, ...]
    action_values: tuple[tuple[int, float], ...]
    nodes: int
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class MinimaxResult:
    """The move a depth-limited search picks, its value on ``[-1, 1]``, nodes searched.

    ``depth`` is the depth searched (for :func:`iterative_deepening`, the deepest search
    that finished); ``exact`` says that the search reached no frontier, every line to the
    end of the game, or proved a win or a loss: ``value`` is then the game's value.
    """

    action: int
    value: float
    depth: int
    nodes: int
    seconds: float
    exact: bool = False


class _OutOfTime(Exception):
    """Raised inside a search when its deadline passes (caught by :func:`iterative_deepening`)."""


class _Negamax:
    """Negamax with alpha-beta and a transposition table ``key -> (depth, flag, value, move)``."""

    def __init__(
        self,
        info: GameInfo,
        max_nodes: int | None = None,
        on_progress: ProgressFn | None = None,
    ) -> None:
        self.lo, self.span = info.min_utility, info.max_utility - info.min_utility
        self.tt: dict[Hashable, tuple[int, int, float, int]] = {}
        self.nodes = 0
        self.max_nodes = max_nodes
        self.on_progress = on_progress
        self.progress_mask = PROGRESS_EVERY - 1
        self.deadline: float | None = None  # perf_counter() time past which to stop
        self.cut = False  # whether the heuristic scored a frontier position
        #: The best move found at a position by an earlier, shallower search (move ordering).
        self.hints: dict[Hashable, int] = {}

    def terminal_value(self, state: State, me: int) -> float:
        return 2.0 * (state.returns()[me] - self.lo) / self.span - 1.0

    def ordered(self, state: State, first: int) -> list[int]:
        order = getattr(state, "ordered_actions", None)
        actions: list[int] = order() if order is not None else state.legal_actions()
        if first >= 0 and first in actions:
            actions.remove(first)
            actions.insert(0, first)
        return actions

    def child_value(self, child: State, me: int, depth: int, alpha: float, beta: float) -> float:
        """Value of ``child`` for ``me`` (the player who moved into it)."""
        if child.is_terminal():
            self.nodes += 1
            return self.terminal_value(child, me)
        if child.current_player() == me:
            return self.search(child, depth - 1, alpha, beta)
        return -self.search(child, depth - 1, -beta, -alpha)

    def search(self, state: State, depth: int, alpha: float, beta: float) -> float:
        """Value of a non-terminal ``state`` for its player to move, within ``(alpha, beta)``."""
        self.nodes += 1
        if self.max_nodes is not None and self.nodes > self.max_nodes:
            raise InvalidConfigError(f"the search exceeded max_nodes={self.max_nodes}")
        if self.on_progress is not None and not self.nodes & self.progress_mask:
            self.on_progress(self.nodes)
        if (
            self.deadline is not None
            and not self.nodes & (CLOCK_EVERY - 1)
            and time.perf_counter() > self.deadline
        ):
            raise _OutOfTime
        me = state.current_player()
        if me == CHANCE:
            raise InvalidConfigError("minimax does not take games with chance nodes")
        if depth <= 0:
            h = heuristic_or_none(state)
            if h is None:
                raise InvalidConfigError("depth-limited minimax needs the game's heuristic()")
            self.cut = True
            return h[me]
        key = state_key(state)
        entry = self.tt.get(key)
        first = self.hints.get(key, -1)
        if entry is not None:
            e_depth, flag, value, first = entry
            if e_depth >= depth and (
                flag == _EXACT
                or (flag == _LOWER and value >= beta)
                or (flag == _UPPER and value <= alpha)
            ):
                return value
        alpha0 = alpha
        best, best_move = -math.inf, -1
        for a in self.ordered(state, first):
            v = self.child_value(state.child(a), me, depth, alpha, beta)
            if v > best:
                best, best_move = v, a
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        break
        flag = _UPPER if best <= alpha0 else _LOWER if best >= beta else _EXACT
        self.tt[key] = (depth, flag, best, best_move)
        return best

    def root(self, state: State, depth: int, first: int) -> tuple[int, float]:
        """The best move at ``state`` searched to ``depth`` (``first`` tried first) and its
        value for the player to move; ties go to the first move in the order."""
        me = state.current_player()
        best_action, best = -1, -math.inf
        alpha = -math.inf
        for a in self.ordered(state, first):
            v = self.child_value(state.child(a), me, depth, alpha, math.inf)
            if v > best:
                best_action, best = a, v
                alpha = max(alpha, v)
        return best_action, best


def _check(state: State, info: GameInfo) -> None:
    if info.num_players != 2 or not info.zero_sum:
        raise InvalidConfigError(f"minimax needs a two-player zero-sum game; {info.name} is not")
    if state.is_terminal():
        raise InvalidConfigError("cannot search a terminal state: the game is over")


def _info(state: State, game_info: GameInfo | None) -> GameInfo:
    if game_info is not None:
        return game_info
    info = getattr(getattr(state, "game", None), "info", None)
    if not isinstance(info, GameInfo):
        raise InvalidConfigError("pass game_info=game.info: the state has no .game to read it from")
    return info


def solve(
    state: State,
    game_info: GameInfo | None = None,
    max_nodes: int | None = None,
    values: bool = False,
    on_progress: ProgressFn | None = None,
) -> SolveResult:
    """Solve ``state`` exactly: its value for the player to move and every optimal action.

    Optimal moves are found with a null-window test per move (is it at least the
    root value?), far cheaper than an exact value per move; ``values=True`` asks
    for the exact value of every move as well (``action_values``). ``max_nodes``
    bounds the work: beyond it an ``InvalidConfigError`` is raised.
    ``on_progress(nodes)`` is called every :data:`PROGRESS_EVERY` nodes (a solve of
    a large game can run for hours: the caller can show that it is alive).

    >>> import mctslab
    >>> solve(mctslab.make("tic_tac_toe").new_initial_state()).outcome
    0
    """
    info = _info(state, game_info)
    _check(state, info)
    start = time.perf_counter()
    engine = _Negamax(info, max_nodes, on_progress)
    me = state.current_player()
    value = engine.search(state, _INF_DEPTH, -1.0, 1.0) + 0.0  # + 0.0: no -0.0
    best: list[int] = []
    action_values: list[tuple[int, float]] = []
    eps = 1e-9
    for a in state.legal_actions():
        child = state.child(a)
        if values:
            v = engine.child_value(child, me, _INF_DEPTH, -1.0, 1.0) + 0.0
            action_values.append((a, v))
            optimal = v >= value - eps
        else:  # fails high (>= value) exactly when the move is optimal
            optimal = engine.child_value(child, me, _INF_DEPTH, value - eps, value) >= value
        if optimal:
            best.append(a)
    outcome = (value > eps) - (value < -eps)
    return SolveResult(
        value=value,
        outcome=outcome,
        best_actions=tuple(best),
        action_values=tuple(action_values),
        nodes=engine.nodes,
        seconds=time.perf_counter() - start,
    )


def alphabeta(state: State, depth: int, game_info: GameInfo | None = None) -> MinimaxResult:
    """Depth-limited alpha-beta with the game's heuristic at the frontier."""
    if not isinstance(depth, int) or isinstance(depth, bool) or depth < 1:
        raise InvalidConfigError(f"depth must be a positive integer, got {depth!r}")
    info = _info(state, game_info)
    _check(state, info)
    start = time.perf_counter()
    engine = _Negamax(info)
    best_action, best = engine.root(state, depth, -1)
    return MinimaxResult(
        action=best_action,
        value=best,
        depth=depth,
        nodes=engine.nodes,
        seconds=time.perf_counter() - start,
        exact=not engine.cut or abs(best) >= 1.0,
    )


def iterative_deepening(
    state: State,
    time_budget: float,
    game_info: GameInfo | None = None,
    max_depth: int | None = None,
) -> MinimaxResult:
    """Alpha-beta at depth 1, 2, 3, ... until ``time_budget`` seconds have passed (or
    ``max_depth``), the move of the deepest search that finished.

    Depth 1 always finishes (a move is always found, however short the budget); a deeper
    search the clock interrupts is dropped, and the result says the depth that finished.
    It never goes deeper than the plies left before the game's ``max_game_length`` (the
    whole rest of the game), nor than :data:`MAX_DEPTH`.
    Each depth starts from a fresh transposition table of values but tries first the
    moves the shallower searches found best (the root's best move included). The
    deepening stops early when a search is ``exact``: it scored no frontier position
    with the heuristic (every line reached the end of the game), or its value is a
    proven win or loss (``+-1``).

    >>> import mctslab
    >>> game = mctslab.make("tic_tac_toe")
    >>> result = iterative_deepening(game.new_initial_state(), 5.0)
    >>> result.exact, result.value, result.depth <= 9
    (True, 0.0, True)
    """
    if (
        not isinstance(time_budget, int | float)
        or isinstance(time_budget, bool)
        or not math.isfinite(time_budget)
        or time_budget <= 0
    ):
        raise InvalidConfigError(
            f"the time budget must be a positive number of seconds, got {time_budget!r}"
        )
    if max_depth is not None and (
        not isinstance(max_depth, int) or isinstance(max_depth, bool) or max_depth < 1
    ):
        raise InvalidConfigError(f"max_depth must be a positive integer, got {max_depth!r}")
    info = _info(state, game_info)
    _check(state, info)
    start = time.perf_counter()
    engine = _Negamax(info)
    left = info.max_game_length - len(state.history())
    deepest = min(MAX_DEPTH, max(1, left), max_depth or MAX_DEPTH)
    action, value, depth, exact = -1, 0.0, 0, False
    while depth < deepest:
        engine.tt, engine.cut = {}, False
        engine.deadline = None if depth == 0 else start + time_budget
        try:
            found = engine.root(state, depth + 1, action)
        except _OutOfTime:
            break
        # The values table's best moves become the next depth's first tries.
        engine.hints.update((key, entry[3]) for key, entry in engine.tt.items())
        (action, value), depth = found, depth + 1
        exact = not engine.cut or abs(value) >= 1.0
        if exact or time.perf_counter() - start >= time_budget:
            break
    return MinimaxResult(
        action=action,
        value=value + 0.0,
        depth=depth,
        nodes=engine.nodes,
        seconds=time.perf_counter() - start,
        exact=exact,
    )
