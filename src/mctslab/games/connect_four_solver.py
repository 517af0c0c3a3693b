"""An exact Connect Four solver (standard 6x7 board), compiled with numba.

A port of Pascal Pons's solver: "Solving Connect 4: how to build a perfect AI"
(http://blog.gamesolver.org/solving-connect-four/) and its C++ code
(https://github.com/PascalPons/connect4, ``Position.hpp`` and ``Solver.cpp``):

- bitboards: ``position`` (the stones of the side to move) and ``mask`` (all
  stones), one 7-bit column per 6 rows plus an empty sentinel bit, bit
  ``column * 7 + row`` with row 0 at the bottom (the layout of
  :mod:`mctslab.games.connect_four`);
- negamax with alpha-beta, the score window narrowed by the bounds the number of
  stones left allows;
- a transposition table, one numpy ``int64`` array of ``key << 8 | value`` entries
  indexed by a multiplicative hash of the key ``position + mask`` (a unique key
  for a position), storing an upper bound (after a fail-low or an exact value) or
  a lower bound (after a fail-high), as in Pons's final code;
- only "non-losing" moves are searched (never a move that lets the opponent win at
  once; with two opponent threats the position is lost), immediate wins are
  detected before searching;
- moves ordered by the number of winning threats they create, ties centre first;
- the root: iterative null-window searches that bisect the score range (Pons's
  ``solve``, with his bias of the probes towards small absolute scores).

Scoring (Pons's): the score of a position is for the side to move; a win with the
``n``-th stone of the game (that stone counted) scores ``(44 - n) // 2`` for the
winner (``18`` for the fastest possible win, with the 7th stone; ``1`` for a win with
the 41st or 42nd), the loser gets its negation, a draw is 0. That is the score of
Pons's test sets, written ``(43 - moves) / 2`` for a side that wins with its next
stone when ``moves`` stones are already down.

Players and columns agree with ``mctslab.make("connect_four")``: player 0 (``x``)
moves first, moves are 0-based columns from the left (Pons's and the test files'
moves are 1-based).

Example (not a doctest: tests/test_doctests.py keeps the list of doctested modules)::

    solver = ConnectFourSolver()
    solver.score([1, 1, 4, 4, 3, 3])  # 18: the side to move wins with its next stone
    solver.move_scores([3, 3, 3, 3, 3, 3])  # {column: score} for every legal move
    solver.best_moves([3, 3, 3, 3, 3, 3])  # the columns of the best score
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numba import njit

from mctslab.core.errors import InvalidConfigError

__all__ = ["MAX_SCORE", "MIN_SCORE", "ConnectFourSolver", "score_of_win"]

WIDTH = 7
HEIGHT = 6
_CELLS = WIDTH * HEIGHT
#: The lowest score a position can have: lost to the opponent's 4th stone (-18).
MIN_SCORE = -(_CELLS // 2) + 3
#: The highest score: a win with the side's 4th stone, the 7th of the game (18).
MAX_SCORE = (_CELLS + 1) // 2 - 3

_H1 = HEIGHT + 1
_BOTTOM = sum(1 << (c * _H1) for c in range(WIDTH))  # the bottom cell of every column
_BOARD = _BOTTOM * ((1 << HEIGHT) - 1)  # every playable cell
_COLUMN_ORDER = np.array([3, 2, 4, 1, 5, 0, 6], dtype=np.int64)  # centre first
_HASH = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing (Knuth, TAOCP 6.4)


def score_of_win(stone: int) -> int:
    """The winner's score of a win with the ``stone``-th stone of the game: ``(44 - stone) // 2``."""
    return (_CELLS + 2 - stone) // 2


# --- bitboard primitives (Pons's Position.hpp) --------------------------------------


@njit(cache=True, inline="always")
def _popcount(x):  # type: ignore[no-untyped-def]
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@njit(cache=True)
def _winning_cells(position, mask):  # type: ignore[no-untyped-def]
    """The empty cells where one more stone of ``position`` makes four in a row."""
    h = _H1 - 1  # 6: the shift of one diagonal; _H1 (7) horizontal, _H1 + 1 (8) the other
    # vertical
    r = (position << 1) & (position << 2) & (position << 3)
    # horizontal
    p = (position << _H1) & (position << (2 * _H1))
    r |= p & (position << (3 * _H1))
    r |= p & (position >> _H1)
    p = (position >> _H1) & (position >> (2 * _H1))
    r |= p & (position << _H1)
    r |= p & (position >> (3 * _H1))
    # diagonal 1
    p = (position << h) & (position << (2 * h))
    r |= p & (position << (3 * h))
    r |= p & (position >> h)
    p = (position >> h) & (position >> (2 * h))
    r |= p & (position << h)
    r |= p & (position >> (3 * h))
    # diagonal 2
    d = _H1 + 1
    p = (position << d) & (position << (2 * d))
    r |= p & (position << (3 * d))
    r |= p & (position >> d)
    p = (position >> d) & (position >> (2 * d))
    r |= p & (position << d)
    r |= p & (position >> (3 * d))
    return r & (_BOARD ^ mask)


