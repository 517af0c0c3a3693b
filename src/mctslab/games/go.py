"""Go as rule kernels: area scoring, positional superko, OpenSpiel's encodings.

Rules (Tromp-Taylor, as OpenSpiel's ``go`` wherever the rules agree):

- board ``board_size`` x ``board_size``, 5 to 19 (default 9); Black (player 0)
  moves first; ``komi`` (default 7.5, a multiple of 0.5) is given to White;
- a move is a stone on an empty point or a pass; stones of the opponent's
  strings left without liberties are captured; **suicide is illegal** (a move
  that leaves its own string without liberties and captures nothing);
- **ko**: ``ko="superko"`` (default), positional superko: a stone may not recreate
  any board position of the game so far (the board alone, whoever is to move);
  ``ko="simple"``: only the immediate recapture of a single stone that has just
  captured a single stone is illegal (OpenSpiel's ko point);
- the game ends after **two consecutive passes**, or after ``max_game_length``
  moves (passes included; default ``2 * board_size**2``, OpenSpiel's default);
- **area scoring** (Tromp-Taylor): a point counts for a colour if it holds one of
  its stones or if it is empty and every empty region it belongs to reaches stones
  of that colour only; Black's score is its area minus White's minus komi; the
  returns are +1/-1 to the player with the higher score, 0/0 on a tie (integer komi).

Actions as OpenSpiel's ``go(board_size=N)``: the point in row ``r`` (0 = row 1, at
the bottom) and column ``c`` (0 = column a) is ``r * N + c``; pass is ``N * N``;
``num_actions = N * N + 1``. Action names are OpenSpiel's, ``"B a1"``, ``"W PASS"``
(the colour of the player to move; columns skip the letter i); ``string_to_action``
also takes ``a1``, ``A1``, ``pass``.

**Where the rules differ from OpenSpiel's** (``tests/games/test_go.py`` checks that
every difference met on random games is one of these):

1. *Superko.* OpenSpiel allows a move that repeats an earlier position (only the
   simple-ko point is refused) and then ends the game at once as a **draw**. With
   ``ko="superko"`` such a move is illegal here and the game goes on; with
   ``ko="simple"`` it is legal and the game goes on (to two passes or the length
   limit). Legal actions are equal to OpenSpiel's at every position where no move
   repeats a position (always with ``ko="simple"``), and the repeating moves are
   the only ones missing with ``ko="superko"``.
2. *Komi* must be a multiple of 0.5 here (scores are kept in half points);
   OpenSpiel takes any float. *Handicap* stones are not supported (OpenSpiel's
   ``handicap`` parameter).

Everything else is OpenSpiel's: the game length limit, the end by two passes,
suicide, the area count (equal to OpenSpiel's on every finished random game and on
hundreds of random boards), the simple-ko point (set when a stone played where all
four neighbours are the opponent's or the edge captures exactly one stone; cleared
by any other move or a pass) and the observation.

State layout (``int64``), with ``W = board_size + 2`` and ``V = W * W``: points are
*virtual* points of a board with a one-point border of guard cells, ``v = (r + 1) * W +
c + 1`` (so a neighbour is ``v - W, v - 1, v + 1, v + W``, never out of the array):
``[player, winner, moves, passes, ko, hash, captured_by_black, captured_by_white,
last_action, score2, 0 .. 0]`` (16 words), then eight arrays of ``V`` words: ``colour``
(0 empty, 1 black, 2 white, 3 guard), ``head`` (the string a stone belongs to),
``next`` (the string's stones as a circular linked list), and, at a string's head,
``libs`` (its pseudo-liberties), ``lsum`` and ``lsq`` (the sum of its pseudo-liberties'
points and of their squares), ``size`` (stones), ``shash`` (the XOR of its stones'
Zobrist keys); then a 4096-bit Bloom filter of the positions seen (64 words) and the
Zobrist hash of the position after every move, ``hist[0 .. max_game_length]``.
``params = [N, W, komi * 2, superko, max_game_length, header ..]``, then the action to
virtual point table and the 64-bit Zobrist keys (fixed seed), so that the kernels are
functions of ``(state, params)`` alone.

Capture and liberty bookkeeping (as OpenSpiel's ``GoBoard``, after the pseudo-liberty
technique of Fuego and Pachi): a string's *pseudo-liberties* count each (stone, empty
neighbour) adjacency, so they are kept exactly by adding and subtracting as stones
come and go, without finding out which empty points are shared. A string has no
liberty iff it has 0 pseudo-liberties, and exactly one (is in atari) iff all its
pseudo-liberties are one point: ``lsum**2 == lsq * libs``. Placing a stone makes a
one-stone string, merges the neighbouring strings of its colour into the largest
(relabelling the smaller ones' stones and splicing the linked lists), takes the
point from the pseudo-liberties of every neighbouring string, then removes the
opponent strings left at 0, giving their points back to the strings around them.
Legality of a point costs four neighbour reads (an empty neighbour; an own string
not in atari; an opponent string in atari: a capture). Superko hashes are Zobrist,
64 bits, incremental: the hash after a stone is the hash before, XOR the stone's key,
XOR the ``shash`` of each string it captures; it is refused if the Bloom filter has its
bit and the history holds it (a scan of ``hist``, taken only on a filter hit).

Playouts (the engines call them through ``RuleKernels``): :func:`rollout_actions` names
the moves a Go playout chooses among, the legal points that do not fill one of the
mover's own one-point eyes (an empty point whose four neighbours are the mover's stones
or the edge, and whose diagonal points hold at most one opponent stone, none if the
point is on the edge), and the pass only when no such point remains; random games then
end by two passes with the eyes of living groups kept. The engines' ``"random"``
simulation of Go, and ``playout`` (the kernel contract's, drawing as the generic loop
over ``rollout_actions``), choose uniformly among them. :func:`heavy_action` is one move
of a heavy playout, the engines' ``"heavy"`` simulation of Go (:func:`heavy_playout` to
the end): escape an atari the previous move made, else capture a string in atari next
to it, else one of MoGo's 3x3 patterns around it (:data:`MOGO_PATTERNS`, looked up in
:data:`MOGO_PAT3`), else the light playout's move.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from numba import njit

from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import TERMINAL, GameInfo
from mctslab.core.text import is_ascii_digits
from mctslab.games.kernels import (
    KernelGame,
    KernelState,
    RuleKernels,
    draw_top31,
    rng_randint,
    winner_returns,
)

__all__ = [
    "MOGO_PAT3",
    "MOGO_PATTERNS",
    "Go",
    "Pattern3",
    "heavy_action",
    "heavy_playout",
    "light_action",
    "pattern_matches",
    "rollout_actions",
    "uniform_action",
]

# params: header words, then the action -> virtual point table, then the Zobrist keys.
_P_N, _P_W, _P_KOMI2, _P_SUPERKO, _P_MAXLEN = 0, 1, 2, 3, 4
_P_COLOUR, _P_HEAD, _P_NEXT, _P_LIBS, _P_LSUM, _P_LSQ, _P_SIZE, _P_SHASH = 5, 6, 7, 8, 9, 10, 11, 12
_P_BLOOM, _P_HIST, _P_LEN, _P_A2V, _P_ZOB = 13, 14, 15, 16, 17
_P_ELIST, _P_EPOS = 18, 19
_PARAMS_HEADER = 24

# state header
_S_PLAYER, _S_WINNER, _S_MOVES, _S_PASSES, _S_KO, _S_HASH = 0, 1, 2, 3, 4, 5
_S_CAPTURED, _S_LAST, _S_SCORE2, _S_NEMPTY = 6, 8, 9, 10  # captured: 6 by black, 7 by white
_HEADER = 16
_BLOOM_WORDS = 64
_ZOBRIST_SEED = 0x60_0D_5EED

EMPTY, BLACK, WHITE, GUARD = 0, 1, 2, 3


def _make_params(board_size: int, komi2: int, superko: bool, max_len: int) -> np.ndarray:
    n, w = board_size, board_size + 2
    v = w * w
    colour = _HEADER
    offsets = [colour + i * v for i in range(8)]
    elist = colour + 8 * v
    epos = elist + n * n
    bloom = epos + v
    hist = bloom + _BLOOM_WORDS
    length = hist + max_len + 1
    a2v = _PARAMS_HEADER
    zob = a2v + n * n
    params = np.zeros(zob + 3 * v, dtype=np.int64)
    params[:5] = [n, w, komi2, int(superko), max_len]
    params[_P_COLOUR : _P_SHASH + 1] = offsets
    params[_P_BLOOM], params[_P_HIST], params[_P_LEN] = bloom, hist, length
    params[_P_A2V], params[_P_ZOB] = a2v, zob
    params[_P_ELIST], params[_P_EPOS] = elist, epos
    for a in range(n * n):
        params[a2v + a] = (a // n + 1) * w + a % n + 1
    keys = np.random.default_rng(_ZOBRIST_SEED).integers(
        np.iinfo(np.int64).min, np.iinfo(np.int64).max, size=3 * v, dtype=np.int64
    )
    keys[:v] = 0  # colour 0 (empty) has no key: keys[c * V + v] for c = 1, 2
    params[zob:] = keys
    return params


@njit(cache=True)
def init(params):  # type: ignore[no-untyped-def]
    n, w = params[_P_N], params[_P_W]
    s = np.zeros(params[_P_LEN], dtype=np.int64)
    s[_S_WINNER] = -1
    s[_S_KO] = -1
    s[_S_LAST] = -1
    col = params[_P_COLOUR]
    for v in range(w * w):
        s[col + v] = GUARD
    a2v, elist, epos = params[_P_A2V], params[_P_ELIST], params[_P_EPOS]
    for a in range(n * n):
        s[col + params[a2v + a]] = EMPTY
        s[elist + a] = a
        s[epos + params[a2v + a]] = a
    s[_S_NEMPTY] = n * n
    _remember(s, params, 0)  # hist[0] = 0: the empty board
    return s


@njit(inline="always")
def _remember(s, params, h):  # type: ignore[no-untyped-def]
    s[params[_P_HIST] + s[_S_MOVES]] = h
    bit = (h >> 52) & 4095
    s[params[_P_BLOOM] + (bit >> 6)] |= np.int64(1) << (bit & 63)


@njit(inline="always")
def _seen(s, params, h):  # type: ignore[no-untyped-def]
    """Whether the board position of hash ``h`` occurred before in the game."""
    bit = (h >> 52) & 4095
    if (s[params[_P_BLOOM] + (bit >> 6)] >> (bit & 63)) & 1 == 0:
        return False
    hist = params[_P_HIST]
    found = False
    for i in range(s[_S_MOVES] + 1):
        if s[hist + i] == h:
            found = True
            break
    return found


@njit(inline="always")
def _in_atari(s, params, h):  # type: ignore[no-untyped-def]
    """Whether string ``h`` (a head) has exactly one liberty."""
    n = s[params[_P_LIBS] + h]
    m = s[params[_P_LSUM] + h]
    return n > 0 and m * m == s[params[_P_LSQ] + h] * n


@njit(inline="always")
def _neighbour(s, m, c, col, head, libs, lsum, lsq, shash, safe, cap, h1, h2, h3):  # type: ignore[no-untyped-def]
    """One neighbour ``m`` of a candidate point of colour ``c``: ``safe`` becomes true on
    an empty point, an own string not in atari or an opponent string in atari (whose
    capture adds its ``shash`` to ``cap`` once: ``h1 .. h3`` are the strings seen)."""
    x = s[col + m]
    if x == EMPTY:
        safe = True
    elif x == c:
        h = s[head + m]
        q = s[lsum + h]
        if q * q != s[lsq + h] * s[libs + h]:  # the point is a liberty: libs > 0
            safe = True
    elif x != GUARD:
        h = s[head + m]
        q = s[lsum + h]
        if q * q == s[lsq + h] * s[libs + h]:  # in atari: its one liberty is the point
            safe = True
            if h != h1 and h != h2 and h != h3:
                cap ^= s[shash + h]
                if h1 < 0:
                    h1 = h
                elif h2 < 0:
                    h2 = h
                else:
                    h3 = h
    return safe, cap, h1, h2, h3


@njit(inline="always")
def _legal_point(s, params, v, c):  # type: ignore[no-untyped-def]
    """Whether colour ``c`` may play at virtual point ``v``: empty, not the ko point,
    not suicide, and (superko) not a repetition."""
    col = params[_P_COLOUR]
    if s[col + v] != EMPTY or v == s[_S_KO]:
        return False
    w = params[_P_W]
    superko = params[_P_SUPERKO] != 0
    x0, x1, x2, x3 = s[col + v - w], s[col + v - 1], s[col + v + 1], s[col + v + w]
    has_empty = x0 == EMPTY or x1 == EMPTY or x2 == EMPTY or x3 == EMPTY
    if not superko and has_empty:
        return True
    o = 3 - c
    if has_empty and x0 != o and x1 != o and x2 != o and x3 != o:
        # the common case: a liberty and no capture; superko: the hash with the stone
        return not _seen(s, params, s[_S_HASH] ^ params[params[_P_ZOB] + c * w * w + v])
    head, libs, lsum = params[_P_HEAD], params[_P_LIBS], params[_P_LSUM]
    lsq, shash = params[_P_LSQ], params[_P_SHASH]
    safe = False
    cap = np.int64(0)
    h1 = h2 = h3 = np.int64(-1)
    safe, cap, h1, h2, h3 = _neighbour(
        s, v - w, c, col, head, libs, lsum, lsq, shash, safe, cap, h1, h2, h3
    )
    safe, cap, h1, h2, h3 = _neighbour(
        s, v - 1, c, col, head, libs, lsum, lsq, shash, safe, cap, h1, h2, h3
    )
    safe, cap, h1, h2, h3 = _neighbour(
        s, v + 1, c, col, head, libs, lsum, lsq, shash, safe, cap, h1, h2, h3
    )
    safe, cap, h1, h2, h3 = _neighbour(
        s, v + w, c, col, head, libs, lsum, lsq, shash, safe, cap, h1, h2, h3
    )
    if not safe:
        return False
    if not superko:
        return True
    new = s[_S_HASH] ^ params[params[_P_ZOB] + c * w * w + v] ^ cap
    return not _seen(s, params, new)


@njit(cache=True)
def legal_actions(s, params, out):  # type: ignore[no-untyped-def]
    if s[_S_PLAYER] < 0:
        return 0
    n, w = params[_P_N], params[_P_W]
    c = s[_S_PLAYER] + 1
    k = 0
    for r in range(n):
        base = (r + 1) * w + 1
        for i in range(n):
            if _legal_point(s, params, base + i, c):
                out[k] = r * n + i
                k += 1
    out[k] = n * n
    return k + 1


@njit(inline="always")
def _add_lib(s, params, h, p):  # type: ignore[no-untyped-def]
    s[params[_P_LIBS] + h] += 1
    s[params[_P_LSUM] + h] += p
    s[params[_P_LSQ] + h] += p * p


@njit(inline="always")
def _remove_lib(s, params, h, p):  # type: ignore[no-untyped-def]
    s[params[_P_LIBS] + h] -= 1
    s[params[_P_LSUM] + h] -= p
    s[params[_P_LSQ] + h] -= p * p


@njit(cache=True)
def _merge(s, params, a, b):  # type: ignore[no-untyped-def]
    """Merge the strings of heads ``a`` and ``b`` into the larger; returns its head."""
    size, head, nxt = params[_P_SIZE], params[_P_HEAD], params[_P_NEXT]
    if s[size + a] < s[size + b]:
        a, b = b, a
    cur = b
    while True:
        s[head + cur] = a
        cur = s[nxt + cur]
        if cur == b:
            break
    t = s[nxt + a]
    s[nxt + a] = s[nxt + b]
    s[nxt + b] = t
    s[params[_P_LIBS] + a] += s[params[_P_LIBS] + b]
    s[params[_P_LSUM] + a] += s[params[_P_LSUM] + b]
    s[params[_P_LSQ] + a] += s[params[_P_LSQ] + b]
    s[params[_P_SIZE] + a] += s[params[_P_SIZE] + b]
    s[params[_P_SHASH] + a] ^= s[params[_P_SHASH] + b]
    return a


@njit(cache=True)
def _remove_string(s, params, h, o):  # type: ignore[no-untyped-def]
    """Capture the string of head ``h`` (colour ``o``), giving its points back as
    pseudo-liberties to the strings around it; returns its number of stones."""
    col, head, nxt = params[_P_COLOUR], params[_P_HEAD], params[_P_NEXT]
    w = params[_P_W]
    zob = params[_P_ZOB] + o * w * w
    elist, epos, size = params[_P_ELIST], params[_P_EPOS], params[_P_N]
    n = 0
    cur = h
    while True:
        following = s[nxt + cur]
        s[col + cur] = EMPTY
        s[_S_HASH] ^= params[zob + cur]
        e = s[_S_NEMPTY]
        s[elist + e] = (cur // w - 1) * size + cur % w - 1
        s[epos + cur] = e
        s[_S_NEMPTY] = e + 1
        n += 1
        for d in range(4):
            m = cur - w if d == 0 else (cur - 1 if d == 1 else (cur + 1 if d == 2 else cur + w))
            x = s[col + m]
            if BLACK <= x <= WHITE and s[head + m] != h:
                _add_lib(s, params, s[head + m], cur)
        cur = following
        if cur == h:
            break
    return n


@njit(cache=True)
def apply_action(s, params, a):  # type: ignore[no-untyped-def]
    n = params[_P_N]
    p = s[_S_PLAYER]
    s[_S_MOVES] += 1
    s[_S_LAST] = a
    if a == n * n:  # pass
        s[_S_KO] = -1
        s[_S_PASSES] += 1
        _remember(s, params, s[_S_HASH])
        if s[_S_PASSES] >= 2 or s[_S_MOVES] >= params[_P_MAXLEN]:
            _finish(s, params)
        else:
            s[_S_PLAYER] = 1 - p
        return
    s[_S_PASSES] = 0
    w = params[_P_W]
    col, head, nxt = params[_P_COLOUR], params[_P_HEAD], params[_P_NEXT]
    c = p + 1
    o = 2 - p
    v = params[params[_P_A2V] + a]
    enemy_eye = True
    for d in range(4):
        m = v - w if d == 0 else (v - 1 if d == 1 else (v + 1 if d == 2 else v + w))
        x = s[col + m]
        if x != o and x != GUARD:
            enemy_eye = False
    key = params[params[_P_ZOB] + c * w * w + v]
    s[col + v] = c
    # the point leaves the empty list: the list's last entry takes its place
    elist, epos = params[_P_ELIST], params[_P_EPOS]
    e = s[_S_NEMPTY] - 1
    i = s[epos + v]
    moved = s[elist + e]
    s[elist + i] = moved
    s[epos + params[params[_P_A2V] + moved]] = i
    s[_S_NEMPTY] = e
    s[_S_HASH] ^= key
    s[head + v] = v
    s[nxt + v] = v
    s[params[_P_LIBS] + v] = 0
    s[params[_P_LSUM] + v] = 0
    s[params[_P_LSQ] + v] = 0
    s[params[_P_SIZE] + v] = 1
    s[params[_P_SHASH] + v] = key
    h = v
    for d in range(4):
        m = v - w if d == 0 else (v - 1 if d == 1 else (v + 1 if d == 2 else v + w))
        x = s[col + m]
        if x == EMPTY:
            _add_lib(s, params, h, m)
        elif x == c and s[head + m] != h:
            h = _merge(s, params, h, s[head + m])
    for d in range(4):
        m = v - w if d == 0 else (v - 1 if d == 1 else (v + 1 if d == 2 else v + w))
        x = s[col + m]
        if BLACK <= x <= WHITE:
            _remove_lib(s, params, s[head + m], v)
    captured = 0
    last = -1
    for d in range(4):
        m = v - w if d == 0 else (v - 1 if d == 1 else (v + 1 if d == 2 else v + w))
        if s[col + m] == o and s[params[_P_LIBS] + s[head + m]] == 0:
            captured += _remove_string(s, params, s[head + m], o)
            last = m
    s[_S_CAPTURED + p] += captured
    s[_S_KO] = last if enemy_eye and captured == 1 else -1
    _remember(s, params, s[_S_HASH])
    if s[_S_MOVES] >= params[_P_MAXLEN]:
        _finish(s, params)
    else:
        s[_S_PLAYER] = 1 - p


@njit(cache=True)
def area_score2(s, params):  # type: ignore[no-untyped-def]
    """Twice Black's Tromp-Taylor score, komi included: ``2 * (area(B) - area(W)) - 2 * komi``."""
    n, w = params[_P_N], params[_P_W]
    col, a2v = params[_P_COLOUR], params[_P_A2V]
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
    return 2 * delta - params[_P_KOMI2]


