"""What an agent observes of an mctslab state, as a Gymnasium space and its arrays.

Both adapters (:mod:`mctslab.adapters.pettingzoo`, :mod:`mctslab.adapters.gymnasium`)
encode a state for a player the same way, chosen from what the game offers, in this
order:

- ``"tensor"``: the game's own observation tensor, ``state.observation_tensor(player)``
  (tic-tac-toe's ``(3, 3, 3)`` planes, Connect Four's ``(3, 6, 7)``, Go's ``(4, n, n)``,
  Kuhn poker's and Pig's vectors; OpenSpiel's layouts where OpenSpiel has the game), as
  ``float32``. Its shape is the game's ``observation_shape()`` (kernel games) or
  ``observation_tensor_shape()`` (plain-Python games). A game declares no range for its
  tensor, so the space is ``Box(-inf, inf)``.
- ``"history"`` (a perfect-information game without a tensor: Morpion Solitaire,
  SameGame, the TSP): the actions played since the initial state, ``int64``, padded with
  ``-1`` to ``max_game_length`` entries, space ``Box(-1, num_actions - 1)``. With the
  game's parameters the history names the position exactly (these games start from one
  position and have no chance), and it needs nothing of the game beyond the state API.
- ``"infostate"`` (a game with hidden information and no tensor: Knockout Whist): the
  player's ``information_state_string(player)`` (all it knows, with perfect recall) as
  UTF-8 bytes, ``uint8``, zero-padded to ``observation_bytes`` (4096 by default), space
  ``Box(0, 255)``; ``bytes(obs).rstrip(b"\\0").decode()`` gives the text back. A longer
  string raises :class:`~mctslab.core.errors.InvalidConfigError`, naming the option.

The legal-action mask is ``int8`` over ``num_actions`` (:func:`action_mask`).
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from gymnasium import spaces

from mctslab.core.errors import InvalidConfigError, MctslabError
from mctslab.core.game import Game, State
from mctslab.core.infoset import is_perfect_information

__all__ = ["DEFAULT_OBSERVATION_BYTES", "Encoding", "action_mask", "mask_space", "tensor_shape"]

#: The bytes of an ``"infostate"`` observation unless the caller asks for more.
DEFAULT_OBSERVATION_BYTES = 4096

EncodingKind = Literal["tensor", "history", "infostate"]


def tensor_shape(game: object) -> tuple[int, ...] | None:
    """The shape of ``game``'s observation tensor, or ``None`` if it has none: its
    ``observation_shape()`` (a kernel game without an observation kernel refuses it) or
    its ``observation_tensor_shape()`` (Kuhn poker's, Pig's)."""
    for name in ("observation_shape", "observation_tensor_shape"):
        shape_of = getattr(game, name, None)
        if callable(shape_of):
            try:
                return tuple(int(n) for n in shape_of())
            except MctslabError:
                return None
    return None


def action_mask(state: State, num_actions: int, to_move: bool = True) -> np.ndarray[Any, Any]:
    """The ``int8`` mask of ``state``'s legal actions (all zeros when ``to_move`` is false:
    the mask of an agent who is not to move, as PettingZoo's classic games give it)."""
    mask = np.zeros(num_actions, dtype=np.int8)
    if to_move:
        mask[state.legal_actions()] = 1
    return mask


def mask_space(num_actions: int) -> spaces.Box:
    """The space of :func:`action_mask`'s arrays."""
    return spaces.Box(low=0, high=1, shape=(num_actions,), dtype=np.int8)


class Encoding:
    """How a game's states are observed: its ``kind`` (the module's docstring), the
    ``space`` of the arrays and :meth:`encode`, which writes one.

    Args:
        game: the mctslab game.
        observation_bytes: the length of an ``"infostate"`` observation (ignored by the
            other kinds).
    """

    def __init__(self, game: Game, observation_bytes: int = DEFAULT_OBSERVATION_BYTES) -> None:
        if isinstance(observation_bytes, bool) or not isinstance(observation_bytes, int):
            raise InvalidConfigError(
                f"observation_bytes must be a positive integer, got {observation_bytes!r}"
            )
        if observation_bytes < 1:
            raise InvalidConfigError(
                f"observation_bytes must be at least 1, got {observation_bytes}"
            )
        self.game = game
        info = game.info
        self.name = info.name
        shape = tensor_shape(game)
        self.kind: EncodingKind
        self.space: spaces.Box
        if shape is not None:
            self.kind = "tensor"
            self.space = spaces.Box(low=-np.inf, high=np.inf, shape=shape, dtype=np.float32)
        elif is_perfect_information(game):
            self.kind = "history"
            self.space = spaces.Box(
                low=-1,
                high=max(0, info.num_actions - 1),
                shape=(max(1, info.max_game_length),),
                dtype=np.int64,
            )
        else:
            self.kind = "infostate"
            self.space = spaces.Box(low=0, high=255, shape=(observation_bytes,), dtype=np.uint8)

    def encode(self, state: State, player: int) -> np.ndarray[Any, Any]:
        """What ``player`` observes of ``state``: a new array of :attr:`space`."""
        if self.kind == "tensor":
            tensor = state.observation_tensor(player)  # type: ignore[attr-defined]
            return np.asarray(tensor, dtype=np.float32).reshape(self.space.shape)
        if self.kind == "history":
            out = np.full(self.space.shape, -1, dtype=np.int64)
            played = state.history()
            if len(played) > out.size:
                raise InvalidConfigError(
                    f"{self.name}: {len(played)} actions played, more than the game's "
                    f"max_game_length {out.size}"
                )
            out[: len(played)] = played
            return out
        text = state.information_state_string(player).encode()  # type: ignore[attr-defined]
        size = self.space.shape[0]
        if len(text) > size:
            raise InvalidConfigError(
                f"{self.name}: player {player}'s information state is {len(text)} bytes long, "
                f"more than observation_bytes={size}; pass a larger observation_bytes"
            )
        out = np.zeros(size, dtype=np.uint8)
        out[: len(text)] = np.frombuffer(text, dtype=np.uint8)
        return out
