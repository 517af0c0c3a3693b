"""What every ``mctslab`` command shares: the Typer app, the common options, the parsing
of positions and the one-line user errors.

The commands live in :mod:`mctslab.cli.main` (``games``, ``play``, ``search``, ``solve``)
and in one module per family (:mod:`mctslab.cli.arena`, :mod:`mctslab.cli.tune`,
:mod:`mctslab.cli.tree`, ...), each registering itself on :data:`app`. They import
this module; this module imports none of them, and :mod:`mctslab.cli.main` imports them
all. So any command module can be imported first, alone, in a fresh interpreter:
no module reaches back into one that is still being initialised.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from typer.core import TyperGroup

try:  # typer >= 0.2x parses with its own copy of click, typer._click; older typer with click
    from typer._click import exceptions as click_exceptions
except ImportError:  # pragma: no cover
    from click import exceptions as click_exceptions  # type: ignore[no-redef]

from mctslab.core.errors import MctslabError
from mctslab.core.game import Game, State, player_label
from mctslab.core.registry import load_game_module, make, parse_value
from mctslab.core.text import ascii_int
from mctslab.search.engine import ENGINES

__all__ = [
    "EXIT_INTERRUPTED",
    "EXIT_USER_ERROR",
    "AllowCheatingOpt",
    "CliError",
    "DbOpt",
    "GameArg",
    "JsonOpt",
    "MovesOpt",
    "OpeningsOpt",
    "ParamOpt",
    "ProgressOpt",
    "ResumeOpt",
    "SeedOpt",
    "TimeOpt",
    "WorkersOpt",
    "app",
    "check_engine",
    "check_output_dir",
    "check_output_file",
    "load_position",
    "make_console",
    "parse_moves",
    "parse_pairs",
    "parse_value",
    "player_label",
    "user_errors",
]

#: Exit status of a user error (the status of a usage error too).
EXIT_USER_ERROR = 2
#: Exit status when the human interrupts the game with Ctrl-C (128 + SIGINT).
EXIT_INTERRUPTED = 130


def _usage_error_line(err: click_exceptions.UsageError) -> str:
    """``error: Invalid value for '--port': ...; see 'mctslab serve --help'``."""
    message = " ".join(err.format_message().split()).rstrip(".")
    where = f"; see '{err.ctx.command_path} --help'" if err.ctx is not None else ""
    return f"error: {message}{where}"


class _OneLineUsageErrors(TyperGroup):
    """Click's usage errors (``--iterations abc``, a missing argument, an unknown option) as
    one ``error:`` line and exit 2, like every other user error, instead of typer's box.

    They are raised while the group parses its own arguments (``make_context``) or a
    command's (inside ``invoke``); ``mctslab`` alone still shows the help.
    """

    def make_context(
        self, info_name: str | None, args: list[str], parent: Any = None, **extra: Any
    ) -> Any:
        with _one_line_usage_errors():
            return super().make_context(info_name, args, parent, **extra)

    def invoke(self, ctx: Any) -> Any:
        with _one_line_usage_errors():
            return super().invoke(ctx)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        """The command, with ``--game-module`` where it takes a game (one option for all
        of them, added here rather than to every signature)."""
        command = super().get_command(ctx, cmd_name)
        taken = command is not None and any(p.name == "game_module" for p in command.params)
        if command is not None and not taken and _takes_a_game(command):
            command.params.append(_game_module_option())
        return command


#: Commands that take no game argument but list, serve or analyse the games: --game-module too.
_GAME_MODULE_COMMANDS = ("games", "serve", "analysis")


def _takes_a_game(command: Any) -> bool:
    names = {p.name for p in command.params}
    return bool(names & {"game", "games"}) or command.name in _GAME_MODULE_COMMANDS


def _game_module_option() -> Any:
    """``--game-module MODULE:CLASS`` (repeatable): your own game, registered before the
    command runs (eager, so that the game's name resolves; :func:`_load_game_modules`).
    Made by typer from a one-parameter command, as every other option is."""
    probe = typer.Typer()

    @probe.command()
    def _probe(
        game_module: Annotated[
            list[str] | None,
            typer.Option(
                "--game-module",
                callback=_load_game_modules,
                is_eager=True,
                expose_value=False,
                metavar="MODULE:CLASS",
                help="Your own game: a module and its game class (or factory), e.g. "
                "my_games.dots:DotsAndBoxes, or a module that calls mctslab.register; "
                "from PYTHONPATH, an installed package or the current directory "
                "(docs/games.md). Repeatable.",
                show_default=False,
            ),
        ] = None,
    ) -> None:
        """Never run: typer builds the option from this signature."""

    return typer.main.get_command(probe).params[0]


def _load_game_modules(ctx: typer.Context, specs: list[str] | None) -> None:
    """Register each ``--game-module`` (:func:`mctslab.core.registry.load_game_module`);
    a module that cannot be loaded is one ``error:`` line, exit 2."""
    for spec in specs or ():
        try:
            load_game_module(spec)
        except MctslabError as err:
            raise typer.BadParameter(str(err), ctx=ctx) from None


@contextmanager
def _one_line_usage_errors() -> Iterator[None]:
    try:
        yield
    except click_exceptions.NoArgsIsHelpError:
        raise  # `mctslab` alone: the help
    except click_exceptions.UsageError as err:
        print(_usage_error_line(err), file=sys.stderr)
        raise typer.Exit(EXIT_USER_ERROR) from None


def _flags_without_a_type() -> None:
    """Typer 0.2x writes a type after every flag in ``--help`` (``--json <bool>``,
    ``--help <bool>``), as if it took a value; a flag takes none, so it shows none (as
    click and older typer do). Patched once, on typer's option class."""
    option = getattr(typer.core, "TyperOption", None)
    shown = getattr(option, "display_type_rich", None)
    if option is None or shown is None or getattr(shown, "mctslab_flags", False):
        return

    def display_type_rich(self: Any, ctx: Any) -> str | None:
        return None if getattr(self, "is_flag", False) else shown(self, ctx)

    display_type_rich.mctslab_flags = True  # type: ignore[attr-defined]
    option.display_type_rich = display_type_rich


_flags_without_a_type()

app = typer.Typer(
    cls=_OneLineUsageErrors,
    name="mctslab",
    help="Monte Carlo Tree Search toolkit: play games, search and solve positions.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)
"""The ``mctslab`` command: every command group registers its commands on it, and
:func:`mctslab.cli.main.main`, the console script, runs it."""


def version_line() -> str:
    """``mctslab 0.2.0 (Python 3.11.7, numba 0.68.1, numpy 2.4.6)``: what a bug report needs."""
    import platform

    import numba
    import numpy

    import mctslab

    return (
        f"mctslab {mctslab.__version__} (Python {platform.python_version()}, numba "
        f"{numba.__version__}, numpy {numpy.__version__})"
    )


def _show_version(value: bool) -> None:
    if value:
        print(version_line())
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_show_version,
            is_eager=True,
            help="Print mctslab's version (and Python's, numba's, numpy's) and exit.",
        ),
    ] = False,
) -> None:
    """Monte Carlo Tree Search toolkit: play games, search and solve positions."""