@njit(cache=True)
def _finish(s, params):  # type: ignore[no-untyped-def]
    score2 = area_score2(s, params)
    s[_S_SCORE2] = score2
    s[_S_WINNER] = 0 if score2 > 0 else (1 if score2 < 0 else -1)
    s[_S_PLAYER] = TERMINAL


returns = winner_returns  # the winner is kept in s[1]


@njit(cache=True)
def heuristic(s, params, out):  # type: ignore[no-untyped-def]
    """The Tromp-Taylor score of the board as it stands, squashed to ``(-1, 1)``."""
    d = area_score2(s, params) / 2.0
    v = d / (abs(d) + params[_P_N])
    out[0] = v
    out[1] = -v


@njit(inline="always")
def _own_eye(s, params, v, c):  # type: ignore[no-untyped-def]
    """Whether empty point ``v`` is a one-point eye of colour ``c``: its four neighbours
    are ``c`` or the edge; of its diagonals at most one is the opponent's (none on the edge)."""
    col, w = params[_P_COLOUR], params[_P_W]
    for d in range(4):
        m = v - w if d == 0 else (v - 1 if d == 1 else (v + 1 if d == 2 else v + w))
        x = s[col + m]
        if x != c and x != GUARD:
            return False
    o = 3 - c
    enemy = 0
    edge = 0
    for d in range(4):
        m = v - w - 1 if d == 0 else (v - w + 1 if d == 1 else (v + w - 1 if d == 2 else v + w + 1))
        x = s[col + m]
        if x == o:
            enemy += 1
        elif x == GUARD:
            edge = 1
    return enemy + edge < 2


