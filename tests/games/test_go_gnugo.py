"""``go``'s Tromp-Taylor area score against GNU Go's ``final_score`` on finished games.

The games are ``tests/data/go/gnugo_games.json``: 9x9, komi 7.5, each ended by two
passes. Two are made by hand (a seki: a black ring and a white string sharing two
liberties, A4 and A7, neither with an eye; a game with one stone captured on each side);
the others were played by the project's players (``play_game``: compiled ``mcts`` against
itself, with ``max_game_length=400`` so that it reaches two passes; ``mcts`` against
``random``; ``random`` against itself), long games with up to 86 captured stones among
them. Each record also holds what GNU Go 3.8 (``--chinese-rules``: area scoring) said when
the file was made: its score and the stones it called dead (``final_status_list dead``).

Every game is replayed into GNU Go over GTP (``boardsize 9``, ``komi 7.5``,
``clear_board``, ``play b D4`` ...) and the answers compared with :meth:`Go.score` of
the final position:

- **Games where every stone is alive** (GNU Go calls none dead: the seki, the hand-made
  game, three self-play games that ended with one colour's stones alone): the two scores
  must agree *exactly*. Choosing them by GNU Go's verdict is the point of the test:
  Tromp-Taylor counts every stone on the board as alive, so it can only be compared with
  a scorer that estimates life and death where that estimate is "all alive".
- **Games with dead stones** (``random`` leaves hopeless stones on the board when it
  passes, and a playout-based ``mcts`` passes as soon as the Tromp-Taylor count of the
  board as it stands wins, dead stones and all): GNU Go removes the stones it calls dead
  and counts the board without them, so its score differs from Tromp-Taylor's (by up to
  72 points here; in ``random vs random seed 8`` even the winner differs). The test
  checks that this is the whole difference: GNU Go's score equals an independent area
  count of the board with exactly those stones removed (and its own count: live stones,
  its listed territory, the dead stones' points), and the same count with nothing
  removed equals :meth:`Go.score`. (A game can agree by chance even so: ``random vs
  random seed 23``.)
- **An unfinished game** (``random vs mcts:iterations=500 seed 26``, 28 moves, most of
  the board open): besides its dead stones GNU Go gives out empty points that reach both
  colours, which Tromp-Taylor leaves neutral; it is reported, not compared, and the test
  fails if a second such game appears.

GNU Go is Debian's ``gnugo``: without it the test skips, or fails under
``MCTSLAB_REQUIRE_EXTRAS`` (as ``tests/players/test_gtp_player.py``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import mctslab
from conftest import require_gnugo
from mctslab.games.go import Go
from mctslab.players.gtp import GtpProcess, resolve_command, vertex_to_action

GAMES = Path(__file__).parent.parent / "data" / "go" / "gnugo_games.json"
SIZE = 9


def _records() -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = json.loads(GAMES.read_text())
    return records


@pytest.fixture(scope="module")
def gnugo() -> Iterator[GtpProcess]:
    """One GNU Go for every game (``clear_board`` between them)."""
    require_gnugo()
    process = GtpProcess(resolve_command("gnugo --mode gtp --chinese-rules"), "gnugo", timeout=60)
    try:
        yield process
    finally:
        process.close()


def _score_text(score: float) -> str:
    """GTP's form of Black's score minus White's: ``B+3.5``, ``W+0.5``, ``0``."""
    return "0" if score == 0 else (f"B+{score:g}" if score > 0 else f"W+{-score:g}")


def _area_score(board: dict[int, int], komi: float) -> float:
    """Tromp-Taylor by flood fill, apart from ``go``'s kernels: ``board`` maps each point
    (action) to 0 empty, 1 black, 2 white; an empty region counts for a colour iff it
    reaches that colour only."""
    area = {1: 0, 2: 0}
    seen: set[int] = set()
    for p, colour in board.items():
        if colour:
            area[colour] += 1
        elif p not in seen:
            region, reaches, todo = 0, set(), [p]
            seen.add(p)
            while todo:
                q = todo.pop()
                region += 1
                r, c = divmod(q, SIZE)
                for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                    if 0 <= rr < SIZE and 0 <= cc < SIZE:
                        n = rr * SIZE + cc
                        if board[n]:
                            reaches.add(board[n])
                        elif n not in seen:
                            seen.add(n)
                            todo.append(n)
            if len(reaches) == 1:
                area[reaches.pop()] += region
    return area[1] - area[2] - komi