# Options -------------------------------------------------------------------------------------

GameArg = Annotated[
    str, typer.Argument(help="Game name (see 'mctslab games').", show_default=False)
]
MovesOpt = Annotated[
    str,
    typer.Option(
        "--moves",
        help="Moves played from the start, comma-separated: action ids, or the moves' "
        "names as the board shows them (e5).",
    ),
]
ParamOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--param", "-p", help="Game parameter key=value (repeatable).", show_default=False
    ),
]
SeedOpt = Annotated[int, typer.Option("--seed", help="Random seed.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON.")]
# The options of the commands that play many games into the results store (arena, sprt,
# tune, analyze).
DbOpt = Annotated[Path, typer.Option("--db", help="The results store (SQLite).")]
WorkersOpt = Annotated[
    int | None,
    typer.Option("--workers", help="Games played at once (default: the number of cores)."),
]
TimeOpt = Annotated[
    float | None, typer.Option("--time-per-move", help="Seconds a move (timed, see --strict).")
]
OpeningsOpt = Annotated[
    int, typer.Option("--openings", help="Random plies before the players take over.")
]
ResumeOpt = Annotated[
    bool, typer.Option("--resume", help="Continue the same run in the store; play what is missing.")
]
ProgressOpt = Annotated[
    bool, typer.Option("--progress/--no-progress", help="Show a live progress bar.")
]
AllowCheatingOpt = Annotated[
    bool,
    typer.Option(
        "--allow-cheating",
        help="Let a player that reads the full state (mcts, minimax, openspiel-mcts) play a "
        "game with hidden information: it sees the other players' cards. Results say so.",
    ),
]