@njit(cache=True)
def rollout_actions(s, params, out):  # type: ignore[no-untyped-def]
    """The moves a Go playout chooses among, ascending, written to ``out``; their number.

    Every legal point that does not fill one of the mover's own one-point eyes (an empty
    point whose four neighbours are the mover's stones or the edge, and whose diagonals
    hold at most one opponent stone, none on the edge), and the pass (``N * N``) only when
    there is no such point: then ``n == 1`` and ``out[0] == N * N``. None (0) once the
    game is over. This is the classic rule of Monte-Carlo Go (Brügmann 1993; MoGo: Gelly,
    Wang, Munos, Teytaud 2006): uniformly random games that may fill their own eyes kill
    every group and never end sensibly; with it they end by two passes, living groups
    keeping their eyes. ``out`` needs ``N * N`` entries (``N * N + 1`` as the engines'
    buffers of ``num_actions``)."""
    if s[_S_PLAYER] < 0:
        return 0
    nn = params[_P_N] * params[_P_N]
    col, a2v = params[_P_COLOUR], params[_P_A2V]
    c = s[_S_PLAYER] + 1
    k = 0
    for a in range(nn):
        v = params[a2v + a]
        # emptiness first: most points fail there, then the eye test (four reads at most)
        if s[col + v] == EMPTY and not _own_eye(s, params, v, c) and _legal_point(s, params, v, c):
            out[k] = a
            k += 1
    if k == 0:
        out[0] = nn
        k = 1
    return k


