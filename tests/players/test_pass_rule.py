"""The passing rules of :mod:`mctslab.players.resign`, and that ``mctslab gtp``, the arena
and the web lab's AI move all follow them from there (issue 52, item 3).

The lab's AI used to play on after the human's pass, filling its own territory while
far ahead, and to pass in mid-game while every move won; GTP alone had the first rule.
Each caller is checked through the shared function itself (monkeypatched), so that a
copy of the rule in one of them fails here.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest

from mctslab.arena.game_task import Entrant, GameTask, play_task
from mctslab.cli.gtp import GtpEngine
from mctslab.core.registry import make
from mctslab.games.go import Go
from mctslab.players import resign
from mctslab.players.resign import WON_ABOVE, pass_action, play_on, winning_pass
from mctslab.search.result import ChildStats

pytest.importorskip("fastapi")

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*httpx2", category=Warning)
    from fastapi.testclient import TestClient

from mctslab.web.app import create_app
from mctslab.web.settings import Settings

N = 5
PASS = N * N


def at(col: str, row: int, n: int = N) -> int:
    return (row - 1) * n + "abcdefghj".index(col)


# --- the rules -----------------------------------------------------------------------


def test_winning_pass_only_right_after_the_opponents_pass_and_only_when_it_wins() -> None:
    go = make("go", board_size=N, komi=0.5)
    # Black c3, White passes: Black's pass ends the game 25 to 0.5.
    assert winning_pass(go.state_from_actions([at("c", 3), PASS])) == PASS
    # The opponent has not passed: no pass by this rule, however the board counts.
    assert winning_pass(go.state_from_actions([at("c", 3)])) is None
    assert winning_pass(go.state_from_actions([at("c", 3), PASS, at("c", 2)])) is None
    # White passed, but Black's pass would lose (White's stone and komi 2.5 against
    # Black's two: every empty point touches both colours).
    losing = make("go", board_size=N, komi=2.5)
    moves = [at("c", 3), at("c", 2), at("d", 4), PASS]
    assert winning_pass(losing.state_from_actions(moves)) is None
    # No move named pass: never.
    assert pass_action(make("tic_tac_toe").new_initial_state()) is None
    assert winning_pass(make("tic_tac_toe").state_from_actions([4])) is None
    # Over already: nothing to play.
    assert winning_pass(go.state_from_actions([at("c", 3), PASS, PASS])) is None


def _result(pass_value: float, other_value: float) -> SimpleNamespace:
    children = (
        ChildStats(PASS, 60, pass_value, None),
        ChildStats(at("b", 2), 40, other_value, None),
    )
    return SimpleNamespace(action=PASS, children=children)


def test_play_on_replaces_a_first_pass_only_while_every_move_wins() -> None:
    state = make("go", board_size=N).state_from_actions([at("c", 3)])
    assert play_on(PASS, _result(0.99, WON_ABOVE), state) == at("b", 2)
    assert play_on(PASS, _result(0.99, 0.2), state) == PASS  # the pass is the best
    assert play_on(PASS, _result(0.5, 0.6), state) == PASS  # a close game: the search decides
    assert play_on(PASS, None, state) == PASS  # no search
    stale = SimpleNamespace(action=at("a", 1), children=_result(0.99, 0.99).children)
    assert play_on(PASS, stale, state) == PASS  # a search of another move
    # After the opponent's pass a pass is no first pass: kept.
    passed = make("go", board_size=N).state_from_actions([at("c", 3), PASS])
    assert play_on(PASS, _result(0.99, 0.99), passed) == PASS


# --- the lab's AI --------------------------------------------------------------------


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(create_app(Settings()), base_url="http://localhost") as c:
        yield c


def _session(client: TestClient, actions: list[int], board_size: int = N) -> str:
    body = {
        "game": "go",
        "params": {"board_size": board_size},
        "human_player": 0,
        "config": {"iterations": 200, "seed": 1},
        "actions": actions,
    }
    r = client.post("/api/sessions", json=body)
    assert r.status_code == 201, r.text
    sid: str = r.json()["id"]
    return sid


#: 9x9: Black (the human) has one stone in the corner, a1, walled in by White's c1, c2,
#: b3 and a3, and has passed at each turn since; White (the AI) owns the rest of the
#: board by area (the issue's game was W+63.5; this one counts W+83.5).
FAR_AHEAD = [at("a", 1, 9), at("c", 1, 9), 81, at("c", 2, 9), 81, at("b", 3, 9), 81]
FAR_AHEAD += [at("a", 3, 9), 81]


def test_the_lab_ai_passes_at_once_when_the_human_passed_and_it_is_far_ahead(
    client: TestClient,
) -> None:
    go = Go(board_size=9)
    before = go.state_from_actions(FAR_AHEAD)
    assert before.current_player() == 1 and go.score(before.child(81)) == -83.5  # W far ahead
    sid = _session(client, FAR_AHEAD, board_size=9)
    r = client.post(f"/api/sessions/{sid}/ai")
    assert r.status_code == 200, r.text
    view = r.json()
    assert view["state"]["actions"] == [*FAR_AHEAD, 81]  # the AI passed ...
    assert view["state"]["terminal"] and view["state"]["returns"] == [-1.0, 1.0]  # ... and won
    ai = view["last_ai"]
    assert ai["action"] == 81 and ai["iterations"] == 0  # without a search
    assert ai["final_rule"].startswith("winning pass")


def test_the_lab_ai_searches_when_the_human_has_not_passed(client: TestClient) -> None:
    sid = _session(client, [at("c", 3)])  # Black played c3: White (the AI) searches
    r = client.post(f"/api/sessions/{sid}/ai")
    assert r.status_code == 200, r.text
    assert r.json()["last_ai"]["iterations"] > 0


# --- one rule: GTP, the arena and the lab call the shared function ---------------------


def _always_pass(state: Any) -> int | None:
    """A stand-in for the shared rule that passes whenever a pass is legal: a caller with
    a copy of its own would not see it."""
    action = pass_action(state)
    return action if action is not None and not state.is_terminal() else None


def test_gtp_the_arena_and_the_lab_call_the_shared_winning_pass(
    monkeypatch: pytest.MonkeyPatch, client: TestClient
) -> None:
    monkeypatch.setattr(resign, "winning_pass", _always_pass)
    engine = GtpEngine("mcts:engine=reference,iterations=50", warm_up=False, size=N)
    assert engine.handle("play b c3") == "= \n\n"
    assert engine.handle("genmove w") == "= pass\n\n"
    assert getattr(engine.player, "last_result", None) is None  # no search was made
    seats = (Entrant("a", "mcts:engine=reference,iterations=20"), Entrant("b", "puct"))
    record = play_task(GameTask(0, "go", (("board_size", N),), seats, 1))
    assert list(record.moves) == [PASS, PASS]  # each seat passed by the rule, the game over
    # A player without a search is not given the rule: random stays random.
    seats = (Entrant("a", "random"), Entrant("b", "random"))
    assert len(play_task(GameTask(0, "go", (("board_size", N),), seats, 1)).moves) > 2
    sid = _session(client, [])
    client.post(f"/api/sessions/{sid}/play", json={"action": at("c", 3)})
    ai = client.post(f"/api/sessions/{sid}/ai").json()["last_ai"]
    assert ai["action"] == PASS and ai["iterations"] == 0


def test_gtp_the_arena_and_the_lab_call_the_shared_play_on(
    monkeypatch: pytest.MonkeyPatch, client: TestClient
) -> None:
    corner = at("a", 1)

    def corner_first(action: int, result: Any, state: Any) -> int:
        return corner if corner in state.legal_actions() else action

    monkeypatch.setattr(resign, "play_on", corner_first)
    engine = GtpEngine("mcts:engine=reference,iterations=50", warm_up=False, size=N)
    assert engine.handle("genmove b") == "= A1\n\n"
    seats = (Entrant("a", "mcts:engine=reference,iterations=20"), Entrant("b", "random"))
    record = play_task(GameTask(0, "go", (("board_size", N),), seats, 1, openings=0))
    assert record.moves[0] == corner  # the searching seat's move went through the rule
    sid = _session(client, [at("c", 3)])
    ai = client.post(f"/api/sessions/{sid}/ai").json()["last_ai"]
    assert ai["action"] == corner and ai["label"].endswith("a1")


def test_lz_genmove_analyze_passes_by_the_same_rule() -> None:
    """Leela Zero's genmove with analysis: after White's pass that wins for Black, the
    answer is the pass alone, without a search to stream."""
    out: list[str] = []
    engine = GtpEngine(
        "mcts:engine=reference,iterations=50", warm_up=False, size=N, komi=0.5, write=out.append
    )
    assert engine.handle("play b c3") == "= \n\n"
    assert engine.handle("play w pass") == "= \n\n"
    assert engine.handle("lz-genmove_analyze b 10") == ""
    assert out == ["=\nplay pass\n\n"] and engine.state.is_terminal()
