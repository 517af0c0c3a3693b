"""SGF, the Smart Game Format (FF[4]): Go game records, written and read.

SGF is the file every Go program and board reads and writes (Sabaki, GoGui, Lizzie,
KGS, OGS, GNU Go's ``printsgf`` and ``loadsgf``); this module writes a game of
:class:`~mctslab.games.go.Go` as one and reads the main line of one back (the
specification: https://www.red-bean.com/sgf/, "FF[4]" and its Go properties).

Written: ``(;GM[1]FF[4]CA[UTF-8]AP[mctslab:VERSION]SZ[9]KM[7.5]RU[Chinese]`` and, when
known, ``PB PW DT RE GC``, then a node a move, ``;B[ee];W[gc]...``. Points are two
letters, column then row from the *top* (``aa`` is the top left corner, a1 of this
toolkit's actions is ``a`` + the letter of row ``N - 1``); a pass is the empty value
``B[]``. ``RU[Chinese]``: area scoring (the rules of :class:`Go` are Tromp-Taylor's, of
the Chinese family).

:func:`game_so_far` makes the record of a game in progress (``mctslab gtp``'s
``printsgf``, the web lab's SGF download).

Read: a collection's first game, along its main line (the first variation at every
fork); the properties ``GM`` (1, Go), ``SZ`` (a square board, 5 to 19), ``KM``, ``PB``,
``PW``, ``RE``, ``DT``, ``GC`` and the moves ``B``/``W`` (``tt`` is also a pass, as in
FF[3], on boards up to 19); every other property is skipped. Moves must alternate from
Black and be legal under the game's rules (they are replayed: an error names the move
number); setup stones (``AB``, ``AW``, ``AE``) and handicap (``HA`` above 0) are refused,
as :class:`Go` has no handicap. Every error is an :class:`SgfError` (a ``ValueError``).

A file is read by :func:`read_sgf_file`: a regular file of at most :data:`MAX_SGF_BYTES`
(1 MiB: a 19x19 game of a thousand moves with comments is some tens of kilobytes), so
that a FIFO does not block the reader and ``/dev/zero`` is not read without end. Numbers
(``SZ``) are ASCII digits only: ``SZ[１９]`` (fullwidth) is refused, not read as 19.

>>> record = SgfRecord(board_size=9, komi=7.5, actions=(40, 24, 81), black="me")
>>> text = write_sgf(record)
>>> text.splitlines()[1]
';B[ee];W[gg];B[])'
>>> read_sgf(text) == record
True
"""

from __future__ import annotations

import datetime
import os
import stat
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, cast

from mctslab.core import registry
from mctslab.core.errors import MctslabError
from mctslab.games.kernels import KernelState

if TYPE_CHECKING:
    # Go declares its records as SGF (Go.record_format), so the game imports this module;
    # a record's game is made by its registered name ("go").
    from mctslab.games.go.game import Go, KoRule

__all__ = [
    "MAX_SGF_BYTES",
    "SgfError",
    "SgfRecord",
    "game_so_far",
    "read_sgf",
    "read_sgf_file",
    "read_sgf_text",
    "sgf_result",
    "write_sgf",
]

_MOVES_A_LINE = 10
#: The largest SGF file read (bytes): see the module's text.
MAX_SGF_BYTES = 1 << 20


class SgfError(MctslabError):
    """A malformed or unsupported SGF file, or one whose moves are illegal."""


@dataclass(frozen=True)
class SgfRecord:
    """A Go game record: the board, komi, the moves (actions of :class:`Go`, pass
    ``N * N``) and what SGF says about the game (players, date, result as SGF writes
    it, ``"B+7.5"``, ``"W+R"``, ``"0"``; a comment)."""

    board_size: int = 9
    komi: float = 7.5
    actions: tuple[int, ...] = ()
    black: str = ""
    white: str = ""
    date: str = ""
    result: str = ""
    comment: str = ""

    def game(self, ko: KoRule = "superko") -> Go:
        """The :class:`Go` game the record is played by (the registry's ``go``)."""
        game = registry.make(
            "go", board_size=self.board_size, komi=self.komi, ko=ko, max_game_length=self._length()
        )
        return cast("Go", game)

    def state(self, ko: KoRule = "superko", moves: int | None = None) -> KernelState:
        """The position after the first ``moves`` moves (all by default)."""
        return _replay(self, ko, len(self.actions) if moves is None else moves)

    def _length(self) -> int:
        """The move limit of the game: the default, or longer for a longer record."""
        default = 2 * self.board_size**2
        return min(max(default, len(self.actions) + 1), 100 * self.board_size**2)


