"""Go's playouts as rule kernels: light, uniform and heavy (MoGo-style).

The engines call them through ``RuleKernels``. :func:`rollout_actions` names
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
:data:`MOGO_PAT3`; or, in a game made with ``pattern_playouts``, a point around it drawn
by its learned 3x3 gamma, :func:`learned_pattern_point`), else the light playout's move.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mctslab.core.game import TERMINAL
from mctslab.games.go.board import apply_action, in_atari, legal_point
from mctslab.games.go.layout import (
    EMPTY,
    GUARD,
    P_A2V,
    P_COLOUR,
    P_ELIST,
    P_HEAD,
    P_LIBS,
    P_LSUM,
    P_N,
    P_NEXT,
    P_PATTERN_PLAYOUTS,
    P_PATTERNS,
    P_W,
    S_LAST,
    S_NEMPTY,
    S_PLAYER,
)
from mctslab.games.go.patterns import MOGO_PAT3, pattern_code
from mctslab.games.kernels import draw_top31, rng_randint, winner_returns

__all__ = [
    "PAT3_PLAYOUT_MIN",
    "PAT3_PLAYOUT_UNITS",
    "around",
    "heavy_action",
    "heavy_playout",
    "learned_pattern_point",
    "liberties_after",
    "light_action",
    "listed",
    "own_eye",
    "playout",
    "rollout_actions",
    "uniform_action",
]


@njit(inline="always")
def own_eye(s, params, v, c):  # type: ignore[no-untyped-def]
    """Whether empty point ``v`` is a one-point eye of colour ``c``: its four neighbours
    are ``c`` or the edge; of its diagonals at most one is the opponent's (none on the edge)."""
    col, w = params[P_COLOUR], params[P_W]
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
    if s[S_PLAYER] < 0:
        return 0
    nn = params[P_N] * params[P_N]
    col, a2v = params[P_COLOUR], params[P_A2V]
    c = s[S_PLAYER] + 1
    k = 0
    for a in range(nn):
        v = params[a2v + a]
        # emptiness first: most points fail there, then the eye test (four reads at most)
        if s[col + v] == EMPTY and not own_eye(s, params, v, c) and legal_point(s, params, v, c):
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
    a2v, elist = params[P_A2V], params[P_ELIST]
    c = s[S_PLAYER] + 1
    m = s[S_NEMPTY]
    seed = rng[0]
    if m > 0:  # the first draw reads the list itself: most plies end here, uncopied
        seed, r = draw_top31(seed)
        j = np.int64(r % np.uint64(m))
        a = s[elist + j]
        v = params[a2v + a]
        if not own_eye(s, params, v, c) and legal_point(s, params, v, c):
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
        if not own_eye(s, params, v, c) and legal_point(s, params, v, c):
            rng[0] = seed
            return a
        m -= 1
        buf[j] = buf[m]
    rng[0] = seed
    return params[P_N] * params[P_N]


@njit(cache=True)
def uniform_action(s, params, rng, buf):  # type: ignore[no-untyped-def]
    """A uniformly random legal action, the pass included, by the same rejection as
    :func:`light_action` (candidates: the empty points and the pass, which is always
    legal): the move of a random rollout that does not know Go, OpenSpiel's
    ``RandomRolloutEvaluator``'s. Its playouts fill their own eyes and mostly end at the
    length limit; ``benchmarks/bench_go.py`` plays them for the equal-work comparison."""
    a2v, elist = params[P_A2V], params[P_ELIST]
    nn = params[P_N] * params[P_N]
    c = s[S_PLAYER] + 1
    m = s[S_NEMPTY] + 1
    seed = rng[0]
    seed, r = draw_top31(seed)  # the first draw reads the list itself, as light_action's
    j = np.int64(r % np.uint64(m))
    a = nn if j == m - 1 else s[elist + j]
    if a == nn or legal_point(s, params, params[a2v + a], c):
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
        if a == nn or legal_point(s, params, params[a2v + a], c):
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
    buf = np.empty(params[P_N] * params[P_N] + 1, dtype=np.int64)
    plies = 0
    while s[S_PLAYER] != TERMINAL:
        apply_action(s, params, light_action(s, params, rng, buf))
        plies += 1
    winner_returns(s, params, out)
    return plies


# --- heavy playouts ------------------------------------------------------------------


@njit(inline="always")
def around(v, w, d):  # type: ignore[no-untyped-def]
    """The ``d``-th (0 .. 7) of the 8 points around virtual point ``v``."""
    if d < 3:
        return v - w - 1 + d
    if d == 3:
        return v - 1
    if d == 4:
        return v + 1
    return v + w - 6 + d


@njit(inline="always")
def listed(buf, k, x):  # type: ignore[no-untyped-def]
    """Whether ``x`` is among ``buf[:k]``."""
    for i in range(k):  # noqa: SIM110 (numba: a plain loop, no generator)
        if buf[i] == x:
            return True
    return False


#: The learned 3x3 gamma a point around the last move needs to be a candidate of the
#: heavy playout's pattern rule (:func:`learned_pattern_point`): twice the gamma of the
#: pass's (level 0); about the top third of the classes the shipped model rates.
PAT3_PLAYOUT_MIN = 2.0
#: A candidate's weight in the draw: ``max(1, floor(gamma * PAT3_PLAYOUT_UNITS))``.
PAT3_PLAYOUT_UNITS = 16


