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

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from mctslab.core.errors import MctslabError
from mctslab.core.game import Game, State, player_label
from mctslab.core.registry import make, parse_value
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
    "load_position",
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
#: How the players of a game are called on the board; other games say "player 1", "player 2".
app = typer.Typer(
    name="mctslab",
    help="Monte Carlo Tree Search toolkit: play games, search and solve positions.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)

# Options -------------------------------------------------------------------------------------

GameArg = Annotated[
    str, typer.Argument(help="Game name (see 'mctslab games').", show_default=False)
]
MovesOpt = Annotated[
    str, typer.Option("--moves", help="Comma-separated action ids played from the start.")
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
    """``"3,3,4"`` -> ``[3, 3, 4]``; an empty string is the initial position."""
    if not text.strip():
        return []
    try:
        return [int(item) for item in text.split(",")]
    except ValueError:
        raise CliError(
            f"bad --moves {text!r}: write action ids separated by commas, e.g. 3,3,4"
        ) from None


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
    """The game ``name`` with its parameters and the state after ``moves`` (each checked)."""
    values = {k: parse_value(v) for k, v in parse_pairs(params, "--param").items()}
    game = make(name, **values)
    state = game.new_initial_state()
    for i, action in enumerate(parse_moves(moves)):
        try:
            state.apply_action(action)
        except ValueError as err:
            raise CliError(f"--moves, move {i + 1}: {err}") from None
    return game, state


def check_engine(engine: str) -> None:
    if engine not in ENGINES:
        raise CliError(f"unknown engine {engine!r}; valid engines: {', '.join(ENGINES)}")


# Presentation --------------------------------------------------------------------------------