def test_the_data_file_is_finished_games() -> None:
    records = _records()
    names = [r["name"] for r in records]
    assert len(names) == len(set(names)) and len(records) >= 10
    assert "seki" in names
    for record in records:
        moves = record["moves"].split()
        assert moves[-2:] == ["pass", "pass"], record["name"]
        game = mctslab.make(
            "go", board_size=SIZE, komi=record["komi"], max_game_length=record["max_game_length"]
        )
        assert isinstance(game, Go)
        state = game.state_from_actions([vertex_to_action(m, SIZE) for m in moves])
        assert state.is_terminal() and len(state.history()) == len(moves), record["name"]
        assert _score_text(game.score(state)) == record["tromp_taylor"], record["name"]
        # The returns follow the score: +1 to the side ahead.
        assert state.returns()[0] == (1.0 if game.score(state) > 0 else -1.0)
    assert sum(1 for r in records if not r["gnugo_dead"]) >= 3
    assert max(sum(g.captures(s)) for g, s in _finals(records)) > 50  # long games


def _finals(records: list[dict[str, Any]]) -> Iterator[tuple[Go, Any]]:
    for record in records:
        game = mctslab.make(
            "go", board_size=SIZE, komi=record["komi"], max_game_length=record["max_game_length"]
        )
        assert isinstance(game, Go)
        moves = [vertex_to_action(m, SIZE) for m in record["moves"].split()]
        yield game, game.state_from_actions(moves)


def _points(gnugo: GtpProcess, status: str) -> set[int]:
    vertices = gnugo.send(f"final_status_list {status}").split()
    points = {vertex_to_action(v, SIZE) for v in vertices}
    assert None not in points, vertices
    return points  # type: ignore[return-value]


def test_tromp_taylor_agrees_with_gnugo(gnugo: GtpProcess) -> None:
    records = _records()
    exact, dead_only, open_borders = [], [], []
    for record, (game, state) in zip(records, _finals(records), strict=True):
        name, komi = record["name"], record["komi"]
        gnugo.send(f"boardsize {SIZE}")
        gnugo.send(f"komi {komi:g}")
        gnugo.send("clear_board")
        for ply, move in enumerate(record["moves"].split()):
            gnugo.send(f"play {'bw'[ply % 2]} {move}")
        theirs = gnugo.send("final_score")
        dead = _points(gnugo, "dead")
        territory = {1: _points(gnugo, "black_territory"), 2: _points(gnugo, "white_territory")}
        ours = _score_text(game.score(state))
        assert theirs == record["gnugo"], name  # as when the file was made
        assert dead == {vertex_to_action(v, SIZE) for v in record["gnugo_dead"].split()}, name
        board = {p: game.colour_at(state, p) for p in range(SIZE * SIZE)}
        assert _score_text(_area_score(board, komi)) == ours, name  # an independent count
        assert all(board[p] for p in dead), name
        removed = {p: 0 if p in dead else v for p, v in board.items()}
        if not dead:
            assert ours == theirs, f"{name}: Tromp-Taylor {ours}, GNU Go {theirs}"
            exact.append(name)
        elif _score_text(_area_score(removed, komi)) == theirs:
            dead_only.append(name)  # the dead stones alone make the difference
        else:  # GNU Go also gives out empty points that reach both colours
            open_borders.append(name)
            continue
        # Where the dead stones explain it all, GNU Go's score is its own area count too:
        # live stones, the territory it lists and the points of the other's dead stones.
        alive = {c: sum(1 for p, v in board.items() if v == c and p not in dead) for c in (1, 2)}
        captured = {c: sum(1 for p in dead if board[p] == 3 - c) for c in (1, 2)}
        area = {c: alive[c] + len(territory[c]) + captured[c] for c in (1, 2)}
        assert _score_text(area[1] - area[2] - komi) == theirs, name
    assert "seki" in exact and len(exact) >= 3, exact
    assert dead_only, "the dead-stone class is met in this file"
    assert len(open_borders) <= 1, open_borders  # only the 28-move game is that unfinished
