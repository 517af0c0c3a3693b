"""What the page draws for a position: a small description per kind of board.

Each game declares its board (:class:`~mctslab.core.declarations.Rendering`: the kind,
the players' names, the drawing of a position), in its own module; this module reads
the declaration and knows no game. The kinds the page draws:

- Tic-tac-toe and Connect Four: ``{"kind": "grid", "rows", "cols", "cells",
  "click", "actions", "win"}`` (``win``: the cells of the winner's line, ``[]`` if none;
  :func:`~mctslab.core.declarations.winning_line`). ``cells`` is row-major with row 0 at the *top* as the
  board is displayed, each ``""``, ``"x"`` or ``"o"``; ``click`` is ``"cell"``
  (a click on a cell plays it) or ``"column"`` (a click anywhere in a column
  drops a stone there); ``actions`` maps each clickable cell index or column
  (as a string: JSON keys are strings) to its action id, legal moves only.
- Nim and Bachet's game: ``{"kind": "piles", "piles", "max_take", "misere",
  "moves"}``; ``moves`` lists the legal ``{"pile", "take", "action"}`` (piles
  from 0); ``max_take`` is the largest take the rules allow.
- Bohnenspiel: ``{"kind": "pits", "top", "bottom", "stores", "actions"}``:
  ``top`` the beans in pits 11..6 (player 1's row, left to right as drawn),
  ``bottom`` pits 0..5 (player 0's row), ``stores`` those of players 0 and 1;
  ``actions`` maps each legal pit index (as a string) to its action id.
- Go: ``{"kind": "go", "size", "stones", "last", "to_play", "captures", "komi",
  "pass", "actions", "territory", "score", "dead", "agreed_score", "undecided"}``: ``stones`` lists the ``size * size``
  points in action order (index ``r * size + c``, row 0 at the *bottom*, as Go's
  actions), each 0 (empty), 1 (black) or 2 (white); ``last`` the last action played
  (a point or the pass) or ``None``; ``to_play`` 1 (Black) or 2 (White), ``None``
  once over; ``captures`` the stones captured by Black and by White; ``komi`` White's;
  ``pass`` the pass action id (``size * size``); ``actions`` maps each legal action,
  points and pass alike (as strings), to its id. Once the game is over ``territory``
  gives each point's owner under Tromp-Taylor area scoring (0 nobody, 1 Black, 2
  White: a stone's colour, or the colour every empty region reaches alone) and
  ``score`` is :meth:`Go.score <mctslab.games.go.Go.score>` (Black's area minus
  White's minus komi: ``B+3.5`` for 3.5, ``W+7.5`` for -7.5), the game's result; ``dead``
  the points of the stones :func:`~mctslab.games.go.status.final_status` judges dead
  (Monte-Carlo ownership: what a game stopped early would agree to remove) and
  ``agreed_score`` the area count without them (komi in): the score by agreement,
  shown beside the result; ``undecided`` the number of points the playouts do not
  agree on. On a board that is not settled (:attr:`FinalStatus.settled
  <mctslab.games.go.status.FinalStatus.settled>`: a game ended by two passes early)
  nothing is judged: ``dead`` is ``[]`` and ``agreed_score`` ``None``. All five
  ``None`` before the end.
- Any other game (one that declares no board): ``{"kind": "text"}``: the page shows
  :func:`state_text` and a button per legal move.

A user's game that declares ``rendering()`` is drawn as it says (docs/layout.md,
"Adding a game to the lab").
"""

from __future__ import annotations

from typing import Any

from mctslab.core.declarations import rendering
from mctslab.core.game import Game, State, player_label

__all__ = ["board_kind", "player_names", "render", "state_text"]


def state_text(state: State) -> str:
    """The position in words for a person: the game's ``human_view()`` where it has one
    (Pig, Kuhn poker, Knockout Whist: players counted from 1, as everywhere on the page),
    else ``str(state)`` (Pig's is OpenSpiel's, "Current player: 0", kept for the API)."""
    view = getattr(state, "human_view", None)
    return str(view()) if callable(view) else str(state)


def player_names(game: Game) -> list[str]:
    """Each player's name on the page, by id: the names the game's
    :class:`~mctslab.core.declarations.Rendering` declares (tic-tac-toe's X and O;
    Connect Four's red and yellow discs; Go's black and white stones), else
    :func:`~mctslab.core.game.player_label`'s (the game's names in text, else "player
    1", ...: people count from 1)."""
    declared = rendering(game).players
    if declared:
        return list(declared)
    # player_label's marks ("x", "o") are drawn as capitals on the page.
    return [
        name.upper() if len(name) == 1 else name
        for name in (player_label(game, p) for p in range(game.info.num_players))
    ]


def board_kind(game: Game) -> str:
    """The kind of board the page draws for ``game`` (``GET /api/games``' ``board``)."""
    return rendering(game).kind


def render(game: Game, state: State) -> dict[str, Any]:
    """The drawing description of ``state``, a position of ``game`` (module docstring):
    the kind ``game`` declares and its drawing's fields."""
    declared = rendering(game)
    if declared.draw is None:
        return {"kind": "text"}
    return {"kind": declared.kind, **declared.draw(state)}
