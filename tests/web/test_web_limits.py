"""The web API's bounds on what a client may make the server do (issue 28, items 8, 9, 11).

Each test attempts the attack or the overload the issue describes and checks the
answer: OpenSpiel games from an allow-list with bounded parameters (no file
parameters), the ``Host`` header checked against DNS rebinding, a memory budget for
every tree together, per-client caps on sessions and searches, every search bounded by
wall time, game construction and compilation off the event loop, and a cutoff depth
the compiled engine can hold.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import require_extra

if os.environ.get("MCTSLAB_REQUIRE_EXTRAS"):
    import fastapi  # noqa: F401
else:
    pytest.importorskip("fastapi")

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*httpx2", category=Warning)
    from fastapi.testclient import TestClient

from typer.testing import CliRunner

from mctslab.cli.main import app as cli
from mctslab.web import sessions as web_sessions
from mctslab.web.app import create_app
from mctslab.web.hosts import host_allowed
from mctslab.web.limits import reference_node_bytes
from mctslab.web.openspiel import ALLOWED, checked_openspiel
from mctslab.web.settings import LOOPBACK_HOSTS, Settings

TTT = "tic_tac_toe"
LOCAL = "http://localhost"


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(create_app(Settings()), base_url=LOCAL) as c:
        yield c


def detail(r: Any, status: int) -> str:
    assert r.status_code == status, r.text
    text: str = r.json()["detail"]
    return text


# Item 8: OpenSpiel games from an allow-list, parameters bounded. --------------------------


def test_a_file_parameter_never_reaches_openspiel(client: TestClient, tmp_path: Path) -> None:
    """efg_game(filename=...) read any path: an existing and a missing file gave different
    errors (a probe), a directory a 500, a FIFO hung the server. Now all are the same 422,
    at once, for both routes."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    here = Path(__file__).resolve()
    answers = set()
    for path in (here, tmp_path / "missing", tmp_path, fifo):
        for route in ("/api/move", "/api/sessions"):
            start = time.monotonic()
            r = client.post(route, json={"game": f"openspiel:efg_game(filename={path})"})
            assert time.monotonic() - start < 5
            answers.add((r.status_code, r.json()["detail"].replace(str(path), "PATH")))
            r = client.post(
                route, json={"game": "openspiel:efg_game", "params": {"filename": str(path)}}
            )
            answers.add((r.status_code, r.json()["detail"]))
    assert {status for status, _ in answers} == {422}
    assert all("unknown game" in text for _, text in answers)
    assert "efg_game" not in ALLOWED


@pytest.mark.parametrize(
    ("game", "params", "why"),
    [
        ("openspiel:nim(pile_sizes=20000000)", {}, "pile"),
        ("openspiel:nim", {"pile_sizes": "20000000"}, "pile"),
        ("openspiel:hex(num_rows=20000,num_cols=20000)", {}, "num_rows"),
        ("openspiel:go", {"board_size": 10_000}, "board_size"),
        ("openspiel:go(board_size=19)", {"komi": "nan"}, "komi"),
        ("openspiel:tic_tac_toe", {"filename": "/etc/passwd"}, "filename"),
        ("openspiel:chess(chess960=maybe)", {}, "chess960"),
    ],
)
def test_openspiel_parameters_are_bounded(
    client: TestClient, game: str, params: dict[str, Any], why: str
) -> None:
    """nim(pile_sizes=20000000) took 5.5 GB and 32 s, hex(num_rows=20000) 2.7 GB: now a
    400 naming the parameter, before pyspiel sees it."""
    for route in ("/api/move", "/api/sessions"):
        start = time.monotonic()
        r = client.post(route, json={"game": game, "params": params})
        assert why in detail(r, 400)
        assert time.monotonic() - start < 2


