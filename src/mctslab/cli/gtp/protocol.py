"""The Go Text Protocol's text: reading a command line and writing its answer.

Apart from the engine (:mod:`mctslab.cli.gtp.engine`), which holds the board and runs
the commands, as Leela Zero's and KataGo's GTP loops are apart from their commands:
this module knows the form of GTP version 2 (https://www.lysator.liu.se/~gunnar/gtp/)
and nothing of Go, so the engine's commands read as moves and clocks, not as strings.

A line is cleaned as GTP says (control characters dropped, tabs as spaces, ``#``
comments cut; a blank line is no command), may begin with a numeric id, and is answered
``=id text`` or ``?id message``, each answer ended by a blank line::

    >>> clean("\\t12 genmove b # ours")
    '12 genmove b'
    >>> split_id("12 genmove b")
    ('12', ['genmove', 'b'])
    >>> success("12", "D4")
    '=12 D4\\n\\n'

A command refuses its arguments by raising :class:`GtpFailure`; :func:`answer` turns
that, and any other exception inside a command, into a ``?`` answer, so the engine never
crashes under its controller.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from mctslab.core.text import is_ascii_digits

__all__ = [
    "GtpFailure",
    "answer",
    "check_arity",
    "clean",
    "failure",
    "parse_colour",
    "parse_number",
    "split_id",
    "success",
]

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


class GtpFailure(Exception):
    """A command answered with ``? message``."""


# Reading a command ------------------------------------------------------------------------------


def clean(raw: str) -> str:
    """The command of one input line as GTP reads it: control characters dropped, tabs
    as spaces, a ``#`` comment cut, surrounding space stripped (``""``: no command)."""
    return _CONTROL.sub("", raw.replace("\t", " ")).split("#", 1)[0].strip()


def split_id(line: str) -> tuple[str, list[str]]:
    """A cleaned, non-blank line's id (``""`` without one) and its words: the command's
    name and arguments (none at all for a line that is only an id)."""
    parts = line.split()
    ident = parts.pop(0) if is_ascii_digits(parts[0]) else ""
    return ident, parts


def parse_colour(text: str) -> str:
    """``"b"`` or ``"w"`` for GTP's colours (``b``, ``black``, ``w``, ``white``, any case)."""
    c = text.lower()
    if c in ("b", "black"):
        return "b"
    if c in ("w", "white"):
        return "w"
    raise GtpFailure(f"syntax error: invalid color {text!r}")


def parse_number(text: str, what: str) -> float:
    """A finite number (komi, seconds, stones): ``nan`` and ``inf`` are refused here so
    that no clock or komi downstream has to guard against them."""
    try:
        value = float(text)
    except ValueError:
        raise GtpFailure(f"syntax error: {what} {text!r} is not a number") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise GtpFailure(f"syntax error: {what} {text!r} is not a number")
    return value


def check_arity(args: list[str], n: int, usage: str) -> None:
    """Refuse a command given other than ``n`` arguments, its usage in the message."""
    if len(args) != n:
        raise GtpFailure(f"syntax error: expected {usage}")


# Writing an answer ------------------------------------------------------------------------------


def success(ident: str, text: str) -> str:
    """A successful answer: ``=id text`` and the blank line."""
    return f"={ident} {text}\n\n"


def failure(ident: str, message: str) -> str:
    """A refusal: ``?id message`` and the blank line."""
    return f"?{ident} {message}\n\n"


def answer(
    ident: str, handler: Callable[[list[str]], str], args: list[str], streamed: bool = False
) -> str:
    """Run one command's ``handler`` and answer it: its text, ``? message`` for a
    :class:`GtpFailure`, ``? internal error: ...`` for any other exception (never a
    crash: the controller keeps its engine); ``""`` for a ``streamed`` command that
    succeeded, whose answer the handler has already written as it came."""
    try:
        text = handler(args)
    except GtpFailure as err:
        return failure(ident, str(err))
    except Exception as err:
        message = " ".join(str(err).split())
        return failure(ident, f"internal error: {type(err).__name__}: {message}")
    return "" if streamed else success(ident, text)