class CliError(MctslabError):
    """A malformed command-line value (``--moves``, ``--param``, a search option, ``--engine``)."""


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn a user error (any ``ValueError``) into one ``error:`` line on stderr and exit 2."""
    try:
        yield
    except ValueError as err:
        message = " ".join(str(err).split()) or type(err).__name__
        print(f"error: {message}", file=sys.stderr)
        raise typer.Exit(EXIT_USER_ERROR) from None


# Parsing -------------------------------------------------------------------------------------


def parse_moves(text: str) -> list[int]:
    """``"3,3,4"`` -> ``[3, 3, 4]``; an empty string is the initial position. Action ids
    are ASCII digits (:mod:`mctslab.core.text`): ``"１"`` (fullwidth) is refused."""
    if not text.strip():
        return []
    moves = [ascii_int(item.strip(), signed=True) for item in text.split(",")]
    if any(m is None for m in moves):
        raise CliError(
            f"bad --moves {text!r}: write action ids in ASCII digits separated by commas, "
            "e.g. 3,3,4"
        )
    return [m for m in moves if m is not None]


def parse_pairs(items: list[str] | None, what: str) -> dict[str, str]:
    """``["a=1", "b=x"]`` -> ``{"a": "1", "b": "x"}`` (raw strings)."""
    pairs: dict[str, str] = {}
    for item in items or []:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise CliError(f"bad {what} {item!r}: write key=value")
        pairs[key.strip()] = value.strip()
    return pairs


def load_position(name: str, params: list[str] | None, moves: str) -> tuple[Game, State]:
    """The game ``name`` with its parameters and the state after ``moves``, each checked:
    comma-separated action ids, or move names as the board shows them (``e5``; a
    number is always an id)."""
    values = {k: parse_value(v) for k, v in parse_pairs(params, "--param").items()}
    game = make(name, **values)
    state = game.new_initial_state()
    items = [item.strip() for item in moves.split(",")] if moves.strip() else []
    for i, item in enumerate(items):
        action = ascii_int(item, signed=True)
        if action is None:  # a move's name, as the board and `play` write it (Go's e5)
            try:
                action = state.string_to_action(item)
            except ValueError:
                raise CliError(
                    f"bad --moves {moves!r}: move {i + 1}, {item!r}, is neither an action id "
                    "(ASCII digits) nor the name of a legal move here"
                ) from None
        try:
            state.apply_action(action)
        except ValueError as err:
            raise CliError(f"--moves, move {i + 1}: {err}") from None
    return game, state


def check_engine(engine: str) -> None:
    if engine not in ENGINES:
        raise CliError(f"unknown engine {engine!r}; valid engines: {', '.join(ENGINES)}")


def _nearest_existing(path: Path) -> Path:
    """``path`` or its closest ancestor that exists."""
    for each in (path, *path.parents):
        if each.exists():
            return each
    return Path(".")


def _check_writable_dir(directory: Path, what: str, path: Path) -> None:
    # Checked before the games are played: an OSError at the end would lose them all.
    if not directory.is_dir():
        raise CliError(f"{what} {str(path)!r}: {str(directory)!r} is not a directory")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise CliError(f"{what} {str(path)!r}: cannot write in {str(directory)!r}")


def check_output_dir(path: Path, what: str) -> None:
    """A directory written at the end of a long run (created if missing): refuse now what
    would fail then, so that no result is lost to a bad path."""
    if path.exists() and not path.is_dir():
        raise CliError(f"{what} {str(path)!r} exists and is not a directory")
    _check_writable_dir(_nearest_existing(path), what, path)


def check_output_file(path: Path, what: str) -> None:
    """A file written at the end of a long run: refuse now what would fail then."""
    if path.is_dir():
        raise CliError(f"{what} {str(path)!r} is a directory")
    if path.exists() and not os.access(path, os.W_OK):
        raise CliError(f"{what} {str(path)!r}: cannot write the file")
    if not path.parent.exists():
        raise CliError(f"{what}: no such directory {str(path.parent)!r}")
    _check_writable_dir(path.parent, what, path)


# Presentation --------------------------------------------------------------------------------

#: The width of tables written to a file or a pipe (rich's default there is 80 columns,
#: which cut values short); a terminal's own width is used as it is.
PIPE_WIDTH = 200


def make_console(stderr: bool = False) -> Console:
    """A rich console for tables and progress: a terminal's width on a terminal, else
    :data:`PIPE_WIDTH` (``COLUMNS`` still decides where it is set)."""
    console = Console(stderr=stderr)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = Console(stderr=stderr, width=PIPE_WIDTH)
    return console
