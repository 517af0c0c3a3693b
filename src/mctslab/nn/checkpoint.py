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

A checkpoint is a file anyone may hand over, so everything but the weights is bounded
and type-checked before any of it is used: the file's length (:data:`MAX_FILE_BYTES`),
its zip entries (stored, as ``torch.save`` writes them: a compressed entry could inflate
a small file to gigabytes), and the header, walked without recursion and counting every
visit (a value nested thousands deep, or a "billion laughs" list of lists that repeats
one object 2**40 times, is refused after :data:`MAX_HEADER_ITEMS` steps instead of
hanging whoever prints or compares it): the game a dict of strings, the network's sizes
scalars, ``meta`` JSON-like.
"""

from __future__ import annotations

import errno
import os
import zipfile
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
    "MAX_FILE_BYTES",
    "MAX_HEADER_DEPTH",
    "MAX_HEADER_ITEMS",
    "CheckpointError",
    "load_checkpoint",
    "peek_checkpoint",
    "save_checkpoint",
]

#: The format's name and version, the first thing a loader checks.
FORMAT = ("mctslab-network", 1)
#: The longest checkpoint read: 2 GiB, five times AlphaZero's largest Go network (40
#: blocks of 256 channels, 360 MB of float32 weights).
MAX_FILE_BYTES = 2 * 1024**3
#: How deep the header (``meta``: training's options) may nest; the real one nests 3 deep.
MAX_HEADER_DEPTH = 32
#: How many values (every visit of a shared one counted) and characters the header may
#: hold; the real one holds a few hundred values.
MAX_HEADER_ITEMS = 100_000
#: The largest integer a header value may be (a 5,000-digit one cannot even be printed).
_MAX_INT = 2**63


class CheckpointError(InvalidConfigError):
    """A checkpoint that cannot be loaded for this game (the message says why)."""


def _game_key(game: Any) -> dict[str, Any]:
    info = game.info
    return {"name": info.name, "version": info.version, "rules": repr(rules_fingerprint(game))}


def save_checkpoint(
    path: str | Path, net: nn.Module, game: Any, meta: dict[str, Any] | None = None
) -> Path:
    """Write ``net`` (made by :func:`~mctslab.nn.networks.make_network`) for ``game`` to
    ``path``, atomically; returns the path. A failed write (a full disk) is an
    :class:`OSError`, the file at ``path`` left as it was."""
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
        try:
            torch.save(payload, f)
        except RuntimeError as err:
            raise _failed_write(path, err) from None
    return path


def _failed_write(path: Path, err: RuntimeError) -> OSError:
    """The :class:`OSError` a failed write is: PyTorch's zip writer reports a write that
    stopped part way (a disk that filled up during it, measured on a full tmpfs) as a
    ``RuntimeError`` ("enforce fail at inline_container.cc ... unexpected pos"), which
    the callers that stop cleanly on a full disk would not catch."""
    try:
        stats = os.statvfs(path.parent)
        full = stats.f_bavail * stats.f_frsize < 1024**2
    except (OSError, AttributeError):  # no statvfs on Windows
        full = False
    if full:
        return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
    return OSError(errno.EIO, f"PyTorch's write failed part way: {err}", str(path))


def _read(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise CheckpointError(f"no network checkpoint at {path}")
    _check_archive(path)
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as err:
        raise CheckpointError(
            f"{path} is not a mctslab network checkpoint (corrupt or another format): "
            f"{type(err).__name__}"
        ) from None
    if not isinstance(payload, dict) or payload.get("format") != list(FORMAT):
        raise CheckpointError(f"{path} is not a mctslab network checkpoint ({FORMAT[0]} v1)")
    _check_header(path, payload)
    return payload


def _check_archive(path: Path) -> None:
    """Refuse, before PyTorch reads it, a file longer than :data:`MAX_FILE_BYTES`, one
    that is not a zip archive, or one with compressed entries (``torch.save`` stores its
    entries; a deflated one inflates up to a thousand times its size in memory)."""
    length = path.stat().st_size
    if length > MAX_FILE_BYTES:
        raise CheckpointError(
            f"{path}: {length:,} bytes, more than a network checkpoint's "
            f"{MAX_FILE_BYTES:,}; not loaded"
        )
    try:
        with zipfile.ZipFile(path) as archive:
            entries = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as err:
        raise CheckpointError(
            f"{path} is not a mctslab network checkpoint (corrupt or another format): "
            f"{type(err).__name__}"
        ) from None
    inflated = sum(e.file_size for e in entries)
    if any(e.compress_type != zipfile.ZIP_STORED for e in entries) or inflated > length:
        raise CheckpointError(
            f"{path}: its entries are compressed ({inflated:,} bytes inflated from a file "
            f"of {length:,}), where torch.save stores them; not loaded"
        )


def _check_header(path: Path, payload: dict[str, Any]) -> None:
    """Type-check what rebuilds the network before anything reads it (see the module
    docstring): :class:`CheckpointError` naming the field that is wrong."""

    def wrong(field: str, wanted: str) -> CheckpointError:
        return CheckpointError(f"{path}: its header's {field} is not {wanted}; not loaded")

    extra = set(payload) - {"format", "game", "network", "state_dict", "meta"}
    if extra:
        raise wrong(f"key {sorted(map(str, extra))[0]!r}", "a checkpoint's")
    game = payload.get("game")
    if (
        not isinstance(game, dict)
        or set(game) != {"name", "version", "rules"}
        or not all(isinstance(game[k], str) for k in ("name", "rules"))
        or not isinstance(game["version"], int | str)
        or isinstance(game["version"], bool)
        or len(game["name"]) > 200
        or len(game["rules"]) > MAX_HEADER_ITEMS
    ):
        raise wrong("game", "a dict of name, version and rules (strings)")
    network = payload.get("network")
    if not isinstance(network, dict) or len(network) > 64:
        raise wrong("network", "a dict of sizes")
    for key, value in network.items():
        if not isinstance(key, str) or not _scalar(value):
            raise wrong(f"network option {str(key)[:40]!r}", "a name with a number or word")
    weights = payload.get("state_dict")
    if not isinstance(weights, dict) or len(weights) > MAX_HEADER_ITEMS:
        raise wrong("state_dict", "a dict of tensors")
    if not all(isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in weights.items()):
        raise wrong("state_dict", "a dict of named tensors")
    _check_json_like(path, payload.get("meta", {}))


def _scalar(value: object) -> bool:
    if isinstance(value, str):
        return len(value) <= 1000
    if isinstance(value, int):  # bool is an int
        return abs(value) <= _MAX_INT
    return value is None or isinstance(value, float)


def _check_json_like(path: Path, meta: object) -> None:
    """``meta`` as JSON could hold it (dicts with string keys, lists, scalars), at most
    :data:`MAX_HEADER_DEPTH` deep and :data:`MAX_HEADER_ITEMS` values and characters,
    each visit of a shared value counted: walked with a stack, never recursively."""
    if not isinstance(meta, dict):
        raise CheckpointError(f"{path}: its header's meta is not a dict; not loaded")
    stack: list[tuple[object, int]] = [(meta, 0)]
    budget = MAX_HEADER_ITEMS
    while stack:
        value, depth = stack.pop()
        sized = isinstance(value, str | dict | list | tuple)
        budget -= 1 + (len(value) if sized else 0)  # type: ignore[arg-type]
        if budget < 0 or depth > MAX_HEADER_DEPTH:
            raise CheckpointError(
                f"{path}: its header's meta is larger or deeper than a checkpoint's "
                f"({MAX_HEADER_ITEMS:,} values, {MAX_HEADER_DEPTH} levels); not loaded"
            )
        if isinstance(value, dict):
            if not all(isinstance(k, str) for k in value):
                raise CheckpointError(f"{path}: its header's meta has a key that is not a string")
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list | tuple):
            stack.extend((v, depth + 1) for v in value)
        elif not _scalar(value) and not isinstance(value, str):
            raise CheckpointError(
                f"{path}: its header's meta holds a {type(value).__name__}, not a JSON value"
            )


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
