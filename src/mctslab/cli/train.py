"""``mctslab train``: the AlphaZero loop (:mod:`mctslab.train`), resumable::

    mctslab train tic_tac_toe --out runs/ttt --generations 10
    mctslab train connect_four --out runs/c4 --minutes 85 --generations 200 \\
        --games-per-generation 256 --simulations 100
    mctslab train connect_four --out runs/c4 --minutes 85 --generations 200 --resume
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from mctslab.cli.app import (
    CliError,
    GameArg,
    ParamOpt,
    ProgressOpt,
    app,
    make_console,
    parse_pairs,
    parse_value,
    user_errors,
)

__all__ = ["train"]

Int = Annotated[int | None, typer.Option(show_default=False)]


def _opt(name: str, help_text: str) -> Any:
    return typer.Option(name, help=help_text, show_default=False)


@app.command()
def train(
    game: GameArg,
    out: Annotated[Path, _opt("--out", "The run directory (checkpoints, metrics, store).")],
    resume: Annotated[
        bool,
        typer.Option(
            "--resume",
            help="Continue the run in --out from its last generation, with its options "
            "(--generations, --minutes, --workers, --threads, --device as it last ran; "
            "give them to change them; a gtp: --baseline must be given again).",
        ),
    ] = False,
    generations: Annotated[int | None, _opt("--generations", "Generations in all [10].")] = None,
    minutes: Annotated[
        float | None, _opt("--minutes", "Wall-time budget of this invocation, in minutes.")
    ] = None,
    games_per_generation: Annotated[
        int | None, _opt("--games-per-generation", "Self-play games a generation [64].")
    ] = None,
    simulations: Annotated[
        int | None, _opt("--simulations", "PUCT simulations a move [100].")
    ] = None,
    parallel_games: Annotated[
        int | None, _opt("--parallel-games", "Games played at once per worker [64].")
    ] = None,
    workers: Annotated[int | None, _opt("--workers", "Self-play worker processes [1].")] = None,
    threads: Annotated[
        int | None, _opt("--threads", "PyTorch threads (default: all cores, 1 per worker).")
    ] = None,
    seed: Annotated[int | None, _opt("--seed", "Seed of every random choice [0].")] = None,
    network: Annotated[str | None, _opt("--network", "auto, resnet or mlp [auto].")] = None,
    channels: Annotated[int | None, _opt("--channels", "Residual tower width [32].")] = None,
    blocks: Annotated[int | None, _opt("--blocks", "Residual blocks [3].")] = None,
    hidden: Annotated[int | None, _opt("--hidden", "Value head / MLP width [64].")] = None,
    layers: Annotated[int | None, _opt("--layers", "MLP hidden layers [2].")] = None,
    c: Annotated[float | None, _opt("--c", "PUCT exploration constant [1.25].")] = None,
    noise_alpha: Annotated[float | None, _opt("--noise-alpha", "Dirichlet alpha [1.0].")] = None,
    noise_fraction: Annotated[
        float | None, _opt("--noise-fraction", "Weight of the root noise [0.25].")
    ] = None,
    temperature_plies: Annotated[
        int | None, _opt("--temperature-plies", "Plies with moves drawn by visits [8].")
    ] = None,
    resign_threshold: Annotated[
        float | None, _opt("--resign-threshold", "Resign below -T root value (default: never).")
    ] = None,
    resign_playout: Annotated[
        float | None, _opt("--resign-playout", "Share of games played out to check [0.1].")
    ] = None,
    max_moves: Annotated[
        int | None, _opt("--max-moves", "Cut games after this many moves.")
    ] = None,
    buffer: Annotated[
        int | None, _opt("--buffer", "Replay buffer: last N positions [50000].")
    ] = None,
    batch_size: Annotated[int | None, _opt("--batch-size", "Minibatch size [256].")] = None,
    replay_ratio: Annotated[
        float | None, _opt("--replay-ratio", "Samples drawn per new position [4].")
    ] = None,
    optimizer: Annotated[str | None, _opt("--optimizer", "adam or sgd [adam].")] = None,
    lr: Annotated[float | None, _opt("--lr", "Learning rate [0.001].")] = None,
    momentum: Annotated[float | None, _opt("--momentum", "SGD momentum [0.9].")] = None,
    l2: Annotated[float | None, _opt("--l2", "L2 weight c of c*||theta||^2 [0.0001].")] = None,
    eval_games: Annotated[
        int | None, _opt("--eval-games", "Games against each opponent (0: none) [10].")
    ] = None,
    eval_every: Annotated[
        int | None, _opt("--eval-every", "Evaluate every N generations [1].")
    ] = None,
    eval_simulations: Annotated[
        int | None, _opt("--eval-simulations", "The network's simulations in evaluation.")
    ] = None,
    eval_openings: Annotated[
        int | None,
        _opt("--eval-openings", "Random opening plies, drawn for each evaluation game [2]."),
    ] = None,
    baseline: Annotated[
        list[str] | None,
        _opt("--baseline", "NAME=SPEC, repeatable (default: uct100, uct1000, minimax4)."),
    ] = None,
    device: Annotated[str | None, _opt("--device", "auto, cpu or cuda [auto].")] = None,
    from_dataset: Annotated[
        Path | None, _opt("--from-dataset", "Pretrain on a `mctslab selfplay` .npz file.")
    ] = None,
    pretrain_steps: Annotated[
        int | None, _opt("--pretrain-steps", "Steps on --from-dataset (default: 2 epochs).")
    ] = None,
    value_mix: Annotated[
        float | None,
        _opt("--value-mix", "Value target (1-m)*outcome + m*root value, m in [0, 1] [0]."),
    ] = None,
    lr_schedule: Annotated[
        str | None, _opt("--lr-schedule", "constant or cosine (to --lr-min) [constant].")
    ] = None,
    lr_min: Annotated[
        float | None, _opt("--lr-min", "The cosine schedule's last learning rate [1e-05].")
    ] = None,
    init: Annotated[
        str | None,
        _opt("--init", "Start from this network's weights (a checkpoint or a shipped name)."),
    ] = None,
    param: ParamOpt = None,
    progress: ProgressOpt = True,
) -> None:
    """AlphaZero training: self-play, learning, checkpoints and evaluation, generation by
    generation; kill it at any moment and continue with --resume."""
    given = dict(locals())  # the parameters as given: None where an option was not
    with user_errors():
        config_type, run_training = _training()
        values, params = _config_values(given, baseline, param)
        config = config_type(game=game, game_params=tuple(sorted(params.items())), **values)
        if resume and from_dataset is not None:
            raise CliError("--from-dataset starts a run; a resumed run has its data already")
        if resume and init is not None:
            raise CliError("--init starts a run; a resumed run has its own network")
        console = make_console(stderr=True)
        display = _Display(console, progress)
        result = run_training(
            config,
            out,
            resume=resume,
            given=set(values) | ({"game_params"} if params else set()),
            on_event=display.event,
            command=["mctslab", "train", *sys.argv[2:]] if sys.argv[1:2] == ["train"] else [],
        )
        display.close()
    print(
        f"{result.generation} generations in {out} ({result.wall_seconds / 60:.1f} min in all; "
        f"stopped by {result.stopped_by}); latest network: {result.checkpoint()}"
    )


#: The options of ``train`` that are fields of ``TrainConfig`` under the same name.
_CONFIG_OPTIONS = (
    "generations",
    "minutes",
    "games_per_generation",
    "simulations",
    "parallel_games",
    "workers",
    "threads",
    "seed",
    "network",
    "channels",
    "blocks",
    "hidden",
    "layers",
    "c",
    "noise_alpha",
    "noise_fraction",
    "temperature_plies",
    "resign_threshold",
    "resign_playout",
    "max_moves",
    "buffer",
    "batch_size",
    "replay_ratio",
    "optimizer",
    "lr",
    "momentum",
    "l2",
    "eval_games",
    "eval_every",
    "eval_simulations",
    "eval_openings",
    "device",
    "from_dataset",
    "pretrain_steps",
    "value_mix",
    "lr_schedule",
    "lr_min",
    "init",
)


def _training() -> tuple[Any, Any]:
    """``TrainConfig`` and ``train`` of :mod:`mctslab.train`, or a one-line error
    without PyTorch."""
    try:
        from mctslab.train import TrainConfig
        from mctslab.train import train as run_training
    except ImportError as err:
        raise CliError(f"training needs PyTorch: pip install 'mctslab[nn]' ({err})") from None
    return TrainConfig, run_training


def _config_values(
    given: dict[str, Any], baseline: list[str] | None, param: list[str] | None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The ``TrainConfig`` fields the command line gave (``given``: the options by name,
    None where one was not given; ``--baseline`` pairs as ``baselines``) and the game's
    parameters of ``--param``."""
    values = {name: given[name] for name in _CONFIG_OPTIONS if given[name] is not None}
    if "from_dataset" in values:
        values["from_dataset"] = str(values["from_dataset"])
    if baseline is not None:
        pairs = parse_pairs(baseline, "--baseline")
        values["baselines"] = tuple(pairs.items())
    params = {k: parse_value(v) for k, v in parse_pairs(param, "--param").items()}
    return values, params


