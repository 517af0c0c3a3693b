"""Go's board as rule kernels: a new game, the strings and their pseudo-liberties,
legality (suicide, ko, positional superko), moves and captures, the end of a game,
the observation.

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
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mctslab.core.game import TERMINAL
from mctslab.games.go.layout import (
    BLACK,
    EMPTY,
    GUARD,
    P_A2V,
    P_BLOOM,
    P_COLOUR,
    P_ELIST,
    P_EPOS,
    P_HEAD,
    P_HIST,
    P_LEN,
    P_LIBS,
    P_LSQ,
    P_LSUM,
    P_MAXLEN,
    P_N,
    P_NEXT,
    P_SHASH,
    P_SIZE,
    P_SUPERKO,
    P_W,
    P_ZOB,
    S_CAPTURED,
    S_HASH,
    S_KO,
    S_LAST,
    S_MOVES,
    S_NEMPTY,
    S_PASSES,
    S_PLAYER,
    S_SCORE2,
    S_WINNER,
    WHITE,
)
from mctslab.games.go.scoring import area_score2
from mctslab.games.kernels import winner_returns

__all__ = [
    "add_liberty",
    "apply_action",
    "finish",
    "in_atari",
    "init",
    "legal_actions",
    "legal_point",
    "merge_strings",
    "neighbour",
    "observation",
    "remember",
    "remove_liberty",
    "remove_string",
    "returns",
    "seen_before",
]


@njit(cache=True)
def init(params):  # type: ignore[no-untyped-def]
    n, w = params[P_N], params[P_W]
    s = np.zeros(params[P_LEN], dtype=np.int64)
    s[S_WINNER] = -1
    s[S_KO] = -1
    s[S_LAST] = -1
    col = params[P_COLOUR]
    for v in range(w * w):
        s[col + v] = GUARD
    a2v, elist, epos = params[P_A2V], params[P_ELIST], params[P_EPOS]
    for a in range(n * n):
        s[col + params[a2v + a]] = EMPTY
        s[elist + a] = a
        s[epos + params[a2v + a]] = a
    s[S_NEMPTY] = n * n
    remember(s, params, 0)  # hist[0] = 0: the empty board
    return s


@njit(inline="always")
def remember(s, params, h):  # type: ignore[no-untyped-def]
    s[params[P_HIST] + s[S_MOVES]] = h
    bit = (h >> 52) & 4095
    s[params[P_BLOOM] + (bit >> 6)] |= np.int64(1) << (bit & 63)


@njit(inline="always")
def seen_before(s, params, h):  # type: ignore[no-untyped-def]
    """Whether the board position of hash ``h`` occurred before in the game."""
    bit = (h >> 52) & 4095
    if (s[params[P_BLOOM] + (bit >> 6)] >> (bit & 63)) & 1 == 0:
        return False
    hist = params[P_HIST]
    found = False
    for i in range(s[S_MOVES] + 1):
        if s[hist + i] == h:
            found = True
            break
    return found


@njit(inline="always")
def in_atari(s, params, h):  # type: ignore[no-untyped-def]
    """Whether string ``h`` (a head) has exactly one liberty."""
    n = s[params[P_LIBS] + h]
    m = s[params[P_LSUM] + h]
    return n > 0 and m * m == s[params[P_LSQ] + h] * n


@njit(inline="always")
def neighbour(s, m, c, offsets, safe, cap, h1, h2, h3):  # type: ignore[no-untyped-def]
    """One neighbour ``m`` of a candidate point of colour ``c``: ``safe`` becomes true on
    an empty point, an own string not in atari or an opponent string in atari (whose
    capture adds its ``shash`` to ``cap`` once: ``h1 .. h3`` are the strings seen).

    ``offsets``: the state's arrays ``(colour, head, libs, lsum, lsq, shash)``, read once
    by the caller. What the four calls accumulate goes in and comes back as plain values
    (``safe``, ``cap``, ``h1 .. h3``): numba has no scalars passed by reference, and an
    array for them would be written to memory on every legality test."""
    col, head, libs, lsum, lsq, shash = offsets
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
def legal_point(s, params, v, c):  # type: ignore[no-untyped-def]
    """Whether colour ``c`` may play at virtual point ``v``: empty, not the ko point,
    not suicide, and (superko) not a repetition."""
    col = params[P_COLOUR]
    if s[col + v] != EMPTY or v == s[S_KO]:
        return False
    w = params[P_W]
    superko = params[P_SUPERKO] != 0
    x0, x1, x2, x3 = s[col + v - w], s[col + v - 1], s[col + v + 1], s[col + v + w]
    has_empty = x0 == EMPTY or x1 == EMPTY or x2 == EMPTY or x3 == EMPTY
    if not superko and has_empty:
        return True
    o = 3 - c
    if has_empty and x0 != o and x1 != o and x2 != o and x3 != o:
        # the common case: a liberty and no capture; superko: the hash with the stone
        return not seen_before(s, params, s[S_HASH] ^ params[params[P_ZOB] + c * w * w + v])
    offsets = (col, params[P_HEAD], params[P_LIBS], params[P_LSUM], params[P_LSQ], params[P_SHASH])
    safe = False
    cap = np.int64(0)
    h1 = h2 = h3 = np.int64(-1)
    safe, cap, h1, h2, h3 = neighbour(s, v - w, c, offsets, safe, cap, h1, h2, h3)
    safe, cap, h1, h2, h3 = neighbour(s, v - 1, c, offsets, safe, cap, h1, h2, h3)
    safe, cap, h1, h2, h3 = neighbour(s, v + 1, c, offsets, safe, cap, h1, h2, h3)
    safe, cap, h1, h2, h3 = neighbour(s, v + w, c, offsets, safe, cap, h1, h2, h3)
    if not safe:
        return False
    if not superko:
        return True
    new = s[S_HASH] ^ params[params[P_ZOB] + c * w * w + v] ^ cap
    return not seen_before(s, params, new)


@njit(cache=True)
def legal_actions(s, params, out):  # type: ignore[no-untyped-def]
    if s[S_PLAYER] < 0:
        return 0
    n, w = params[P_N], params[P_W]
    c = s[S_PLAYER] + 1
    k = 0
    for r in range(n):
        base = (r + 1) * w + 1
        for i in range(n):
            if legal_point(s, params, base + i, c):
                out[k] = r * n + i
                k += 1
    out[k] = n * n
    return k + 1


@njit(inline="always")
def add_liberty(s, params, h, p):  # type: ignore[no-untyped-def]
    s[params[P_LIBS] + h] += 1
    s[params[P_LSUM] + h] += p
    s[params[P_LSQ] + h] += p * p


@njit(inline="always")
def remove_liberty(s, params, h, p):  # type: ignore[no-untyped-def]
    s[params[P_LIBS] + h] -= 1
    s[params[P_LSUM] + h] -= p
    s[params[P_LSQ] + h] -= p * p


@njit(cache=True)
def merge_strings(s, params, a, b):  # type: ignore[no-untyped-def]
    """Merge the strings of heads ``a`` and ``b`` into the larger; returns its head."""
    size, head, nxt = params[P_SIZE], params[P_HEAD], params[P_NEXT]
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
    s[params[P_LIBS] + a] += s[params[P_LIBS] + b]
    s[params[P_LSUM] + a] += s[params[P_LSUM] + b]
    s[params[P_LSQ] + a] += s[params[P_LSQ] + b]
    s[params[P_SIZE] + a] += s[params[P_SIZE] + b]
    s[params[P_SHASH] + a] ^= s[params[P_SHASH] + b]
    return a


@njit(cache=True)
def remove_string(s, params, h, o):  # type: ignore[no-untyped-def]
    """Capture the string of head ``h`` (colour ``o``), giving its points back as
    pseudo-liberties to the strings around it; returns its number of stones."""
    col, head, nxt = params[P_COLOUR], params[P_HEAD], params[P_NEXT]
    w = params[P_W]
    zob = params[P_ZOB] + o * w * w
    elist, epos, size = params[P_ELIST], params[P_EPOS], params[P_N]
    n = 0
    cur = h
    while True:
        following = s[nxt + cur]
        s[col + cur] = EMPTY
        s[S_HASH] ^= params[zob + cur]
        e = s[S_NEMPTY]
        s[elist + e] = (cur // w - 1) * size + cur % w - 1
        s[epos + cur] = e
        s[S_NEMPTY] = e + 1
        n += 1
        for d in range(4):
            m = cur - w if d == 0 else (cur - 1 if d == 1 else (cur + 1 if d == 2 else cur + w))
            x = s[col + m]
            if BLACK <= x <= WHITE and s[head + m] != h:
                add_liberty(s, params, s[head + m], cur)
        cur = following
        if cur == h:
            break
    return n


@njit(cache=True)
def apply_action(s, params, a):  # type: ignore[no-untyped-def]
    n = params[P_N]
    p = s[S_PLAYER]
    s[S_MOVES] += 1
    s[S_LAST] = a
    if a == n * n:  # pass
        s[S_KO] = -1
        s[S_PASSES] += 1
        remember(s, params, s[S_HASH])
        if s[S_PASSES] >= 2 or s[S_MOVES] >= params[P_MAXLEN]:
            finish(s, params)
        else:
            s[S_PLAYER] = 1 - p
        return
    s[S_PASSES] = 0
    w = params[P_W]
    col, head, nxt = params[P_COLOUR], params[P_HEAD], params[P_NEXT]
    c = p + 1
    o = 2 - p
    v = params[params[P_A2V] + a]
    enemy_eye = True
    for d in range(4):
        m = v - w if d == 0 else (v - 1 if d == 1 else (v + 1 if d == 2 else v + w))
        x = s[col + m]
        if x != o and x != GUARD:
            enemy_eye = False
    key = params[params[P_ZOB] + c * w * w + v]
    s[col + v] = c
    # the point leaves the empty list: the list's last entry takes its place
    elist, epos = params[P_ELIST], params[P_EPOS]
    e = s[S_NEMPTY] - 1
    i = s[epos + v]
    moved = s[elist + e]
    s[elist + i] = moved
    s[epos + params[params[P_A2V] + moved]] = i
    s[S_NEMPTY] = e
    s[S_HASH] ^= key
    s[head + v] = v
    s[nxt + v] = v
    s[params[P_LIBS] + v] = 0
    s[params[P_LSUM] + v] = 0
    s[params[P_LSQ] + v] = 0
    s[params[P_SIZE] + v] = 1
    s[params[P_SHASH] + v] = key
    h = v
    for d in range(4):
        m = v - w if d == 0 else (v - 1 if d == 1 else (v + 1 if d == 2 else v + w))
        x = s[col + m]
        if x == EMPTY:
            add_liberty(s, params, h, m)
        elif x == c and s[head + m] != h:
            h = merge_strings(s, params, h, s[head + m])
    for d in range(4):
        m = v - w if d == 0 else (v - 1 if d == 1 else (v + 1 if d == 2 else v + w))
        x = s[col + m]
        if BLACK <= x <= WHITE:
            remove_liberty(s, params, s[head + m], v)
    captured = 0
    last = -1
    for d in range(4):
        m = v - w if d == 0 else (v - 1 if d == 1 else (v + 1 if d == 2 else v + w))
        if s[col + m] == o and s[params[P_LIBS] + s[head + m]] == 0:
            captured += remove_string(s, params, s[head + m], o)
            last = m
    s[S_CAPTURED + p] += captured
    s[S_KO] = last if enemy_eye and captured == 1 else -1
    remember(s, params, s[S_HASH])
    if s[S_MOVES] >= params[P_MAXLEN]:
        finish(s, params)
    else:
        s[S_PLAYER] = 1 - p


@njit(cache=True)
def finish(s, params):  # type: ignore[no-untyped-def]
    score2 = area_score2(s, params)
    s[S_SCORE2] = score2
    s[S_WINNER] = 0 if score2 > 0 else (1 if score2 < 0 else -1)
    s[S_PLAYER] = TERMINAL


returns = winner_returns  # the winner is kept in s[1]


@njit(cache=True)
def observation(s, params, player, out):  # type: ignore[no-untyped-def]
    """OpenSpiel's ``go`` observation, 4 planes of ``N x N`` (cell ``r * N + c``, row 0 at
    the bottom, as the actions): black, white, empty, then a plane of ones when White is
    to play (after an odd number of moves, also once the game is over). The same for both
    players."""
    n = params[P_N]
    nn = n * n
    col, a2v = params[P_COLOUR], params[P_A2V]
    for i in range(nn):
        x = s[col + params[a2v + i]]
        out[i] = 1.0 if x == BLACK else 0.0
        out[nn + i] = 1.0 if x == WHITE else 0.0
        out[2 * nn + i] = 1.0 if x == EMPTY else 0.0
    white = 1.0 if s[S_MOVES] % 2 == 1 else 0.0
    for i in range(nn):
        out[3 * nn + i] = white
