"""The arena's commands: ``mctslab arena``, ``mctslab ratings`` and ``mctslab sprt``.

::

    mctslab arena connect_four --player uct=mcts:iterations=2000 --player mm=minimax:depth=4 \\
        --games 20 --time-per-move 0.5 --workers 2 --db results.db [--resume]
    mctslab arena go -p board_size=9 --player a=mcts:early_stop=1 --player b=mcts \\
        --games 20 --main-time 60          # a game clock: 60 s each, sudden death
    mctslab arena go -p board_size=13 --player a=mcts:time=5 --player b=mcts:time=1 \
        --resign-below -0.95               # a search resigns a clearly lost game
    mctslab ratings --db results.db --game connect_four --json
    mctslab sprt tic_tac_toe --player new=mcts:iterations=400 --player old=mcts:iterations=50 \\
        --elo0 0 --elo1 50

They are registered on :data:`mctslab.cli.app.app`; user errors print one ``error:``
line and exit 2, as everywhere in the CLI, and leave the store untouched.

``ratings`` pools every run of a game (or one ``--run``) and says which. Games
count for the same player only when its name, its spec as played and the rules
(the game's parameters and version) agree (:func:`mctslab.arena.tournament.pool_runs`): a
name used for two specs is two players, shown with what tells them apart. Each game
counts once: a game that an earlier run already holds (the same seats, seed and moves:
a run played again, a killed training evaluation played again) is left out, and
``ratings`` says so (``merged 480 duplicate games from 2 runs; 1 unfinished run``);
``--keep-duplicates`` counts every stored game. Unfinished runs (killed, stopped on an
error, or still playing) are named; their games count.

``arena`` and ``sprt`` without ``--resume`` refuse a configuration the store already
holds a run of (the same players, specs, games, seed, openings, time control and rules):
the error names the run and points to ``--resume``; another ``--seed`` or ``--db`` plays
new games. A full disk stops the run with one ``error:`` line; every game committed
before it is kept, and ``--resume`` continues.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from mctslab.arena.game_task import SCORED
from mctslab.arena.ratings import GameOutcome, Ratings, compute_ratings
from mctslab.arena.sprt import Sprt, SprtConfig
from mctslab.arena.store import GameRecord, NotAStoreError, ResultStore, RunInfo
from mctslab.arena.tournament import (
    ArenaConfig,
    Entrant,
    PooledGames,
    check_max_games,
    check_players,
    default_workers,
    describe_rules,
    move_time_stats,
    pool_runs,
    run_arena,
    run_sprt,
    standings,
)
from mctslab.cli.app import (
    EXIT_INTERRUPTED,
    AllowCheatingOpt,
    CliError,
    DbOpt,
    GameArg,
    JsonOpt,
    OpeningsOpt,
    ParamOpt,
    ProgressOpt,
    ResumeOpt,
    TimeOpt,
    WorkersOpt,
    app,
    make_console,
    parse_pairs,
    parse_value,
    user_errors,
)
from mctslab.core.registry import make
from mctslab.core.text import counted
from mctslab.players.player import cheating_note

__all__ = ["arena", "ratings", "sprt"]

PlayerOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--player",
        help="A player NAME=SPEC, e.g. uct=mcts:iterations=2000 (repeatable).",
        show_default=False,
    ),
]
StrictOpt = Annotated[
    bool, typer.Option("--strict", help="A move over the time limit loses the game.")
]
MainTimeOpt = Annotated[
    float | None,
    typer.Option(
        "--main-time",
        help="A game clock: seconds each player has for the game (then --time-per-move a "
        "move as byo-yomi, if given; sudden death if not).",
    ),
]
ResignOpt = Annotated[
    float | None,
    typer.Option(
        "--resign-below",
        help="A searching player resigns (and loses) when its root value, -1 loss .. +1 win, "
        "falls below this after 100 simulations or more (mctslab gtp's default: -0.95). "
        "Default: never.",
    ),
]
SeedOpt = Annotated[int, typer.Option("--seed", help="Base seed of every game.")]
BackendOpt = Annotated[str, typer.Option("--backend", help="Where games run: local or ray.")]
RayAddressOpt = Annotated[
    str | None, typer.Option("--ray-address", help="Ray cluster address (default: start locally).")
]
# arena and ratings leave the default to compute_ratings, so that both pick the same
# anchor on the same store: the first player by name among those linked by results.
AnchorOpt = Annotated[
    str | None,
    typer.Option(
        "--anchor",
        help="Player whose Elo is 0 (default: the first by name of the largest group of "
        "players whose results link them, as in 'mctslab ratings').",
        show_default=False,
    ),
]


def parse_players(items: list[str] | None) -> tuple[Entrant, ...]:
    """``["a=mcts:c=1", "b=random"]`` -> entrants, in order."""
    out = []
    for item in items or []:
        name, eq, spec = item.partition("=")
        if not eq or not name.strip() or not spec.strip():
            raise CliError(f"bad --player {item!r}: write NAME=SPEC, e.g. uct=mcts:iterations=1000")
        out.append(Entrant(name.strip(), spec.strip()))
    return tuple(out)


def game_params(items: list[str] | None) -> tuple[tuple[str, Any], ...]:
    """``--param key=value`` items as the sorted pairs an :class:`ArenaConfig` takes."""
    return tuple(sorted((k, parse_value(v)) for k, v in parse_pairs(items, "--param").items()))


def open_store(path: Path, must_exist: bool = False) -> ResultStore:
    """The store at ``path`` (:class:`ResultStore` refuses what is not a regular file);
    ``must_exist``: a path with no store is an error, not a new store."""
    if must_exist and not path.exists():
        raise NotAStoreError(f"no results store at {str(path)!r}")
    return ResultStore(path)


def outcomes(records: list[GameRecord]) -> list[GameOutcome]:
    return [
        GameOutcome(r.seats[0], r.seats[1], r.score)
        for r in records
        if r.score is not None and len(r.seats) == 2
    ]


def _standing_text(records: list[GameRecord], names: list[str]) -> str:
    parts = [f"{n} {pts:g}/{g}" for n, pts, g in standings(records, names)[:4]]
    return "  ".join(parts)


def report(
    console: Console,
    records: list[GameRecord],
    rat: Ratings,
    title: str,
    cheating: list[str] | tuple[str, ...] = (),
) -> None:
    """Ratings, pairwise results, move times and problems of a set of games; ``cheating``
    names the players that were allowed to read hidden information."""
    table = Table(title=title)
    for col in ("rank", "player", "Elo", "95% interval", "W", "D", "L", "score", "games"):
        table.add_column(col, justify="left" if col == "player" else "right")
    for rank, p in enumerate(rat.players, 1):
        if p.elo is None:
            elo = {"+": "+inf", "-": "-inf"}.get(p.unbounded or "", "n/a")
            interval = "unbounded" if p.unbounded else "not connected"
        else:
            elo = f"{p.elo:+.0f}"
            interval = f"{p.low:+.0f} .. {p.high:+.0f}" if p.low is not None else ""
        table.add_row(
            str(rank), escape(p.name), elo, interval, str(p.wins), str(p.draws),
            str(p.losses), f"{p.score:.3f}", str(p.games),
        )  # fmt: skip
    console.print(table)
    names = [p.name for p in rat.players]
    if rat.pairwise:
        pw = Table(title="pairwise W/D/L (row against column)")
        pw.add_column("")
        for n in names:
            pw.add_column(escape(n), justify="right")
        for a in names:
            cells = []
            for b in names:
                wdl = rat.pairwise.get((a, b))
                cells.append("" if wdl is None else "/".join(map(str, wdl)))
            pw.add_row(escape(a), *cells)
        console.print(pw)
    times = move_time_stats(records)
    if times:
        tt = Table(title="move times (seconds)")
        for col in ("player", "moves", "p50", "p99", "max", "overruns", "worst overrun"):
            tt.add_column(col, justify="left" if col == "player" else "right")
        for n in names:
            t = times.get(n)
            if t is None:
                continue
            tt.add_row(
                escape(n), str(t.moves), f"{t.p50:.4f}", f"{t.p99:.4f}", f"{t.max:.4f}",
                str(t.overruns), f"{t.worst_overrun:.4f}" if t.overruns else "",
            )  # fmt: skip
        console.print(tt)
    capped = [r for r in records if r.termination == "length"]
    if capped:
        console.print(f"[bold]{len(capped)} game(s) ended at the length limit:[/bold]")
        for r in capped[:10]:
            console.print(f"  slot {r.slot}: {escape(r.error or '')}")
    errors = [r for r in records if r.termination not in SCORED]
    if errors:
        console.print(f"[bold]{len(errors)} game(s) ended by a forfeit:[/bold]")
        for r in errors[:10]:
            console.print(f"  slot {r.slot} ({r.termination}): {escape(r.error or '')}")
    if cheating:
        console.print(f"[bold]{escape(cheating_note(cheating))}[/bold]", soft_wrap=True)


def report_json(
    records: list[GameRecord], rat: Ratings, cheating: list[str] | tuple[str, ...] = ()
) -> dict[str, Any]:
    data = rat.to_dict()
    data["cheating"] = list(cheating)
    data["move_times"] = {n: vars(t) for n, t in move_time_stats(records).items()}
    data["forfeits"] = [
        {"slot": r.slot, "termination": r.termination, "error": r.error}
        for r in records
        if r.termination not in SCORED
    ]
    data["length_limit"] = [
        {"slot": r.slot, "note": r.error} for r in records if r.termination == "length"
    ]
    return data


@app.command()
def arena(
    game: GameArg,
    player: PlayerOpt = None,
    games: Annotated[int, typer.Option("--games", help="Games per pairing.")] = 2,
    time_per_move: TimeOpt = None,
    strict: StrictOpt = False,
    seed: SeedOpt = 0,
    openings: OpeningsOpt = 0,
    workers: WorkersOpt = None,
    db: DbOpt = Path("mctslab.db"),
    resume: ResumeOpt = False,
    backend: BackendOpt = "local",
    ray_address: RayAddressOpt = None,
    anchor: AnchorOpt = None,
    param: ParamOpt = None,
    progress: ProgressOpt = True,
    allow_cheating: AllowCheatingOpt = False,
    json_output: JsonOpt = False,
    main_time: MainTimeOpt = None,
    resign_below: ResignOpt = None,
) -> None:
    """Round-robin tournament between players; every game is stored as it finishes."""
    console = make_console(stderr=json_output)
    with user_errors():
        players = parse_players(player)
        values = game_params(param)
        config = ArenaConfig(
            game, players, games, values, time_per_move, strict, seed, openings,
            default_workers() if workers is None else workers, backend, ray_address, allow_cheating,
            main_time, resign_below,
        )  # fmt: skip
        if anchor is not None and anchor not in {p.name for p in players}:
            raise CliError(
                f"unknown --anchor {anchor!r}; players: {', '.join(p.name for p in players)}"
            )
        check_players(config, make(game, **dict(values)))
        with open_store(db) as store:
            names = [p.name for p in players]
            seen: list[GameRecord] = []
            with Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeRemainingColumn(),
                TextColumn("{task.fields[standing]}"),
                console=make_console(stderr=True),
                disable=not progress,
            ) as bar:
                task_id = bar.add_task(game, total=None, standing="")

                opened: dict[str, int] = {}

                def on_open(run_id: int, stored: int, total: int) -> None:
                    opened.update(run=run_id, stored=stored, total=total)

                def on_record(record: GameRecord, done: int, total: int) -> None:
                    seen.append(record)
                    opened["stored"] = done
                    bar.update(
                        task_id, completed=done, total=total, standing=_standing_text(seen, names)
                    )

                try:
                    result = run_arena(
                        config, store, resume=resume, on_record=on_record,
                        duplicates="refuse", on_open=on_open,
                    )  # fmt: skip
                except KeyboardInterrupt:
                    bar.stop()
                    print(interrupted_line(opened, db), file=sys.stderr)
                    raise typer.Exit(EXIT_INTERRUPTED) from None
            records = list(result.records)
            rat = compute_ratings(outcomes(records), anchor=anchor)
            specs = {p.name: p.spec for p in players}
            if json_output:
                data = report_json(records, rat, result.cheating)
                data.update(run=result.run_id, planned=result.planned, played_now=result.played_now)
                print(json.dumps(data, indent=2))
            else:
                console.print(
                    f"run {result.run_id} in {db}: {len(records)}/{result.planned} games "
                    f"({result.played_now} played now)"
                )
                cheats = [f"{n} ({specs[n]})" for n in result.cheating]
                report(console, records, rat, f"{game}: Elo by maximum likelihood", cheats)


def _run_line(run: RunInfo, duplicates: int = 0) -> str:
    rules = describe_rules(run.game, run.game_params, run.game_version)
    line = f"run {run.id}: {run.kind}, {run.played} games, {rules}"
    if run.status == "stopped":
        line += f"; unfinished: stopped ({run.stop_reason or 'no reason given'})"
    elif run.unfinished:
        line += "; unfinished (killed, or still playing)"
    if duplicates:
        line += f"; {duplicates} duplicate games"
    return line


def _plural(n: int, word: str) -> str:
    return counted(n, word)


#: ``ratings`` lists each pooled run up to this many; beyond, one line a kind of run.
LISTED_RUNS = 8


def _runs_by_kind(pool: PooledGames) -> list[str]:
    """``32 train-eval runs (ids 1 to 32), 640 games, connect_four; 1 unfinished (run
    32)``: the pooled runs summed by kind (``--json`` lists each)."""
    kinds: dict[str, list[RunInfo]] = {}
    for r in pool.runs:
        kinds.setdefault(r.kind, []).append(r)
    lines = []
    for kind, runs in kinds.items():
        ids = sorted(r.id for r in runs)
        games = sum(r.played for r in runs)
        rules = sorted({describe_rules(r.game, r.game_params, r.game_version) for r in runs})
        line = (
            f"{_plural(len(runs), kind + ' run')} (ids {ids[0]} to {ids[-1]}), "
            f"{_plural(games, 'game')}, {'; '.join(rules)}"
        )
        unfinished = [r.id for r in runs if r.status == "stopped" or r.unfinished]
        if unfinished:
            line += f"; {len(unfinished)} unfinished ({', '.join(map(str, unfinished))})"
        dup = sum(pool.duplicates.get(r.id, 0) for r in runs)
        if dup:
            line += f"; {_plural(dup, 'duplicate game')}"
        lines.append(line)
    lines.append("(each run: mctslab ratings --json, or --run ID)")
    return lines


def _merge_text(pool: PooledGames, kept: bool) -> str:
    """``merged 480 duplicate games from 2 runs; 1 unfinished run``."""
    dup = sum(pool.duplicates.values())
    runs = _plural(len(pool.duplicates), "run")
    if not dup:
        parts = ["no duplicate games"]
    elif kept:
        parts = [f"kept {dup} duplicate games from {runs} (--keep-duplicates: counted twice)"]
    else:
        parts = [f"merged {dup} duplicate games from {runs}"]
    if pool.unfinished:
        ids = ", ".join(str(r.id) for r in pool.unfinished)
        parts.append(f"{_plural(len(pool.unfinished), 'unfinished run')} ({ids})")
    return "; ".join(parts)


def interrupted_line(opened: dict[str, int], db: Path) -> str:
    """What Ctrl-C in ``arena`` says: the games stored and how to go on."""
    if "run" not in opened:
        return "interrupted before the run was opened: nothing was stored"
    return (
        f"interrupted: run {opened['run']} in {str(db)!r} holds {opened['stored']} of its "
        f"{opened['total']} games; the same command with --resume plays the rest"
    )


def _pool_text(pool: PooledGames, kept: bool = False) -> list[str]:
    """Which runs were pooled, the duplicates merged, and the names that stand for
    several players."""
    lines = [f"pooled {_plural(len(pool.runs), 'run')}:"]
    if len(pool.runs) <= LISTED_RUNS:
        lines += [f"  {_run_line(r, pool.duplicates.get(r.id, 0))}" for r in pool.runs]
    else:  # a training run's store holds a run an evaluation: one line a kind
        lines += [f"  {line}" for line in _runs_by_kind(pool)]
    lines.append(_merge_text(pool, kept))
    by_label = {p.label: p for p in pool.players}
    for name, labels in pool.shared_names.items():
        each = "; ".join(
            f"{label} in run(s) {', '.join(map(str, by_label[label].runs))}" for label in labels
        )
        lines.append(f"note: {name!r} names {len(labels)} different players, rated apart: {each}")
    return lines


@app.command()
def ratings(
    db: DbOpt = Path("mctslab.db"),
    game: Annotated[
        str | None, typer.Option("--game", help="Only this game (needed if the store has several).")
    ] = None,
    run: Annotated[int | None, typer.Option("--run", help="Only this run id.")] = None,
    anchor: AnchorOpt = None,
    keep_duplicates: Annotated[
        bool,
        typer.Option(
            "--keep-duplicates",
            help="Count every stored game, also a game an earlier run already holds (the "
            "same seats, seed and moves); by default each game counts once.",
        ),
    ] = False,
    json_output: JsonOpt = False,
) -> None:
    """Elo ratings (Bradley-Terry maximum likelihood, 95% intervals) from a results store.

    Every run of the game is pooled (or only --run); a player is its name, its spec as
    played and the game's rules (parameters, version): a name used for two specs is
    rated as two players. Each game counts once (a run played again holds the same
    games): the duplicates merged and the unfinished runs are named.
    """
    with user_errors():
        with open_store(db, must_exist=True) as store:
            names = store.games_in_store()
            if run is not None:
                runs = [r for r in store.runs() if r.id == run]
                if not runs:
                    raise CliError(f"no run {run} in {db}")
            else:
                if game is None and len(names) > 1:
                    raise CliError(
                        f"{db} holds results of several games ({', '.join(names)}): "
                        "choose one with --game"
                    )
                if game is not None and game not in names:
                    raise CliError(f"no results for {game!r} in {db}; games: {', '.join(names)}")
                chosen = game or (names[0] if names else None)
                runs = store.runs(chosen) if chosen is not None else []
            pool = pool_runs(store, runs, keep_duplicates)
        records = list(pool.records)
        players = sorted({n for r in records for n in r.seats})
        if anchor is not None and anchor not in players:
            shared = pool.shared_names.get(anchor)
            if shared:
                raise CliError(
                    f"--anchor {anchor!r} names {len(shared)} different players here: "
                    f"choose one of {', '.join(repr(x) for x in shared)}"
                )
            raise CliError(f"unknown --anchor {anchor!r}; players: {', '.join(players)}")
        rat = compute_ratings(outcomes(records), anchor=anchor)
        if json_output:
            data = report_json(records, rat, pool.cheating)
            data["runs"] = [
                {"id": r.id, "kind": r.kind, "games": r.played, "game": r.game,
                 "game_params": r.game_params, "game_version": r.game_version,
                 "status": r.status, "stop_reason": r.stop_reason,
                 "duplicates": pool.duplicates.get(r.id, 0)}
                for r in pool.runs
            ]  # fmt: skip
            data["duplicates"] = {
                "games": sum(pool.duplicates.values()),
                "runs": sorted(pool.duplicates),
                "counted": keep_duplicates,
            }
            data["unfinished_runs"] = [r.id for r in pool.unfinished]
            data["specs"] = {p.label: p.to_dict() for p in pool.players}
            data["shared_names"] = {n: list(labels) for n, labels in pool.shared_names.items()}
            print(json.dumps(data, indent=2))
        else:
            console = make_console()
            for line in _pool_text(pool, keep_duplicates):
                console.print(escape(line), soft_wrap=True)
            specs = {p.label: p.spec for p in pool.players}
            cheats = [x if specs[x] in x else f"{x} ({specs[x]})" for x in pool.cheating]
            report(console, records, rat, "Elo by maximum likelihood", cheats)


@app.command()
def sprt(
    game: GameArg,
    player: PlayerOpt = None,
    elo0: Annotated[float, typer.Option("--elo0", help="H0: A is this much stronger.")] = 0.0,
    elo1: Annotated[float, typer.Option("--elo1", help="H1: A is this much stronger.")] = 10.0,
    alpha: Annotated[float, typer.Option("--alpha", help="False positive rate.")] = 0.05,
    beta: Annotated[float, typer.Option("--beta", help="False negative rate.")] = 0.05,
    max_games: Annotated[
        int, typer.Option("--max-games", help="Stop undecided after this many games.")
    ] = 20_000,
    time_per_move: TimeOpt = None,
    strict: StrictOpt = False,
    seed: SeedOpt = 0,
    openings: OpeningsOpt = 0,
    workers: WorkersOpt = None,
    db: DbOpt = Path("mctslab.db"),
    resume: ResumeOpt = False,
    backend: BackendOpt = "local",
    ray_address: RayAddressOpt = None,
    param: ParamOpt = None,
    progress: ProgressOpt = True,
    allow_cheating: AllowCheatingOpt = False,
    json_output: JsonOpt = False,
) -> None:
    """Sequential probability ratio test: is player A stronger than B by elo1 rather than elo0?"""
    with user_errors():
        players = parse_players(player)
        if len(players) != 2:
            raise CliError(f"sprt takes exactly two --player (A then B), got {len(players)}")
        values = game_params(param)
        config = ArenaConfig(
            game, players, 2, values, time_per_move, strict, seed, openings,
            default_workers() if workers is None else workers, backend, ray_address, allow_cheating,
        )  # fmt: skip
        test = Sprt(SprtConfig(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta))
        check_max_games(max_games)
        check_players(config, make(game, **dict(values)))
        with (
            open_store(db) as store,
            Progress(
                TextColumn("[bold]SPRT"),
                TextColumn("{task.fields[line]}"),
                console=make_console(stderr=True),
                disable=not progress,
            ) as bar,
        ):
            task_id = bar.add_task("sprt", total=None, line="")

            def on_pair(t: Any, pairs: int) -> None:
                bar.update(
                    task_id,
                    line=f"pairs {pairs}  LLR {t.llr:+.3f} in [{t.lower:+.3f}, {t.upper:+.3f}]",
                )

            out = run_sprt(
                config, test, store, max_games, resume=resume, on_pair=on_pair,
                duplicates="refuse",
            )  # fmt: skip
        status = dict(out.status)
        status.update(
            run=out.run_id, pairs=out.pairs, decision=out.decision, cheating=list(out.cheating)
        )
        if json_output:
            print(json.dumps(status, indent=2))
        else:
            a, b = players[0].name, players[1].name
            verdict = {
                "H1": f"H1 accepted: {a} is stronger than {b} by about {elo1:g} Elo or more",
                "H0": f"H0 accepted: {a} is not stronger than {b} by {elo1:g} Elo "
                f"(at most about {elo0:g})",
                None: f"no decision after {2 * out.pairs} games (--max-games {max_games})",
            }[out.decision]
            print(verdict)
            print(
                f"{2 * out.pairs} games in {out.pairs} pairs; LLR {test.llr:+.3f} "
                f"(bounds {test.lower:+.3f}, {test.upper:+.3f}); run {out.run_id} in {db}"
            )
            specs = {p.name: p.spec for p in players}
            if out.cheating:
                print(cheating_note([f"{n} ({specs[n]})" for n in out.cheating]))
    if out.decision is None:
        sys.exit(1)
