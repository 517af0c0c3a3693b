"""``mctslab selfplay``: an MCTS player plays itself; every move's position, root visits
and the outcome go to a ``.npz`` dataset (:mod:`mctslab.analysis.dataset`)::

    mctslab selfplay tic_tac_toe --player puct:simulations=200,temperature=1 \\
        --games 100 --out selfplay.npz --seed 1 --workers 4
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from mctslab.analysis.dataset import (
    check_dataset_path,
    check_selfplay,
    record_selfplay,
    write_dataset,
)
from mctslab.arena.tournament import MAX_GAMES, WORKERS_PER_CORE, max_workers
from mctslab.cli.app import (
    CliError,
    GameArg,
    ParamOpt,
    ProgressOpt,
    SeedOpt,
    app,
    check_output_file,
    make_console,
    parse_pairs,
    parse_value,
    user_errors,
)
from mctslab.core.registry import make

__all__ = ["selfplay"]


@app.command()
def selfplay(
    game: GameArg,
    player: Annotated[
        str,
        typer.Option(
            "--player", help="The player of every seat: mcts:... or puct:...", show_default=False
        ),
    ],
    out: Annotated[
        Path, typer.Option("--out", help="The dataset file to write (.npz).", show_default=False)
    ],
    games: Annotated[int, typer.Option("--games", help="Games to play.")] = 10,
    seed: SeedOpt = 0,
    workers: Annotated[
        int, typer.Option("--workers", help="Games played at once (worker processes).")
    ] = 1,
    max_moves: Annotated[
        int | None,
        typer.Option(
            "--max-moves", help="Stop a game after this many moves (outcome 0).", show_default=False
        ),
    ] = None,
    param: ParamOpt = None,
    progress: ProgressOpt = True,
) -> None:
    """Self-play: record every position with the search's visits and the game's outcome."""
    with user_errors():
        if games < 1:
            raise CliError(f"--games must be a positive integer, got {games}")
        if games > MAX_GAMES:
            raise CliError(f"--games must be at most {MAX_GAMES:,}, got {games:,}")
        if workers < 1:
            raise CliError(f"--workers must be a positive integer, got {workers}")
        if workers > (most := max_workers()):
            raise CliError(
                f"--workers must be at most {most} ({WORKERS_PER_CORE} per core), got {workers:,}"
            )
        workers = min(workers, games)  # a fork pool starts every worker at once
        if max_moves is not None and max_moves < 1:
            raise CliError(f"--max-moves must be a positive integer, got {max_moves}")
        check_dataset_path(out)
        check_output_file(out, "--out")
        values = {k: parse_value(v) for k, v in parse_pairs(param, "--param").items()}
        # Every refusal comes now, before the progress bar and the games.
        check_selfplay(make(game, **values), player, games, max_moves)
        with Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=make_console(stderr=True),
            disable=not progress,
        ) as bar:
            task_id = bar.add_task(f"{game} self-play", total=games)

            def on_game(done: int, total: int) -> None:
                bar.update(task_id, completed=done, total=total)

            data = record_selfplay(
                game,
                player,
                games,
                params=values,
                seed=seed,
                workers=workers,
                max_moves=max_moves,
                on_game=on_game,
            )
        write_dataset(out, data.arrays, data.meta)
    truncated = len(data.meta["truncated"])
    cut = f" ({truncated} cut short by --max-moves)" if truncated else ""
    print(f"{data.meta['positions']} positions from {games} games{cut} written to {out}")