@njit(cache=True)
def learned_pattern_point(s, params, rng, lv, c, buf):  # type: ignore[no-untyped-def]
    """The heavy playout's rule (c) with learned patterns: among the empty points of the
    8 around ``lv`` (the last move's virtual point) that are legal for colour ``c``, do
    not fill one of its one-point eyes and whose 3x3 class has a gamma of at least
    :data:`PAT3_PLAYOUT_MIN` in the game's model (``params[P_PATTERNS]``: its scale, then
    its table, whose entry ``(c - 1) << 16 | code`` is the class's gamma), one drawn
    with probability proportional to its gamma (integer weights, one ``rng_randint``
    draw); -1 if none. Coulom's Crazy Stone draws its playout moves by their gammas
    ("Computing Elo ratings of move patterns", 2007, section 4); here only the 3x3
    gamma, and only next to the last move, as MoGo's rule it replaces. ``buf``: scratch,
    16 entries at least."""
    col, w = params[P_COLOUR], params[P_W]
    words = params[params[P_PATTERNS] :].view(np.float64)
    key = (c - 1) << 16
    k = 0
    total = 0
    for d in range(8):
        q = around(lv, w, d)
        if s[col + q] != EMPTY:
            continue
        g = words[1 + (key | pattern_code(s, col, w, q))]
        if g >= PAT3_PLAYOUT_MIN and not own_eye(s, params, q, c) and legal_point(s, params, q, c):
            total += max(1, int(g * PAT3_PLAYOUT_UNITS))
            buf[k] = q
            buf[8 + k] = total
            k += 1
    if k == 0:
        return -1
    r = rng_randint(rng, total)
    for i in range(k):
        if r < buf[8 + i]:
            return buf[i]
    return buf[k - 1]  # (never: r < total)


@njit(cache=True)
def liberties_after(s, params, v, c):  # type: ignore[no-untyped-def]
    """The liberties, counted up to 2, of the string of colour ``c`` through ``v`` once
    ``c`` plays at ``v`` (a legal move): the distinct empty points next to the stone or to
    the strings it joins, the points of the opponent strings it captures (those in atari
    next to ``v``) counted as empty. Stops at the second liberty found."""
    col, head, nxt, w = params[P_COLOUR], params[P_HEAD], params[P_NEXT], params[P_W]
    o = 3 - c
    k1 = k2 = k3 = k4 = np.int64(-1)  # the heads of the strings captured
    for d in range(4):
        m = v - w if d == 0 else (v - 1 if d == 1 else (v + 1 if d == 2 else v + w))
        if s[col + m] == o and in_atari(s, params, s[head + m]):
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
       mover (:data:`MOGO_PAT3`), legal and not filling an own one-point eye; in a game
       made with ``pattern_playouts``, :func:`learned_pattern_point` instead (its own
       draw);
    d. otherwise the light playout's move, :func:`light_action`.

    Every draw comes from ``rng`` (the engines' SplitMix64 word): one for rules a-c,
    those of :func:`light_action` for d; so the same state and ``rng`` give the same
    move. ``buf``: an ``int64`` scratch array of ``N * N + 1`` entries."""
    n, w = params[P_N], params[P_W]
    nn = n * n
    last = s[S_LAST]
    if 0 <= last < nn:
        col, head = params[P_COLOUR], params[P_HEAD]
        libs, lsum = params[P_LIBS], params[P_LSUM]
        c = s[S_PLAYER] + 1
        o = 3 - c
        lv = params[params[P_A2V] + last]
        # (a) atari escape; buf holds virtual points until one is chosen
        k = 0
        for d in range(4):
            m = lv - w if d == 0 else (lv - 1 if d == 1 else (lv + 1 if d == 2 else lv + w))
            if s[col + m] == c and in_atari(s, params, s[head + m]):
                h = s[head + m]
                lib = s[lsum + h] // s[libs + h]  # every pseudo-liberty is this point
                if (
                    not listed(buf, k, lib)
                    and not own_eye(s, params, lib, c)
                    and legal_point(s, params, lib, c)
                    and liberties_after(s, params, lib, c) >= 2
                ):
                    buf[k] = lib
                    k += 1
        if k == 0:
            # (b) capture: the last stone's string, or one with a stone around it
            for d in range(9):
                q = lv if d == 8 else around(lv, w, d)
                if s[col + q] == o and in_atari(s, params, s[head + q]):
                    h = s[head + q]
                    lib = s[lsum + h] // s[libs + h]
                    if not listed(buf, k, lib) and legal_point(s, params, lib, c):
                        buf[k] = lib
                        k += 1
        if k == 0 and params[P_PATTERN_PLAYOUTS] != 0:
            # (c') the learned 3x3 gammas around the last move
            v = learned_pattern_point(s, params, rng, lv, c, buf)
            if v >= 0:
                return (v // w - 1) * n + v % w - 1
        elif k == 0:
            # (c) MoGo's patterns around the last move
            table = (c - 1) << 16
            for d in range(8):
                q = around(lv, w, d)
                if (
                    s[col + q] == EMPTY
                    and MOGO_PAT3[table | pattern_code(s, col, w, q)] != 0
                    and not own_eye(s, params, q, c)
                    and legal_point(s, params, q, c)
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
    buf = np.empty(params[P_N] * params[P_N] + 1, dtype=np.int64)
    plies = 0
    while s[S_PLAYER] != TERMINAL:
        apply_action(s, params, heavy_action(s, params, rng, buf))
        plies += 1
    winner_returns(s, params, out)
    return plies
