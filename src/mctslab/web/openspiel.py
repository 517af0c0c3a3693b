"""The OpenSpiel games the web API serves: a short allow-list, each parameter bounded.

``mctslab.make("openspiel:NAME(...)")`` hands any game string to ``pyspiel.load_game``,
which is right for a program on one's own machine and wrong for a server: a client
could name ``efg_game(filename=/any/path)`` (a file read, an existence probe; a FIFO
hangs the loader) or ``nim(pile_sizes=20000000)`` (gigabytes, half a minute). So the web
API takes ``openspiel:NAME`` only for the games of :data:`ALLOWED`, and only with the
parameters listed there, each within its bounds: no file or game-valued parameter, no
nested game. Everything else is refused before ``pyspiel`` sees it, with a one-line
reason (:func:`checked_openspiel`): a name off the list does not match the schema's
pattern (:data:`OPENSPIEL_PATTERN`, 422), a parameter off the list or out of bounds is a
400.

``state_bytes`` of each entry is a generous estimate of the memory one ``pyspiel``
state of the game takes (measured through the process's RSS with the reference engine's
trees; a C++ state is invisible to Python's own accounting): the memory budget of
:mod:`mctslab.web.limits` prices a tree's nodes with it.

This module imports no other module of the web lab (the schema reads its pattern).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ALLOWED", "OPENSPIEL_PATTERN", "Allowed", "checked_openspiel"]

PREFIX = "openspiel:"


@dataclass(frozen=True)
class Allowed:
    """An OpenSpiel game the web API serves: its parameters, each with its bounds (an
    inclusive ``(low, high)`` of numbers, ``bool`` for true/false, or a tuple of allowed
    strings; a callable checks a string and returns why it is refused, or ``None``), and
    the bytes one of its states takes, as a function of the parameters."""

    params: dict[str, Any] = field(default_factory=dict)
    state_bytes: Callable[[dict[str, Any]], int] = lambda params: 2048


def _piles(value: str) -> str | None:
    """Nim's ``pile_sizes`` ("1;3;5;7"): at most 10 piles of 1 to 100 stones."""
    if re.fullmatch(r"[0-9]{1,3}(;[0-9]{1,3}){0,9}", value) is None:
        return "write at most 10 pile sizes separated by ';', e.g. 1;3;5;7"
    if not all(1 <= int(p) <= 100 for p in value.split(";")):
        return "each pile holds 1 to 100 stones"
    return None


def _cells(params: dict[str, Any], rows: str, cols: str, default: int) -> int:
    return int(params.get(rows, default)) * int(params.get(cols, default))


#: The OpenSpiel games the web API serves, with their parameters' bounds. Boards are
#: bounded so that a state and a tree of a million nodes stay small (go to 19x19, the
#: others near their usual sizes); documented in docs/web.md.
ALLOWED: dict[str, Allowed] = {
    "tic_tac_toe": Allowed(state_bytes=lambda p: 1024),
    "connect_four": Allowed(
        {"rows": (4, 10), "columns": (4, 10), "x_in_row": (3, 6), "egocentric_obs_tensor": bool},
        state_bytes=lambda p: 2048,
    ),
    "hex": Allowed(
        {
            "board_size": (3, 13),
            "num_rows": (3, 13),
            "num_cols": (3, 13),
            "swap": bool,
            "string_rep": ("standard", "explicit"),
            "plain_obs_tensor": bool,
        },
        # 16 bytes a cell, the board of the larger of board_size and num_rows x num_cols.
        state_bytes=lambda p: (
            1024
            + 16 * max(int(p.get("board_size", 11)) ** 2, _cells(p, "num_rows", "num_cols", 11))
        ),
    ),
    "go": Allowed(
        {"board_size": (5, 19), "komi": (-50.0, 50.0), "handicap": (0, 9)},
        # OpenSpiel's board is the largest size whatever board_size says; with the
        # position's chains (measured: 9 KB a node at 9x9, 18 KB at 19x19).
        state_bytes=lambda p: 12_288,
    ),
    "breakthrough": Allowed(
        {"rows": (4, 12), "columns": (4, 12)},
        state_bytes=lambda p: 1024 + 16 * _cells(p, "rows", "columns", 8),
    ),
    "othello": Allowed(state_bytes=lambda p: 2048),
    "chess": Allowed({"chess960": bool}, state_bytes=lambda p: 4096),
    "checkers": Allowed(
        {"rows": (4, 12), "columns": (4, 12), "egocentric": bool},
        state_bytes=lambda p: 1024 + 16 * _cells(p, "rows", "columns", 8),
    ),
    "clobber": Allowed(
        {"rows": (2, 10), "columns": (2, 10)},
        state_bytes=lambda p: 1024 + 16 * _cells(p, "rows", "columns", 6),
    ),
    "dots_and_boxes": Allowed(
        {"num_rows": (1, 6), "num_cols": (1, 6), "utility_margin": bool},
        state_bytes=lambda p: 2048,
    ),
    "mancala": Allowed(state_bytes=lambda p: 1024),
    "nim": Allowed({"pile_sizes": _piles, "is_misere": bool}, state_bytes=lambda p: 1024),
}

