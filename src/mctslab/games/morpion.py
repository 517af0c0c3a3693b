"""Morpion Solitaire (Join Five): 5T, 5D, 4T, 4D and OpenSpiel's ``morpion_solitaire``.

A single-player game of pencil and squared paper (Boyer, morpionsolitaire.com;
Demaine, Demaine, Langerman and Langerman, "Morpion Solitaire", Theory of Computing
Systems 39, 2006). It starts from a Greek cross of points; a move adds one point on a
grid intersection and draws a line of ``L`` consecutive points (horizontal, vertical or
either diagonal) through it, the other ``L - 1`` points being there already. Two lines
in the same direction on the same row may never overlap:

- **T** ("touching", 5T): they may share an end point, not a segment;
- **D** ("disjoint", 5D): they may not share any point.

Lines of other directions may cross freely. The score is the number of moves; the
game ends when no move is left. Records (morpionsolitaire.com): 5T 178 (Rosin 2011,
Nested Rollout Policy Adaptation), 5D 82 (Rosin 2010); 4T 62 and 4D 35 are the true
maxima (Quist's enumeration, 2008). Upper bounds: 5T 485 (Michalewski, Nagórko and
Pawlewicz 2016; 705 in Demaine et al. 2006), 5D 121 (Kawamura, Okamoto, Tatsu, Uno and
Yamato 2013); they are the games' ``max_game_length``.

The cross is the outline of a Greek cross whose twelve edges hold ``L - 1`` points each
(each edge's end points shared): ``12 (L - 2)`` points, 36 for ``L = 5`` and 24 for
``L = 4``, ``3L - 5`` points wide. From it, 28 moves are open in 5T and 5D (12
horizontal, 12 vertical, 2 on each diagonal) and 40 in 4T and 4D.

**The board.** The paper is unlimited; here it is a ``size x size`` grid (default 32)
with the cross centred (in 32, 11 empty rows and columns on each side of the 10-wide
cross), and a line must lie on the grid. The bounded game is the unbounded one as long
as no point stands on the grid's outermost ring: a line that would leave the grid has
its one missing point outside and so its neighbour on the line on that ring.
:meth:`Morpion.touches_border` says whether a position got there (the state keeps the
points' bounding box); in 1,000 random 5T games on 32 x 32 none did.

**OpenSpiel's variant** (``variant="openspiel"``) is OpenSpiel's ``morpion_solitaire``
exactly: 4D (lines of 4 points, parallel lines sharing no point) on a 13 x 13 grid
whose lines must lie on it, the 24-point cross at rows and columns 3 to 9, OpenSpiel's
460 action ids (below), ``max_game_length`` 35, returns the number of moves in
``[0, 35]``; ``tests/games/test_morpion_openspiel.py`` matches it with pyspiel on random
games at every step.

Coordinates: point ``(x, y)`` is column ``x`` and row ``y``, row 0 at the **top** (as
OpenSpiel prints its board), index ``y * size + x``. A line is named by its lowest-index
point (its top point, the leftmost of a horizontal one) and its direction from there:
0 ``E`` ``(+1, 0)``, 1 ``S`` ``(0, +1)``, 2 ``SE`` ``(+1, +1)``, 3 ``SW`` ``(-1, +1)``.

Actions: the line, ``(y * size + x) * 4 + direction`` (ids of lines that do not fit on
the grid are never legal). OpenSpiel's variant uses OpenSpiel's ids instead, with its
``[row, col]`` = our ``(y, x)``: ``E`` ``10 y + x`` (0-129), ``S`` ``130 + 13 y + x``
(130-259), ``SE`` ``260 + 10 y + x`` (260-359), ``SW`` ``360 + 10 y + x - 3`` (360-459).
Which point a move adds is the line's one missing point. Names: ``"(x,y) E"``; the
parser also takes ``"(x,y) dir E"`` and OpenSpiel's ``"[y,x] [y,x] [y,x] [y,x]"``.

Returns: ``[moves made]``, in ``[0, max_game_length]`` (OpenSpiel's too). Heuristic:
the moves made plus the moves open now, capped at ``max_game_length`` and mapped from
``[0, max_game_length]`` onto ``[-1, 1]`` as a terminal score is (at the end the
exact score). ``move_code`` (what Nested Rollout Policy Adaptation learns weights for):
the action, i.e. the line; Rosin codes a move by its line and its new point, which
this game's line id leaves to the position.

State layout (``int64``), ``S = size``::

    [player (0 or TERMINAL), moves, open moves, x_min, x_max, y_min, y_max,
     cell(0, 0) .. cell(S-1, S-1), open-move bitset (num_actions bits, 64 a word)]

``x_min .. y_max`` bound the points (the cross included). Cell ``(x, y)`` is at
``7 + y * S + x``: bit 0 the point is there; bit ``1 + d`` "used in direction ``d``"
(T: the unit segment from this point to the next one in direction ``d`` is drawn; D:
the point lies on a line of direction ``d``); bits 8-19 the move that added the point
(0: the cross); bits 20-23 its place ``k`` on that move's line and bits 24-25 the
line's direction, so that the line starts ``k`` steps back (the drawing reads the lines
from the cells: no move list). A line is legal iff it fits, exactly one of its points
is missing, and no cell of its first ``L - 1`` (T) or ``L`` (D) has its direction's
used bit. ``params = [S, L, touching, openspiel ids, num_actions, max_game_length,
number of cross points, their cell indices ..]``.

The open moves are kept incrementally, as a bitset over the action ids: a move changes
only the lines through its new point (``L`` in each direction) and the lines of its own
direction overlapping its used cells (at most ``2L - 1`` starts along its row, those
through the new point among them), re-checked by one sweep a direction whose window
slides along the row (three reads a line); :func:`_is_open` states the rule once for
the initial scan. The legal actions are the bitset's set bits, ascending, and their
number ``state[2]``; the own random ``playout`` finds the ``k``-th set bit directly (a
popcount a word), with the generic loop's draws.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from mctslab.core.declarations import Parameter
from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import TERMINAL, GameInfo
from mctslab.games.kernels import KernelGame, KernelState, RuleKernels, rng_randint

__all__ = ["DIRECTIONS", "VARIANTS", "Morpion", "to_svg", "to_text"]

#: Direction names by index; ``_DX``/``_DY`` are their unit steps (row 0 at the top).
DIRECTIONS = ("E", "S", "SE", "SW")
_DX = np.array([1, 0, 1, -1], dtype=np.int64)
_DY = np.array([0, 1, 1, 1], dtype=np.int64)
_STEPS = [(1, 0), (0, 1), (1, 1), (-1, 1)]

#: The variants: line length, touching, default board size, score bound (the proven
#: upper bound or true maximum, see the module docstring).
VARIANTS: dict[str, tuple[int, bool, int, int]] = {
    "5T": (5, True, 32, 485),
    "5D": (5, False, 32, 121),
    "4T": (4, True, 32, 62),
    "4D": (4, False, 32, 35),
    "openspiel": (4, False, 13, 35),
}

# State header slots.
S_PLAYER, S_MOVES, S_OPEN, S_XMIN, S_XMAX, S_YMIN, S_YMAX = range(7)
HEADER = 7
# Params slots.
P_SIZE, P_LENGTH, P_TOUCHING, P_OPENSPIEL, P_ACTIONS, P_MAX, P_NCROSS = range(7)
P_CROSS = 7
# Cell bits.
OCCUPIED = 1
USED_SHIFT = 1
MOVE_SHIFT, MOVE_MASK = 8, 0xFFF
PLACE_SHIFT, PLACE_MASK = 20, 0xF
DIR_SHIFT, DIR_MASK = 24, 0x3

_OPENSPIEL_ACTIONS = 460


# --- lines and action ids ---------------------------------------------------------


@njit(cache=True)
def _action_of_line(params, x, y, d):  # type: ignore[no-untyped-def]
    """The action id of the line from ``(x, y)`` in direction ``d`` (which must fit)."""
    if params[P_OPENSPIEL]:
        if d == 0:
            return y * 10 + x
        if d == 1:
            return 130 + y * 13 + x
        if d == 2:
            return 260 + y * 10 + x
        return 360 + y * 10 + x - 3
    return (y * params[P_SIZE] + x) * 4 + d


@njit(cache=True)
def _line_of_action(params, a):  # type: ignore[no-untyped-def]
    """``(x, y, d)``: the line of action ``a``, from its lowest-index point."""
    if params[P_OPENSPIEL]:
        if a < 130:
            return a % 10, a // 10, 0
        if a < 260:
            return (a - 130) % 13, (a - 130) // 13, 1
        if a < 360:
            return (a - 260) % 10, (a - 260) // 10, 2
        return (a - 360) % 10 + 3, (a - 360) // 10, 3
    size = params[P_SIZE]
    p = a >> 2
    return p % size, p // size, a & 3


@njit(cache=True, inline="always")
def _fits(params, x, y, d):  # type: ignore[no-untyped-def]
    """Whether the line from ``(x, y)`` in direction ``d`` lies on the grid."""
    size = params[P_SIZE]
    ex = x + (params[P_LENGTH] - 1) * _DX[d]
    ey = y + (params[P_LENGTH] - 1) * _DY[d]
    return 0 <= x < size and 0 <= y < size and 0 <= ex < size and 0 <= ey < size


@njit(cache=True, inline="always")
def _is_open(s, params, x, y, d):  # type: ignore[no-untyped-def]
    """Whether the line (which fits) is a legal move: exactly one point missing and no
    overlap with a drawn line of its direction (T: no used segment among its ``L - 1``;
    D: no used point among its ``L``)."""
    size, length = params[P_SIZE], params[P_LENGTH]
    span = length - 1 if params[P_TOUCHING] else length
    used = np.int64(1) << (USED_SHIFT + d)
    at = HEADER + y * size + x
    step = _DY[d] * size + _DX[d]
    missing = 0
    for i in range(length):
        c = s[at + i * step]
        if (c & OCCUPIED) == 0:
            missing += 1
            if missing > 1:
                return False
        if i < span and c & used:
            return False
    return missing == 1


@njit(cache=True, inline="always")
def _mark(s, params, a, legal):  # type: ignore[no-untyped-def]
    """Set action ``a``'s bit in the open-move bitset to ``legal``; keep the count."""
    base = HEADER + params[P_SIZE] * params[P_SIZE]
    w = base + (a >> 6)
    bit = np.int64(1) << (a & 63)
    had = (s[w] & bit) != 0
    if legal and not had:
        s[w] |= bit
        s[S_OPEN] += 1
    elif had and not legal:
        s[w] &= ~bit
        s[S_OPEN] -= 1


