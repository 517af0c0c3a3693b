"""The web lab's JSON API (mctslab.web.routes), through FastAPI's test client."""

from __future__ import annotations

import importlib.util
import itertools
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

if os.environ.get("MCTSLAB_REQUIRE_EXTRAS"):
    # `make test` installs every extra: a missing FastAPI fails here instead of skipping.
    import fastapi  # noqa: F401
else:
    pytest.importorskip("fastapi")

with warnings.catch_warnings():
    # Recent Starlette prefers the httpx2 package (and warns); httpx works with every
    # Starlette that FastAPI may bring.
    warnings.filterwarnings("ignore", message=".*httpx2", category=Warning)
    from fastapi.testclient import TestClient

import mctslab
from mctslab.analysis import treeview
from mctslab.search.config import SearchConfig
from mctslab.search.mcts import MCTS
from mctslab.search.puct import PuctConfig
from mctslab.web.app import create_app
from mctslab.web.runner import run_chunks
from mctslab.web.settings import Settings

TTT = "tic_tac_toe"


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
    assert "\n" not in body["detail"]
    return str(body["detail"])


def reference_tree(game: str, moves: list[int], config: SearchConfig) -> dict[str, Any]:
    """The JSON tree view of a fresh reference search (depth unlimited)."""
    state = mctslab.make(game).state_from_actions(moves)
    searcher = MCTS(config)
    searcher.search(state)
    return treeview.to_json(treeview.from_reference(searcher, state))


# Service endpoints ---------------------------------------------------------------------------


def test_health_games_and_page(client: TestClient) -> None:
    health = client.get("/api/health").json()
    assert health["status"] == "ok"
    # The budget caps, from which the page sets its inputs' maxima.
    assert health["max_iterations"] == 200_000 and health["max_time"] == 10.0
    games = {g["name"]: g for g in client.get("/api/games").json()}
    assert set(games) >= {"tic_tac_toe", "connect_four", "nim", "bachet"}
    assert games["tic_tac_toe"]["board"] == "grid" and games["nim"]["board"] == "piles"
    assert games["connect_four"]["parameters"] == {"rows": 6, "columns": 7, "x_in_row": 4}
    assert games["nim"]["parameters"]["piles"] == [1, 3, 5, 7]
    assert games["connect_four"]["num_players"] == 2 and games["connect_four"]["num_actions"] == 7
    page = client.get("/")
    assert page.status_code == 200 and "<html" in page.text.lower()
    assert client.get("/static/app.js").status_code == 200


def test_the_docs_name_every_game_of_the_page(client: TestClient) -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "web.md").read_text()
    listed = re.search(r"Choose a game \(([^;]*);", page)
    assert listed is not None
    names = {n.strip().lower().replace("-", "_").replace(" ", "_") for n in listed[1].split(",")}
    served = {g["name"] for g in client.get("/api/games").json()}
    # The built-in ones: a test may have registered a user's game (examples/) in this process.
    built_in = {n for n in served if type(mctslab.make(n)).__module__.startswith("mctslab.")}
    assert names == built_in


