"""``mctslab models``: the trained networks shipped in the package, with their model cards
and the inference path ``az:model=NAME`` takes on this machine.

The path is found by loading each network as the player would
(:func:`mctslab.players.network.network_evaluator` with ``backend=auto``): ONNX Runtime
where it is installed and its network agrees with PyTorch's, else PyTorch, with the
reason. ``--json`` prints each network's card whole, with ``inference`` added.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from mctslab.cli.app import CliError, JsonOpt, app, user_errors
from mctslab.core.registry import make
from mctslab.players.network import model_card, network_evaluator, shipped_models

__all__ = ["model_rows", "models_command"]


def model_rows(game: str | None = None) -> list[dict[str, Any]]:
    """One row a shipped network (of ``game`` only, if given): its name, game, the
    generations and minutes of its training, its description, its card, and
    ``inference``: ``{"backend": "onnx" | "torch" | None, "note": why}``."""
    rows = []
    for name, path in shipped_models().items():
        card = model_card(name)
        try:
            game_name = _checkpoint_game(path)
        except ImportError:  # no PyTorch: the card says the game
            game_name = str(card.get("game", "unknown"))
        if game is not None and game_name != game:
            continue
        try:
            _, backend, note = network_evaluator(path, make(game_name), "auto")
            inference: dict[str, Any] = {"backend": backend, "note": note}
        except (ValueError, ImportError) as err:  # no PyTorch (the nn extra), say
            inference = {"backend": None, "note": str(err)}
        rows.append(
            {
                "name": name,
                "game": game_name,
                "path": str(path),
                "generations": card.get("generations"),
                "wall_seconds": card.get("wall_seconds"),
                "description": card.get("description"),
                "inference": inference,
                "card": card,
            }
        )
    return rows


def _checkpoint_game(path: Any) -> str:
    from mctslab.nn.checkpoint import peek_checkpoint

    return str(peek_checkpoint(path)["game"]["name"])


@app.command("models")
def models_command(
    game: Annotated[
        str | None,
        typer.Option("--game", help="Only the networks of this game.", show_default=False),
    ] = None,
    json_output: JsonOpt = False,
) -> None:
    """List the shipped networks (az:model=NAME, policy:model=NAME): what each plays, how it
    was trained, and where az runs it here (ONNX Runtime or PyTorch)."""
    with user_errors():
        if game is not None:
            make(game)  # an unknown game is an error that lists the known ones
        rows = model_rows(game)
        if not rows and game is not None:
            raise CliError(f"no shipped network plays {game}")
    if json_output:
        print(json.dumps(rows, indent=2))
        return
    for row in rows:
        how = row["inference"]
        where = {"onnx": "ONNX Runtime", "torch": "PyTorch"}.get(how["backend"])
        print(f"{row['name']}: a network for {row['game']} (az:model={row['name']})")
        if row["description"]:
            print(f"  {row['description']}")
        if where is None:
            print(f"  az cannot run it here ({how['note']})")
        else:
            print(f"  az runs it in {where} here ({how['note']})")
