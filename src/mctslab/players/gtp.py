"""Any Go program that speaks GTP as a player: ``gtp:CMD``.

The spec is ``gtp:`` followed by a command line, everything after the first colon::

    gtp:gnugo --mode gtp --level 1
    gtp:/usr/games/gnugo --mode gtp --level 10 --chinese-rules
    gtp:python -m mctslab gtp --player mcts:time=1

(``key=value`` options do not apply: commas and equals signs belong to the command.) The
command is split as a shell would (:func:`shlex.split`, no shell runs); its program is
looked up on ``PATH`` and then in ``/usr/games`` (where Debian puts ``gnugo``). A missing
program or an empty command is an :class:`~mctslab.core.errors.InvalidSpecError` when the
player is made; the program itself starts at the player's first move.

The player plays ``go`` only. It speaks the Go Text Protocol, version 2, to the child
process over its standard input and output: ``boardsize``, ``komi``, ``clear_board`` to
set up the game, ``play`` to tell it the moves, ``genmove`` to ask for one and ``quit`` at
the end. It keeps the program's board in step with the game through ``inform`` (every
move played, by anyone: the program's own move from ``genmove`` is already on its board,
the opponent's is sent with ``play``), and at every ``choose`` it checks the state's
history against what the program was told, replaying the game after ``clear_board`` if
they differ (a player that joins after an opening, or one reused for a new game). Colours
follow the move count (Black moves first; a pass is a move). Vertices are GTP's: a column
letter ``A`` .. ``T`` without ``I`` and the row number from 1 at the bottom, as the
actions of :mod:`mctslab.games.go` (``D4`` on 9x9 is action ``3 * 9 + 3``); ``pass`` is
the pass action.

The program decides by its own rules: GNU Go scores by territory unless started with
``--chinese-rules``, and plays simple ko where ``go`` plays positional superko, so a move
it chooses can be illegal here (the arena records it as an illegal move, which loses).

**Resignation.** When the program answers ``genmove`` with ``resign``, ``choose`` raises
:class:`GtpResignation`. A player that raises loses the game: the arena
(:func:`mctslab.arena.game_task.play_task`) records the game as lost by that seat, with
termination ``"resign"`` and an error text that starts ``"<name>: GtpResignation:"``;
:func:`mctslab.players.player.play_game` lets the exception through, for its caller to
score. ``go`` has no resign action, so there is no move to return instead.

**Failures** raise :class:`GtpError` (a ``RuntimeError``), which the arena records as a
loss of the seat, like any crash: the program exited (its status and the last lines of
its standard error are in the message), it gave no answer within ``timeout`` seconds (it
is then killed), it answered a command with ``? message``, or it named a vertex that is
not on the board.

**Time.** With ``time_per_move`` (seconds), the program is told ``time_settings 0 T 1``
when it starts: no main time and a byo-yomi period of ``T`` seconds for each move, so that
an engine that manages its clock (GNU Go, ``mctslab gtp``) plans for it. With
``main_time`` too (the arena's ``--main-time``) it is told ``time_settings M T 1``, or
``time_settings M 0 0`` (sudden death) without ``time_per_move``, and before each
``genmove`` the time its clock has left (``time_left``, from :attr:`clock_left`). GTP's
arguments are integers: a fraction is sent as is (``mctslab gtp`` takes it) and, when
refused, rounded down (GNU Go); a program that refuses the command is still timed by the
arena, whose ``strict`` control forfeits a move over the limit
(:mod:`mctslab.arena.game_task`). The arena's ``--time-per-move`` sets it.

**Shutdown.** :meth:`GtpPlayer.close` (also ``with GtpPlayer(...)``, and run when the
player is garbage collected or at the interpreter's exit) sends ``quit``, waits a moment,
then terminates and at last kills the program, and always reaps it, so no zombie is left.
If the process that owns the player is killed outright, the program sees its standard
input close; a GTP program exits on that (GNU Go and ``mctslab gtp`` do).
"""

from __future__ import annotations

import contextlib
import math
import os
import queue
import shlex
import shutil
import subprocess
import threading
import time
import weakref
from collections import deque
from typing import IO, Any

from mctslab.core.errors import InvalidSpecError
from mctslab.core.game import GameInfo, State
from mctslab.core.player_kinds import PlayerKind

__all__ = [
    "GTP_COLUMNS",
    "PLAYER_KINDS",
    "GtpError",
    "GtpPlayer",
    "GtpProcess",
    "GtpResignation",
    "action_to_vertex",
    "make_gtp_player",
    "vertex_to_action",
]

