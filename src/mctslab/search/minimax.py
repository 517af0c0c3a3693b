"""Minimax baselines: the exact solver and the depth-limited "reference AI".

Both are negamax with alpha-beta pruning (Knuth and Moore 1975, "An analysis of
alpha-beta pruning") and a transposition table, over any two-player zero-sum
game of the State API:

- :func:`solve`: the exact game value for the player to move (1 win, 0 draw,
  -1 loss), every optimal action, and the number of nodes searched.
- :func:`alphabeta`: search ``depth`` plies and score the frontier with the
  game's ``heuristic()``: the classic reference AI MCTS players are measured
  against (e.g. the depth-4 minimax of the Bohnenspiel course project).

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

__all__ = ["PROGRESS_EVERY", "MinimaxResult", "ProgressFn", "SolveResult", "alphabeta", "solve"]

_EXACT, _LOWER, _UPPER = 0, 1, 2
_INF_DEPTH = 1 << 30
#: :func:`solve` calls its ``on_progress`` every this many nodes (a power of two: a mask test).
PROGRESS_EVERY = 1 << 12
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
    """The move a depth-limited search picks, its value on ``[-1, 1]``, nodes searched."""

    action: int
    value: float
    depth: int
    nodes: int
    seconds: float


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
        me = state.current_player()
        if me == CHANCE:
            raise InvalidConfigError("minimax does not take games with chance nodes")
        if depth <= 0:
            h = heuristic_or_none(state)
            if h is None:
                raise InvalidConfigError("depth-limited minimax needs the game's heuristic()")
            return h[me]
        key = state_key(state)
        entry = self.tt.get(key)
        first = -1
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
    me = state.current_player()
    best_action, best = -1, -math.inf
    alpha = -math.inf
    for a in engine.ordered(state, -1):
        v = engine.child_value(state.child(a), me, depth, alpha, math.inf)
        if v > best:
            best_action, best = a, v
            alpha = max(alpha, v)
    return MinimaxResult(
        action=best_action,
        value=best,
        depth=depth,
        nodes=engine.nodes,
        seconds=time.perf_counter() - start,
    )
