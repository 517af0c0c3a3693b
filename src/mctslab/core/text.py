"""Numbers as a user types them: ASCII digits only.

Python's ``str.isdigit`` and ``int`` take every digit Unicode knows: ``int("１")``
(fullwidth) and ``int("١")`` (Arabic-Indic) are 1, and ``"²".isdigit()`` is true though
``int("²")`` fails. A move, a board size or a parameter typed with such characters is
refused where it is parsed (:func:`ascii_int`), with the same error as any other text
that is not a number, instead of being read as a number the user may not have meant: ``ascii_int("12")`` is
12, ``ascii_int("１２")`` and ``ascii_int("²")`` are ``None``.

And numbers as a user reads them: :func:`counted` writes ``1 game``, ``3 games``,
``12,000 playouts``.
"""

from __future__ import annotations

__all__ = ["ascii_int", "counted", "is_ascii_digits"]


def is_ascii_digits(text: str) -> bool:
    """``text`` is one or more of the ASCII digits ``0``-``9`` and nothing else."""
    return text.isascii() and text.isdigit()


def ascii_int(text: str, signed: bool = False) -> int | None:
    """The integer ``text`` writes in ASCII digits (with a leading ``-`` if ``signed``;
    no spaces, ``+`` or ``_``), or ``None``."""
    digits = text[1:] if signed and text.startswith("-") else text
    return int(text) if is_ascii_digits(digits) else None


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` with thousands separators and ``noun``, plural unless ``n`` is 1.

    >>> counted(1, "game"), counted(0, "run"), counted(12000, "playout")
    ('1 game', '0 runs', '12,000 playouts')
    >>> counted(2, "match", "matches")
    '2 matches'
    """
    return f"{n:,} {noun if n == 1 else (plural or noun + 's')}"
