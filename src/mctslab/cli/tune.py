"""The tuning and playtesting commands: ``mctslab tune`` and ``mctslab analyze``.

::

    mctslab tune connect_four --param c=0.25:2.0:0.25 --opponent mcts:iterations=2000,c=1.4 \\
        --player mcts:iterations=2000 --games 40 --workers 2 --plot tune.png [--resume]
    mctslab tune tic_tac_toe --param iterations=10,100,1000 --games 10   # round robin
    mctslab analyze connect_four --player mcts:iterations=100 --player mcts:iterations=1000 \\
        --games 100 --out report/

``--param`` is the grid here, so game parameters are ``--game-param key=value``
(``analyze`` also takes the usual ``--param``/``-p``). Both commands store every
game (``--db``) and continue an interrupted run with ``--resume``. They are
registered on :data:`mctslab.cli.app.app`; user errors print one ``error:`` line,
exit 2 and write nothing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from mctslab.arena.analyze import (
    DEFAULT_PLAYERS,
    AnalyzeConfig,
    AnalyzeResult,
    plot_analysis,
    run_analysis,
    write_report,
)
from mctslab.arena.store import GameRecord, ResultStore
from mctslab.arena.tournament import default_workers
from mctslab.arena.tune import TuneConfig, TuneResult, format_value, parse_grid, plot_tune, run_tune
from mctslab.cli.app import (
    AllowCheatingOpt,
    CliError,
    DbOpt,
    GameArg,
    JsonOpt,
    OpeningsOpt,
    ProgressOpt,
    ResumeOpt,
    TimeOpt,
    WorkersOpt,
    app,
    check_output_dir,
    check_output_file,
    make_console,
    parse_pairs,
    parse_value,
    user_errors,
)
from mctslab.players.player import cheating_note

__all__ = ["analyze_command", "tune_command"]

GameParamOpt = Annotated[
    list[str] | None,
    typer.Option("--game-param", help="Game parameter key=value (repeatable).", show_default=False),
]
SeedOpt = Annotated[int, typer.Option("--seed", help="Base seed of every game.")]


def _game_params(items: list[str] | None, what: str) -> tuple[tuple[str, object], ...]:
    return tuple(sorted((k, parse_value(v)) for k, v in parse_pairs(items, what).items()))


def _progress(description: str, quiet: bool) -> Progress:
    return Progress(
        TextColumn(f"[bold]{escape(description)}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=make_console(stderr=True),
        disable=quiet,
    )


# tune -----------------------------------------------------------------------------------------


def _elo_cell(elo: float | None, score: float) -> str:
    if elo is not None:
        return f"{round(elo):+d}"
    return "+inf" if score > 0.5 else "-inf"


def _tune_table(result: TuneResult) -> Table:
    c = result.config
    against = f"against {c.opponent}" if c.opponent else "round robin"
    table = Table(title=f"{c.game}: {c.base_spec}, {c.param} = ..., {against}")
    for col in (c.param, "games", "W-D-L", "score (95%)", "Elo (95%)", "P(best)"):
        table.add_column(col, justify="right", no_wrap=True)
    for v in result.values:
        mark = " *" if v is result.best else ""
        elo = _elo_cell(v.elo, v.score)
        if v.elo_low is not None or v.elo_high is not None:
            lo = "-inf" if v.elo_low is None else f"{round(v.elo_low):+d}"
            hi = "+inf" if v.elo_high is None else f"{round(v.elo_high):+d}"
            elo += f" ({lo}..{hi})"
        table.add_row(
            format_value(v.value) + mark, str(v.games), f"{v.wins}-{v.draws}-{v.losses}",
            f"{v.score:.3f} ({v.low:.3f}-{v.high:.3f})", elo, f"{v.p_best:.2f}",
        )  # fmt: skip
    return table


@app.command("tune")
def tune_command(
    game: GameArg,
    param: Annotated[
        str | None,
        typer.Option(
            "--param",
            help="The grid: NAME=START:STOP:STEP (inclusive) or NAME=V1,V2,..., e.g. c=0.25:3:0.25.",
            show_default=False,
        ),
    ] = None,
    player: Annotated[
        str, typer.Option("--player", help="Base spec the grid option is set in.")
    ] = "mcts",
    opponent: Annotated[
        str | None,
        typer.Option(
            "--opponent",
            help="Fixed opponent spec; without it the values play a round robin.",
            show_default=False,
        ),
    ] = None,
    games: Annotated[
        int, typer.Option("--games", help="Games per value (per pairing in a round robin).")
    ] = 20,
    seed: SeedOpt = 0,
    workers: WorkersOpt = None,
    time_per_move: TimeOpt = None,
    openings: OpeningsOpt = 0,
    db: DbOpt = Path("mctslab.db"),
    resume: ResumeOpt = False,
    plot: Annotated[
        Path | None,
        typer.Option("--plot", help="Write a PNG of score against the value.", show_default=False),
    ] = None,
    game_param: GameParamOpt = None,
    progress: ProgressOpt = True,
    allow_cheating: AllowCheatingOpt = False,
    json_output: JsonOpt = False,
) -> None:
    """Tune a numeric player option: a match per value against an opponent, or a round robin."""
    console = make_console(stderr=json_output)
    with user_errors():
        if param is None:
            raise CliError("tune needs a grid: --param NAME=START:STOP:STEP, e.g. c=0.25:3:0.25")
        name, values = parse_grid(param)
        if plot is not None:
            check_output_file(plot, "--plot")
        config = TuneConfig(
            game=game,
            param=name,
            values=tuple(values),
            base_spec=player,
            opponent=opponent,
            games=games,
            seed=seed,
            workers=default_workers() if workers is None else workers,
            time_per_move=time_per_move,
            openings=openings,
            game_params=_game_params(game_param, "--game-param"),
            allow_cheating=allow_cheating,
        )
        with ResultStore(db) as store, _progress(f"tune {name}", not progress) as bar:
            task_id = bar.add_task("tune", total=None)

            def on_record(record: GameRecord, done: int, total: int) -> None:
                bar.update(task_id, completed=done, total=total)

            result = run_tune(config, store, resume=resume, on_record=on_record)
        plot_path = plot_tune(result, plot) if plot is not None else None
    if json_output:
        data = result.to_dict()
        data["plot"] = None if plot_path is None else str(plot_path)
        print(json.dumps(data, indent=2))
        return
    console.print(_tune_table(result))
    console.print(escape(result.verdict()))
    console.print(
        f"Elo relative to {escape(result.elo_reference)}; run {result.run_id} in {db} "
        f"({result.played_now} games played now)"
        + (f"; plot written to {plot_path}" if plot_path is not None else "")
    )
    if result.cheating:
        specs = {e.name: e.spec for e in result.config.arena_config().players}
        note = cheating_note([f"{n} ({specs[n]})" for n in result.cheating])
        console.print(f"[bold]{escape(note)}[/bold]")


# analyze ----------------------------------------------------------------------------------------


def _rate_cell(rate: float, low: float, high: float) -> str:
    return f"{rate:.2f} ({low:.2f}-{high:.2f})"


def _analyze_tables(result: AnalyzeResult, top_openings: int = 5) -> list[Table]:
    c = result.config
    first = Table(title=f"{c.game}: the first player in self-play, {c.games} games (95%)")
    for col in ("player", "wins", "draws", "losses", "score", "Elo"):
        first.add_column(
            col, justify="left" if col == "player" else "right", no_wrap=col == "player"
        )
    shape = Table(title="game length (plies) and legal actions per position")
    for col in ("player", "mean", "median", "min-max", "legal actions"):
        shape.add_column(col, justify="left" if col == "player" else "right")
    for s in result.strengths:
        mean, low, high = s.first_score
        first.add_row(
            escape(s.spec),
            _rate_cell(s.win.rate, s.win.low, s.win.high),
            _rate_cell(s.draw.rate, s.draw.low, s.draw.high),
            _rate_cell(s.loss.rate, s.loss.low, s.loss.high),
            _rate_cell(mean, low, high),
            _elo_cell(s.first_elo, mean),
        )
        shape.add_row(
            escape(s.spec), f"{s.lengths.mean:.1f}", f"{s.lengths.median:g}",
            f"{s.lengths.min}-{s.lengths.max}", f"{s.mean_branching:.2f}",
        )  # fmt: skip
    openings = Table(title=f"most common openings (first {c.opening_plies} plies)")
    for col in ("player", "opening", "games", "first-player score"):
        openings.add_column(col, justify="left" if col in ("player", "opening") else "right")
    for s in result.strengths:
        for o in s.openings[:top_openings]:
            openings.add_row(
                escape(s.spec), " ".join(o.names), str(o.count), f"{o.first_score:.3f}"
            )
    branching = Table(title="legal actions by ply (mean over the games that reach it)")
    branching.add_column("ply", justify="right")
    for s in result.strengths:
        branching.add_column(escape(s.spec), justify="right")
    plies = sorted({b.ply for s in result.strengths for b in s.branching})
    by_ply = [{b.ply: b for b in s.branching} for s in result.strengths]
    for ply in plies:
        cells = [f"{m[ply].mean:.2f} ({m[ply].positions})" if ply in m else "" for m in by_ply]
        branching.add_row(str(ply), *cells)
    return [first, shape, openings, branching]


@app.command("analyze")
def analyze_command(
    game: GameArg,
    player: Annotated[
        list[str] | None,
        typer.Option(
            "--player",
            help=f"A strength: a spec played on both seats (repeatable; default "
            f"{' and '.join(DEFAULT_PLAYERS)}).",
            show_default=False,
        ),
    ] = None,
    games: Annotated[int, typer.Option("--games", help="Self-play games per strength.")] = 50,
    seed: SeedOpt = 0,
    workers: WorkersOpt = None,
    db: DbOpt = Path("mctslab.db"),
    resume: ResumeOpt = False,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out", help="Directory for report.json, report.txt and PNGs.", show_default=False
        ),
    ] = None,
    opening_plies: Annotated[
        int, typer.Option("--opening-plies", help="Plies that name an opening.")
    ] = 2,
    param: Annotated[
        list[str] | None,
        typer.Option(
            "--param",
            "-p",
            "--game-param",
            help="Game parameter key=value (repeatable).",
            show_default=False,
        ),
    ] = None,
    progress: ProgressOpt = True,
    allow_cheating: AllowCheatingOpt = False,
    json_output: JsonOpt = False,
) -> None:
    """Playtesting report from self-play: first-player advantage, game length, branching, openings."""
    console = make_console(stderr=json_output)
    with user_errors():
        if out is not None:
            check_output_dir(out, "--out")
        config = AnalyzeConfig(
            game=game,
            players=tuple(p.strip() for p in player) if player else DEFAULT_PLAYERS,
            games=games,
            seed=seed,
            workers=default_workers() if workers is None else workers,
            game_params=_game_params(param, "--param"),
            opening_plies=opening_plies,
            allow_cheating=allow_cheating,
        )
        with ResultStore(db) as store, _progress("self-play", not progress) as bar:
            task_id = bar.add_task("analyze", total=None)

            def on_record(record: GameRecord, done: int, total: int) -> None:
                bar.update(task_id, completed=done, total=total)

            result = run_analysis(config, store, resume=resume, on_record=on_record)
        written: list[Path] = []
        if out is not None:
            written.append(write_report(result, out))
            text = out / "report.txt"
            text.write_text(result.format_report())
            written.append(text)
            written.extend(plot_analysis(result, out))
    if json_output:
        data = result.to_dict()
        data["files"] = [str(p) for p in written]
        print(json.dumps(data, indent=2))
        return
    for table in _analyze_tables(result):
        console.print(table)
    if result.advantage_change is not None:
        d, lo, hi = result.advantage_change
        first, last = result.strengths[0].spec, result.strengths[-1].spec
        console.print(
            f"first-player score from {escape(first)} to {escape(last)}: "
            f"{d:+.3f} [{lo:+.3f}, {hi:+.3f}]"
        )
    console.print(
        f"run {result.run_id} in {db} ({result.played_now} games played now)"
        + (f"; wrote {', '.join(str(p) for p in written)}" if written else "")
    )
    if result.cheating:
        console.print(f"[bold]{escape(cheating_note(result.cheating))}[/bold]")
