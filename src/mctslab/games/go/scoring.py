"""Tromp-Taylor area scoring of Go's board (the returns at the end of a game), and
the heuristic value it gives a position on the way."""

from __future__ import annotations

import numpy as np
from numba import njit

from mctslab.games.go.layout import (
    BLACK,
    EMPTY,
    P_A2V,
    P_COLOUR,
    P_KOMI2,
    P_N,
    P_W,
    WHITE,
)

__all__ = [
    "area_score2",
    "heuristic",
]


@njit(cache=True)
def area_score2(s, params):  # type: ignore[no-untyped-def]
    """Twice Black's Tromp-Taylor score, komi included: ``2 * (area(B) - area(W)) - 2 * komi``."""
    n, w = params[P_N], params[P_W]
    col, a2v = params[P_COLOUR], params[P_A2V]
    seen = np.zeros(w * w, dtype=np.bool_)
    stack = np.empty(w * w, dtype=np.int64)
    delta = 0
    for a in range(n * n):
        v = params[a2v + a]
        x = s[col + v]
        if x == BLACK:
            delta += 1
        elif x == WHITE:
            delta -= 1
        elif not seen[v]:
            seen[v] = True
            stack[0] = v
            top = 1
            count = 0
            reach = 0  # bit 0: black, bit 1: white
            while top > 0:
                top -= 1
                q = stack[top]
                count += 1
                for d in range(4):
                    m = q - w if d == 0 else (q - 1 if d == 1 else (q + 1 if d == 2 else q + w))
                    y = s[col + m]
                    if y == EMPTY:
                        if not seen[m]:
                            seen[m] = True
                            stack[top] = m
                            top += 1
                    elif y == BLACK:
                        reach |= 1
                    elif y == WHITE:
                        reach |= 2
            if reach == 1:
                delta += count
            elif reach == 2:
                delta -= count
    return 2 * delta - params[P_KOMI2]


@njit(cache=True)
def heuristic(s, params, out):  # type: ignore[no-untyped-def]
    """The Tromp-Taylor score of the board as it stands, squashed to ``(-1, 1)``."""
    d = area_score2(s, params) / 2.0
    v = d / (abs(d) + params[P_N])
    out[0] = v
    out[1] = -v
