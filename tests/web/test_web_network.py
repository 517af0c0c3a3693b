"""The web lab's trained networks as PUCT's evaluator (mctslab.web.networks): each
game's ``models`` in ``GET /api/games``, and ``config.evaluator: "network:NAME"``.

No network is shipped in the source tree yet, so each test writes a tiny one and makes
it the package's only shipped network (``mctslab.players.network.shipped_models``).
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

if os.environ.get("MCTSLAB_REQUIRE_EXTRAS"):
    # `make test` installs every extra: a missing one fails here instead of skipping.
    import fastapi  # noqa: F401
    import torch  # noqa: F401
else:
    pytest.importorskip("fastapi")
    pytest.importorskip("torch")

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*httpx2", category=Warning)
    from fastapi.testclient import TestClient

import mctslab
from mctslab.nn.checkpoint import save_checkpoint
from mctslab.nn.networks import make_network
from mctslab.players import network
from mctslab.players.network import NetworkPolicyPlayer, network_evaluator
from mctslab.search.config import SearchConfig
from mctslab.search.puct import PuctConfig
from mctslab.web import networks
from mctslab.web.app import create_app
from mctslab.web.settings import Settings

C4 = "connect_four"
NET = "network:connect_four"
CARD = {
    "game": C4,
    "description": "A tiny test network: random weights, no training.",
    "command": "mctslab train connect_four --generations 3",
    "generations": 3,
    "wall_seconds": 125.0,
    "evaluation": {"vs": "mcts:iterations=100", "score": 0.5},
}


@pytest.fixture
def model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A tiny Connect Four network with its model card, shipped as ``connect_four``."""
    game = mctslab.make(C4)
    path = tmp_path / "connect_four.pt"
    net = make_network(game, channels=4, blocks=1, hidden=8)
    save_checkpoint(path, net, game, {"generation": 3})
    path.with_suffix(".json").write_text(json.dumps(CARD))
    monkeypatch.setattr(network, "shipped_models", lambda: {"connect_four": path})
    return path


@pytest.fixture
def client(model: Path) -> Iterator[TestClient]:
    with TestClient(create_app(Settings()), base_url="http://localhost") as c:
        yield c


def detail(r: Any, status: int) -> str:
    assert r.status_code == status, r.text
    body = r.json()
    assert set(body) == {"detail"} and isinstance(body["detail"], str)
    assert "\n" not in body["detail"]
    return str(body["detail"])


def models(client: TestClient) -> dict[str, list[dict[str, Any]]]:
    """Each game's networks, as GET /api/games lists them."""
    return {g["name"]: g["models"] for g in client.get("/api/games").json()}


def net_config(**more: Any) -> dict[str, Any]:
    return {"selection": "puct", "evaluator": NET, "seed": 3, **more}


def test_models_lists_the_shipped_networks_with_their_cards(client: TestClient) -> None:
    listed_by_game = models(client)
    (listed,) = listed_by_game[C4]
    assert listed["name"] == "connect_four" and listed["evaluator"] == NET
    assert listed["game"] == C4
    assert listed["description"] == CARD["description"]
    assert listed["generations"] == 3 and listed["wall_seconds"] == 125.0
    assert listed["command"] == CARD["command"]
    assert listed["evaluation"] == CARD["evaluation"] and listed["card"] == CARD
    assert (
        listed["label"] == "network: connect_four (AlphaZero-style, trained 3 generations, 2 min)"
    )
    assert all(not listed for game, listed in listed_by_game.items() if game != C4)
    # The schema names it among the evaluators.
    schema = client.get("/openapi.json").json()
    evaluator = schema["components"]["schemas"]["EngineConfig"]["properties"]["evaluator"]
    assert evaluator["enum"] == ["uniform+rollout", "uniform", "heuristic", NET]


def test_a_network_without_a_card_is_listed_all_the_same(client: TestClient, model: Path) -> None:
    model.with_suffix(".json").unlink()
    (listed,) = models(client)[C4]
    assert listed["card"] == {} and listed["description"] is None
    assert listed["generations"] is None and listed["evaluation"] is None
    assert listed["label"] == "network: connect_four (AlphaZero-style, a trained network)"