def sgf_result(score: float | None, how: str = "") -> str:
    """SGF's ``RE`` value: the winner's colour and margin (``score``: Black's area score
    minus komi, as :meth:`Go.score`), ``"0"`` for a draw; with ``how`` (``"R"``
    resignation, ``"T"`` time, ``"F"`` forfeit) the winner is Black for ``score > 0``
    and the margin is ``how``.

    >>> sgf_result(7.5), sgf_result(-0.5), sgf_result(0.0), sgf_result(-1, "R")
    ('B+7.5', 'W+0.5', '0', 'W+R')
    """
    if score is None:
        return "?"
    if score == 0 and not how:
        return "0"
    winner = "B" if score > 0 else "W"
    return f"{winner}+{how or f'{abs(score):g}'}"


def game_so_far(game: Go, state: KernelState, black: str = "", white: str = "") -> SgfRecord:
    """The record of ``state``'s game so far: its board, komi and moves, the players'
    names, today's date and, once the game is over, its result (Tromp-Taylor's count)."""
    return SgfRecord(
        board_size=game.board_size,
        komi=game.komi,
        actions=tuple(state.history()),
        black=black,
        white=white,
        date=datetime.date.today().isoformat(),
        result=sgf_result(game.score(state)) if state.is_terminal() else "",
    )


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def _point(action: int, size: int) -> str:
    if action == size * size:
        return ""
    row, col = divmod(action, size)
    return chr(ord("a") + col) + chr(ord("a") + size - 1 - row)


def _version() -> str:
    """mctslab's version, ``mctslab.__version__`` (its one place): asked of the package
    rather than of the installed metadata, which a source tree run with PYTHONPATH=src
    may lack or have from another version. Read from ``sys.modules``, not imported: the
    package is always there (Python imports it before any of its modules), and an
    import of it from here would close a cycle through the layers above games."""
    return str(sys.modules["mctslab"].__version__)


def write_sgf(record: SgfRecord) -> str:
    """The record as an SGF file's text (FF[4], UTF-8), ten moves a line."""
    n = record.board_size
    if not 5 <= n <= 19:
        raise SgfError(f"sgf: board_size must be in [5, 19], got {n}")
    head = [f"(;GM[1]FF[4]CA[UTF-8]AP[mctslab:{_version()}]SZ[{n}]KM[{record.komi:g}]RU[Chinese]"]
    for prop, value in (
        ("PB", record.black),
        ("PW", record.white),
        ("DT", record.date),
        ("RE", record.result),
        ("GC", record.comment),
    ):
        if value:
            head.append(f"{prop}[{_escape(value)}]")
    lines = ["".join(head)]
    moves = []
    for i, action in enumerate(record.actions):
        if not 0 <= action <= n * n:
            raise SgfError(f"sgf: move {i + 1}: action {action} is not a point of {n}x{n}")
        moves.append(f";{'BW'[i % 2]}[{_point(action, n)}]")
    for i in range(0, len(moves), _MOVES_A_LINE):
        lines.append("".join(moves[i : i + _MOVES_A_LINE]))
    return "\n".join(lines) + ")\n"


# Reading --------------------------------------------------------------------------------------


