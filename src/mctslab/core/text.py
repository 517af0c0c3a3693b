"""Numbers as a user types them: ASCII digits only.

Python's ``str.isdigit`` and ``int`` take every digit Unicode knows: ``int("１")``
(fullwidth) and ``int("١")`` (Arabic-Indic) are 1, and ``"²".isdigit()`` is true though
``int("²")`` fails. A move, a board size or a parameter typed with such characters is
refused where it is parsed (:func:`ascii_int`), with the same error as any other text
that is not a number, instead of being read as a number the user may not have meant: ``ascii_int("12")`` is
12, ``ascii_int("１２")`` and ``ascii_int("²")`` are ``None``. Python's literals also
take underscores (``int("1_000")`` is 1000); a user's ``1_000`` is refused too, so that a
value reads the same to the user and to the program. :func:`ascii_float` is the same
rule for decimals.

And names as a user mistypes them: :func:`did_you_mean` suggests the close ones
(``tic_tac_to`` -> ``tic_tac_toe``), as the command line does for a mistyped option.

And numbers as a user reads them: :func:`counted` writes ``1 game``, ``3 games``,
``12,000 playouts``.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

__all__ = [
    "ascii_float",
    "ascii_int",
    "counted",
    "did_you_mean",
    "is_ascii_digits",
    "strict_float",
    "strict_int",
]

# A decimal as a user types it: digits, one point, an exponent; ASCII only (re.ASCII
# keeps \d to 0-9), no underscores, no spaces. inf and nan are left to float(): the
# configurations refuse them where a finite number is needed.
_DECIMAL = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", re.ASCII)
_SPECIAL = re.compile(r"[+-]?(inf|infinity|nan)", re.ASCII | re.IGNORECASE)


def is_ascii_digits(text: str) -> bool:
    """``text`` is one or more of the ASCII digits ``0``-``9`` and nothing else."""
    return text.isascii() and text.isdigit()


def ascii_int(text: str, signed: bool = False) -> int | None:
    """The integer ``text`` writes in ASCII digits (with a leading ``-`` if ``signed``;
    no spaces, ``+`` or ``_``), or ``None``."""
    digits = text[1:] if signed and text.startswith("-") else text
    return int(text) if is_ascii_digits(digits) else None


def ascii_float(text: str) -> float | None:
    """The number ``text`` writes in ASCII (``1.4``, ``-2``, ``.5``, ``1e-3``; ``inf`` and
    ``nan`` as :func:`float` reads them), or ``None`` for anything else: other digits
    (``"１.５"``), underscores (``"1_0.5"``), spaces.

    >>> ascii_float("1.4"), ascii_float("1e-3"), ascii_float("1_0"), ascii_float("٣")
    (1.4, 0.001, None, None)
    """
    if _DECIMAL.fullmatch(text) or _SPECIAL.fullmatch(text):
        return float(text)
    return None


def strict_int(text: str) -> int:
    """:func:`int` of ``text`` in ASCII digits only (a leading ``-`` allowed, spaces around
    ignored): :class:`ValueError` for what :func:`int` would also read, other scripts'
    digits (``"١٢"``, ``"１２"``) and underscores (``"1_000"``).

    >>> strict_int(" 12 "), strict_int("-3")
    (12, -3)
    """
    value = ascii_int(text.strip(), signed=True)
    if value is None:
        raise ValueError(f"expected an integer in ASCII digits, got {text!r}")
    return value


def strict_float(text: str) -> float:
    """:func:`float` of ``text`` as :func:`ascii_float` reads it (spaces around ignored):
    :class:`ValueError` for other digits and underscores."""
    value = ascii_float(text.strip())
    if value is None:
        raise ValueError(f"expected a number in ASCII digits, got {text!r}")
    return value


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """``" (did you mean X?)"`` with the choices close to ``name`` (difflib's ratio of at
    least 0.6, the three closest), or ``""`` when none is close.

    >>> did_you_mean("tic_tac_to", ["nim", "tic_tac_toe"]), did_you_mean("zz", ["nim"])
    (' (did you mean tic_tac_toe?)', '')
    """
    close = difflib.get_close_matches(name, list(choices), n=3)
    return f" (did you mean {' or '.join(close)}?)" if close else ""


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` with thousands separators and ``noun``, plural unless ``n`` is 1.

    >>> counted(1, "game"), counted(0, "run"), counted(12000, "playout")
    ('1 game', '0 runs', '12,000 playouts')
    >>> counted(2, "match", "matches")
    '2 matches'
    """
    return f"{n:,} {noun if n == 1 else (plural or noun + 's')}"
