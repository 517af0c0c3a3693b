"""What the page draws for a position: a small description per kind of board.

- Tic-tac-toe and Connect Four: ``{"kind": "grid", "rows", "cols", "cells",
  "click", "actions", "win"}`` (``win``: the cells of the winner's line, ``[]`` if none;
  :func:`winning_line`). ``cells`` is row-major with row 0 at the *top* as the
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
- Any other game: ``{"kind": "text"}``: the page shows :func:`state_text` and a
  button per legal move.

The grids read the kernel state array (layouts documented in each game's module).
:func:`player_names` names the players as the drawing shows them.
"""

from __future__ import annotations

import functools
from typing import Any

from mctslab.core.game import Game, State, player_label
from mctslab.games.bohnenspiel import Bohnenspiel
from mctslab.games.connect_four import ConnectFour
from mctslab.games.go import Go
from mctslab.games.go.status import agreed_score, area_owners, final_status
from mctslab.games.kernels import KernelState
from mctslab.games.nim import Nim
from mctslab.games.tic_tac_toe import TicTacToe

__all__ = ["area_owners", "player_names", "render", "state_text"]

_MARKS = ("", "x", "o")


def state_text(state: State) -> str:
    """The position in words for a person: the game's ``human_view()`` where it has one
    (Pig, Kuhn poker, Knockout Whist: players counted from 1, as everywhere on the page),
    else ``str(state)`` (Pig's is OpenSpiel's, "Current player: 0", kept for the API)."""
    view = getattr(state, "human_view", None)
    return str(view()) if callable(view) else str(state)


def player_names(game: Game) -> list[str]:
    """Each player's name on the page, by id: the board's own names where it draws the
    players (tic-tac-toe's X and O; Connect Four's red and yellow discs; Go's black and
    white stones), else
    :func:`~mctslab.core.game.player_label`'s ("player 1", ...: people count from 1)."""
    if isinstance(game, ConnectFour):
        return ["Red", "Yellow"]
    if isinstance(game, Go):
        return ["Black", "White"]
    # player_label's marks ("x", "o") are drawn as capitals on the page.
    return [
        name.upper() if len(name) == 1 else name
        for name in (player_label(game.info, p) for p in range(game.info.num_players))
    ]


def winning_line(cells: list[str], rows: int, cols: int, k: int) -> list[int]:
    """The cells (row-major indices) of the first line of ``k`` equal marks, across, down
    or diagonal, that ``cells`` hold; ``[]`` when there is none (what the page draws
    through the winner's line).

    >>> winning_line(["x", "x", "x", "o", "o", "", "", "", ""], 3, 3, 3)
    [0, 1, 2]
    >>> winning_line(["x", "o", "", "", "x", "o", "", "", "x"], 3, 3, 3)
    [0, 4, 8]
    >>> winning_line(["x", "o", "x", "", "", "", "", "", ""], 3, 3, 3)
    []
    """
    for r in range(rows):
        for c in range(cols):
            mark = cells[r * cols + c]
            if not mark:
                continue
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                line = [(r + i * dr, c + i * dc) for i in range(k)]
                if all(0 <= y < rows and 0 <= x < cols and cells[y * cols + x] == mark
                       for y, x in line):  # fmt: skip
                    return [y * cols + x for y, x in line]
    return []


def render(state: State) -> dict[str, Any]:
    """The drawing description of ``state`` (see the module's docstring)."""
    game = getattr(state, "game", None)
    array = getattr(state, "array", None)
    if array is None:
        return {"kind": "text"}
    legal = state.legal_actions()
    if isinstance(game, TicTacToe):
        cells = [_MARKS[int(v)] for v in array[3:12]]
        return {
            "kind": "grid",
            "rows": 3,
            "cols": 3,
            "cells": cells,
            "click": "cell",
            "actions": {str(a): a for a in legal},  # cell index = action id
            "win": winning_line(cells, 3, 3, 3),
        }
    if isinstance(game, ConnectFour):
        rows, cols = game.rows, game.columns
        base = 3 + cols  # cell (r, c) at base + r * cols + c, with row 0 at the bottom
        cells = [
            _MARKS[int(array[base + r * cols + c])]
            for r in reversed(range(rows))
            for c in range(cols)
        ]
        return {
            "kind": "grid",
            "rows": rows,
            "cols": cols,
            "cells": cells,
            "click": "column",
            "actions": {str(a): a for a in legal},  # column = action id
            "win": winning_line(cells, rows, cols, 4),
        }
    if isinstance(game, Nim):
        k = len(game.piles)
        return {
            "kind": "piles",
            "piles": [int(v) for v in array[3 : 3 + k]],
            "max_take": int(game.params[1]),
            "misere": game.misere,
            "moves": [{"pile": a % k, "take": a // k + 1, "action": a} for a in legal],
        }
    if isinstance(game, Bohnenspiel) and isinstance(state, KernelState):
        pits = game.pits(state)
        return {
            "kind": "pits",
            "top": pits[11:5:-1],
            "bottom": pits[0:6],
            "stores": game.stores(state),
            "actions": {str(a): a for a in legal},  # pit index = action id
        }
    if isinstance(game, Go) and isinstance(state, KernelState):
        return _go(game, state, legal)
    return {"kind": "text"}


#: Playouts behind the dead stones of a finished Go game (``final_status``'s judgement).
WEB_PLAYOUTS = 100


def _go(game: Go, state: KernelState, legal: list[int]) -> dict[str, Any]:
    """Go's drawing: read through the game's public methods, not the kernel layout."""
    n = game.board_size
    stones = [game.colour_at(state, a) for a in range(n * n)]
    history = state.history()
    over = state.is_terminal()
    return {
        "kind": "go",
        "size": n,
        "stones": stones,
        "last": history[-1] if history else None,
        "to_play": None if over else state.current_player() + 1,
        "captures": list(game.captures(state)),
        "komi": game.komi,
        "pass": n * n,
        "actions": {str(a): a for a in legal},  # point index = action id; pass too
        "territory": area_owners(stones, n) if over else None,
        "score": game.score(state) if over else None,
        **(
            _judged(game, tuple(history))
            if over
            else {"dead": None, "agreed_score": None, "undecided": None}
        ),
    }


@functools.lru_cache(maxsize=256)
def _judged(game: Go, history: tuple[int, ...]) -> dict[str, Any]:
    """A finished game's dead stones as :func:`~mctslab.games.go.status.final_status`
    judges them (``WEB_PLAYOUTS`` playouts, seed 0) and the area count without them,
    komi in (the score by agreement that people and GTP controllers reach). Cached:
    a finished game is drawn again with every view of it."""
    state = game.state_from_actions(list(history))
    assert isinstance(state, KernelState)
    status = final_status(game, state, playouts=WEB_PLAYOUTS)
    if not status.settled:  # nothing to agree on: the playouts' dead stones are guesses
        return {"dead": [], "agreed_score": None, "undecided": len(status.undecided)}
    agreement = agreed_score(game, state, status=status)
    undecided = len(status.undecided)
    return {"dead": list(agreement.dead), "agreed_score": agreement.score, "undecided": undecided}
