"""Your own game in every command and in the lab (issue 52, item 11): ``--game-module``
and the ``mctslab.games`` entry points, with docs/games.md's hand-written game.

The game is the one docs/games.md writes (TwentyOne, on ``PythonState``), taken from the
page itself and saved as a module in ``tmp_path``; the commands are the page's own. The
registry is process-wide, so each test works on a copy of it (:func:`registry_copy`).
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shlex
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_cli import assert_user_error
from typer.testing import CliRunner, Result

from mctslab.cli.main import app
from mctslab.core import registry
from mctslab.core.errors import UnknownGameError
from mctslab.core.registry import GAME_MODULES_ENV, available_games, load_game_module, make

ROOT = Path(__file__).parent.parent.parent
GAMES_MD = ROOT / "docs" / "games.md"
SPEC = "twenty_one:TwentyOne"

runner = CliRunner()


def docs_game_source() -> str:
    """docs/games.md's TwentyOne: its Python block up to the lines that run it."""
    text = GAMES_MD.read_text(encoding="utf-8")
    start = text.rindex("```python\n", 0, text.index("class TwentyOne:")) + len("```python\n")
    return text[start : text.index("twenty_one = TwentyOne()", start)]


def docs_commands() -> list[list[str]]:
    """The ``mctslab ...`` lines of the page's section on --game-module."""
    text = GAMES_MD.read_text(encoding="utf-8")
    section = text[text.index("### Your game on the command line and in the lab") :]
    block = section[
        section.index("```sh\n") + 6 : section.index("```", section.index("```sh\n") + 6)
    ]
    return [shlex.split(line) for line in block.splitlines() if line.startswith("mctslab ")]


@pytest.fixture
def registry_copy(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """A registry, sys.path and environment of this test's own, the game's module in
    ``tmp_path`` (the current directory)."""
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    monkeypatch.setattr(registry, "_LOADED_MODULES", {})
    monkeypatch.setattr(registry, "_PLUGIN_ERRORS", {})
    monkeypatch.setattr(registry, "_PLUGINS", dict(registry._PLUGINS))
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setenv(GAME_MODULES_ENV, "")  # so that its value now is restored after
    monkeypatch.delenv(GAME_MODULES_ENV)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "twenty_one.py").write_text(docs_game_source(), encoding="utf-8")
    yield tmp_path
    for name in ("twenty_one", "my_games", "broken_games"):
        sys.modules.pop(name, None)


def invoke(args: list[str], input: str | None = None) -> Result:
    return runner.invoke(app, args, input=input)


def ok(args: list[str], input: str | None = None) -> Result:
    result = invoke(args, input)
    assert result.exit_code == 0, (args, result.stdout, result.stderr, result.exception)
    return result


# --- --game-module -------------------------------------------------------------------


def test_the_docs_commands_run_the_docs_game(registry_copy: Path) -> None:
    commands = {args[1]: args[1:] for args in docs_commands()}
    assert set(commands) == {"search", "solve", "play", "arena", "serve"}
    assert "twenty_one" not in available_games()  # nothing before the option
    search = ok(commands["search"])
    assert "chosen move:" in search.stdout and "2,000 iterations" in search.stdout
    assert "twenty_one" in available_games()
    # The page's Python block: +3 leaves 9, a win for the player to move.
    solved = ok(commands["solve"])
    assert "win for the player to move" in solved.stdout and "optimal moves: +3" in solved.stdout
    # play with a human: the page's command, the human's moves typed in.
    played = ok(commands["play"], input="+3\n" * 8)
    assert "wins" in played.stdout or "draw" in played.stdout, played.stdout
    arena = ok([*commands["arena"], "--games", "4", "--workers", "1"])
    assert "uct" in arena.stdout and "rnd" in arena.stdout


def test_every_command_that_takes_a_game_has_the_option(registry_copy: Path) -> None:
    for command in ("play", "search", "solve", "tree", "arena", "sprt", "tune", "analyze",
                    "selfplay", "train", "exploitability", "optimize", "warm", "games",
                    "serve", "analysis"):  # fmt: skip
        shown = ok([command, "--help"]).stdout
        assert "--game-module" in shown, command
    assert "--game-module" not in ok(["lessons", "--help"]).stdout  # no game there
    listed = ok(["games", "--game-module", SPEC]).stdout
    assert "twenty_one" in listed and "goal=21" in listed
    tree = ok(["tree", "twenty_one", "--game-module", SPEC, "--iterations", "50"]).stdout
    assert "(+1)" in tree


