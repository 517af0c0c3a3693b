"""Learned Go move patterns: Coulom's generalized Bradley-Terry model of the move
played, its features, its compiled gammas, its training by MM and its file.

Rémi Coulom, "Computing Elo ratings of move patterns in the game of Go" (ICGA Journal
30(4), 2007): every legal move ``j`` of a position is a *team* of features, exactly one
level of each feature family, and has the strength

    gamma_j = prod_f gamma[f, level_f(j)];

the move played wins a competition among all the legal moves (the pass included):

    P(j) = gamma_j / sum_k gamma_k.

The families (:data:`FAMILIES`, :data:`LEVELS`; level 0 of each is Coulom's absent
feature, its gamma fixed at 1), for the player to move at a legal point ``v``:

- ``pass``: a point, a pass, a pass answering a pass;
- ``capture``: the stones of the opponent strings in atari next to ``v``, none, 1, 2+;
- ``escape``: the stones of the mover's strings in atari next to ``v``, when the move
  leaves them 2 liberties or more (:func:`~mctslab.games.go.playouts.liberties_after`):
  none, 1, 2+;
- ``self_atari``: the move captures nothing and leaves its string one liberty;
- ``atari``: an opponent string next to ``v`` has exactly 2 liberties (``v`` one of
  them): the move puts it in atari;
- ``distance_last``, ``distance_before_last``: the common-fate-graph distance
  (:func:`~mctslab.games.go.priors.cfg_distances`) from the last move's stone and
  from the stone of the move before it, 1, 2, 3, else 4+ (level 0, also when there is
  no such stone: a pass, the start, a stone captured since; and when the move before
  the last captured, :func:`before_last_point`);
- ``line``: the line ``1 + min(r, c, N - 1 - r, N - 1 - c)``, 1, 2, 3, else 4+ (level 0);
- ``pat3``: the 3x3 neighbourhood (:func:`~mctslab.games.go.patterns.pattern_code`),
  its colours exchanged when White moves (the mover is always black) and reduced over
  the 8 symmetries of the square: one of :data:`PAT3_CLASSES` classes (level 0: the
  pass, which has no neighbourhood).

Training is minorization-maximization (Hunter, "MM algorithms for generalized
Bradley-Terry models", Annals of Statistics 2004; Coulom 2007, section 3.3): one family
at a time (its levels never meet in one team, so all of them move at once), each level
``i`` of the family becomes

    gamma_i <- (W_i + v) / (sum_j C_ij / E_j + 2 v / (gamma_i + 1)),

``W_i`` the wins of level ``i`` (the moves played that have it), ``E_j`` the sum of the
gammas of competition ``j``'s moves, ``C_ij`` the sum over its moves with level ``i`` of
their gamma divided by ``gamma_i``, and ``v`` Coulom's prior: ``v`` virtual wins and
``v`` virtual losses against an opponent of gamma 1 (``v = 1``), so that a rare level stays
near 1 and an unseen one is 1. Each update cannot lower the log-posterior.

The shipped model is ``data/patterns.npz`` (:func:`load_patterns`, numpy arrays only,
read with ``allow_pickle=False``) with its card ``data/patterns.json`` beside it; both
are written by ``benchmarks/train_go_patterns.py``. The kernels read one flat ``float64``
table (:attr:`PatternModel.table`): the gamma of the pattern class of every key
``(player << 16) | code`` (``2 << 16`` entries), then the gammas of every family at
:data:`T_FAMILIES`. :func:`move_gammas` writes every action's gamma (about 8 µs a 9x9
position), :func:`move_probabilities` normalises them, and :func:`pattern_priors` turns
them into a search's node priors as Michi does with its large patterns.
"""

from __future__ import annotations

import functools
import json
import math
import zipfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import numpy.typing as npt
from numba import njit

from mctslab.core.errors import InvalidConfigError
from mctslab.games.go.board import in_atari, legal_point
from mctslab.games.go.layout import (
    EMPTY,
    GUARD,
    P_A2V,
    P_COLOUR,
    P_HEAD,
    P_HIST,
    P_N,
    P_NEXT,
    P_PATTERNS,
    P_SIZE,
    P_W,
    P_ZOB,
    S_HASH,
    S_LAST,
    S_MOVES,
    S_PASSES,
    S_PLAYER,
)
from mctslab.games.go.patterns import PAT_CELLS, pattern_code, pattern_orientation
from mctslab.games.go.playouts import liberties_after
from mctslab.games.go.priors import CFG_FAR, cfg_distances, knowledge
from mctslab.games.kernels import KernelState