#: GTP's column letters (no ``I``), column ``a`` of the actions first.
GTP_COLUMNS = "ABCDEFGHJKLMNOPQRST"
#: Seconds a GTP program may take to answer any command, ``genmove`` included.
REPLY_TIMEOUT = 120.0
#: Seconds :meth:`GtpProcess.close` waits after ``quit``, and again after terminating.
QUIT_WAIT = 2.0
#: Where a program named without a directory is looked for after ``PATH``.
EXTRA_PATH = "/usr/games"


class GtpError(RuntimeError):
    """A GTP program failed: it exited, did not answer in time, refused a command, or
    answered something that is not GTP."""


class GtpResignation(Exception):
    """The GTP program resigned (``genmove`` answered ``resign``): the player loses."""


def action_to_vertex(action: int, size: int) -> str:
    """The GTP vertex of ``action`` on a ``size`` x ``size`` board: on 9x9, ``30`` is
    ``"D4"``, ``0`` is ``"A1"``, ``81`` is ``"pass"``."""
    if action == size * size:
        return "pass"
    if not 0 <= action < size * size:
        raise ValueError(f"action {action} is not a point of a {size}x{size} board")
    return f"{GTP_COLUMNS[action % size]}{action // size + 1}"


def vertex_to_action(vertex: str, size: int) -> int | None:
    """The action of a GTP vertex (any case; ``pass``), or ``None`` if it is not one on a
    ``size`` x ``size`` board (``I3``, ``A10`` on 9x9; ``resign`` is not a vertex either):
    on 9x9, ``"d4"`` is ``30``, ``"J9"`` is ``80``, ``"PASS"`` is ``81``."""
    text = vertex.strip().upper()
    if text == "PASS":
        return size * size
    if len(text) < 2 or text[0] not in GTP_COLUMNS[:size] or not text[1:].isdigit():
        return None
    row = int(text[1:])
    if not 1 <= row <= size:
        return None
    return (row - 1) * size + GTP_COLUMNS.index(text[0])


def resolve_command(command: str) -> list[str]:
    """``command`` split into arguments, its program found on ``PATH`` or in
    :data:`EXTRA_PATH`; :class:`InvalidSpecError` if it is empty, malformed or missing."""
    try:
        argv = shlex.split(command)
    except ValueError as err:
        raise InvalidSpecError(f"gtp: cannot split the command {command!r}: {err}") from None
    if not argv:
        raise InvalidSpecError(
            "gtp: give the program's command after 'gtp:', e.g. gtp:gnugo --mode gtp --level 1"
        )
    program = argv[0]
    if os.sep in program:
        found = program if os.access(program, os.X_OK) and os.path.isfile(program) else None
    else:
        path = os.environ.get("PATH", os.defpath)
        found = shutil.which(program, path=f"{path}{os.pathsep}{EXTRA_PATH}")
    if found is None:
        raise InvalidSpecError(
            f"gtp: program {program!r} not found (looked on PATH and in {EXTRA_PATH}); "
            "GNU Go is Debian's package gnugo"
        )
    return [found, *argv[1:]]


