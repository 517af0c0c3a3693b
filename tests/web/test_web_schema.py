"""The web API's OpenAPI schema tells the truth (mctslab.web.app, mctslab.web.schemas).

schemathesis fuzzes the app against its own ``/openapi.json`` with every check: what the
schema calls valid is accepted, what it calls invalid is refused, every status and body
is the documented one. Then one test per defect the fuzzing found, each failing on the
server before the schema was made exact.
"""

from __future__ import annotations

import collections
import itertools
import os
import re
import shutil
import threading
import time
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

if os.environ.get("MCTSLAB_REQUIRE_EXTRAS"):
    # `make test` installs every extra: a missing one fails here instead of skipping.
    import fastapi  # noqa: F401
    import schemathesis
else:
    pytest.importorskip("fastapi")
    schemathesis = pytest.importorskip("schemathesis")

with warnings.catch_warnings():
    # Recent Starlette prefers the httpx2 package (and warns); httpx works with every
    # Starlette that FastAPI may bring.
    warnings.filterwarnings("ignore", message=".*httpx2", category=Warning)
    from fastapi.testclient import TestClient

from mctslab.analysis import treeview
from mctslab.web.app import create_app
from mctslab.web.settings import Settings

TTT = "tic_tac_toe"
LOCAL = "http://localhost"  # the Host the server answers (loopback names, by default)

# Caps small enough that no generated request searches for long: a search stops at 300
# nodes, after 0.05 s, or after 2000 iterations (the schema states these caps).
# schemathesis's ASGI client sends Host: testserver.
FUZZED = Settings(
    max_iterations=2000,
    max_time=0.05,
    max_nodes=300,
    max_sessions=100_000,
    max_client_sessions=100_000,
    # A single-player run counts as a search until its thread ends (a compiled one
    # compiles first): the runs the fuzzer starts may outnumber the default caps.
    max_client_searches=100_000,
    max_searches=100_000,
    chunk_seconds=0.01,
    allowed_hosts=("testserver",),
    # Single-player runs (mctslab.web.routes.optimize): short, as many at once as asked,
    # and step trees of 300 nodes at most.
    max_optimize_time=0.05,
    max_optimize_runs=100_000,
    max_step_nodes=300,
)

# The sessions the session routes are fuzzed on, in turn (a fresh one for every request,
# so that a DELETE or a move does not change what the next request finds): a tree to
# look at, a finished game, the compiled engine, a game with dice.
SESSIONS: list[tuple[dict[str, Any], int]] = [
    ({"game": TTT, "config": {"seed": 0, "iterations": 50}}, 60),
    ({"game": TTT, "actions": [0, 3, 1, 4, 2]}, 0),
    ({"game": "connect_four", "config": {"engine": "compiled", "iterations": 100}}, 30),
    ({"game": "pig", "config": {"iterations": 50}}, 20),
]

# The documented 503 of an SVG export, on a machine without Graphviz's `dot` (`make test`
# installs it): no server error there, and an answer to a valid request.
NO_DOT = ["503"] if shutil.which("dot") is None else []
# What the server may answer to a request the schema calls valid: success, or a refusal
# the schema cannot foresee (400: the game refuses it, e.g. an illegal move; 413: the
# session's tree is full). No 404 (the session exists), 409 (nothing else runs) or 422.
POSITIVE = ["2xx", "400", "413", *NO_DOT]
# ... and to a request it calls invalid: 422, or 400 when the game refuses it first.
NEGATIVE = ["400", "422"]


def config(max_examples: int) -> Any:
    return schemathesis.Config.from_dict(
        {
            # Hypothesis's health checks time the generation, which a loaded machine slows.
            "suppress-health-check": ["too_slow", "filter_too_much"],
            "generation": {
                "mode": "all",  # valid and invalid requests
                "max-examples": max_examples,
                "deterministic": True,  # the same requests every run
                "database": "none",
            },
            "checks": {
                "enabled": True,
                "not_a_server_error": {"expected-statuses": ["2xx", "3xx", "4xx", *NO_DOT]},
                "positive_data_acceptance": {"expected-statuses": POSITIVE},
                "negative_data_rejection": {"expected-statuses": NEGATIVE},
            },
        }
    )


