"""``mctslab train``'s flags are made from :class:`TrainConfig`'s declarations: one for
each option, with its type, help and default, and the values go straight into the
config."""

from __future__ import annotations

from typing import Any

import pytest
import typer

from mctslab.cli.main import app
from mctslab.cli.train import _config_values
from mctslab.core.options import options_of
from mctslab.train.config import LIMITS, TrainConfig


def _train_params() -> dict[str, Any]:
    """The train command's click parameters by name (typer's own click: duck-typed)."""
    command = typer.main.get_command(app).commands["train"]  # type: ignore[attr-defined]
    return {p.name: p for p in command.params if p.name is not None}


@pytest.mark.parametrize("name", list(options_of(TrainConfig)))
def test_every_option_is_a_flag_with_its_help_and_default(name: str) -> None:
    opt = options_of(TrainConfig)[name]
    param = _train_params()[name]
    assert param.opts == [opt.flag]
    assert param.default is None  # not given: a resumed run keeps what it ran with
    help_text = param.help or ""
    assert help_text.lower().startswith(opt.help.lower())
    if opt.default is not None:
        shown = f"{opt.default:g}" if isinstance(opt.default, float) else str(opt.default)
        assert help_text.endswith(f"[{shown}].")
    expected = {"int": int, "float": float}.get(opt.kind, str)
    assert param.type_descriptor.annotation is expected  # typed values, not text


def test_the_command_has_its_own_options_and_no_others() -> None:
    own = {"game", "out", "resume", "baseline", "param", "progress"}
    assert set(_train_params()) == {*options_of(TrainConfig), *own}


def test_the_limits_are_the_declared_highs() -> None:
    assert LIMITS["batch_size"] == options_of(TrainConfig)["batch_size"].high == 16_384
    assert set(LIMITS) >= {"generations", "simulations", "buffer", "pretrain_steps"}


def test_the_given_values_go_straight_into_the_config() -> None:
    values, params = _config_values(
        {"lr": 0.01, "minutes": None, "network": "mlp"}, ["a=mcts:iterations=5"], ["n=3"]
    )
    assert values == {"lr": 0.01, "network": "mlp", "baselines": (("a", "mcts:iterations=5"),)}
    assert params == {"n": 3}
