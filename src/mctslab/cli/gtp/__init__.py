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
line (``A1 B1`` ...), as :func:`mctslab.games.go.status.final_status` judges them from
Monte-Carlo ownership: what a controller that scores by agreement (GoGui, the KGS
bridge) asks after two passes; ``final_score`` stays the count of the board as it stands.

**Records** (:mod:`mctslab.games.go.sgf`): ``loadsgf FILE [MOVE_NUMBER]`` (GTP's) sets
the board size, komi and moves of an SGF file's game (its main line), up to the position
before move ``MOVE_NUMBER``; ``? cannot load file: ...`` for a missing, malformed or
unsupported file (setup stones, handicap, illegal moves), the game as it was.
``printsgf [FILE]`` (GNU Go's) answers the game so far as SGF, or writes it to ``FILE``.

**Resignation**: ``genmove`` answers ``resign`` when the player's search (``mcts``,
``puct``, ...) ran at least :data:`RESIGN_MIN_VISITS` simulations and the root's value
(the mean return of all of them, for the side to move) is below ``--resign-below``
(default :data:`RESIGN_BELOW`, -0.95 on the scale of the returns, -1 loss .. +1 win);
the rule of :mod:`mctslab.players.resign`, which the arena shares. ``--resign-below -1``
never resigns. Players without a search (``random``, ``minimax``, ``gtp:...``) never
resign here.

**Passing**: after the opponent's pass, ``genmove`` passes at once, without a search,
when that pass ends the game won for the side to move with the board counted as it
stands (Tromp-Taylor area): a search could play on there, every move winning. And a
search's pass the opponent has not asked for is replaced by its most visited other move
while both look won: the rules of :mod:`mctslab.players.resign` (``pass_for``,
``play_on``), which the arena and the web lab's AI follow too.

**Time** (:mod:`mctslab.players.clock`): ``time_settings main_time byo_yomi_time
byo_yomi_stones`` and ``time_left colour time stones`` (seconds) set the clock, and an
MCTS-based player whose spec names no budget of its own searches for the share of its
time that the clock allows; ``time_settings 0 0 0`` or no ``time_settings`` at all: no
clock, the spec's budget alone. A search by the compiled engine is compiled (or loaded
from numba's cache) once when the engine starts, before it answers its first command,
so that no move pays for it.

**Analysis** (:mod:`mctslab.cli.gtp.analysis`; Leela Zero's commands, which Sabaki and
Lizzie send): ``lz-analyze [COLOR] [INTERVAL]`` searches from the current position in
the background and writes an ``info move ...`` line every interval until the next
command; ``lz-genmove_analyze [COLOR] [INTERVAL]`` is ``genmove`` with the same lines
during its search. Both need an ``mcts`` or ``puct`` player with one worker.

**The modules**, apart as in Leela Zero and KataGo: :mod:`~mctslab.cli.gtp.protocol`
reads a command line and writes its answer, :mod:`~mctslab.players.clock` decides how
long a move thinks, :mod:`~mctslab.cli.gtp.analysis` streams what a search sees, and
:mod:`~mctslab.cli.gtp.engine` holds the board and the player and runs the commands;
this package's ``__init__`` registers the ``mctslab gtp`` command. An engine in this
process answers one line at a time::

    >>> engine = GtpEngine("random", size=5, warm_up=False)
    >>> engine.handle("1 boardsize 9")
    '=1 \\n\\n'
    >>> engine.handle("2 boardsize 4")
    '?2 unacceptable size\\n\\n'
"""

from __future__ import annotations

import io
import sys
from typing import Annotated

import typer

from mctslab.cli.app import app, user_errors
from mctslab.cli.gtp.analysis import (
    ANALYSIS_MAX_NODES,
    ANALYSIS_SLICE,
    MIN_ANALYSIS_SLICE,
    Analysis,
    AnalyzeRequest,
    info_line,
    parse_analyze,
    principal_variation,
)
from mctslab.cli.gtp.engine import COMMANDS, RESIGN_BELOW, RESIGN_MIN_VISITS, GtpEngine
from mctslab.cli.gtp.protocol import GtpFailure
from mctslab.players.clock import LATENCY, MIN_MOVE_TIME, MIN_MOVES_LEFT, Clock

__all__ = [
    "ANALYSIS_MAX_NODES",
    "ANALYSIS_SLICE",
    "COMMANDS",
    "LATENCY",
    "MIN_ANALYSIS_SLICE",
    "MIN_MOVES_LEFT",
    "MIN_MOVE_TIME",
    "RESIGN_BELOW",
    "RESIGN_MIN_VISITS",
    "Analysis",
    "AnalyzeRequest",
    "Clock",
    "GtpEngine",
    "GtpFailure",
    "gtp_command",
    "info_line",
    "parse_analyze",
    "principal_variation",
]


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