# Loaded at import: schemathesis's fixture-loaded schemas (schemathesis.pytest.from_fixture)
# do not run under pytest 9.
web_schema = schemathesis.openapi.from_asgi("/openapi.json", create_app(FUZZED), config=config(50))
# One turn of SESSIONS per operation: each operation's requests meet the same sessions
# whatever ran before (pytest-xdist spreads the operations over its workers).
_turns: dict[str, Iterator[tuple[dict[str, Any], int]]] = collections.defaultdict(
    lambda: itertools.cycle(SESSIONS)
)


def small(value: Any) -> bool:
    """Whether a game parameter's numbers are all within 1000 (strings are read as numbers
    by the server, as on the command line)."""
    if isinstance(value, bool) or value is None or isinstance(value, dict):
        return True
    if isinstance(value, int | float):
        return abs(value) <= 1000
    if isinstance(value, str):
        return all(int(digits) <= 1000 for digits in re.findall(r"\d+", value))
    return all(small(item) for item in value)


@web_schema.hook
def filter_body(context: Any, body: Any) -> bool:
    """Game parameters of at most 1000: pig's target, horizon and dice have no upper bound,
    and a playout of a game of a billion turns cannot be cut short (nor a die of a billion
    faces be made quickly). The requests left out are the game's business, not the API's."""
    params = body.get("params") if isinstance(body, dict) else None
    return not isinstance(params, dict) or all(small(v) for v in params.values())


def new_session(operation: str) -> str:
    """A session of the fuzzed app for a request to ``operation``: one of ``SESSIONS`` after
    the other."""
    spec, k = next(_turns[operation])
    response = web_schema["/api/sessions"]["POST"].Case(body=spec).call()
    assert response.status_code == 201, response.text
    sid: str = response.json()["id"]
    if k:
        grow = web_schema["/api/sessions/{sid}/iterations"]["POST"]
        grown = grow.Case(path_parameters={"sid": sid}, body={"k": k}).call()
        assert grown.status_code == 200, grown.text
    return sid


def new_run() -> str:
    """A single-player run of the fuzzed app (POST /api/optimize/runs), for a request to
    one of its routes."""
    body = {"game": "tsp", "params": {"instance": "random:6:1"}, "search": "exact", "time": 0.05}
    response = web_schema["/api/optimize/runs"]["POST"].Case(body=body).call()
    assert response.status_code == 201, response.text
    rid: str = response.json()["id"]
    return rid


@web_schema.parametrize()
def test_the_server_does_what_its_schema_says(case: Any) -> None:
    if case.path_parameters and "sid" in case.path_parameters:
        case.path_parameters["sid"] = new_session(case.operation.label)
    if case.path_parameters and "rid" in case.path_parameters:
        case.path_parameters["rid"] = new_run()
    body = case.body if case.operation.path == "/api/optimize/step" else None
    if isinstance(body, dict) and isinstance(body.get("session"), str):
        # A step session's id is one an earlier answer gave (a made-up one is a 404).
        step = {"game": "tsp", "params": {"instance": "random:6:1"}}
        answer = web_schema["/api/optimize/step"]["POST"].Case(body=step).call()
        assert answer.status_code == 200, answer.text
        body["session"] = answer.json()["session"]
    case.call_and_validate()


# The defects the fuzzing found, one test each. --------------------------------------------


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(create_app(Settings()), base_url=LOCAL) as c:
        yield c


def openapi(client: TestClient) -> dict[str, Any]:
    schema: dict[str, Any] = client.get("/openapi.json").json()
    return schema


def test_an_empty_game_name_is_refused_as_the_schema_says(client: TestClient) -> None:
    schema = openapi(client)
    names = schema["components"]["schemas"]["SessionIn"]["properties"]["game"]["anyOf"]
    assert [TTT in branch.get("enum", []) for branch in names] == [True, False]
    games = {g["name"] for g in client.get("/api/games").json()}
    assert games == set(names[0]["enum"])  # the schema's names are those the lab lists
    for path in ("/api/move", "/api/sessions"):
        r = client.post(path, json={"game": ""})
        assert r.status_code == 422 and "422" in schema["paths"][path]["post"]["responses"]
        assert set(r.json()) == {"detail"} and r.json()["detail"].startswith("game: unknown")
    r = client.post("/api/sessions", json={"game": "kuhn_poker"})
    assert r.status_code == 422 and "hides information" in r.json()["detail"]