class _Parser:
    """A reader of SGF's grammar (recursive descent, game trees kept on a stack): Collection = GameTree+; GameTree =
    "(" Sequence GameTree* ")"; Sequence = Node+; Node = ";" Property*; Property =
    PropIdent PropValue+; PropValue = "[" text "]" (``\\`` escapes the next character)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def fail(self, what: str) -> SgfError:
        line = self.text.count("\n", 0, self.pos) + 1
        return SgfError(f"sgf: {what} (line {line})")

    def skip_space(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def peek(self) -> str:
        self.skip_space()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def expect(self, char: str) -> None:
        if self.peek() != char:
            found = repr(self.peek()) if self.peek() else "the end"
            raise self.fail(f"expected {char!r}, found {found}")
        self.pos += 1

    def main_line(self) -> list[dict[str, list[str]]]:
        """The nodes of the first game tree's main line."""
        start = self.text.find("(")
        if start < 0:
            raise SgfError("sgf: not an SGF file (no '(')")
        self.pos = start
        return self.game_tree()

    def game_tree(self) -> list[dict[str, list[str]]]:
        """The main line of the game tree at ``pos``: its sequence, then the main line of
        its first variation. Read with a stack of open trees, not by recursion: editors
        nest every move as a variation of the last, and a file nested thousands deep
        is a syntax to read (or a file cut short), not a RecursionError."""
        self.expect("(")
        nodes = self.sequence()
        # One entry per open tree: [on the main line, a variation of it already read].
        open_trees = [[True, False]]
        while open_trees:
            tree = open_trees[-1]
            if self.peek() == "(":
                self.pos += 1
                main = tree[0] and not tree[1]
                tree[1] = True
                variation = self.sequence()
                if main:
                    nodes.extend(variation)
                open_trees.append([main, False])
            else:
                self.expect(")")
                open_trees.pop()
        return nodes

    def sequence(self) -> list[dict[str, list[str]]]:
        nodes: list[dict[str, list[str]]] = []
        while self.peek() == ";":
            nodes.append(self.node())
        if not nodes:
            raise self.fail("a game tree without a node")
        return nodes

    def node(self) -> dict[str, list[str]]:
        self.expect(";")
        props: dict[str, list[str]] = {}
        while self.peek().isalpha():
            start = self.pos
            while self.pos < len(self.text) and self.text[self.pos].isalpha():
                self.pos += 1
            # FF[3] allowed lower-case letters in identifiers (AddBlack = AB): ignore them
            ident = "".join(c for c in self.text[start : self.pos] if c.isupper())
            values = []
            while self.peek() == "[":
                values.append(self.value())
            if not values:
                raise self.fail(f"property {ident or '?'} without a value")
            props.setdefault(ident, []).extend(values)
        return props

    def value(self) -> str:
        self.expect("[")
        out: list[str] = []
        while True:
            if self.pos >= len(self.text):
                raise self.fail("a value without its ']'")
            c = self.text[self.pos]
            self.pos += 1
            if c == "]":
                return "".join(out)
            if c == "\\":
                if self.pos >= len(self.text):
                    raise self.fail("a value without its ']'")
                nxt = self.text[self.pos]
                self.pos += 1
                if nxt == "\r" and self.text[self.pos : self.pos + 1] == "\n":
                    self.pos += 1
                if nxt not in "\r\n":  # an escaped line break is removed (soft break)
                    out.append(nxt)
            else:
                out.append(c)


def _one(props: dict[str, list[str]], key: str) -> str:
    return props[key][0].strip() if key in props else ""


def _action(value: str, size: int, move: int) -> int:
    value = value.strip()
    if value == "" or (value == "tt" and size <= 19):
        return size * size
    if len(value) != 2 or not value.isalpha() or not value.islower():
        raise SgfError(f"sgf: move {move}: {value!r} is not a point")
    col, row = ord(value[0]) - ord("a"), ord(value[1]) - ord("a")
    if not (0 <= col < size and 0 <= row < size):
        raise SgfError(f"sgf: move {move}: {value!r} is off the {size}x{size} board")
    return (size - 1 - row) * size + col