# A parameter's value inside the parentheses: no parenthesis, comma or '=' (so no nested
# game), nor anything else a file name would need.
_VALUE = r"[A-Za-z0-9_.;+-]*"
_PARAMS = rf"[a-z_0-9]+={_VALUE}(,[a-z_0-9]+={_VALUE})*"
#: ``openspiel:NAME`` or ``openspiel:NAME(key=value,...)`` for a game of :data:`ALLOWED`:
#: the pattern the schema gives the ``game`` field's OpenSpiel branch.
OPENSPIEL_PATTERN = rf"^{PREFIX}({'|'.join(sorted(ALLOWED))})(\(({_PARAMS})?\))?$"


def _bool(key: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false", "1", "0"):
        return value.strip().lower() in ("true", "1")
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    raise ValueError(f"{key} takes true or false, got {value!r}")


def _number(key: str, value: Any, low: float, high: float) -> int | float:
    kind = float if isinstance(low, float) else int
    number: int | float
    if isinstance(value, bool):
        raise ValueError(f"{key} takes a number from {low:g} to {high:g}, got {value!r}")
    if isinstance(value, str):
        try:
            number = kind(value.strip())
        except ValueError:
            raise ValueError(
                f"{key} takes a number from {low:g} to {high:g}, got {value!r}"
            ) from None
    elif isinstance(value, int | float):
        number = value
    else:
        raise ValueError(f"{key} takes a number from {low:g} to {high:g}, got {value!r}")
    if kind is int:
        if isinstance(number, float) and not number.is_integer():
            raise ValueError(f"{key} takes an integer from {low} to {high}, got {value!r}")
        number = int(number)
    if not low <= number <= high:
        raise ValueError(f"{key} must be from {low:g} to {high:g} in the web lab, got {value!r}")
    return kind(number)


def checked_openspiel(game: str, params: dict[str, Any]) -> tuple[str, dict[str, Any], int]:
    """``(name, parameters, state bytes)`` of the OpenSpiel game string ``game``
    (``openspiel:NAME(key=value,...)``) with ``params`` merged in, every parameter checked
    against :data:`ALLOWED` and converted; ``ValueError`` (a 400) naming the first that is
    refused. ``make("openspiel:" + name, **parameters)`` then loads it."""
    match = re.fullmatch(OPENSPIEL_PATTERN.strip("^$"), game)
    if match is None:
        raise ValueError(
            f"game {game!r}: the web lab serves the OpenSpiel games "
            f"{', '.join(sorted(ALLOWED))} as openspiel:NAME or openspiel:NAME(key=value,...)"
        )
    name = match.group(1)
    merged: dict[str, Any] = {}
    for item in (match.group(3) or "").split(","):
        if item:
            key, _, value = item.partition("=")
            merged[key] = value
    merged.update(params)
    allowed = ALLOWED[name]
    typed: dict[str, Any] = {}
    for key, value in merged.items():
        bound = allowed.params.get(key)
        where = f"parameter {key!r} of openspiel:{name}"
        if bound is None:
            names = ", ".join(sorted(allowed.params)) or "none"
            raise ValueError(f"{where} is not one the web lab takes; its parameters here: {names}")
        if bound is bool:
            typed[key] = _bool(where, value)
        elif isinstance(bound, tuple) and isinstance(bound[0], str):
            if value not in bound:
                raise ValueError(f"{where} takes one of {', '.join(bound)}, got {value!r}")
            typed[key] = value
        elif isinstance(bound, tuple):
            typed[key] = _number(where, value, *bound)
        else:  # a checker of strings
            if isinstance(value, bool) or not isinstance(value, str | int):
                raise ValueError(f"{where} takes a string, got {value!r}")
            why = bound(str(value))
            if why is not None:
                raise ValueError(f"{where}: {why}, got {value!r}")
            typed[key] = str(value)
    return name, typed, allowed.state_bytes(typed)