def test_errors_are_the_documented_model(client: TestClient) -> None:
    schema = openapi(client)
    error = {"$ref": "#/components/schemas/ErrorOut"}
    model = schema["components"]["schemas"]["ErrorOut"]
    assert model["required"] == ["detail"] and model["properties"]["detail"]["type"] == "string"
    assert "HTTPValidationError" not in schema["components"]["schemas"]
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            for status, response in operation["responses"].items():
                if status[0] in "45":
                    assert response["content"]["application/json"]["schema"] == error, (
                        method,
                        path,
                        status,
                    )
    r = client.get("/api/sessions/nope")
    assert r.status_code == 404 and set(r.json()) == {"detail"}
    assert "404" in schema["paths"]["/api/sessions/{sid}"]["get"]["responses"]
    r = client.post("/api/sessions", json={})
    assert r.status_code == 422 and r.json() == {"detail": "game: Field required"}


def test_405_allows_exactly_the_documented_methods(client: TestClient) -> None:
    """Starlette's Allow named the first route's methods: GET alone on /api/sessions/{sid},
    where DELETE is documented too."""
    sid = client.post("/api/sessions", json={"game": TTT}).json()["id"]
    for path, operations in openapi(client)["paths"].items():
        url = path.replace("{sid}", sid)
        documented = sorted(method.upper() for method in operations)
        for method in {"OPTIONS", "PUT", "PATCH", "TRACE", "GET", "POST", "DELETE"} - set(
            documented
        ):
            r = client.request(method, url)
            assert r.status_code == 405, (method, path)
            assert r.headers["allow"] == ", ".join(documented), (method, path)
            assert r.json() == {"detail": "Method Not Allowed"}


# Every status a route can send, brought about once each; the set per route must be the set
# its schema documents, and each response must pass schemathesis's checks.
SMALL = Settings(
    max_iterations=100,
    max_time=5,
    max_nodes=50,
    max_sessions=3,
    max_view_nodes=20,
    max_svg_nodes=5,
    max_optimize_runs=1,
    max_step_nodes=20,
)


