"""Warming the compiled engine (mctslab.search.warm, ``mctslab warm``): the games it
warms are ready in the process, an unknown game is refused before any is warmed, and
the web lab tells the page whether a session's first compiled move will compile, then
reports the compilation apart from the search's seconds."""

from __future__ import annotations

import io
import subprocess
import sys
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


def test_the_first_games_are_warmed_first_path_by_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every path of tic-tac-toe, Connect Four and Go before any other game's: the page's
    first games (Connect Four with a network included) are ready first. ``on_done`` hears
    each step after it ends, with its seconds."""
    monkeypatch.setattr(warm_module, "_READY", set())
    monkeypatch.setattr(warm_module, "warm_path", lambda name, path: 0.25)
    done: list[tuple[str, str, float]] = []
    warm(["nim", "go", "connect_four"], on_done=lambda g, p, s: done.append((g, p, s)))
    first = [(g, p, 0.25) for p in warm_module.PATHS for g in ("go", "connect_four")]
    assert done == [*first, *[("nim", p, 0.25) for p in warm_module.PATHS]]


def test_the_servers_warm_up_marks_what_the_child_cached(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The server reads ``mctslab warm``'s stderr: a ``warmed`` line makes that game and
    path ready (in numba's cache) though this process never searched it; other lines
    change nothing; an ``error:`` line becomes a note on the server's stderr."""
    from mctslab.web.warmup import read_warm_lines

    monkeypatch.setattr(warm_module, "_READY", set())
    monkeypatch.setattr(warm_module, "_CACHED", set())
    lines = [
        "warming connect_four (uct) ...\n",
        "warmed connect_four (uct) in 12.5 s\n",
        "warming connect_four (network) ...\n",
        "error: no room left on the device\n",
    ]
    read_warm_lines(io.StringIO("".join(lines)))
    assert is_ready("connect_four", "uct")
    assert not is_ready("connect_four", "network") and not is_ready("go", "uct")
    note = "note: warming the compiled engine failed (no room left on the device)"
    assert capsys.readouterr().err.strip() == note


def test_the_warm_command_at_a_lower_priority_says_each_step() -> None:
    """``mctslab warm --nice nim`` in a process of its own: its stderr has a ``warmed``
    line for each path, which the server's warm-up reads."""
    done = subprocess.run(
        [sys.executable, "-m", "mctslab", "warm", "--nice", "nim"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    warmed = [
        line.split(" in ")[0] for line in done.stderr.splitlines() if line.startswith("warmed")
    ]
    assert warmed == [f"warmed nim ({path})" for path in warm_module.PATHS]