def test_a_network_session_searches_with_the_networks_priors_and_value(
    client: TestClient, model: Path
) -> None:
    r = client.post("/api/sessions", json={"game": C4, "config": net_config(iterations=40)})
    assert r.status_code == 201, r.text
    view = r.json()
    sid = view["id"]
    assert view["config"]["evaluator"] == NET
    assert view["inference"] == "onnx"  # ONNX Runtime is installed in the tests: az's path
    plain = client.post("/api/sessions", json={"game": C4, "config": {"iterations": 10}})
    assert plain.json()["inference"] is None  # no network, no inference path
    state = mctslab.make(C4).new_initial_state()
    priors, value = NetworkPolicyPlayer(model).evaluate(state)
    # Step mode: the leaf (the root) is the network's to evaluate.
    first = client.post(f"/api/sessions/{sid}/step").json()
    assert first["selection_rule"] == "puct"
    exp = first["expansion"]
    assert exp["added"] == 7
    assert {p["action"]: p["prior"] for p in exp["priors"]} == pytest.approx(
        {a: float(priors[a]) for a in range(7)}
    )
    sim = first["simulation"]
    assert sim["kind"] == "evaluation" and sim["evaluator"] == NET
    # The value backed up is the network's, for the player to move, as rewards in [0, 1].
    assert sim["value"] == pytest.approx([(1 + value) / 2, (1 - value) / 2])
    # The tree: the root's children carry the network's priors.
    client.post(f"/api/sessions/{sid}/iterations", json={"k": 20})
    tree = client.get(f"/api/sessions/{sid}/tree", params={"depth": 1}).json()
    assert {c["action"]: c["prior"] for c in tree["children"]} == pytest.approx(
        {a: float(priors[a]) for a in range(7)}
    )
    # The AI's move is PUCT's with the network as its evaluator, and the same seed.
    client.post(f"/api/sessions/{sid}/reset")
    last = client.post(f"/api/sessions/{sid}/ai").json()["last_ai"]
    expected = mctslab.search(
        state,
        SearchConfig(
            seed=3,
            iterations=40,
            puct=PuctConfig(evaluator=network_evaluator(model, state.game, "onnx")[0]),
        ),
        engine="reference",
    )
    assert last["action"] == expected.action
    assert [(c["action"], c["visits"], c["prior"]) for c in last["children"]] == [
        (c.action, c.visits, pytest.approx(c.prior)) for c in expected.children
    ]


def test_the_compiled_engine_and_the_bot_service_take_a_network(client: TestClient) -> None:
    config = net_config(engine="compiled", iterations=30)
    r = client.post("/api/sessions", json={"game": C4, "config": config, "human_player": 1})
    assert r.status_code == 201, r.text
    last = client.post(f"/api/sessions/{r.json()['id']}/ai").json()["last_ai"]
    assert last["engine"] == "compiled" and last["iterations"] == 30
    assert sum(c["prior"] for c in last["children"]) == pytest.approx(1.0)
    r = client.post("/api/move", json={"game": C4, "actions": [3], "config": config})
    assert r.status_code == 200, r.text
    assert sum(c["prior"] for c in r.json()["children"]) == pytest.approx(1.0)


def test_an_unknown_network_is_a_422_that_names_the_known_ones(client: TestClient) -> None:
    for path, body in [
        ("/api/sessions", {"game": C4, "config": net_config(evaluator="network:nope")}),
        ("/api/move", {"game": C4, "config": net_config(evaluator="network:nope")}),
    ]:
        message = detail(client.post(path, json=body), 422)
        assert message.startswith("config.evaluator: unknown network 'nope'")
        assert NET in message
    # Never a path: a client cannot have the server load a file.
    r = client.post(
        "/api/sessions", json={"game": C4, "config": net_config(evaluator="network:/tmp/x.pt")}
    )
    assert "unknown network" in detail(r, 422)
    r = client.post("/api/sessions", json={"game": C4, "config": net_config(evaluator="net")})
    message = detail(r, 422)
    assert (
        message.startswith("config.evaluator: unknown evaluator 'net'")
        and "network:NAME" in message
    )


def test_another_games_network_is_a_400(client: TestClient) -> None:
    config = net_config()
    r = client.post("/api/sessions", json={"game": "tic_tac_toe", "config": config})
    message = detail(r, 400)
    assert message == (
        "config.evaluator: network:connect_four is a network for connect_four, not for "
        "tic_tac_toe; the networks for tic_tac_toe: none"
    )
    r = client.post("/api/move", json={"game": "tic_tac_toe", "config": config})
    assert "not for tic_tac_toe" in detail(r, 400)
    # Connect Four on another board: the network's input does not fit.
    r = client.post("/api/sessions", json={"game": C4, "params": {"rows": 5}, "config": config})
    assert detail(r, 400).startswith("config.evaluator: network:connect_four does not fit:")


def test_without_pytorch_no_network_is_offered(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(networks, "torch_available", lambda: False)
    assert not any(models(client).values())
    r = client.post("/api/sessions", json={"game": C4, "config": net_config()})
    assert "needs PyTorch" in detail(r, 422)
    # The built-in evaluators still play.
    r = client.post("/api/sessions", json={"game": C4, "config": net_config(evaluator="uniform")})
    assert r.status_code == 201, r.text
