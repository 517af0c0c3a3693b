"""``mctslab gtp``: any mctslab player of Go as a GTP engine on stdin and stdout.

::

    mctslab gtp --player mcts:time=1 --size 9 --komi 7.5
    gogui -program "mctslab gtp --player mcts:time=2" -size 9

It speaks the Go Text Protocol, version 2 (https://www.lysator.liu.se/~gunnar/gtp/), so
that GUIs (GoGui, Sabaki, Lizzie), match runners (``gogui-twogtp``) and servers' bridges
can set the toolkit against people and programs. The commands::

    protocol_version name version known_command list_commands quit
    boardsize clear_board komi play genmove undo final_score final_status_list
    showboard time_settings time_left loadsgf printsgf kgs-genmove_cleanup
    lz-analyze lz-genmove_analyze

A command may carry an id (``12 genmove b`` is answered ``=12 D4``). Errors are answered
``? message`` and the engine goes on: an unknown command (``? unknown command``), a
malformed one (``? syntax error: ...``), an illegal move (``? illegal move: ...``), a size
out of 5 .. 19 (``? unacceptable size``); an unexpected failure inside a command is
answered ``? internal error: ...``, never a crash. Input is read as GTP says: control
characters dropped, tabs as spaces, ``#`` comments and blank lines ignored. The engine
stops at ``quit`` or at the end of its input (so it exits when its controller dies).

**Rules** are those of :mod:`mctslab.games.go`: area scoring (Tromp-Taylor), positional
superko, suicide illegal, ``--komi`` a multiple of 0.5. ``final_score`` is the
Tromp-Taylor score of the board as it stands (every stone counted alive: play the dead
stones out, as the engine itself does before it passes). Colours: ``play`` and
``genmove`` for the colour that is not to move (a handicap set-up by ``play b`` ``play b``)
insert a pass of the other colour, when that pass would not end the game. The game ends
at two passes; a move after that (a controller's clean-up phase) resumes it, the two
passes forgotten. ``kgs-genmove_cleanup`` is ``genmove`` that never resigns (under area
scoring the search already captures dead stones before it passes).
``final_status_list dead|alive|seki`` answers the strings of that status, one string a
line (``A1 B1`` ...), as :func:`mctslab.games.go_status.final_status` judges them from
Monte-Carlo ownership: what a controller that scores by agreement (GoGui, the KGS
bridge) asks after two passes; ``final_score`` stays the count of the board as it stands.

**Records** (:mod:`mctslab.games.sgf`): ``loadsgf FILE [MOVE_NUMBER]`` (GTP's) sets
the board size, komi and moves of an SGF file's game (its main line), up to the position
before move ``MOVE_NUMBER``; ``? cannot load file: ...`` for a missing, malformed or
unsupported file (setup stones, handicap, illegal moves), the game as it was.
``printsgf [FILE]`` (GNU Go's) answers the game so far as SGF, or writes it to ``FILE``.

**Resignation**: ``genmove`` answers ``resign`` when the player's search (``mcts``,
``puct``, ...) ran at least :data:`RESIGN_MIN_VISITS` simulations and the root's value
(the mean return of all of them, for the side to move) is below ``--resign-below``
(default :data:`RESIGN_BELOW`, -0.95 on the scale of the returns, -1 loss .. +1 win:
more than 97.5% of its simulations lost, whatever they played; the root's mean rather
than the chosen move's, which a single lucky playout among a few visits can lift). ``--resign-below -1`` never
resigns. Players without a search (``random``, ``minimax``, ``gtp:...``) never resign here.

**Time**: ``time_settings main_time byo_yomi_time byo_yomi_stones`` and ``time_left colour
time stones`` (seconds) set the clock; the engine also keeps its own clock from the time
its moves take, for controllers that send no ``time_left``. An MCTS-based player (``mcts``,
``puct``, ``az``; not ``gumbel``, which plans an iteration budget) whose spec names no
budget of its own then searches, with no iteration cap, for::

    in byo-yomi (stones > 0):  (time_left / stones) * 0.9 - 0.15 s
    in main time:              (time_left - 0.15 s) / max(10, (N*N - moves) / 2)
                               + 0.8 * byo_yomi_time / byo_yomi_stones   (when byo-yomi follows)

and at least 0.05 s (the 0.15 s is kept back for the protocol and the process; the
move count ``moves`` is both colours'). A budget of the spec's own wins
(``mcts:iterations=5000`` searches 5,000 iterations whatever the clock), except that an own
time longer than the clock allows is cut to it (``mcts:time=2`` in 1 s byo-yomi searches
about 0.75 s): the rule of :mod:`mctslab.players.time_control`, the arena's too.
``time_settings 0 0 0`` or no ``time_settings`` at all: no clock, the spec's budget alone. A search by the compiled
engine is compiled (or loaded from numba's cache) once when the engine starts, before it
answers its first command, so that no move pays for it.

**Analysis** (Leela Zero's commands, which Sabaki and Lizzie send): ``lz-analyze [COLOR]
[INTERVAL]`` (also ``interval N``, ``minmoves N``; the interval in centiseconds) answers
``=`` at once, then searches from the current position (for ``COLOR``, a pass inserted
as for ``genmove``) in a background thread and writes every interval one line::

    info move D4 visits 120 winrate 5234 prior 1000 order 0 pv D4 E5 C3 info move ...

(the root's moves by visits; ``winrate`` the move's mean return for the side to move on
0 .. 10000; ``prior`` the PUCT prior, uniform under UCT; ``pv`` the most visited line of
the tree), until the next command arrives: the analysis stops, a blank line ends its
answer (as Leela Zero) and the command is answered. The search is the player's own (its
tree is then reused by the next ``genmove``), in slices of at most
:data:`ANALYSIS_SLICE` seconds, its tree capped at :data:`ANALYSIS_MAX_NODES`.
``lz-genmove_analyze [COLOR] [INTERVAL]`` is ``genmove`` with the same lines during its
search, then ``play VERTEX`` (or ``play resign``) and the blank line. Both need an
``mcts`` or ``puct`` player with one worker (``? lz-analyze needs an MCTS player``).
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import io
import re
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, TextIO

import typer

from mctslab.cli.app import CliError, app, user_errors
from mctslab.core.registry import make
from mctslab.core.text import is_ascii_digits
from mctslab.games.go import Go
from mctslab.games.go_status import final_status
from mctslab.games.kernels import KernelState
from mctslab.games.sgf import (
    SgfError,
    game_so_far,
    read_sgf,
    read_sgf_text,
    sgf_result,
    write_sgf,
)
from mctslab.players.gtp import action_to_vertex, vertex_to_action
from mctslab.players.player import MCTSPlayer, Player, make_player, parse_spec
from mctslab.players.time_control import own_budget, timed_config
from mctslab.search.compiled import CompiledMCTS
from mctslab.search.engine import Searcher, make_searcher
from mctslab.search.mcts import ChildStats, SearchConfig, SearchResult

__all__ = [
    "COMMANDS",
    "RESIGN_BELOW",
    "RESIGN_MIN_VISITS",
    "AnalyzeRequest",
    "Clock",
    "GtpEngine",
    "gtp_command",
    "info_line",
    "parse_analyze",
]

#: The commands, as ``list_commands`` gives them.
COMMANDS = (
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "quit",
    "boardsize",
    "clear_board",
    "komi",
    "play",
    "genmove",
    "undo",
    "final_score",
    "final_status_list",
    "showboard",
    "time_settings",
    "time_left",
    "loadsgf",
    "printsgf",
    "kgs-genmove_cleanup",
    "lz-analyze",
    "lz-genmove_analyze",
)
#: Resign when the root's value for the side to move is below this ...
RESIGN_BELOW = -0.95
#: ... after a search that visited the root at least this many times.
RESIGN_MIN_VISITS = 100
#: Seconds a move keeps back for the protocol and the process.
LATENCY = 0.15
#: The shortest search under a clock (seconds).
MIN_MOVE_TIME = 0.05
#: In main time, the remaining time is shared among at least this many moves.
MIN_MOVES_LEFT = 10

#: The longest search between two looks at an analysis's stop flag and clock (seconds).
ANALYSIS_SLICE = 0.1
#: The shortest such search (a short interval asks for many).
MIN_ANALYSIS_SLICE = 0.01
#: An analysis runs until the next command, for as long as a GUI stays open: its tree
#: is capped (about 60 MB for the compiled engine's 31-byte nodes; a reference node of
#: Python objects costs far more), after which the analysis only repeats its info line.
ANALYSIS_MAX_NODES = {"compiled": 2_000_000, "reference": 200_000}

#: Commands whose answer is written through the engine's ``write`` as it comes (an
#: ``=`` line, info lines, a blank line) rather than returned by :meth:`GtpEngine.handle`.
_STREAMED = frozenset({"lz-analyze", "lz-genmove_analyze"})

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


class GtpFailure(Exception):
    """A command answered with ``? message``."""


@dataclass
class Clock:
    """The time settings and each colour's clock: ``left[colour] = (seconds, stones)``,
    ``stones == 0`` in main time, else the stones still to play in the byo-yomi period."""

    main: float = 0.0
    byo: float = 0.0
    stones: int = 0
    on: bool = False

    def __post_init__(self) -> None:
        self.left: dict[str, tuple[float, int]] = {}

    def settings(self, main: float, byo: float, stones: int) -> None:
        # GTP: byo-yomi time > 0 with 0 stones means no limit; all zero too.
        self.main, self.byo, self.stones = main, byo, stones
        self.on = not (byo > 0 and stones == 0) and not (main == 0 and byo == 0)
        self.left = {}

    def start(self, colour: str) -> tuple[float, int]:
        if colour in self.left:
            return self.left[colour]
        return (self.main, 0) if self.main > 0 else (self.byo, self.stones)

    def move_time(self, colour: str, moves: int, points: int) -> float | None:
        """Seconds the next move of ``colour`` may search (``None``: no clock)."""
        if not self.on:
            return None
        left, stones = self.start(colour)
        if stones > 0:
            t = left / stones * 0.9 - LATENCY
        else:
            t = (left - LATENCY) / max(MIN_MOVES_LEFT, (points - moves) // 2)
            if self.byo > 0 and self.stones > 0:
                t += 0.8 * self.byo / self.stones
        return max(MIN_MOVE_TIME, t)

    def spent(self, colour: str, seconds: float) -> None:
        """Count a move of ``colour`` that took ``seconds`` (until ``time_left`` corrects it)."""
        if not self.on:
            return
        left, stones = self.start(colour)
        left -= seconds
        if stones == 0:
            if left <= 0 and self.byo > 0 and self.stones > 0:
                left, stones = self.byo, self.stones
        else:
            stones -= 1
            if stones == 0:
                left, stones = self.byo, self.stones
        self.left[colour] = (max(0.0, left), stones)


def _write_stdout(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


def _version() -> str:
    try:
        return importlib.metadata.version("mctslab")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def _colour(text: str) -> str:
    c = text.lower()
    if c in ("b", "black"):
        return "b"
    if c in ("w", "white"):
        return "w"
    raise GtpFailure(f"syntax error: invalid color {text!r}")


def _number(text: str, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise GtpFailure(f"syntax error: {what} {text!r} is not a number") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise GtpFailure(f"syntax error: {what} {text!r} is not a number")
    return value


def _arity(args: list[str], n: int, usage: str) -> None:
    if len(args) != n:
        raise GtpFailure(f"syntax error: expected {usage}")


# Leela Zero's analysis commands -------------------------------------------------------------


@dataclass(frozen=True)
class AnalyzeRequest:
    """The arguments of ``lz-analyze`` and ``lz-genmove_analyze``: the colour to analyse
    for (``None``: the side to move), ``interval`` seconds between two info lines (0: no
    info lines, as Leela Zero) and ``min_moves``, the least number of moves an info line
    lists (moves without visits fill it up)."""

    colour: str | None = None
    interval: float = 0.0
    min_moves: int = 0


def parse_analyze(args: Sequence[str], command: str = "lz-analyze") -> AnalyzeRequest:
    """``[COLOR] [INTERVAL]``, ``interval N`` and ``minmoves N`` in any order, as Leela
    Zero reads them (an interval in centiseconds: ``lz-analyze b 50``); ``avoid`` and
    ``allow`` are not supported. :class:`GtpFailure` (``syntax error: ...``) otherwise.

    >>> parse_analyze(["w", "interval", "25"])
    AnalyzeRequest(colour='w', interval=0.25, min_moves=0)
    """
    colour: str | None = None
    interval, min_moves = 0.0, 0
    i = 0
    while i < len(args):
        tag = args[i].lower()
        if is_ascii_digits(tag):
            interval = int(tag) / 100
            i += 1
            continue
        if tag in ("interval", "minmoves"):
            if i + 1 >= len(args) or not is_ascii_digits(args[i + 1]):
                raise GtpFailure(f"syntax error: {command}: {tag} needs a whole number >= 0")
            if tag == "interval":
                interval = int(args[i + 1]) / 100
            else:
                min_moves = int(args[i + 1])
            i += 2
            continue
        if tag in ("b", "black", "w", "white"):
            colour = _colour(tag)
        elif tag in ("avoid", "allow"):
            raise GtpFailure(f"syntax error: {command}: {tag} is not supported")
        else:
            raise GtpFailure(f"syntax error: {command}: unexpected argument {args[i]!r}")
        i += 1
    return AnalyzeRequest(colour, interval, min_moves)


def principal_variation(searcher: object, action: int, limit: int) -> list[int]:
    """``action``, then the line below it that the searcher's kept tree expects (both
    engines' ``principal_variation``: the most visited child at each node), at most
    ``limit`` moves; only ``[action]`` for a searcher without one (root parallelism's)."""
    line = getattr(searcher, "principal_variation", None)
    return list(line(action, limit)) if line is not None else [action]


def info_line(
    children: Sequence[ChildStats],
    size: int,
    min_utility: float,
    max_utility: float,
    pv: Callable[[int], list[int]] | None = None,
    min_moves: int = 0,
) -> str:
    """One Leela Zero analysis line: ``info move D4 visits 120 winrate 5234 prior 1000
    order 0 pv D4 E5 C3 info move ...``, the root's children by visits (then winrate)
    down to the last one with a visit (or ``min_moves`` of them). ``winrate`` is the
    move's mean return for the player to move mapped from ``min_utility .. max_utility``
    to ``0 .. 10000`` (truncated, as Leela Zero prints it), ``prior`` its prior in
    ten-thousandths (UCT has none: uniform over the root's children), ``pv`` the
    principal variation ``pv(action)`` (default: the move alone)."""
    span = max_utility - min_utility

    def winrate(child: ChildStats) -> int:
        if not child.visits or span <= 0:
            return 0
        return int(min(1.0, max(0.0, (child.value - min_utility) / span)) * 10000)

    # sorted() is stable, reverse=True too: equal visits and winrate keep action order.
    rows = sorted(children, key=lambda ch: (ch.visits, winrate(ch)), reverse=True)
    visited = sum(1 for ch in rows if ch.visits > 0)
    uniform = 1.0 / len(rows) if rows else 0.0
    parts = []
    for order, child in enumerate(rows[: max(visited, min_moves)]):
        prior = uniform if child.prior is None else child.prior
        line = pv(child.action) if pv is not None else [child.action]
        moves = " ".join(action_to_vertex(a, size) for a in line)
        parts.append(
            f"info move {action_to_vertex(child.action, size)} visits {child.visits} "
            f"winrate {winrate(child)} prior {int(prior * 10000)} order {order} pv {moves}"
        )
    return " ".join(parts)


class Analysis:
    """``lz-analyze``'s search: from one position, in a background thread, in slices of
    at most :data:`ANALYSIS_SLICE` seconds (each a ``search()`` of the player's own
    searcher, which keeps its tree from one to the next, so the statistics grow as in one
    long search), writing an info line every ``interval`` seconds until :meth:`stop`.

    The compiled engine's search leaves Python's GIL free, so the thread that reads the
    next command is not slowed; the reference engine's shares it (and still stops within
    a slice).
    """

    def __init__(
        self,
        searcher: Searcher,
        state: KernelState,
        config: SearchConfig,
        request: AnalyzeRequest,
        emit: Callable[[str], None],
    ) -> None:
        self.searcher = searcher
        self.state = state
        self.request = request
        self.emit = emit
        game = state.game
        assert isinstance(game, Go)
        self.game = game
        slice_s = ANALYSIS_SLICE
        if request.interval > 0:
            slice_s = min(slice_s, max(MIN_ANALYSIS_SLICE, request.interval / 2))
        self.slice = slice_s
        cap = ANALYSIS_MAX_NODES["compiled" if isinstance(searcher, CompiledMCTS) else "reference"]
        nodes = cap if config.max_nodes is None else min(cap, config.max_nodes)
        self.config = replace(config, time=slice_s, iterations=None, max_nodes=nodes)
        self.lines = 0  # info lines written
        self.error: BaseException | None = None  # what ended the search early, if anything
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="lz-analyze", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Stop the search (within a slice) and write its last line if none came yet."""
        self._stop.set()
        self._thread.join()

    def line(self, result: SearchResult) -> str:
        info = self.game.info
        n = self.game.board_size
        return info_line(
            result.children,
            n,
            info.min_utility,
            info.max_utility,
            lambda a: principal_variation(self.searcher, a, n * n),
            self.request.min_moves,
        )

    def _run(self) -> None:
        try:
            self._loop()
        except Exception as err:  # the analysis ends; the engine answers the next command
            self.error = err

    def _loop(self) -> None:
        interval = self.request.interval
        self.searcher.config = self.config
        result: SearchResult | None = None
        stuck = False  # the tree is full or the root proven: nothing more to search
        last = time.monotonic()
        while not self._stop.is_set():
            if stuck:
                self._stop.wait(self.slice)
            else:
                result = self.searcher.search(self.state.clone(), self.game.info)
                stuck = result.iterations == 0 or result.stopped_by in ("nodes", "proven")
            now = time.monotonic()
            if interval > 0 and result is not None and now - last >= interval:
                self.emit(self.line(result) + "\n")
                self.lines += 1
                last = now
        if interval > 0 and self.lines == 0 and result is not None:
            self.emit(self.line(result) + "\n")  # at least one line, as Leela Zero
            self.lines += 1


class GtpEngine:
    """The GTP engine: :meth:`handle` answers one line; :meth:`run` serves a stream.

    ``spec`` is any player spec that plays ``go`` (not ``human``: standard input is the
    protocol's). The player is made afresh for every new game and after ``undo``.
    ``warm_up`` runs a one-iteration search at start, so that the compiled engine is
    compiled before the first timed move. ``write`` takes what the engine writes outside
    :meth:`handle`'s answers (``lz-analyze``'s streamed answer; default: standard output);
    :meth:`run` writes everything through it.
    """

    def __init__(
        self,
        spec: str,
        size: int = 9,
        komi: float = 7.5,
        seed: int = 0,
        resign_below: float = RESIGN_BELOW,
        warm_up: bool = True,
        write: Callable[[str], None] | None = None,
    ) -> None:
        kind, _ = parse_spec(spec)
        if kind == "human":
            raise CliError(
                "mctslab gtp: a human cannot play through GTP: its input is the protocol"
            )
        self.spec = spec
        self._own_budget = own_budget(spec)
        self.seed = seed
        self.resign_below = resign_below
        self.clock = Clock()
        self.quitting = False
        self.player: Player | None = None
        self._base: SearchConfig | None = None
        self._write = write or _write_stdout
        self._lock = threading.Lock()  # an analysis thread writes too
        self.analysis: Analysis | None = None  # lz-analyze's, while it runs
        self._ident = ""  # the id of the command being answered
        self.game = self._make_game(size, komi)
        self.state: KernelState = self.game.new_initial_state()
        self._new_player()
        if warm_up:
            self._warm_up()
        self._handlers: dict[str, Callable[[list[str]], str]] = {
            "protocol_version": lambda a: "2",
            "name": lambda a: "mctslab",
            "version": lambda a: _version(),
            "known_command": self._known_command,
            "list_commands": lambda a: "\n".join(COMMANDS),
            "quit": self._quit,
            "boardsize": self._boardsize,
            "clear_board": self._clear_board,
            "komi": self._komi,
            "play": self._play,
            "genmove": lambda a: self._genmove(a, resign=True),
            "kgs-genmove_cleanup": lambda a: self._genmove(a, resign=False),
            "undo": self._undo,
            "final_score": self._final_score,
            "final_status_list": self._final_status_list,
            "showboard": lambda a: "\n" + self.game.render(self.state),
            "time_settings": self._time_settings,
            "time_left": self._time_left,
            "loadsgf": self._loadsgf,
            "printsgf": self._printsgf,
            "lz-analyze": self._lz_analyze,
            "lz-genmove_analyze": self._lz_genmove_analyze,
        }

    # Game and player ---------------------------------------------------------------------------

    @staticmethod
    def _make_game(size: int, komi: float) -> Go:
        game = make("go", board_size=size, komi=komi)
        assert isinstance(game, Go)
        return game

    def _new_player(self) -> None:
        """A fresh player for the game as it stands (it is told the moves so far)."""
        self.close()
        self.player = make_player(self.spec, self.game.info, self.seed)
        for action in self.state.history():
            self.player.inform(action)
        self._base = self.player.config if isinstance(self.player, MCTSPlayer) else None

    def _warm_up(self) -> None:
        if type(self.player) is not MCTSPlayer:
            return
        config = replace(self.player.config, iterations=1, time=None)
        # A config that cannot search 1 iteration (gumbel): its first move compiles.
        with contextlib.suppress(Exception):
            MCTSPlayer(self.game.info, config, self.player.engine).choose(self.state.clone())

    def close(self) -> None:
        """Close the player if it holds a resource (a ``gtp:`` player's program)."""
        close = getattr(self.player, "close", None)
        if callable(close):
            close()

    def _replay(self, actions: Iterable[int]) -> None:
        self.state = self.game.state_from_actions(list(actions))
        self._new_player()

    def _points(self) -> int:
        return self.game.board_size**2

    def _to_move(self) -> str:
        return "b" if len(self.state.history()) % 2 == 0 else "w"

    def _prepared(self, colour: str) -> KernelState:
        """The state in which ``colour`` moves: the game resumed after two passes, a pass
        of the other colour inserted when ``colour`` is not to move (not committed)."""
        state = self.state
        history = state.history()
        n = self._points()
        if state.is_terminal():
            if len(history) >= 2 and history[-1] == history[-2] == n:
                state = self.game.state_from_actions(history[:-2])
            else:
                raise GtpFailure(
                    f"illegal move: the game is over (move limit {self.game.info.max_game_length})"
                )
        else:
            state = state.clone()
        if ("b" if len(state.history()) % 2 == 0 else "w") != colour:
            state.apply_action(n)  # the other colour passes
            if state.is_terminal():
                raise GtpFailure(
                    f"illegal move: {'black' if colour == 'b' else 'white'} is not to play "
                    "(a pass of the other colour would end the game)"
                )
        return state

    def _commit(self, state: KernelState, action: int | None) -> None:
        """Make ``state`` (then ``action``) the game; the player follows."""
        extra: list[int] = []
        if state is not self.state:
            old, new = self.state.history(), state.history()
            self.state = state
            if new[: len(old)] == old:
                extra = new[len(old) :]
            else:  # the game resumed after two passes: a player for the new history
                self._new_player()
        if action is not None:
            self.state.apply_action(action)
            extra.append(action)
        assert self.player is not None
        for a in extra:
            self.player.inform(a)

    # Commands ----------------------------------------------------------------------------------

    def _known_command(self, args: list[str]) -> str:
        _arity(args, 1, "known_command COMMAND")
        return "true" if args[0] in self._handlers else "false"

    def _quit(self, args: list[str]) -> str:
        self.quitting = True
        return ""

    def _boardsize(self, args: list[str]) -> str:
        _arity(args, 1, "boardsize SIZE")
        if not is_ascii_digits(args[0]):
            raise GtpFailure(f"syntax error: boardsize {args[0]!r} is not an integer")
        size = int(args[0])
        if not 5 <= size <= 19:
            raise GtpFailure("unacceptable size")
        self.game = self._make_game(size, self.game.komi)
        self._replay([])
        return ""

    def _clear_board(self, args: list[str]) -> str:
        self._replay([])
        self.clock.left = {}
        return ""

    def _komi(self, args: list[str]) -> str:
        _arity(args, 1, "komi KOMI")
        komi = _number(args[0], "komi")
        try:
            game = self._make_game(self.game.board_size, komi)
        except ValueError as err:
            raise GtpFailure(str(err)) from None
        self.game = game
        self._replay(self.state.history())
        return ""

    def _play(self, args: list[str]) -> str:
        _arity(args, 2, "play COLOR VERTEX")
        colour = _colour(args[0])
        action = vertex_to_action(args[1], self.game.board_size)
        if action is None:
            raise GtpFailure(f"syntax error: invalid vertex {args[1]!r}")
        state = self._prepared(colour)
        if action not in state.legal_actions():
            occupied = action < self._points() and self.game.colour_at(state, action) != 0
            why = "occupied" if occupied else "suicide or ko"
            raise GtpFailure(f"illegal move: {args[1]} ({why})")
        self._commit(state, action)
        return ""

    def _move_config(self, colour: str) -> SearchConfig | None:
        """Set the MCTS player's budget for ``colour``'s move and return it; ``None`` for
        a player without a search config. The budget is the clock's, by the rule of
        :func:`mctslab.players.time_control.timed_config`: the spec's own budget wins,
        otherwise the clock's seconds with no iteration cap."""
        player = self.player
        limit = self.clock.move_time(colour, len(self.state.history()), self._points())
        if not isinstance(player, MCTSPlayer) or self._base is None:
            return None
        config = timed_config(self._base, own=self._own_budget, seconds=limit)
        player.config = config
        if player.searcher is not None and hasattr(player.searcher, "config"):
            player.searcher.config = config
        return config

    def _genmove(self, args: list[str], resign: bool) -> str:
        _arity(args, 1, "genmove COLOR")
        colour = _colour(args[0])
        state = self._prepared(colour)
        self._commit(state, None)
        player = self.player
        assert player is not None
        self._move_config(colour)
        t0 = time.perf_counter()
        action = player.choose(self.state.clone())
        self.clock.spent(colour, time.perf_counter() - t0)
        if resign and self._resigns(player, action):
            return "resign"
        self._commit(self.state, action)
        return action_to_vertex(action, self.game.board_size)

    def _resigns(self, player: Player, action: int) -> bool:
        result = getattr(player, "last_result", None)
        if result is None or result.iterations < RESIGN_MIN_VISITS:
            return False
        return bool(result.value < self.resign_below)

    def _undo(self, args: list[str]) -> str:
        history = self.state.history()
        if not history:
            raise GtpFailure("cannot undo")
        self._replay(history[:-1])
        return ""

    def _final_score(self, args: list[str]) -> str:
        return sgf_result(self.game.score(self.state))  # GTP's form is SGF's: B+7.5, W+0.5, 0

    def _final_status_list(self, args: list[str]) -> str:
        """``final_status_list dead|alive|seki``: the strings of that status, one a line,
        as judged by :func:`mctslab.games.go_status.final_status` (Monte-Carlo ownership
        from heavy playouts; the engine's seed)."""
        _arity(args, 1, "final_status_list dead|alive|seki")
        status = args[0].lower()
        if status not in ("dead", "alive", "seki"):
            raise GtpFailure(f"syntax error: status {args[0]!r} is not dead, alive or seki")
        judged = final_status(self.game, self.state, seed=self.seed)
        n = self.game.board_size
        groups = getattr(judged, status)
        if not groups:
            return ""
        return "\n" + "\n".join(" ".join(action_to_vertex(p, n) for p in g) for g in groups)

    def _time_settings(self, args: list[str]) -> str:
        _arity(args, 3, "time_settings MAIN_TIME BYO_YOMI_TIME BYO_YOMI_STONES")
        main = _number(args[0], "main time")
        byo = _number(args[1], "byo-yomi time")
        stones = _number(args[2], "byo-yomi stones")
        if main < 0 or byo < 0 or stones < 0 or not stones.is_integer():
            raise GtpFailure("syntax error: times and stones must be >= 0, stones an integer")
        self.clock.settings(main, byo, int(stones))
        return ""

    def _time_left(self, args: list[str]) -> str:
        _arity(args, 3, "time_left COLOR TIME STONES")
        colour = _colour(args[0])
        left = _number(args[1], "time")
        stones = _number(args[2], "stones")
        if left < 0 or stones < 0 or not stones.is_integer():
            raise GtpFailure("syntax error: time and stones must be >= 0, stones an integer")
        self.clock.left[colour] = (left, int(stones))
        return ""

    def _loadsgf(self, args: list[str]) -> str:
        """GTP's ``loadsgf FILE [MOVE_NUMBER]``: the board size, komi and moves of the
        file's game (its main line), up to the position before move ``MOVE_NUMBER`` (to
        the end without it)."""
        if not 1 <= len(args) <= 2:
            raise GtpFailure("syntax error: loadsgf FILENAME [MOVE_NUMBER]")
        try:  # a regular file of at most MAX_SGF_BYTES: a FIFO or /dev/zero is refused
            record = read_sgf(read_sgf_text(args[0]))
        except SgfError as err:
            raise GtpFailure(f"cannot load file: {err}") from None
        moves = len(record.actions)
        if len(args) == 2:
            if not is_ascii_digits(args[1]) or int(args[1]) < 1:
                raise GtpFailure(f"syntax error: move number {args[1]!r} is not a positive integer")
            moves = min(moves, int(args[1]) - 1)
        self.game = record.game()
        self._replay(record.actions[:moves])
        self.clock.left = {}
        return ""

    def _printsgf(self, args: list[str]) -> str:
        """``printsgf [FILE]`` (GNU Go's): the game so far as SGF, answered or written."""
        if len(args) > 1:
            raise GtpFailure("syntax error: printsgf [FILENAME]")
        text = write_sgf(game_so_far(self.game, self.state)).rstrip("\n")
        if not args:
            return "\n" + text
        try:
            Path(args[0]).write_text(text + "\n", encoding="utf-8")
        except OSError as err:
            raise GtpFailure(f"cannot write file: {args[0]}: {err.strerror or err}") from None
        return ""

    def _searcher(self, command: str, state: KernelState) -> tuple[MCTSPlayer, Searcher]:
        """The MCTS player and its searcher (made now if it has not searched yet), or
        :class:`GtpFailure` for a player without a tree to read."""
        player = self.player
        if type(player) is not MCTSPlayer:
            raise GtpFailure(f"{command} needs an MCTS player")
        config = player.config
        if config.puct is not None and config.puct.gumbel:
            raise GtpFailure(f"{command} needs an MCTS player (gumbel plans a fixed budget)")
        if config.workers > 1:
            raise GtpFailure(f"{command} needs an MCTS player with one worker")
        if player.searcher is None:
            player.searcher = make_searcher(config, state, player.engine)
        return player, player.searcher

    def _lz_analyze(self, args: list[str]) -> str:
        """``=`` at once, then info lines until the next command (see :class:`Analysis`);
        the answer's blank line is written when the analysis stops."""
        request = parse_analyze(args, "lz-analyze")
        state = self._prepared(request.colour or self._to_move())
        _, searcher = self._searcher("lz-analyze", state)
        assert self._base is not None
        analysis = Analysis(searcher, state, self._base, request, self.emit)
        self.emit(f"={self._ident}\n")
        self.analysis = analysis
        analysis.start()
        return ""

    def stop_analysis(self) -> None:
        """End a running ``lz-analyze``: stop its search, then the blank line that ends
        its answer. Nothing if none runs."""
        analysis, self.analysis = self.analysis, None
        if analysis is not None:
            analysis.stop()
            self.emit("\n")

    def _lz_genmove_analyze(self, args: list[str]) -> str:
        """``genmove`` that writes ``=``, an info line every interval while it searches,
        then ``play VERTEX`` (or ``play resign``) and the blank line."""
        request = parse_analyze(args, "lz-genmove_analyze")
        colour = request.colour or self._to_move()
        state = self._prepared(colour)
        player, searcher = self._searcher("lz-genmove_analyze", state)
        self._commit(state, None)
        config = self._move_config(colour)
        assert config is not None
        info = self.game.info
        n = self.game.board_size
        analysis = Analysis(searcher, self.state, config, request, self.emit)
        slice_s = analysis.slice
        self.emit(f"={self._ident}\n")
        t0 = time.perf_counter()
        done, lines, last = 0, 0, time.monotonic()
        result: SearchResult | None = None
        try:
            while True:
                left = None if config.time is None else config.time - (time.perf_counter() - t0)
                more = None if config.iterations is None else config.iterations - done
                spent = (left is not None and left <= 0) or (more is not None and more <= 0)
                if result is not None and spent:
                    break
                # A slice of the move's budget: the tree is kept, so the slices add up.
                step = min(slice_s, left) if left is not None and left > 0 else slice_s
                searcher.config = replace(config, time=step, iterations=more)
                result = searcher.search(self.state.clone(), info)
                done += result.iterations
                if result.iterations == 0 or result.stopped_by in ("nodes", "proven"):
                    break
                if request.interval > 0 and time.monotonic() - last >= request.interval:
                    self.emit(analysis.line(result) + "\n")
                    lines, last = lines + 1, time.monotonic()
        except Exception as err:  # the answer has begun: end it, and say why on stderr
            print(f"lz-genmove_analyze: {type(err).__name__}: {err}", file=sys.stderr)
            self.emit("\n")
            return ""
        finally:
            searcher.config = config
        self.clock.spent(colour, time.perf_counter() - t0)
        if request.interval > 0 and lines == 0:
            self.emit(analysis.line(result) + "\n")  # at least one line, as Leela Zero
        player.last_result = result
        if done >= RESIGN_MIN_VISITS and result.value < self.resign_below:
            self.emit("play resign\n\n")
            return ""
        self._commit(self.state, result.action)
        self.emit(f"play {action_to_vertex(result.action, n)}\n\n")
        return ""

    # Protocol ----------------------------------------------------------------------------------

    def emit(self, text: str) -> None:
        """Write ``text`` through ``write`` (one writer at a time: an analysis writes from
        its own thread)."""
        with self._lock:
            self._write(text)

    def handle(self, raw: str) -> str | None:
        """The full answer to one input line (``"=id text\\n\\n"`` or ``"?id message\\n\\n"``),
        or ``None`` for a line with no command (blank, a comment); ``""`` for
        ``lz-analyze`` and ``lz-genmove_analyze``, whose answers go through ``write``.
        A running analysis is stopped first."""
        line = _CONTROL.sub("", raw.replace("\t", " ")).split("#", 1)[0].strip()
        if not line:
            return None
        self.stop_analysis()  # any command ends lz-analyze's answer (as Leela Zero)
        parts = line.split()
        ident = parts.pop(0) if is_ascii_digits(parts[0]) else ""
        self._ident = ident
        if not parts:
            return f"?{ident} syntax error: no command\n\n"
        name, args = parts[0], parts[1:]
        handler = self._handlers.get(name)
        if handler is None:
            return f"?{ident} unknown command\n\n"
        try:
            text = handler(args)
        except GtpFailure as err:
            return f"?{ident} {err}\n\n"
        except Exception as err:  # never a crash: the controller keeps its engine
            message = " ".join(str(err).split())
            return f"?{ident} internal error: {type(err).__name__}: {message}\n\n"
        if name in _STREAMED:
            return ""  # written through ``write`` as it came
        return f"={ident} {text}\n\n"

    def run(self, stdin: TextIO, stdout: TextIO) -> None:
        """Answer every line of ``stdin`` on ``stdout`` until ``quit`` or the end."""

        def write(text: str) -> None:
            stdout.write(text)
            stdout.flush()

        self._write = write
        try:
            for raw in stdin:
                answer = self.handle(raw)
                if answer:
                    self.emit(answer)
                if self.quitting:
                    break
        finally:
            self.stop_analysis()
            self.close()


@app.command("gtp")
def gtp_command(
    player: Annotated[
        str,
        typer.Option("--player", help="The player that chooses the moves (a spec: mcts:time=1)."),
    ] = "mcts:time=1",
    size: Annotated[int, typer.Option("--size", help="Board size (5 to 19) until boardsize.")] = 9,
    komi: Annotated[float, typer.Option("--komi", help="Komi until the komi command.")] = 7.5,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the player.")] = 0,
    resign_below: Annotated[
        float,
        typer.Option(
            "--resign-below",
            help="Resign when the search's root value is below this (-1: never).",
        ),
    ] = RESIGN_BELOW,
) -> None:
    """Speak GTP version 2 on stdin/stdout (GoGui, Sabaki, gogui-twogtp, GNU Go)."""
    with user_errors():
        engine = GtpEngine(player, size, komi, seed, resign_below)
    # GTP is ASCII: a byte that is not UTF-8 is a bad command to answer, not a crash.
    for stream, errors in ((sys.stdin, "replace"), (sys.stdout, "backslashreplace")):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(encoding="utf-8", errors=errors)
    engine.run(sys.stdin, sys.stdout)
