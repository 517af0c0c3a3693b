"""``mctslab search``'s configuration: its ``key=value`` options read against the options
:class:`SearchConfig` and :class:`PuctConfig` declare (names and aliases), its typed flags
straight into the configs (:func:`mctslab.cli.main.command_config`)."""

from __future__ import annotations

import pytest

from mctslab.cli.main import command_config
from mctslab.core.errors import InvalidSpecError
from mctslab.core.options import Option, options_of
from mctslab.search.config import SearchConfig
from mctslab.search.puct import PuctConfig


def _text(value: object) -> str:
    """An option's value as a command line writes it."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


def _spec_options(cls: type) -> list[Option]:
    return [o for o in options_of(cls).values() if o.spec and o.kind != "object"]


@pytest.mark.parametrize(
    ("name", "key"),
    [(o.name, key) for o in _spec_options(SearchConfig) for key in o.names],
)
def test_every_search_option_is_a_key_by_its_name_and_aliases(name: str, key: str) -> None:
    default = getattr(SearchConfig(), name)
    budget = {} if name == "iterations" else {"iterations": "1000"}  # time=none alone: none
    config = command_config({**budget, key: _text(default)}, {}, 0, puct=False)
    assert getattr(config, name) == default


@pytest.mark.parametrize(
    ("name", "key"),
    [(o.name, key) for o in _spec_options(PuctConfig) for key in o.names],
)
def test_every_puct_option_is_a_key_under_puct(name: str, key: str) -> None:
    default = getattr(PuctConfig(), name)
    config = command_config({key: _text(default)}, {}, 0, puct=True)
    assert config.puct is not None and getattr(config.puct, name) == default


def test_the_typed_flags_go_straight_into_the_config() -> None:
    config = command_config({"n": "50"}, {"time": 0.25, "iterations": 70}, 5, puct=False)
    assert (config.iterations, config.time, config.seed) == (70, 0.25, 5)
    alone = command_config({}, {"time": 0.25}, 0, puct=False)
    assert (alone.iterations, alone.time) == (None, 0.25)  # a time alone: no iteration limit
    assert command_config({"seed": "9"}, {}, 5, puct=False).seed == 9  # seed= over --seed
    puct = command_config({}, {"fpu": 0.5, "noise_fraction": 0.25, "batch": 2}, 0, puct=True)
    assert puct.puct == PuctConfig(fpu=0.5, noise_fraction=0.25, batch=2)
    assert puct.iterations == SearchConfig().iterations


def test_simulations_is_the_puct_budget() -> None:
    """``simulations=50`` under ``--puct`` was overwritten by the default iterations
    (the command set ``iterations`` beside it, and the later key won)."""
    assert command_config({"simulations": "50"}, {}, 0, puct=True).iterations == 50


def test_under_puct_uct_options_are_unknown_and_c_is_puct() -> None:
    with pytest.raises(InvalidSpecError, match="unknown puct option 'expansion'; valid options:"):
        command_config({"expansion": "all"}, {}, 0, puct=True)
    config = command_config({"c": "2"}, {}, 0, puct=True)
    assert config.puct is not None and config.puct.c == 2 and config.c == SearchConfig().c