if TYPE_CHECKING:  # (the game binds this module's node_priors: no import of it here)
    from mctslab.games.go.game import Go

__all__ = [
    "FAMILIES",
    "FAMILY_OFFSETS",
    "FAMILY_SIZES",
    "LEVELS",
    "PAT3_CLASS",
    "PAT3_CLASSES",
    "PAT3_CODES",
    "PATTERNS_FORMAT",
    "PATTERNS_PATH",
    "PRIOR_LARGEPATTERN",
    "PRIOR_LARGEPATTERN_MIN",
    "T_FAMILIES",
    "Competitions",
    "PatternModel",
    "before_last_point",
    "competitions",
    "distance_maps",
    "feature_names",
    "load_patterns",
    "log_likelihood",
    "mm_train",
    "mm_update",
    "move_features",
    "move_gammas",
    "move_probabilities",
    "node_priors",
    "pat3_classes",
    "pattern_priors",
    "pattern_words",
    "point_levels",
    "prediction_rates",
    "save_patterns",
    "shipped_table",
    "string_liberties",
]

#: The feature families, in the order of a move's features (its team).
FAMILIES = (
    "pass",
    "capture",
    "escape",
    "self_atari",
    "atari",
    "distance_last",
    "distance_before_last",
    "line",
    "pat3",
)
#: The names of the levels of every family but ``pat3`` (its levels: the pass, then
#: the classes of :data:`PAT3_CODES`). Level 0: the absent feature, gamma 1.
LEVELS = (
    ("point", "pass", "pass after a pass"),
    ("none", "1 stone", "2+ stones"),
    ("none", "1 stone", "2+ stones"),
    ("no", "yes"),
    ("no", "yes"),
    ("4+", "1", "2", "3"),
    ("4+", "1", "2", "3"),
    ("4+", "1", "2", "3"),
)
# the offsets of the families' levels in a model's gammas (pat3 last: its size is
# the number of classes, the others' offsets do not depend on it)
OFF_PASS, OFF_CAPTURE, OFF_ESCAPE, OFF_SELF_ATARI, OFF_ATARI = 0, 3, 6, 9, 11
OFF_DLAST, OFF_DBEFORE, OFF_LINE, OFF_PAT3 = 13, 17, 21, 25
#: Where the family gammas begin in a model's flat table (after the ``2 << 16`` gammas
#: of the pattern keys).
T_FAMILIES = 2 << 16
#: Michi's weight of a large pattern's prior (``PRIOR_LARGEPATTERN``) and the
#: probability below which a move gets none (Michi's ``patternprob > 0.001``).
PRIOR_LARGEPATTERN = 100
PRIOR_LARGEPATTERN_MIN = 0.001
PATTERNS_FORMAT = 1
#: The shipped model (its card: the same name, ``.json``).
PATTERNS_PATH = Path(__file__).parent / "data" / "patterns.npz"

# the guard cells (bit i: cell i of PAT_CELLS off the board) a board point can have:
# none, one side (3 cells) or a corner (5)
_TOP, _BOTTOM, _LEFT, _RIGHT = 0b00000111, 0b11100000, 0b00101001, 0b10010100
_EDGES = (0, _TOP, _BOTTOM, _LEFT, _RIGHT)
_CORNERS = (_TOP | _LEFT, _TOP | _RIGHT, _BOTTOM | _LEFT, _BOTTOM | _RIGHT)


def _symmetries() -> list[list[int]]:
    """The 8 symmetries of the square as permutations of :data:`PAT_CELLS`: entry ``i``
    of one is the cell whose colour moves to cell ``i`` (read off
    :func:`~mctslab.games.go.patterns.pattern_orientation` turning a drawing of labels)."""
    labels = "ABCDEFGH"
    rows = ["", "", ""]
    for i, (r, c) in enumerate(PAT_CELLS):
        rows[r] += labels[i]
        if (r, c) == (1, 0):
            rows[r] += "."
    drawing = (rows[0], rows[1], rows[2])
    perms = []
    for sym in range(8):
        turned = pattern_orientation(drawing, sym, False)
        perms.append([labels.index(turned[r][c]) for r, c in PAT_CELLS])
    return perms


