"""``mctslab mcp`` against a real MCP client over stdio (the official SDK's).

One session runs every call (starting the server imports numba's kernels and FastAPI:
seconds): the handshake, the tool listing, each tool with good input, then bad input,
each refused as the tool's error (``isError``) with the web lab's message, and the
session still answering after.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

import mctslab
from conftest import require_extra

# The SDK through its module objects: this folder's name, mcp, is the SDK's too, and an
# import statement of it would be sorted as this repository's (ruff's src has tests/).
sdk = require_extra("mcp", "mcp")
stdio = require_extra("mcp.client.stdio", "mcp")
require_extra("fastapi", "mcp")

ROOT = Path(__file__).resolve().parents[2]
TOOLS = {"list_games", "search", "solve", "play", "explain"}

# (key, tool, arguments): the calls of the one session, in order.
CALLS: list[tuple[str, str, dict[str, Any]]] = [
    ("games", "list_games", {}),
    ("search_ttt", "search", {"game": "tic_tac_toe", "iterations": 300, "seed": 3}),
    ("search_ttt_again", "search", {"game": "tic_tac_toe", "iterations": 300, "seed": 3}),
    (
        "search_c4",
        "search",
        {"game": "connect_four", "moves": [3, 3], "iterations": 400, "engine": "reference"},
    ),
    ("solve_start", "solve", {"game": "tic_tac_toe"}),
    ("solve_won", "solve", {"game": "tic_tac_toe", "moves": [0, 3, 1, 4]}),
    ("play", "play", {"game": "tic_tac_toe", "moves": [0, 3], "move": "b1", "iterations": 200}),
    ("play_last", "play", {"game": "tic_tac_toe", "moves": [0, 3, 1, 4], "move": 2}),
    ("explain", "explain", {"game": "tic_tac_toe", "iterations": 400, "depth": 2, "top": 2}),
    # Bad input: each refused with the lab's message.
    ("unknown_game", "search", {"game": "no_such_game"}),
    ("path_game", "search", {"game": "/etc/passwd"}),
    ("path_module", "solve", {"game": "examples/hexapawn.py"}),
    ("over_cap", "search", {"game": "tic_tac_toe", "iterations": 10**9}),
    ("over_time", "play", {"game": "tic_tac_toe", "move": 4, "time": 1e6}),
    ("illegal", "play", {"game": "tic_tac_toe", "moves": [4], "move": 4}),
    ("illegal_moves", "search", {"game": "tic_tac_toe", "moves": [4, 4]}),
    ("unknown_option", "search", {"game": "tic_tac_toe", "config": {"bogus": 1}}),
    ("chance", "solve", {"game": "pig"}),
    ("view_cap", "explain", {"game": "tic_tac_toe", "depth": 12, "top": 9}),
    ("over", "search", {"game": "tic_tac_toe", "moves": [0, 3, 1, 4, 2]}),
    # The session keeps answering after the refusals.
    ("after", "search", {"game": "tic_tac_toe", "iterations": 300, "seed": 3}),
]


async def _session() -> dict[str, Any]:
    env = {"PYTHONPATH": str(ROOT / "src")}
    server = sdk.StdioServerParameters(
        command=sys.executable, args=["-m", "mctslab", "mcp"], env=env, cwd=str(ROOT)
    )
    out: dict[str, Any] = {}
    with open(os.devnull, "w") as quiet:  # the server's log (stderr)
        async with (
            stdio.stdio_client(server, errlog=quiet) as (read, write),
            sdk.ClientSession(read, write) as session,
        ):
            out["init"] = await session.initialize()
            out["tools"] = (await session.list_tools()).tools
            for key, tool, arguments in CALLS:
                out[key] = await session.call_tool(tool, arguments)
    return out


@pytest.fixture(scope="module")
def calls() -> dict[str, Any]:
    """The session's answers by key (CALLS), with ``init`` and ``tools``."""
    return anyio.run(_session)


def data(result: Any) -> Any:
    """A successful call's answer: its structured content (or its text)."""
    assert not result.is_error, result.content[0].text
    if result.structured_content is not None:
        content = result.structured_content
        return content.get("result", content) if set(content) == {"result"} else content
    return json.loads(result.content[0].text)


def refusal(result: Any) -> str:
    """A refused call's message."""
    assert result.is_error
    text: str = result.content[0].text
    assert "Traceback" not in text
    return text


def test_the_handshake_names_the_server_and_its_version(calls: dict[str, Any]) -> None:
    info = calls["init"].server_info
    assert info.name == "mctslab" and info.version == mctslab.__version__


def test_the_five_tools_are_listed_with_their_input_schemas(calls: dict[str, Any]) -> None:
    tools = {tool.name: tool for tool in calls["tools"]}
    assert set(tools) == TOOLS
    search = tools["search"].input_schema
    assert search["required"] == ["game"]
    assert {"game", "params", "moves", "iterations", "time", "engine", "seed", "config"} <= set(
        search["properties"]
    )
    assert set(tools["play"].input_schema["required"]) == {"game", "move"}
    assert {"depth", "top"} <= set(tools["explain"].input_schema["properties"])
    assert all(tool.description for tool in tools.values())


