"""``mctslab bohnenspiel-client``: play a game on the Bohnenspiel course's game server.

::

    mctslab bohnenspiel-client --server http://HOST:PORT --create alice --player mcts --time-per-move 3
    mctslab bohnenspiel-client --server http://HOST:PORT --join 17 bob --player minimax:depth=4
    mctslab bohnenspiel-client --server http://HOST:PORT --open-games

``--create NAME`` opens a game (we are player 0, fields 1-6, and move first) and
waits for a second player; ``--join ID NAME`` joins game ``ID`` (we are player 1,
fields 7-12); ``--open-games`` lists the games waiting for a second player. The
game is played by :mod:`mctslab.clients.bohnenspiel`; each step is logged on
stderr, and the result (the stores on the client's board and the server's
message) printed on stdout at the end.

Exit status: 0 once the game is over (won, lost or drawn), 2 for a user error
(a bad URL, name, player spec or value: one ``error:`` line), 1 when the game
could not be played on (the server refused the join, stayed unreachable past
the give-up limit, or answered against the protocol: one ``error:`` line).
Registered on :data:`mctslab.cli.app.app`.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from typing import Annotated

import typer

from mctslab.cli.app import EXIT_INTERRUPTED, CliError, JsonOpt, SeedOpt, app, user_errors
from mctslab.clients.bohnenspiel import (
    BohnenspielClient,
    ClientConfig,
    ClientError,
    logger,
)

__all__ = ["bohnenspiel_client"]

#: Exit status when the game could not be played on (the server's side of things).
EXIT_GAME_FAILED = 1


class _LogHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """The command's handler on the client's logger (one, however often the command runs)."""


@contextmanager
def _logging_to_stderr(verbose: bool) -> Iterator[None]:
    """The client's log on stderr while the command runs (removed after: tests run it often)."""
    handler = _LogHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s", "%H:%M:%S"))
    saved = logger.level, logger.propagate
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG if verbose else logging.INFO)
    logger.propagate = False
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(saved[0])
        logger.propagate = saved[1]


@app.command("bohnenspiel-client")
def bohnenspiel_client(
    server: Annotated[
        str,
        typer.Option(
            "--server",
            help="The game server's address, e.g. http://bohnenspiel.informatik.uni-mannheim.de",
            show_default=False,
        ),
    ],
    create: Annotated[
        str | None,
        typer.Option(
            "--create",
            metavar="NAME",
            help="Create a game as NAME (player 0, fields 1-6, moves first).",
            show_default=False,
        ),
    ] = None,
    join: Annotated[
        tuple[str, str] | None,
        typer.Option(
            "--join",
            metavar="ID NAME",
            help="Join game ID as NAME (player 1, fields 7-12).",
            show_default=False,
        ),
    ] = None,
    open_games: Annotated[
        bool,
        typer.Option("--open-games", help="List the games waiting for a second player."),
    ] = False,
    player: Annotated[
        str,
        typer.Option(
            "--player",
            help="Who plays: mcts:..., minimax:depth=4, random, human (any player spec).",
        ),
    ] = "mcts",
    time_per_move: Annotated[
        float | None,
        typer.Option(
            "--time-per-move",
            help="Seconds a move for an mcts spec without a budget (the server allows 300).",
            show_default=False,
        ),
    ] = None,
    poll: Annotated[
        float,
        typer.Option("--poll", help="Seconds between checks; backs off to 10x while waiting."),
    ] = 0.5,
    give_up: Annotated[
        float,
        typer.Option("--give-up", help="Stop after this many seconds of failed requests."),
    ] = 600.0,
    timeout: Annotated[float, typer.Option("--timeout", help="Seconds a request may take.")] = 30.0,
    seed: SeedOpt = 0,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Also log the board after each move.")
    ] = False,
    json_output: JsonOpt = False,
) -> None:
    """Play Bohnenspiel on the course's online game server with any player."""
    with user_errors():
        chosen = [flag for flag, given in (("--create", create is not None),
                  ("--join", join is not None), ("--open-games", open_games)) if given]  # fmt: skip
        if len(chosen) != 1:
            raise CliError(
                "give exactly one of --create NAME, --join ID NAME, --open-games"
                + (f" (got {' and '.join(chosen)})" if chosen else "")
            )
        game_id, name = join if join is not None else (None, create or "anonymous")
        config = ClientConfig(
            server=server,
            name=name,
            game_id=game_id,
            player=player,
            time_per_move=time_per_move,
            seed=seed,
            poll=poll,
            poll_max=10 * poll,
            request_timeout=timeout,
            give_up=give_up,
        )
        client = BohnenspielClient(config)
    try:
        with _logging_to_stderr(verbose):
            if open_games:
                ids = client.open_games()
                print(json.dumps(ids) if json_output else "\n".join(ids) or "no open games")
                return
            report = client.play()
    except ClientError as err:
        print(f"error: {' '.join(str(err).split())}", file=sys.stderr)
        raise typer.Exit(EXIT_GAME_FAILED) from None
    except KeyboardInterrupt:
        print("interrupted: the game goes on without us on the server", file=sys.stderr)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    if json_output:
        data = asdict(report)
        data["outcome"] = report.outcome
        print(json.dumps(data))
    else:
        print(report.summary())
