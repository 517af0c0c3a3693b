"""schemathesis's command line, every check, against the web lab served by uvicorn.

``test_web_schema.py`` fuzzes the application in process, on real sessions; this runs
the tool as a user would, over HTTP on a free loopback port (so the ``Host`` check, the
per-client caps and the thread pool are those of a served lab), and expects no failure.
The expected statuses are schemathesis's defaults plus what the schema documents as the
game's refusals of a well-formed request (400: an illegal move, a parameter out of the
lab's bounds; 413: a tree at its cap), which no schema can tell in advance.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

if os.environ.get("MCTSLAB_REQUIRE_EXTRAS"):
    import fastapi  # noqa: F401
    import schemathesis  # noqa: F401
    import uvicorn
else:
    pytest.importorskip("fastapi")
    pytest.importorskip("schemathesis")
    uvicorn = pytest.importorskip("uvicorn")

from browser_harness import free_port

from mctslab.web.app import create_app
from mctslab.web.settings import Settings

#: Examples per operation and phase (about 1,800 requests, half a minute here).
EXAMPLES = 30

# Caps small enough that no generated request searches for long.
LIVE = Settings(
    max_iterations=2000,
    max_time=0.05,
    max_nodes=300,
    max_sessions=100_000,
    max_client_sessions=100_000,
    max_client_searches=64,
    chunk_seconds=0.01,
)

CONFIG = """
[generation]
max-examples = {examples}
deterministic = true
database = "none"

[checks.positive_data_acceptance]
expected-statuses = ["2xx", "3xx", "400", "401", "403", "404", "409", "413", "429"]

[checks.not_a_server_error]
expected-statuses = ["2xx", "3xx", "4xx"{no_dot}]
"""


def sessions(url: str) -> str:
    """A session for each operation on one (a Go game for the SGF download, a grown
    tic-tac-toe tree for the others, Connect Four for the moves), as schemathesis's per-operation parameters: the
    requests then reach the routes' logic instead of a 404."""
    schema = httpx.get(f"{url}/openapi.json").json()
    blocks = []
    for path, operations in schema["paths"].items():
        if "{sid}" not in path:
            continue
        for method in operations:
            game = "go" if path.endswith("/sgf") else "tic_tac_toe"
            if path.endswith(("/ai", "/play")):
                game = "connect_four"  # longer games: fewer requests after the end
            r = httpx.post(f"{url}/api/sessions", json={"game": game, "config": {"seed": 0}})
            assert r.status_code == 201, r.text
            sid = r.json()["id"]
            if game != "go":
                grown = httpx.post(f"{url}/api/sessions/{sid}/iterations", json={"k": 60})
                assert grown.status_code == 200, grown.text
            blocks.append(
                f'[[operations]]\ninclude-name = "{method.upper()} {path}"\n'
                f'parameters = {{ "path.sid" = "{sid}" }}\n'
            )
    return "\n".join(blocks)


def warm_up(url: str) -> None:
    """One move of every game the lab serves, before schemathesis starts: a game's first
    search compiles its kernels (a game that another test registered, as the examples'
    Hex, is compiled on first use, uncached, for 10 s and more on 2 busy cores), which
    schemathesis's 10-second read timeout would report as a network error. The test
    checks the schema, not numba's first compilation."""
    for game in httpx.get(f"{url}/api/games").json():
        r = httpx.post(
            f"{url}/api/move",
            json={"game": game["name"], "actions": [], "iterations": 1},
            timeout=600,
        )
        assert r.status_code == 200, (game["name"], r.text)


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    port = free_port()
    config = uvicorn.Config(create_app(LIVE), host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "uvicorn did not start"
        time.sleep(0.02)
    url = f"http://127.0.0.1:{port}"
    warm_up(url)
    yield url
    server.should_exit = True
    thread.join(timeout=10)


def test_schemathesis_finds_nothing_against_the_served_lab(server_url: str, tmp_path: Path) -> None:
    cli = Path(sys.executable).with_name("schemathesis")
    if not cli.exists():
        if os.environ.get("MCTSLAB_REQUIRE_EXTRAS"):
            pytest.fail(f"the schemathesis command is missing: {cli}")
        pytest.skip("the schemathesis command is not installed beside this Python")
    no_dot = ', "503"' if shutil.which("dot") is None else ""
    toml = tmp_path / "schemathesis.toml"
    toml.write_text(CONFIG.format(examples=EXAMPLES, no_dot=no_dot) + sessions(server_url))
    start = time.monotonic()
    run = subprocess.run(
        [
            str(cli),
            "--config-file",
            str(toml),
            "run",
            f"{server_url}/openapi.json",
            "--checks",
            "all",
            "--seed",
            "0",
            "--suppress-health-check",
            "all",
            "--report-dir",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    seconds = time.monotonic() - start
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    assert "No issues found" in run.stdout or "passed" in run.stdout, run.stdout[-3000:]
    print(f"schemathesis: {seconds:.0f} s", run.stdout[-400:])