def test_every_status_a_route_sends_is_documented(monkeypatch: pytest.MonkeyPatch) -> None:
    with (
        TestClient(create_app(SMALL), base_url=LOCAL) as client,
        TestClient(create_app(Settings()), base_url=LOCAL) as roomy,
    ):
        # The 503 of an SVG export without `dot` is brought about below: no server error.
        checks = {"not_a_server_error": {"expected-statuses": ["2xx", "3xx", "4xx", "503"]}}
        schema = schemathesis.openapi.from_dict(
            openapi(client), config=schemathesis.Config.from_dict({"checks": checks})
        )
        seen: dict[tuple[str, str], set[int]] = {}

        def send(
            method: str, path: str, sid: str = "", status: int = 200, on: Any = client, **kw: Any
        ) -> Any:
            # A single-player run's routes take the id as rid (mctslab.web.routes.optimize).
            name = "rid" if "{rid}" in path else "sid"
            url = path.replace("{" + name + "}", sid)
            r = on.request(method, url, **kw)
            assert r.status_code == status, (method, path, r.text)
            parts: dict[str, Any] = {"query": kw.get("params")}
            if sid:
                parts["path_parameters"] = {name: sid}
            if "json" in kw:
                parts["body"] = kw["json"]
            schema[path][method].Case(**parts).validate_response(r)
            seen.setdefault((method, path), set()).add(r.status_code)
            return r

        s = "/api/sessions/{sid}"
        send("GET", "/api/health")
        send("GET", "/api/games")
        send("GET", "/api/rules")
        send("POST", "/api/move", json={"game": TTT, "iterations": 10})
        send("POST", "/api/move", status=400, json={"game": TTT, "actions": [0, 0]})
        send("POST", "/api/move", status=422, json={"game": TTT, "iterations": 101})
        sid = send("POST", "/api/sessions", status=201, json={"game": TTT}).json()["id"]
        over = send(
            "POST", "/api/sessions", status=201, json={"game": TTT, "actions": [0, 3, 1, 4, 2]}
        )
        send("POST", "/api/sessions", status=400, json={"game": TTT, "human_player": 2})
        send("POST", "/api/sessions", status=422, json={"game": ""})
        send("POST", "/api/sessions", status=201, json={"game": "connect_four"})
        send("POST", "/api/sessions", status=429, json={"game": TTT})
        ended = over.json()["id"]
        for path in (s, f"{s}/play", f"{s}/ai", f"{s}/iterations", f"{s}/step", f"{s}/reset"):
            method = "GET" if path == s else "POST"
            body = {"action": 0} if path.endswith("play") else {"k": 1}
            kw = {"json": body} if path.endswith(("play", "iterations")) else {}
            send(method, path, "nope", 404, **kw)
        for path in (f"{s}/tree", f"{s}/node", f"{s}/export", f"{s}/sgf"):
            send("GET", path, "nope", 404)
        send("POST", f"{s}/cancel", "nope", 404)
        send("DELETE", s, "nope", 404)
        send("GET", s, sid)
        send("POST", f"{s}/play", sid, json={"action": "b2"})
        send("POST", f"{s}/play", sid, 400, json={"action": 4})
        send("POST", f"{s}/play", sid, 422, json={"action": None})
        send("POST", f"{s}/ai", sid, json={"iterations": 20})
        send("POST", f"{s}/ai", ended, 400)
        send("POST", f"{s}/ai", sid, 422, json={"time": 6})
        send("POST", f"{s}/iterations", sid, json={"k": 20})
        send("POST", f"{s}/iterations", ended, 400, json={"k": 1})
        send("POST", f"{s}/iterations", sid, 413, json={"k": 40})
        send("POST", f"{s}/iterations", sid, 422, json={"k": 0})
        send("POST", f"{s}/step", sid)
        send("POST", f"{s}/step", ended, 400)
        send("GET", f"{s}/tree", sid, params={"depth": 1})
        send("GET", f"{s}/tree", sid, 400, params={"node": "9"})
        send("GET", f"{s}/tree", sid, 422, params={"node": "x.y"})
        send("GET", f"{s}/node", sid, params={"node": "0"})
        send("GET", f"{s}/node", sid, 400, params={"node": "4"})  # b2 is taken
        send("GET", f"{s}/node", sid, 422, params={"node": "-1"})
        for format in ("json", "dot", "text"):
            send("GET", f"{s}/export", sid, params={"format": format, "depth": 1})
        send("GET", f"{s}/export", sid, 400, params={"node": "9"})
        send("GET", f"{s}/export", sid, 413, params={"format": "svg"})
        send("GET", f"{s}/export", sid, 422, params={"format": "png"})
        send("GET", f"{s}/sgf", sid, 400)  # not Go
        go = roomy.post("/api/sessions", json={"game": "go", "actions": [40, 81]}).json()["id"]
        send("GET", f"{s}/sgf", go, on=roomy)
        send("POST", f"{s}/cancel", sid)
        send("POST", f"{s}/reset", sid)
        send("POST", f"{s}/iterations", sid, json={"k": SMALL.max_nodes - 1})
        send("POST", f"{s}/step", sid, 413)  # the tree is full
        send("GET", f"{s}/tree", sid, 413)  # and larger than a view may be
        send("DELETE", s, sid, 204)

        # 409: a search runs on the session (on a server whose caps let it run 10 s); then
        # it is cancelled, and the AI plays no move.
        busy = roomy.post("/api/sessions", json={"game": "connect_four"}).json()["id"]
        out: dict[str, Any] = {}
        thread = threading.Thread(
            target=lambda: out.update(r=roomy.post(f"/api/sessions/{busy}/ai", json={"time": 10}))
        )
        thread.start()
        deadline = time.monotonic() + 60
        while not roomy.get(f"/api/sessions/{busy}").json()["busy"]:
            assert time.monotonic() < deadline and thread.is_alive()
            time.sleep(0.005)
        for path, kw in (
            ("play", {"json": {"action": 0}}),
            ("ai", {}),
            ("iterations", {"json": {"k": 1}}),
            ("step", {}),
            ("reset", {}),
        ):
            send("POST", f"{s}/{path}", busy, 409, on=roomy, **kw)
        send("POST", f"{s}/cancel", busy, on=roomy)
        thread.join(timeout=120)
        assert not thread.is_alive() and out["r"].status_code == 409

        # The single-player view (mctslab.web.routes.optimize).
        o = "/api/optimize"
        send("GET", f"{o}/games")
        tsp6 = {"game": "tsp", "params": {"instance": "random:6:1"}}
        long = {**tsp6, "search": "random:engine=reference", "time": 30}
        rid = send("POST", f"{o}/runs", status=201, json=long).json()["id"]
        send("POST", f"{o}/runs", status=429, json=long)
        send("POST", f"{o}/runs", status=400, json={**tsp6, "search": "nope"})
        send("POST", f"{o}/runs", status=422, json={**tsp6, "time": 61})
        for method, path in (("GET", f"{o}/runs/{{rid}}"), ("POST", f"{o}/runs/{{rid}}/stop")):
            send(method, path, "nope", 404)
            send(method, path, rid)
        step = send("POST", f"{o}/step", json={**tsp6, "skip": 3}).json()["session"]
        send("POST", f"{o}/step", status=400, json={"session": step, "seed": 1})
        send("POST", f"{o}/step", status=404, json={"session": "nope"})
        send("POST", f"{o}/step", status=413, json={"session": step, "skip": 30})
        send("POST", f"{o}/step", status=422, json={"c": -1})
        client.app.state.optimize.steps[step].busy = True  # type: ignore[attr-defined]
        send("POST", f"{o}/step", status=409, json={"session": step})
        client.app.state.optimize.steps[step].busy = False  # type: ignore[attr-defined]
        with TestClient(create_app(Settings(max_build_time=1e-9)), base_url=LOCAL) as hasty:
            send("POST", f"{o}/runs", status=413, on=hasty, json=tsp6)
        with TestClient(create_app(Settings(max_client_searches=0)), base_url=LOCAL) as full:
            send("POST", f"{o}/step", status=429, on=full, json=tsp6)  # a step is a search
        # 413: a body over max_body_bytes (mctslab.web.body), on every route that takes one.
        huge = {"pad": "x" * (SMALL.max_body_bytes + 1)}
        send("POST", f"{s}/play", sid, 413, json=huge)
        send("POST", f"{s}/ai", sid, 413, json=huge)

        # 503: SVG on a machine without Graphviz's `dot`.
        def no_dot(*args: Any) -> str:
            raise treeview.GraphvizNotFoundError("SVG export needs Graphviz's dot program")

        monkeypatch.setattr(treeview, "export", no_dot)
        send("GET", f"{s}/export", busy, 503, on=roomy, params={"format": "svg", "depth": 1})
        documented = {
            (method.upper(), path): {int(status) for status in operation["responses"]}
            for path, operations in openapi(client)["paths"].items()
            for method, operation in operations.items()
        }

        # 400 on every route: a Host header the server does not answer to (DNS rebinding).
        for method, path in documented:
            send(method, path, sid, 400, headers={"host": "evil.example:8000"})
        # 413: a game whose nodes max_session_memory cannot hold 100 of.
        with (
            TestClient(create_app(Settings(max_session_memory=10_000)), base_url=LOCAL) as cramped,
            TestClient(create_app(Settings(max_client_searches=0)), base_url=LOCAL) as starved,
        ):
            send("POST", "/api/sessions", status=413, on=cramped, json={"game": TTT})
            send("POST", "/api/move", status=413, on=cramped, json={"game": TTT})
            # 429: the client may run no search at once.
            send("POST", "/api/move", status=429, on=starved, json={"game": TTT})
            idle = starved.post("/api/sessions", json={"game": TTT}).json()["id"]
            send("POST", f"{s}/ai", idle, 429, on=starved)
            send("POST", f"{s}/iterations", idle, 429, on=starved, json={"k": 1})
            send("POST", f"{s}/step", idle, 429, on=starved)
        assert seen == documented


