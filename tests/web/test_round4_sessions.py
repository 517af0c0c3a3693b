"""Issue 52, item 1, in the API: a client at its cap of sessions is not shut out.

The page made a session for each New game and never deleted one, so after 20 clicks
(``max_client_sessions``) every New game was a 429 for the next 30 minutes. The page now
deletes the session it leaves (tests/web/test_round4_page_browser.py), and the server
gives a client at its cap its new session in place of its oldest idle one: only a client
whose every session is searching is refused.
"""

from __future__ import annotations

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

from mctslab.web.app import create_app
from mctslab.web.settings import Settings

TTT = "tic_tac_toe"
LOCAL = "http://localhost"


class Clock:
    """A clock the test moves by hand: which session is the oldest idle is then exact."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def app(clock: Clock) -> Any:
    return create_app(Settings(max_sessions=6, max_client_sessions=3, clock=clock))


@pytest.fixture
def client(app: Any) -> Iterator[TestClient]:
    with TestClient(app, base_url=LOCAL) as c:
        yield c


def new_session(c: TestClient, clock: Clock, **body: Any) -> str:
    clock.now += 1
    r = c.post("/api/sessions", json={"game": TTT, **body})
    assert r.status_code == 201, r.text
    sid: str = r.json()["id"]
    return sid


def alive(c: TestClient, sid: str) -> bool:
    return c.get(f"/api/sessions/{sid}").status_code == 200


def test_at_its_cap_a_client_replaces_its_oldest_idle_session(
    client: TestClient, clock: Clock
) -> None:
    a, b, c = (new_session(client, clock) for _ in range(3))
    clock.now += 1
    assert alive(client, a)  # a is used again: b is now the least recently used
    d = new_session(client, clock)
    assert not alive(client, b)
    assert all(alive(client, sid) for sid in (a, c, d))
    # A hundred more: never refused, never more than the cap held.
    for _ in range(100):
        new_session(client, clock)
    assert len(client.app.state.lab.sessions) == 3  # type: ignore[attr-defined]


def test_a_searching_session_is_not_replaced(app: Any, client: TestClient, clock: Clock) -> None:
    made = [new_session(client, clock) for _ in range(3)]
    store = app.state.lab.sessions
    store.get(made[0]).busy = True  # the oldest is running a search: the next one goes
    new_session(client, clock)
    assert alive(client, made[0]) and not alive(client, made[1])
    for session in list(store._sessions.values()):
        session.busy = True
    r = client.post("/api/sessions", json={"game": TTT})
    assert r.status_code == 429, r.text
    assert "running a search" in r.json()["detail"]
    assert "max_client_sessions" in r.json()["detail"]


def test_a_refused_request_replaces_nothing(client: TestClient, clock: Clock) -> None:
    made = [new_session(client, clock) for _ in range(3)]
    r = client.post("/api/sessions", json={"game": TTT, "human_player": 5})
    assert r.status_code == 400, r.text
    assert all(alive(client, sid) for sid in made)


def test_the_server_cap_still_holds_for_a_client_under_its_own(
    app: Any, client: TestClient, clock: Clock
) -> None:
    others = [TestClient(app, base_url=LOCAL, client=(f"10.0.0.{i}", 5000)) for i in (2, 3)]
    for other in others:
        for _ in range(3):
            new_session(other, clock)
    r = client.post("/api/sessions", json={"game": TTT})
    assert r.status_code == 429, r.text
    assert "max_sessions" in r.json()["detail"]


def test_delete_frees_the_clients_place(client: TestClient, clock: Clock) -> None:
    """What the page does on New game and on leaving: the session it leaves is deleted."""
    made = [new_session(client, clock) for _ in range(3)]
    assert client.delete(f"/api/sessions/{made[2]}").status_code == 204
    new_session(client, clock)
    assert alive(client, made[0]) and alive(client, made[1])


def test_the_pages_defaults_are_the_apis_and_the_librarys(client: TestClient) -> None:
    """Item 8: the page reads its settings' defaults from GET /engine-config.json, the
    model /openapi.json describes a session's config with: c is SearchConfig's sqrt(2)."""
    from mctslab.search.config import SearchConfig

    page = client.get("/engine-config.json").json()["properties"]
    api = client.get("/openapi.json").json()["components"]["schemas"]["EngineConfig"]
    assert page["c"]["default"] == SearchConfig().c
    for name, field in api["properties"].items():
        assert page[name].get("default") == field.get("default"), name


def test_a_parameter_of_a_few_words_has_its_words(client: TestClient) -> None:
    """Issue 52, item 14: Go's ko and Bohnenspiel's utility were free text; the games'
    Literal annotations give the words, and the page draws a menu from them."""
    games = {g["name"]: g for g in client.get("/api/games").json()}
    assert games["go"]["choices"] == {"ko": ["superko", "simple"]}
    assert games["bohnenspiel"]["choices"] == {"utility": ["win_loss", "score"]}
    assert games["tic_tac_toe"]["choices"] == {} and games["nim"]["choices"] == {}
    for name, game in games.items():  # each default is one of its words
        for key, words in game["choices"].items():
            assert game["parameters"][key] in words, (name, key)