class _Display:
    """The rich display: a status line during self-play and a row per generation."""

    def __init__(self, console: Any, enabled: bool) -> None:
        self.console = console
        self.enabled = enabled
        self.status: Any = None
        self.shown = False

    def _say(self, text: str) -> None:
        if not self.enabled:
            return
        if self.status is None:
            self.status = self.console.status(text)
            self.status.start()
        else:
            self.status.update(text)

    def close(self) -> None:
        if self.status is not None:
            self.status.stop()
            self.status = None

    def event(self, kind: str, payload: dict[str, Any]) -> None:
        if kind == "start":
            cfg = payload["config"]
            # The header and the generation rows are printed even without --progress.
            self.console.print(
                f"[bold]{cfg.game}[/]: from generation {payload['generation']} to "
                f"{cfg.generations}, {cfg.games_per_generation} games x {cfg.simulations} "
                f"simulations a generation, on {payload['device']}"
            )
        elif kind == "compile":
            self._say(
                f"compiling the engine for {payload['game']} (the first time on this machine; "
                "numba's cache makes later runs quick)"
            )
        elif kind == "compiled":
            self.close()
            self.console.print(
                f"engine ready in {payload['seconds']:.1f} s (compiled or loaded from numba's "
                "cache; not counted in the first generation's throughput)"
            )
        elif kind == "selfplay":
            self._say(
                f"generation {payload['generation']}: self-play {payload['games']}/{payload['of']} games"
            )
        elif kind == "train":
            self._say(
                f"generation {payload['generation']}: training ({payload['losses'].steps} steps)"
            )
        elif kind == "eval":
            self._say(
                f"generation {payload['generation']}: evaluation vs {payload['opponent']} "
                f"{payload['score']:.2f}"
            )
        elif kind == "generation":
            self._row(payload["record"])

    #: The table's columns and their widths: each generation is printed as it ends, a
    #: line of fixed-width columns (the scores last, as long as they are), so that the
    #: rows line up whatever the terminal's width.
    COLUMNS = (
        ("gen", 4), ("games", 6), ("pos/s", 7), ("evals/s", 8), ("loss v", 7),
        ("loss p", 7), ("Elo [95%]", 18), ("min", 6),
    )  # fmt: skip

    def _line(self, cells: list[str]) -> str:
        widths = [width for _, width in self.COLUMNS]
        fixed = " ".join(f"{cell:>{w}}" for cell, w in zip(cells[:-1], widths, strict=True))
        return f"{fixed}  {cells[-1]}"

    def _row(self, r: dict[str, Any]) -> None:
        self.close()
        if not self.shown:
            self.console.print(
                "Elo: each generation's as rated when it was evaluated (the games to then; "
                "training.png rates all generations from every game to date)",
                soft_wrap=True,
            )
            head = self._line([name for name, _ in self.COLUMNS] + ["scores"])
            self.console.print(escape(head), style="bold", soft_wrap=True)
        self.shown = True
        elo = "-"
        if r.get("elo") is not None:
            lo, hi = r.get("elo_low"), r.get("elo_high")
            span = f" [{lo:.0f}, {hi:.0f}]" if lo is not None and hi is not None else ""
            elo = f"{r['elo']:.0f}{span}"
        scores = " ".join(f"{k}:{v['score']:.2f}" for k, v in (r.get("scores") or {}).items())
        cells = [
            str(r["generation"]),
            f"{r['games']:,}",
            f"{r['positions_per_s']:,.0f}" if r.get("positions_per_s") else "-",
            f"{r['evaluations_per_s']:,.0f}" if r.get("evaluations_per_s") else "-",
            f"{r['value_loss']:.3f}",
            f"{r['policy_loss']:.3f}",
            elo,
            f"{r['wall_seconds'] / 60:.1f}",
            scores or "-",
        ]
        self.console.print(escape(self._line(cells)), soft_wrap=True)