@njit(cache=True, inline="always")
def _possible(mask):  # type: ignore[no-untyped-def]
    """The cell each non-full column would take next."""
    return (mask + _BOTTOM) & _BOARD


@njit(cache=True, inline="always")
def _column_mask(col):  # type: ignore[no-untyped-def]
    return ((np.int64(1) << HEIGHT) - 1) << (col * _H1)


@njit(cache=True, inline="always")
def _can_win_next(position, mask):  # type: ignore[no-untyped-def]
    return (_winning_cells(position, mask) & _possible(mask)) != 0


@njit(cache=True)
def _non_losing_moves(position, mask):  # type: ignore[no-untyped-def]
    """The playable cells that neither leave an opponent's immediate win open nor put a
    stone under one; 0 when every move loses (also with two opponent threats)."""
    possible = _possible(mask)
    opponent_win = _winning_cells(position ^ mask, mask)
    forced = possible & opponent_win
    if forced:
        if forced & (forced - 1):  # two immediate threats: lost
            return np.int64(0)
        possible = forced
    return possible & ~(opponent_win >> 1)


# --- transposition table ----------------------------------------------------------


@njit(cache=True, inline="always")
def _slot(key, bits):  # type: ignore[no-untyped-def]
    return np.int64((np.uint64(key) * _HASH) >> np.uint64(64 - bits))


# Stored values (0 = empty slot), as in Pons's final Solver.cpp:
#   upper bound u: u - MIN_SCORE + 1                  in [1, MAX - MIN + 1]
#   lower bound l: l + MAX_SCORE - 2 * MIN_SCORE + 2  in [MAX - MIN + 2, 2 * (MAX - MIN) + 2]
_UPPER_TOP = MAX_SCORE - MIN_SCORE + 1


# --- search (Pons's Solver.cpp) ---------------------------------------------------