class GtpProcess:
    """A child process spoken to in GTP: :meth:`send` a command, get its answer.

    Two daemon threads read the child's standard output (into a queue, so that a reply
    can be awaited with a timeout) and its standard error (the last lines kept for
    error messages). Holds no reference to any player, so that a player's finalizer can
    close it.
    """

    def __init__(self, argv: list[str], label: str, timeout: float = REPLY_TIMEOUT) -> None:
        self.label = label
        self.timeout = timeout
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._stderr: deque[str] = deque(maxlen=20)
        try:
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                bufsize=1,
                encoding="utf-8",
                errors="replace",
            )
        except OSError as err:
            raise GtpError(f"{label}: cannot start {argv[0]!r}: {err}") from None
        assert self.proc.stdout is not None and self.proc.stderr is not None
        self._threads = [
            threading.Thread(
                target=_pump, args=(self.proc.stdout, self._lines.put, True), daemon=True
            ),
            threading.Thread(
                target=_pump, args=(self.proc.stderr, self._stderr.append, False), daemon=True
            ),
        ]
        for thread in self._threads:
            thread.start()
        self.closed = False

    def _failure(self, what: str) -> GtpError:
        status = self.proc.poll()
        died = "" if status is None else f" (it exited with status {status})"
        tail = " | ".join(line.rstrip() for line in self._stderr if line.strip())
        return GtpError(f"{self.label}: {what}{died}" + (f"; its stderr: {tail}" if tail else ""))

    def send(self, command: str, timeout: float | None = None) -> str:
        """Send one command and return the text of its ``=`` answer; :class:`GtpError` on
        a ``?`` answer, on no answer within ``timeout`` (default :attr:`timeout`; the
        program is then killed: it can no longer be kept in step) or if it has exited."""
        if self.closed:
            raise GtpError(f"{self.label}: the program has been shut down")
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(command + "\n")
            self.proc.stdin.flush()
        except (OSError, ValueError):
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=QUIT_WAIT)
            error = self._failure(f"cannot send {command!r}: the program is gone")
            self.close()
            raise error from None
        limit = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + limit
        answer: list[str] = []
        status = ""
        while True:
            try:
                line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                error = self._failure(f"no answer to {command!r} within {limit:g} s")
                self.close()
                raise error from None
            if line is None:  # end of its output: it exited
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.proc.wait(timeout=QUIT_WAIT)
                error = self._failure(f"the program closed its output after {command!r}")
                self.close()
                raise error
            line = line.replace("\r", "").replace("\t", " ").rstrip("\n")
            if not status:
                if not line.strip():
                    continue
                if line[0] not in "=?":
                    continue  # not GTP (a banner); skipped
                status, first = line[0], line[1:]
                # "=12 D4": drop the id, if any
                first = first.lstrip("0123456789")
                answer.append(first.strip())
                continue
            if not line.strip():
                break
            answer.append(line)
        text = "\n".join(answer).strip("\n")
        if status == "?":
            raise GtpError(f"{self.label}: {command!r} refused: {text.strip() or '?'}")
        return text.strip()

    def close(self) -> None:
        """``quit``, then terminate, then kill; always reaped. Idempotent."""
        if self.closed:
            return
        self.closed = True
        proc = self.proc
        if proc.poll() is None:
            try:
                assert proc.stdin is not None
                proc.stdin.write("quit\n")
                proc.stdin.flush()
            except (OSError, ValueError):
                pass
            try:
                proc.wait(timeout=QUIT_WAIT)
            except subprocess.TimeoutExpired:
                proc.terminate()
                try:
                    proc.wait(timeout=QUIT_WAIT)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        proc.wait()


def _pump(stream: IO[str], put: Any, end: bool) -> None:
    """Copy ``stream``'s lines to ``put``, then, with ``end``, ``None`` at its end (the
    stdout reader's mark that the program has exited)."""
    try:
        for line in stream:
            put(line)
    except (OSError, ValueError):
        pass
    if end:
        put(None)