def pat3_classes() -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int64]]:
    """The pattern class of every key ``(player << 16) | code`` (``code``: the colours of
    the 8 points around a point, :func:`~mctslab.games.go.patterns.pattern_code`), and
    the smallest code (Black to move) of each class, ascending.

    A key's colours are exchanged when White moves (``player`` 1), so that the mover is
    black; the class is the smallest code among the 8 symmetric images. Classes are
    numbered from 1 (level 0 of the ``pat3`` family is the pass) in the order of their
    codes; a code no board point has (its off-board cells not a side or a corner) is
    class 0. A 9x9 board or larger has all of them: 954 with no edge, 135 on a side, 18
    in a corner."""
    codes = np.arange(1 << 16, dtype=np.int64)
    fields = [(codes >> (2 * i)) & 3 for i in range(8)]
    guards = sum(((f == GUARD).astype(np.int64) << i) for i, f in enumerate(fields))
    valid = np.isin(guards, (*_EDGES, *_CORNERS))
    table = np.zeros(2 << 16, dtype=np.int32)
    reps = np.zeros(0, dtype=np.int64)
    for player in (0, 1):
        own = fields if player == 0 else [np.where(f == GUARD, f, (3 - f) % 3) for f in fields]
        canon = np.full(1 << 16, 1 << 20, dtype=np.int64)
        for perm in _symmetries():
            image = sum(own[perm[i]] << (2 * i) for i in range(8))
            canon = np.minimum(canon, image)
        if player == 0:
            reps = np.unique(canon[valid])
        table[player << 16 : (player + 1) << 16] = np.where(
            valid, np.searchsorted(reps, canon) + 1, 0
        )
    return table, reps


#: :func:`pat3_classes`, built once at import.
PAT3_CLASS, PAT3_CODES = pat3_classes()
#: The number of 3x3 pattern classes.
PAT3_CLASSES = len(PAT3_CODES)
#: The number of levels of each family.
FAMILY_SIZES = (*(len(x) for x in LEVELS), PAT3_CLASSES + 1)
#: Where each family's levels begin in a model's gammas, and their number at the end.
FAMILY_OFFSETS = tuple(int(x) for x in np.cumsum((0, *FAMILY_SIZES)))
assert FAMILY_OFFSETS[:-1] == (
    OFF_PASS,
    OFF_CAPTURE,
    OFF_ESCAPE,
    OFF_SELF_ATARI,
    OFF_ATARI,
    OFF_DLAST,
    OFF_DBEFORE,
    OFF_LINE,
    OFF_PAT3,
)


def feature_names() -> list[str]:
    """A name for each of a model's gammas: ``family: level`` (the pattern classes by
    their drawing, rows top to bottom, ``X`` the mover, ``O`` the opponent)."""
    names = [f"{f}: {lv}" for f, levels in zip(FAMILIES, LEVELS, strict=False) for lv in levels]
    names.append("pat3: none (pass)")
    for code in PAT3_CODES:
        cells = {rc: ".XO#"[(int(code) >> (2 * i)) & 3] for i, rc in enumerate(PAT_CELLS)}
        cells[(1, 1)] = "*"
        names.append(
            "pat3: " + "/".join("".join(cells[(r, c)] for c in range(3)) for r in range(3))
        )
    return names


# --- the features of a position's moves (kernels) ---------------------------------------


@njit(cache=True)
def before_last_point(s, params):  # type: ignore[no-untyped-def]
    """The virtual point of the stone of the move before the last (the mover's own), or
    -1: none, a pass, or a stone no longer there.

    The state keeps the last action alone; the one before is read from the hashes of
    the positions: ``hist[m - 1] ^ hist[m - 2]`` is the Zobrist key of its stone when it
    captured nothing (0 for a pass), found among the mover's keys. A move that captured
    adds the captured stones' keys: it is not found, and counts as none (rare)."""
    m = s[S_MOVES]
    if m < 2 or s[S_PLAYER] < 0:
        return -1
    hist = params[P_HIST]
    diff = s[hist + m - 1] ^ s[hist + m - 2]
    if diff == 0:
        return -1
    n, w = params[P_N], params[P_W]
    c = s[S_PLAYER] + 1
    zob = params[P_ZOB] + c * w * w
    a2v, col = params[P_A2V], params[P_COLOUR]
    for a in range(n * n):
        v = params[a2v + a]
        if params[zob + v] == diff:
            return v if s[col + v] == c else -1
    return -1


