"""``mctslab optimize``: single-player search on a puzzle or optimisation problem.

::

    mctslab optimize tsp -p instance=eil51 --search nrpa:level=3 --time 60 --seeds 5 \\
        --out best.json --tour best.tour --plot curve.png
    mctslab optimize samegame -p seed=3 --search sp-mcts --search nmcs:level=2 --time 10
    mctslab optimize tsp -p instance=random:12:1 --search exact --search nn --search sa --time 1

Each ``--search`` runs once per seed (``--seed`` onwards, ``--seeds`` of them) with the
budget (``--time`` seconds and/or ``--playouts``; 10 s when neither is given). On a
terminal a live line on stderr shows each search's best score and when it was found,
rewritten in place; elsewhere (a file, a pipe) each run writes one plain line when it
ends. A run names what it counts: playouts, SA's 2-opt moves, the GA's generations
(nothing for nn, 2opt, exact and greedy, which build one tour). The table gives, per
search, the best and the mean over seeds with its 95% interval ("1 seed, no interval"
for one seed), the gap to a known optimum (the shipped TSPLIB instances' proven optima),
the mean time to the best and the playouts (moves, generations) a second.

The table is printed first, then the files: ``--out`` the best sequence found (JSON:
game, parameters, search, seed, score, sequence, when it was found), ``--tour`` a TSPLIB
``.tour`` (tsp), ``--svg`` a drawing (games that draw one), ``--plot`` the best score
against time for every search and seed (PNG). Each is written whole or not at all (a
temporary file beside it, renamed over it), so a full disk leaves the file that was
there intact; an output that is a FIFO, a device or a directory is refused before the
runs. User errors, a file that cannot be written among them, print one ``error:`` line
and exit 2.
"""

from __future__ import annotations

import json
import math
import statistics
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from mctslab.arena.ratings import mean_interval
from mctslab.cli.app import (
    CliError,
    GameArg,
    JsonOpt,
    MovesOpt,
    ParamOpt,
    app,
    check_output_file,
    load_position,
    make_console,
    parse_pairs,
    parse_value,
    user_errors,
)
from mctslab.core.declarations import known_optimum
from mctslab.core.files import atomic_write
from mctslab.core.game import State
from mctslab.core.text import counted
from mctslab.players.optimizers import Optimizer, parse_optimizer
from mctslab.search.single.result import Improvement, OptimizeResult

__all__ = ["optimize"]

#: The budget when neither --time nor --playouts is given (seconds a run).
DEFAULT_SECONDS = 10.0


def _interval(scores: list[float]) -> tuple[float | None, float | None]:
    """The mean's 95% interval; ``(None, None)`` for one seed (no spread to measure)."""
    if len(scores) < 2:
        return (None, None)
    _, low, high = mean_interval(scores)
    return (low, high)


def _summary(
    opt: Optimizer, results: list[tuple[int, OptimizeResult]], optimum: float | None
) -> dict[str, Any]:
    scores = [r.score for _, r in results]
    best_seed, best = max(results, key=lambda sr: sr[1].score)
    low, high = _interval(scores)
    seconds = sum(r.seconds for _, r in results)
    counts = opt.counts
    rate = sum(r.playouts for _, r in results) / seconds if seconds and counts else None
    row: dict[str, Any] = {
        "search": opt.spec,
        "seeds": len(results),
        "best": best.score,
        "best_seed": best_seed,
        "mean": statistics.fmean(scores),
        "low": low,
        "high": high,
        "mean_found_seconds": statistics.fmean(r.found_seconds for _, r in results),
        "counts": counts,
        "playouts_per_second": rate,
        "runs": [{"seed": s, **r.to_dict()} for s, r in results],
    }
    if optimum is not None and optimum != 0:
        row["optimum"] = optimum
        row["best_gap"] = (optimum - best.score) / abs(optimum)
        row["mean_gap"] = (optimum - row["mean"]) / abs(optimum)
    return row


