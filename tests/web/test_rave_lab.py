"""RAVE and progressive bias in the web lab: the settings the API takes, the AMAF
statistics of the tree view (both engines) and of the step trace."""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Iterator
from typing import Any

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
from mctslab.search.reference.selection import exploration, rave_beta, rave_score
from mctslab.web.app import create_app
from mctslab.web.settings import Settings

TTT = "tic_tac_toe"
K = 300.0
ITERATIONS = 200


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(create_app(Settings()), base_url="http://localhost") as c:
        yield c


def new(client: TestClient, game: str = TTT, **body: Any) -> dict[str, Any]:
    r = client.post("/api/sessions", json={"game": game, **body})
    assert r.status_code == 201, r.text
    data: dict[str, Any] = r.json()
    return data


def detail(r: Any, status: int) -> str:
    assert r.status_code == status, r.text
    body = r.json()
    assert set(body) == {"detail"} and isinstance(body["detail"], str)
    return str(body["detail"])


def nodes(tree: dict[str, Any]) -> Iterator[tuple[dict[str, Any], dict[str, Any] | None]]:
    """Every node of a JSON tree view with its parent (``None`` at the root)."""
    stack: list[tuple[dict[str, Any], dict[str, Any] | None]] = [(tree, None)]
    while stack:
        node, parent = stack.pop()
        yield node, parent
        stack.extend((ch, node) for ch in node["children"])


def reference_tree(game: str, config: SearchConfig) -> dict[str, Any]:
    """The JSON tree view of a fresh reference search from the start (depth unlimited)."""
    state = mctslab.make(game).new_initial_state()
    searcher = MCTS(config)
    searcher.search(state)
    return treeview.to_json(treeview.from_reference(searcher, state))


def searched_tree(client: TestClient, game: str, engine: str, config: dict[str, Any]) -> Any:
    """The whole tree of a 200-iteration search from the start: the reference engine's by
    POST iterations, the compiled engine's as an AI move keeps it for the view."""
    options = {"seed": 5, "engine": engine, "iterations": ITERATIONS, **config}
    if engine == "reference":
        sid = new(client, game, config=options)["id"]
        r = client.post(f"/api/sessions/{sid}/iterations", json={"k": ITERATIONS})
        assert r.status_code == 200, r.text
    else:
        sid = new(client, game, config=options, human_player=1)["id"]
        view = client.post(f"/api/sessions/{sid}/ai").json()
        assert view["kept_tree"]["engine"] == "compiled"
    return client.get(f"/api/sessions/{sid}/tree").json()


# Settings ------------------------------------------------------------------------------------


@pytest.mark.parametrize("game", [TTT, "connect_four"])
@pytest.mark.parametrize("engine", ["reference", "compiled"])
def test_a_rave_session_shows_consistent_amaf_statistics(
    client: TestClient, game: str, engine: str
) -> None:
    tree = searched_tree(client, game, engine, {"rave": K})
    assert tree["visits"] == ITERATIONS
    assert tree["amaf_visits"] is None and tree["amaf_value"] is None  # the root: nobody's move
    seen = 0
    c = math.sqrt(2.0)
    for node, parent in nodes(tree):
        if parent is None:
            continue
        assert node["bias"] is None  # progressive bias is off
        n, amaf_n = node["visits"], node["amaf_visits"]
        assert isinstance(amaf_n, int)
        # A visit through a child is a move its parent's player played first: an AMAF visit.
        assert amaf_n >= n
        if amaf_n == 0:
            assert node["amaf_value"] is None
        else:
            assert 0.0 <= node["amaf_value"] <= 1.0
        # The score is rave_score of the node's statistics under its parent.
        expected = rave_score(
            (node["value"] or 0.0) * n,
            n,
            (node["amaf_value"] or 0.0) * amaf_n,
            amaf_n,
            exploration(c, parent["visits"]),
            rave_beta(K, parent["visits"]),
            0.0,
        )
        if math.isinf(expected):
            assert node["uct"] is None
        else:
            assert node["uct"] == pytest.approx(expected)
        seen += 1
    # Under RAVE every child of a node is added at once: siblings that were never
    # visited still gather AMAF visits.
    assert any(ch["visits"] == 0 and ch["amaf_visits"] > 0 for ch, _ in nodes(tree))
    assert seen >= 20
    # Both engines build the reference search's tree, AMAF statistics included.
    config = SearchConfig(seed=5, iterations=ITERATIONS, rave=K)
    assert tree == reference_tree(game, config)