@app.command("export-model")
def export_model_command(
    run: Annotated[
        Path, typer.Argument(help="A run directory of `mctslab train`.", show_default=False)
    ],
    out: Annotated[
        Path, _opt("--out", "The model file to write (.pt); its card goes beside it (.json).")
    ],
    generation: Annotated[
        int | None, _opt("--generation", "The generation to export (default: the last).")
    ] = None,
    description: Annotated[
        str, typer.Option("--description", help="What the card says the network is.")
    ] = "",
    after: Annotated[
        Path | None,
        _opt(
            "--after",
            "The card (.json) of the network the run started from (--init): the card "
            "then counts the whole lineage's generations and time.",
        ),
    ] = None,
) -> None:
    """Export a trained network with its model card (how it was trained, what it scored),
    loadable as az:model=FILE.pt."""
    with user_errors():
        try:
            from mctslab.train.export import export_model
        except ImportError as err:
            raise CliError(f"exporting needs PyTorch: pip install 'mctslab[nn]' ({err})") from None
        model, card = export_model(
            run, out, generation=generation, description=description, after=after
        )
    print(f"wrote {model} and {card}")


@app.command("export-onnx")
def export_onnx_command(
    model: Annotated[
        str,
        typer.Argument(help="A model: a shipped name or a checkpoint (.pt).", show_default=False),
    ],
    out: Annotated[
        Path | None,
        _opt(
            "--out",
            "The ONNX file to write (default: beside the model, .onnx; a shipped "
            "network's in the current directory, never inside the package).",
        ),
    ] = None,
) -> None:
    """Export a network to ONNX, the file az: players run in ONNX Runtime (backend=onnx,
    the default where onnxruntime is installed); needs the onnx package."""
    with user_errors():
        try:
            from mctslab.players.network import resolve_model
            from mctslab.train.export import export_onnx
        except ImportError as err:
            raise CliError(f"exporting needs PyTorch: pip install 'mctslab[nn]' ({err})") from None
        written = export_onnx(resolve_model(model), out)
    print(f"wrote {written}")