@njit(cache=True)
def light_action(s, params, rng, buf):  # type: ignore[no-untyped-def]
    """One move of the light Go playout (the engines' ``"random"`` simulation of Go): a
    uniformly random one of the moves of :func:`rollout_actions`, found by rejection
    among the empty points instead of by listing them all.

    The state keeps its empty points in a list (``N * N`` words and a count, kept as
    stones come and go: a placed stone's entry is replaced by the list's last, a
    captured stone's point is appended). While candidates remain, one is drawn
    uniformly, ``j = rng_randint(rng, m)`` over the ``m`` untried, and tested (not an own
    one-point eye, legal); a rejected one is swapped out of the candidates (a partial
    Fisher-Yates shuffle; the first draw reads the state's list, copied to ``buf`` only
    after a rejection). The first accepted point of a uniformly random order is uniform
    among the acceptable ones, whatever the list's order; none left: the pass. Most plies need one or two tests against
    the ``N * N`` of a full scan; this is how fast Monte-Carlo Go programs draw their
    playout moves (libEGO, Fuego, Pachi). ``buf``: ``N * N + 1`` int64 entries."""
    a2v, elist = params[_P_A2V], params[_P_ELIST]
    c = s[_S_PLAYER] + 1
    m = s[_S_NEMPTY]
    seed = rng[0]
    if m > 0:  # the first draw reads the list itself: most plies end here, uncopied
        seed, r = draw_top31(seed)
        j = np.int64(r % np.uint64(m))
        a = s[elist + j]
        v = params[a2v + a]
        if not _own_eye(s, params, v, c) and _legal_point(s, params, v, c):
            rng[0] = seed
            return a
        for i in range(m):
            buf[i] = s[elist + i]
        m -= 1
        buf[j] = buf[m]
    while m > 0:
        seed, r = draw_top31(seed)
        j = np.int64(r % np.uint64(m))
        a = buf[j]
        v = params[a2v + a]
        if not _own_eye(s, params, v, c) and _legal_point(s, params, v, c):
            rng[0] = seed
            return a
        m -= 1
        buf[j] = buf[m]
    rng[0] = seed
    return params[_P_N] * params[_P_N]


