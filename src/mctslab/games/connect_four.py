"""Connect Four, with OpenSpiel's encodings and a configurable board.

Players: 0 (``x``) moves first, 1 (``o``) second. Action = column, 0-based from
the left, as in OpenSpiel's ``connect_four``. The first player to line up
``x_in_row`` (default 4) stones horizontally, vertically or diagonally wins
(+1/-1); a full board is a draw (0). Action names are the columns numbered from
1, as Connect Four solvers and their test sets write them.

State layout (``int64``), with ``R`` rows and ``C`` columns:
``[player, winner, moves, height_0 .. height_{C-1}, cell(0, 0) .. cell(R-1, C-1), bits_x, bits_o]``;
cell ``(r, c)`` is at ``3 + C + r * C + c`` with row 0 at the bottom; 0 empty,
1 ``x``, 2 ``o``. ``params = [R, C, x_in_row, bitboards]``.

Observation (the ``observation`` kernel): OpenSpiel's, shape ``(3, R, C)``, planes
``x``, ``o``, empty, row 0 at the bottom, the same for both players.

Where the board fits in 63 bits (``(R + 1) * C <= 63``, the standard 6x7 board
included), each side's stones are also kept as a bitboard, bit ``c * (R + 1) + r``
(a column of ``R + 1`` bits whose top bit stays empty, so that no line wraps
from one column to the next: Pons's layout), and a win is found with a few
shifts and ands; larger boards scan the cells around the new stone instead.

Its own random ``playout`` (the kernel contract's optional sixth kernel) keeps the
position in local words: the playable columns as a bit mask (the ``k``-th legal
column is the mask's ``k``-th set bit), the two bitboards, and the generator's state.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from mctslab.core.declarations import Rendering, winning_line
from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import TERMINAL, GameInfo
from mctslab.core.text import ascii_int
from mctslab.games.kernels import (
    KernelGame,
    KernelState,
    RuleKernels,
    draw_top31,
    rng_randint,
    winner_returns,
)
from mctslab.games.symmetry import Symmetry, mirror_symmetries

__all__ = ["ConnectFour"]


@njit(cache=True)
def init(params):  # type: ignore[no-untyped-def]
    rows, cols = params[0], params[1]
    s = np.zeros(3 + cols + rows * cols + 2, dtype=np.int64)
    s[1] = -1
    return s


@njit(cache=True)
def _bits_win(b, k, height):  # type: ignore[no-untyped-def]
    """Whether bitboard ``b`` holds ``k`` in a row: vertical (shift 1), horizontal
    (shift ``height``) or diagonal (``height - 1``, ``height + 1``)."""
    if k == 4:  # the usual game: two shifts a direction (Pons)
        m = b & (b >> height)
        if m & (m >> (2 * height)):
            return True
        m = b & (b >> (height - 1))
        if m & (m >> (2 * (height - 1))):
            return True
        m = b & (b >> (height + 1))
        if m & (m >> (2 * (height + 1))):
            return True
        m = b & (b >> 1)
        return (m & (m >> 2)) != 0
    for d in (1, height, height - 1, height + 1):
        t = b
        for i in range(1, k):
            shift = i * d
            if shift >= 63:
                t = 0
                break
            t &= b >> shift
        if t != 0:
            return True
    return False


@njit(cache=True)
def legal_actions(s, params, out):  # type: ignore[no-untyped-def]
    if s[0] < 0:
        return 0
    rows, cols = params[0], params[1]
    n = 0
    for c in range(cols):
        if s[3 + c] < rows:
            out[n] = c
            n += 1
    return n


@njit(cache=True)
def _run(s, params, r, c, dr, dc, mark):  # type: ignore[no-untyped-def]
    """Number of ``mark`` stones in a row from (r, c) exclusive, stepping (dr, dc)."""
    rows, cols = params[0], params[1]
    base = 3 + cols
    n = 0
    r += dr
    c += dc
    while 0 <= r < rows and 0 <= c < cols and s[base + r * cols + c] == mark:
        n += 1
        r += dr
        c += dc
    return n


@njit(cache=True)
def apply_action(s, params, a):  # type: ignore[no-untyped-def]
    rows, cols, k = params[0], params[1], params[2]
    p = s[0]
    mark = p + 1
    r = s[3 + a]
    s[3 + cols + r * cols + a] = mark
    s[3 + a] = r + 1
    s[2] += 1
    if params[3]:
        at = 3 + cols + rows * cols + p
        s[at] |= np.int64(1) << (a * (rows + 1) + r)
        won = _bits_win(s[at], k, rows + 1)
    else:
        won = (
            1 + _run(s, params, r, a, 0, 1, mark) + _run(s, params, r, a, 0, -1, mark) >= k
            or 1 + _run(s, params, r, a, -1, 0, mark) >= k
            or 1 + _run(s, params, r, a, 1, 1, mark) + _run(s, params, r, a, -1, -1, mark) >= k
            or 1 + _run(s, params, r, a, 1, -1, mark) + _run(s, params, r, a, -1, 1, mark) >= k
        )
    if won:
        s[1] = p
        s[0] = TERMINAL
    elif s[2] == rows * cols:
        s[0] = TERMINAL
    else:
        s[0] = 1 - p


returns = winner_returns  # the winner is kept in s[1]


def _kth_table() -> np.ndarray:
    """``_KTH[mask << 3 | j]``: the ``j``-th set bit of an 8-bit ``mask`` (0 if none)."""
    table = np.zeros(256 * 8, dtype=np.int8)
    for mask in range(256):
        for j, bit in enumerate(b for b in range(8) if mask >> b & 1):
            table[mask << 3 | j] = bit
    return table


# The j-th playable column by one load where there are at most 8 columns: the loop
# that finds it otherwise takes j turns and a mispredicted branch a ply.
_KTH = _kth_table()


@njit(cache=True)
def _reciprocal(d):  # type: ignore[no-untyped-def]
    """``(m, s)`` with ``x // d == (x * m) >> s`` for every ``x < 2**31`` (Granlund and
    Montgomery 1994): ``s = 31 + ceil(log2 d)``, ``m = ceil(2**s / d) < 2**32``, so
    ``x * m`` fits in 64 bits, and the error ``x * (m * d - 2**s) < 2**s`` never
    reaches the next multiple."""
    bits = 0
    while (1 << bits) < d:
        bits += 1
    s = 31 + bits
    return np.uint64(((1 << s) + d - 1) // d), np.uint64(s)


@njit(cache=True)
def playout(s, params, rng, out):  # type: ignore[no-untyped-def]
    """Uniformly random moves to the end, in place, drawing as the generic loop: at
    each ply the ``k``-th playable column from the left, ``k = rng_randint(rng, n)``.
    Returns the plies played; writes the returns to ``out``."""
    rows, cols, k = params[0], params[1], params[2]
    plies = 0
    if s[0] != TERMINAL and not params[3]:  # no bitboards: the generic rules, no buffer
        while s[0] != TERMINAL:
            n = 0
            for c in range(cols):
                n += s[3 + c] < rows
            j = rng_randint(rng, n)
            c = 0
            while s[3 + c] >= rows or j > 0:
                j -= s[3 + c] < rows
                c += 1
            apply_action(s, params, c)
            plies += 1
    elif s[0] != TERMINAL:
        # Why locals: the state array and the generator are memory the compiler must
        # assume may alias; words in registers cost nothing a ply.
        free = np.int64(0)  # bit c: column c has room
        n = 0
        for c in range(cols):
            if s[3 + c] < rows:
                free |= np.int64(1) << c
                n += 1
        height = rows + 1
        cells = 3 + cols
        boards = cells + rows * cols
        p = s[0]
        mine, theirs = s[boards + p], s[boards + 1 - p]
        moves, full = s[2], rows * cols
        seed = rng[0]
        winner = -1
        magic, shift = _reciprocal(n)
        while True:
            # rng_randint on the local state, its remainder modulo n by a
            # multiplication (a division costs about as much as the rest of the ply).
            seed, x31 = draw_top31(seed)
            j = np.int64(x31 - ((x31 * magic) >> shift) * np.uint64(n))
            if cols <= 8:
                c = int(_KTH[free << 3 | j])
            else:
                x = free
                for _ in range(j):  # clear the j lowest set bits: the j-th playable column
                    x &= x - 1
                c = trailing_zeros(x)  # type: ignore[call-arg]
            r = s[3 + c]
            s[3 + c] = r + 1
            s[cells + r * cols + c] = p + 1
            if r + 1 == rows:
                free ^= np.int64(1) << c
                n -= 1
                if n:
                    magic, shift = _reciprocal(n)
            mine |= np.int64(1) << (c * height + r)
            moves += 1
            plies += 1
            if _bits_win(mine, k, height):
                winner = p
                break
            if moves == full:
                break
            mine, theirs, p = theirs, mine, 1 - p
        s[boards + p], s[boards + 1 - p] = mine, theirs
        s[0], s[1], s[2] = TERMINAL, winner, moves
        rng[0] = seed
    winner_returns(s, params, out)
    return plies


@njit(cache=True)
def heuristic(s, params, out):  # type: ignore[no-untyped-def]
    """Open windows: every ``k``-cell line holding stones of one side only scores
    the square of its stone count for that side; squashed to ``(-1, 1)``."""
    rows, cols, k = params[0], params[1], params[2]
    base = 3 + cols
    score = 0.0
    for r in range(rows):
        for c in range(cols):
            for d in range(4):
                dr = 0 if d == 0 else 1
                dc = 1 if d == 0 else (0 if d == 1 else (1 if d == 2 else -1))
                er = r + dr * (k - 1)
                ec = c + dc * (k - 1)
                if er >= rows or ec < 0 or ec >= cols:
                    continue
                x = 0
                o = 0
                for i in range(k):
                    v = s[base + (r + dr * i) * cols + c + dc * i]
                    if v == 1:
                        x += 1
                    elif v == 2:
                        o += 1
                if o == 0:
                    score += x * x
                if x == 0:
                    score -= o * o
    v = score / (abs(score) + 4.0 * k * k)
    out[0] = v
    out[1] = -v


@njit(cache=True)
def observation(s, params, player, out):  # type: ignore[no-untyped-def]
    """OpenSpiel's ``connect_four`` observation, 3 planes of ``R x C`` cells (cell
    ``r * C + c``, row 0 at the bottom): ``x`` (player 0), ``o`` (player 1), empty.
    The same for both players."""
    rows, cols = params[0], params[1]
    n = rows * cols
    base = 3 + cols
    for i in range(n):
        v = s[base + i]  # 0 empty, 1 x, 2 o; the state's cell order is OpenSpiel's
        out[i] = 1.0 if v == 1 else 0.0
        out[n + i] = 1.0 if v == 2 else 0.0
        out[2 * n + i] = 1.0 if v == 0 else 0.0


class ConnectFour(KernelGame):
    """Connect Four on ``rows`` x ``columns`` with ``x_in_row`` to win (OpenSpiel ``connect_four``)."""

    kernels = RuleKernels(
        init,
        legal_actions,
        apply_action,
        returns,
        heuristic,
        playout=playout,
        observation=observation,
    )

    def __init__(self, rows: int = 6, columns: int = 7, x_in_row: int = 4) -> None:
        for name, value, lo in (
            ("rows", rows, 1),
            ("columns", columns, 1),
            ("x_in_row", x_in_row, 2),
        ):
            if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= 32:
                raise InvalidConfigError(f"connect_four: {name} must be an integer in [{lo}, 32]")
        if x_in_row > max(rows, columns):
            raise InvalidConfigError("connect_four: x_in_row must fit on the board")
        self.rows, self.columns, self.x_in_row = rows, columns, x_in_row
        info = GameInfo(
            name="connect_four",
            version=2,  # 2: bitboards in the state array
            num_players=2,
            num_actions=columns,
            max_game_length=rows * columns,
            zero_sum=True,
            min_utility=-1.0,
            max_utility=1.0,
        )
        bitboards = int((rows + 1) * columns <= 63)
        super().__init__(info, np.array([rows, columns, x_in_row, bitboards], dtype=np.int64))

    def observation_shape(self) -> tuple[int, ...]:
        """OpenSpiel's: 3 planes (``x``, ``o``, empty) of ``rows x columns`` cells."""
        return (3, self.rows, self.columns)

    def symmetries(self) -> list[Symmetry]:
        """The identity and the mirror image left to right (gravity rules out the
        others): an action is a column, so the policy is reversed."""
        return mirror_symmetries()

    def action_name(self, state: KernelState, action: int) -> str:
        return str(action + 1)

    def parse_action(self, state: KernelState, text: str) -> int | None:
        column = ascii_int(text.strip())
        return None if column is None else column - 1

    def order_actions(self, actions: list[int]) -> list[int]:
        """Centre columns first: they lie on the most lines."""
        centre = (self.columns - 1) / 2
        return sorted(actions, key=lambda c: (abs(c - centre), c))

    def rendering(self) -> Rendering:
        """The web lab's grid, drawn with row 0 at the top (the kernel's row 0 is the
        bottom), a click in a column drops a disc there; red and yellow discs (``x`` and
        ``o`` in text, the marks of the text board)."""
        return Rendering(kind="grid", players=("Red", "Yellow"), draw=self._grid, labels=("x", "o"))

    def _grid(self, state: KernelState) -> dict[str, Any]:
        rows, cols = self.rows, self.columns
        base = 3 + cols  # cell (r, c) at base + r * cols + c, with row 0 at the bottom
        cells = [
            ("", "x", "o")[int(state.array[base + r * cols + c])]
            for r in reversed(range(rows))
            for c in range(cols)
        ]
        return {
            "rows": rows,
            "cols": cols,
            "cells": cells,
            "click": "column",
            "actions": {str(a): a for a in state.legal_actions()},  # column = action id
            "win": winning_line(cells, rows, cols, 4),
        }

    def render(self, state: KernelState) -> str:
        marks = ".xo"
        base = 3 + self.columns
        lines = []
        for r in reversed(range(self.rows)):
            row = state.array[base + r * self.columns : base + (r + 1) * self.columns]
            lines.append(" ".join(marks[int(v)] for v in row))
        width = len(str(self.columns))
        lines.append(" ".join(str(c + 1)[-width:] for c in range(self.columns)))
        return "\n".join(lines)