@njit(cache=True)
def distance_maps(s, params, d1, d2, queue):  # type: ignore[no-untyped-def]
    """The common-fate-graph distances (up to 3, :data:`CFG_FAR` beyond) from the last
    move's stone to ``d1`` and from the move before it (:func:`before_last_point`) to
    ``d2``, all :data:`CFG_FAR` where there is no such stone. ``W * W`` entries each,
    ``queue`` the same as scratch."""
    col, a2v = params[P_COLOUR], params[P_A2V]
    nn = params[P_N] * params[P_N]
    last = s[S_LAST]
    lv = params[a2v + last] if 0 <= last < nn else -1
    if lv >= 0 and s[col + lv] != EMPTY:
        cfg_distances(s, params, lv, d1, queue)
    else:
        d1[:] = CFG_FAR
    lv2 = before_last_point(s, params)
    if lv2 >= 0:
        cfg_distances(s, params, lv2, d2, queue)
    else:
        d2[:] = CFG_FAR


@njit(cache=True)
def string_liberties(s, params, h):  # type: ignore[no-untyped-def]
    """The distinct liberties of the string of head ``h``, counted up to 3."""
    col, nxt, w = params[P_COLOUR], params[P_NEXT], params[P_W]
    l1 = l2 = np.int64(-1)
    cur = h
    while True:
        for e in range(4):
            q = cur - w if e == 0 else (cur - 1 if e == 1 else (cur + 1 if e == 2 else cur + w))
            if s[col + q] == EMPTY and q != l1 and q != l2:
                if l1 < 0:
                    l1 = q
                elif l2 < 0:
                    l2 = q
                else:
                    return 3
        cur = s[nxt + cur]
        if cur == h:
            break
    return 0 if l1 < 0 else (1 if l2 < 0 else 2)


@njit(cache=True)
def point_levels(s, params, v, c, d1, d2):  # type: ignore[no-untyped-def]
    """The levels of colour ``c``'s legal move at virtual point ``v`` in the families
    ``capture, escape, self_atari, atari, distance_last, distance_before_last, line``
    (the module's docstring); ``d1``, ``d2``: :func:`distance_maps`."""
    col, head, size, n, w = (
        params[P_COLOUR],
        params[P_HEAD],
        params[P_SIZE],
        params[P_N],
        params[P_W],
    )
    o = 3 - c
    captured = 0
    saved = 0
    atari = 0
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
        elif x == o and atari == 0 and string_liberties(s, params, h) == 2:
            atari = 1
    libs = liberties_after(s, params, v, c)
    capture = 0 if captured == 0 else (1 if captured == 1 else 2)
    escape = 0 if saved == 0 or libs < 2 else (1 if saved == 1 else 2)
    self_atari = 1 if captured == 0 and libs == 1 else 0
    dl = d1[v] if 1 <= d1[v] <= 3 else 0
    db = d2[v] if 1 <= d2[v] <= 3 else 0
    r = v // w - 1
    k = v % w - 1
    height = min(min(r, k), min(n - 1 - r, n - 1 - k))
    line = height + 1 if height < 3 else 0
    return capture, escape, self_atari, atari, dl, db, line


@njit(cache=True)
def move_features(s, params, pat3_class, out):  # type: ignore[no-untyped-def]
    """The levels of every action's features for the player to move, one row of
    ``len(FAMILIES)`` per action (``out``: ``int64``, ``(N * N + 1, 9)``; the pass is row
    ``N * N``), in the order of :data:`FAMILIES`, the ``pat3`` level read from
    ``pat3_class`` (:data:`PAT3_CLASS`); an illegal point's row is all -1 (every row of
    a finished game). Returns the number of legal actions."""
    n, w = params[P_N], params[P_W]
    nn = n * n
    out[:, :] = -1
    if s[S_PLAYER] < 0:
        return 0
    col, a2v = params[P_COLOUR], params[P_A2V]
    c = s[S_PLAYER] + 1
    d1 = np.empty(w * w, dtype=np.int64)
    d2 = np.empty(w * w, dtype=np.int64)
    distance_maps(s, params, d1, d2, np.empty(w * w, dtype=np.int64))
    k = 0
    for a in range(nn):
        v = params[a2v + a]
        if not legal_point(s, params, v, c):
            continue
        capture, escape, self_atari, atari, dl, db, line = point_levels(s, params, v, c, d1, d2)
        out[a, 0] = 0
        out[a, 1] = capture
        out[a, 2] = escape
        out[a, 3] = self_atari
        out[a, 4] = atari
        out[a, 5] = dl
        out[a, 6] = db
        out[a, 7] = line
        out[a, 8] = pat3_class[((c - 1) << 16) | pattern_code(s, col, w, v)]
        k += 1
    out[nn, :] = 0
    out[nn, 0] = 2 if s[S_PASSES] > 0 else 1
    return k + 1


