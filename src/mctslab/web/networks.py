"""The trained networks the lab offers as PUCT's evaluator: ``evaluator: "network:NAME"``.

A network shipped in the package (:func:`mctslab.players.network.shipped_models`, with
its model card beside it) guides the lab's PUCT search with its priors and value, as
AlphaZero's player does (``az:model=NAME``): it is the AI the user plays against, and
the tree, the step mode and the AI's root statistics show its priors and values.

Only shipped networks are offered, never a path (a checkpoint is a file that the server
would load), and only where PyTorch imports: without the ``nn`` extra the lab offers
the built-in evaluators alone. ``GET /api/games`` lists each game's (:func:`models_for`);
:func:`unknown_evaluator` tells a name the schema does not know (422) and
:func:`network_evaluator` loads a network for a session's game, refusing one trained
for another game, or for other parameters of this one (400).

:mod:`mctslab.players.network` is used as a module attribute, so that one monkeypatch of
``shipped_models`` (a test's) is what the lab sees everywhere.
"""

from __future__ import annotations

import functools
import importlib
import threading
from pathlib import Path
from typing import Any

from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import Game
from mctslab.players import network as shipped
from mctslab.search.evaluators import BUILTIN_EVALUATORS, Evaluator, LeafBatch, make_evaluator
from mctslab.web.schemas import ModelOut

__all__ = [
    "NETWORK_PREFIX",
    "NetworkEvaluator",
    "evaluator_names",
    "models_for",
    "network_evaluator",
    "network_name",
    "offered_models",
    "torch_available",
    "unknown_evaluator",
]

#: An evaluator value that names a shipped network: ``network:connect_four``.
NETWORK_PREFIX = "network:"

_games: dict[tuple[str, int, int], str | None] = {}
_games_lock = threading.Lock()


@functools.cache
def torch_available() -> bool:
    """Whether ``import torch`` works (the ``nn`` extra): the networks need it."""
    try:
        importlib.import_module("torch")
    except Exception:  # ImportError, or a broken install (an OSError from its libraries)
        return False
    return True


def offered_models() -> dict[str, Path]:
    """The networks the lab offers: the shipped ones (name -> checkpoint), where PyTorch
    imports; none without it."""
    models = shipped.shipped_models()
    if not models or not torch_available():
        return {}
    return dict(models)


def network_name(evaluator: str) -> str | None:
    """The network an evaluator value names (``network:NAME`` -> ``NAME``), else ``None``."""
    return evaluator[len(NETWORK_PREFIX) :] if evaluator.startswith(NETWORK_PREFIX) else None


def evaluator_names() -> list[str]:
    """Every evaluator value the schema accepts: the built-ins, then ``network:NAME`` for
    each network offered (whichever game it plays: a session of another game gets a 400)."""
    return [*BUILTIN_EVALUATORS, *(NETWORK_PREFIX + name for name in offered_models())]


def unknown_evaluator(evaluator: str) -> str | None:
    """``None`` for an evaluator value the lab knows, else why not (one line, for a 422)."""
    if evaluator in BUILTIN_EVALUATORS:
        return None
    name = network_name(evaluator)
    if name is None:
        return (
            f"unknown evaluator {evaluator!r}; valid evaluators: "
            f"{', '.join(BUILTIN_EVALUATORS)}, or network:NAME for a shipped network "
            "(GET /api/games: a game's models)"
        )
    if shipped.shipped_models() and not torch_available():
        return f"{evaluator} needs PyTorch, which this server lacks: pip install 'mctslab[nn]'"
    models = offered_models()
    if name in models:
        return None
    known = ", ".join(NETWORK_PREFIX + n for n in models) or "none are shipped"
    return (
        f"unknown network {name!r}; the lab's networks: {known} (GET /api/games: a game's models)"
    )