@njit(cache=True)
def _negamax(position, mask, moves, alpha, beta, table, bits, stack, nodes):  # type: ignore[no-untyped-def]
    """The score of a position whose side to move cannot win at once, within
    ``(alpha, beta)``: exact inside, a bound outside (fail-soft as Pons's)."""
    nodes[0] += 1
    nxt = _non_losing_moves(position, mask)
    if nxt == 0:  # the opponent wins with its next stone
        return -((_CELLS - moves) // 2)
    if moves >= _CELLS - 2:  # the last two stones win nothing: a draw
        return 0
    lo = -((_CELLS - 2 - moves) // 2)  # the opponent cannot win with its next stone
    if alpha < lo:
        alpha = lo
        if alpha >= beta:
            return alpha
    hi = (_CELLS - 1 - moves) // 2  # we cannot win with our next stone
    if beta > hi:
        beta = hi
        if alpha >= beta:
            return beta
    key = position + mask
    slot = _slot(key, bits)
    entry = table[slot]
    if entry >> 8 == key:
        v = entry & 0xFF
        if v > _UPPER_TOP:
            lo = v + 2 * MIN_SCORE - MAX_SCORE - 2
            if alpha < lo:
                alpha = lo
                if alpha >= beta:
                    return alpha
        elif v > 0:
            hi = v + MIN_SCORE - 1
            if beta > hi:
                beta = hi
                if alpha >= beta:
                    return beta
    # move sorter: insertion by the number of threats; equal scores keep the later
    # addition on top, so with columns added edge first the centre goes first
    n = 0
    for i in range(WIDTH - 1, -1, -1):
        move = nxt & _column_mask(_COLUMN_ORDER[i])
        if move:
            s = _popcount(_winning_cells(position | move, mask))
            j = n
            while j > 0 and stack[moves, 1, j - 1] > s:
                stack[moves, 0, j] = stack[moves, 0, j - 1]
                stack[moves, 1, j] = stack[moves, 1, j - 1]
                j -= 1
            stack[moves, 0, j] = move
            stack[moves, 1, j] = s
            n += 1
    opponent = position ^ mask
    while n > 0:
        n -= 1
        move = stack[moves, 0, n]
        score = -_negamax(
            opponent, mask | move, moves + 1, -beta, -alpha, table, bits, stack, nodes
        )
        if score >= beta:
            table[slot] = key << 8 | (score + MAX_SCORE - 2 * MIN_SCORE + 2)
            return score
        if score > alpha:
            alpha = score
    table[slot] = key << 8 | (alpha - MIN_SCORE + 1)
    return alpha


@njit(cache=True, inline="always")
def _half(x):  # type: ignore[no-untyped-def]
    """``x / 2`` rounded towards zero, as C++ divides."""
    return x // 2 if x >= 0 else -((-x) // 2)


@njit(cache=True)
def _solve(position, mask, moves, table, bits, stack, nodes):  # type: ignore[no-untyped-def]
    """The exact score of a position that is neither won nor full, for the side to move."""
    return _solve_within(position, mask, moves, MIN_SCORE - 1, table, bits, stack, nodes)


@njit(cache=True)
def _solve_within(position, mask, moves, floor, table, bits, stack, nodes):  # type: ignore[no-untyped-def]
    """:func:`_solve` of a position known to score at least ``floor``."""
    if _can_win_next(position, mask):
        return (_CELLS + 1 - moves) // 2
    lo = max(-((_CELLS - moves) // 2), floor)
    hi = (_CELLS + 1 - moves) // 2
    while lo < hi:  # null-window probes, each halving [lo, hi], near 0 first
        med = lo + (hi - lo) // 2
        if med <= 0 and _half(lo) < med:
            med = _half(lo)
        elif med >= 0 and _half(hi) > med:
            med = _half(hi)
        r = _negamax(position, mask, moves, med, med + 1, table, bits, stack, nodes)
        if r <= med:
            hi = r
        else:
            lo = r
    return lo


@njit(cache=True)
def _move_scores(position, mask, moves, out, table, bits, stack, nodes):  # type: ignore[no-untyped-def]
    """``out[c]``: the exact score of playing column ``c`` for the side to move, or
    ``MIN_SCORE - 1`` (an impossible score) where column ``c`` is full.

    The position is solved first (score ``v``): no move then scores above ``v``, so
    the opponent's score after any move is at least ``-v``, which narrows its search."""
    v = _solve(position, mask, moves, table, bits, stack, nodes)
    wins = _winning_cells(position, mask)
    opponent = position ^ mask
    for c in range(WIDTH):
        if mask & np.int64(1) << (c * _H1 + HEIGHT - 1):
            out[c] = MIN_SCORE - 1
            continue
        move = (mask + (np.int64(1) << (c * _H1))) & _column_mask(c)
        if move & wins:
            out[c] = (_CELLS + 1 - moves) // 2
        elif moves + 1 == _CELLS:
            out[c] = 0
        else:
            out[c] = -_solve_within(opponent, mask | move, moves + 1, -v, table, bits, stack, nodes)


@njit(cache=True)
def _best_moves(position, mask, moves, out, table, bits, stack, nodes):  # type: ignore[no-untyped-def]
    """``out[c]``: 1 where column ``c`` is an optimal move, else 0; returns the score.

    One exact solve of the position (score ``v``), then one null-window test a move
    (does the position it leads to score ``<= -v`` for the opponent?): far fewer
    nodes than the exact score of every move."""
    v = _solve(position, mask, moves, table, bits, stack, nodes)
    wins = _winning_cells(position, mask)
    opponent = position ^ mask
    for c in range(WIDTH):
        out[c] = 0
        if mask & np.int64(1) << (c * _H1 + HEIGHT - 1):
            continue
        move = (mask + (np.int64(1) << (c * _H1))) & _column_mask(c)
        child = mask | move
        if move & wins:
            s = (_CELLS + 1 - moves) // 2
        elif moves + 1 == _CELLS:
            s = 0
        elif _can_win_next(opponent, child):
            s = -((_CELLS - moves) // 2)
        else:
            r = _negamax(opponent, child, moves + 1, -v, -v + 1, table, bits, stack, nodes)
            s = v if r <= -v else v - 1  # only "at least v or not" matters
        if s >= v:
            out[c] = 1
    return v


# --- the public class ---------------------------------------------------------------


class ConnectFourSolver:
    """Exact scores of Connect Four positions on the standard 6x7 board (Pons's solver).

    Scores are for the side to move: a win with the ``n``-th stone of the game (that
    stone counted) scores ``(44 - n) // 2``, a loss the negation, a draw 0. Positions
    are the 0-based column sequences played from the empty board (player 0 first),
    as ``mctslab.make("connect_four")`` numbers its actions.

    ``table_size`` is the number of transposition-table entries, a power of two
    (``2**23`` by default: 64 MiB, one ``int64`` an entry); the table lives as long as the solver and is
    shared by every query (its entries are exact facts about positions, so
    queries only speed each other up); :meth:`reset` empties it, as does
    ``reset=True`` on a query. ``nodes`` counts the positions searched.
    """

    def __init__(self, table_size: int = 1 << 23, rows: int = 6, columns: int = 7) -> None:
        if (rows, columns) != (HEIGHT, WIDTH):
            raise InvalidConfigError(
                f"connect_four_solver: only the standard 6x7 board is solved, not {rows}x{columns}"
            )
        if (
            not isinstance(table_size, int)
            or isinstance(table_size, bool)
            or table_size < 2
            or table_size & (table_size - 1)
            or table_size > 1 << 32
        ):
            raise InvalidConfigError(
                "connect_four_solver: table_size must be a power of two in [2, 2**32]"
            )
        self.table_size = table_size
        self._bits = table_size.bit_length() - 1
        self._table = np.zeros(table_size, dtype=np.int64)
        self._stack = np.zeros((_CELLS + 1, 2, WIDTH), dtype=np.int64)
        self._nodes = np.zeros(1, dtype=np.int64)

    @property
    def nodes(self) -> int:
        """Positions searched since the solver was made (or :meth:`reset`)."""
        return int(self._nodes[0])

    def reset(self) -> None:
        """Empty the transposition table and zero the node counter."""
        self._table[:] = 0
        self._nodes[0] = 0

    @staticmethod
    def _position(moves: Sequence[int]) -> tuple[int, int, int]:
        """``(position, mask, stones)`` after ``moves``; raises ``InvalidConfigError``
        for an illegal sequence or a position that is already won or full."""
        position = mask = 0
        n = 0
        for m in moves:
            if isinstance(m, bool) or not isinstance(m, int | np.integer) or not 0 <= m < WIDTH:
                raise InvalidConfigError(
                    f"connect_four_solver: move {n + 1} ({m!r}) is not a column in [0, {WIDTH})"
                )
            col = int(m)
            if mask & (1 << (col * _H1 + HEIGHT - 1)):
                raise InvalidConfigError(
                    f"connect_four_solver: move {n + 1} plays column {col}, which is full"
                )
            move = (mask + (1 << (col * _H1))) & (((1 << HEIGHT) - 1) << (col * _H1))
            if int(_winning_cells(position, mask)) & move:
                raise InvalidConfigError(
                    f"connect_four_solver: move {n + 1} (column {col}) wins: the game is over"
                    + ("" if n + 1 == len(moves) else " before the sequence ends")
                )
            position, mask = position ^ mask, mask | move
            n += 1
        if n == _CELLS:
            raise InvalidConfigError("connect_four_solver: the board is full: the game is over")
        return position, mask, n

    def score(self, moves: Sequence[int], reset: bool = False) -> int:
        """The exact score of the position after ``moves`` for its side to move."""
        position, mask, n = self._position(moves)
        if reset:
            self.reset()
        return int(
            _solve(
                np.int64(position),
                np.int64(mask),
                n,
                self._table,
                self._bits,
                self._stack,
                self._nodes,
            )
        )

    def move_scores(self, moves: Sequence[int], reset: bool = False) -> dict[int, int]:
        """``{column: score}`` for every legal move of the position after ``moves``: the
        exact score, for the side to move, of the position that move leads to (a move
        that wins at once scores ``(44 - n) // 2``, ``n`` the stones down after it)."""
        out = self._per_column(_move_scores, moves, reset)
        return {c: int(out[c]) for c in range(WIDTH) if out[c] >= MIN_SCORE}

    def best_moves(self, moves: Sequence[int], reset: bool = False) -> tuple[int, ...]:
        """The legal moves of maximal score, ascending (one exact solve of the position,
        then a null-window test a move: several times faster than :meth:`move_scores`)."""
        out = self._per_column(_best_moves, moves, reset)
        return tuple(c for c in range(WIDTH) if out[c])

    def _per_column(self, kernel: Any, moves: Sequence[int], reset: bool) -> np.ndarray:
        """``kernel``'s answer for each column of the position after ``moves``."""
        position, mask, n = self._position(moves)
        if reset:
            self.reset()
        out = np.zeros(WIDTH, dtype=np.int64)
        kernel(
            np.int64(position),
            np.int64(mask),
            n,
            out,
            self._table,
            self._bits,
            self._stack,
            self._nodes,
        )
        return out
