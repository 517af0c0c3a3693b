"""Network checkpoints (``mctslab.nn.checkpoint``): round trip, atomic writes, and one
clear error for each file that cannot be a network for this game."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conftest import require_extra

torch = require_extra("torch", "nn")

import mctslab  # noqa: E402
from mctslab.nn.checkpoint import CheckpointError, load_checkpoint, save_checkpoint  # noqa: E402
from mctslab.nn.networks import make_network  # noqa: E402

C4 = mctslab.make("connect_four")


def _outputs(net: torch.nn.Module) -> tuple[torch.Tensor, torch.Tensor]:
    x = torch.from_numpy(C4.state_from_actions([3, 3, 2]).observation_tensor()).unsqueeze(0)  # type: ignore[attr-defined]
    with torch.inference_mode():
        return net.eval()(x)  # type: ignore[no-any-return]


def test_a_checkpoint_round_trips_the_network_and_its_meta(tmp_path: Path) -> None:
    net = make_network(C4, channels=16, blocks=2, seed=5)
    with torch.no_grad():  # weights that differ from a fresh network's
        for p in net.parameters():
            p.add_(0.01)
    path = save_checkpoint(tmp_path / "gen" / "net.pt", net, C4, {"generation": 3})
    loaded, meta = load_checkpoint(path, C4)
    assert meta == {"generation": 3}
    for a, b in zip(_outputs(net), _outputs(loaded), strict=True):
        assert torch.equal(a, b)
    assert sorted(p.name for p in path.parent.iterdir()) == ["net.pt"]  # no temporary left


def test_a_network_of_another_game_or_other_rules_is_refused(tmp_path: Path) -> None:
    ttt = mctslab.make("tic_tac_toe")
    path = save_checkpoint(tmp_path / "ttt.pt", make_network(ttt), ttt)
    with pytest.raises(CheckpointError, match="network for tic_tac_toe"):
        load_checkpoint(path, C4)
    small = mctslab.make("connect_four", rows=5)
    path = save_checkpoint(tmp_path / "c4.pt", make_network(C4), C4)
    with pytest.raises(CheckpointError, match="other parameters or version"):
        load_checkpoint(path, small)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"not a checkpoint at all", "corrupt or another format"),
        (None, "corrupt or another format"),  # a real checkpoint cut in half
    ],
)
def test_a_corrupt_file_gets_one_clear_error_and_stays_as_it_was(
    tmp_path: Path, content: bytes | None, message: str
) -> None:
    path = tmp_path / "net.pt"
    if content is None:
        save_checkpoint(path, make_network(C4), C4)
        content = path.read_bytes()[: len(path.read_bytes()) // 2]
    path.write_bytes(content)
    with pytest.raises(CheckpointError, match=message):
        load_checkpoint(path, C4)
    assert path.read_bytes() == content


def test_missing_and_foreign_files_and_unsaveable_networks(tmp_path: Path) -> None:
    with pytest.raises(CheckpointError, match="no network checkpoint at"):
        load_checkpoint(tmp_path / "missing.pt", C4)
    foreign = tmp_path / "foreign.pt"
    torch.save({"weights": torch.zeros(3)}, foreign)
    with pytest.raises(CheckpointError, match="not a mctslab network checkpoint"):
        load_checkpoint(foreign, C4)
    with pytest.raises(CheckpointError, match="made by make_network"):
        save_checkpoint(tmp_path / "x.pt", torch.nn.Linear(3, 3), C4)


def _claims_the_largest_network(tmp_path: Path) -> Path:
    """A small file whose header names the largest network make_network allows (1.2
    billion weights, 4.8 GB) beside a tiny network's weights."""
    path = save_checkpoint(tmp_path / "small.pt", make_network(C4, channels=2, blocks=0), C4)
    payload = torch.load(path, weights_only=True)
    payload["network"] = {"kind": "resnet", "channels": 1024, "blocks": 64, "hidden": 4096}
    torch.save(payload, path)
    assert path.stat().st_size < 100_000
    return path


def test_a_header_naming_a_network_bigger_than_the_file_is_refused_before_allocating(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The header's sizes are checked against the file's length on the meta device:
    no network of those sizes is built in memory (it used to allocate 5 GB first)."""
    path = _claims_the_largest_network(tmp_path)
    built: list[dict[str, object]] = []

    def guarded(game: object, **spec: Any) -> Any:
        if torch.empty(0).device.type != "meta" and spec.get("channels") == 1024:
            built.append(spec)
            raise AssertionError("the claimed network was allocated")
        return make_network(game, **spec)

    monkeypatch.setattr("mctslab.nn.checkpoint.make_network", guarded)
    with pytest.raises(CheckpointError, match="bytes of weights in a file of"):
        load_checkpoint(path, C4)
    assert built == []


def test_weights_of_other_shapes_are_refused_before_the_network_is_built(
    tmp_path: Path,
) -> None:
    """A header naming sizes the file could hold but weights of other shapes: refused."""
    path = save_checkpoint(tmp_path / "a.pt", make_network(C4, channels=8, blocks=1), C4)
    payload = torch.load(path, weights_only=True)
    payload["network"]["channels"] = 4
    torch.save(payload, path)
    with pytest.raises(CheckpointError, match="do not fit"):
        load_checkpoint(path, C4)
