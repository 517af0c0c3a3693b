"""A trained network out of its run directory, with its model card: what ships in the
package (``src/mctslab/nn/models/NAME.pt`` and ``NAME.json``) and what ``az:model=PATH``
loads.

The card (JSON) says what the network is and how it was made: the game, the network's
kind, sizes and parameter count, the generation, the command lines that trained it
(the first and every ``--resume``), the seed, the total wall time, the machine, the
options, and the last evaluation (scores with 95% intervals against the previous
generation and the fixed baselines, and the Elo ratings).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from mctslab.core.files import atomic_write
from mctslab.core.registry import make
from mctslab.nn.checkpoint import load_checkpoint, peek_checkpoint, save_checkpoint
from mctslab.nn.export import onnx_bytes
from mctslab.nn.networks import parameter_count
from mctslab.train.run_directory import TrainError, load_run, refuse_run_owned, run_file

__all__ = ["MAX_CARD_BYTES", "add_lineage", "export_model", "export_onnx"]

#: The installed mctslab package (``.../mctslab``), whose files an export never rewrites.
_PACKAGE = Path(__file__).resolve().parents[1]
#: The longest model card read (a card is a few kilobytes: the shipped ones 4 and 11 KB).
MAX_CARD_BYTES = 1024**2


def export_model(
    run_dir: str | Path,
    dest: str | Path,
    *,
    generation: int | None = None,
    description: str = "",
    after: str | Path | None = None,
) -> tuple[Path, Path]:
    """Write the network of ``generation`` (default: the last committed one) of the run in
    ``run_dir`` to ``dest`` (a ``.pt`` path) and its card beside it (``.json``); returns
    both paths. Raises :class:`~mctslab.train.run_directory.TrainError` for a directory that is
    not a run or a generation it does not have, and for a ``dest`` inside a run's directory
    (this one's or another's: its card could replace the run's ``state.json`` or
    ``run.json``; :func:`~mctslab.train.run_directory.refuse_run_owned`).

    ``after``: the card of the network the run started from (``--init``), for a run that
    continues another: the card's ``generations``, ``games``, ``positions`` and
    ``wall_seconds`` are then the totals of the whole lineage (this run's own under
    ``run``), and ``lineage`` lists every earlier network (name, generations, wall time,
    command), so that a continued network does not read as trained by its last run alone."""
    run_dir, dest = Path(run_dir), Path(dest)
    if dest.suffix != ".pt":
        raise TrainError(f"{dest}: a model file ends in .pt")
    for path in (dest, dest.with_suffix(".json")):
        refuse_run_owned(path)
    run, state = load_run(run_dir)
    last = int(state["generation"])
    g = last if generation is None else generation
    if not 0 <= g <= last:
        raise TrainError(f"{run_dir} has generations 0 to {last}, not {g}")
    config = run["config"]
    game = make(config["game"], **dict(config.get("game_params") or {}))
    net, _ = load_checkpoint(run_file(run_dir, f"checkpoints/gen-{g:04d}.pt", "network"), game)
    history = [h for h in state["history"] if h["generation"] <= g]
    evaluated = [h for h in history if h.get("scores")]
    record = history[-1]
    card: dict[str, Any] = {
        "name": dest.stem,
        "game": config["game"],
        "game_params": config.get("game_params") or {},
        "description": description,
        "network": {
            **getattr(net, "mctslab_spec", {}),
            "parameters": parameter_count(net),
        },
        "generation": g,
        "generations": g,
        "games": sum(h.get("games", 0) for h in history),
        "positions": sum(h.get("positions", 0) for h in history),
        "wall_seconds": record.get("wall_seconds", state["wall_seconds"]),
        "command": run.get("command", []),
        "invocations": [
            i for i in state.get("invocations", []) if i.get("first_generation", 0) <= g
        ],
        "seed": config.get("seed"),
        "machine": run.get("machine", {}),
        "train_config": config,
        "evaluation": (
            {
                "generation": evaluated[-1]["generation"],
                "scores": evaluated[-1]["scores"],
                "elo": evaluated[-1].get("ratings", {}),
                "simulations": config.get("eval_simulations") or config.get("simulations"),
                "baselines": config.get("baselines"),
            }
            if evaluated
            else {}
        ),
        "exported": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    card["network"].pop("seed", None)
    if after is not None:
        add_lineage(card, Path(after))
    try:
        save_checkpoint(dest, net, game, {"generation": g, "card": dest.with_suffix(".json").name})
        # Renamed into place: a link planted at the card's name is replaced, not followed.
        atomic_write(dest.with_suffix(".json"), json.dumps(card, indent=1, sort_keys=True) + "\n")
    except OSError as err:
        raise TrainError(f"cannot write {err.filename or dest} ({err.strerror or err})") from None
    return dest, dest.with_suffix(".json")


def _read_card(path: Path) -> Any:
    """A model card's JSON; :class:`TrainError` for a file that cannot be one: unreadable,
    longer than :data:`MAX_CARD_BYTES`, not JSON, or nested too deep to parse."""
    try:
        if path.stat().st_size > MAX_CARD_BYTES:
            raise ValueError(f"longer than a card's {MAX_CARD_BYTES:,} bytes")
        return json.loads(path.read_text())
    except (OSError, ValueError, RecursionError) as err:  # RecursionError: nested deep
        raise TrainError(f"{path}: not a readable model card ({err})") from None


def add_lineage(card: dict[str, Any], after: Path) -> None:
    """Make ``card`` continue the network whose card is the file ``after`` (see
    :func:`export_model`); a card of another game or network shape is refused."""
    before = _read_card(after)
    if not isinstance(before, dict):
        raise TrainError(f"{after}: not a model card")
    shape = {k: v for k, v in card["network"].items() if k != "parameters"}
    theirs = before.get("network")
    if (
        before.get("game") != card["game"]
        or not isinstance(theirs, dict)
        or any(theirs.get(k) != v for k, v in shape.items())
    ):
        raise TrainError(
            f"{after}: the card of another game or network shape "
            f"({before.get('game')!r}, not {card['game']!r} with {shape})"
        )
    totals = ("generations", "games", "positions", "wall_seconds")
    card["run"] = {k: card[k] for k in totals}
    for key in totals:
        value = before.get(key)
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise TrainError(f"{after}: its {key!r} is not a count")
        card[key] = card[key] + value
    earlier = before.get("lineage")
    run_part = before.get("run")
    own: dict[str, Any] = run_part if isinstance(run_part, dict) else before
    card["lineage"] = [
        *(earlier if isinstance(earlier, list) else []),
        {
            "name": before.get("name"),
            "generations": own.get("generations"),
            "wall_seconds": own.get("wall_seconds"),
            "command": before.get("command"),
        },
    ]


def export_onnx(model: str | Path, out: str | Path | None = None) -> Path:
    """Write the network of the checkpoint ``model`` as ONNX (``out``, default: beside it,
    ``.onnx``, or in the current directory for a network shipped in the package, whose
    files are never rewritten: an ``out`` inside the package is refused), the file ``az:`` players run in ONNX Runtime
    (:func:`mctslab.players.network.network_evaluator`). The game is the checkpoint's, its
    parameters those of the model card beside it (``.json``) if there is one. Raises
    :class:`~mctslab.train.run_directory.TrainError` (or the checkpoint's and the exporter's
    errors, all ``ValueError``) for a file it cannot export."""
    model = Path(model)
    package = _PACKAGE
    inside = model.resolve().is_relative_to(package)
    # A shipped network's default goes to the current directory: the package's own files
    # are not the user's to rewrite (and may be a system-wide install).
    beside = Path(model.with_suffix(".onnx").name) if inside else model.with_suffix(".onnx")
    dest = beside if out is None else Path(out)
    if dest.suffix != ".onnx":
        raise TrainError(f"{dest}: an ONNX file ends in .onnx")
    if dest.expanduser().resolve().is_relative_to(package):
        raise TrainError(
            f"--out {dest} is inside the installed mctslab package ({package}), whose files "
            "are not rewritten; write the ONNX file elsewhere"
        )
    header = peek_checkpoint(model)
    card_path = model.with_suffix(".json")
    params: dict[str, Any] = {}
    if card_path.is_file():
        card = _read_card(card_path)
        given = card.get("game_params") if isinstance(card, dict) else None
        if not isinstance(given, dict | None):
            raise TrainError(f"{card_path}: its game_params is not a dict of parameters")
        params = dict(given or {})
    game = make(str(header["game"].get("name")), **params)
    net, _ = load_checkpoint(model, game)
    blob = onnx_bytes(net, game.observation_shape())  # type: ignore[attr-defined]
    try:
        atomic_write(dest, blob)
    except OSError as err:
        raise TrainError(f"cannot write {err.filename or dest} ({err.strerror or err})") from None
    return dest