def test_openapi_lists_every_endpoint(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    s = "/api/sessions/{sid}"
    expected = {
        "/api/health": {"get"},
        "/api/games": {"get"},
        "/api/move": {"post"},
        "/api/sessions": {"post"},
        s: {"get", "delete"},
        **{f"{s}/{name}": {"post"} for name in ("play", "ai", "iterations", "step", "reset")},
        f"{s}/cancel": {"post"},
        **{f"{s}/{name}": {"get"} for name in ("tree", "node", "export")},
    }
    for path, methods in expected.items():
        assert path in paths, path
        assert set(paths[path]) >= methods, path
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    assert {"SessionView", "TraceOut", "MoveOut", "TreeNodeOut", "EngineConfig"} <= set(schemas)


@pytest.mark.parametrize("engine", ["reference", "compiled"])
def test_move_is_the_search_with_the_same_config_and_seed(client: TestClient, engine: str) -> None:
    config = {"engine": engine, "c": 1.0, "seed": 3, "solver": True}
    r = client.post(
        "/api/move",
        json={"game": "connect_four", "actions": [3, 3, 4], "config": config, "iterations": 400},
    )
    assert r.status_code == 200, r.text
    got = r.json()
    state = mctslab.make("connect_four").state_from_actions([3, 3, 4])
    expected = mctslab.search(
        state, SearchConfig(c=1.0, seed=3, solver=True, iterations=400), engine=engine
    )
    assert got["action"] == expected.action and got["label"] == str(expected.action + 1)
    assert got["engine"] == engine and got["iterations"] == 400
    assert [(c["action"], c["visits"]) for c in got["children"]] == [
        (c.action, c.visits) for c in expected.children
    ]
    assert got["value"] == pytest.approx(expected.value)


def test_move_errors(client: TestClient) -> None:
    r = client.post("/api/move", json={"game": TTT, "actions": [0, 3, 1, 4, 2]})
    assert "game is over" in detail(r, 400)
    r = client.post("/api/move", json={"game": TTT, "actions": [0, 0]})
    assert "actions, move 2" in detail(r, 400) and "legal actions" in detail(r, 400)
    r = client.post("/api/move", json={"game": TTT, "time": 0.01, "iterations": None})
    assert r.status_code == 200 and r.json()["iterations"] >= 1


# Sessions: playing ---------------------------------------------------------------------------


def test_session_view_and_play(client: TestClient) -> None:
    view = new(client, human_player=0, config={"iterations": 200, "seed": 1})
    assert view["game"] == TTT and view["engine"] == "reference" and view["human_player"] == 0
    assert view["config"]["iterations"] == 200 and view["last_ai"] is None
    state = view["state"]
    assert state["current_player"] == 0 and not state["terminal"] and state["actions"] == []
    assert [m["label"] for m in state["legal"]][:3] == ["a1", "b1", "c1"]
    assert state["render"]["kind"] == "grid" and state["render"]["cells"] == [""] * 9
    assert view["tree"] == {"nodes": 1, "root_visits": 0}
    sid = view["id"]
    played = client.post(f"/api/sessions/{sid}/play", json={"action": "b2"}).json()
    assert played["state"]["actions"] == [4] and played["state"]["render"]["cells"][4] == "x"
    assert "4" not in played["state"]["render"]["actions"]
    assert client.get(f"/api/sessions/{sid}").json()["state"]["actions"] == [4]
    ai = client.post(f"/api/sessions/{sid}/ai").json()
    last = ai["last_ai"]
    assert last["iterations"] == 200 and last["player"] == 1 and last["engine"] == "reference"
    assert last["final_rule"] == "robust" and last["stopped_by"] == "iterations"
    assert sum(c["visits"] for c in last["children"]) == 200
    assert last["action"] == max(last["children"], key=lambda c: c["visits"])["action"]
    assert ai["state"]["actions"] == [4, last["action"]]
    # The tree was kept: the chosen move's subtree is the new tree.
    chosen = next(c for c in last["children"] if c["action"] == last["action"])
    assert ai["tree"]["root_visits"] == chosen["visits"]


def test_ai_move_is_the_search_with_the_same_config(client: TestClient) -> None:
    # 3000 iterations run as several chunks; the tree (and the move) are one search's.
    view = new(client, "connect_four", config={"iterations": 3000, "seed": 7, "c": 0.8})
    ai = client.post(f"/api/sessions/{view['id']}/ai").json()["last_ai"]
    state = mctslab.make("connect_four").new_initial_state()
    expected = MCTS(SearchConfig(iterations=3000, seed=7, c=0.8)).search(state)
    assert ai["action"] == expected.action
    assert [(c["action"], c["visits"]) for c in ai["children"]] == [
        (c.action, c.visits) for c in expected.children
    ]


def test_ai_budget_override_and_compiled_engine(client: TestClient) -> None:
    view = new(client, config={"engine": "compiled", "seed": 2})
    assert view["engine"] == "compiled" and view["config"]["engine"] == "compiled"
    sid = view["id"]
    last = client.post(f"/api/sessions/{sid}/ai", json={"iterations": 300}).json()["last_ai"]
    assert last["iterations"] == 300 and last["engine"] == "compiled"
    timed = client.post(f"/api/sessions/{sid}/ai", json={"time": 0.05}).json()["last_ai"]
    assert timed["stopped_by"] == "time" and timed["iterations"] > 0
    auto = new(client, "nim", config={"engine": "auto", "final": "robust-max", "iterations": 100})
    assert auto["engine"] == "compiled"
    last = client.post(f"/api/sessions/{auto['id']}/ai").json()["last_ai"]
    assert last["final_rule"] in ("robust-max", "solver")


def test_play_to_the_end_then_errors(client: TestClient) -> None:
    sid = new(client, config={"iterations": 50})["id"]
    for action in (0, 3, 1, 4):
        client.post(f"/api/sessions/{sid}/play", json={"action": action})
    end = client.post(f"/api/sessions/{sid}/play", json={"action": 2}).json()
    assert end["state"]["terminal"] and end["state"]["returns"] == [1.0, -1.0]
    assert end["state"]["legal"] == [] and end["tree"] == {"nodes": 0, "root_visits": 0}
    for path in ("play", "ai", "step", "iterations"):
        body = {"action": 5} if path == "play" else {"k": 1} if path == "iterations" else None
        assert "game is over" in detail(client.post(f"/api/sessions/{sid}/{path}", json=body), 400)
    assert client.get(f"/api/sessions/{sid}/tree").json()["visits"] == 0
    reset = client.post(f"/api/sessions/{sid}/reset").json()
    assert reset["state"]["actions"] == [] and reset["tree"]["nodes"] == 1


def test_a_compiled_ai_move_keeps_its_tree_for_the_view(client: TestClient) -> None:
    """The compiled engine's tree is not the reference one: after its move the tree
    endpoint shows it (from the position it searched), until the reference tree at the
    current position has a search of its own."""
    sid = new(client, config={"engine": "compiled", "seed": 2})["id"]
    view = client.post(f"/api/sessions/{sid}/ai", json={"iterations": 300}).json()
    assert view["tree"]["root_visits"] == 0  # the reference tree: nothing searched there
    kept = view["kept_tree"]
    assert kept["engine"] == "compiled" and kept["actions"] == []
    assert kept["root_visits"] == 300 and kept["nodes"] > 9
    tree = client.get(f"/api/sessions/{sid}/tree", params={"depth": 1}).json()
    assert tree["visits"] == 300 and len(tree["children"]) == 9
    children = {c["action"]: c["visits"] for c in tree["children"]}
    assert children == {c["action"]: c["visits"] for c in view["last_ai"]["children"]}
    # A node's position counts from the searched position (the empty board).
    first = tree["children"][0]["action"]
    node = client.get(f"/api/sessions/{sid}/node", params={"node": str(first)}).json()
    assert node["actions"] == [first]
    # A step searches the reference tree at the current position: that one is shown.
    client.post(f"/api/sessions/{sid}/step")
    stepped = client.get(f"/api/sessions/{sid}").json()
    assert stepped["kept_tree"] is None and stepped["tree"]["root_visits"] == 1
    assert client.get(f"/api/sessions/{sid}/tree").json()["visits"] == 1


@pytest.mark.parametrize("engine", ["reference", "compiled"])
def test_the_last_search_before_the_end_is_kept(client: TestClient, engine: str) -> None:
    # x (0, 1) to move and win at 2: the AI's move ends the game.
    moves = [0, 3, 1, 4]
    sid = new(client, actions=moves, config={"engine": engine, "iterations": 200})["id"]
    end = client.post(f"/api/sessions/{sid}/ai").json()
    assert end["state"]["terminal"] and end["last_ai"]["action"] == 2
    assert end["tree"] == {"nodes": 0, "root_visits": 0}
    kept = end["kept_tree"]
    assert kept["engine"] == engine and kept["actions"] == moves and kept["root_visits"] == 200
    tree = client.get(f"/api/sessions/{sid}/tree", params={"depth": 1}).json()
    assert tree["visits"] == 200 and tree["to_play"] == 0
    node = client.get(f"/api/sessions/{sid}/node", params={"node": "2"}).json()
    assert node["actions"] == [*moves, 2] and node["terminal"]
    reset = client.post(f"/api/sessions/{sid}/reset").json()
    assert reset["kept_tree"] is None


def test_a_search_before_the_human_ends_the_game_is_kept(client: TestClient) -> None:
    moves = [0, 3, 1, 4]
    sid = new(client, actions=moves)["id"]
    client.post(f"/api/sessions/{sid}/iterations", json={"k": 50})
    end = client.post(f"/api/sessions/{sid}/play", json={"action": 2}).json()
    assert end["state"]["terminal"]
    assert end["kept_tree"] == {
        "engine": "reference",
        "actions": moves,
        "nodes": end["kept_tree"]["nodes"],
        "root_visits": 50,
    }
    assert client.get(f"/api/sessions/{sid}/tree").json()["visits"] == 50
    dot = client.get(f"/api/sessions/{sid}/export", params={"format": "dot"})
    assert dot.status_code == 200 and "N=50" in dot.text


def test_reset_replays_the_same_games(client: TestClient) -> None:
    sid = new(client, "connect_four", actions=[3], config={"iterations": 300, "seed": 4})["id"]
    first = client.post(f"/api/sessions/{sid}/ai").json()["last_ai"]
    client.post(f"/api/sessions/{sid}/reset")
    again = client.post(f"/api/sessions/{sid}/ai").json()
    assert again["last_ai"] == {**first, "seconds": again["last_ai"]["seconds"]}
    assert again["state"]["actions"] == [3, first["action"]]


def test_delete(client: TestClient) -> None:
    sid = new(client)["id"]
    assert client.delete(f"/api/sessions/{sid}").status_code == 204
    assert "no session" in detail(client.get(f"/api/sessions/{sid}"), 404)


# Sessions: watching the search ---------------------------------------------------------------


def test_one_step_on_a_fresh_tic_tac_toe_session(client: TestClient) -> None:
    sid = new(client, config={"seed": 0})["id"]
    trace = client.post(f"/api/sessions/{sid}/step").json()
    assert trace["root_visits"] == 1 and trace["nodes"] == 2
    tree = client.get(f"/api/sessions/{sid}/tree").json()
    assert tree["visits"] == 1 and len(tree["children"]) == 1
    child = tree["children"][0]
    assert trace["selection"] == []  # the root has untried moves: selection stops there
    assert trace["expansion"]["node"] == child["id"] == str(child["action"])
    assert trace["path"] == ["", child["id"]]
    sim = trace["simulation"]
    assert sim["start"] == child["id"] and sim["kind"] == "playout"
    assert len(sim["actions"]) == len(sim["labels"]) >= 4 and len(sim["rewards"]) == 2
    ups = trace["backpropagation"]
    assert [u["node"] for u in ups] == [child["id"], ""]
    assert ups[0]["visits_before"] == 0 and ups[0]["visits_after"] == 1
    assert ups[0]["reward"] == sim["rewards"][0] and ups[1]["reward"] is None
    view = client.get(f"/api/sessions/{sid}").json()
    assert view["tree"] == {"nodes": 2, "root_visits": 1}


def test_steps_descend_and_report_uct(client: TestClient) -> None:
    sid = new(client, config={"seed": 1, "c": 1.0})["id"]
    traces = [client.post(f"/api/sessions/{sid}/step").json() for _ in range(12)]
    assert [t["root_visits"] for t in traces] == list(range(1, 13))
    assert len(traces[1]["path"]) == 2  # the second step expands a second root child
    late = traces[-1]
    assert len(late["selection"]) >= 1 and len(late["path"]) >= 3
    level = late["selection"][0]
    assert level["node"] == "" and len(level["children"]) == 9
    chosen = [c for c in level["children"] if c["chosen"]]
    assert len(chosen) == 1 and chosen[0]["action"] == level["chosen"]
    assert chosen[0]["uct"] == max(c["uct"] for c in level["children"])
    # Two players: the reward flips between consecutive levels.
    rewards = [u["reward"] for u in late["backpropagation"] if u["player"] >= 0]
    for below, above in itertools.pairwise(rewards):
        assert below + above == pytest.approx(1.0)


def test_k_steps_equal_k_iterations_equal_a_search(client: TestClient) -> None:
    config = {"seed": 9, "c": 1.2, "expansion": "all"}
    stepped = new(client, "connect_four", actions=[3], config=config)["id"]
    ran = new(client, "connect_four", actions=[3], config=config)["id"]
    for _ in range(40):
        client.post(f"/api/sessions/{stepped}/step")
    r = client.post(f"/api/sessions/{ran}/iterations", json={"k": 40}).json()
    assert r["iterations"] == 40 and r["root_visits"] == 40 and r["stopped_by"] == "iterations"
    expected = reference_tree(
        "connect_four", [3], SearchConfig(seed=9, c=1.2, expansion="all", iterations=40)
    )
    for sid in (stepped, ran):
        got = client.get(f"/api/sessions/{sid}/tree").json()  # no depth: all of it
        assert got == expected
    assert r["nodes"] == client.get(f"/api/sessions/{ran}").json()["tree"]["nodes"]


def test_tree_depth_top_node_and_positions(client: TestClient) -> None:
    sid = new(client, config={"seed": 3})["id"]
    client.post(f"/api/sessions/{sid}/iterations", json={"k": 300})
    tree = client.get(f"/api/sessions/{sid}/tree", params={"depth": 1, "top": 3}).json()
    assert tree["visits"] == 300 and len(tree["children"]) == 3 and tree["hidden"] == 6
    visits = [c["visits"] for c in tree["children"]]
    assert visits == sorted(visits, reverse=True)
    first = tree["children"][0]
    assert first["children"] == [] and first["hidden"] == first["num_children"] > 0
    assert set(first) >= {"id", "action", "label", "visits", "value", "uct", "proven"}
    assert set(first) >= {"to_play", "terminal", "children", "hidden"}
    sub = client.get(f"/api/sessions/{sid}/tree", params={"node": first["id"], "depth": 1})
    assert sub.json()["id"] == first["id"] and sub.json()["visits"] == first["visits"]
    node = client.get(f"/api/sessions/{sid}/node", params={"node": first["id"]}).json()
    assert node["actions"] == [first["action"]] and node["to_play"] == 1
    assert node["render"]["cells"][first["action"]] == "x"
    assert node["text"] == str(mctslab.make(TTT).state_from_actions([first["action"]]))
    r = client.get(f"/api/sessions/{sid}/node", params={"node": "4.4"})
    assert "move 2" in detail(r, 400)
    r = client.get(f"/api/sessions/{sid}/tree", params={"node": "x.y"})
    assert detail(r, 422).startswith("query.node: String should match pattern")


def test_exports(client: TestClient) -> None:
    sid = new(client, config={"seed": 3})["id"]
    client.post(f"/api/sessions/{sid}/iterations", json={"k": 50})
    url = f"/api/sessions/{sid}/export"
    as_json = client.get(url, params={"format": "json", "depth": 1})
    assert as_json.headers["content-type"].startswith("application/json")
    assert json.loads(as_json.text)["visits"] == 50
    dot = client.get(url, params={"format": "dot", "depth": 2, "top": 2})
    assert dot.text.startswith("digraph") and "mcts-tree.dot" in dot.headers["content-disposition"]
    text = client.get(url, params={"format": "text", "depth": 1}).text
    assert text.startswith("root (x to move)")
    svg = client.get(url, params={"format": "svg", "depth": 1})
    if shutil.which("dot"):
        assert svg.status_code == 200 and "<svg" in svg.text
    else:
        assert "graphviz" in detail(svg, 503).lower()
    assert "format" in detail(client.get(url, params={"format": "png"}), 422)


# PUCT ------------------------------------------------------------------------------------------


def puct_config(evaluator: str = "uniform+rollout", **more: Any) -> dict[str, Any]:
    return {"selection": "puct", "evaluator": evaluator, "seed": 4, **more}


@pytest.mark.parametrize("evaluator", ["uniform+rollout", "uniform", "heuristic"])
def test_a_puct_session_plays_and_shows_priors(client: TestClient, evaluator: str) -> None:
    config = puct_config(evaluator, c_puct=2.0, fpu=0.5, iterations=200)
    view = new(client, config=config, human_player=0)
    sid = view["id"]
    assert view["config"]["selection"] == "puct" and view["config"]["evaluator"] == evaluator
    view = client.post(f"/api/sessions/{sid}/play", json={"action": 4}).json()
    view = client.post(f"/api/sessions/{sid}/ai").json()
    last = view["last_ai"]
    assert last["iterations"] == 200 and len(last["children"]) == 8
    assert sum(c["prior"] for c in last["children"]) == pytest.approx(1.0)
    # The AI's move is PUCT's with the same options and seed.
    state = mctslab.make(TTT).state_from_actions([4])
    expected = mctslab.search(
        state,
        SearchConfig(
            seed=4,
            iterations=200,
            puct=PuctConfig(c=2.0, evaluator=evaluator, fpu=0.5),
        ),
        engine="reference",
    )
    assert last["action"] == expected.action
    assert [(c["action"], c["visits"]) for c in last["children"]] == [
        (c.action, c.visits) for c in expected.children
    ]
    # The tree at the new position: every child has its prior, which sum to 1 at the root.
    client.post(f"/api/sessions/{sid}/iterations", json={"k": 30})
    tree = client.get(f"/api/sessions/{sid}/tree", params={"depth": 2}).json()
    assert tree["prior"] is None and len(tree["children"]) == 7
    assert sum(c["prior"] for c in tree["children"]) == pytest.approx(1.0)
    assert all(c["uct"] is not None for c in tree["children"])  # PUCT's score: finite
    text = client.get(f"/api/sessions/{sid}/export", params={"format": "text"}).text
    assert "P=0.143" in text and "PUCT=" in text


def test_puct_steps_report_priors_and_the_evaluators_value(client: TestClient) -> None:
    sid = new(client, config=puct_config("heuristic", c_puct=1.5))["id"]
    first = client.post(f"/api/sessions/{sid}/step").json()
    assert first["selection_rule"] == "puct" and first["c"] == 1.5
    exp = first["expansion"]
    assert exp["node"] == exp["parent"] == "" and exp["added"] == 9
    assert sum(p["prior"] for p in exp["priors"]) == pytest.approx(1.0)
    assert {p["label"] for p in exp["priors"]} >= {"a1", "b2", "c3"}
    sim = first["simulation"]
    assert sim["kind"] == "evaluation" and sim["evaluator"] == "heuristic"
    assert sim["actions"] == [] and sim["value"] == sim["rewards"] and len(sim["value"]) == 2
    assert first["path"] == [""]
    second = client.post(f"/api/sessions/{sid}/step").json()
    (level,) = second["selection"]
    assert all(c["prior"] == pytest.approx(1 / 9) for c in level["children"])
    chosen = next(c for c in level["children"] if c["chosen"])
    assert chosen["uct"] == max(c["uct"] for c in level["children"])
    assert second["expansion"]["node"] == str(chosen["action"]) == second["path"][-1]
    # Steps build the tree of a search with the same seed.
    for _ in range(18):
        client.post(f"/api/sessions/{sid}/step")
    expected = reference_tree(
        TTT,
        [],
        SearchConfig(seed=4, iterations=20, puct=PuctConfig(c=1.5, evaluator="heuristic")),
    )
    assert client.get(f"/api/sessions/{sid}/tree").json() == expected
    # uniform+rollout: the playout is the value.
    sid = new(client, config=puct_config())["id"]
    sim = client.post(f"/api/sessions/{sid}/step").json()["simulation"]
    assert sim["kind"] == "playout" and sim["evaluator"] == "uniform+rollout"
    assert sim["value"] is None and sim["actions"]
    # UCT sessions: no priors anywhere.
    sid = new(client, config={"seed": 1})["id"]
    trace = client.post(f"/api/sessions/{sid}/step").json()
    assert trace["selection_rule"] == "uct" and trace["expansion"]["priors"] is None
    assert trace["simulation"]["evaluator"] is None
    tree = client.get(f"/api/sessions/{sid}/tree").json()
    assert tree["children"][0]["prior"] is None


def test_compiled_puct_ai_move_keeps_its_priors_for_the_view(client: TestClient) -> None:
    config = puct_config("uniform", engine="compiled", iterations=300)
    sid = new(client, "connect_four", config=config, human_player=1)["id"]
    view = client.post(f"/api/sessions/{sid}/ai").json()
    assert view["engine"] == "compiled" and view["kept_tree"]["engine"] == "compiled"
    assert sum(c["prior"] for c in view["last_ai"]["children"]) == pytest.approx(1.0)
    tree = client.get(f"/api/sessions/{sid}/tree", params={"depth": 1}).json()
    assert tree["visits"] == 300
    assert [c["prior"] for c in tree["children"]] == [pytest.approx(1 / 7)] * 7
    # The compiled engine's view equals the reference engine's (the same tree, batch 1).
    expected = reference_tree(
        "connect_four",
        [],
        SearchConfig(seed=4, iterations=300, puct=PuctConfig(evaluator="uniform")),
    )
    full = client.get(f"/api/sessions/{sid}/tree").json()
    assert full == expected


# Errors ----------------------------------------------------------------------------------------


def test_user_errors_are_one_line_4xx(client: TestClient) -> None:
    post = client.post
    # Not a game of the schema's: 422, naming the games.
    r = post("/api/sessions", json={"game": "chess"})
    assert "unknown game 'chess'" in detail(r, 422) and "tic_tac_toe" in detail(r, 422)
    r = post("/api/sessions", json={"game": TTT, "params": {"size": 4}})
    assert "unknown parameter 'size'" in detail(r, 400)
    r = post("/api/sessions", json={"game": "nim", "params": {"piles": "1;x"}})
    assert "piles must be whole numbers" in detail(r, 400)
    r = post("/api/sessions", json={"game": "nim", "params": {"piles": "2;3", "max_take": "2"}})
    assert r.status_code == 201  # strings are read as on the command line
    assert r.json()["state"]["render"] == {
        "kind": "piles",
        "piles": [2, 3],
        "max_take": 2,
        "misere": False,
        "moves": [
            {"pile": p, "take": t, "action": p + 2 * (t - 1)} for t in (1, 2) for p in (0, 1)
        ],
    }
    r = post("/api/sessions", json={"game": TTT, "config": {"c": -1}})
    assert detail(r, 422) == "config.c: Input should be greater than or equal to 0"
    r = post("/api/sessions", json={"game": TTT, "config": {"seed": True}})
    assert detail(r, 422) == "config.seed: Input should be a valid integer"
    r = post("/api/sessions", json={"game": TTT, "config": {"seed": 3.0}})
    assert r.status_code == 201 and r.json()["config"]["seed"] == 3  # JSON Schema's integer
    r = post("/api/sessions", json={"game": TTT, "config": {"expansion": "some"}})
    assert detail(r, 422).startswith("config.expansion:")
    r = post("/api/sessions", json={"game": TTT, "config": {"depth": 3}})
    assert detail(r, 422) == "config.depth: unknown field"
    r = post("/api/sessions", json={"game": TTT, "config": {"iterations": None}})
    assert "give at least one budget" in detail(r, 400)
    r = post("/api/sessions", json={"game": TTT, "human_player": 2})
    assert "human_player" in detail(r, 400)
    r = post("/api/sessions", json={"game": TTT, "config": {"simulation": "cutoff"}})
    assert r.status_code == 201  # tic-tac-toe has a heuristic
    r = post("/api/sessions", content=b"{not json", headers={"content-type": "application/json"})
    assert detail(r, 422).startswith("malformed JSON body")
    assert detail(post("/api/sessions", json={}), 422) == "game: Field required"
    sid = new(client)["id"]
    r = post(f"/api/sessions/{sid}/play", json={"action": 9})
    assert "illegal action 9" in detail(r, 400) and "a1" in detail(r, 400)
    r = post(f"/api/sessions/{sid}/play", json={"action": "z9"})
    assert detail(r, 400)
    assert "k:" in detail(post(f"/api/sessions/{sid}/iterations", json={"k": 0}), 422)
    r = post(f"/api/sessions/{sid}/ai", json={"iterations": 10, "depth": 1})
    assert "unknown field" in detail(r, 422)
    # PUCT's options.
    r = post("/api/sessions", json={"game": TTT, "config": {"selection": "foo"}})
    assert detail(r, 422).startswith("config.selection:") and "puct" in detail(r, 422)
    r = post(
        "/api/sessions", json={"game": TTT, "config": {"selection": "puct", "evaluator": "net"}}
    )
    assert detail(r, 422).startswith("config.evaluator:") and "heuristic" in detail(r, 422)
    r = post("/api/sessions", json={"game": TTT, "config": {"selection": "puct", "c_puct": -1}})
    assert detail(r, 422) == "config.c_puct: Input should be greater than or equal to 0"
    r = post("/api/sessions", json={"game": TTT, "config": {"selection": "puct", "fpu": 1.5}})
    assert detail(r, 422) == "config.fpu: Input should be less than or equal to 1"
    # Refused by the game: OpenSpiel's games have no heuristic.
    if importlib.util.find_spec("pyspiel") is not None:
        body = {"game": "openspiel:tic_tac_toe", "config": puct_config("heuristic")}
        assert "heuristic" in detail(post("/api/sessions", json=body), 400)


def test_unknown_session_is_404_everywhere(client: TestClient) -> None:
    base = "/api/sessions/nope"
    assert "no session 'nope'" in detail(client.get(base), 404)
    assert detail(client.delete(base), 404)
    for path in ("play", "ai", "iterations", "step", "reset", "cancel"):
        body = {"action": 0} if path == "play" else {"k": 1} if path == "iterations" else None
        detail(client.post(f"{base}/{path}", json=body), 404)
    for path in ("tree", "node", "export"):
        detail(client.get(f"{base}/{path}"), 404)


def test_caps_name_themselves() -> None:
    settings = Settings(
        max_iterations=100,
        max_time=0.5,
        max_nodes=50,
        max_sessions=2,
        max_view_nodes=20,
        max_svg_nodes=5,
    )
    with TestClient(create_app(settings), base_url="http://localhost") as client:
        r = client.post("/api/sessions", json={"game": TTT, "config": {"iterations": 101}})
        assert "max_iterations" in detail(r, 422) and "101" in detail(r, 422)
        sid = new(client, config={"iterations": 100, "seed": 0})["id"]
        r = client.post(f"/api/sessions/{sid}/ai", json={"time": 1})
        assert "max_time" in detail(r, 422)
        r = client.post("/api/move", json={"game": TTT, "iterations": 1000})
        assert "max_iterations" in detail(r, 422)
        r = client.post(f"/api/sessions/{sid}/iterations", json={"k": 60})
        assert "max_nodes" in detail(r, 413) and "61 nodes" in detail(r, 413)
        r = client.post(f"/api/sessions/{sid}/iterations", json={"k": 45})
        assert r.json()["nodes"] == 46
        for _ in range(4):
            assert client.post(f"/api/sessions/{sid}/step").status_code == 200
        assert "max_nodes" in detail(client.post(f"/api/sessions/{sid}/step"), 413)
        r = client.get(f"/api/sessions/{sid}/tree")
        assert "max_view_nodes" in detail(r, 413)
        assert client.get(f"/api/sessions/{sid}/tree", params={"depth": 1}).status_code == 200
        r = client.get(f"/api/sessions/{sid}/export", params={"format": "svg"})
        assert "max_svg_nodes" in detail(r, 413)
        # The AI still moves on a full tree: its search stops at the cap.
        assert client.post(f"/api/sessions/{sid}/ai").json()["last_ai"]["stopped_by"] == "nodes"
        new(client, config={"iterations": 10})
        r = client.post("/api/sessions", json={"game": TTT, "config": {"iterations": 10}})
        assert "max_sessions" in detail(r, 429)


def test_a_second_search_on_a_busy_session_is_409_and_cancel_stops_it() -> None:
    with TestClient(
        create_app(Settings(chunk_seconds=0.02)), base_url="http://localhost"
    ) as client:
        sid = new(client, "connect_four", config={"seed": 1})["id"]
        out: dict[str, Any] = {}

        def think() -> None:
            out["response"] = client.post(f"/api/sessions/{sid}/ai", json={"time": 10})

        thread = threading.Thread(target=think)
        thread.start()
        # Generous bounds, for a loaded machine: they catch a hang, not a slow start.
        deadline = time.monotonic() + 60
        while not client.get(f"/api/sessions/{sid}").json()["busy"]:
            assert time.monotonic() < deadline and thread.is_alive()
            time.sleep(0.005)
        assert client.get("/api/health").status_code == 200  # the server still answers
        for path, body in (("iterations", {"k": 5}), ("step", None), ("play", {"action": 0})):
            r = client.post(f"/api/sessions/{sid}/{path}", json=body)
            assert "search is running" in detail(r, 409) and "cancel" in detail(r, 409)
        # Reading the tree while it grows is fine: it waits for the current chunk.
        assert client.get(f"/api/sessions/{sid}/tree", params={"depth": 1}).status_code == 200
        assert client.post(f"/api/sessions/{sid}/cancel").json() == {"cancelled": True}
        thread.join(timeout=120)
        assert not thread.is_alive()
        # What shows the cancel stopped the search is the answer, not the clock: a search
        # that ran its 10 s (of search time, which a loaded machine stretches) plays a move
        # (200); a cancelled one plays none (409).
        assert "cancelled" in detail(out["response"], 409)
        view = client.get(f"/api/sessions/{sid}").json()
        assert not view["busy"] and view["state"]["actions"] == []  # no move was played
        assert view["tree"]["root_visits"] > 0  # the tree keeps what was searched
        assert client.post(f"/api/sessions/{sid}/cancel").json() == {"cancelled": False}
        assert client.post(f"/api/sessions/{sid}/iterations", json={"k": 5}).status_code == 200


def test_idle_sessions_expire() -> None:
    now = [1000.0]
    settings = Settings(session_ttl=60, clock=lambda: now[0])
    with TestClient(create_app(settings), base_url="http://localhost") as client:
        idle = new(client)["id"]
        used = new(client)["id"]
        now[0] += 40
        assert client.get(f"/api/sessions/{used}").status_code == 200  # touched at 1040
        now[0] += 30  # idle for 70 s, used for 30 s
        assert client.get(f"/api/sessions/{used}").status_code == 200
        assert "expired after 60 s idle" in detail(client.get(f"/api/sessions/{idle}"), 404)
        assert client.get("/api/health").json()["sessions"] == 1


def test_render_connect_four_rows_from_the_top(client: TestClient) -> None:
    view = new(client, "connect_four", params={"rows": 4, "columns": 5}, actions=[2, 2, 0])
    board = view["state"]["render"]
    assert board["kind"] == "grid" and (board["rows"], board["cols"]) == (4, 5)
    assert board["click"] == "column" and board["actions"] == {str(c): c for c in range(5)}
    cells = board["cells"]
    assert len(cells) == 20
    bottom, above = cells[15:20], cells[10:15]
    assert bottom == ["x", "", "x", "", ""] and above == ["", "", "o", "", ""]
    assert cells[:10] == [""] * 10


def test_render_bohnenspiel_rows_as_the_course_draws_them(client: TestClient) -> None:
    view = new(client, "bohnenspiel", actions=[0, 11])
    assert view["state"]["render"] == {
        "kind": "pits",
        "top": [0, 6, 6, 6, 6, 7],  # pits 11..6: player 1's row, left to right
        "bottom": [1, 8, 8, 8, 8, 8],  # pits 0..5
        "stores": [0, 0],
        "actions": {str(p): p for p in range(6)},  # player 0 to move: pits 0..5
    }
    assert [m["label"] for m in view["state"]["legal"]] == ["1", "2", "3", "4", "5", "6"]


@pytest.mark.parametrize("engine", ["reference", "compiled"])
def test_a_search_in_chunks_is_one_search(engine: str) -> None:
    state = mctslab.make("connect_four").state_from_actions([3])
    config = SearchConfig(iterations=2500, seed=5, solver=True, max_nodes=10**6)
    chunked = mctslab.make_searcher(config, state, engine)
    run = anyio.run(
        partial(
            run_chunks,
            chunked,
            state,
            config,
            cancel=threading.Event(),
            lock=threading.Lock(),
            chunk_seconds=1e-4,
        )
    )
    whole = mctslab.make_searcher(config, state, engine).search(state)
    assert run.result is not None and run.iterations == 2500
    assert run.result.action == whole.action and run.result.children == whole.children
    assert run.result.iterations == 2500 and run.stopped_by == "iterations"
    assert chunked.config == config  # restored


@pytest.mark.parametrize("engine", ["reference", "compiled"])
def test_a_chunked_search_extends_robust_max_as_one_search_does(engine: str) -> None:
    # The seeds of tests/search/test_mcts.py's robust-max endings: the same Budget decides.
    state = mctslab.make("connect_four").new_initial_state()

    def chunked(config: SearchConfig) -> Any:
        return anyio.run(
            partial(
                run_chunks,
                mctslab.make_searcher(config, state, engine),
                state,
                config,
                cancel=threading.Event(),
                lock=threading.Lock(),
                chunk_seconds=1e-4,
            )
        )

    # Still disagreeing when the 2% extension is spent: 204 iterations, as one search.
    config = SearchConfig(iterations=200, seed=32, final="robust-max", robust_max_extra=0.02)
    run, whole = chunked(config), mctslab.make_searcher(config, state, engine).search(state)
    assert (run.iterations, run.stopped_by) == (whole.iterations, whole.stopped_by)
    assert (run.iterations, run.stopped_by, run.result.final_rule) == (
        204,
        "iterations",
        "robust-max",
    )
    assert run.result.children == whole.children and run.result.action == whole.action
    # Extended, then stopped between two chunks once the rules agree.
    run = chunked(SearchConfig(iterations=400, seed=8, final="robust-max"))
    assert 400 < run.iterations <= 600 and run.stopped_by == "agreement"
    by_visits = max(run.result.children, key=lambda ch: (ch.visits, ch.value, -ch.action))
    visited = [ch for ch in run.result.children if ch.visits]
    by_value = max(visited, key=lambda ch: (ch.value, ch.visits, -ch.action))
    assert run.result.action == by_visits.action == by_value.action


@pytest.mark.parametrize("engine", ["reference", "compiled"])
def test_a_chunked_search_stops_early_as_one_search_does(engine: str) -> None:
    # Early stop is the engine's, judged across slices with the most visited child's
    # lead: the runner once judged the budget between chunks without it (and each chunk
    # stopped early on its own small budget), so it never stopped early.
    state = mctslab.make("connect_four").state_from_actions([3])
    config = SearchConfig(iterations=3000, seed=5, early_stop=True)
    run = anyio.run(
        partial(
            run_chunks,
            mctslab.make_searcher(config, state, engine),
            state,
            config,
            cancel=threading.Event(),
            lock=threading.Lock(),
            chunk_seconds=1e-4,
        )
    )
    whole = mctslab.make_searcher(config, state, engine).search(state)
    assert whole.stopped_by == "early" and whole.iterations < 3000
    assert run.result is not None and run.stopped_by == "early"
    assert run.iterations == run.result.iterations == whole.iterations
    assert run.result.children == whole.children and run.result.nodes == whole.nodes


@pytest.mark.parametrize("engine", ["reference", "compiled"])
def test_move_with_robust_max_is_the_search(client: TestClient, engine: str) -> None:
    # POST /api/move runs through the runner: robust-max's extension and its agreement
    # are the engine's, looked at every iteration (the runner once looked between
    # chunks only, and stopped elsewhere than one search).
    config = {"engine": engine, "seed": 8, "final": "robust-max"}
    body = {"game": "connect_four", "actions": [], "config": config, "iterations": 400}
    r = client.post("/api/move", json=body)
    assert r.status_code == 200, r.text
    got = r.json()
    state = mctslab.make("connect_four").new_initial_state()
    expected = mctslab.search(
        state, SearchConfig(seed=8, iterations=400, final="robust-max"), engine=engine
    )
    assert expected.stopped_by == "agreement"
    assert (got["iterations"], got["stopped_by"], got["final_rule"]) == (
        expected.iterations,
        expected.stopped_by,
        expected.final_rule,
    )
    assert got["action"] == expected.action
    assert [(c["action"], c["visits"]) for c in got["children"]] == [
        (c.action, c.visits) for c in expected.children
    ]


def test_a_cancelled_chunked_search_stops_at_once() -> None:
    state = mctslab.make("tic_tac_toe").new_initial_state()
    cancel = threading.Event()
    cancel.set()
    searcher = MCTS(SearchConfig())
    run = anyio.run(
        partial(
            run_chunks, searcher, state, SearchConfig(time=5), cancel=cancel, lock=threading.Lock()
        )
    )
    assert run.result is None and run.iterations == 0 and run.stopped_by == "cancelled"


def test_serve_prints_its_address_and_answers() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "mctslab", "serve", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        assert line.startswith(f"mctslab web lab: http://127.0.0.1:{port}/")
        deadline = time.monotonic() + 120  # a hang, not a slow start on a loaded machine
        while True:
            try:
                r = httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=1)
                break
            except httpx.HTTPError:
                assert time.monotonic() < deadline and server.poll() is None
                time.sleep(0.1)
        assert r.json()["status"] == "ok"
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_the_cli_does_not_import_the_web_extra() -> None:
    code = "import sys, mctslab.cli.main; assert 'fastapi' not in sys.modules, 'fastapi imported'"
    subprocess.run([sys.executable, "-c", code], check=True)


