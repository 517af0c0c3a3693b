"""What a game tells the lab about itself, beyond the game API: how its positions are
drawn (:class:`Rendering`), what its parameters take (:class:`Parameter`), and, for a
single-player game, the searches of its own and a proven optimum.

Each is declared on the game, in the game's module, and read here with a default for a
game that declares nothing (a user's game needs none of them): the web lab, ``mctslab
games`` and ``mctslab optimize`` read these functions and never ask which class a game
is. Adding a game to the lab is thus writing its module (docs/layout.md, "Adding a game
to the lab").

- ``game.rendering() -> Rendering``: the board's kind, the players' names (on the
  board and in text) and the drawing of a position (:func:`rendering`);
- ``game.record_format() -> RecordFormat``: the file a game so far is saved as (Go's
  SGF: :func:`record_format`);
- ``parameter_schema() -> tuple[Parameter, ...]`` on the game's class (or factory):
  defaults, bounds, choices, a note (read by :func:`mctslab.core.registry.parameter_schema`,
  which adds what the constructor's signature and ``Literal`` annotations say);
- ``instances()``: the shipped instances of a single-player game (:func:`instances`);
- ``game.baselines``: the names of the searches that are the game's own (the travelling
  salesman's nearest neighbour, 2-opt, ...: :func:`baselines`);
- ``game.known_optimum() -> float | None``: the best score a sequence can reach, where
  it is proven (:func:`known_optimum`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "BoardKind",
    "Instance",
    "Parameter",
    "RecordFormat",
    "Rendering",
    "baseline_limits",
    "baselines",
    "declares_parameters",
    "instances",
    "known_optimum",
    "record_format",
    "rendering",
    "winning_line",
]

#: The boards the web lab's page draws (``web/static/board.js``); ``text`` is the
#: position's text and a button per legal move, what every game gets; ``tour`` a
#: travelling salesman's tour, the Optimize tab's solution (``web/static/optimize.js``).
BoardKind = Literal["grid", "piles", "pits", "go", "tour", "text"]


@dataclass(frozen=True)
class Rendering:
    """How the web lab draws a game's positions.

    Attributes:
        kind: the board the page draws (:data:`BoardKind`).
        players: each player's name by id as the board shows them (tic-tac-toe's X and
            O, Connect Four's red and yellow discs, Go's black and white stones); empty:
            the :attr:`labels`, else "player 1", ... (:func:`mctslab.web.render.player_names`).
        draw: a position's drawing fields, the kind's own (documented in
            :mod:`mctslab.web.render`; ``kind`` is added to them); ``None`` for ``text``.
        labels: each player's name by id in text (the command line's lines, the tree's
            exports: :func:`~mctslab.core.game.player_label`): the marks of the game's
            text board (tic-tac-toe's and Connect Four's ``x`` and ``o``), Go's ``Black``
            and ``White``; empty: "player 1", ...
    """

    kind: BoardKind = "text"
    players: tuple[str, ...] = ()
    draw: Callable[[Any], dict[str, Any]] | None = None
    labels: tuple[str, ...] = ()


def rendering(game: object) -> Rendering:
    """``game``'s declared :class:`Rendering` (its ``rendering()`` method), else the text
    board with the default names: the one place that asks whether a game declares one."""
    declared = getattr(game, "rendering", None)
    return declared() if callable(declared) else Rendering()  # type: ignore[no-any-return]


@dataclass(frozen=True)
class RecordFormat:
    """The file a game's record is saved as: the web lab's download of a session's game
    so far (``GET /api/sessions/{id}/sgf`` serves the games whose format is ``sgf``).

    Attributes:
        format: the format's name, lower case (``"sgf"``: Go's, the Smart Game Format).
        media_type: the file's media type (``application/x-go-sgf``).
        filename: the name a download suggests (``mctslab-go.sgf``).
        write: the file's text of a position's game so far (its moves, and its result
            once over), given each player's name by id (``""``: not named).
    """

    format: str
    media_type: str
    filename: str
    write: Callable[[Any, tuple[str, ...]], str]


def record_format(game: object) -> RecordFormat | None:
    """``game``'s declared :class:`RecordFormat` (its ``record_format()`` method), ``None``
    for a game whose records are not saved."""
    declared = getattr(game, "record_format", None)
    return declared() if callable(declared) else None  # type: ignore[no-any-return]


def winning_line(cells: list[str], rows: int, cols: int, k: int) -> list[int]:
    """The cells (row-major indices) of the first line of ``k`` equal marks, across, down
    or diagonal, that ``cells`` hold; ``[]`` when there is none (what a grid drawing
    draws through the winner's line).

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


@dataclass(frozen=True)
class Parameter:
    """One parameter of a game as a form offers it.

    Attributes:
        name: the constructor's keyword.
        default: its default (the constructor's).
        note: a line about it.
        minimum, maximum: an integer parameter's bounds (both or neither).
        choices: the values a menu offers (a ``Literal``'s words, Morpion's variants, the
            shipped TSPLIB instances).
        pattern: other values it takes, in words (``random:N:SEED``); :attr:`read` reads
            them.
        read: how a value that is not one of ``choices`` is read: the value to use
            (checked, in its canonical spelling) or a ``ValueError`` saying what the
            parameter takes; ``None``: only the choices (or any value, without choices).
    """

    name: str
    default: Any
    note: str = ""
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] = ()
    pattern: str | None = None
    read: Callable[[Any], Any] | None = None

    @property
    def kind(self) -> Literal["integer", "choice", "value"]:
        """``integer`` (bounded), ``choice`` (a menu) or ``value`` (anything the game reads)."""
        if self.minimum is not None and self.maximum is not None:
            return "integer"
        return "choice" if self.choices else "value"

    def to_dict(self) -> dict[str, Any]:
        """The parameter as JSON: its kind and the fields that kind has (the web lab's
        ``GET /api/optimize/games``, ``mctslab games --json``)."""
        out: dict[str, Any] = {"name": self.name, "kind": self.kind, "default": self.default}
        if self.kind == "integer":
            out.update(minimum=self.minimum, maximum=self.maximum)
        if self.choices:
            out["choices"] = list(self.choices)
        if self.pattern is not None:
            out["pattern"] = self.pattern
        out["note"] = self.note
        return out

    def describe(self) -> str:
        """The parameter in a few words: ``rows=15 (1..32)``, ``ko='superko' (superko |
        simple)`` (``mctslab games``)."""
        shown = f"{self.name}={self.default!r}"
        if self.kind == "integer":
            return f"{shown} ({self.minimum}..{self.maximum})"
        if self.choices:
            more = f" | {self.pattern}" if self.pattern else ""
            return f"{shown} ({' | '.join(self.choices)}{more})"
        return shown