class _Live:
    """The live line on stderr. On a terminal, one line rewritten in place (a carriage
    return) at each new best, the run's last line kept. Anywhere else (a file, a pipe, a
    CI log) carriage returns would make one giant line, so there each run writes one
    plain line when it ends. What a run counts is named: playouts, SA's moves, the GA's
    generations, or nothing for a tour built once (nn, 2opt, exact, greedy)."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.tty = enabled and sys.stderr.isatty()
        self.width = 0  # of the line now on the terminal, to blank what a shorter one leaves

    def _show(self, text: str, end: str) -> None:
        if self.tty:
            text, self.width = "\r" + text.ljust(self.width), len(text)
        print(text, end=end, file=sys.stderr, flush=True)
        if end:
            self.width = 0

    def improved(self, opt: Optimizer, seed: int, found: Improvement) -> None:
        if self.tty:
            line = f"{opt.spec} seed {seed}: best {found.score:g} at {found.seconds:.2f} s"
            if opt.counts == "playouts":
                line += f" ({counted(found.playouts, 'playout')})"
            self._show(line, end="")

    def ended(self, opt: Optimizer, seed: int, result: OptimizeResult) -> None:
        if not self.enabled:
            return
        line = f"{opt.spec} seed {seed}: best {result.score:g}"
        if opt.counts is not None:
            line += f", found at {result.found_seconds:.2f} s; "
            line += counted(result.playouts, opt.counts[:-1], opt.counts)
        self._show(line + f" in {result.seconds:.2f} s", end="\n")


def _run_searches(
    specs: list[Optimizer], state: State, seeds: range, live: _Live, optimum: float | None,
    budget: dict[str, Any],
) -> tuple[list[dict[str, Any]], tuple[str, int, OptimizeResult]]:  # fmt: skip
    """Every search with every seed: the table's rows and the best run."""
    rows: list[dict[str, Any]] = []
    best: tuple[str, int, OptimizeResult] | None = None
    for opt in specs:
        results: list[tuple[int, OptimizeResult]] = []
        for s in seeds:

            def shout(found: Improvement, opt: Optimizer = opt, s: int = s) -> None:
                live.improved(opt, s, found)

            result = opt.run(state, seed=s, on_improve=shout, **budget)
            live.ended(opt, s, result)
            results.append((s, result))
            if best is None or result.score > best[2].score:
                best = (opt.spec, s, result)
        rows.append(_summary(opt, results, optimum))
    assert best is not None
    return rows, best


def _check_outputs(paths: dict[str, Path | None]) -> None:
    """Refuse now what would fail (or hang) at the end of the runs: an output in a
    missing or read-only directory, a directory, anything but a regular file where one
    exists (a FIFO would block the write forever, a device is not a result's place), and
    two outputs naming one file."""
    seen: dict[Path, str] = {}
    for what, path in paths.items():
        if path is None:
            continue
        check_output_file(path, what)
        if path.exists() and not path.is_file():
            raise CliError(
                f"{what} {str(path)!r} exists and is not a regular file (a FIFO, a socket or "
                "a device): name a file"
            )
        key = path.resolve()
        if key in seen:
            raise CliError(f"{seen[key]} and {what} name the same file {str(path)!r}")
        seen[key] = what


def _outputs(
    game: Any, state: State, params: dict[str, Any], best: tuple[str, int, OptimizeResult],
    out: Path | None, tour: Path | None, svg: Path | None,
) -> list[tuple[str, Path, str]]:  # fmt: skip
    """The text of each file asked for: ``(option, path, text)``."""
    spec, seed, result = best
    final = state.clone()
    for a in result.sequence:
        final.apply_action(a)
    files: list[tuple[str, Path, str]] = []
    if out is not None:
        data = {
            "game": game.info.name,
            "params": params,
            "moves": state.history(),
            "search": spec,
            "seed": seed,
            **result.to_dict(),
        }
        files.append(("--out", out, json.dumps(data, indent=1) + "\n"))
    if tour is not None:
        from mctslab.games.tsp import TSP
        from mctslab.games.tsp.tsplib import format_tour

        assert isinstance(game, TSP)
        cities = game.tour(final)  # type: ignore[arg-type]
        text = format_tour(cities, f"{game.instance}.{spec}", f"length {-result.score:g}")
        files.append(("--tour", tour, text))
    if svg is not None:
        files.append(("--svg", svg, game.to_svg(final)))
    return files