# Chance and hidden information -----------------------------------------------------------------


def test_pig_sessions_roll_the_dice_from_the_session_seed(client: TestClient) -> None:
    """The server draws the die after every roll, so a player is always to move, and a
    reset replays the same throws."""

    def game(seed: int) -> list[int]:
        sid = new(client, "pig", config={"iterations": 100, "seed": seed})["id"]
        for _ in range(6):
            view = client.post(f"/api/sessions/{sid}/ai", json={}).json()
            assert view["state"]["current_player"] in (0, 1) or view["state"]["terminal"]
        played = client.post(f"/api/sessions/{sid}/play", json={"action": "roll"}).json()
        assert played["state"]["current_player"] != mctslab.CHANCE
        return list(played["state"]["actions"])

    assert game(5) == game(5)
    assert len(game(5)) >= 8  # 7 moves by the players, and at least the last roll's die


def test_pig_sessions_name_the_dice_in_the_move_list(client: TestClient) -> None:
    """The state's moves name every action of the history where it was played: a
    player's "roll", then the die's "Roll <face>" (player -1, chance)."""
    sid = new(client, "pig", config={"iterations": 50, "seed": 3})["id"]
    view = client.post(f"/api/sessions/{sid}/play", json={"action": "roll"}).json()
    moves = view["state"]["moves"]
    assert [m["action"] for m in moves] == view["state"]["actions"]
    assert moves[0] == {"action": 0, "label": "roll", "player": 0}
    assert moves[1]["player"] == mctslab.CHANCE
    assert moves[1]["label"] == f"Roll {moves[1]['action'] + 1}"


