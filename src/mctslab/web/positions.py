"""The games the web API plays, and positions built from a request.

The lab plays its registered games of perfect information (:func:`lab_game_names`)
and the OpenSpiel games of :data:`mctslab.web.openspiel.ALLOWED`, parameters bounded.
:func:`build_position` makes a request's game and position and prices a node of its
tree (:func:`mctslab.web.limits.reference_node_bytes`); the routes run it in a worker
thread under ``Settings.max_build_time``, never on the event loop (a game's tables, a
long list of moves, the compiled kernels' first load take a while).
"""

from __future__ import annotations

from typing import Any

from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import Game, State
from mctslab.core.infoset import is_perfect_information
from mctslab.core.registry import available_games, make, parse_value
from mctslab.web.limits import reference_node_bytes
from mctslab.web.openspiel import PREFIX, checked_openspiel

__all__ = ["build_position", "hides_information", "lab_game_names"]


def lab_game_names() -> list[str]:
    """The registered games the lab plays: those of perfect information with two players
    or more (single-player games are searched by ``mctslab optimize``)."""
    out = []
    for name in available_games():
        game = make(name)
        if is_perfect_information(game) and game.info.num_players >= 2:
            out.append(name)
    return out


def hides_information(name: str) -> str:
    return (
        f"{name} hides information (cards), which the lab's tree would show: play it in the "
        f"terminal, e.g. mctslab play {name} --player human --player ismcts:iterations=1000"
    )


def _game_params(params: dict[str, Any]) -> dict[str, Any]:
    """Game parameters from JSON: strings are read as on the command line ("3" -> 3)."""
    return {k: parse_value(v) if isinstance(v, str) else v for k, v in params.items()}


def build_position(
    name: str, params: dict[str, Any], actions: list[int]
) -> tuple[Game, State, int]:
    """``(game, state, node bytes)``: the game ``name`` with ``params``, the position after
    ``actions``, and the estimated bytes of one node of its reference tree. An OpenSpiel
    game is checked against the allow-list first (a ``ValueError``, 400, names what is
    refused). Slow for some games: call it in a worker thread."""
    native = None
    if name.startswith(PREFIX):
        spiel, typed, native = checked_openspiel(name, params)
        game = make(PREFIX + spiel, **typed)
    else:
        game = make(name, **_game_params(params))
    if not is_perfect_information(game):
        raise InvalidConfigError(hides_information(name))
    state = game.new_initial_state()
    for i, action in enumerate(actions):
        try:
            state.apply_action(action)
        except ValueError as err:
            raise InvalidConfigError(f"actions, move {i + 1}: {err}") from None
    return game, state, reference_node_bytes(state, native)