@njit(cache=True)
def uniform_action(s, params, rng, buf):  # type: ignore[no-untyped-def]
    """A uniformly random legal action, the pass included, by the same rejection as
    :func:`light_action` (candidates: the empty points and the pass, which is always
    legal): the move of a random rollout that does not know Go, OpenSpiel's
    ``RandomRolloutEvaluator``'s. Its playouts fill their own eyes and mostly end at the
    length limit; ``benchmarks/bench_go.py`` plays them for the equal-work comparison."""
    a2v, elist = params[_P_A2V], params[_P_ELIST]
    nn = params[_P_N] * params[_P_N]
    c = s[_S_PLAYER] + 1
    m = s[_S_NEMPTY] + 1
    seed = rng[0]
    seed, r = draw_top31(seed)  # the first draw reads the list itself, as light_action's
    j = np.int64(r % np.uint64(m))
    a = nn if j == m - 1 else s[elist + j]
    if a == nn or _legal_point(s, params, params[a2v + a], c):
        rng[0] = seed
        return a
    for i in range(m - 1):
        buf[i] = s[elist + i]
    buf[m - 1] = nn
    m -= 1
    buf[j] = buf[m]
    while True:
        seed, r = draw_top31(seed)
        j = np.int64(r % np.uint64(m))
        a = buf[j]
        if a == nn or _legal_point(s, params, params[a2v + a], c):
            break
        m -= 1
        buf[j] = buf[m]
    rng[0] = seed
    return a


@njit(cache=True)
def playout(s, params, rng, out):  # type: ignore[no-untyped-def]
    """The light Go playout (the kernel contract's ``playout``): :func:`light_action` at
    each ply, so no own one-point eye is filled and a pass comes only when nothing else
    is left; in place, to the end. The same draws as the engines' loop over
    ``light_action``. Returns the plies played; writes the returns to ``out``."""
    buf = np.empty(params[_P_N] * params[_P_N] + 1, dtype=np.int64)
    plies = 0
    while s[_S_PLAYER] != TERMINAL:
        apply_action(s, params, light_action(s, params, rng, buf))
        plies += 1
    winner_returns(s, params, out)
    return plies


# --- MoGo's 3x3 patterns ----------------------------------------------------------------


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

_PAT_SYMBOLS = {
    "X": (BLACK,),
    "O": (WHITE,),
    ".": (EMPTY,),
    "?": (EMPTY, BLACK, WHITE),
    "x": (EMPTY, BLACK),
    "o": (EMPTY, WHITE),
    "#": (GUARD,),
}
_PAT_SWAP = str.maketrans("XOxo", "OXox")
#: The 8 points around a centre, in the order of their 2-bit fields in a pattern code:
#: (row, column) of the drawing; row 0 is ``v - W`` on the board, column 0 is ``v - 1``.
_PAT_CELLS = ((0, 0), (0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1), (2, 2))


