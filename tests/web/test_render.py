"""The board the page draws is the game's own declaration (mctslab.web.render reads
:class:`mctslab.core.declarations.Rendering`): a user's game that declares a grid and
its players' names is drawn so, through the API too, with nothing in ``web/`` edited;
a game that declares nothing is text with player_label's names; the built-in games
declare the names the page always gave them."""

from __future__ import annotations

import ast
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*httpx2", category=Warning)
    from fastapi.testclient import TestClient

import mctslab
from mctslab.core import registry
from mctslab.core.declarations import RecordFormat, Rendering, rendering
from mctslab.core.game import GameInfo
from mctslab.core.python_state import PythonState
from mctslab.web.app import create_app
from mctslab.web.render import board_kind, player_names, render
from mctslab.web.settings import Settings

WEB = Path(mctslab.__file__).parent / "web"


class Strip:
    """Two players in turn mark one of three cells in a row; over when the row is full."""

    def __init__(self) -> None:
        self.info = GameInfo("strip", 1, 2, 3, 3, True, -1.0, 1.0)

    def new_initial_state(self) -> StripState:
        return StripState(self)

    def state_from_actions(self, actions: list[int]) -> StripState:
        state = self.new_initial_state()
        for a in actions:
            state.apply_action(a)
        return state

    def rendering(self) -> Rendering:
        return Rendering(kind="grid", players=("Cat", "Dog"), draw=self.grid)

    def record_format(self) -> RecordFormat:
        return RecordFormat("sgf", "application/x-strip", "strip.sgf", self.record)

    def record(self, state: StripState, players: tuple[str, ...]) -> str:
        return f"{players} {state.history()}"

    def grid(self, state: StripState) -> dict[str, Any]:
        marks = ["", "", ""]
        for i, a in enumerate(state.history()):
            marks[a] = "xo"[i % 2]
        legal = state.legal_actions()
        return {"rows": 1, "cols": 3, "cells": marks, "click": "cell",
                "actions": {str(a): a for a in legal}, "win": []}  # fmt: skip


class StripState(PythonState[Strip]):
    def current_player(self) -> int:
        return -4 if len(self._history) == 3 else len(self._history) % 2

    def legal_actions(self) -> list[int]:
        return [] if len(self._history) == 3 else sorted({0, 1, 2} - set(self._history))

    def _apply_action(self, action: int) -> None:
        if action not in self.legal_actions():
            raise self.illegal_action(action)

    def returns(self) -> list[float]:
        return [0.0, 0.0]

    def __str__(self) -> str:
        return str(self._history)


class Plain:
    """Strip without a declaration: the text board."""

    def __init__(self) -> None:
        self.info = GameInfo("plain_strip", 1, 2, 3, 3, True, -1.0, 1.0)

    new_initial_state = Strip.new_initial_state
    state_from_actions = Strip.state_from_actions


def test_render_reads_the_games_declaration() -> None:
    game = Strip()
    state = game.state_from_actions([1])
    assert render(game, state) == {
        "kind": "grid", "rows": 1, "cols": 3, "cells": ["", "x", ""], "click": "cell",
        "actions": {"0": 0, "2": 2}, "win": [],
    }  # fmt: skip
    assert player_names(game) == ["Cat", "Dog"] and board_kind(game) == "grid"
    plain = Plain()
    assert rendering(plain) == Rendering()
    assert render(plain, plain.new_initial_state()) == {"kind": "text"}
    assert player_names(plain) == ["player 1", "player 2"] and board_kind(plain) == "text"


def test_the_built_in_games_declare_the_names_the_page_gave_them() -> None:
    names = {g: player_names(mctslab.make(g)) for g in ("tic_tac_toe", "connect_four", "go")}
    assert names == {
        "tic_tac_toe": ["X", "O"],
        "connect_four": ["Red", "Yellow"],
        "go": ["Black", "White"],
    }
    kinds = {g: board_kind(mctslab.make(g)) for g in ("nim", "bohnenspiel", "pig", "bachet")}
    assert kinds == {"nim": "piles", "bohnenspiel": "pits", "pig": "text", "bachet": "piles"}


@pytest.fixture
def strip_registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(registry, "_REGISTRY", {**registry._REGISTRY, "strip": Strip})
    yield


def test_a_user_game_is_drawn_through_the_api_as_it_declares(strip_registered: None) -> None:
    with TestClient(create_app(Settings()), base_url="http://localhost") as client:
        listed = {g["name"]: g for g in client.get("/api/games").json()}
        assert listed["strip"]["board"] == "grid"
        r = client.post("/api/sessions", json={"game": "strip", "actions": [2]})
        assert r.status_code == 201, r.text
        view = r.json()["state"]
    assert view["player_names"] == ["Cat", "Dog"]
    assert view["render"]["kind"] == "grid" and view["render"]["cells"] == ["", "", "x"]


def test_a_user_games_record_is_served_as_it_declares(strip_registered: None) -> None:
    """The SGF route asks the game's declared record format, not which class it is."""
    with TestClient(create_app(Settings()), base_url="http://localhost") as client:
        sid = client.post(
            "/api/sessions", json={"game": "strip", "actions": [2], "human_player": 1}
        ).json()["id"]
        r = client.get(f"/api/sessions/{sid}/sgf")
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("application/x-strip")
    assert 'filename="strip.sgf"' in r.headers["content-disposition"]
    assert r.text == "('mctslab', 'human') [2]"


def test_no_web_module_imports_a_game() -> None:
    """The acceptance's count: the modules of web/ that import mctslab.games (and so
    could ask a game's class): none. The board, the Optimize tab and its routes read the
    registry and core's declarations, the SGF route the game's declared record format."""
    found = []
    for path in sorted(WEB.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else []
            )
            if any(n == "mctslab.games" or n.startswith("mctslab.games.") for n in names):
                found.append(str(path.relative_to(WEB)))
    assert found == []