def test_the_single_player_schemas_say_what_their_handlers_refuse(client: TestClient) -> None:
    """schemathesis found schema-valid requests refused (ST202): a run's search spec of no
    known kind (even ""), and a step request with configuration beside its session.
    The schema now refuses both, as the handlers do."""
    import jsonschema

    schema = openapi(client)
    components = schema["components"]["schemas"]

    def valid(model: str, body: dict[str, Any]) -> bool:
        # The model's schema at the root, beside the components its $refs point into.
        root = {**components[model], "components": {"schemas": components}}
        return bool(jsonschema.Draft202012Validator(root).is_valid(body))

    for spec, ok in (("", False), ("bogus", False), ("NRPA:level=1", True), (" sp-mcts ", True),
                     ("nrpa:\n", True), ("2opt", True), ("exacto", False)):  # fmt: skip
        assert valid("OptimizeRunIn", {"game": "tsp", "search": spec}) is ok, spec
        if not ok:
            r = client.post("/api/optimize/runs", json={"game": "tsp", "search": spec})
            assert r.status_code in (400, 422), r.text
    step = {"session": "abc", "skip": 2}
    assert valid("OptimizeStepIn", step) and valid("OptimizeStepIn", {"game": "tsp", "seed": 1})
    assert valid("OptimizeStepIn", {"session": None, "game": "tsp"})
    assert not valid("OptimizeStepIn", {**step, "seed": 1})
    r = client.post("/api/optimize/step", json={**step, "seed": 1})
    assert r.status_code == 400 and "keeps the configuration" in r.json()["detail"]