@njit(cache=True, inline="always")
def _refresh(s, params, x, y, d):  # type: ignore[no-untyped-def]
    """Re-check the line from ``(x, y)`` in direction ``d`` (nothing if it is off the grid)."""
    if _fits(params, x, y, d):
        _mark(s, params, _action_of_line(params, x, y, d), _is_open(s, params, x, y, d))


@njit(cache=True, inline="always")
def _reach(c, t, size, length):  # type: ignore[no-untyped-def]
    """``(lo, hi)``: the ``j`` for which both ends of the line from coordinate ``c + j t``
    stepping ``t`` (-1, 0 or 1) for ``length`` points lie in ``[0, size)``."""
    if t == 1:
        return -c, size - length - c
    if t == -1:
        return c - size + 1, c - length + 1
    return -size, size


@njit(cache=True)
def _sweep(s, params, x, y, d, j0, j1):  # type: ignore[no-untyped-def]
    """Re-check the lines of direction ``d`` that start at ``(x + j dx, y + j dy)`` for
    ``j0 <= j <= j1`` and lie on the grid, in one sweep along their row: the counts of
    missing points and used cells slide with the window (three reads a line, where
    :func:`_refresh` makes ``L``)."""
    size, length = params[P_SIZE], params[P_LENGTH]
    span = length - 1 if params[P_TOUCHING] else length
    dx, dy = _DX[d], _DY[d]
    lo, hi = _reach(x, dx, size, length)
    j0, j1 = max(j0, lo), min(j1, hi)
    lo, hi = _reach(y, dy, size, length)
    j0, j1 = max(j0, lo), min(j1, hi)
    if j0 > j1:
        return
    used = np.int64(1) << (USED_SHIFT + d)
    step = dy * size + dx
    at = HEADER + y * size + x
    missing = 0
    blocked = 0
    for i in range(length):
        c = s[at + (j0 + i) * step]
        missing += (c & OCCUPIED) == 0
        blocked += i < span and (c & used) != 0
    for j in range(j0, j1 + 1):
        if j > j0:
            c = s[at + (j - 1) * step]
            missing -= (c & OCCUPIED) == 0
            blocked -= (c & used) != 0
            missing += (s[at + (j + length - 1) * step] & OCCUPIED) == 0
            blocked += (s[at + (j + span - 1) * step] & used) != 0
        a = _action_of_line(params, x + j * dx, y + j * dy, d)
        _mark(s, params, a, missing == 1 and blocked == 0)


