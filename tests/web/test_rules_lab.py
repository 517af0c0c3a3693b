"""The selection rules in the web lab: ``GET /api/rules`` is the registry, and a rule added
to it (UCB1-Tuned) is usable in sessions, the move service (both engines), the tree view
and the step trace, with its own score."""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Iterator

import pytest

if os.environ.get("MCTSLAB_REQUIRE_EXTRAS"):
    import fastapi  # noqa: F401
else:
    pytest.importorskip("fastapi")

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*httpx2", category=Warning)
    from fastapi.testclient import TestClient

import mctslab
from mctslab.analysis import treeview
from mctslab.search.config import SearchConfig
from mctslab.search.mcts import MCTS
from mctslab.search.rules import RULES, ucb1_tuned_score
from mctslab.web.app import create_app
from mctslab.web.settings import Settings

TUNED = {"selection": "ucb1-tuned", "c": 1.0, "seed": 4}


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(create_app(Settings()), base_url="http://localhost") as c:
        yield c


def test_the_rules_endpoint_is_the_registry(client: TestClient) -> None:
    rules = client.get("/api/rules").json()
    assert [r["name"] for r in rules] == list(RULES)
    by_name = {r["name"]: r for r in rules}
    assert by_name["ucb1-tuned"]["choice"] == "ucb1-tuned"
    assert by_name["ucb1-tuned"]["statistics"] == ["squares"]
    assert "min(1/4, V)" in by_name["ucb1-tuned"]["formula"]
    assert by_name["puct"]["choice"] == "puct" and by_name["rave"]["choice"] is None
    # The request schema offers exactly the rules with a choice.
    schema = client.get("/openapi.json").json()["components"]["schemas"]["EngineConfig"]
    offered = schema["properties"]["selection"]["enum"]
    assert offered == [r["choice"] for r in rules if r["choice"]]


def test_an_unknown_rule_is_a_422_naming_the_choices(client: TestClient) -> None:
    r = client.post("/api/sessions", json={"game": "tic_tac_toe", "config": {"selection": "ucb2"}})
    assert r.status_code == 422
    assert "ucb1-tuned" in r.json()["detail"] and "config.selection" in r.json()["detail"]
    r = client.post(
        "/api/move",
        json={"game": "tic_tac_toe", "config": {"selection": "ucb1-tuned", "rave": 100}},
    )
    assert (
        r.status_code == 400 and "rave, progressive_bias and knowledge extend" in r.json()["detail"]
    )


def test_the_move_service_is_node_identical_under_ucb1_tuned(client: TestClient) -> None:
    answers = {}
    for engine in ("reference", "compiled"):
        body = {
            "game": "connect_four",
            "actions": [3],
            "config": {**TUNED, "iterations": 400, "engine": engine},
        }
        r = client.post("/api/move", json=body)
        assert r.status_code == 200, r.text
        answers[engine] = r.json()
    ref, comp = answers["reference"], answers["compiled"]
    assert [(c["action"], c["visits"]) for c in ref["children"]] == [
        (c["action"], c["visits"]) for c in comp["children"]
    ]
    # And it is not UCT's search under another name.
    body = {"game": "connect_four", "actions": [3], "config": {"c": 1.0, "seed": 4}}
    uct = client.post("/api/move", json={**body, "config": {**body["config"], "iterations": 400}})
    assert [c["visits"] for c in uct.json()["children"]] != [c["visits"] for c in ref["children"]]


def test_the_tree_view_shows_ucb1_tuned_scores() -> None:
    state = mctslab.make("tic_tac_toe").new_initial_state()
    searcher = MCTS(SearchConfig(iterations=300, selection="ucb1-tuned", c=1.0, seed=4))
    searcher.search(state)
    view = treeview.to_json(treeview.from_reference(searcher, state))
    assert searcher.root is not None
    checked = 0
    by_action = {ch.action: ch for ch in searcher.root.children}
    log_n = math.log(searcher.root.visits)
    for child in view["children"]:
        node = by_action[child["action"]]
        want = ucb1_tuned_score(node.value_sum, node.squares, node.visits, log_n, 1.0)
        assert child["uct"] == pytest.approx(want)
        checked += 1
    assert checked == 9


def test_a_step_names_the_rule_and_shows_its_scores(client: TestClient) -> None:
    sid = client.post("/api/sessions", json={"game": "tic_tac_toe", "config": TUNED}).json()["id"]
    for _ in range(30):
        trace = client.post(f"/api/sessions/{sid}/step").json()
    assert trace["rule"] == "ucb1-tuned" and trace["score_label"] == "UCB1-Tuned"
    assert trace["selection_rule"] == "uct"
    top = trace["selection"][0]
    tree = client.get(f"/api/sessions/{sid}/tree").json()
    assert tree["visits"] == 30
    # The root's children's scores are UCB1-Tuned's of the statistics before the step.
    chosen = [c for c in top["children"] if c["chosen"]]
    assert len(chosen) == 1
    finite = [c["uct"] for c in top["children"] if c["uct"] is not None]
    assert chosen[0]["uct"] == max(finite)
    uct_trace = client.post(
        f"/api/sessions/{client.post('/api/sessions', json={'game': 'tic_tac_toe'}).json()['id']}/step"
    ).json()
    assert uct_trace["rule"] == "uct" and uct_trace["score_label"] == "UCT"
