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

The rules are kernels over flat ``int64`` arrays (:mod:`mctslab.games.kernels`'s contract),
one module per concept, in the order a move runs through them:

- :mod:`~mctslab.games.go.layout`: the words of a state and of its parameters;
- :mod:`~mctslab.games.go.board`: a new game, strings and their pseudo-liberties,
  legality (suicide, ko, superko), moves and captures, the end, the observation;
- :mod:`~mctslab.games.go.scoring`: Tromp-Taylor area scoring, the heuristic;
- :mod:`~mctslab.games.go.patterns`: MoGo's 3x3 patterns and their table;
- :mod:`~mctslab.games.go.playouts`: the light, uniform and heavy playouts;
- :mod:`~mctslab.games.go.priors`: the prior knowledge of a new tree node's children
  (Michi's node priors: captures, escapes, patterns, distance to the last move);
- :mod:`~mctslab.games.go.learned`: learned move patterns, Coulom's Bradley-Terry model
  of the move played (features, MM training, the shipped ``data/patterns.npz``);
- :mod:`~mctslab.games.go.game`: the :class:`Go` game that binds them.

Beside the rules, what Go's programs and players ask of a game, in modules this package's
face does not import (import them by name):

- :mod:`~mctslab.games.go.status`: the end of a game, dead stones and seki judged by
  Monte-Carlo ownership, the score by agreement (GTP's ``final_status_list``);
- :mod:`~mctslab.games.go.sgf`: SGF records, written and read.

Every name of the single module this package was is importable from it.
"""

from __future__ import annotations

from mctslab.games.go.board import (
    add_liberty,
    apply_action,
    finish,
    in_atari,
    init,
    legal_actions,
    legal_point,
    merge_strings,
    neighbour,
    observation,
    remember,
    remove_liberty,
    remove_string,
    returns,
    seen_before,
)
from mctslab.games.go.game import COLUMNS, Go
from mctslab.games.go.layout import (
    BLACK,
    BLOOM_WORDS,
    EMPTY,
    GUARD,
    HEADER,
    P_A2V,
    P_BLOOM,
    P_COLOUR,
    P_ELIST,
    P_EPOS,
    P_HEAD,
    P_HIST,
    P_KOMI2,
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
    PARAMS_HEADER,
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
    ZOBRIST_SEED,
    make_params,
)
from mctslab.games.go.patterns import (
    MOGO_PAT3,
    MOGO_PATTERNS,
    PAT_CELLS,
    PAT_SWAP,
    PAT_SYMBOLS,
    Pattern3,
    pattern_code,
    pattern_matches,
    pattern_orientation,
    pattern_table,
)
from mctslab.games.go.playouts import (
    around,
    heavy_action,
    heavy_playout,
    liberties_after,
    light_action,
    listed,
    own_eye,
    playout,
    rollout_actions,
    uniform_action,
)
from mctslab.games.go.priors import (
    CFG_FAR,
    PRIOR_CAPTURE_MANY,
    PRIOR_CAPTURE_ONE,
    PRIOR_CFG,
    PRIOR_EMPTYAREA,
    PRIOR_EVEN,
    PRIOR_OWN_EYE,
    PRIOR_PAT3,
    PRIOR_SELFATARI,
    cfg_distances,
    empty_area,
    knowledge,
    prior_table,
    shape_prior,
    tactical_prior,
)
from mctslab.games.go.scoring import area_score2, heuristic

__all__ = [
    "BLACK",
    "BLOOM_WORDS",
    "CFG_FAR",
    "COLUMNS",
    "EMPTY",
    "GUARD",
    "HEADER",
    "MOGO_PAT3",
    "MOGO_PATTERNS",
    "PARAMS_HEADER",
    "PAT_CELLS",
    "PAT_SWAP",
    "PAT_SYMBOLS",
    "PRIOR_CAPTURE_MANY",
    "PRIOR_CAPTURE_ONE",
    "PRIOR_CFG",
    "PRIOR_EMPTYAREA",
    "PRIOR_EVEN",
    "PRIOR_OWN_EYE",
    "PRIOR_PAT3",
    "PRIOR_SELFATARI",
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
    "Go",
    "Pattern3",
    "add_liberty",
    "apply_action",
    "area_score2",
    "around",
    "cfg_distances",
    "empty_area",
    "finish",
    "heavy_action",
    "heavy_playout",
    "heuristic",
    "in_atari",
    "init",
    "knowledge",
    "legal_actions",
    "legal_point",
    "liberties_after",
    "light_action",
    "listed",
    "make_params",
    "merge_strings",
    "neighbour",
    "observation",
    "own_eye",
    "pattern_code",
    "pattern_matches",
    "pattern_orientation",
    "pattern_table",
    "playout",
    "prior_table",
    "remember",
    "remove_liberty",
    "remove_string",
    "returns",
    "rollout_actions",
    "seen_before",
    "shape_prior",
    "tactical_prior",
    "uniform_action",
]

# The names the single module gave its layout words and helpers, kept importable.
_P_N, _P_W, _P_KOMI2, _P_SUPERKO, _P_MAXLEN = P_N, P_W, P_KOMI2, P_SUPERKO, P_MAXLEN
_P_COLOUR, _P_HEAD, _P_NEXT, _P_LIBS = P_COLOUR, P_HEAD, P_NEXT, P_LIBS
_P_LSUM, _P_LSQ, _P_SIZE, _P_SHASH = P_LSUM, P_LSQ, P_SIZE, P_SHASH
_P_BLOOM, _P_HIST, _P_LEN, _P_A2V, _P_ZOB = P_BLOOM, P_HIST, P_LEN, P_A2V, P_ZOB
_P_ELIST, _P_EPOS, _PARAMS_HEADER = P_ELIST, P_EPOS, PARAMS_HEADER
_S_PLAYER, _S_WINNER, _S_MOVES, _S_PASSES = S_PLAYER, S_WINNER, S_MOVES, S_PASSES
_S_KO, _S_HASH, _S_CAPTURED, _S_LAST = S_KO, S_HASH, S_CAPTURED, S_LAST
_S_SCORE2, _S_NEMPTY, _HEADER = S_SCORE2, S_NEMPTY, HEADER
_BLOOM_WORDS, _ZOBRIST_SEED, _make_params = BLOOM_WORDS, ZOBRIST_SEED, make_params
_remember, _seen, _in_atari, _neighbour = remember, seen_before, in_atari, neighbour
_legal_point, _add_lib, _remove_lib = legal_point, add_liberty, remove_liberty
_merge, _remove_string, _finish = merge_strings, remove_string, finish
_own_eye, _around, _listed, _liberties_after = own_eye, around, listed, liberties_after
_pattern_orientation, _pattern_table = pattern_orientation, pattern_table
_pattern_code, _PAT_SYMBOLS = pattern_code, PAT_SYMBOLS
_PAT_SWAP, _PAT_CELLS, _COLUMNS = PAT_SWAP, PAT_CELLS, COLUMNS