def _model_game(path: Path) -> str | None:
    """The game a checkpoint's header names (``None`` if it cannot be read), read once
    per version of the file."""
    try:
        stat = path.stat()
    except OSError:
        return None
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    with _games_lock:
        if key in _games:
            return _games[key]
    from mctslab.nn.checkpoint import CheckpointError, peek_checkpoint

    try:
        name = peek_checkpoint(path).get("game", {}).get("name")
    except CheckpointError:
        name = None
    with _games_lock:
        _games[key] = name if isinstance(name, str) else None
        return _games[key]


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _model_out(name: str, game: str, card: dict[str, Any]) -> ModelOut:
    """A network's listing, from its model card (whatever keys it has)."""
    description = card.get("description")
    generations = _number(card.get("generations"))
    gens = int(generations) if generations is not None and generations.is_integer() else None
    wall = _number(card.get("wall_seconds"))
    command = card.get("command")
    if isinstance(command, list):
        command = " ".join(str(part) for part in command)
    trained = []
    if gens is not None:
        trained.append(f"{gens} generation{'' if gens == 1 else 's'}")
    if wall is not None:
        trained.append(f"{wall / 60:.0f} min" if wall >= 60 else f"{wall:.0f} s")
    summary = f"trained {', '.join(trained)}" if trained else "a trained network"
    return ModelOut(
        name=name,
        evaluator=NETWORK_PREFIX + name,
        game=game,
        label=f"network: {name} (AlphaZero-style, {summary})",
        description=description if isinstance(description, str) else None,
        generations=gens,
        wall_seconds=wall,
        command=command if isinstance(command, str) else None,
        evaluation=card.get("evaluation"),
        card=card,
    )


def models_for(game: str | None) -> list[ModelOut]:
    """The networks offered for ``game`` (a name of ``GET /api/games``; ``None``: every
    game's), with their model cards. A network whose checkpoint cannot be read is left out."""
    out = []
    for name, path in offered_models().items():
        model_game = _model_game(path)
        if model_game is None or (game is not None and model_game != game):
            continue
        try:
            card = shipped.model_card(name)
        except (ValueError, OSError):  # a missing or malformed card: the network still plays
            card = {}
        out.append(_model_out(name, model_game, card if isinstance(card, dict) else {}))
    return out


class NetworkEvaluator:
    """A shipped network as PUCT's evaluator, named ``network:NAME`` (the name the step
    mode's trace gives). It asks the network's shared evaluator on the fastest inference
    path that works here, as ``az:`` does
    (:func:`mctslab.players.network.network_evaluator`): ``backend`` says which
    (``"onnx"``, ONNX Runtime, or ``"torch"``, PyTorch) and ``backend_note`` why."""

    rollout = False

    def __init__(self, name: str, inner: Any, backend: str = "torch", note: str = "") -> None:
        self.name = NETWORK_PREFIX + name
        self.inner: Evaluator = make_evaluator(inner)
        self.backend = backend
        self.backend_note = note

    def evaluate(self, batch: LeafBatch) -> tuple[Any, Any]:
        return self.inner.evaluate(batch)


def network_evaluator(evaluator: str, game: Game) -> NetworkEvaluator:
    """The evaluator of ``network:NAME`` for ``game`` (the network loaded once per process:
    slow the first time, so call it in a worker thread). Raises
    :class:`~mctslab.core.errors.InvalidConfigError` (400) for a network of another game,
    or of this game with other parameters (another board size)."""
    name = network_name(evaluator)
    path = None if name is None else offered_models().get(name)
    if name is None or path is None:
        raise InvalidConfigError(f"config.evaluator: {unknown_evaluator(evaluator)}")
    here = game.info.name
    model_game = _model_game(path)
    if model_game != here:
        others = [m.evaluator for m in models_for(here)]
        raise InvalidConfigError(
            f"config.evaluator: {evaluator} is a network for {model_game or 'an unknown game'}, "
            f"not for {here}; the networks for {here}: {', '.join(others) or 'none'}"
        )
    from mctslab.nn.checkpoint import CheckpointError

    try:
        inner, backend, note = shipped.network_evaluator(path, game, "auto")
    except CheckpointError as err:  # trained for other parameters (a 6x7 board, not 5x4)
        raise InvalidConfigError(f"config.evaluator: {evaluator} does not fit: {err}") from None
    return NetworkEvaluator(name, inner, backend, note)
