"""What the registry says each game provides (:func:`mctslab.core.registry.games_with`,
:func:`~mctslab.core.registry.capabilities`), read from the game objects themselves, and
board symmetries that come from the game (:mod:`mctslab.games.symmetry`)."""

from __future__ import annotations

from typing import Any

import pytest

import mctslab
from mctslab.core.errors import InvalidConfigError
from mctslab.core.registry import CAPABILITIES, capabilities, games_with, has_capability
from mctslab.games.symmetry import IDENTITY, Symmetry

KERNEL_GAMES = ["bachet", "bohnenspiel", "connect_four", "go", "nim", "tic_tac_toe"]

# Each built-in game's capabilities, as its rules module provides them.
EXPECTED = {
    "bachet": {"kernels", "observation", "heuristic"},
    "bohnenspiel": {"kernels", "observation", "heuristic"},
    "connect_four": {"kernels", "observation", "heuristic", "symmetries"},
    "go": {"kernels", "observation", "heuristic"},
    "nim": {"kernels", "observation", "heuristic"},
    "tic_tac_toe": {"kernels", "observation", "heuristic", "symmetries"},
    "pig": {"heuristic"},
    "kuhn_poker": set(),
    "knockout_whist": set(),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_built_in_games_capabilities(name: str) -> None:
    assert capabilities(mctslab.make(name)) == EXPECTED[name]


def test_games_with_each_capability_lists_the_built_in_games_that_have_it() -> None:
    assert set(EXPECTED) <= set(mctslab.available_games())
    for capability in CAPABILITIES:
        listed = games_with(capability)
        assert listed == sorted(listed)
        assert [n for n in listed if n in EXPECTED] == sorted(
            n for n, caps in EXPECTED.items() if capability in caps
        ), capability
    # Other tests register games of their own (the examples' Hex): count the built-in ones.
    built_in = set(EXPECTED) | set(KERNEL_GAMES)
    assert [n for n in games_with("kernels") if n in built_in] == KERNEL_GAMES
    assert [n for n in games_with("observation") if n in built_in] == KERNEL_GAMES
    assert [n for n in games_with("symmetries") if n in built_in] == ["connect_four", "tic_tac_toe"]


def test_the_network_players_games_are_the_registrys() -> None:
    from mctslab.players.network import observed_games

    assert observed_games() == games_with("observation")


def test_an_unknown_capability_is_refused_with_the_known_ones() -> None:
    with pytest.raises(InvalidConfigError, match=r"unknown capability 'wings'.*kernels"):
        games_with("wings")
    with pytest.raises(InvalidConfigError, match="unknown capability"):
        has_capability(mctslab.make("nim"), "wings")


class _Plain:
    """A game that provides nothing beyond the game API (and a state without heuristic)."""

    def __init__(self, symmetries: list[Symmetry] | None = None) -> None:
        self.info = mctslab.make("nim").info
        if symmetries is not None:
            self.symmetries = lambda: symmetries

    def new_initial_state(self) -> Any:
        return object()


def test_capabilities_are_read_from_the_game_object() -> None:
    """A game has a capability when it provides the thing: a game with no kernels, no
    observation_shape, no heuristic and symmetries of the identity alone has none."""
    assert capabilities(_Plain()) == frozenset()
    assert capabilities(_Plain([IDENTITY])) == frozenset()
    mirror = mctslab.make("connect_four").symmetries()[1]  # type: ignore[attr-defined]
    assert capabilities(_Plain([IDENTITY, mirror])) == {"symmetries"}