@pytest.mark.parametrize("engine", ["reference", "compiled"])
def test_progressive_bias_shows_w_h_and_no_amaf(client: TestClient, engine: str) -> None:
    tree = searched_tree(client, "connect_four", engine, {"progressive_bias": 2.0})
    below = [node for node, parent in nodes(tree) if parent is not None]
    assert below
    for node in below:
        assert node["amaf_visits"] is None and node["amaf_value"] is None
        assert 0.0 <= node["bias"] <= 2.0  # w * H, H in [0, 1]
    assert tree == reference_tree(
        "connect_four", SearchConfig(seed=5, iterations=ITERATIONS, progressive_bias=2.0)
    )


@pytest.mark.parametrize("engine", ["reference", "compiled"])
def test_without_the_options_the_fields_are_null(client: TestClient, engine: str) -> None:
    tree = searched_tree(client, TTT, engine, {})
    for node, _ in nodes(tree):
        assert node["amaf_visits"] is None and node["amaf_value"] is None
        assert node["bias"] is None
    view = new(client, config={"rave": 12.5, "progressive_bias": 0.5})
    assert view["config"]["rave"] == 12.5 and view["config"]["progressive_bias"] == 0.5
    assert new(client)["config"]["rave"] == 0.0


def test_the_move_service_takes_rave_on_both_engines(client: TestClient) -> None:
    config: dict[str, Any] = {"seed": 2, "rave": K, "progressive_bias": 1.0, "iterations": 300}
    answers = {}
    for engine in ("reference", "compiled"):
        body = {"game": "connect_four", "actions": [3], "config": {**config, "engine": engine}}
        r = client.post("/api/move", json=body)
        assert r.status_code == 200, r.text
        answers[engine] = r.json()
        assert answers[engine]["engine"] == engine
    # The engines are node-identical under RAVE: the same move from the same statistics.
    ref, comp = answers["reference"], answers["compiled"]
    assert ref["action"] == comp["action"]
    assert [(c["action"], c["visits"]) for c in ref["children"]] == [
        (c["action"], c["visits"]) for c in comp["children"]
    ]
    state = mctslab.make("connect_four").state_from_actions([3])
    searched = SearchConfig(seed=2, rave=K, progressive_bias=1.0, iterations=300)
    assert ref["action"] == mctslab.search(state, searched, engine="reference").action


@pytest.mark.parametrize(
    ("config", "status", "words"),
    [
        ({"rave": -1}, 422, ["config.rave", "greater than or equal to 0"]),
        ({"progressive_bias": -0.5}, 422, ["config.progressive_bias", "greater than or equal"]),
        ({"rave": "NaN"}, 422, ["config.rave", "valid number"]),
        ({"rave": "300"}, 422, ["config.rave", "valid number"]),
        ({"progressive_bias": "inf"}, 422, ["config.progressive_bias", "valid number"]),
        ({"rave": True}, 422, ["config.rave", "valid number"]),
        ({"rave": 2e9}, 422, ["config.rave", "less than or equal"]),
        ({"selection": "puct", "rave": 300}, 400, ["config.rave", "UCT", "PUCT"]),
        ({"selection": "puct", "progressive_bias": 1}, 400, ["config.progressive_bias", "UCT"]),
        ({"knowledge": -1}, 422, ["config.knowledge", "greater than or equal to 0"]),
        ({"selection": "puct", "knowledge": 1}, 400, ["config.knowledge", "UCT"]),
        ({"knowledge": 1}, 400, ["knowledge needs the game's prior-knowledge kernel"]),
    ],
)
def test_bad_values_are_refused_with_a_message(
    client: TestClient, config: dict[str, Any], status: int, words: list[str]
) -> None:
    for path, body in (
        ("/api/sessions", {"game": TTT, "config": config}),
        ("/api/move", {"game": TTT, "config": config}),
    ):
        message = detail(client.post(path, json=body), status)
        for word in words:
            assert word in message, message


def test_nan_and_infinity_in_the_json_body_are_refused(client: TestClient) -> None:
    for literal in ("NaN", "Infinity", "-Infinity"):
        r = client.post(
            "/api/sessions",
            content=f'{{"game": "{TTT}", "config": {{"rave": {literal}}}}}',
            headers={"content-type": "application/json"},
        )
        assert r.status_code == 422, (literal, r.text)
        assert "config.rave" in detail(r, 422)