class GtpPlayer:
    """A GTP program as a :class:`~mctslab.players.player.Player` of ``go`` (see the
    module docstring). ``timeout`` bounds every answer, ``genmove`` included."""

    name = "gtp"
    #: It is told the moves only (and Go hides nothing).
    reads_hidden_information = False

    def __init__(
        self,
        command: str,
        info: GameInfo,
        timeout: float = REPLY_TIMEOUT,
        time_per_move: float | None = None,
    ) -> None:
        if info.name != "go":
            raise InvalidSpecError(f"gtp: a GTP program plays go only, not {info.name}")
        self.command = command.strip()
        self.argv = resolve_command(self.command)
        self.size = math.isqrt(info.num_actions - 1)
        self.timeout = timeout
        if time_per_move is not None and not (math.isfinite(time_per_move) and time_per_move > 0):
            raise InvalidSpecError(
                f"gtp: time per move must be a positive number of seconds, got {time_per_move!r}"
            )
        #: Seconds a move may take, told to the program when it starts (``None``: nothing).
        self.time_per_move = time_per_move
        #: Seconds of main time, told to the program when it starts (``None``: none).
        self.main_time: float | None = None
        #: ``(seconds, stones)`` the program's clock has left, told before each ``genmove``
        #: (``None``: nothing told); the arena's game clock keeps it.
        self.clock_left: tuple[float, int] | None = None
        self.process: GtpProcess | None = None
        self._moves: list[int] = []  # the game as the program's board has it
        self._komi: float | None = None
        self._own: int | None = None  # the program's last genmove, not yet informed
        self._finalizer: weakref.finalize[Any, Any] | None = None

    # Process ---------------------------------------------------------------------------------

    def _start(self) -> GtpProcess:
        if self.process is None or self.process.closed:
            self.process = GtpProcess(self.argv, f"gtp:{self.command}", self.timeout)
            if self._finalizer is not None:
                self._finalizer.detach()
            # Closed when the player is collected, or at exit: no orphan, no zombie.
            self._finalizer = weakref.finalize(self, self.process.close)
            self._komi = None
            self._moves = []
            self.process.send("protocol_version")
            self.process.send(f"boardsize {self.size}")
            self.process.send("clear_board")
            self._time_settings(self.process)
        return self.process

    def _time_settings(self, process: GtpProcess) -> None:
        """``time_settings M T S``: ``M`` seconds of main time (``main_time``, else 0), then
        a byo-yomi period of ``T`` seconds for every move (``time_per_move``: ``S = 1``;
        none: ``T = S = 0``, sudden death). GTP's arguments are integers, and GNU Go
        refuses others: a fraction (``mctslab gtp`` takes it) is sent as is, then rounded
        down if refused (unless a time would round down to none); a program that refuses the command altogether is only timed (the
        arena's rule)."""
        main, byo = self.main_time or 0.0, self.time_per_move or 0.0
        if main == 0 and byo == 0:
            return
        stones = 1 if byo > 0 else 0
        tries = [f"{main:g} {byo:g} {stones}"]
        whole = float(main).is_integer() and float(byo).is_integer()
        if not whole and all(t == 0 or t >= 1 for t in (main, byo)):  # 0 would be no clock
            tries.append(f"{math.floor(main)} {math.floor(byo)} {stones}")
        for text in tries:
            try:
                process.send(f"time_settings {text}")
                return
            except GtpError:
                if process.closed:  # no answer, or it exited: that is a failure
                    raise

    def _time_left(self, process: GtpProcess, colour: str) -> None:
        """``time_left COLOUR SECONDS STONES`` before a ``genmove`` under a game clock
        (:attr:`clock_left`, set by the arena): whole seconds, rounded down; refused: only
        timed, as ``time_settings``."""
        if self.clock_left is None:
            return
        seconds, stones = self.clock_left
        try:
            process.send(f"time_left {colour} {max(0, math.floor(seconds))} {stones}")
        except GtpError:
            if process.closed:
                raise

    def close(self) -> None:
        """Shut the program down (``quit``, terminate, kill) and reap it."""
        if self._finalizer is not None:
            self._finalizer()
        self.process = None

    def __enter__(self) -> GtpPlayer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # Player ----------------------------------------------------------------------------------

    def _colour(self, ply: int) -> str:
        return "b" if ply % 2 == 0 else "w"

    def _play(self, process: GtpProcess, action: int) -> None:
        vertex = action_to_vertex(action, self.size)
        process.send(f"play {self._colour(len(self._moves))} {vertex}")
        self._moves.append(action)

    def _sync(self, state: State) -> GtpProcess:
        """Bring the program's board to ``state``: the missing moves, or the whole game
        again after ``clear_board`` when its board is not a position on the way."""
        process = self._start()
        komi = float(getattr(getattr(state, "game", None), "komi", 7.5))
        if komi != self._komi:
            process.send(f"komi {komi:g}")
            self._komi = komi
        history = state.history()
        if history[: len(self._moves)] != self._moves:
            process.send("clear_board")
            self._moves = []
        for action in history[len(self._moves) :]:
            self._play(process, action)
        return process

    def prepare(self, state: State) -> None:
        """Start the program and bring its board to ``state``, before any clock runs: the
        arena calls it before the game, so that the program's start-up (an interpreter, a
        compiled search loaded from its cache) is not counted in its first move."""
        self._sync(state)

    def choose(self, state: State) -> int:
        process = self._sync(state)
        colour = self._colour(len(self._moves))
        self._time_left(process, colour)
        reply = process.send(f"genmove {colour}")
        if reply.lower() == "resign":
            who = "Black" if colour == "b" else "White"
            raise GtpResignation(f"{self.command} resigns as {who}")
        action = vertex_to_action(reply, self.size)
        if action is None:
            raise GtpError(f"gtp:{self.command}: genmove answered {reply!r}, not a vertex")
        self._moves.append(action)
        self._own = action
        return action

    def inform(self, action: int) -> None:
        if self.process is None or self.process.closed:
            return  # not started: choose() replays the state's history
        own, self._own = self._own, None
        if own is not None and own == action and self._moves and self._moves[-1] == action:
            return  # its own move, already on its board
        if own is not None:
            # Another move than its own was played: its board is off the game; the next
            # choose() starts it over from the state's history.
            self._moves = [-1]
            return
        if self._moves[:1] == [-1]:
            return
        self._play(self.process, action)


def make_gtp_player(options: dict[str, str], info: GameInfo) -> GtpPlayer:
    """The player of a ``gtp:CMD`` spec (``options["command"]`` is ``CMD``, as
    :func:`mctslab.players.player.parse_spec` gives it)."""
    return GtpPlayer(options.get("command", ""), info)


def _gtp_player(options: dict[str, str], info: GameInfo, seed: int) -> GtpPlayer:
    return make_gtp_player(options, info)  # the program draws its own moves: no seed


#: This module's player kind: ``gtp:CMD``, an outside program told the moves (it reads
#: no hidden information: it plays only Go).
PLAYER_KINDS = (
    PlayerKind(
        "gtp",
        _gtp_player,
        reads_hidden_information=False,
        help="a Go program speaking GTP, gtp:COMMAND (the program starts at the first move)",
        takes_command=True,
    ),
)