def test_names_off_the_list_are_refused_as_the_schema_says(client: TestClient) -> None:
    """openspiel:0 matched the schema's pattern, and answered 400: now the schema names
    the allowed games, and the server answers 422 for any other, as it says."""
    schema = client.get("/openapi.json").json()
    pattern = schema["components"]["schemas"]["SessionIn"]["properties"]["game"]["anyOf"][1]
    for name in ALLOWED:
        assert f"|{name}|" in pattern["pattern"].replace("(", "|").replace(")", "|")
    for game in ("openspiel:0", "openspiel:efg_game", "openspiel:go(game=go(x=1))", "openspiel:"):
        for route in ("/api/move", "/api/sessions"):
            assert "unknown game" in detail(client.post(route, json={"game": game}), 422)
    sid = client.post("/api/sessions", json={"game": TTT}).json()["id"]
    r = client.post(f"/api/sessions/{sid}/play", json={"action": ""})  # was a 400
    assert detail(r, 422).startswith("action")


def test_allowed_openspiel_games_play(client: TestClient) -> None:
    require_extra("pyspiel", "openspiel")
    r = client.post(
        "/api/move",
        json={"game": "openspiel:go(board_size=5)", "params": {"komi": 0.5}, "iterations": 20},
    )
    assert r.status_code == 200, r.text
    r = client.post("/api/sessions", json={"game": "openspiel:nim(pile_sizes=1;2;3)"})
    assert r.status_code == 201, r.text
    assert checked_openspiel("openspiel:hex(board_size=5)", {"swap": "true"})[:2] == (
        "hex",
        {"board_size": 5, "swap": True},
    )


