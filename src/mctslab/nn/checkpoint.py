"""Network checkpoints: a network's weights with what rebuilds it and what it is for.

One file (``torch.save`` of a dict, loaded back with ``weights_only=True``: no code runs
on load) holds the format's name and version, the game the network plays (its name,
rules version, parameters: :func:`~mctslab.core.game.rules_fingerprint`), the network's
kind and sizes (:func:`~mctslab.nn.networks.make_network`'s options), the weights, and a
free ``meta`` dict (training's command line, generation, ...). It is written to a
temporary file beside the target and renamed over it, so a crash never leaves half a
checkpoint. Loading checks everything and raises :class:`CheckpointError` (a
``ValueError``) with one line: no such file, not a checkpoint (a corrupt or foreign
file), a network of another game, weights that do not fit. The sizes the file names
are checked against its weights and its length on PyTorch's ``meta`` device (shapes,
no memory) before the network is built: a small file that names the largest network
is refused without allocating gigabytes for it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch
from torch import nn

from mctslab.core.errors import InvalidConfigError
from mctslab.core.files import atomic_file
from mctslab.core.game import rules_fingerprint
from mctslab.nn.networks import make_network

__all__ = [
    "FORMAT",
    "CheckpointError",
    "load_checkpoint",
    "peek_checkpoint",
    "save_checkpoint",
]

#: The format's name and version, the first thing a loader checks.
FORMAT = ("mctslab-network", 1)


class CheckpointError(InvalidConfigError):
    """A checkpoint that cannot be loaded for this game (the message says why)."""


def _game_key(game: Any) -> dict[str, Any]:
    info = game.info
    return {"name": info.name, "version": info.version, "rules": repr(rules_fingerprint(game))}


def save_checkpoint(
    path: str | Path, net: nn.Module, game: Any, meta: dict[str, Any] | None = None
) -> Path:
    """Write ``net`` (made by :func:`~mctslab.nn.networks.make_network`) for ``game`` to
    ``path``, atomically; returns the path."""
    spec = getattr(net, "mctslab_spec", None)
    if not isinstance(spec, dict):
        raise CheckpointError("save_checkpoint needs a network made by make_network")
    path = Path(path)
    payload = {
        "format": list(FORMAT),
        "game": _game_key(game),
        "network": dict(spec),
        "state_dict": {k: v.detach().cpu() for k, v in net.state_dict().items()},
        "meta": dict(meta or {}),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_file(path) as f:  # the umask's permissions, as any new file
        torch.save(payload, f)
    return path


def _read(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise CheckpointError(f"no network checkpoint at {path}")
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as err:
        raise CheckpointError(
            f"{path} is not a mctslab network checkpoint (corrupt or another format): "
            f"{type(err).__name__}"
        ) from None
    if not isinstance(payload, dict) or payload.get("format") != list(FORMAT):
        raise CheckpointError(f"{path} is not a mctslab network checkpoint ({FORMAT[0]} v1)")
    return payload


def peek_checkpoint(path: str | Path) -> dict[str, Any]:
    """What a checkpoint says about itself without building its network: ``game`` (name,
    version, rules), ``network`` (kind and sizes) and ``meta``. Raises
    :class:`CheckpointError` for a missing, corrupt or foreign file."""
    payload = _read(Path(path))
    return {k: payload.get(k, {}) for k in ("game", "network", "meta")}


def load_checkpoint(path: str | Path, game: Any) -> tuple[nn.Module, dict[str, Any]]:
    """The network saved at ``path`` for ``game`` (in eval mode, on the CPU) and its
    ``meta``. Raises :class:`CheckpointError` if it cannot be."""
    path = Path(path)
    payload = _read(path)
    saved, here = payload.get("game", {}), _game_key(game)
    if saved != here:
        raise CheckpointError(
            f"{path} is a network for {saved.get('name')} (rules version "
            f"{saved.get('version')}, its parameters), not for this {here['name']}"
            + (" (other parameters or version)" if saved.get("name") == here["name"] else "")
        )
    spec = dict(payload.get("network", {}))
    _check_sizes(path, game, spec, payload.get("state_dict"))
    try:
        net = make_network(game, **spec)
        net.load_state_dict(payload["state_dict"])
    except (TypeError, KeyError, RuntimeError, InvalidConfigError) as err:
        raise CheckpointError(
            f"{path}: the weights do not fit the network they name ({err})"
        ) from None
    return net.eval(), dict(payload.get("meta", {}))


def _check_sizes(path: Path, game: Any, spec: dict[str, Any], weights: Any) -> None:
    """Refuse, before allocating it, a network whose weights the file cannot hold: the
    shapes it would have (built on the ``meta`` device) against the file's length and
    against the weights the file holds."""
    try:
        with torch.device("meta"):
            shapes = {k: v for k, v in make_network(game, **spec).state_dict().items()}
    except (TypeError, InvalidConfigError) as err:
        raise CheckpointError(f"{path}: it names a network that cannot be built ({err})") from None
    needed = sum(v.numel() * v.element_size() for v in shapes.values())
    length = path.stat().st_size
    if needed > length:
        raise CheckpointError(
            f"{path}: it names a network of {needed:,} bytes of weights in a file of "
            f"{length:,} bytes; not loaded"
        )
    if not isinstance(weights, dict) or {
        k: tuple(getattr(v, "shape", ())) for k, v in weights.items()
    } != {k: tuple(v.shape) for k, v in shapes.items()}:
        raise CheckpointError(
            f"{path}: the weights do not fit the network they name (other names or shapes)"
        )