# --- the rule kernels -------------------------------------------------------------


@njit(cache=True)
def init(params):  # type: ignore[no-untyped-def]
    size = params[P_SIZE]
    s = np.zeros(HEADER + size * size + (params[P_ACTIONS] + 63) // 64, dtype=np.int64)
    s[S_XMIN], s[S_YMIN] = size, size
    s[S_XMAX], s[S_YMAX] = -1, -1
    for i in range(params[P_NCROSS]):
        p = params[P_CROSS + i]
        s[HEADER + p] = OCCUPIED
        x, y = p % size, p // size
        s[S_XMIN] = min(s[S_XMIN], x)
        s[S_XMAX] = max(s[S_XMAX], x)
        s[S_YMIN] = min(s[S_YMIN], y)
        s[S_YMAX] = max(s[S_YMAX], y)
    for y in range(size):
        for x in range(size):
            for d in range(4):
                _refresh(s, params, x, y, d)
    if s[S_OPEN] == 0:
        s[S_PLAYER] = TERMINAL
    return s


@njit(cache=True, inline="always")
def _open_words(s, params):  # type: ignore[no-untyped-def]
    """The words of the open-move bitset that may hold a set bit, ``[lo, hi)``. An open
    line has a point, so it starts at most ``L - 1`` rows above the top point and not
    below the bottom one; with row-major ids (not OpenSpiel's) that bounds its word."""
    words = (params[P_ACTIONS] + 63) // 64
    if params[P_OPENSPIEL]:
        return 0, words
    row = 4 * params[P_SIZE]  # ids a row
    top = max(s[S_YMIN] - params[P_LENGTH] + 1, 0)
    return (top * row) >> 6, min(((s[S_YMAX] + 1) * row + 63) >> 6, words)


@njit(cache=True)
def legal_actions(s, params, out):  # type: ignore[no-untyped-def]
    if s[S_PLAYER] < 0:
        return 0
    base = HEADER + params[P_SIZE] * params[P_SIZE]
    lo, hi = _open_words(s, params)
    n = 0
    for w in range(lo, hi):
        word = s[base + w]
        while word != 0:
            out[n] = w * 64 + trailing_zeros(word)  # type: ignore[call-arg]
            n += 1
            word &= word - 1
    return n


@njit(cache=True)
def apply_action(s, params, a):  # type: ignore[no-untyped-def]
    size, length = params[P_SIZE], params[P_LENGTH]
    span = length - 1 if params[P_TOUCHING] else length
    x0, y0, d = _line_of_action(params, a)
    dx, dy = _DX[d], _DY[d]
    at = HEADER + y0 * size + x0
    step = dy * size + dx
    k = 0
    while s[at + k * step] & OCCUPIED:  # the line's one missing point
        k += 1
    qx, qy = x0 + k * dx, y0 + k * dy
    moves = s[S_MOVES] + 1
    s[S_MOVES] = moves
    s[at + k * step] = (
        OCCUPIED | (moves << MOVE_SHIFT) | (np.int64(k) << PLACE_SHIFT) | (d << DIR_SHIFT)
    )
    used = np.int64(1) << (USED_SHIFT + d)
    for i in range(span):
        s[at + i * step] |= used
    s[S_XMIN] = min(s[S_XMIN], qx)
    s[S_XMAX] = max(s[S_XMAX], qx)
    s[S_YMIN] = min(s[S_YMIN], qy)
    s[S_YMAX] = max(s[S_YMAX], qy)
    # Only two kinds of line can change: those through the new point (one point more)
    # and those of this direction overlapping the used cells (now blocked). The new
    # line itself is both, and now has no point missing. In this direction the two
    # ranges of starts, k - L + 1 .. k and 1 - span .. span - 1 from (x0, y0), overlap.
    for e in range(4):
        if e != d:
            _sweep(s, params, qx, qy, e, 1 - length, 0)
    _sweep(s, params, x0, y0, d, min(k + 1 - length, 1 - span), max(k, span - 1))
    if s[S_OPEN] == 0:
        s[S_PLAYER] = TERMINAL


@njit(cache=True)
def returns(s, params, out):  # type: ignore[no-untyped-def]
    """The score: the number of moves made (OpenSpiel's returns too)."""
    out[0] = s[S_MOVES]


@njit(cache=True)
def heuristic(s, params, out):  # type: ignore[no-untyped-def]
    """The moves made plus the moves open now (capped at ``max_game_length``), mapped
    from ``[0, max_game_length]`` onto ``[-1, 1]``: the exact score once over."""
    top = params[P_MAX]
    guess = min(s[S_MOVES] + s[S_OPEN], top)
    out[0] = 2.0 * guess / top - 1.0


@njit(cache=True, inline="always")
def _popcount(x):  # type: ignore[no-untyped-def]
    """Set bits of a 64-bit word (SWAR, Hacker's Delight 5-2)."""
    v = np.uint64(x)
    v = v - ((v >> np.uint64(1)) & np.uint64(0x5555555555555555))
    v = (v & np.uint64(0x3333333333333333)) + ((v >> np.uint64(2)) & np.uint64(0x3333333333333333))
    v = (v + (v >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((v * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True)
def playout(s, params, rng, out):  # type: ignore[no-untyped-def]
    """Uniformly random moves to the end, in place, drawing as the generic loop: the
    ``k``-th open move in ascending order, ``k = rng_randint(rng, n)``, found in the
    bitset without listing the moves. Returns the plies; writes the returns to ``out``."""
    base = HEADER + params[P_SIZE] * params[P_SIZE]
    plies = 0
    while s[S_PLAYER] != TERMINAL:
        k = rng_randint(rng, s[S_OPEN])
        w = base + _open_words(s, params)[0]
        c = _popcount(s[w])
        while k >= c:
            k -= c
            w += 1
            c = _popcount(s[w])
        word = s[w]
        for _ in range(k):
            word &= word - 1
        apply_action(s, params, (w - base) * 64 + trailing_zeros(word))  # type: ignore[call-arg]
        plies += 1
    returns(s, params, out)
    return plies


@njit(cache=True)
def move_code(s, params, a):  # type: ignore[no-untyped-def]
    """The move's code for NRPA: the line (the action) itself."""
    return a


# --- the game ------------------------------------------------------------------------


def greek_cross(length: int) -> list[tuple[int, int]]:
    """The starting points for lines of ``length`` points: the outline of a Greek cross
    ``3 * length - 5`` points wide whose twelve edges hold ``length - 1`` points each,
    as ``(x, y)`` from its bounding box's corner (36 points for 5, 24 for 4)."""
    a = length - 2

    def inside(x: int, y: int) -> bool:
        return (a <= x <= 2 * a and 0 <= y <= 3 * a) or (0 <= x <= 3 * a and a <= y <= 2 * a)

    return [
        (x, y)
        for y in range(3 * a + 1)
        for x in range(3 * a + 1)
        if inside(x, y) and not all(inside(x + i, y + j) for i in (-1, 0, 1) for j in (-1, 0, 1))
    ]


_NAME = re.compile(r"\(\s*([0-9]+)\s*,\s*([0-9]+)\s*\)\s*(?:dir\s*)?([a-z]+)")
_SPIEL_POINT = re.compile(r"\[\s*([0-9]+)\s*,\s*([0-9]+)\s*\]")


class Morpion(KernelGame):
    """Morpion Solitaire, ``variant`` ``"5T"`` (default), ``"5D"``, ``"4T"``, ``"4D"``
    or ``"openspiel"`` (OpenSpiel's ``morpion_solitaire``: 4D on 13 x 13, its action
    ids), on a ``size x size`` grid (default 32; 13 for ``"openspiel"``, which allows no
    other). See the module docstring for the rules, encodings and state layout."""

    kernels = RuleKernels(
        init,
        legal_actions,
        apply_action,
        returns,
        heuristic,
        playout=playout,
        move_code=move_code,
    )

    @classmethod
    def parameter_schema(cls) -> tuple[Parameter, ...]:
        """What a form offers (the web lab's Optimize tab, ``mctslab games``): the
        variant, on its default board."""
        return (
            Parameter(
                "variant",
                "5T",
                "5 (or 4) in a line, touching (T) or disjoint (D); openspiel: OpenSpiel's "
                "morpion_solitaire",
                choices=tuple(VARIANTS),
            ),
        )

    def __init__(self, variant: str = "5T", size: int | None = None) -> None:
        if variant not in VARIANTS:
            raise InvalidConfigError(
                f"morpion_solitaire: variant must be one of {', '.join(VARIANTS)}, got {variant!r}"
            )
        length, touching, default_size, bound = VARIANTS[variant]
        cross = greek_cross(length)
        width = 3 * length - 5
        if size is None:
            size = default_size
        if isinstance(size, bool) or not isinstance(size, int) or not width <= size <= 64:
            raise InvalidConfigError(
                f"morpion_solitaire: size must be an integer in [{width}, 64], got {size!r}"
            )
        openspiel = variant == "openspiel"
        if openspiel and size != default_size:
            raise InvalidConfigError(
                f"morpion_solitaire: OpenSpiel's variant is played on 13 x 13, got size {size}"
            )
        self.variant, self.size, self.length, self.touching = variant, size, length, touching
        self.openspiel = openspiel
        origin = (size - width) // 2
        cells = [(origin + y) * size + origin + x for x, y in cross]
        num_actions = _OPENSPIEL_ACTIONS if openspiel else size * size * 4
        max_moves = min(bound, size * size - len(cells))
        info = GameInfo(
            name="morpion_solitaire",
            version=1,
            num_players=1,
            num_actions=num_actions,
            max_game_length=max_moves,
            zero_sum=False,
            min_utility=0.0,
            max_utility=float(max_moves),
        )
        params = [size, length, int(touching), int(openspiel), num_actions, max_moves]
        super().__init__(info, np.array([*params, len(cells), *cells], dtype=np.int64))

    def __repr__(self) -> str:
        return f"<game morpion_solitaire {self.variant} {self.size}x{self.size}>"

    # --- lines --------------------------------------------------------------------

    def line_of_action(self, action: int) -> tuple[int, int, int]:
        """``(x, y, direction)``: the line of ``action``, from its lowest-index point."""
        x, y, d = _line_of_action(self.params, int(action))
        return int(x), int(y), int(d)

    def action_of_line(self, x: int, y: int, direction: int) -> int | None:
        """The action id of the line from ``(x, y)`` in ``direction``, or ``None`` if it
        does not lie on the grid."""
        if not 0 <= direction < 4 or not _fits(self.params, x, y, direction):
            return None
        return int(_action_of_line(self.params, x, y, direction))

    def line_points(self, action: int) -> list[tuple[int, int]]:
        """The ``L`` points of ``action``'s line, from its lowest-index point."""
        x, y, d = self.line_of_action(action)
        return [(x + i * int(_DX[d]), y + i * int(_DY[d])) for i in range(self.length)]

    def points(self, state: KernelState) -> dict[tuple[int, int], int]:
        """The points of the position, ``(x, y)`` -> the move that added it (0: the cross)."""
        size, a = self.size, state.array
        cells = a[HEADER : HEADER + size * size]
        return {
            (int(p) % size, int(p) // size): int(cells[p] >> MOVE_SHIFT) & MOVE_MASK
            for p in np.flatnonzero(cells & OCCUPIED)
        }

    def lines(self, state: KernelState) -> list[tuple[int, int, tuple[int, int]]]:
        """The drawn lines in move order: ``(move, action, new point)``, read from the
        cells (each new point keeps its place on its line and the line's direction)."""
        size, a = self.size, state.array
        found = []
        for (x, y), move in self.points(state).items():
            if move:
                c = int(a[HEADER + y * size + x])
                k = (c >> PLACE_SHIFT) & PLACE_MASK
                d = (c >> DIR_SHIFT) & DIR_MASK
                action = _action_of_line(self.params, x - k * int(_DX[d]), y - k * int(_DY[d]), d)
                found.append((move, int(action), (x, y)))
        return sorted(found)

    def score(self, state: KernelState) -> int:
        """The moves made so far."""
        return int(state.array[S_MOVES])

    def bounding_box(self, state: KernelState) -> tuple[int, int, int, int]:
        """``(x_min, x_max, y_min, y_max)`` of the points, the cross included."""
        a = state.array
        return int(a[S_XMIN]), int(a[S_XMAX]), int(a[S_YMIN]), int(a[S_YMAX])

    def touches_border(self, state: KernelState) -> bool:
        """Whether a point stands on the grid's outermost ring: until then the game is
        the unbounded game (a line can only leave the grid from that ring)."""
        x0, x1, y0, y1 = self.bounding_box(state)
        return min(x0, y0) == 0 or max(x1, y1) == self.size - 1

    # --- names --------------------------------------------------------------------

    def action_name(self, state: KernelState, action: int) -> str:
        x, y, d = self.line_of_action(action)
        return f"({x},{y}) {DIRECTIONS[d]}"

    def parse_action(self, state: KernelState, text: str) -> int | None:
        """``"(x,y) E"`` (``dir`` before the direction allowed, any case), or OpenSpiel's
        action string, the line's points as ``[row,col]`` (``"[3,4] [3,5] [3,6] [3,7]"``)."""
        t = text.strip().lower()
        m = _NAME.fullmatch(t)
        if m is not None:
            name = m.group(3).upper()
            if name not in DIRECTIONS:
                return None
            return self.action_of_line(int(m.group(1)), int(m.group(2)), DIRECTIONS.index(name))
        pts = [(int(c), int(r)) for r, c in _SPIEL_POINT.findall(t)]
        if len(pts) != self.length or _SPIEL_POINT.sub("", t).strip():
            return None
        pts.sort(key=lambda p: (p[1], p[0]))
        (x, y), (x1, y1) = pts[0], pts[1]
        if (x1 - x, y1 - y) not in _STEPS:
            return None
        action = self.action_of_line(x, y, _STEPS.index((x1 - x, y1 - y)))
        if action is None or sorted(self.line_points(action), key=lambda p: (p[1], p[0])) != pts:
            return None
        return action

    # --- drawings -----------------------------------------------------------------

    def _window(self, state: KernelState, margin: int) -> tuple[int, int, int, int]:
        x0, x1, y0, y1 = self.bounding_box(state)
        last = self.size - 1
        return (
            max(0, x0 - margin),
            min(last, x1 + margin),
            max(0, y0 - margin),
            min(last, y1 + margin),
        )

    def to_text(self, state: KernelState) -> str:
        """The grid around the points: ``o`` a point of the cross, a number the move that
        added the point, ``.`` an empty intersection; lines ``-``, ``|``, ``\\``, ``/``
        (``X`` where two diagonals cross between four points). Row 0 on top."""
        x0, x1, y0, y1 = self._window(state, 1)
        cols, rows = x1 - x0 + 1, y1 - y0 + 1
        grid = [[" "] * (4 * cols - 1) for _ in range(2 * rows - 1)]
        points = self.points(state)
        for y in range(y0, y1 + 1):
            for x in range(x0, x1 + 1):
                move = points.get((x, y))
                label = "." if move is None else str(move) if move else "o"
                col = 4 * (x - x0)
                grid[2 * (y - y0)][col + 3 - len(label) : col + 3] = list(label)
        for _, action, _ in self.lines(state):
            pts = self.line_points(action)
            d = self.line_of_action(action)[2]
            for ax, ay in pts[:-1]:
                r, c = 2 * (ay - y0), 4 * (ax - x0)
                if d == 0:
                    for i in range(3, 6):
                        if grid[r][c + i] == " ":
                            grid[r][c + i] = "-"
                elif d == 1:
                    grid[r + 1][c + 2] = "|"
                else:
                    mark = "\\" if d == 2 else "/"
                    at = c + 4 if d == 2 else c  # between the two columns
                    old = grid[r + 1][at]
                    grid[r + 1][at] = "X" if old in "\\/X" and old != mark else mark
        return "\n".join("".join(row).rstrip() for row in grid)

    def to_svg(self, state: KernelState, spacing: int = 24) -> str:
        """An SVG drawing of the grid around the points: the lines, the cross's points
        black, each added point white with its move number."""
        x0, x1, y0, y1 = self._window(state, 1)
        pad = spacing

        def at(x: int, y: int) -> tuple[int, int]:
            return pad + (x - x0) * spacing, pad + (y - y0) * spacing

        width = 2 * pad + (x1 - x0) * spacing
        height = 2 * pad + (y1 - y0) * spacing
        out = [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}">',
            f'<rect width="{width}" height="{height}" fill="white"/>',
            '<g fill="#ccc">',
        ]
        for y in range(y0, y1 + 1):
            for x in range(x0, x1 + 1):
                cx, cy = at(x, y)
                out.append(f'<circle cx="{cx}" cy="{cy}" r="1.5"/>')
        out.append('</g><g stroke="#36c" stroke-width="2" stroke-linecap="round">')
        for _, action, _ in self.lines(state):
            pts = self.line_points(action)
            (ax, ay), (bx, by) = at(*pts[0]), at(*pts[-1])
            out.append(f'<line x1="{ax}" y1="{ay}" x2="{bx}" y2="{by}"/>')
        out.append('</g><g font-family="sans-serif" text-anchor="middle" stroke="black">')
        r = spacing * 0.38
        font = spacing * 0.36
        for (x, y), move in sorted(self.points(state).items(), key=lambda kv: kv[1]):
            cx, cy = at(x, y)
            if move == 0:
                out.append(f'<circle cx="{cx}" cy="{cy}" r="{r * 0.6:.1f}" fill="black"/>')
            else:
                out.append(f'<circle cx="{cx}" cy="{cy}" r="{r:.1f}" fill="white"/>')
                out.append(
                    f'<text x="{cx}" y="{cy + font * 0.35:.1f}" font-size="{font:.1f}" '
                    f'stroke="none">{move}</text>'
                )
        out.append("</g></svg>")
        return "\n".join(out)

    def render(self, state: KernelState) -> str:
        status = "over" if state.is_terminal() else f"{int(state.array[S_OPEN])} moves open"
        return (
            f"{self.to_text(state)}\n"
            f"[{self.variant}, {self.size}x{self.size}] score {self.score(state)}, {status}"
        )


def _game_of(state: Any) -> Morpion:
    game = getattr(state, "game", None)
    if not isinstance(game, Morpion):
        raise InvalidConfigError(f"not a Morpion Solitaire state: {state!r}")
    return game


def to_text(state: KernelState) -> str:
    """A Morpion Solitaire position as text (:meth:`Morpion.to_text`)."""
    return _game_of(state).to_text(state)


def to_svg(state: KernelState, spacing: int = 24) -> str:
    """A Morpion Solitaire position as an SVG drawing (:meth:`Morpion.to_svg`)."""
    return _game_of(state).to_svg(state, spacing)