def test_views_name_players_for_people_and_keep_ids_from_zero(client: TestClient) -> None:
    """What people read counts players from 1 (Pig's human_view, not OpenSpiel's
    "Current player: 0"); boards that draw their players give their names; the ids and
    the value scale stay as the API has them."""
    pig = new(client, "pig", config={"iterations": 20})
    assert pig["state"]["current_player"] == 0
    assert pig["state"]["player_names"] == ["player 1", "player 2"]
    assert "Player 1 to move" in pig["state"]["text"]
    assert "Current player" not in pig["state"]["text"]
    node = client.get(f"/api/sessions/{pig['id']}/node", params={"node": ""}).json()
    assert "Player 1 to move" in node["text"]
    ttt = new(client, TTT)["state"]
    assert ttt["player_names"] == ["X", "O"] and ttt["value_scale"] == [-1.0, 1.0]
    assert new(client, "connect_four")["state"]["player_names"] == ["Red", "Yellow"]


def test_hidden_information_games_are_refused_and_not_listed(client: TestClient) -> None:
    names = {g["name"] for g in client.get("/api/games").json()}
    assert "pig" in names and "kuhn_poker" not in names and "knockout_whist" not in names
    for name in ("kuhn_poker", "knockout_whist"):  # not in the schema's names: 422
        message = detail(client.post("/api/sessions", json={"game": name}), 422)
        assert "hides information" in message and "mctslab play" in message
    r = client.post("/api/move", json={"game": "kuhn_poker", "actions": [0, 1]})
    assert "hides information" in detail(r, 422)
