"""Go's prior knowledge as a rule kernel: the virtual visits and wins a new tree node's
children start with (node priors).

A search that expands a node may start each child with ``n`` virtual visits and ``w``
virtual wins for the player to move, as if ``n`` playouts through it had been won ``w``
times: Gelly and Silver's *prior knowledge* ("Combining online and offline knowledge in
UCT", ICML 2007, section 5: an even-game prior, then a heuristic's preferences), also
Chaslot, Winands, van den Herik, Uiterwijk, Bouzy's *progressive strategies* ("Progressive
strategies for Monte-Carlo tree search", New Mathematics and Natural Computation, 2008).
The rules and their constants are those of Petr Baudiš's Michi (``michi.py``, the
``PRIOR_*`` constants and ``TreeNode.expand``), itself a digest of Pachi's
``uct/prior.c`` and close to Fuego's ``GoUctDefaultPriorKnowledge``; the own-eye penalty
is Pachi's and Fuego's (Michi leaves own eyes out of its candidates instead).

:func:`knowledge` writes, for every action ``a`` (``r * N + c``, the pass ``N * N``), the
sum of the parts that apply to a legal point (``v`` its virtual point, ``c`` the mover's
colour):

1. *even game*: ``PRIOR_EVEN`` visits, ``PRIOR_EVEN // 2`` wins, every action (the pass
   gets only this; an illegal point holds it too, never read);
2. *capture*: the last liberty of opponent strings in atari: ``PRIOR_CAPTURE_MANY``
   visits and wins if the move captures 2 stones or more in all, ``PRIOR_CAPTURE_ONE``
   for one stone;
3. *atari escape*: the last liberty of the mover's strings in atari, after which they
   have 2 liberties or more (:func:`~mctslab.games.go.playouts.liberties_after`):
   ``PRIOR_CAPTURE_MANY`` visits and wins if they hold 2 stones or more, else
   ``PRIOR_CAPTURE_ONE`` (a capture that saves a string counts as both, as Michi's
   candidates that both rules propose);
4. *3x3 pattern*: one of the 8 points around the last move (a stone) whose
   neighbourhood matches MoGo's patterns for the mover (:data:`MOGO_PAT3`, as the heavy
   playout reads it): ``PRIOR_PAT3`` visits and wins;
5. *common-fate-graph distance* ``d`` from the last move's stone (Graepel, Goutrié,
   Krüger, Herbrich, "Learning on graphs in the game of Go", 2001: a string is one node,
   so every point next to any of its stones is at distance 1): ``PRIOR_CFG[d - 1]``
   visits and wins for ``d`` in 1, 2, 3 (:func:`cfg_distances`);
6. *empty area*: no stone within Manhattan distance 3 (:func:`empty_area`): on the first
   or second line (height 0 or 1 from the nearest edge) ``PRIOR_EMPTYAREA`` visits and
   no wins, on the third ``PRIOR_EMPTYAREA`` visits and wins (the opening on the third
   line, no early first- and second-line moves, no invasions too near the edge);
7. *self-atari*: the move captures nothing and leaves its string one liberty:
   ``PRIOR_SELFATARI`` visits, no wins;
8. *own eye*: the point is one of the mover's one-point eyes
   (:func:`~mctslab.games.go.playouts.own_eye`): ``PRIOR_OWN_EYE`` visits, no wins.

So ``PRIOR_EVEN <= visits`` and ``0 <= wins <= visits`` for every action. It is called
once per node expansion (not per playout move): the distances are one breadth-first
search over the board per call. :func:`prior_table` is the same from Python.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mctslab.core.errors import InvalidConfigError
from mctslab.games.go.board import in_atari, legal_point
from mctslab.games.go.layout import (
    BLACK,
    EMPTY,
    GUARD,
    P_A2V,
    P_COLOUR,
    P_HEAD,
    P_N,
    P_NEXT,
    P_SIZE,
    P_W,
    S_LAST,
    S_PLAYER,
    WHITE,
)
from mctslab.games.go.patterns import MOGO_PAT3, pattern_code
from mctslab.games.go.playouts import liberties_after, own_eye
from mctslab.games.kernels import KernelState

__all__ = [
    "CFG_FAR",
    "PRIOR_CAPTURE_MANY",
    "PRIOR_CAPTURE_ONE",
    "PRIOR_CFG",
    "PRIOR_EMPTYAREA",
    "PRIOR_EVEN",
    "PRIOR_OWN_EYE",
    "PRIOR_PAT3",
    "PRIOR_SELFATARI",
    "cfg_distances",
    "empty_area",
    "knowledge",
    "prior_table",
    "shape_prior",
    "tactical_prior",
]

# Michi's constants (virtual visits; wins as noted in the module's docstring).
PRIOR_EVEN = 10
PRIOR_SELFATARI = 10
PRIOR_CAPTURE_ONE = 15
PRIOR_CAPTURE_MANY = 30
PRIOR_PAT3 = 10
PRIOR_CFG = (24, 22, 8)
PRIOR_EMPTYAREA = 10
PRIOR_OWN_EYE = 20
#: The distance :func:`cfg_distances` gives every point farther than ``len(PRIOR_CFG)``.
CFG_FAR = len(PRIOR_CFG) + 1


@njit(cache=True)
def cfg_distances(s, params, lv, dist, queue):  # type: ignore[no-untyped-def]
    """The common-fate-graph distance from the string of the stone on virtual point
    ``lv`` to every virtual point, written to ``dist`` (``W * W`` entries), up to
    ``len(PRIOR_CFG)``: :data:`CFG_FAR` beyond (and on the guard cells).

    A string is one node: its stones are all at the distance of the first reached, the
    last move's string at 0; a step to a neighbouring point costs 1. A breadth-first
    search (each string entered at once, so the queue stays in order of distance) that
    stops expanding at the last distance that earns a prior. ``queue``: ``W * W``
    scratch entries."""
    col, head, nxt, w = params[P_COLOUR], params[P_HEAD], params[P_NEXT], params[P_W]
    for i in range(w * w):
        dist[i] = CFG_FAR
    k = 0
    h = s[head + lv]
    cur = h
    while True:
        dist[cur] = 0
        queue[k] = cur
        k += 1
        cur = s[nxt + cur]
        if cur == h:
            break
    i = 0
    while i < k:
        p = queue[i]
        i += 1
        d = dist[p] + 1
        if d >= CFG_FAR:
            break  # the rest of the queue is as far: nothing nearer to find
        for e in range(4):
            q = p - w if e == 0 else (p - 1 if e == 1 else (p + 1 if e == 2 else p + w))
            x = s[col + q]
            if x == GUARD or dist[q] <= d:
                continue
            if x == EMPTY:
                dist[q] = d
                queue[k] = q
                k += 1
                continue
            h = s[head + q]  # a string not reached yet: all of it, at once
            cur = h
            while True:
                dist[cur] = d
                queue[k] = cur
                k += 1
                cur = s[nxt + cur]
                if cur == h:
                    break
    return dist


@njit(inline="always")
def empty_area(s, params, r, c):  # type: ignore[no-untyped-def]
    """Whether no stone stands within Manhattan distance 3 of the point in row ``r``,
    column ``c`` (0-based), on the board (Michi's ``empty_area``)."""
    n, w, col = params[P_N], params[P_W], params[P_COLOUR]
    for dr in range(-3, 4):
        rr = r + dr
        if rr < 0 or rr >= n:
            continue
        reach = 3 - abs(dr)
        for dc in range(-reach, reach + 1):
            cc = c + dc
            if cc < 0 or cc >= n:
                continue
            x = s[col + (rr + 1) * w + cc + 1]
            if x in (BLACK, WHITE):
                return False
    return True


@njit(cache=True)
def tactical_prior(s, params, v, c):  # type: ignore[no-untyped-def]
    """Rules 2, 3, 7 and 8 of the module's docstring for colour ``c`` at the legal empty
    virtual point ``v``: ``(visits, wins)`` to add to the even prior."""
    col, head, size, w = params[P_COLOUR], params[P_HEAD], params[P_SIZE], params[P_W]
    o = 3 - c
    captured = 0  # stones of the opponent strings in atari next to v (v: their liberty)
    saved = 0  # stones of the mover's strings in atari next to v
    h1 = h2 = h3 = np.int64(-1)  # the strings counted already
    for d in range(4):
        m = v - w if d == 0 else (v - 1 if d == 1 else (v + 1 if d == 2 else v + w))
        x = s[col + m]
        if x != c and x != o:
            continue
        h = s[head + m]
        if h in (h1, h2, h3):
            continue
        if h1 < 0:
            h1 = h
        elif h2 < 0:
            h2 = h
        else:
            h3 = h
        if in_atari(s, params, h):
            if x == o:
                captured += s[size + h]
            else:
                saved += s[size + h]
    visits = 0
    wins = 0
    if captured > 0:
        bonus = PRIOR_CAPTURE_MANY if captured >= 2 else PRIOR_CAPTURE_ONE
        visits += bonus
        wins += bonus
    libs = liberties_after(s, params, v, c)
    if saved > 0 and libs >= 2:
        bonus = PRIOR_CAPTURE_MANY if saved >= 2 else PRIOR_CAPTURE_ONE
        visits += bonus
        wins += bonus
    if captured == 0 and libs == 1:
        visits += PRIOR_SELFATARI
    if own_eye(s, params, v, c):
        visits += PRIOR_OWN_EYE
    return visits, wins


@njit(cache=True)
def shape_prior(s, params, v, c, lv, dist):  # type: ignore[no-untyped-def]
    """Rules 4, 5 and 6 of the module's docstring for colour ``c`` at the legal empty
    virtual point ``v``: ``(visits, wins)`` to add. ``lv``: the last move's virtual
    point (-1: none or a pass); ``dist``: :func:`cfg_distances` from it."""
    n, w, col = params[P_N], params[P_W], params[P_COLOUR]
    visits = 0
    wins = 0
    if (
        lv >= 0
        and abs(v // w - lv // w) <= 1
        and abs(v % w - lv % w) <= 1
        and MOGO_PAT3[((c - 1) << 16) | pattern_code(s, col, w, v)] != 0
    ):
        visits += PRIOR_PAT3
        wins += PRIOR_PAT3
    d = dist[v]
    if 1 <= d < CFG_FAR:
        visits += PRIOR_CFG[d - 1]
        wins += PRIOR_CFG[d - 1]
    r = v // w - 1
    k = v % w - 1
    height = min(min(r, k), min(n - 1 - r, n - 1 - k))
    if height <= 2 and empty_area(s, params, r, k):
        visits += PRIOR_EMPTYAREA
        if height == 2:
            wins += PRIOR_EMPTYAREA
    return visits, wins


@njit(cache=True)
def knowledge(s, params, out_visits, out_wins):  # type: ignore[no-untyped-def]
    """The node prior of every action of the state ``s`` (not over) for the player to
    move: virtual visits to ``out_visits``, virtual wins to ``out_wins`` (``int64``, at
    least ``N * N + 1`` entries each; every one of the ``N * N + 1`` is written), the
    sum of the rules of the module's docstring; an illegal point gets the even prior."""
    n, w = params[P_N], params[P_W]
    nn = n * n
    col, a2v = params[P_COLOUR], params[P_A2V]
    c = s[S_PLAYER] + 1
    last = s[S_LAST]
    lv = np.int64(-1)
    if 0 <= last < nn:
        lv = params[a2v + last]
        if s[col + lv] == EMPTY:  # (never: a stone is not captured by its own move)
            lv = np.int64(-1)
    dist = np.empty(w * w, dtype=np.int64)
    if lv >= 0:
        cfg_distances(s, params, lv, dist, np.empty(w * w, dtype=np.int64))
    else:
        dist[:] = CFG_FAR
    for a in range(nn + 1):
        visits = PRIOR_EVEN
        wins = PRIOR_EVEN // 2
        if a < nn:
            v = params[a2v + a]
            if legal_point(s, params, v, c):
                tv, tw = tactical_prior(s, params, v, c)
                sv, sw = shape_prior(s, params, v, c, lv, dist)
                visits += tv + sv
                wins += tw + sw
        out_visits[a] = visits
        out_wins[a] = wins


def prior_table(state: KernelState) -> list[tuple[int, int]]:
    """``(visits, wins)`` of the game's knowledge kernel for each action of a Go state
    (a :class:`~mctslab.games.go.Go` game's state, not over), indexed by action:
    :func:`knowledge`, with the learned patterns' prior of a game made with them."""
    if state.is_terminal():
        raise InvalidConfigError("go: the game is over: there is no move to give a prior")
    game = state.game
    k = game.info.num_actions
    visits = np.zeros(k, dtype=np.int64)
    wins = np.zeros(k, dtype=np.int64)
    kernel = type(game).kernels.knowledge
    if kernel is None:  # Go binds one; a subclass could unbind it
        raise InvalidConfigError(f"{game.info.name}: the game has no knowledge kernel")
    kernel(state.array, game.params, visits, wins)
    return [(int(x), int(y)) for x, y in zip(visits, wins, strict=True)]