@njit(cache=True)
def move_gammas(s, params, gammas_table, out):  # type: ignore[no-untyped-def]
    """``gamma_j``, the product of the gammas of its features, of every action ``j``
    for the player to move (``out``: ``float64``, ``N * N + 1`` entries, the pass last;
    0 for an illegal point and for every action of a finished game), ``gammas_table`` a
    model's flat table (:attr:`PatternModel.table`)."""
    n, w = params[P_N], params[P_W]
    nn = n * n
    if s[S_PLAYER] < 0:
        out[: nn + 1] = 0.0
        return
    col, a2v = params[P_COLOUR], params[P_A2V]
    c = s[S_PLAYER] + 1
    t = T_FAMILIES
    d1 = np.empty(w * w, dtype=np.int64)
    d2 = np.empty(w * w, dtype=np.int64)
    distance_maps(s, params, d1, d2, np.empty(w * w, dtype=np.int64))
    for a in range(nn):
        v = params[a2v + a]
        if not legal_point(s, params, v, c):
            out[a] = 0.0
            continue
        capture, escape, self_atari, atari, dl, db, line = point_levels(s, params, v, c, d1, d2)
        out[a] = (
            gammas_table[((c - 1) << 16) | pattern_code(s, col, w, v)]
            * gammas_table[t + OFF_PASS]
            * gammas_table[t + OFF_CAPTURE + capture]
            * gammas_table[t + OFF_ESCAPE + escape]
            * gammas_table[t + OFF_SELF_ATARI + self_atari]
            * gammas_table[t + OFF_ATARI + atari]
            * gammas_table[t + OFF_DLAST + dl]
            * gammas_table[t + OFF_DBEFORE + db]
            * gammas_table[t + OFF_LINE + line]
        )
    # the pass: its own level, every other family at level 0 (the pat3 "pass" level too)
    out[nn] = (
        gammas_table[t + OFF_PASS + (2 if s[S_PASSES] > 0 else 1)]
        * gammas_table[t + OFF_CAPTURE]
        * gammas_table[t + OFF_ESCAPE]
        * gammas_table[t + OFF_SELF_ATARI]
        * gammas_table[t + OFF_ATARI]
        * gammas_table[t + OFF_DLAST]
        * gammas_table[t + OFF_DBEFORE]
        * gammas_table[t + OFF_LINE]
        * gammas_table[t + OFF_PAT3]
    )


@njit(cache=True)
def pattern_priors(s, params, gammas_table, out_visits, out_wins, scale):  # type: ignore[no-untyped-def]
    """Add the learned patterns' node prior to every action's virtual visits and wins,
    as Michi does with its large patterns (``michi.py``, ``TreeNode.expand``): a move of
    probability ``p`` (:func:`move_gammas`, normalised) above
    :data:`PRIOR_LARGEPATTERN_MIN` gets ``scale * sqrt(p)`` visits and as many wins
    (Michi's ``scale``: :data:`PRIOR_LARGEPATTERN`; its square root "tones up" the
    small probabilities). ``out_visits``, ``out_wins``: ``N * N + 1`` entries at least,
    ``float64`` (as the search's priors; ``int64`` ones get each sum truncated, as
    Michi's Go port does); only those that get a prior are changed. Nothing for a
    finished game."""
    nn = params[P_N] * params[P_N]
    if s[S_PLAYER] < 0:
        return
    g = np.empty(nn + 1, dtype=np.float64)
    move_gammas(s, params, gammas_table, g)
    total = g.sum()
    for a in range(nn + 1):
        p = g[a] / total
        if p > PRIOR_LARGEPATTERN_MIN:
            x = scale * math.sqrt(p)
            out_visits[a] += x
            out_wins[a] += x


