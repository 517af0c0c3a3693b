"""A training run's directory: its files, where they may be, how a generation commits,
and what a resumed run may change.

``run.json`` holds the game and the options, written once; ``state.json`` names the last
committed generation and its files (``checkpoints/gen-g.pt``, ``buffer-g.npz``,
``optimizer-g.pt``), with the history of generation records. Every file is written to a
temporary file and renamed (:func:`atomic_write`), and ``state.json`` is written last:
it is the commit point. A run killed at any moment (``kill -9``) resumes (``resume=True``,
``mctslab train ... --resume``) from the last generation it names, with the files it
names, and plays the lost generation again; files of an uncommitted generation are
overwritten or ignored. A failed write (a full disk) stops the run with a
:class:`TrainError` at its last committed generation. A resumed run keeps its options,
and those of :data:`~mctslab.train.config.RESUMABLE` as it last ran them
(``state.json``'s ``options``) unless the command line gives them again
(:func:`open_resumed`).

A run directory is data, which anyone who can write in it may have edited: every file
it names is confined to it (:func:`run_file`: relative, no ``..``, no symlink leading
out), and a baseline that starts a program (``gtp:``) or loads a network file
(``model=PATH``: any but a shipped network) is used on ``--resume`` only when the command
line names it again.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import torch

from mctslab.core.errors import InvalidConfigError
from mctslab.core.files import atomic_write as write_whole
from mctslab.core.game import Game, rules_fingerprint
from mctslab.nn.checkpoint import load_checkpoint
from mctslab.players.network import shipped_models
from mctslab.players.player import parse_spec
from mctslab.train.buffer import KEYS, ReplayBuffer
from mctslab.train.config import RESUMABLE, TrainConfig

__all__ = [
    "RUN_FORMAT",
    "TrainError",
    "atomic_write",
    "checkpoint_path",
    "committed_state",
    "failed_write",
    "game_identity",
    "load_run",
    "machine",
    "open_resumed",
    "read_buffer",
    "refuse_run_owned",
    "refuse_unusable_out",
    "remove_contents",
    "remove_stale",
    "restore_network",
    "restore_optimizer",
    "run_file",
    "write_json",
]

#: The run directory's format (``run.json``'s first key).
RUN_FORMAT = ("mctslab-train", 1)


class TrainError(InvalidConfigError):
    """A run directory that cannot be used as asked (the message says why)."""


# Files, written atomically ----------------------------------------------------------------


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``path`` through a temporary file renamed over it: a run killed mid-write
    leaves the old file or the new one, never half of one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_whole(path, data)


def write_json(path: Path, obj: Any) -> None:
    """``obj`` as indented JSON with sorted keys, so that two runs' files diff cleanly."""
    atomic_write(path, (json.dumps(obj, indent=1, sort_keys=True) + "\n").encode())


def game_identity(game: Any) -> dict[str, Any]:
    """What ``run.json`` records of the game: a resumed run refuses other rules."""
    return {
        "name": game.info.name,
        "version": game.info.version,
        "rules": repr(rules_fingerprint(game)),
    }


def checkpoint_path(out: Path, g: int) -> Path:
    """The network of generation ``g``: the one name the loop, the evaluation's ``az:``
    players and :class:`~mctslab.train.loop.TrainResult` share."""
    return out / "checkpoints" / f"gen-{g:04d}.pt"


def machine() -> dict[str, Any]:
    """Where a run ran: processor, cores, Python and PyTorch."""
    return {
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "cuda": torch.cuda.is_available(),
    }


def failed_write(err: OSError | sqlite3.Error) -> str:
    """A failed write in one clause: the file and the system's reason where known."""
    if isinstance(err, OSError) and err.filename:
        return f"cannot write {err.filename} ({err.strerror or type(err).__name__})"
    return f"cannot write ({err})"


# A run directory is data: whoever can write in it must not be able to make mctslab read,
# write or delete a file elsewhere, or start a program. Every path it names is confined
# to it (relative, no '..', no symlink leading out), and a program is started only when
# this command line names it.