def test_list_games_gives_the_labs_games_their_players_parameters_and_caps(
    calls: dict[str, Any],
) -> None:
    answer = data(calls["games"])
    games = {g["name"]: g for g in answer["games"]}
    assert {"tic_tac_toe", "connect_four", "go", "nim"} <= set(games)
    assert games["tic_tac_toe"]["players"] == 2 and games["tic_tac_toe"]["actions"] == 9
    assert "board_size" in games["go"]["parameters"]
    assert answer["max_iterations"] == 200_000 and answer["max_time"] == 10.0


def test_search_returns_a_legal_move_with_its_root_statistics(calls: dict[str, Any]) -> None:
    move = data(calls["search_ttt"])
    assert move["action"] in range(9) and move["iterations"] == 300
    children = move["children"]
    assert {ch["action"] for ch in children} == set(range(9))
    assert sum(ch["visits"] for ch in children) == 300
    assert all(-1.0 <= ch["value"] <= 1.0 for ch in children)  # the game's returns' scale
    assert -1.0 <= move["value"] <= 1.0


def test_search_with_a_seed_and_iterations_repeats_its_move(calls: dict[str, Any]) -> None:
    first, again = data(calls["search_ttt"]), data(calls["search_ttt_again"])
    assert (first["action"], first["children"]) == (again["action"], again["children"])
    assert data(calls["after"])["children"] == first["children"]


def test_search_plays_connect_four_from_a_position_with_the_reference_engine(
    calls: dict[str, Any],
) -> None:
    move = data(calls["search_c4"])
    assert move["engine"] == "reference" and move["action"] in range(7)
    assert move["player"] == 0 and move["iterations"] == 400


def test_solve_finds_tic_tac_toes_start_a_draw_and_a_won_position_a_win(
    calls: dict[str, Any],
) -> None:
    start = data(calls["solve_start"])
    assert (start["outcome"], start["value"], start["player"]) == ("draw", 0.0, 0)
    assert len(start["best_moves"]) == 9  # every first move draws
    won = data(calls["solve_won"])  # X on a1 b1, O on a2 b2: X completes the top row at c1
    assert won["outcome"] == "win" and won["value"] == 1.0
    assert {m["action"] for m in won["best_moves"]} >= {2}


def test_play_applies_the_users_move_by_name_and_answers_with_a_legal_reply(
    calls: dict[str, Any],
) -> None:
    answer = data(calls["play"])
    assert answer["your_move"] == {"action": 1, "label": "b1"}
    reply = answer["reply"]
    assert reply["action"] in {2, 4, 5, 6, 7, 8} and reply["player"] == 1
    position = answer["position"]
    assert position["actions"] == [0, 3, 1, reply["action"]]
    assert position["current_player"] == 0
    assert {m["action"] for m in position["legal"]} == set(range(9)) - set(position["actions"])


def test_play_of_a_winning_move_ends_the_game_without_a_reply(calls: dict[str, Any]) -> None:
    answer = data(calls["play_last"])
    assert answer["reply"] is None
    assert answer["position"]["terminal"] and answer["position"]["returns"] == [1.0, -1.0]


def test_explain_shows_the_top_lines_of_the_tree_as_text(calls: dict[str, Any]) -> None:
    text = data(calls["explain"]) if calls["explain"].structured_content else None
    text = text or calls["explain"].content[0].text
    lines = text.splitlines()
    assert lines[0].startswith("root (X to move)") and "N=400" in lines[0]
    assert sum(1 for line in lines if line.startswith(("├─", "└─")) and "more" not in line) == 2
    assert "more children" in text


@pytest.mark.parametrize(
    ("key", "words"),
    [
        ("unknown_game", ["unknown game 'no_such_game'", "tic_tac_toe"]),
        ("path_game", ["unknown game '/etc/passwd'"]),
        ("path_module", ["unknown game 'examples/hexapawn.py'"]),
        ("over_cap", ["over the cap of 200000 iterations", "max_iterations"]),
        ("over_time", ["over the cap of 10 s", "max_time"]),
        ("illegal", ["illegal action 4", "legal actions"]),
        ("illegal_moves", ["actions, move 2", "illegal action 4"]),
        ("unknown_option", ["config.bogus: unknown field"]),
        ("chance", ["chance"]),
        ("view_cap", ["max_view_nodes"]),
        ("over", ["the game is over"]),
    ],
)
def test_bad_input_is_the_tools_error_with_the_labs_message(
    calls: dict[str, Any], key: str, words: list[str]
) -> None:
    text = refusal(calls[key])
    for word in words:
        assert word in text
