"""``mctslab gtp``: any mctslab player of Go as a GTP engine on stdin and stdout.

::

    mctslab gtp --player mcts:time=1 --size 9 --komi 7.5
    gogui -program "mctslab gtp --player mcts:time=2" -size 9

It speaks the Go Text Protocol, version 2 (https://www.lysator.liu.se/~gunnar/gtp/), so
that GUIs (GoGui, Sabaki, Lizzie), match runners (``gogui-twogtp``) and servers' bridges
can set the toolkit against people and programs. The commands::

    protocol_version name version known_command list_commands quit
    boardsize clear_board komi play genmove undo final_score showboard
    time_settings time_left kgs-genmove_cleanup

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
``puct``; not ``gumbel``, which plans an iteration budget) then searches for at most::

    in byo-yomi (stones > 0):  (time_left / stones) * 0.9 - 0.15 s
    in main time:              (time_left - 0.15 s) / max(10, (N*N - moves) / 2)
                               + 0.8 * byo_yomi_time / byo_yomi_stones   (when byo-yomi follows)

and at least 0.05 s (the 0.15 s is kept back for the protocol and the process; the
move count ``moves`` is both colours'). A budget of the spec's own (``mcts:time=2``,
``mcts:iterations=5000``) stays an upper bound. ``time_settings 0 0 0`` or no
``time_settings`` at all: no clock, the spec's budget alone. A search by the compiled
engine is compiled (or loaded from numba's cache) once when the engine starts, before it
answers its first command, so that no move pays for it.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import re
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Annotated, TextIO

import typer

from mctslab.cli.app import CliError, app, user_errors
from mctslab.core.registry import make
from mctslab.games.go import Go
from mctslab.games.kernels import KernelState
from mctslab.players.gtp import action_to_vertex, vertex_to_action
from mctslab.players.player import MCTSPlayer, Player, make_player, parse_spec
from mctslab.search.mcts import SearchConfig

__all__ = [
    "COMMANDS",
    "RESIGN_BELOW",
    "RESIGN_MIN_VISITS",
    "Clock",
    "GtpEngine",
    "gtp_command",
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
    "showboard",
    "time_settings",
    "time_left",
    "kgs-genmove_cleanup",
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


class GtpEngine:
    """The GTP engine: :meth:`handle` answers one line; :meth:`run` serves a stream.

    ``spec`` is any player spec that plays ``go`` (not ``human``: standard input is the
    protocol's). The player is made afresh for every new game and after ``undo``.
    ``warm_up`` runs a one-iteration search at start, so that the compiled engine is
    compiled before the first timed move.
    """

    def __init__(
        self,
        spec: str,
        size: int = 9,
        komi: float = 7.5,
        seed: int = 0,
        resign_below: float = RESIGN_BELOW,
        warm_up: bool = True,
    ) -> None:
        kind, _ = parse_spec(spec)
        if kind == "human":
            raise CliError(
                "mctslab gtp: a human cannot play through GTP: its input is the protocol"
            )
        self.spec = spec
        self.seed = seed
        self.resign_below = resign_below
        self.clock = Clock()
        self.quitting = False
        self.player: Player | None = None
        self._base: SearchConfig | None = None
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
            "showboard": lambda a: "\n" + self.game.render(self.state),
            "time_settings": self._time_settings,
            "time_left": self._time_left,
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
        if not args[0].isdigit():
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

    def _genmove(self, args: list[str], resign: bool) -> str:
        _arity(args, 1, "genmove COLOR")
        colour = _colour(args[0])
        state = self._prepared(colour)
        self._commit(state, None)
        player = self.player
        assert player is not None
        limit = self.clock.move_time(colour, len(self.state.history()), self._points())
        if isinstance(player, MCTSPlayer) and self._base is not None:
            base = self._base
            gumbel = base.puct is not None and base.puct.gumbel
            config = base
            if limit is not None and not gumbel:
                config = replace(base, time=min(limit, base.time or limit))
            player.config = config
            if player.searcher is not None and hasattr(player.searcher, "config"):
                player.searcher.config = config
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
        score = self.game.score(self.state)
        if score == 0:
            return "0"
        return f"B+{score:g}" if score > 0 else f"W+{-score:g}"

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

    # Protocol ----------------------------------------------------------------------------------

    def handle(self, raw: str) -> str | None:
        """The full answer to one input line (``"=id text\\n\\n"`` or ``"?id message\\n\\n"``),
        or ``None`` for a line with no command (blank, a comment)."""
        line = _CONTROL.sub("", raw.replace("\t", " ")).split("#", 1)[0].strip()
        if not line:
            return None
        parts = line.split()
        ident = parts.pop(0) if parts[0].isdigit() else ""
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
        return f"={ident} {text}\n\n"

    def run(self, stdin: TextIO, stdout: TextIO) -> None:
        """Answer every line of ``stdin`` on ``stdout`` until ``quit`` or the end."""
        try:
            for raw in stdin:
                answer = self.handle(raw)
                if answer is None:
                    continue
                stdout.write(answer)
                stdout.flush()
                if self.quitting:
                    break
        finally:
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
    engine.run(sys.stdin, sys.stdout)