def run_file(out: Path, name: object, what: str) -> Path:
    """``out / name`` for a file that a run directory names (``state.json``'s files) or
    holds; :class:`TrainError` unless it stays inside ``out``: a relative path without
    ``..`` whose real path (symlinks followed) is inside ``out``'s."""
    if not isinstance(name, str) or not name:
        raise TrainError(f"{out}: state.json names no {what} file; nothing was changed")
    rel = Path(name)
    if rel.is_absolute() or ".." in rel.parts:
        raise TrainError(
            f"{out}: the {what} file {name!r} is outside the run directory (an absolute path "
            "or '..'); nothing was read or changed"
        )
    path = out / rel
    if not path.resolve().is_relative_to(out.resolve()):
        raise TrainError(
            f"{out}: the {what} file {name!r} leads outside the run directory (a symlink); "
            "nothing was read or changed"
        )
    return path


def load_run(out: str | Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """``run.json`` and ``state.json`` of a run directory; :class:`TrainError` if it is
    not one, or if they are malformed (files named outside the directory included)."""
    out = Path(out)
    try:
        run = json.loads(run_file(out, "run.json", "run.json").read_text())
        state = json.loads(run_file(out, "state.json", "state.json").read_text())
    except FileNotFoundError:
        raise TrainError(f"{out} is not a training run (no run.json and state.json)") from None
    except (OSError, ValueError) as err:
        if isinstance(err, TrainError):
            raise
        raise TrainError(f"{out}: unreadable run files ({err})") from None
    if not isinstance(run, dict) or run.get("format") != list(RUN_FORMAT):
        raise TrainError(f"{out} is not a mctslab training run")
    if not (
        isinstance(run.get("config"), dict)
        and isinstance(run.get("game"), dict)
        and isinstance(state, dict)
        and type(state.get("generation")) is int
        and state["generation"] >= 0
        and isinstance(state.get("files"), dict)
        and isinstance(state.get("history"), list)
        and all(isinstance(h, dict) for h in state["history"])
    ):
        raise TrainError(f"{out}: malformed run.json or state.json; nothing was changed")
    for what in ("network", "buffer", "optimizer"):
        run_file(out, state["files"].get(what), what)
    for fixed in ("checkpoints", "results.sqlite"):
        run_file(out, fixed, fixed)
    return run, state


# A new run and a resumed one: the refusals before any file is written ----------------------


def refuse_unusable_out(out: Path) -> None:
    """:class:`TrainError` for an ``--out`` a new run cannot take: one holding a run, a
    file, a folder with other files (whose metrics.csv, training.png or results.sqlite
    the run would overwrite), or a place this user cannot write in."""
    if any(
        (out / name).exists() or (out / name).is_symlink() for name in ("run.json", "state.json")
    ):
        raise TrainError(
            f"{out} already holds a training run: continue it with --resume or choose another --out"
        )
    if out.exists() and not out.is_dir():
        raise TrainError(f"{out} is a file, not a directory")
    if out.is_dir() and any(out.iterdir()):
        raise TrainError(
            f"{out} is a folder with other files, not a training run: choose a new or empty "
            "--out; nothing was changed"
        )
    parent = next((p for p in (out, *out.parents) if p.exists()), Path("."))
    if not parent.is_dir():
        raise TrainError(f"--out {out}: {parent} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise TrainError(f"--out {out}: cannot write in {parent}")


def refuse_run_owned(dest: Path, option: str = "--out") -> None:
    """:class:`TrainError` for an output file (``dest``, a model or its card) inside a
    training run's directory: a run owns every file in it (``run.json``, ``state.json``,
    the checkpoints, the buffer), and ``export-model --out RUN/state.pt`` would write its
    card over ``state.json``, leaving a run that no longer resumes. Any folder on the way
    up from ``dest`` (symlinks followed) that holds ``run.json`` beside ``state.json`` or
    ``checkpoints/`` is a run's (a lone ``state.json`` of another program is not)."""
    real = dest.expanduser().resolve()
    for folder in real.parents:
        if (folder / "run.json").exists() and (
            (folder / "state.json").exists() or (folder / "checkpoints").is_dir()
        ):
            raise TrainError(
                f"{option} {dest} is inside the training run {folder}, whose files it could "
                "overwrite; write the model outside the run directory"
            )


def remove_contents(out: Path, created: bool) -> None:
    """Undo a new run that never committed generation 0: the folder goes if this run
    made it, else what was written in it (it was empty)."""
    if created:
        shutil.rmtree(out, ignore_errors=True)
    elif out.is_dir():
        for child in out.iterdir():
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child, ignore_errors=True)
            else:
                child.unlink(missing_ok=True)


def open_resumed(
    out: Path, asked: TrainConfig, given: set[str]
) -> tuple[dict[str, Any], dict[str, Any], TrainConfig]:
    """``run.json``, ``state.json`` and the options of the run in ``out`` resumed with
    ``asked`` (``given``: the options the command line set); :class:`TrainError`, with
    nothing changed, for a run of another game or other options, or one this user cannot
    write in."""
    run_json, state = load_run(out)
    if run_json["game"].get("name") != asked.game:
        raise TrainError(
            f"{out} is a run of {run_json['game'].get('name')}, not of {asked.game}; "
            "nothing was changed"
        )
    config = _resumed_config(out, run_json, state, asked, given)
    if not os.access(out, os.W_OK | os.X_OK):
        raise TrainError(f"cannot write in {out}; nothing was changed")
    return run_json, state, config


def _resumed_config(
    out: Path, run: dict[str, Any], state: dict[str, Any], asked: TrainConfig, given: set[str]
) -> TrainConfig:
    """The options of a resumed run: ``run.json``'s, with the :data:`RESUMABLE` ones its
    last invocation ran with (``state.json``'s ``options``), overridden by those in
    ``given`` (the command line's); any other option given must equal the stored one."""
    latest = state.get("options")
    try:
        stored = TrainConfig.from_dict(run["config"])
        if isinstance(latest, dict):
            stored = replace(stored, **{k: v for k, v in latest.items() if k in RESUMABLE})
    except TypeError as err:
        raise TrainError(f"{out}: unreadable options in run.json ({err})") from None
    if stored.game != asked.game:
        raise TrainError(
            f"{out} is a run of {stored.game}, not of {asked.game}; nothing was changed"
        )
    if dict(stored.game_params) != dict(asked.game_params):
        raise TrainError(
            f"{out} is a run of {stored.game} with parameters {dict(stored.game_params)}, "
            f"not {dict(asked.game_params)}"
        )
    changed = sorted(
        name
        for name in given - RESUMABLE - {"game", "game_params"}
        if getattr(asked, name) != getattr(stored, name)
    )
    if changed:
        raise TrainError(
            f"a resumed run keeps its options; {', '.join(changed)} differ from the run's "
            f"(only {', '.join(sorted(RESUMABLE))} may change)"
        )
    config = replace(stored, **{k: getattr(asked, k) for k in RESUMABLE & given})
    outside = [
        f"{n}={spec} ({reach})" for n, spec in stored.baselines if (reach := _reaches_out(spec))
    ]
    if outside and ("baselines" not in given or asked.baselines != stored.baselines):
        raise TrainError(
            f"{out}/run.json names a baseline that starts a program or reads a file outside "
            f"the run ({'; '.join(outside)}); a run directory neither starts programs nor "
            "names files outside itself: give every --baseline again on the command line "
            "to resume it"
        )
    return config


def _reaches_out(spec: str) -> str | None:
    """What a stored baseline's spec would reach outside its run directory: a program it
    starts (``gtp:CMD``) or a network file it loads (``model=PATH``, any ``model=`` but a
    network shipped in the package); ``None`` for a spec that reaches nothing."""
    try:
        kind, options = parse_spec(spec)
    except ValueError:
        return "starts a program" if spec.strip().startswith("gtp") else None
    if kind == "gtp":
        return "starts a program"
    model = options.get("model")
    if model is not None and model not in shipped_models():
        return "reads a file"
    return None


# The committed generation's files: read back on --resume, replaced by a commit ------------


def restore_network(out: Path, files: dict[str, Any], game: Game, net: Any, device: str) -> None:
    """Load the committed network into ``net`` (on ``device``); :class:`TrainError` for a
    network of other sizes than the run's."""
    saved, _ = load_checkpoint(run_file(out, files["network"], "network"), game)
    try:
        net.load_state_dict(saved.state_dict())
    except RuntimeError:
        raise TrainError(
            f"{out}: the network {files['network']} is not of the run's sizes; nothing was changed"
        ) from None
    net.to(device)


def read_buffer(out: Path, files: dict[str, Any], config: TrainConfig, game: Game) -> ReplayBuffer:
    """The committed replay buffer (its newest ``config.buffer`` examples);
    :class:`TrainError` for a file that is corrupt or holds another game's positions."""
    path = run_file(out, files["buffer"], "buffer")
    try:
        buffer = ReplayBuffer.load(path, config.buffer)
    except Exception as err:  # numpy's and zipfile's errors for a corrupt file are many
        raise TrainError(
            f"{path}: not a readable replay buffer ({type(err).__name__}); nothing was changed"
        ) from None
    arrays = buffer.arrays
    if not arrays:
        return buffer
    actions = game.info.num_actions
    shapes = {
        "observation": tuple(game.observation_shape()),  # type: ignore[attr-defined]
        "legal_mask": (actions,),
        "policy": (actions,),
        "value": (),
    }
    n = len(arrays["value"])
    if any(arrays[k].shape != (n, *shapes[k]) for k in KEYS):
        raise TrainError(
            f"{path}: the replay buffer's arrays do not fit {config.game}'s positions; "
            "nothing was changed"
        )
    return buffer


def restore_optimizer(
    out: Path, files: dict[str, Any], optimizer: torch.optim.Optimizer, device: str
) -> None:
    """Load the committed optimizer state into ``optimizer``; :class:`TrainError` for a
    file that is corrupt or another optimizer's."""
    path = run_file(out, files["optimizer"], "optimizer")
    try:
        opt = torch.load(path, map_location=device, weights_only=True)
        optimizer.load_state_dict(opt)
    except Exception as err:  # torch.load's errors for a corrupt file are many
        raise TrainError(
            f"{path}: not a readable optimizer state of this run ({type(err).__name__}); "
            "nothing was changed"
        ) from None


def committed_state(
    previous: dict[str, Any],
    record: dict[str, Any],
    wall: float,
    files: dict[str, str],
    invocations: list[dict[str, Any]],
    config: TrainConfig,
) -> dict[str, Any]:
    """``state.json`` once ``record``'s generation commits: it names that generation's
    ``files``, the history with ``record`` appended, the totals, the commands that
    trained the run (``invocations``), and the :data:`RESUMABLE` options that a
    ``--resume`` without them continues with."""
    return {
        "generation": record["generation"],
        "wall_seconds": wall,
        "games": previous.get("games", 0) + record.get("games", 0),
        "positions": previous.get("positions", 0) + record.get("positions", 0),
        "files": files,
        "history": [*previous.get("history", []), record],
        "invocations": invocations,
        "options": {k: getattr(config, k) for k in sorted(RESUMABLE)},
    }


def remove_stale(out: Path, old: dict[str, Any], new: dict[str, Any]) -> None:
    """Delete the buffer and optimizer files of the generation before a commit: only
    after ``state.json`` names their successors, and only inside ``out``."""
    for name in ("buffer", "optimizer"):
        stale = old.get(name)
        if stale and stale != new[name]:
            run_file(out, stale, name).unlink(missing_ok=True)
