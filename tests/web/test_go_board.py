"""Go's board description (``kind: "go"``, mctslab.web.render) through the JSON API.

Positions are built from action ids (``r * N + c``, row 0 at the bottom; pass ``N * N``)
and played through the same endpoints as the page: ``POST /api/sessions``, ``POST
play``, ``GET node``.
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("fastapi")

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*httpx2", category=Warning)
    from fastapi.testclient import TestClient

import mctslab
from mctslab.games.go import Go
from mctslab.games.go.status import area_owners
from mctslab.web.app import create_app
from mctslab.web.render import render
from mctslab.web.settings import Settings

N = 9
PASS = N * N


def at(col: str, row: int, n: int = N) -> int:
    """The action of a point named as on the board (``at("e", 5)``: column e, row 5)."""
    return (row - 1) * n + "abcdefghjklmnopqrst".index(col)


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(create_app(Settings()), base_url="http://localhost") as c:
        yield c


def new(client: TestClient, **body: Any) -> dict[str, Any]:
    r = client.post("/api/sessions", json={"game": "go", **body})
    assert r.status_code == 201, r.text
    data: dict[str, Any] = r.json()
    return data


def play(client: TestClient, sid: str, action: int | str) -> dict[str, Any]:
    r = client.post(f"/api/sessions/{sid}/play", json={"action": action})
    assert r.status_code == 200, r.text
    data: dict[str, Any] = r.json()
    return data


# Black surrounds White's e5 (the last black stone, e6, takes it); White answers in the
# corners a1 and j1.
E5 = at("e", 5)
SURROUND = [at("e", 4), E5, at("d", 5), at("a", 1), at("f", 5), at("j", 1)]
TAKE = at("e", 6)


def test_games_list_go_with_its_board(client: TestClient) -> None:
    games = {g["name"]: g for g in client.get("/api/games").json()}
    assert games["go"]["board"] == "go"


def test_the_empty_board(client: TestClient) -> None:
    state = new(client)["state"]
    assert state["player_names"] == ["Black", "White"]  # as the stones are drawn
    board = state["render"]
    assert board["kind"] == "go" and board["size"] == N
    assert board["stones"] == [0] * (N * N)
    assert board["last"] is None and board["to_play"] == 1
    assert board["captures"] == [0, 0] and board["komi"] == 7.5
    assert board["pass"] == PASS
    # Every point and the pass, keyed as the grids are: the action id as a string.
    assert board["actions"] == {str(a): a for a in range(N * N + 1)}
    assert board["territory"] is None and board["score"] is None


def test_stones_and_a_capture_played_through_the_api(client: TestClient) -> None:
    view = new(client, actions=SURROUND)
    sid = view["id"]
    board = view["state"]["render"]
    assert board["stones"][E5] == 2 and board["last"] == at("j", 1)
    assert board["to_play"] == 1 and board["captures"] == [0, 0]
    board = play(client, sid, TAKE)["state"]["render"]
    expected = [0] * (N * N)
    for p in (at("e", 4), at("d", 5), at("f", 5), TAKE):
        expected[p] = 1
    for p in (at("a", 1), at("j", 1)):
        expected[p] = 2
    assert board["stones"] == expected  # e5 is empty again
    assert board["captures"] == [1, 0] and board["last"] == TAKE and board["to_play"] == 2
    # White may not play back into the eye (suicide): e5 is not clickable; the pass is.
    assert str(E5) not in board["actions"] and board["actions"][str(PASS)] == PASS
    assert len(board["actions"]) == N * N - 6 - 1 + 1
    # The stones sit where Go's own text board puts them: row 5 from the bottom, column e.
    state = mctslab.make("go").state_from_actions([*SURROUND, TAKE])
    assert board == render(state.game, state)


def test_the_pass_and_the_territory_after_two_passes(client: TestClient) -> None:
    sid = new(client, actions=[*SURROUND, TAKE])["id"]
    view = play(client, sid, "pass")  # a move's name, as the page's text board sent them
    board = view["state"]["render"]
    assert board["last"] == PASS and board["to_play"] == 1 and board["territory"] is None
    assert view["state"]["moves"][-1]["label"] == "W PASS"
    view = play(client, sid, PASS)
    assert view["state"]["terminal"]
    board = view["state"]["render"]
    assert board["to_play"] is None and board["actions"] == {}
    owners = [0] * (N * N)
    for p in (at("e", 4), at("d", 5), at("f", 5), TAKE, E5):  # e5: an eye reaching black only
        owners[p] = 1
    for p in (at("a", 1), at("j", 1)):
        owners[p] = 2
    assert board["territory"] == owners  # the open board reaches both colours: nobody's
    assert board["score"] == 5 - 2 - 7.5  # W+4.5
    assert view["state"]["returns"] == [-1.0, 1.0]


def test_territory_on_a_small_board_split_by_two_walls(client: TestClient) -> None:
    # Black walls off columns a-c (its wall on c), White d-e (its wall on d).
    n = 5
    moves = []
    for row in range(1, n + 1):
        moves += [at("c", row, n), at("d", row, n)]
    view = new(client, params={"board_size": n, "komi": 0.5}, actions=[*moves, n * n, n * n])
    board = view["state"]["render"]
    assert board["size"] == n and board["pass"] == n * n and board["komi"] == 0.5
    assert board["territory"] == [1, 1, 1, 2, 2] * n
    assert board["score"] == 15 - 10 - 0.5  # B+4.5
    assert view["state"]["returns"] == [1.0, -1.0]


def test_a_node_of_the_tree_is_drawn_as_a_go_board(client: TestClient) -> None:
    sid = new(client, actions=SURROUND)["id"]
    client.post(f"/api/sessions/{sid}/iterations", json={"k": 20})
    node = client.get(f"/api/sessions/{sid}/node", params={"node": str(TAKE)}).json()
    board = node["render"]
    assert board["kind"] == "go" and board["last"] == TAKE
    assert board["stones"][E5] == 0 and board["captures"] == [1, 0]


def test_area_owners_add_up_to_the_games_score() -> None:
    game = mctslab.make("go")
    assert isinstance(game, Go)
    rng = random.Random(7)
    for _ in range(8):
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        stones = [game.colour_at(state, a) for a in range(N * N)]
        owners = area_owners(stones, N)
        assert all(owners[p] == s for p, s in enumerate(stones) if s)
        assert owners.count(1) - owners.count(2) - game.komi == game.score(state)


def test_area_owners_of_regions_that_reach_one_colour_or_both() -> None:
    # 3 x 3, row 0 at the bottom: a black stone in the middle owns the whole board; a
    # white stone beside it splits nothing: every empty point then reaches both colours.
    assert area_owners([0, 0, 0, 0, 1, 0, 0, 0, 0], 3) == [1] * 9
    assert area_owners([0, 0, 0, 2, 1, 0, 0, 0, 0], 3) == [0, 0, 0, 2, 1, 0, 0, 0, 0]
    assert area_owners([0] * 9, 3) == [0] * 9


def test_the_game_downloads_as_sgf_that_reads_back_to_the_same_moves(client: TestClient) -> None:
    from mctslab.games.go.sgf import read_sgf

    moves = [*SURROUND, TAKE]
    sid = new(client, actions=moves, human_player=0, params={"komi": 6.5})["id"]
    r = client.get(f"/api/sessions/{sid}/sgf")
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("application/x-go-sgf")
    assert 'filename="mctslab-go.sgf"' in r.headers["content-disposition"]
    record = read_sgf(r.text)
    assert record.actions == tuple(moves) and record.komi == 6.5 and record.board_size == N
    assert (record.black, record.white, record.result) == ("human", "mctslab", "")
    # The captured stone is gone in the record's position as on the session's board.
    assert (
        record.state().array.tolist()
        == mctslab.make("go", komi=6.5).state_from_actions(moves).array.tolist()
    )  # type: ignore[attr-defined]


def test_a_finished_game_s_sgf_carries_its_result(client: TestClient) -> None:
    from mctslab.games.go.sgf import read_sgf

    n = 5
    moves = []
    for row in range(1, n + 1):
        moves += [at("c", row, n), at("d", row, n)]
    sid = new(client, params={"board_size": n, "komi": 0.5}, actions=[*moves, n * n, n * n])["id"]
    record = read_sgf(client.get(f"/api/sessions/{sid}/sgf").text)
    assert record.result == "B+4.5" and record.board_size == n
    assert (record.black, record.white) == ("", "")  # no human: nobody named


def test_sgf_of_a_game_other_than_go_is_a_400_naming_it(client: TestClient) -> None:
    sid = client.post("/api/sessions", json={"game": "tic_tac_toe"}).json()["id"]
    r = client.get(f"/api/sessions/{sid}/sgf")
    assert r.status_code == 400 and "tic_tac_toe" in r.json()["detail"]
    assert client.get("/api/sessions/nope/sgf").status_code == 404


def test_a_finished_game_shows_its_dead_stones_and_the_score_by_agreement(
    client: TestClient,
) -> None:
    """5x5: Black's wall on column b, White's on c, a black stone at e3 in White's area,
    two passes. The result counts e3 alive (B+5.5); the estimate calls it dead, and
    without it White's columns d-e are White's: W+5.5 by agreement."""
    n = 5
    walls = [a for r in range(n) for a in (n * r + 1, n * r + 2)]
    body = {"params": {"board_size": n, "komi": 0.5}}
    playing = new(client, actions=[*walls, 14], **body)["state"]["render"]
    assert playing["dead"] is None and playing["agreed_score"] is None
    board = new(client, actions=[*walls, 14, n * n, n * n], **body)["state"]["render"]
    assert board["score"] == 10 + 1 - 5 - 0.5
    assert board["dead"] == [14]
    assert board["agreed_score"] == 10 - 15 - 0.5


def test_a_game_ended_early_by_two_passes_has_no_dead_stones(client: TestClient) -> None:
    """9x9, four stones in the corners' 3-3 points and two passes: the board is not
    settled (most points undecided), so no stone is judged dead and there is no score by
    agreement; the result is the area count (komi wins it for White)."""
    corners = [2 * 9 + 2, 2 * 9 + 6, 6 * 9 + 6, 6 * 9 + 2]
    board = new(client, actions=[*corners, 81, 81])["state"]["render"]
    assert board["score"] == -7.5  # two stones each; the empty region reaches both colours
    assert board["dead"] == [] and board["agreed_score"] is None
    assert board["undecided"] > 81 // 4