def test_games_are_built_off_the_event_loop_within_a_time_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A game, a position and a session (a compiled one's kernels) are made in worker
    threads; a game slower than max_build_time to make is a 413, and the server answers
    meanwhile."""
    from mctslab.web import positions

    built_in: list[bool] = []
    real = positions.build_position

    def slow(*args: Any) -> Any:
        try:
            asyncio.get_running_loop()
            built_in.append(False)  # on the event loop
        except RuntimeError:
            built_in.append(True)
        time.sleep(1.0)
        return real(*args)

    monkeypatch.setattr("mctslab.web.routes.build_position", slow)
    made: list[bool] = []
    real_session = web_sessions.Session.__init__

    def session_init(self: Any, *args: Any, **kw: Any) -> None:
        try:
            asyncio.get_running_loop()
            made.append(False)
        except RuntimeError:
            made.append(True)
        real_session(self, *args, **kw)

    monkeypatch.setattr(web_sessions.Session, "__init__", session_init)
    with TestClient(create_app(Settings(max_build_time=0.3)), base_url=LOCAL) as c:
        out: dict[str, Any] = {}
        thread = threading.Thread(
            target=lambda: out.update(r=c.post("/api/sessions", json={"game": "connect_four"}))
        )
        thread.start()
        time.sleep(0.1)
        start = time.monotonic()
        assert c.get("/api/health").status_code == 200
        assert time.monotonic() - start < 0.5  # the loop is free while the game is made
        thread.join(30)
        assert "max_build_time" in detail(out["r"], 413)
    with TestClient(create_app(Settings()), base_url=LOCAL) as c:
        r = c.post("/api/sessions", json={"game": "connect_four", "config": {"engine": "compiled"}})
        assert r.status_code == 201, r.text
        assert c.post(f"/api/sessions/{r.json()['id']}/reset").status_code == 200
    assert built_in and all(built_in)
    assert made and all(made)


# Item 8: the Host header. ------------------------------------------------------------------


def test_a_rebound_host_is_refused(client: TestClient) -> None:
    """A page of evil.example re-pointed to 127.0.0.1 drove the API (DNS rebinding): its
    requests say Host: evil.example, and now get a 400 on every path, the page included."""
    for host in ("evil.example", "evil.example:8000", "localhost.evil.example", "127.0.0.2"):
        for method, path in (("GET", "/"), ("GET", "/api/health"), ("POST", "/api/sessions")):
            r = client.request(method, path, headers={"host": host}, json={"game": TTT})
            assert "Host header" in detail(r, 400)
    for host in ("localhost", "localhost:8000", "127.0.0.1:1", "[::1]:8000", "[::1]"):
        assert client.get("/api/health", headers={"host": host}).status_code == 200
    assert client.post("/api/sessions", json={"game": TTT}).status_code == 201


def test_allowed_hosts_are_configurable() -> None:
    assert not host_allowed("lab.example:8000", LOOPBACK_HOSTS)
    assert host_allowed("lab.example:8000", (*LOOPBACK_HOSTS, "lab.example"))
    assert host_allowed("lab.example:8000", ("lab.example:8000",))
    assert not host_allowed("lab.example:8001", ("lab.example:8000",))
    assert not host_allowed(None, LOOPBACK_HOSTS) and host_allowed("any", ("*",))
    settings = Settings(allowed_hosts=(*LOOPBACK_HOSTS, "lab.example"))
    with TestClient(create_app(settings), base_url="http://lab.example:8000") as c:
        assert c.get("/api/health").status_code == 200


def test_serve_takes_allowed_hosts(monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn

    seen: dict[str, Any] = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: seen.update(app=app))
    monkeypatch.setattr("mctslab.web.sessions.tune_process", lambda: None)
    result = CliRunner().invoke(
        cli, ["serve", "--port", "0", "--allowed-host", "lab.example", "--allowed-host", "x:1"]
    )
    assert result.exit_code == 0, result.output
    with TestClient(seen["app"], base_url="http://lab.example") as c:
        assert c.get("/api/health").status_code == 200
        assert c.get("/api/health", headers={"host": "x:2"}).status_code == 400
        assert c.get("/api/health", headers={"host": "localhost:0"}).status_code == 200


# Item 9: memory, sessions and searches per client, wall time. -----------------------------


def test_the_memory_of_every_tree_together_is_bounded() -> None:
    """100 sessions of up to a gigabyte each could take the machine: now every tree is
    priced, a search is given the nodes there is room for, and a request that could not
    add one is a 429, before anything is allocated."""
    from mctslab import make

    per = reference_node_bytes(make(TTT).new_initial_state())
    settings = Settings(max_memory=per * 1500, max_iterations=5000)
    with TestClient(create_app(settings), base_url=LOCAL) as c:
        a = c.post("/api/sessions", json={"game": TTT}).json()["id"]
        b = c.post("/api/sessions", json={"game": TTT}).json()["id"]
        r = c.post(f"/api/sessions/{a}/iterations", json={"k": 5000})
        assert r.status_code == 200, r.text
        assert r.json()["stopped_by"] == "nodes" and r.json()["nodes"] < 1500
        r = c.post(f"/api/sessions/{b}/iterations", json={"k": 100})
        assert "max_memory" in detail(r, 429)
        assert "max_memory" in detail(c.post("/api/move", json={"game": TTT}), 429)
        assert c.delete(f"/api/sessions/{a}").status_code == 204  # its memory comes back
        assert c.post(f"/api/sessions/{b}/iterations", json={"k": 100}).status_code == 200
        assert c.post("/api/move", json={"game": TTT, "iterations": 50}).status_code == 200


def test_a_session_of_large_nodes_gets_fewer_of_them() -> None:
    """max_session_memory lowers the node cap for games whose nodes are large (Go keeps
    its position in every opened node)."""
    with TestClient(create_app(Settings(max_session_memory=8 << 20)), base_url=LOCAL) as c:
        go = c.post("/api/sessions", json={"game": "go"}).json()["id"]
        ttt = c.post("/api/sessions", json={"game": TTT}).json()["id"]
        r = c.post(f"/api/sessions/{go}/iterations", json={"k": 2000})
        assert "413" and "max_session_memory" in detail(r, 413)
        assert c.post(f"/api/sessions/{ttt}/iterations", json={"k": 2000}).status_code == 200


def test_one_client_cannot_take_every_session() -> None:
    app = create_app(Settings(max_sessions=10, max_client_sessions=3))
    with TestClient(app, base_url=LOCAL) as mine:
        other = TestClient(app, base_url=LOCAL, client=("10.0.0.2", 5000))
        made = [mine.post("/api/sessions", json={"game": TTT}).json()["id"] for _ in range(3)]
        # At its cap a client's new session replaces its own oldest idle one (issue 52).
        assert mine.post("/api/sessions", json={"game": TTT}).status_code == 201
        assert mine.get(f"/api/sessions/{made[0]}").status_code == 404
        assert other.post("/api/sessions", json={"game": TTT}).status_code == 201


def test_one_client_runs_a_bounded_number_of_searches_at_once() -> None:
    """Concurrent /api/move had no limit: now max_client_searches per client (and
    max_searches in all) run at once, the others get a 429."""
    app = create_app(Settings(max_client_searches=1, max_searches=2))
    with TestClient(app, base_url=LOCAL) as mine:
        second = TestClient(app, base_url=LOCAL, client=("10.0.0.2", 5000))
        third = TestClient(app, base_url=LOCAL, client=("10.0.0.3", 5000))
        sid = mine.post("/api/sessions", json={"game": "connect_four"}).json()["id"]
        out: dict[str, Any] = {}
        thread = threading.Thread(
            target=lambda: out.update(r=mine.post(f"/api/sessions/{sid}/ai", json={"time": 3}))
        )
        thread.start()
        deadline = time.monotonic() + 30
        while not mine.get(f"/api/sessions/{sid}").json()["busy"]:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        r = mine.post("/api/move", json={"game": TTT, "iterations": 10})
        assert "max_client_searches" in detail(r, 429)
        slow = threading.Thread(
            target=lambda: out.update(
                s=second.post("/api/move", json={"game": "connect_four", "time": 2})
            )
        )
        slow.start()
        time.sleep(0.5)
        r = third.post("/api/move", json={"game": TTT, "iterations": 10})
        assert "max_searches" in detail(r, 429)
        mine.post(f"/api/sessions/{sid}/cancel")
        thread.join(30)
        slow.join(30)
        assert out["s"].status_code == 200
        assert mine.post("/api/move", json={"game": TTT, "iterations": 10}).status_code == 200


@pytest.mark.parametrize("engine", ["reference", "compiled"])
def test_an_iteration_budget_is_bounded_by_wall_time(engine: str) -> None:
    """A legal 200,000-iteration request held a search thread for minutes: max_time now
    bounds every search's wall time, an iteration budget's too."""
    settings = Settings(max_time=0.5)
    with TestClient(create_app(settings), base_url=LOCAL) as c:
        config = {"engine": engine, "iterations": settings.max_iterations}
        start = time.monotonic()
        r = c.post("/api/move", json={"game": "go", "config": config})
        assert r.status_code == 200, r.text
        assert r.json()["stopped_by"] == "max_time"
        assert time.monotonic() - start < 5
        # (Connect Four: 199,999 nodes fit in a session, which Go's larger nodes do not.)
        c4 = c.post("/api/sessions", json={"game": "connect_four", "config": config}).json()
        start = time.monotonic()
        r = c.post(f"/api/sessions/{c4['id']}/iterations", json={"k": settings.max_iterations - 1})
        assert r.status_code == 200 and r.json()["stopped_by"] == "max_time", r.text
        sid = c.post("/api/sessions", json={"game": "go", "config": config}).json()["id"]
        r = c.post(f"/api/sessions/{sid}/ai")
        assert r.status_code == 200 and r.json()["last_ai"]["stopped_by"] == "max_time"
        assert time.monotonic() - start < 10


# Item 11: a cutoff depth the compiled engine can hold. ------------------------------------


def test_a_huge_cutoff_depth_is_a_clean_refusal(client: TestClient) -> None:
    """cutoff_depth >= 2**63 overflowed the compiled engine's int64 configuration: a 500
    on the web, a traceback on the command line."""
    config = {"simulation": "cutoff", "cutoff_depth": 2**63}
    for route in ("/api/move", "/api/sessions"):
        r = client.post(route, json={"game": "connect_four", "config": config})
        assert "cutoff_depth" in detail(r, 422)
    config["cutoff_depth"] = 10**9  # the largest
    r = client.post("/api/move", json={"game": "connect_four", "config": config})
    assert r.status_code == 200, r.text
    result = CliRunner().invoke(
        cli,
        [
            "play",
            TTT,
            "--player",
            f"mcts:simulation=cutoff,cutoff_depth={2**63},iterations=10",
            "--player",
            "random",
        ],
    )
    assert (result.exit_code != 0 and result.exception is None) or isinstance(
        result.exception, SystemExit
    )
    assert "cutoff_depth must be an integer in [0, 10**9]" in result.output