@dataclass(frozen=True)
class Instance:
    """A shipped instance of a single-player game (a TSPLIB instance): its name, its size
    (cities) and its proven optimum in the game's own units (a tour's length), ``None``
    where none is known."""

    name: str
    size: int
    optimum: int | None


def instances(game: object) -> tuple[Instance, ...]:
    """The shipped instances ``game`` offers (its ``instances()``), ``()`` for none."""
    declared = getattr(game, "instances", None)
    return tuple(declared()) if callable(declared) else ()


def declares_parameters(
    schema: Callable[[], tuple[Parameter, ...]],
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A factory function's ``parameter_schema`` (a class declares its own as a
    classmethod): ``@declares_parameters(TSP.parameter_schema)`` over ``def tsp(...)``."""

    def declare(factory: Callable[..., Any]) -> Callable[..., Any]:
        factory.__dict__["parameter_schema"] = schema
        return factory

    return declare


def baselines(game: object) -> tuple[str, ...]:
    """The names of the searches that are ``game``'s own (its ``baselines`` attribute:
    the travelling salesman's nearest neighbour, 2-opt, annealing, genetic algorithm and
    Held-Karp), ``()`` for a game with none: the lab offers them on that game only."""
    return tuple(getattr(game, "baselines", ()))


def baseline_limits(game: object) -> dict[str, int]:
    """The most actions each of ``game``'s own searches takes (its ``baseline_limits``:
    Held-Karp's 16 cities), by search; ``{}`` for no limit."""
    return dict(getattr(game, "baseline_limits", {}))


def known_optimum(game: object) -> float | None:
    """The proven best score of ``game`` (its ``known_optimum()``: a shipped TSPLIB
    instance's optimal tour, as a score, minus its length), ``None`` where none is known."""
    declared = getattr(game, "known_optimum", None)
    return None if not callable(declared) else declared()  # type: ignore[no-any-return]
