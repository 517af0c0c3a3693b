"""Training's symmetries come from the game (:func:`mctslab.train.symmetry.symmetries`
asks its ``symmetries()``, :mod:`mctslab.games.symmetry`), and a game with none gets the
identity alone; no game is named in :mod:`mctslab.train`."""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from conftest import require_extra

require_extra("torch", "nn")  # mctslab.train imports the learner (PyTorch)

import mctslab  # noqa: E402
from mctslab.core.registry import available_games, games_with  # noqa: E402
from mctslab.games.symmetry import IDENTITY, Symmetry  # noqa: E402
from mctslab.train import symmetry  # noqa: E402
from mctslab.train.symmetry import symmetries  # noqa: E402


class _Declares:
    """A game that declares its symmetries (or none)."""

    def __init__(self, declared: list[Symmetry] | None) -> None:
        if declared is not None:
            self.symmetries = lambda: declared


def test_the_games_own_symmetries_are_the_ones_used() -> None:
    mirror = mctslab.make("connect_four").symmetries()[1]  # type: ignore[attr-defined]
    assert symmetries(_Declares([IDENTITY, mirror])) == [IDENTITY, mirror]


def test_a_game_that_declares_none_gets_the_identity_alone() -> None:
    for game in (_Declares(None), _Declares([]), mctslab.make("go"), mctslab.make("pig")):
        only = symmetries(game)
        assert only == [IDENTITY]
        x: Any = np.arange(6.0).reshape(1, 2, 3)
        np.testing.assert_array_equal(only[0][0](x), x)
        np.testing.assert_array_equal(only[0][1](x), x)


def test_each_game_with_symmetries_gives_its_own() -> None:
    for name in games_with("symmetries"):
        game = mctslab.make(name)
        assert len(symmetries(game)) == len(game.symmetries()) > 1  # type: ignore[attr-defined]


def test_training_names_no_game() -> None:
    source = inspect.getsource(symmetry)
    assert not [name for name in available_games() if f'"{name}"' in source]
