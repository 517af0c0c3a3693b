"""Networks in ONNX Runtime (``OnnxEvaluator``, ``network_evaluator``, ``mctslab
export-onnx``): the same priors and values as PyTorch to 1e-5, the same search tree, the
shipped ``.onnx`` files current, a stale one refused and replaced, PyTorch when ONNX
Runtime is missing, and the errors a user can meet."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from conftest import require_extra

torch = require_extra("torch", "nn")
require_extra("onnxruntime", "nn")

import mctslab  # noqa: E402
from mctslab.cli.main import app  # noqa: E402
from mctslab.core.errors import InvalidSpecError  # noqa: E402
from mctslab.nn.checkpoint import save_checkpoint  # noqa: E402
from mctslab.nn.export import onnx_bytes  # noqa: E402
from mctslab.nn.networks import make_network  # noqa: E402
from mctslab.players import network  # noqa: E402
from mctslab.players.network import load_model, network_evaluator, resolve_model  # noqa: E402
from mctslab.search.evaluators import LeafBatch, OnnxEvaluator, make_evaluator  # noqa: E402

runner = CliRunner()


def _batch(game_name: str, count: int, seed: int) -> LeafBatch:
    game = mctslab.make(game_name)
    rng = mctslab.core.rng.Rng(seed)
    states = []
    state = game.new_initial_state()
    while len(states) < count:
        if state.is_terminal():
            state = game.new_initial_state()
        states.append(state.clone())
        legal = state.legal_actions()
        state.apply_action(legal[rng.randint(len(legal))])
    mask = np.array([s.legal_actions_mask() for s in states], dtype=bool)
    return LeafBatch(mask, np.array([s.current_player() for s in states]), states=states)


@pytest.mark.parametrize("name", ["connect_four", "tic_tac_toe"])
def test_the_shipped_onnx_networks_are_pytorchs(name: str) -> None:
    """The ``.onnx`` shipped beside each ``.pt``: priors and values to 1e-5 on positions
    of random games, through both evaluators (masking and softmax included)."""
    game = mctslab.make(name)
    net = load_model(resolve_model(name), game)
    onnx = OnnxEvaluator(resolve_model(name).with_suffix(".onnx"))
    batch = _batch(name, 50, seed=1)
    priors, values = onnx.evaluate(batch)
    want_priors, want_values = make_evaluator(net).evaluate(batch)
    np.testing.assert_allclose(priors, want_priors, atol=1e-5, rtol=0)
    np.testing.assert_allclose(values, want_values, atol=1e-5, rtol=0)
    assert np.all(priors[~batch.legal_mask] == 0.0)


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_the_search_is_the_same_on_either_backend(engine: str) -> None:
    """``az`` at 200 simulations on positions of a random game: every child's visits the
    same with the network in ONNX Runtime as in PyTorch (node identity of the search)."""
    game = mctslab.make("connect_four")
    rng = mctslab.core.rng.Rng(2)
    state = game.new_initial_state()
    for _ in range(6):
        trees = {}
        for backend in ("torch", "onnx"):
            spec = f"az:model=connect_four,simulations=200,engine={engine},backend={backend}"
            player = mctslab.make_player(spec, game.info, seed=3)
            player.choose(state.clone())
            assert player.backend == backend  # type: ignore[attr-defined]
            result = player.last_result  # type: ignore[attr-defined]
            trees[backend] = (result.action, [(c.action, c.visits) for c in result.children])
        assert trees["torch"] == trees["onnx"]
        legal = state.legal_actions()
        state.apply_action(legal[rng.randint(len(legal))])


def _own_checkpoint(folder: Path, seed: int) -> tuple[Path, object]:
    game = mctslab.make("tic_tac_toe")
    net = make_network(game, channels=8, blocks=1, hidden=8, seed=seed)
    return save_checkpoint(folder / "mine.pt", net, game), game


def test_auto_uses_onnx_and_replaces_a_stale_sidecar(tmp_path: Path) -> None:
    """A checkpoint with no ``.onnx`` is exported on load; one whose ``.onnx`` is another
    network's (stale) is caught by the check against PyTorch and exported afresh."""
    path, game = _own_checkpoint(tmp_path, seed=1)
    evaluator, backend, _ = network_evaluator(path, game)
    assert backend == "onnx" and isinstance(evaluator, OnnxEvaluator)
    other = make_network(game, channels=8, blocks=1, hidden=8, seed=2)
    (tmp_path / "stale").mkdir()
    stale_path = tmp_path / "stale" / "mine.pt"
    shutil.copy(path, stale_path)
    stale_path.with_suffix(".onnx").write_bytes(onnx_bytes(other, game.observation_shape()))  # type: ignore[attr-defined]
    evaluator, backend, _ = network_evaluator(stale_path, game, "onnx")
    assert backend == "onnx"
    batch = _batch("tic_tac_toe", 20, seed=4)
    want = make_evaluator(load_model(stale_path, game)).evaluate(batch)
    np.testing.assert_allclose(evaluator.evaluate(batch)[1], want[1], atol=1e-5, rtol=0)
    stale_path.with_suffix(".onnx").write_bytes(b"not a network")  # unreadable: replaced too
    network._onnx_cache.clear()
    evaluator, backend, _ = network_evaluator(stale_path, game, "onnx")
    assert backend == "onnx"
    np.testing.assert_allclose(evaluator.evaluate(batch)[1], want[1], atol=1e-5, rtol=0)


