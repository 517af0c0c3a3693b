"""``mctslab train``: the AlphaZero loop (:mod:`mctslab.train`), resumable::

    mctslab train tic_tac_toe --out runs/ttt --generations 10
    mctslab train connect_four --out runs/c4 --minutes 85 --generations 200 \\
        --games-per-generation 256 --simulations 100
    mctslab train connect_four --out runs/c4 --minutes 85 --generations 200 --resume
"""

from __future__ import annotations

import inspect
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
from mctslab.core.options import Option, options_of
from mctslab.train.config import TrainConfig  # without PyTorch: the options alone

__all__ = ["train"]


def _opt(name: str, help_text: str) -> Any:
    return typer.Option(name, help=help_text, show_default=False)


def _flag(opt: Option) -> inspect.Parameter:
    """``train``'s flag of a :class:`TrainConfig` option: its type (``None`` where it was
    not given: a resumed run keeps what it ran with), its help and its default from the
    option's declaration."""
    kind = {"int": int, "float": float, "bool": bool}.get(opt.kind, str)
    default = opt.default
    given = opt.choices_given  # the words, where they are read without PyTorch
    words = f": {', '.join(given[:-1])} or {given[-1]}" if isinstance(given, tuple) else ""
    shown = (
        "" if default is None else f"{default:g}" if isinstance(default, float) else str(default)
    )
    # escape: rich would read "[auto]" as markup and print nothing of it
    help_text = escape(f"{opt.help[0].upper()}{opt.help[1:]}{words}{shown and f' [{shown}]'}.")
    flag = typer.Option(opt.flag, help=help_text, show_default=False)
    return inspect.Parameter(
        opt.name,
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
        default=None,
        annotation=Annotated[kind | None, flag],
    )


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
    baseline: Annotated[
        list[str] | None,
        _opt("--baseline", "NAME=SPEC, repeatable (default: uct100, uct1000, minimax4)."),
    ] = None,
    param: ParamOpt = None,
    progress: ProgressOpt = True,
    **options: Any,
) -> None:
    """AlphaZero training: self-play, learning, checkpoints and evaluation, generation by
    generation; kill it at any moment and continue with --resume."""
    with user_errors():
        config_type, run_training = _training()
        values, params = _config_values(options, baseline, param)
        config = config_type(game=game, game_params=tuple(sorted(params.items())), **values)
        if resume and values.get("from_dataset") is not None:
            raise CliError("--from-dataset starts a run; a resumed run has its data already")
        if resume and values.get("init") is not None:
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


# The command's flags: its own, then one for each option TrainConfig declares (typer reads
# the signature; the options arrive in **options, by field name).
_OWN = [
    p
    for p in inspect.signature(train, eval_str=True).parameters.values()
    if p.kind is not inspect.Parameter.VAR_KEYWORD
]
_own_flags, _own_after = _OWN[:3], _OWN[3:]
train.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
    [*_own_flags, *(_flag(opt) for opt in options_of(TrainConfig).values()), *_own_after]
)
app.command()(train)


def _training() -> tuple[Any, Any]:
    """``TrainConfig`` and ``train`` of :mod:`mctslab.train`, or a one-line error
    without PyTorch."""
    try:
        from mctslab.train import train as run_training
    except ImportError as err:
        raise CliError(f"training needs PyTorch: pip install 'mctslab[nn]' ({err})") from None
    return TrainConfig, run_training


def _config_values(
    given: dict[str, Any], baseline: list[str] | None, param: list[str] | None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The ``TrainConfig`` fields the command line gave (``given``: its options by field
    name, None where one was not given; ``--baseline`` pairs as ``baselines``) and the
    game's parameters of ``--param``."""
    values = {name: value for name, value in given.items() if value is not None}
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
