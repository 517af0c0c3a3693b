"""The flat arrays of Go's rule kernels: the words of a state and of its parameters.

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
functions of ``(state, params)`` alone; a game made with learned patterns
(:mod:`~mctslab.games.go.learned`) appends their prior's scale and gamma table as
``float64`` words (``params[P_PATTERNS]`` their offset, 0 without).
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "BLACK",
    "BLOOM_WORDS",
    "EMPTY",
    "GUARD",
    "HEADER",
    "PARAMS_HEADER",
    "P_A2V",
    "P_BLOOM",
    "P_COLOUR",
    "P_ELIST",
    "P_EPOS",
    "P_HEAD",
    "P_HIST",
    "P_KOMI2",
    "P_LEN",
    "P_LIBS",
    "P_LSQ",
    "P_LSUM",
    "P_MAXLEN",
    "P_N",
    "P_NEXT",
    "P_PATTERNS",
    "P_PATTERN_PLAYOUTS",
    "P_SHASH",
    "P_SIZE",
    "P_SUPERKO",
    "P_W",
    "P_ZOB",
    "S_CAPTURED",
    "S_HASH",
    "S_KO",
    "S_LAST",
    "S_MOVES",
    "S_NEMPTY",
    "S_PASSES",
    "S_PLAYER",
    "S_SCORE2",
    "S_WINNER",
    "WHITE",
    "ZOBRIST_SEED",
    "make_params",
]


# params: header words, then the action -> virtual point table, then the Zobrist keys.
P_N, P_W, P_KOMI2, P_SUPERKO, P_MAXLEN = 0, 1, 2, 3, 4
P_COLOUR, P_HEAD, P_NEXT, P_LIBS, P_LSUM, P_LSQ, P_SIZE, P_SHASH = 5, 6, 7, 8, 9, 10, 11, 12
P_BLOOM, P_HIST, P_LEN, P_A2V, P_ZOB = 13, 14, 15, 16, 17
P_ELIST, P_EPOS = 18, 19
P_PATTERNS = 20  # the learned patterns' words (float64 bits: scale, then the table); 0: none
P_PATTERN_PLAYOUTS = 21  # 1: the heavy playout draws its 3x3 moves by the learned gammas
PARAMS_HEADER = 24

# state header
S_PLAYER, S_WINNER, S_MOVES, S_PASSES, S_KO, S_HASH = 0, 1, 2, 3, 4, 5
S_CAPTURED, S_LAST, S_SCORE2, S_NEMPTY = 6, 8, 9, 10  # captured: 6 by black, 7 by white
HEADER = 16
BLOOM_WORDS = 64
ZOBRIST_SEED = 0x60_0D_5EED

EMPTY, BLACK, WHITE, GUARD = 0, 1, 2, 3


def make_params(
    board_size: int,
    komi2: int,
    superko: bool,
    max_len: int,
    patterns: np.ndarray | None = None,
    pattern_playouts: bool = False,
) -> np.ndarray:
    """The parameter words of a game; ``patterns``: the ``float64`` words appended at
    ``params[P_PATTERNS]`` (the learned patterns' prior scale, then their gamma table),
    which ``pattern_playouts`` needs."""
    n, w = board_size, board_size + 2
    v = w * w
    colour = HEADER
    offsets = [colour + i * v for i in range(8)]
    elist = colour + 8 * v
    epos = elist + n * n
    bloom = epos + v
    hist = bloom + BLOOM_WORDS
    length = hist + max_len + 1
    a2v = PARAMS_HEADER
    zob = a2v + n * n
    params = np.zeros(zob + 3 * v, dtype=np.int64)
    params[:5] = [n, w, komi2, int(superko), max_len]
    params[P_COLOUR : P_SHASH + 1] = offsets
    params[P_BLOOM], params[P_HIST], params[P_LEN] = bloom, hist, length
    params[P_A2V], params[P_ZOB] = a2v, zob
    params[P_ELIST], params[P_EPOS] = elist, epos
    for a in range(n * n):
        params[a2v + a] = (a // n + 1) * w + a % n + 1
    keys = np.random.default_rng(ZOBRIST_SEED).integers(
        np.iinfo(np.int64).min, np.iinfo(np.int64).max, size=3 * v, dtype=np.int64
    )
    keys[:v] = 0  # colour 0 (empty) has no key: keys[c * V + v] for c = 1, 2
    params[zob:] = keys
    if patterns is None:
        if pattern_playouts:
            raise ValueError("pattern playouts need the patterns' words")
        return params
    params[P_PATTERN_PLAYOUTS] = int(pattern_playouts)
    words = np.ascontiguousarray(patterns, dtype=np.float64).view(np.int64)
    params[P_PATTERNS] = len(params)
    return np.concatenate([params, words])
