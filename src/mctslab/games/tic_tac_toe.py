"""Tic-tac-toe, with OpenSpiel's encodings.

Players: 0 plays ``x`` and moves first, 1 plays ``o``. Action ``3 * row + col``
(row 0 on top), as in OpenSpiel's ``tic_tac_toe``. Returns +1/-1 for a win/loss,
0 for a draw. Action names are ``a1`` .. ``c3``: column letter, row number from
the top.

State layout (``int64``): ``[player, winner, moves, cell_0 .. cell_8]`` with
``winner`` -1 while undecided or drawn, cells 0 empty, 1 ``x``, 2 ``o``.

Observation (the ``observation`` kernel): OpenSpiel's, shape ``(3, 3, 3)``, planes
empty, ``o``, ``x`` (OpenSpiel's cell-state order), the same for both players.

Its own random ``playout`` (the kernel contract's optional sixth kernel) keeps the
position in local words: each side's cells and the empty cells as 9-bit masks (bit
``a`` for cell ``a``; the ``k``-th legal move is the empty mask's ``k``-th set bit,
one table load), a win by one load of a 512-entry table, and the generator's state.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from mctslab.core.declarations import Rendering, winning_line
from mctslab.core.game import TERMINAL, GameInfo
from mctslab.games.kernels import (
    KernelGame,
    KernelState,
    RuleKernels,
    draw_top31,
    winner_returns,
)
from mctslab.games.symmetry import Symmetry, square_symmetries

__all__ = ["TicTacToe"]

_CELLS = 3
_LINES = np.array(
    [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]],
    dtype=np.int64,
)
# _THROUGH[a]: the lines through cell a (two, three or four; -1 pads): only a line
# through the new stone can be completed by it.
_THROUGH = np.full((9, 4), -1, dtype=np.int64)
for _i, _line in enumerate(_LINES):
    for _a in _line:
        _THROUGH[_a, np.argmax(_THROUGH[_a] < 0)] = _i


@njit(cache=True)
def init(params):  # type: ignore[no-untyped-def]
    s = np.zeros(12, dtype=np.int64)
    s[1] = -1
    return s


@njit(cache=True)
def legal_actions(s, params, out):  # type: ignore[no-untyped-def]
    if s[0] < 0:
        return 0
    n = 0
    for a in range(9):
        if s[3 + a] == 0:
            out[n] = a
            n += 1
    return n


@njit(cache=True)
def apply_action(s, params, a):  # type: ignore[no-untyped-def]
    p = s[0]
    s[3 + a] = p + 1
    s[2] += 1
    for i in range(4):
        if _THROUGH[a, i] < 0:
            break
        line = _LINES[_THROUGH[a, i]]
        if s[3 + line[0]] == p + 1 and s[3 + line[1]] == p + 1 and s[3 + line[2]] == p + 1:
            s[1] = p
            s[0] = TERMINAL
            return
    if s[2] == 9:
        s[0] = TERMINAL
    else:
        s[0] = 1 - p


returns = winner_returns  # the winner is kept in s[1]


def _playout_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``kth[mask << 4 | j]``: the ``j``-th set bit of a 9-bit ``mask``; ``won[mask]``:
    whether the cells of ``mask`` hold a line; ``magic[n], shift[n]``: ``x // n ==
    (x * magic[n]) >> shift[n]`` for every ``x < 2**31`` (Granlund and Montgomery 1994:
    ``shift = 31 + ceil(log2 n)``, ``magic = ceil(2**shift / n) < 2**32``)."""
    kth = np.zeros(512 << 4, dtype=np.int8)
    won = np.zeros(512, dtype=np.bool_)
    lines = [sum(1 << int(c) for c in line) for line in _LINES]
    for mask in range(512):
        for j, bit in enumerate(b for b in range(9) if mask >> b & 1):
            kth[mask << 4 | j] = bit
        won[mask] = any(mask & line == line for line in lines)
    magic = np.zeros(10, dtype=np.uint64)
    shift = np.zeros(10, dtype=np.uint64)
    for n in range(1, 10):
        s = 31 + (n - 1).bit_length()
        magic[n], shift[n] = ((1 << s) + n - 1) // n, s
    return kth, won, magic, shift


_KTH, _WON, _MAGIC, _SHIFT = _playout_tables()


