"""The GTP engine: the board, the player and the commands of ``mctslab gtp``.

Apart from the protocol's text (:mod:`mctslab.cli.gtp.protocol`), the clock
(:mod:`mctslab.players.clock`) and live analysis (:mod:`mctslab.cli.gtp.analysis`),
as Leela Zero and KataGo keep them: this module holds the game as it stands and a
player that follows it, and each command is one method that reads as what it does to
them. The commands, the rules and resignation are described in :mod:`mctslab.cli.gtp`.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import TextIO

from mctslab.cli.app import CliError
from mctslab.cli.gtp.analysis import Analysis, parse_analyze
from mctslab.cli.gtp.protocol import (
    GtpFailure,
    answer,
    check_arity,
    clean,
    failure,
    parse_colour,
    parse_number,
    split_id,
)
from mctslab.core.registry import make
from mctslab.core.text import is_ascii_digits
from mctslab.games.go import Go
from mctslab.games.go.sgf import (
    SgfError,
    game_so_far,
    read_sgf,
    read_sgf_text,
    sgf_result,
    write_sgf,
)
from mctslab.games.go.status import final_status
from mctslab.games.kernels import KernelState
from mctslab.players import resign as ending
from mctslab.players.clock import Clock
from mctslab.players.gtp import action_to_vertex, vertex_to_action
from mctslab.players.player import MCTSPlayer, Player, make_player, parse_spec
from mctslab.players.resign import RESIGN_BELOW, RESIGN_MIN_VISITS, resigns, result_resigns
from mctslab.players.time_control import base_config, own_budget, set_move_time
from mctslab.search.config import SearchConfig
from mctslab.search.engine import Searcher, make_searcher
from mctslab.search.options import MAX_SECONDS

__all__ = ["COMMANDS", "RESIGN_BELOW", "RESIGN_MIN_VISITS", "GtpEngine"]

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

#: Commands whose answer is written through the engine's ``write`` as it comes (an
#: ``=`` line, info lines, a blank line) rather than returned by :meth:`GtpEngine.handle`.
_STREAMED = frozenset({"lz-analyze", "lz-genmove_analyze"})


def _write_stdout(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


def _version() -> str:
    try:
        return importlib.metadata.version("mctslab")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def _check_clock_seconds(seconds: float, byo: float, stones: float) -> None:
    """Refuse clock times of :data:`~mctslab.search.options.MAX_SECONDS` or more (eleven
    days; a search's time budget stays below it, so such a clock made every ``genmove``
    an internal error) and more stones than a game has moves."""
    if max(seconds, byo) >= MAX_SECONDS:
        raise GtpFailure(
            f"syntax error: times must be below {MAX_SECONDS:.0f} seconds, got "
            f"{max(seconds, byo):g}"
        )
    if stones > 10_000:
        raise GtpFailure(f"syntax error: at most 10000 byo-yomi stones, got {stones:g}")


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
        # The places in the history of the passes inserted to hand the turn over (a colour
        # that moves out of turn: Go.hand_over): not moves of the game, undone with the
        # move that needed them.
        self._handed: set[int] = set()
        self._handing: int | None = None  # a hand-over _prepared made, not yet committed
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
        self._base = base_config(self.player)

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

    def _replay(self, actions: Iterable[int], handed: Iterable[int] = ()) -> None:
        self.state = self._rebuilt(list(actions), set(handed))
        self._handed = {i for i in handed if i < len(self.state.history())}
        self._new_player()

    def _rebuilt(self, actions: list[int], handed: set[int]) -> KernelState:
        """The state after ``actions``, the passes at the places ``handed`` made as hand-overs."""
        state = self.game.new_initial_state()
        for i, action in enumerate(actions):
            if i in handed:
                self.game.hand_over(state)
            else:
                state.apply_action(action)
        return state

    def _points(self) -> int:
        return self.game.board_size**2

    def _to_move(self) -> str:
        return "b" if len(self.state.history()) % 2 == 0 else "w"

    def _prepared(self, colour: str) -> KernelState:
        """The state in which ``colour`` moves: the game resumed after two passes, a pass
        of the other colour inserted when ``colour`` is not to move (not committed)."""
        self._handing = None
        state = self.state
        history = state.history()
        n = self._points()
        if state.is_terminal():
            if len(history) >= 2 and history[-1] == history[-2] == n:
                state = self._rebuilt(history[:-2], self._handed)
            else:
                raise GtpFailure(
                    f"illegal move: the game is over (move limit {self.game.info.max_game_length})"
                )
        else:
            state = state.clone()
        if ("b" if len(state.history()) % 2 == 0 else "w") != colour:
            # The other colour's turn is handed over: a pass that does not count toward
            # the two that end the game (GNU Go and GoGui let a colour move out of turn).
            self._handing = len(state.history())
            self.game.hand_over(state)
            if state.is_terminal():
                raise GtpFailure(
                    f"illegal move: {'black' if colour == 'b' else 'white'} is not to play, "
                    "and handing the turn over would reach the move limit "
                    f"({self.game.info.max_game_length})"
                )
        return state

    def _commit(self, state: KernelState, action: int | None) -> None:
        """Make ``state`` (then ``action``) the game; the player follows (a new player
        after a hand-over: a tree grown before it counted the pass)."""
        handing, self._handing = self._handing, None
        if handing is not None and state is not self.state:
            self._handed = {i for i in self._handed if i < handing} | {handing}
            self.state = state
            if action is not None:
                self.state.apply_action(action)
            self._new_player()
            return
        extra: list[int] = []
        if state is not self.state:
            old, new = self.state.history(), state.history()
            self.state = state
            if new[: len(old)] == old:
                extra = new[len(old) :]
            else:  # the game resumed after two passes: a player for the new history
                self._handed = {i for i in self._handed if i < len(new)}
                self._new_player()
        if action is not None:
            self.state.apply_action(action)
            extra.append(action)
        assert self.player is not None
        for a in extra:
            self.player.inform(a)

    # Commands ----------------------------------------------------------------------------------

    def _known_command(self, args: list[str]) -> str:
        check_arity(args, 1, "known_command COMMAND")
        return "true" if args[0] in self._handlers else "false"

    def _quit(self, args: list[str]) -> str:
        self.quitting = True
        return ""

    def _boardsize(self, args: list[str]) -> str:
        check_arity(args, 1, "boardsize SIZE")
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
        check_arity(args, 1, "komi KOMI")
        komi = parse_number(args[0], "komi")
        try:
            game = self._make_game(self.game.board_size, komi)
        except ValueError as err:
            raise GtpFailure(str(err)) from None
        self.game = game
        self._replay(self.state.history(), self._handed)
        return ""

    def _play(self, args: list[str]) -> str:
        check_arity(args, 2, "play COLOR VERTEX")
        colour = parse_colour(args[0])
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
        factor = float(getattr(self._base, "time_factor", 1.0))
        limit = self.clock.move_time(colour, len(self.state.history()), self._points(), factor)
        if self.player is None:
            return None
        config: SearchConfig | None = set_move_time(
            self.player, self._base, own=self._own_budget, seconds=limit
        )
        return config

    def _genmove(self, args: list[str], resign: bool) -> str:
        check_arity(args, 1, "genmove COLOR")
        colour = parse_colour(args[0])
        state = self._prepared(colour)
        self._commit(state, None)
        player = self.player
        assert player is not None
        if self._pass_wins():
            self._commit(self.state, self._pass)
            return "pass"
        self._move_config(colour)
        t0 = time.perf_counter()
        action = player.choose(self.state.clone())
        self.clock.spent(colour, time.perf_counter() - t0)
        if resign and resigns(player, self.resign_below):
            return "resign"
        action = ending.play_on(action, getattr(player, "last_result", None), self.state)
        self._commit(self.state, action)
        return action_to_vertex(action, self.game.board_size)

    @property
    def _pass(self) -> int:
        return int(self.game.board_size) ** 2

    def _pass_wins(self) -> bool:
        """Whether the opponent has just passed and a pass now ends the game won for the
        player to move, the board counted as it stands (Tromp-Taylor): then ``genmove``
        passes at once, without a search (which could play on, every move winning). The
        rule of :func:`mctslab.players.resign.pass_for`, which the arena and the web lab
        share (a player that searches); a hand-over pass is not the opponent's."""
        history = self.state.history()
        if not history or len(history) - 1 in self._handed:
            return False
        return ending.pass_for(self.player, self.state) is not None

    def _undo(self, args: list[str]) -> str:
        """Take back the last move, and the hand-over pass that came with it (GNU Go's
        ``undo`` takes back one move, and a hand-over was never one)."""
        history = self.state.history()
        if not history:
            raise GtpFailure("cannot undo")
        keep = len(history) - 1
        while keep > 0 and keep - 1 in self._handed:
            keep -= 1
        self._replay(history[:keep], self._handed)
        return ""

    def _final_score(self, args: list[str]) -> str:
        return sgf_result(self.game.score(self.state))  # GTP's form is SGF's: B+7.5, W+0.5, 0

    def _final_status_list(self, args: list[str]) -> str:
        """``final_status_list dead|alive|seki``: the strings of that status, one a line,
        as judged by :func:`mctslab.games.go.status.final_status` (Monte-Carlo ownership
        from heavy playouts; the engine's seed)."""
        check_arity(args, 1, "final_status_list dead|alive|seki")
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
        check_arity(args, 3, "time_settings MAIN_TIME BYO_YOMI_TIME BYO_YOMI_STONES")
        main = parse_number(args[0], "main time")
        byo = parse_number(args[1], "byo-yomi time")
        stones = parse_number(args[2], "byo-yomi stones")
        if main < 0 or byo < 0 or stones < 0 or not stones.is_integer():
            raise GtpFailure("syntax error: times and stones must be >= 0, stones an integer")
        _check_clock_seconds(main, byo, stones)
        self.clock.settings(main, byo, int(stones))
        return ""

    def _time_left(self, args: list[str]) -> str:
        check_arity(args, 3, "time_left COLOR TIME STONES")
        colour = parse_colour(args[0])
        left = parse_number(args[1], "time")
        stones = parse_number(args[2], "stones")
        if left < 0 or stones < 0 or not stones.is_integer():
            raise GtpFailure("syntax error: time and stones must be >= 0, stones an integer")
        _check_clock_seconds(left, 0.0, stones)
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
        if config.rule.root_halving:
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
        if self._pass_wins():  # no search to stream: the answer is the pass alone
            self._commit(self.state, self._pass)
            self.emit(f"={self._ident}\nplay pass\n\n")
            return ""
        config = self._move_config(colour)
        assert config is not None
        n = self.game.board_size
        analysis = Analysis(searcher, self.state, config, request, self.emit)
        self.emit(f"={self._ident}\n")
        t0 = time.perf_counter()
        try:
            result, done = analysis.search_move(config)
        except Exception as err:  # the answer has begun: end it, and say why on stderr
            print(f"lz-genmove_analyze: {type(err).__name__}: {err}", file=sys.stderr)
            self.emit("\n")
            return ""
        self.clock.spent(colour, time.perf_counter() - t0)
        if request.interval > 0 and analysis.lines == 0:
            self.emit(analysis.line(result) + "\n")  # at least one line, as Leela Zero
        player.last_result = result
        if result_resigns(result, self.resign_below, simulations=done):
            self.emit("play resign\n\n")
            return ""
        action = ending.play_on(result.action, result, self.state)
        self._commit(self.state, action)
        self.emit(f"play {action_to_vertex(action, n)}\n\n")
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
        line = clean(raw)
        if not line:
            return None
        self.stop_analysis()  # any command ends lz-analyze's answer (as Leela Zero)
        ident, parts = split_id(line)
        self._ident = ident
        if not parts:
            return failure(ident, "syntax error: no command")
        name, args = parts[0], parts[1:]
        handler = self._handlers.get(name)
        if handler is None:
            return failure(ident, "unknown command")
        # A streamed command's answer is written through ``write`` as it comes.
        return answer(ident, handler, args, streamed=name in _STREAMED)

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