def test_a_module_that_registers_its_games_is_named_alone(registry_copy: Path) -> None:
    (registry_copy / "my_games.py").write_text(
        "import mctslab\nfrom twenty_one import TwentyOne\n\n"
        "def short(goal=11):\n    return TwentyOne(goal)\n\n"
        "mctslab.register('eleven', short)\n",
        encoding="utf-8",
    )
    result = ok(["solve", "eleven", "--game-module", "my_games", "-p", "goal=9"])
    assert "for the player to move" in result.stdout
    assert load_game_module("my_games") == ["eleven"]  # loaded once: nothing added again


def test_a_bad_game_module_is_one_error_line(registry_copy: Path) -> None:
    text = GAMES_MD.read_text(encoding="utf-8")
    shown = next(line for line in text.splitlines() if "twenty_won" in line)
    missing = invoke(["search", "twenty_one", "--game-module", "twenty_won:TwentyOne"])
    assert assert_user_error(missing) == shown  # the page's line, as printed
    (registry_copy / "broken_games.py").write_text("raise RuntimeError('boom')\n")
    cases = {
        "twenty_one:Nothing": "twenty_one has no 'Nothing'",
        "twenty_one:TwentyOneState": "TwentyOneState() failed",
        "twenty_one": "registered no game",
        "broken_games:X": "failed to import: RuntimeError: boom",
        "not a module": "expected package.module:GameClass",
    }
    for spec, fragment in cases.items():
        line = assert_user_error(invoke(["search", "twenty_one", "--game-module", spec]))
        assert fragment in line, line


