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

This face holds the game and its rule kernels, the functions a numba loop over Go's
arrays calls (its own playout, a benchmark's); the layout's words, the patterns' and the
priors' tables and the helpers of each concept are imported from their module by name, as
``from mctslab.games.go.layout import P_COLOUR``.
"""

from __future__ import annotations

from mctslab.games.go.board import (
    apply_action,
    init,
    legal_actions,
    observation,
    returns,
)
from mctslab.games.go.game import Go
from mctslab.games.go.layout import make_params
from mctslab.games.go.playouts import (
    heavy_action,
    heavy_playout,
    light_action,
    playout,
    rollout_actions,
    uniform_action,
)
from mctslab.games.go.scoring import area_score2, heuristic

__all__ = [
    "Go",
    "apply_action",
    "area_score2",
    "heavy_action",
    "heavy_playout",
    "heuristic",
    "init",
    "legal_actions",
    "light_action",
    "make_params",
    "observation",
    "playout",
    "returns",
    "rollout_actions",
    "uniform_action",
]