def test_the_move_service_takes_go_prior_knowledge_on_both_engines(client: TestClient) -> None:
    """Go has a knowledge kernel: both engines answer the same move from the same tree."""
    config: dict[str, Any] = {"seed": 2, "knowledge": 1.0, "rave": 3000, "c": 0, "iterations": 150}
    answers = {}
    for engine in ("reference", "compiled"):
        body = {
            "game": "go",
            "params": {"board_size": 5},
            "actions": [12],
            "config": {**config, "engine": engine},
        }
        r = client.post("/api/move", json=body)
        assert r.status_code == 200, r.text
        answers[engine] = r.json()
    ref, comp = answers["reference"], answers["compiled"]
    assert [(c["action"], c["visits"]) for c in ref["children"]] == [
        (c["action"], c["visits"]) for c in comp["children"]
    ]


def test_puct_with_the_options_at_zero_is_fine(client: TestClient) -> None:
    view = new(client, config={"selection": "puct", "rave": 0, "progressive_bias": 0})
    assert view["config"]["selection"] == "puct"


# The step trace ------------------------------------------------------------------------------


def children_amaf(tree: dict[str, Any]) -> dict[str, dict[str, int]]:
    """Each node's children's AMAF visits by child id, by node id (the view orders
    children by visits, which a step changes)."""
    return {
        node["id"]: {ch["id"]: ch["amaf_visits"] for ch in node["children"]}
        for node, _ in nodes(tree)
    }


def test_a_step_under_rave_reports_its_amaf_updates(client: TestClient) -> None:
    sid = new(client, config={"seed": 7, "rave": K})["id"]
    siblings = 0
    for _ in range(40):
        before = children_amaf(client.get(f"/api/sessions/{sid}/tree").json())
        trace = client.post(f"/api/sessions/{sid}/step").json()
        after = client.get(f"/api/sessions/{sid}/tree").json()
        assert trace["rave"] == K and trace["progressive_bias"] == 0.0
        grown = children_amaf(after)
        for i, u in enumerate(trace["backpropagation"]):  # leaf to root
            was = before.get(u["node"], {})
            now = grown[u["node"]]
            changed = sum(n != was.get(ch, 0) for ch, n in now.items())  # new children: 0
            assert u["amaf_updates"] == changed, (u, was, now)
            if i > 0:  # the path's own child is updated; the rest are its siblings
                assert u["amaf_updates"] >= 1
                siblings += u["amaf_updates"] - 1
        # Selection scores by RAVE: beta, each child's AMAF statistics, the pick the best.
        for level in trace["selection"]:
            assert level["beta"] == pytest.approx(rave_beta(K, level["visits"]))
            for ch in level["children"]:
                assert isinstance(ch["amaf_visits"], int) and ch["bias"] is None
                expected = rave_score(
                    ch["mean"] * ch["visits"],
                    ch["visits"],
                    (ch["amaf_mean"] or 0.0) * ch["amaf_visits"],
                    ch["amaf_visits"],
                    exploration(trace["c"], level["visits"]),
                    level["beta"],
                    0.0,
                )
                assert (ch["uct"] is None) == math.isinf(expected)
                if ch["uct"] is not None:
                    assert ch["uct"] == pytest.approx(expected)
            chosen = next(ch for ch in level["children"] if ch["chosen"])
            scores = [math.inf if ch["uct"] is None else ch["uct"] for ch in level["children"]]
            assert (math.inf if chosen["uct"] is None else chosen["uct"]) == max(scores)
    assert siblings > 0  # siblings off the path got AMAF updates
    # The steps built the tree of a 40-iteration search with the same seed.
    searched = reference_tree(TTT, SearchConfig(seed=7, iterations=40, rave=K))
    assert client.get(f"/api/sessions/{sid}/tree").json() == searched


def test_a_step_without_rave_has_no_amaf_fields(client: TestClient) -> None:
    sid = new(client, config={"seed": 7, "progressive_bias": 1.0})["id"]
    for _ in range(12):
        trace = client.post(f"/api/sessions/{sid}/step").json()
    assert trace["rave"] == 0.0 and trace["progressive_bias"] == 1.0
    assert all(u["amaf_updates"] is None for u in trace["backpropagation"])
    assert trace["selection"], "twelve steps descend below the root"
    for level in trace["selection"]:
        assert level["beta"] is None
        for ch in level["children"]:
            assert ch["amaf_visits"] is None and ch["amaf_mean"] is None
            assert 0.0 <= ch["bias"] <= 1.0


def test_the_text_export_names_the_amaf_statistics(client: TestClient) -> None:
    sid = new(client, config={"seed": 1, "rave": K, "progressive_bias": 1.0})["id"]
    client.post(f"/api/sessions/{sid}/iterations", json={"k": 50})
    text = client.get(f"/api/sessions/{sid}/export", params={"format": "text", "depth": 1}).text
    child = text.splitlines()[1]
    assert "N~=" in child and "Q~=" in child and "wH=" in child and "RAVE=" in child
    assert "UCT=" not in text