def test_the_console_script_finds_the_module_in_the_current_directory(tmp_path: Path) -> None:
    """A real ``mctslab`` process: its sys.path starts at its bin/, not here."""
    (tmp_path / "twenty_one.py").write_text(docs_game_source(), encoding="utf-8")
    script = Path(sys.executable).parent / "mctslab"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", GAME_MODULES_ENV)}
    args = ["search", "twenty_one", "--game-module", SPEC, "--moves", "3,3"]
    done = subprocess.run(
        [str(script), *args, "--iterations", "300", "--json"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["iterations"] == 300


def test_the_option_names_the_module_for_spawned_workers(registry_copy: Path) -> None:
    assert load_game_module(SPEC) == ["twenty_one"]
    assert os.environ[GAME_MODULES_ENV] == SPEC
    # A fresh process (as multiprocessing's spawn starts one) loads it from there.
    code = "import mctslab; print(mctslab.make('twenty_one').goal)"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=registry_copy, capture_output=True, text=True,
        timeout=300, env={**os.environ, "PYTHONPATH": str(registry_copy)},
    )  # fmt: skip
    assert done.returncode == 0 and done.stdout.strip() == "21", done.stderr


# --- the lab -------------------------------------------------------------------------


def _client(app_: Any) -> Any:
    pytest.importorskip("fastapi")
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*httpx2", category=Warning)
        from fastapi.testclient import TestClient
    return TestClient(app_, base_url="http://localhost")


def test_the_lab_plays_the_game_of_a_game_module(registry_copy: Path) -> None:
    pytest.importorskip("fastapi")
    from mctslab.web.app import create_app
    from mctslab.web.settings import Settings

    load_game_module(SPEC)
    with _client(create_app(Settings())) as client:
        assert "twenty_one" in [g["name"] for g in client.get("/api/games").json()]
        schema = client.get("/openapi.json").json()
        enum = schema["components"]["schemas"]["SessionIn"]["properties"]["game"]["anyOf"][0]
        assert "twenty_one" in enum["enum"]
        body = {"game": "twenty_one", "human_player": 0, "config": {"iterations": 200}}
        r = client.post("/api/sessions", json=body)
        assert r.status_code == 201, r.text
        sid = r.json()["id"]
        assert client.post(f"/api/sessions/{sid}/play", json={"action": "+3"}).status_code == 200
        r = client.post(f"/api/sessions/{sid}/ai")
        assert r.status_code == 200, r.text
        assert r.json()["state"]["actions"][0] == 3 and len(r.json()["state"]["actions"]) == 2


def test_serve_game_module_puts_the_game_in_the_lab(
    registry_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    uvicorn = pytest.importorskip("uvicorn")
    served: dict[str, Any] = {}
    monkeypatch.setattr(uvicorn, "run", lambda app_, **kw: served.update(app=app_))
    serve = next(args for args in docs_commands() if args[1] == "serve")
    ok([*serve[1:], "--port", "0"])
    client = _client(served["app"])  # no lifespan: the engine is not warmed here
    assert "twenty_one" in [g["name"] for g in client.get("/api/games").json()]


# --- entry points --------------------------------------------------------------------


def _distribution(where: Path, value: str) -> None:
    """An installed distribution as pip leaves one: its dist-info with an entry point."""
    info = where / "twenty_one_game-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: twenty_one_game\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[mctslab.games]\ntwenty_one = {value}\n")


def test_an_entry_point_makes_the_game_known_without_an_option(registry_copy: Path) -> None:
    site = registry_copy / "site"
    site.mkdir()
    (site / "twenty_one.py").write_text(docs_game_source(), encoding="utf-8")
    (registry_copy / "twenty_one.py").unlink()  # found through the installed package only
    _distribution(site, SPEC)
    sys.path.insert(0, str(site))
    registry._PLUGINS["loaded"] = False  # a fresh process: the group is read when first asked
    assert "twenty_one" in available_games()
    assert make("twenty_one", goal=9).goal == 9  # type: ignore[attr-defined]
    result = ok(["solve", "twenty_one", "--moves", "3,3"])
    assert "optimal moves: +3" in result.stdout


def test_a_broken_entry_point_says_so_when_its_game_is_asked_for(registry_copy: Path) -> None:
    site = registry_copy / "site"
    _distribution(site, "twenty_one_gone:TwentyOne")
    sys.path.insert(0, str(site))
    registry._PLUGINS["loaded"] = False
    assert "twenty_one" not in available_games()  # the others are unharmed
    with pytest.raises(UnknownGameError, match="failed to load: ModuleNotFoundError"):
        make("twenty_one")
    line = assert_user_error(invoke(["solve", "twenty_one"]))
    assert "entry point twenty_one = 'twenty_one_gone:TwentyOne' (mctslab.games)" in line


def test_an_entry_point_cannot_take_a_built_in_name(
    registry_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    loaded: list[str] = []

    class Point:
        name, value = "go", "twenty_one:TwentyOne"

        def load(self) -> Any:
            loaded.append(self.name)
            return None

    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group: [Point()])
    registry._PLUGINS["loaded"] = False
    assert "go" in available_games() and registry._PLUGINS["loaded"]  # the group was read
    assert make("go").info.name == "go" and loaded == []  # the built-in stays, unimported


# --- a handed-over file names a game, never a module ----------------------------------


def test_a_game_name_from_a_file_never_imports_a_module(registry_copy: Path) -> None:
    """Run directories, stores, SGF and checkpoints carry a game's name, which make()
    resolves among the registered games: a module path there is an unknown game."""
    for name in (SPEC, "twenty_one", "os:system"):
        with pytest.raises(UnknownGameError):
            make(name)
    assert "twenty_one" not in sys.modules


def test_an_entry_point_whose_game_needs_arguments_is_refused_by_name(
    registry_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every registered game is made with its defaults somewhere (``games_with``, the
    lab's menu): one that cannot be is left out, and says why when asked for."""

    def needs_a_size(size: int) -> Any:
        raise AssertionError("never called with one")

    class Point:
        name, value = "sized", "sized_games:needs_a_size"

        def load(self) -> Any:
            return needs_a_size

    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group: [Point()])
    registry._PLUGINS["loaded"] = False
    assert "sized" not in available_games()
    assert "tic_tac_toe" in registry.games_with("kernels")  # the others are unharmed
    with pytest.raises(
        UnknownGameError, match=r"\(mctslab.games\): sized_games:needs_a_size\(\) failed"
    ):
        make("sized")