def test_without_onnx_runtime_auto_falls_back_and_onnx_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, game = _own_checkpoint(tmp_path, seed=5)
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import fails
    monkeypatch.setattr(network, "_onnx_cache", {})
    _, backend, note = network_evaluator(path, game)
    assert backend == "torch" and "ONNX Runtime not used" in note and "pip install" in note
    with pytest.raises(InvalidSpecError, match="ONNX Runtime"):
        network_evaluator(path, game, "onnx")
    assert network_evaluator(path, game, "torch")[1] == "torch"


def test_bad_backends_and_files_are_refused(tmp_path: Path) -> None:
    info = mctslab.make("connect_four").info
    with pytest.raises(InvalidSpecError, match="valid backends: auto, onnx, torch"):
        mctslab.make_player("az:model=connect_four,backend=gpu", info)
    with pytest.raises(mctslab.MctslabError, match="cannot load the network"):
        OnnxEvaluator(b"not a network")


def test_export_onnx_command(tmp_path: Path) -> None:
    path, _ = _own_checkpoint(tmp_path, seed=6)
    done = runner.invoke(app, ["export-onnx", str(path)])
    assert done.exit_code == 0, done.output
    assert path.with_suffix(".onnx").is_file() and "wrote" in done.stdout
    done = runner.invoke(app, ["export-onnx", str(path), "--out", str(tmp_path / "x.txt")])
    assert done.exit_code == 2 and "ends in .onnx" in done.stderr
    done = runner.invoke(app, ["export-onnx", "no_such_model"])
    assert done.exit_code == 2 and "unknown model" in done.stderr


def test_a_sidecar_naming_a_file_outside_itself_is_not_read(tmp_path: Path) -> None:
    """A ``.onnx`` is data: one whose weights point at another file (ONNX's external
    data, here an absolute path and one climbing out of its folder) is refused by ONNX
    Runtime (the graph is given as bytes) and replaced by a fresh export."""
    onnx = require_extra("onnx", "nn")
    path, game = _own_checkpoint(tmp_path, seed=7)
    secret = tmp_path / "secret.bin"
    secret.write_bytes(b"\0\0\x80\x3f")  # 1.0f: it would load, were it read
    want = make_evaluator(load_model(path, game)).evaluate(_batch("tic_tac_toe", 10, seed=8))
    for location in (str(secret), "../secret.bin"):
        weight = onnx.TensorProto(name="w", data_type=onnx.TensorProto.FLOAT, dims=[1])
        weight.data_location = onnx.TensorProto.EXTERNAL
        weight.external_data.add(key="location", value=location)
        graph = onnx.helper.make_graph(
            [
                onnx.helper.make_node("Add", ["x", "w"], ["y"]),
                onnx.helper.make_node("Identity", ["y"], ["z"]),
            ],
            "hostile",
            [onnx.helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1])],
            [
                onnx.helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT, [1])
                for name in ("y", "z")
            ],
            [weight],
        )
        model = onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 17)])
        (tmp_path / "inner").mkdir(exist_ok=True)
        inner = tmp_path / "inner" / "mine.pt"
        shutil.copy(path, inner)
        inner.with_suffix(".onnx").write_bytes(model.SerializeToString())
        # Two outputs, as an evaluator's: only the file it names stops it loading.
        with pytest.raises(mctslab.MctslabError, match="External data path"):
            OnnxEvaluator(inner.with_suffix(".onnx").read_bytes())
        network._onnx_cache.clear()
        evaluator, backend, _ = network_evaluator(inner, game, "onnx")
        assert backend == "onnx"
        got = evaluator.evaluate(_batch("tic_tac_toe", 10, seed=8))
        np.testing.assert_allclose(got[1], want[1], atol=1e-5, rtol=0)
