"""``mctslab analysis``: KataGo's JSON analysis engine protocol on stdin and stdout.

::

    mctslab analysis
    mctslab analysis --visits 2000 --max-time 5 --threads 4

It reads one JSON query a line and writes one JSON answer a line, as KataGo's
``katago analysis`` does (``docs/Analysis_Engine.md`` in KataGo's repository), so that
KaTrain and other tools written for that engine can run an mctslab search instead::

    {"id":"a","moves":[["B","E5"],["W","C3"]],"rules":"chinese","komi":7.5,
     "boardXSize":9,"boardYSize":9,"analyzeTurns":[0,1,2],"maxVisits":500}

is answered with one line per turn (``{"id":"a","isDuringSearch":false,"turnNumber":0,
"moveInfos":[...],"rootInfo":{...}}``), each as it finishes: the positions of every
query are searched by ``--threads`` workers, highest ``priority`` first. An action
``{"id":"t","action":"terminate","terminateId":"a"}`` stops query ``a``'s positions
(``terminate_all``, ``query_version``, ``query_models`` and ``clear_cache`` too).
A malformed line or a bad field is answered ``{"error":"...","field":"...","id":"..."}``
and the engine reads on; a field it reads but does not honour is a ``warning``. At the
end of its input the engine finishes the queued queries, then exits
(``--quit-without-waiting``: at once).

Go is mctslab's (:mod:`mctslab.games.go`: area scoring, suicide illegal, simple ko or
positional superko, square boards 5 to 19); another rule set is played as its nearest
with a warning. Any other two-player game of perfect information is analysed with
``"game": NAME`` (and ``"gameParams": {...}``): the same answers, its own move names.
The fields, the answers and how to set KaTrain up: docs/analysis-engine.md.

The modules, apart as KataGo's: :mod:`~mctslab.cli.katago.query` reads a request,
:mod:`~mctslab.cli.katago.answer` writes a result, :mod:`~mctslab.cli.katago.engine`
queues the positions and runs the workers; this ``__init__`` registers the command.
"""

from __future__ import annotations

import io
import sys
from typing import Annotated

import typer

from mctslab.cli.app import CliError, SeedOpt, app, user_errors
from mctslab.cli.katago.engine import GO_PLAYER, OTHER_PLAYER, AnalysisEngine
from mctslab.cli.katago.query import PERSPECTIVES, Limits, QueryError
from mctslab.search.options import MAX_SECONDS
from mctslab.web.settings import Settings

__all__ = ["AnalysisEngine", "Limits", "QueryError", "analysis_command"]

_CAPS = Settings()


def _limits(visits: int, max_visits: int, max_time: float, report_as: str) -> Limits:
    """The engine's limits from its options, or :class:`CliError`."""
    if not 1 <= visits <= max_visits:
        raise CliError(f"--visits must be in [1, --max-visits={max_visits}], got {visits}")
    if not 0 < max_time < MAX_SECONDS:
        raise CliError(f"--max-time must be in (0, {MAX_SECONDS:.0f}) seconds, got {max_time:g}")
    if report_as.upper() not in PERSPECTIVES:
        raise CliError(f"--report-as must be BLACK, WHITE or SIDETOMOVE, got {report_as!r}")
    return Limits(visits, max_visits, max_time, report_as.upper())


@app.command("analysis")
def analysis_command(
    player: Annotated[
        str, typer.Option("--player", help="Go's search (an mcts: or puct: spec).")
    ] = GO_PLAYER,
    game_player: Annotated[
        str, typer.Option("--game-player", help="The other games' search (a spec).")
    ] = OTHER_PLAYER,
    visits: Annotated[
        int, typer.Option("--visits", help="maxVisits of a query that gives none.")
    ] = 500,
    max_visits: Annotated[
        int, typer.Option("--max-visits", help="The most visits a query may ask for.")
    ] = _CAPS.max_iterations,
    max_time: Annotated[
        float, typer.Option("--max-time", help="The most seconds one position searches.")
    ] = _CAPS.max_time,
    threads: Annotated[
        int, typer.Option("--threads", help="Positions searched at once (worker threads).")
    ] = 2,
    seed: SeedOpt = 0,
    report_as: Annotated[
        str,
        typer.Option("--report-as", help="reportAnalysisWinratesAs: BLACK, WHITE or SIDETOMOVE."),
    ] = "BLACK",
    score_playouts: Annotated[
        int, typer.Option("--score-playouts", help="Go: playouts behind each scoreLead (0: none).")
    ] = 64,
    ownership_playouts: Annotated[
        int, typer.Option("--ownership-playouts", help="Go: playouts behind the ownership.")
    ] = 100,
    quit_without_waiting: Annotated[
        bool,
        typer.Option("--quit-without-waiting", help="At the end of input, stop the searches."),
    ] = False,
) -> None:
    """Speak KataGo's JSON analysis protocol on stdin/stdout (KaTrain, analysis scripts)."""
    with user_errors():
        limits = _limits(visits, max_visits, max_time, report_as)
        if not 1 <= threads <= 64:
            raise CliError(f"--threads must be in [1, 64], got {threads}")
        for name, count in (
            ("--score-playouts", score_playouts),
            ("--ownership-playouts", ownership_playouts),
        ):
            if not 0 <= count <= 10_000:
                raise CliError(f"{name} must be in [0, 10000], got {count}")
        engine = AnalysisEngine(
            player, game_player, limits, threads, seed, score_playouts, ownership_playouts
        )
    print("Started, ready to begin handling requests", file=sys.stderr, flush=True)
    # JSON is UTF-8: a byte that is not is a line to refuse, not a crash.
    for stream, errors in ((sys.stdin, "replace"), (sys.stdout, "backslashreplace")):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(encoding="utf-8", errors=errors)

    def write(text: str) -> None:
        sys.stdout.write(text)
        sys.stdout.flush()

    engine.run(sys.stdin, write, wait=not quit_without_waiting)