@njit(cache=True)
def playout(s, params, rng, out):  # type: ignore[no-untyped-def]
    """Uniformly random moves to the end, in place, drawing as the generic loop: at
    each ply the ``k``-th empty cell in ascending order, ``k = rng_randint(rng, n)``.
    Returns the plies played; writes the returns to ``out``."""
    plies = 0
    if s[0] != TERMINAL:
        # Why locals: the state array and the generator are memory the compiler must
        # assume may alias; words in registers cost nothing a ply.
        mine = np.int64(0)  # the cells of the player to move
        theirs = np.int64(0)
        p = s[0]
        for a in range(9):
            v = s[3 + a]
            if v == p + 1:
                mine |= np.int64(1) << a
            elif v != 0:
                theirs |= np.int64(1) << a
        empty = 511 ^ (mine | theirs)
        n = 9 - s[2]
        seed = rng[0]
        winner = -1
        while True:
            # rng_randint on the local state, its remainder modulo n by a
            # multiplication (a division costs about as much as the rest of the ply).
            seed, x31 = draw_top31(seed)
            j = np.int64(x31 - ((x31 * _MAGIC[n]) >> _SHIFT[n]) * np.uint64(n))
            bit = np.int64(1) << np.int64(_KTH[empty << 4 | j])
            empty ^= bit
            mine |= bit
            n -= 1
            plies += 1
            if _WON[mine]:
                winner = p
                break
            if n == 0:
                break
            mine, theirs, p = theirs, mine, 1 - p
        for a in range(9):  # the cells played, with their marks
            if mine >> a & 1:
                s[3 + a] = p + 1
            elif theirs >> a & 1:
                s[3 + a] = 2 - p
        s[0], s[1], s[2] = TERMINAL, winner, 9 - n
        rng[0] = seed
    winner_returns(s, params, out)
    return plies


@njit(cache=True)
def heuristic(s, params, out):  # type: ignore[no-untyped-def]
    # Lines still open for one side only, counted by how full they are.
    score = 0.0
    for i in range(8):
        line = _LINES[i]
        mine = 0
        theirs = 0
        for j in range(3):
            v = s[3 + line[j]]
            if v == 1:
                mine += 1
            elif v == 2:
                theirs += 1
        if theirs == 0:
            score += mine * mine
        if mine == 0:
            score -= theirs * theirs
    v = score / (abs(score) + 8.0)
    out[0] = v
    out[1] = -v


@njit(cache=True)
def observation(s, params, player, out):  # type: ignore[no-untyped-def]
    """OpenSpiel's ``tic_tac_toe`` observation, 3 planes of 9 cells (cell ``3 * row + col``,
    row 0 on top): empty, ``o`` (player 1), ``x`` (player 0). The same for both players:
    the board is all there is to see (OpenSpiel orders its planes by its cell states,
    empty, nought, cross: so ``o`` comes before ``x``)."""
    for a in range(9):
        v = s[3 + a]  # 0 empty, 1 x, 2 o
        out[a] = 1.0 if v == 0 else 0.0
        out[9 + a] = 1.0 if v == 2 else 0.0
        out[18 + a] = 1.0 if v == 1 else 0.0


class TicTacToe(KernelGame):
    """Tic-tac-toe on a 3x3 board (OpenSpiel ``tic_tac_toe``)."""

    kernels = RuleKernels(
        init,
        legal_actions,
        apply_action,
        returns,
        heuristic,
        playout=playout,
        observation=observation,
    )

    def __init__(self) -> None:
        info = GameInfo(
            name="tic_tac_toe",
            version=1,
            num_players=2,
            num_actions=9,
            max_game_length=9,
            zero_sum=True,
            min_utility=-1.0,
            max_utility=1.0,
        )
        super().__init__(info, np.zeros(1, dtype=np.int64))

    def observation_shape(self) -> tuple[int, ...]:
        """OpenSpiel's: 3 planes (empty, ``o``, ``x``) of 3 x 3 cells."""
        return (3, 3, 3)

    def symmetries(self) -> list[Symmetry]:
        """The eight symmetries of the square (the identity first): an action is a cell
        ``row * 3 + column``, so the policy maps as a 3x3 plane, as the observation."""
        return square_symmetries(3)

    def action_name(self, state: KernelState, action: int) -> str:
        return "abc"[action % _CELLS] + str(action // _CELLS + 1)

    def parse_action(self, state: KernelState, text: str) -> int | None:
        t = text.strip().lower()
        if len(t) == 2 and t[0] in "abc" and t[1] in "123":
            return (int(t[1]) - 1) * _CELLS + "abc".index(t[0])
        return super().parse_action(state, text)

    def rendering(self) -> Rendering:
        """The web lab's 3x3 grid, a click on a cell plays it; the players X and O (``x``
        and ``o`` in text, the marks of the text board)."""
        return Rendering(kind="grid", players=("X", "O"), draw=self._grid, labels=("x", "o"))

    def _grid(self, state: KernelState) -> dict[str, Any]:
        # cells row-major from the top, "", "x" or "o"; a cell's index is its action id
        cells = [("", "x", "o")[int(v)] for v in state.array[3:12]]
        return {
            "rows": 3,
            "cols": 3,
            "cells": cells,
            "click": "cell",
            "actions": {str(a): a for a in state.legal_actions()},
            "win": winning_line(cells, 3, 3, 3),
        }

    def render(self, state: KernelState) -> str:
        marks = ".xo"
        rows = ["   a b c"]
        for r in range(3):
            cells = " ".join(marks[int(state.array[3 + 3 * r + c])] for c in range(3))
            rows.append(f"{r + 1}  {cells}")
        return "\n".join(rows)