@njit(cache=True)
def node_priors(s, params, out_visits, out_wins):  # type: ignore[no-untyped-def]
    """Go's knowledge kernel as :class:`~mctslab.games.go.Go` binds it: the hand-made
    priors (:func:`~mctslab.games.go.priors.knowledge`), plus, for a game made with
    ``patterns`` > 0, the learned patterns' prior (:func:`pattern_priors` with that
    scale and the model the game holds at ``params[P_PATTERNS]``; each sum truncated to
    the ``int64`` visits and wins)."""
    knowledge(s, params, out_visits, out_wins)
    at = params[P_PATTERNS]
    if at > 0 and s[S_PLAYER] >= 0:
        words = params[at:].view(np.float64)
        pattern_priors(s, params, words[1:], out_visits, out_wins, words[0])


def pattern_words(scale: float, model: PatternModel | None = None) -> npt.NDArray[np.float64]:
    """The words a Go game made with ``patterns=scale`` holds: the scale, then the
    model's table (the shipped model by default)."""
    table = model.table if model is not None else shipped_table()
    return np.concatenate([np.array([float(scale)]), table])


@functools.cache
def shipped_table() -> npt.NDArray[np.float64]:
    """The shipped model's gamma table (:data:`PATTERNS_PATH`), read once a process (each
    Go game made with ``patterns`` would read the file again), read-only."""
    table = np.array(load_patterns().table, dtype=np.float64)
    table.flags.writeable = False
    return table


def move_probabilities(state: KernelState, model: PatternModel) -> npt.NDArray[np.float64]:
    """``P(j) = gamma_j / sum_k gamma_k`` for every action of a Go state (not over), by
    action (the pass last, 0 for an illegal point)."""
    if state.is_terminal():
        raise InvalidConfigError("go: the game is over: there is no move to predict")
    nn = int(state.game.params[P_N]) ** 2
    g = np.zeros(nn + 1, dtype=np.float64)
    move_gammas(state.array, state.game.params, model.table, g)
    out: npt.NDArray[np.float64] = g / g.sum()
    return out


# --- training: the competitions and MM -----------------------------------------------


class Competitions(NamedTuple):
    """Positions and the move played in each, as the model sees them.

    ``features``: one row per legal move of every position (``int32``, ``(M, K)``): the
    index in the model's gammas of its level of each of the ``K`` families; a position's
    moves are rows ``starts[j] .. starts[j + 1]``; ``chosen[j]``: the row of the move
    played; ``sizes``: the levels of each family (its levels are consecutive, family by
    family, level 0 of each held at gamma 1); ``keys``: a hash of each position and its
    player to move (to find positions that recur)."""

    features: npt.NDArray[np.int32]
    starts: npt.NDArray[np.int64]
    chosen: npt.NDArray[np.int64]
    sizes: tuple[int, ...]
    keys: npt.NDArray[np.int64]

    @property
    def group(self) -> npt.NDArray[np.int64]:
        """The position of each row."""
        return np.repeat(np.arange(len(self.chosen)), np.diff(self.starts))


def competitions(game: Go, games: Iterable[tuple[Sequence[int], Sequence[bool]]]) -> Competitions:
    """The competitions of the moves ``games`` select: each game is its actions and,
    for each, whether its position is an example (the move played there is the
    winner); the games are replayed from the start (``game``'s rules, an illegal
    action raising :class:`~mctslab.core.errors.IllegalActionError`)."""
    nn = game.board_size**2
    offsets = np.asarray(FAMILY_OFFSETS[:-1], dtype=np.int32)
    buf = np.empty((nn + 1, len(FAMILIES)), dtype=np.int64)
    rows: list[npt.NDArray[np.int32]] = []
    starts, chosen, keys = [0], [], []
    for actions, examples in games:
        state = game.new_initial_state()
        for i, (a, example) in enumerate(zip(actions, examples, strict=True)):
            if example:
                move_features(state.array, game.params, PAT3_CLASS, buf)
                legal = np.flatnonzero(buf[:, 0] >= 0)
                where = int(np.searchsorted(legal, a))
                if where == len(legal) or legal[where] != a:
                    raise InvalidConfigError(f"go: action {a} is illegal at move {i + 1}")
                rows.append((buf[legal] + offsets).astype(np.int32))
                chosen.append(starts[-1] + where)
                starts.append(starts[-1] + len(legal))
                keys.append(int(state.array[S_HASH]) ^ int(state.array[S_PLAYER]))
            state.apply_action(a)
    width = len(FAMILIES)
    return Competitions(
        np.concatenate(rows) if rows else np.zeros((0, width), dtype=np.int32),
        np.asarray(starts, dtype=np.int64),
        np.asarray(chosen, dtype=np.int64),
        FAMILY_SIZES,
        np.asarray(keys, dtype=np.int64),
    )