def read_sgf(text: str, ko: KoRule = "superko") -> SgfRecord:
    """The record of the first game of an SGF collection, along its main line, its
    moves checked by replaying them under ``ko`` (see the module's text)."""
    nodes = _Parser(text).main_line()
    root = nodes[0]
    game_type = _one(root, "GM")
    if game_type not in ("", "1"):
        raise SgfError(f"sgf: GM[{game_type}] is not Go (GM[1])")
    size_text = _one(root, "SZ") or "19"
    if not (size_text.isascii() and size_text.isdigit()):
        raise SgfError(f"sgf: SZ[{size_text}]: only square boards (SZ[N]) are supported")
    size = int(size_text)
    if not 5 <= size <= 19:
        raise SgfError(f"sgf: SZ[{size}]: board sizes 5 to 19 are supported")
    komi_text = _one(root, "KM") or "0"
    try:
        komi = float(komi_text)
    except ValueError:
        raise SgfError(f"sgf: KM[{komi_text}] is not a number") from None
    handicap = _one(root, "HA")
    if handicap not in ("", "0", "1"):
        raise SgfError(f"sgf: HA[{handicap}]: handicap games are not supported")
    actions: list[int] = []
    for node in nodes:
        setup = sorted(k for k in ("AB", "AW", "AE") if k in node)
        if setup:
            raise SgfError(f"sgf: setup stones ({', '.join(setup)}) are not supported")
        for colour in ("B", "W"):
            for value in node.get(colour, []):
                move = len(actions) + 1
                if "BW"[len(actions) % 2] != colour:
                    raise SgfError(
                        f"sgf: move {move}: {colour} plays, but {'BW'[len(actions) % 2]} is "
                        "to play (the moves must alternate from Black)"
                    )
                actions.append(_action(value, size, move))
    try:
        record = SgfRecord(size, komi, tuple(actions))
        record.game(ko)  # the komi and the length are acceptable
    except MctslabError as err:
        raise SgfError(f"sgf: {err}") from None
    record = replace(
        record,
        black=_one(root, "PB"),
        white=_one(root, "PW"),
        date=_one(root, "DT"),
        result=_one(root, "RE"),
        comment=_one(root, "GC"),
    )
    _replay(record, ko, len(actions))
    return record


def read_sgf_text(path: str | Path, limit: int = MAX_SGF_BYTES) -> str:
    """The text of the SGF file ``path`` (UTF-8, bad bytes replaced): a regular file of at
    most ``limit`` bytes, else :class:`SgfError` (a FIFO, a device, a directory, a larger
    file; an ``OSError`` as its one-line reason)."""
    try:
        # O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting for
        # one; the file's type is then checked on what was opened, not on the name.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as err:
        raise SgfError(f"sgf: cannot read {str(path)!r}: {err.strerror or err}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise SgfError(
            f"sgf: {str(path)!r} is not a regular file (a FIFO, a device, a directory): "
            "an SGF record is a file"
        )
    with os.fdopen(fd, "rb") as f:
        try:
            os.set_blocking(fd, True)
            data = f.read(limit + 1)
        except OSError as err:
            raise SgfError(f"sgf: cannot read {str(path)!r}: {err.strerror or err}") from None
    if len(data) > limit:
        raise SgfError(
            f"sgf: {str(path)!r} is larger than {limit:,} bytes: not an SGF record this reads"
        )
    return data.decode("utf-8", errors="replace")


def read_sgf_file(path: str | Path, ko: KoRule = "superko") -> SgfRecord:
    """:func:`read_sgf` of the file ``path``, read by :func:`read_sgf_text`."""
    return read_sgf(read_sgf_text(path), ko)


def _replay(record: SgfRecord, ko: KoRule, moves: int) -> KernelState:
    if not 0 <= moves <= len(record.actions):
        raise SgfError(f"sgf: the record has {len(record.actions)} moves, not {moves}")
    game = record.game(ko)
    state = game.new_initial_state()
    for i, action in enumerate(record.actions[:moves]):
        if state.is_terminal():
            raise SgfError(f"sgf: move {i + 1}: the game ended before it (two passes)")
        if action not in state.legal_actions():
            name = game.action_name(state, action)
            raise SgfError(f"sgf: move {i + 1} ({name}) is illegal (occupied, suicide or ko)")
        state.apply_action(action)
    return state
