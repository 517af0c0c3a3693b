"""Warming the compiled engine (mctslab.search.warm, ``mctslab warm``): the games it
warms are ready in the process, an unknown game is refused before any is warmed, and
the web lab tells the page whether a session's first compiled move will compile, then
reports the compilation apart from the search's seconds."""

from __future__ import annotations

import warnings

import pytest
from typer.testing import CliRunner

from mctslab.cli.main import app
from mctslab.core.errors import InvalidConfigError
from mctslab.search import warm as warm_module
from mctslab.search.warm import is_ready, warm, warmable_games


def test_warm_loads_the_games_and_refuses_unknown_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(warm_module, "_READY", set())
    assert {"connect_four", "go", "tic_tac_toe"} <= set(warmable_games())
    assert "tsp" not in warmable_games()  # single-player: not the tree engine's
    with pytest.raises(InvalidConfigError, match="cannot warm 'chess'"):
        warm(["nim", "chess"])
    assert not is_ready("nim")  # refused before any was warmed
    told: list[tuple[str, str]] = []
    [result] = warm(["nim"], on_step=lambda game, path: told.append((game, path)))
    assert result.game == "nim" and result.seconds > 0
    assert told == [("nim", path) for path in warm_module.PATHS]
    assert all(is_ready("nim", path) for path in warm_module.PATHS)
    assert warm_module.warming() is None


def test_the_command_says_what_it_warmed() -> None:
    runner = CliRunner()
    ok = runner.invoke(app, ["warm", "nim"])
    assert ok.exit_code == 0, ok.stderr
    assert ok.stdout.startswith("warm: nim ") and "numba's cache" in ok.stdout
    assert "warming nim (uct) ..." in ok.stderr
    bad = runner.invoke(app, ["warm", "chess"])
    assert bad.exit_code == 2 and bad.stderr.startswith("error: cannot warm 'chess'")


def test_the_page_is_told_when_a_first_move_compiles(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("fastapi")
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*httpx2", category=Warning)
        from fastapi.testclient import TestClient

    from mctslab.web.app import create_app
    from mctslab.web.settings import Settings

    monkeypatch.setattr(warm_module, "_READY", set())
    with TestClient(create_app(Settings()), base_url="http://localhost") as client:
        body = {"game": "connect_four", "config": {"engine": "compiled", "iterations": 200}}
        view = client.post("/api/sessions", json=body).json()
        assert view["engine"] == "compiled" and view["engine_ready"] is False
        after = client.post(f"/api/sessions/{view['id']}/ai").json()
        assert after["engine_ready"] is True
        last = after["last_ai"]
        assert last["compile_seconds"] >= 0 and last["seconds"] >= 0
        assert last["iterations"] == 200
        reference = {"game": "connect_four", "config": {"engine": "reference"}}
        assert client.post("/api/sessions", json=reference).json()["engine_ready"] is True


def test_puct_at_the_pages_fpu_spreads_its_first_visits(monkeypatch: pytest.MonkeyPatch) -> None:
    """The page starts PUCT at FPU 0.5 (docs/web.md): with uniform priors and the
    heuristic's values, its first 12 iterations at Connect Four visit more root moves
    than at AlphaZero's FPU 0, which follows one column down."""
    pytest.importorskip("fastapi")
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*httpx2", category=Warning)
        from fastapi.testclient import TestClient

    from mctslab.web.app import create_app
    from mctslab.web.settings import Settings

    tried = {}
    with TestClient(create_app(Settings()), base_url="http://localhost") as client:
        for fpu in (0.0, 0.5):
            config = {"selection": "puct", "evaluator": "heuristic", "fpu": fpu, "seed": 1}
            sid = client.post(
                "/api/sessions", json={"game": "connect_four", "config": config}
            ).json()["id"]
            client.post(f"/api/sessions/{sid}/iterations", json={"k": 12})
            tree = client.get(f"/api/sessions/{sid}/tree", params={"depth": 1}).json()
            tried[fpu] = sum(1 for child in tree["children"] if child["visits"] > 0)
    assert tried[0.5] > tried[0.0], tried