def log_likelihood(
    gammas: npt.NDArray[np.float64], comp: Competitions, virtual: float = 0.0
) -> float:
    """``sum_j log P(move played in j)``, plus, with ``virtual`` > 0, the log of the
    prior: ``virtual * (log gamma_i - 2 log(1 + gamma_i))`` for every level but the
    fixed ones (its virtual win and loss against a gamma of 1)."""
    lg = np.log(gammas)[comp.features].sum(axis=1)
    total = np.add.reduceat(np.exp(lg), comp.starts[:-1])
    ll = float((lg[comp.chosen] - np.log(total)).sum())
    if virtual > 0:
        free = np.ones(len(gammas), dtype=bool)
        free[np.cumsum((0, *comp.sizes[:-1]))] = False
        ll += virtual * float((np.log(gammas[free]) - 2 * np.log1p(gammas[free])).sum())
    return ll


def mm_update(
    gammas: npt.NDArray[np.float64],
    lg: npt.NDArray[np.float64],
    comp: Competitions,
    family: int,
    virtual: float = 1.0,
) -> None:
    """One MM step of Coulom 2007 on the levels of ``family`` (the module's docstring),
    in place: ``gammas``, and ``lg``, the log gamma of every row, kept up to date.
    Level 0 stays at 1; a level with no move (and no prior) keeps its gamma."""
    offsets = np.cumsum((0, *comp.sizes))
    lo, hi = int(offsets[family]) + 1, int(offsets[family + 1])
    col = comp.features[:, family]
    g = np.exp(lg)
    total = np.add.reduceat(g, comp.starts[:-1])
    share = g / gammas[col] / np.repeat(total, np.diff(comp.starts))  # C_ij / E_j
    denominator = np.bincount(col, share, minlength=len(gammas))[lo:hi].astype(np.float64)
    wins = np.bincount(col[comp.chosen], minlength=len(gammas))[lo:hi].astype(np.float64)
    old = gammas[lo:hi].copy()
    denominator += 2 * virtual / (old + 1)
    new = np.where(denominator > 0, (wins + virtual) / np.maximum(denominator, 1e-300), old)
    new = np.maximum(new, 1e-12)  # a level never played (no prior) heads to 0
    gammas[lo:hi] = new
    step = np.zeros(len(gammas))
    step[lo:hi] = np.log(new) - np.log(old)
    lg += step[col]


def mm_train(
    comp: Competitions,
    sweeps: int = 100,
    tol: float = 1e-7,
    virtual: float = 1.0,
    gammas: npt.NDArray[np.float64] | None = None,
) -> tuple[npt.NDArray[np.float64], list[float]]:
    """Coulom's MM (:func:`mm_update`, family after family) from ``gammas`` (all 1 by
    default) until a sweep over the families raises the log-posterior per position by
    less than ``tol``, or ``sweeps`` sweeps. Returns the gammas and the log-posterior
    (:func:`log_likelihood` with the prior) after each sweep, the first entry before any."""
    g = np.ones(int(sum(comp.sizes))) if gammas is None else gammas.astype(np.float64).copy()
    lg = np.log(g)[comp.features].sum(axis=1)
    history = [log_likelihood(g, comp, virtual)]
    positions = max(len(comp.chosen), 1)
    for _ in range(sweeps):
        for family in range(len(comp.sizes)):
            mm_update(g, lg, comp, family, virtual)
        lg = np.log(g)[comp.features].sum(axis=1)  # no drift from the running sums
        history.append(log_likelihood(g, comp, virtual))
        if (history[-1] - history[-2]) / positions < tol:
            break
    return g, history


