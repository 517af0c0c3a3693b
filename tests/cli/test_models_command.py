"""``mctslab models``: the shipped networks with their cards and the inference path that
``az:model=NAME`` takes here (ONNX Runtime where it is installed, else PyTorch and why);
an unknown game, or a game without a network, is one error line and exit 2."""

from __future__ import annotations

import json
import sys

import pytest
from typer.testing import CliRunner

from conftest import require_extra
from mctslab.cli import models
from mctslab.cli.main import app
from mctslab.core.errors import InvalidSpecError
from mctslab.players import network
from mctslab.players.network import shipped_models

require_extra("onnxruntime", "nn")


def test_every_shipped_network_is_listed_with_its_card_and_inference_path() -> None:
    done = CliRunner().invoke(app, ["models", "--json"])
    assert done.exit_code == 0, done.output
    rows = json.loads(done.stdout)
    assert [r["name"] for r in rows] == list(shipped_models())
    c4 = next(r for r in rows if r["name"] == "connect_four")
    assert c4["game"] == "connect_four" and c4["generations"] == c4["card"]["generations"]
    assert c4["inference"] == {"backend": "onnx", "note": "ONNX Runtime, checked against PyTorch"}
    text = CliRunner().invoke(app, ["models", "--game", "tic_tac_toe"]).stdout
    assert "az runs it in ONNX Runtime here" in text and "connect_four" not in text


def test_without_onnx_runtime_the_listing_says_pytorch_and_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import fails
    monkeypatch.setattr(network, "_onnx_cache", {})
    done = CliRunner().invoke(app, ["models", "--game", "connect_four", "--json"])
    assert done.exit_code == 0, done.output
    (row,) = json.loads(done.stdout)
    assert row["inference"]["backend"] == "torch"
    assert "ONNX Runtime not used" in row["inference"]["note"]


def test_without_pytorch_the_networks_are_listed_from_their_cards(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_torch(*_: object) -> str:
        raise ImportError("No module named 'torch'")

    def no_players(*_: object) -> None:
        raise InvalidSpecError("network players need PyTorch: pip install 'mctslab[nn]'")

    monkeypatch.setattr(models, "_checkpoint_game", no_torch)
    monkeypatch.setattr(models, "network_evaluator", no_players)
    done = CliRunner().invoke(app, ["models"])
    assert done.exit_code == 0, done.output
    assert "connect_four: a network for connect_four" in done.stdout
    assert "az cannot run it here (network players need PyTorch" in done.stdout


@pytest.mark.parametrize(
    ("game", "message"),
    [("nope", "error: unknown game 'nope'"), ("go", "error: no shipped network plays go")],
)
def test_a_game_without_a_network_is_one_error_line(game: str, message: str) -> None:
    done = CliRunner().invoke(app, ["models", "--game", game])
    assert done.exit_code == 2 and done.stdout == ""
    assert done.stderr.startswith(message) and len(done.stderr.strip().splitlines()) == 1
