"""MoGo's 3x3 patterns: the drawings (:data:`MOGO_PATTERNS`), the table of every
neighbourhood they match (:data:`MOGO_PAT3`, built at import) and its lookup, in
Python (:func:`pattern_matches`) and in the heavy playout (:func:`pattern_code`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from numba import njit

from mctslab.games.go.layout import (
    BLACK,
    EMPTY,
    GUARD,
    WHITE,
)

__all__ = [
    "MOGO_PAT3",
    "MOGO_PATTERNS",
    "PAT_CELLS",
    "PAT_SWAP",
    "PAT_SYMBOLS",
    "Pattern3",
    "pattern_code",
    "pattern_matches",
    "pattern_orientation",
    "pattern_table",
]


class Pattern3(NamedTuple):
    """One of MoGo's 3x3 patterns, drawn with the candidate move at the centre.

    ``rows``: top row first; ``X`` and ``O`` the two colours, ``.`` empty, ``?`` any
    point on the board, ``x`` X or empty, ``o`` O or empty, ``#`` off the board.
    ``to_play``: ``"X"`` or ``"O"`` where the pattern holds only with that colour to
    play, ``""`` for either. ``unless``: patterns that, matched in the same orientation,
    cancel the match. Each holds in all 8 orientations and with the colours exchanged."""

    name: str
    rows: tuple[str, str, str]
    to_play: str = ""
    unless: tuple[tuple[str, str, str], ...] = ()


#: MoGo's patterns, as the figures of Gelly, Wang, Munos, Teytaud, "Modification of UCT
#: with Patterns in Monte-Carlo Go" (INRIA RR-6062, 2006, section 3.2) draw them and
#: Fuego's ``GoUctPatterns`` (Enzenberger, Müller et al.) documents them. Hane: any of
#: four (the fourth only for X to play). Cut1: the first pattern, but not the next two.
#: Cut2: the six upper points, the three lower ones not O. Edge (the move on the first
#: line, the edge below): any of five, the last three for one colour to play.
MOGO_PATTERNS: tuple[Pattern3, ...] = (
    Pattern3("hane: enclosing", ("XOX", "...", "???")),
    Pattern3("hane: non-cutting", ("XO.", "...", "?.?")),
    Pattern3("hane: magari", ("XO?", "X..", "?.?")),
    Pattern3("hane: thin", ("XOO", "...", "?.?"), to_play="X"),
    Pattern3(
        "cut1",
        ("XO?", "O.?", "???"),
        unless=(("XO?", "O.O", "?.?"), ("XO?", "O..", "?O?")),
    ),
    Pattern3("cut2", ("?X?", "O.O", "xxx")),
    Pattern3("edge: 1", ("X.?", "O.?", "###")),
    Pattern3("edge: 2", ("?X?", "o.O", "###")),
    Pattern3("edge: 3", ("?XO", "?.?", "###"), to_play="X"),
    Pattern3("edge: 4", ("?XO", "?.o", "###"), to_play="O"),
    Pattern3("edge: 5", ("?XO", "O.X", "###"), to_play="O"),
)

PAT_SYMBOLS = {
    "X": (BLACK,),
    "O": (WHITE,),
    ".": (EMPTY,),
    "?": (EMPTY, BLACK, WHITE),
    "x": (EMPTY, BLACK),
    "o": (EMPTY, WHITE),
    "#": (GUARD,),
}
PAT_SWAP = str.maketrans("XOxo", "OXox")
#: The 8 points around a centre, in the order of their 2-bit fields in a pattern code:
#: (row, column) of the drawing; row 0 is ``v - W`` on the board, column 0 is ``v - 1``.
PAT_CELLS = ((0, 0), (0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1), (2, 2))


def pattern_orientation(rows: tuple[str, str, str], sym: int, swap: bool) -> tuple[str, str, str]:
    """``rows`` turned a quarter ``sym % 4`` times, mirrored if ``sym >= 4``, colours
    exchanged if ``swap``."""
    g = [list(r.translate(PAT_SWAP) if swap else r) for r in rows]
    if sym >= 4:
        g = [[g[c][r] for c in range(3)] for r in range(3)]
    for _ in range(sym % 4):
        g = [[g[2 - c][r] for c in range(3)] for r in range(3)]
    return ("".join(g[0]), "".join(g[1]), "".join(g[2]))


def pattern_table() -> npt.NDArray[np.uint8]:
    """The verdict of :data:`MOGO_PATTERNS` for every neighbourhood and player to move:
    entry ``player << 16 | code``, ``code`` holding the colour (0 empty, 1 black, 2 white,
    3 off the board) of the ``i``-th point of :data:`PAT_CELLS` in bits ``2i, 2i + 1``.
    Built once at import, each pattern in its 8 orientations and both colourings."""
    codes = np.arange(1 << 16, dtype=np.int64)
    fields = [(codes >> (2 * i)) & 3 for i in range(8)]

    def match(rows: tuple[str, str, str]) -> npt.NDArray[np.bool_]:
        m = np.ones(1 << 16, dtype=np.bool_)
        for i, (r, c) in enumerate(PAT_CELLS):
            m &= np.isin(fields[i], PAT_SYMBOLS[rows[r][c]])
        return m

    table = np.zeros(2 << 16, dtype=np.uint8)
    for pattern in MOGO_PATTERNS:
        for sym in range(8):
            for swap in (False, True):
                m = match(pattern_orientation(pattern.rows, sym, swap))
                for unless in pattern.unless:
                    m &= ~match(pattern_orientation(unless, sym, swap))
                colour = pattern.to_play.translate(PAT_SWAP) if swap else pattern.to_play
                for player in (0, 1):
                    if colour in ("", "XO"[player]):
                        table[player << 16 : (player + 1) << 16] |= m
    return table


#: MoGo's 3x3 pattern table (see :func:`pattern_table`): 1 where a pattern matches.
#: numba reads it as a constant of the compiled heavy playout.
MOGO_PAT3 = pattern_table()


def pattern_matches(rows: Sequence[str], player: int) -> bool:
    """Whether MoGo's patterns propose the centre of the neighbourhood drawn as three
    rows (``X`` black, ``O`` white, ``.`` empty, ``#`` off the board; the centre is
    ignored) for ``player`` (0 black, 1 white) to play: a read of :data:`MOGO_PAT3`."""
    values = {".": EMPTY, "X": BLACK, "O": WHITE, "#": GUARD}
    code = 0
    for i, (r, c) in enumerate(PAT_CELLS):
        code |= values[rows[r][c]] << (2 * i)
    return bool(MOGO_PAT3[(player << 16) | code])


@njit(inline="always")
def pattern_code(s, col, w, v):  # type: ignore[no-untyped-def]
    """The code of the 8 points around virtual point ``v`` (see :func:`pattern_table`)."""
    return (
        s[col + v - w - 1]
        | (s[col + v - w] << 2)
        | (s[col + v - w + 1] << 4)
        | (s[col + v - 1] << 6)
        | (s[col + v + 1] << 8)
        | (s[col + v + w - 1] << 10)
        | (s[col + v + w] << 12)
        | (s[col + v + w + 1] << 14)
    )