def prediction_rates(
    scores: npt.NDArray[np.float64],
    starts: npt.NDArray[np.int64],
    chosen: npt.NDArray[np.int64],
    ks: Sequence[int] = (1, 5),
) -> list[float]:
    """For each ``k`` of ``ks``, the expected share of positions whose move played is
    among the ``k`` best-scored moves, ties broken at random: a move with ``g`` moves
    scored above it and ``e`` scored as it (itself included) is in the top ``k`` with
    probability ``clip((k - g) / e, 0, 1)``."""
    group = np.repeat(np.arange(len(chosen)), np.diff(starts))
    mine = scores[chosen][group]
    above = np.add.reduceat((scores > mine).astype(np.int64), starts[:-1])
    equal = np.add.reduceat((scores == mine).astype(np.int64), starts[:-1])
    return [float(np.clip((k - above) / equal, 0.0, 1.0).mean()) for k in ks]


# --- the model file ------------------------------------------------------------------


class PatternModel(NamedTuple):
    """A trained model: ``gammas`` (one per level, :func:`feature_names` names them),
    ``table`` (the kernels' flat table: the gamma of the pattern class of every key,
    then ``gammas``), the pattern classes ``pat3_class`` it was trained with, and its
    card (the ``.json`` beside the file; empty if none)."""

    gammas: npt.NDArray[np.float64]
    table: npt.NDArray[np.float64]
    pat3_class: npt.NDArray[np.int32]
    card: dict[str, Any]

    @classmethod
    def from_gammas(
        cls, gammas: npt.NDArray[np.float64], card: dict[str, Any] | None = None
    ) -> PatternModel:
        """The model of ``gammas`` (one per level) with this module's pattern classes."""
        g = np.asarray(gammas, dtype=np.float64)
        if g.shape != (FAMILY_OFFSETS[-1],) or not (np.isfinite(g).all() and (g > 0).all()):
            raise InvalidConfigError(
                f"go patterns: want {FAMILY_OFFSETS[-1]} finite positive gammas, got shape {g.shape}"
            )
        table = np.concatenate([g[OFF_PAT3 + PAT3_CLASS], g])
        return cls(g, table, PAT3_CLASS, dict(card or {}))


def save_patterns(path: str | Path, gammas: npt.NDArray[np.float64]) -> None:
    """Write a model: its gammas, the feature layout and the pattern classes, as plain
    numpy arrays (no pickled object) in a compressed ``.npz``."""
    model = PatternModel.from_gammas(gammas)
    np.savez_compressed(
        path,
        format=np.array([PATTERNS_FORMAT], dtype=np.int64),
        families=np.array(FAMILIES),
        family_sizes=np.array(FAMILY_SIZES, dtype=np.int64),
        feature_names=np.array(feature_names()),
        gammas=model.gammas,
        pat3_class=PAT3_CLASS,
        pat3_codes=PAT3_CODES,
    )


def load_patterns(path: str | Path | None = None) -> PatternModel:
    """Read a model written by :func:`save_patterns` (the shipped one by default,
    :data:`PATTERNS_PATH`) and its card. Data only: numpy's ``allow_pickle=False``, so a
    file holding pickled objects is refused, as is one whose layout or pattern classes
    differ from this module's (:class:`~mctslab.core.errors.InvalidConfigError`)."""
    p = Path(path) if path is not None else PATTERNS_PATH
    want = ("format", "families", "family_sizes", "gammas", "pat3_class")
    try:
        with np.load(p, allow_pickle=False) as data:
            missing = [k for k in want if k not in data.files]
            if missing:
                raise InvalidConfigError(f"go patterns: {p} lacks {missing}")
            arrays = {k: data[k] for k in want}
    except (OSError, ValueError, zipfile.BadZipFile) as exc:
        if isinstance(exc, InvalidConfigError):
            raise
        raise InvalidConfigError(f"go patterns: cannot read {p} as numpy data: {exc}") from exc
    if arrays["format"].tolist() != [PATTERNS_FORMAT]:
        raise InvalidConfigError(
            f"go patterns: {p} has format {arrays['format'].tolist()}, want {PATTERNS_FORMAT}"
        )
    layout = (tuple(arrays["families"].tolist()), tuple(arrays["family_sizes"].tolist()))
    if layout != (FAMILIES, FAMILY_SIZES) or not np.array_equal(arrays["pat3_class"], PAT3_CLASS):
        raise InvalidConfigError(f"go patterns: {p} was written for another feature layout")
    card_path = p.with_suffix(".json")
    card = json.loads(card_path.read_text(encoding="utf-8")) if card_path.exists() else {}
    return PatternModel.from_gammas(arrays["gammas"], card)