def _write_all(files: list[tuple[str, Path, str | bytes]]) -> None:
    """Write each file whole or not at all (a temporary file beside it, then renamed
    over it: :func:`mctslab.core.files.atomic_write`), so that a full disk leaves the
    file that was there as it was. Every file is tried; the failures are one error."""
    failed = []
    for what, path, data in files:
        try:
            atomic_write(path, data)
        except OSError as err:
            failed.append(f"{what} {str(path)!r}: {err.strerror or err}")
    if failed:
        raise CliError(
            "cannot write " + "; ".join(failed) + " (a file already there is left as it was)"
        )


def _plot(rows: list[dict[str, Any]], name: str, optimum: float | None) -> bytes:
    """The best score against time for every search and seed, as a PNG's bytes."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for i, row in enumerate(rows):
        color = f"C{i % 10}"
        for k, run in enumerate(row["runs"]):
            pts = run["improvements"]
            if not pts:
                continue
            xs = [max(p[0], 1e-4) for p in pts] + [run["seconds"]]
            ys = [p[2] for p in pts] + [pts[-1][2]]
            ax.step(xs, ys, where="post", color=color, alpha=0.8, lw=1.2,
                    label=row["search"] if k == 0 else None)  # fmt: skip
    if optimum is not None:
        ax.axhline(optimum, color="black", ls="--", lw=0.8, label="proven optimum")
    ax.set_xscale("log")
    ax.set_xlabel("seconds")
    ax.set_ylabel("best score (higher is better)")
    ax.set_title(f"{name}: best score found against time")
    ax.legend(fontsize="small")
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=120)
    plt.close(fig)
    return buffer.getvalue()


def _table(game: str, seeds: int, budget: dict[str, Any], rows: list[dict[str, Any]]) -> Table:
    time_, playouts = budget["time"], budget["playouts"]
    title = f"{escape(game)}: best of {counted(seeds, 'seed')}, " + (
        f"{time_:g} s" if time_ is not None else ""
    ) + (f" {playouts:,} playouts" if playouts else "")  # fmt: skip
    table = Table(title=title)
    for col in ("search", "best", "mean [95%]", "gap best/mean", "to best (s)", "per second"):
        table.add_column(col, justify="left" if col == "search" else "right")
    for row in rows:
        gap = f"{row['best_gap']:.2%} / {row['mean_gap']:.2%}" if "best_gap" in row else "-"
        rate = row["playouts_per_second"]
        mean = (
            f"{row['mean']:g} [{row['low']:.4g}, {row['high']:.4g}]"
            if row["low"] is not None
            else f"{row['mean']:g} (1 seed, no interval)"
        )
        table.add_row(
            escape(row["search"]),
            f"{row['best']:g}",
            mean,
            gap,
            f"{row['mean_found_seconds']:.2f}",
            "-" if rate is None else f"{rate:,.0f} {row['counts']}",
        )
    return table


@app.command()
def optimize(
    game: GameArg,
    param: ParamOpt = None,
    moves: MovesOpt = "",
    search: Annotated[
        list[str] | None,
        typer.Option(
            "--search",
            help="A search spec (repeatable): nrpa:level=2, nmcs:level=2, "
            "sp-mcts, random, greedy; tsp: nn, 2opt, sa, ga, exact.",
        ),
    ] = None,
    time_: Annotated[
        float | None, typer.Option("--time", help="Seconds a run (default 10 without --playouts).")
    ] = None,
    playouts: Annotated[int | None, typer.Option("--playouts", help="Playouts a run.")] = None,
    target: Annotated[
        float | None,
        typer.Option("--target", help="Stop a run once its best scores at least this."),
    ] = None,
    stop_at_optimum: Annotated[
        bool,
        typer.Option(
            "--stop-at-optimum", help="Stop a run once it reaches the instance's proven optimum."
        ),
    ] = False,
    seeds: Annotated[int, typer.Option("--seeds", help="Runs per search, seeds from --seed.")] = 1,
    seed: Annotated[int, typer.Option("--seed", help="The first seed.")] = 0,
    out: Annotated[
        Path | None, typer.Option("--out", help="Write the best sequence (JSON).")
    ] = None,
    tour: Annotated[Path | None, typer.Option("--tour", help="tsp: write the best tour.")] = None,
    svg: Annotated[Path | None, typer.Option("--svg", help="Draw the best solution.")] = None,
    plot: Annotated[
        Path | None, typer.Option("--plot", help="Best score against time (PNG).")
    ] = None,
    live: Annotated[bool, typer.Option("--live/--quiet", help="A live line on stderr.")] = True,
    json_output: JsonOpt = False,
) -> None:
    """Search a single-player game for its best sequence of moves (a puzzle's best
    solution, an optimisation problem's best answer): NRPA, NMCS, SP-MCTS and baselines."""
    with user_errors():
        g, state = load_position(game, param, moves)
        params = {k: parse_value(v) for k, v in parse_pairs(param, "--param").items()}
        if g.info.num_players != 1:
            raise CliError(
                f"{game} has {g.info.num_players} players: optimize searches single-player "
                "games (mctslab games lists them); use mctslab search or play"
            )
        specs: list[Optimizer] = [parse_optimizer(s) for s in (search or ["nrpa:level=2"])]
        if not 1 <= seeds <= 10_000:
            raise CliError(f"--seeds must be in [1, 10000], got {seeds}")
        if time_ is not None and not (0 < time_ < math.inf):
            raise CliError(f"--time must be a positive number of seconds, got {time_}")
        if playouts is not None and playouts < 1:
            raise CliError(f"--playouts must be >= 1, got {playouts}")
        if time_ is None and playouts is None:
            time_ = DEFAULT_SECONDS
        outputs = {"--out": out, "--tour": tour, "--svg": svg, "--plot": plot}
        _check_outputs(outputs)
        if tour is not None and g.info.name != "tsp":
            raise CliError("--tour writes a travelling-salesman tour: the game must be tsp")
        if svg is not None and not hasattr(g, "to_svg"):
            raise CliError(f"--svg: {game} has no drawing")
        optimum = known_optimum(g)
        if target is not None and not math.isfinite(target):
            raise CliError(f"--target must be a finite number, got {target}")
        if stop_at_optimum:
            if optimum is None:
                raise CliError(f"--stop-at-optimum: no proven optimum is known for this {game}")
            if target is not None:
                raise CliError("give --target or --stop-at-optimum, not both")
            target = optimum
        budget = {"time": time_, "playouts": playouts, "target": target}
        rows, best = _run_searches(
            specs, state, range(seed, seed + seeds), _Live(live), optimum, budget
        )
    # The results first: a file that cannot be written must not cost the table.
    if json_output:
        print(json.dumps({"game": game, "params": params, "optimum": optimum, "rows": rows}))
    else:
        console = make_console()
        console.print(_table(game, seeds, budget, rows))
        if optimum is not None:
            console.print(f"proven optimum: {optimum:g}")
    with user_errors():
        files: list[tuple[str, Path, str | bytes]] = []
        files += _outputs(g, state, params, best, out, tour, svg)
        if plot is not None:
            files.append(("--plot", plot, _plot(rows, game, optimum)))
        _write_all(files)