def _pattern_orientation(rows: tuple[str, str, str], sym: int, swap: bool) -> tuple[str, str, str]:
    """``rows`` turned a quarter ``sym % 4`` times, mirrored if ``sym >= 4``, colours
    exchanged if ``swap``."""
    g = [list(r.translate(_PAT_SWAP) if swap else r) for r in rows]
    if sym >= 4:
        g = [[g[c][r] for c in range(3)] for r in range(3)]
    for _ in range(sym % 4):
        g = [[g[2 - c][r] for c in range(3)] for r in range(3)]
    return ("".join(g[0]), "".join(g[1]), "".join(g[2]))


def _pattern_table() -> npt.NDArray[np.uint8]:
    """The verdict of :data:`MOGO_PATTERNS` for every neighbourhood and player to move:
    entry ``player << 16 | code``, ``code`` holding the colour (0 empty, 1 black, 2 white,
    3 off the board) of the ``i``-th point of :data:`_PAT_CELLS` in bits ``2i, 2i + 1``.
    Built once at import, each pattern in its 8 orientations and both colourings."""
    codes = np.arange(1 << 16, dtype=np.int64)
    fields = [(codes >> (2 * i)) & 3 for i in range(8)]

    def match(rows: tuple[str, str, str]) -> npt.NDArray[np.bool_]:
        m = np.ones(1 << 16, dtype=np.bool_)
        for i, (r, c) in enumerate(_PAT_CELLS):
            m &= np.isin(fields[i], _PAT_SYMBOLS[rows[r][c]])
        return m

    table = np.zeros(2 << 16, dtype=np.uint8)
    for pattern in MOGO_PATTERNS:
        for sym in range(8):
            for swap in (False, True):
                m = match(_pattern_orientation(pattern.rows, sym, swap))
                for unless in pattern.unless:
                    m &= ~match(_pattern_orientation(unless, sym, swap))
                colour = pattern.to_play.translate(_PAT_SWAP) if swap else pattern.to_play
                for player in (0, 1):
                    if colour in ("", "XO"[player]):
                        table[player << 16 : (player + 1) << 16] |= m
    return table


#: MoGo's 3x3 pattern table (see :func:`_pattern_table`): 1 where a pattern matches.
#: numba reads it as a constant of the compiled heavy playout.
MOGO_PAT3 = _pattern_table()


def pattern_matches(rows: Sequence[str], player: int) -> bool:
    """Whether MoGo's patterns propose the centre of the neighbourhood drawn as three
    rows (``X`` black, ``O`` white, ``.`` empty, ``#`` off the board; the centre is
    ignored) for ``player`` (0 black, 1 white) to play: a read of :data:`MOGO_PAT3`."""
    values = {".": EMPTY, "X": BLACK, "O": WHITE, "#": GUARD}
    code = 0
    for i, (r, c) in enumerate(_PAT_CELLS):
        code |= values[rows[r][c]] << (2 * i)
    return bool(MOGO_PAT3[(player << 16) | code])


@njit(inline="always")
def _pattern_code(s, col, w, v):  # type: ignore[no-untyped-def]
    """The code of the 8 points around virtual point ``v`` (see :func:`_pattern_table`)."""
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


# --- heavy playouts ------------------------------------------------------------------


@njit(inline="always")
def _around(v, w, d):  # type: ignore[no-untyped-def]
    """The ``d``-th (0 .. 7) of the 8 points around virtual point ``v``."""
    if d < 3:
        return v - w - 1 + d
    if d == 3:
        return v - 1
    if d == 4:
        return v + 1
    return v + w - 6 + d


@njit(inline="always")
def _listed(buf, k, x):  # type: ignore[no-untyped-def]
    """Whether ``x`` is among ``buf[:k]``."""
    for i in range(k):  # noqa: SIM110 (numba: a plain loop, no generator)
        if buf[i] == x:
            return True
    return False


@njit(cache=True)
def _liberties_after(s, params, v, c):  # type: ignore[no-untyped-def]
    """The liberties, counted up to 2, of the string of colour ``c`` through ``v`` once
    ``c`` plays at ``v`` (a legal move): the distinct empty points next to the stone or to
    the strings it joins, the points of the opponent strings it captures (those in atari
    next to ``v``) counted as empty. Stops at the second liberty found."""
    col, head, nxt, w = params[_P_COLOUR], params[_P_HEAD], params[_P_NEXT], params[_P_W]
    o = 3 - c
    k1 = k2 = k3 = k4 = np.int64(-1)  # the heads of the strings captured
    for d in range(4):
        m = v - w if d == 0 else (v - 1 if d == 1 else (v + 1 if d == 2 else v + w))
        if s[col + m] == o and _in_atari(s, params, s[head + m]):
            h = s[head + m]
            if k1 < 0:
                k1 = h
            elif k2 < 0:
                k2 = h
            elif k3 < 0:
                k3 = h
            else:
                k4 = h
    first = np.int64(-1)
    for d in range(4):
        m = v - w if d == 0 else (v - 1 if d == 1 else (v + 1 if d == 2 else v + w))
        x = s[col + m]
        if x == EMPTY or (x == o and s[head + m] in (k1, k2, k3, k4)):
            if first < 0:
                first = m
            elif m != first:
                return 2
    g1 = g2 = g3 = np.int64(-1)  # the own strings walked already
    for d in range(4):
        m = v - w if d == 0 else (v - 1 if d == 1 else (v + 1 if d == 2 else v + w))
        if s[col + m] != c:
            continue
        h = s[head + m]
        if h in (g1, g2, g3):
            continue
        if g1 < 0:
            g1 = h
        elif g2 < 0:
            g2 = h
        else:
            g3 = h
        cur = h
        while True:
            for e in range(4):
                q = cur - w if e == 0 else (cur - 1 if e == 1 else (cur + 1 if e == 2 else cur + w))
                if q == v:
                    continue
                x = s[col + q]
                if x == EMPTY or (x == o and s[head + q] in (k1, k2, k3, k4)):
                    if first < 0:
                        first = q
                    elif q != first:
                        return 2
            cur = s[nxt + cur]
            if cur == h:
                break
    return 0 if first < 0 else 1


@njit(cache=True)
def heavy_action(s, params, rng, buf):  # type: ignore[no-untyped-def]
    """One move of a heavy (MoGo-style) Go playout for the player to move (not at the end).

    Rules in order of priority, each answering about the previous move ``m`` (skipped
    when there is none or it was a pass); within a rule, the candidates are drawn
    uniformly, ``k = rng_randint(rng, n)`` over the ``n`` found in the order below:

    a. *atari escape* (Coulom 2007, Crazy Stone; Fuego's atari defence): for each of
       the mover's strings next to ``m`` that ``m`` put in atari (a string next to ``m``
       in atari now had ``m`` as a liberty), its last liberty, if the move is legal,
       does not fill an own one-point eye and leaves the string more than one liberty
       (extending into a self-atari escapes nothing);
    b. *capture* (Coulom 2007; Fuego's atari capture): the last liberty of each opponent
       string in atari with a stone on ``m`` or on one of the 8 points around it, if
       legal (a capture never fills an own eye);
    c. *MoGo's 3x3 patterns* (Gelly, Wang, Munos, Teytaud 2006): the empty points of
       the 8 around ``m`` whose neighbourhood matches :data:`MOGO_PATTERNS` for the
       mover (:data:`MOGO_PAT3`), legal and not filling an own one-point eye;
    d. otherwise the light playout's move, :func:`light_action`.

    Every draw comes from ``rng`` (the engines' SplitMix64 word): one for rules a-c,
    those of :func:`light_action` for d; so the same state and ``rng`` give the same
    move. ``buf``: an ``int64`` scratch array of ``N * N + 1`` entries."""
    n, w = params[_P_N], params[_P_W]
    nn = n * n
    last = s[_S_LAST]
    if 0 <= last < nn:
        col, head = params[_P_COLOUR], params[_P_HEAD]
        libs, lsum = params[_P_LIBS], params[_P_LSUM]
        c = s[_S_PLAYER] + 1
        o = 3 - c
        lv = params[params[_P_A2V] + last]
        # (a) atari escape; buf holds virtual points until one is chosen
        k = 0
        for d in range(4):
            m = lv - w if d == 0 else (lv - 1 if d == 1 else (lv + 1 if d == 2 else lv + w))
            if s[col + m] == c and _in_atari(s, params, s[head + m]):
                h = s[head + m]
                lib = s[lsum + h] // s[libs + h]  # every pseudo-liberty is this point
                if (
                    not _listed(buf, k, lib)
                    and not _own_eye(s, params, lib, c)
                    and _legal_point(s, params, lib, c)
                    and _liberties_after(s, params, lib, c) >= 2
                ):
                    buf[k] = lib
                    k += 1
        if k == 0:
            # (b) capture: the last stone's string, or one with a stone around it
            for d in range(9):
                q = lv if d == 8 else _around(lv, w, d)
                if s[col + q] == o and _in_atari(s, params, s[head + q]):
                    h = s[head + q]
                    lib = s[lsum + h] // s[libs + h]
                    if not _listed(buf, k, lib) and _legal_point(s, params, lib, c):
                        buf[k] = lib
                        k += 1
        if k == 0:
            # (c) MoGo's patterns around the last move
            table = (c - 1) << 16
            for d in range(8):
                q = _around(lv, w, d)
                if (
                    s[col + q] == EMPTY
                    and MOGO_PAT3[table | _pattern_code(s, col, w, q)] != 0
                    and not _own_eye(s, params, q, c)
                    and _legal_point(s, params, q, c)
                ):
                    buf[k] = q
                    k += 1
        if k > 0:
            v = buf[rng_randint(rng, k)]
            return (v // w - 1) * n + v % w - 1
    # (d) the light playout's move
    return light_action(s, params, rng, buf)


@njit(cache=True)
def heavy_playout(s, params, rng, out):  # type: ignore[no-untyped-def]
    """A heavy Go playout: :func:`heavy_action` at each ply, in place, to the end.
    Returns the plies played; writes the returns to ``out`` (as :func:`playout`)."""
    buf = np.empty(params[_P_N] * params[_P_N] + 1, dtype=np.int64)
    plies = 0
    while s[_S_PLAYER] != TERMINAL:
        apply_action(s, params, heavy_action(s, params, rng, buf))
        plies += 1
    winner_returns(s, params, out)
    return plies


@njit(cache=True)
def observation(s, params, player, out):  # type: ignore[no-untyped-def]
    """OpenSpiel's ``go`` observation, 4 planes of ``N x N`` (cell ``r * N + c``, row 0 at
    the bottom, as the actions): black, white, empty, then a plane of ones when White is
    to play (after an odd number of moves, also once the game is over). The same for both
    players."""
    n = params[_P_N]
    nn = n * n
    col, a2v = params[_P_COLOUR], params[_P_A2V]
    for i in range(nn):
        x = s[col + params[a2v + i]]
        out[i] = 1.0 if x == BLACK else 0.0
        out[nn + i] = 1.0 if x == WHITE else 0.0
        out[2 * nn + i] = 1.0 if x == EMPTY else 0.0
    white = 1.0 if s[_S_MOVES] % 2 == 1 else 0.0
    for i in range(nn):
        out[3 * nn + i] = white


_COLUMNS = "abcdefghjklmnopqrst"


class Go(KernelGame):
    """Go on ``board_size`` x ``board_size`` with area scoring (OpenSpiel ``go`` encodings)."""

    kernels = RuleKernels(
        init,
        legal_actions,
        apply_action,
        returns,
        heuristic,
        playout=playout,
        observation=observation,
        rollout_actions=rollout_actions,
        heavy_action=heavy_action,
        light_action=light_action,
    )

    def __init__(
        self,
        board_size: int = 9,
        komi: float = 7.5,
        ko: str = "superko",
        max_game_length: int | None = None,
    ) -> None:
        if (
            not isinstance(board_size, int)
            or isinstance(board_size, bool)
            or not 5 <= board_size <= 19
        ):
            raise InvalidConfigError("go: board_size must be an integer in [5, 19]")
        try:
            komi2 = float(komi) * 2
        except (TypeError, ValueError):
            raise InvalidConfigError(f"go: komi must be a number, got {komi!r}") from None
        if isinstance(komi, bool) or not komi2.is_integer() or abs(komi2) > 2 * board_size**2:
            raise InvalidConfigError(
                f"go: komi must be a multiple of 0.5 within the board's area, got {komi!r}"
            )
        if ko not in ("superko", "simple"):
            raise InvalidConfigError(f"go: ko must be 'superko' or 'simple', got {ko!r}")
        if max_game_length is None:
            max_game_length = 2 * board_size * board_size
        if (
            not isinstance(max_game_length, int)
            or isinstance(max_game_length, bool)
            or not 2 <= max_game_length <= 100 * board_size * board_size
        ):
            raise InvalidConfigError(
                "go: max_game_length must be an integer in [2, 100 * board_size**2]"
            )
        self.board_size, self.komi, self.ko = board_size, float(komi), ko
        info = GameInfo(
            name="go",
            version=1,
            num_players=2,
            num_actions=board_size * board_size + 1,
            max_game_length=max_game_length,
            zero_sum=True,
            min_utility=-1.0,
            max_utility=1.0,
        )
        params = _make_params(board_size, int(komi2), ko == "superko", max_game_length)
        super().__init__(info, params)

    def observation_shape(self) -> tuple[int, ...]:
        """OpenSpiel's: 4 planes (black, white, empty, White to play) of ``N x N``."""
        return (4, self.board_size, self.board_size)

    def point_name(self, action: int) -> str:
        """``a1`` .. (OpenSpiel's lower-case point names) or ``PASS``."""
        n = self.board_size
        if action == n * n:
            return "PASS"
        return f"{_COLUMNS[action % n]}{action // n + 1}"

    def action_name(self, state: KernelState, action: int) -> str:
        colour = "B" if int(state.array[_S_MOVES]) % 2 == 0 else "W"
        return f"{colour} {self.point_name(action)}"

    def parse_action(self, state: KernelState, text: str) -> int | None:
        t = text.strip().lower()
        if t[:2] in ("b ", "w "):
            t = t[2:].strip()
        n = self.board_size
        if t == "pass":
            return n * n
        if len(t) < 2 or t[0] not in _COLUMNS[:n] or not is_ascii_digits(t[1:]):
            return None
        row = int(t[1:])
        if not 1 <= row <= n:
            return None
        return (row - 1) * n + _COLUMNS.index(t[0])

    def colour_at(self, state: KernelState, action: int) -> int:
        """0 empty, 1 black, 2 white at point ``action``."""
        v = int(self.params[_PARAMS_HEADER + action])
        return int(state.array[_HEADER + v])

    def score(self, state: KernelState) -> float:
        """Black's Tromp-Taylor area score minus komi (negative: White ahead), of the
        board as it stands (at the end: the score the returns follow)."""
        return float(area_score2(state.array, self.params)) / 2.0

    def captures(self, state: KernelState) -> tuple[int, int]:
        """Stones captured so far by Black and by White."""
        a = state.array
        return int(a[_S_CAPTURED]), int(a[_S_CAPTURED + 1])

    def render(self, state: KernelState) -> str:
        n = self.board_size
        a = state.array
        marks = "+XO"
        lines = []
        for r in reversed(range(n)):
            row = "".join(marks[self.colour_at(state, r * n + c)] for c in range(n))
            lines.append(f"{r + 1:2d} {row}")
        lines.append("   " + _COLUMNS[:n].upper())
        black, white = self.captures(state)
        to_play = "over" if self.is_over(state) else ("B" if int(a[_S_MOVES]) % 2 == 0 else "W")
        lines.append(f"to play: {to_play}, captures B {black} W {white}")
        return "\n".join(lines)

    @staticmethod
    def is_over(state: KernelState) -> bool:
        return int(state.array[_S_PLAYER]) == TERMINAL

    def ended_by_length(self, state: KernelState) -> bool:
        """Whether ``state`` is over by the length limit (``max_game_length`` moves), not
        by two passes: its board was not played out, and its dead stones still stand."""
        history = state.history()
        passed = len(history) >= 2 and history[-1] == history[-2] == self.board_size**2
        return self.is_over(state) and not passed

    def adjudicate(self, state: KernelState, seed: int = 0) -> tuple[list[float], str] | None:
        """The returns of a game stopped by its length limit as people and GTP programs
        would score it, and a line that says so; ``None`` for a game over by two passes.

        Tromp-Taylor counts the board as it stands, dead stones as alive; stopped early,
        the game is scored by agreement instead
        (:func:`~mctslab.games.go_status.agreed_score`: the stones that heavy playouts
        from ``seed`` judge dead are removed, then the area is counted). The arena uses
        it for every Go game that reaches the limit (its ``"length"`` termination)."""
        if not self.ended_by_length(state):
            return None
        from mctslab.games.go_status import agreed_score

        agreement = agreed_score(self, state, seed=seed)

        def sgf_result(score: float) -> str:  # as SGF writes it (games.sgf imports Go)
            return "0" if score == 0 else f"{'B' if score > 0 else 'W'}+{abs(score):g}"

        black = 0.0 if agreement.score == 0 else (1.0 if agreement.score > 0 else -1.0)
        note = (
            f"length limit of {self.info.max_game_length} moves: scored by agreement, "
            f"{len(agreement.dead)} dead stones removed, {sgf_result(agreement.score)} "
            f"(the board as it stood: {sgf_result(self.score(state))})"
        )
        return [black, -black], note
