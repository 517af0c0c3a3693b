"""SGF records of Go games (:mod:`mctslab.games.go.sgf`): coordinates, the parser on
hand-written files, round trips, every refusal, and GNU Go as the oracle both ways (it
loads our files to the same board; we read its game records to the same board)."""

from __future__ import annotations

import random
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import require_gnugo
from mctslab.core.errors import MctslabError
from mctslab.games.go import Go
from mctslab.games.go.sgf import SgfError, SgfRecord, read_sgf, sgf_result, write_sgf
from mctslab.games.kernels import KernelState
from mctslab.players.gtp import GtpProcess, action_to_vertex, resolve_command


def _random_game(size: int, seed: int, moves: int | None = None) -> tuple[int, ...]:
    """A game of random legal moves (passes rare), to its end or ``moves`` moves."""
    rng = random.Random(seed)
    state = Go(size).new_initial_state()
    while not state.is_terminal() and (moves is None or len(state.history()) < moves):
        legal = state.legal_actions()
        stones = [a for a in legal if a != size * size]
        state.apply_action(rng.choice(stones) if stones and rng.random() > 0.02 else legal[-1])
    return tuple(state.history())


def _stones(game: Go, state: KernelState) -> dict[str, set[str]]:
    """The points of each colour, as GTP vertices (upper case)."""
    out: dict[str, set[str]] = {"black": set(), "white": set()}
    for a in range(game.board_size**2):
        colour = game.colour_at(state, a)
        if colour:
            out["black" if colour == 1 else "white"].add(action_to_vertex(a, game.board_size))
    return out


def test_points_are_column_then_row_from_the_top() -> None:
    record = SgfRecord(board_size=9, komi=7.5, actions=(0, 8, 72, 80, 81))  # a1 j1 a9 j9 pass
    moves = write_sgf(record).splitlines()[1]
    assert moves == ";B[ai];W[ii];B[aa];W[ia];B[])"
    assert read_sgf(write_sgf(record)).actions == record.actions


def test_reads_the_main_line_escapes_and_old_forms() -> None:
    text = (
        "junk before the file\n"
        "(;GM[1]FF[3]SZ[9]KM[6.5]PlayerBlack[Alice \\] \\\\ x]PW[Bob]RE[W+R]DT[2026-11-24]"
        "GC[soft\\\nbreak]C[a comment: skipped]\n"
        " ; B[ee] C[a move comment]\n;W[gg]"
        "(;B[cc];W[tt](;B[dd])(;B[ff]))"  # the main line: the first variation each time
        "(;B[hh])"
        ")(;GM[1]SZ[5];B[aa])"  # a second game in the collection: not read
    )
    record = read_sgf(text)
    assert (record.board_size, record.komi) == (9, 6.5)
    assert (record.black, record.white, record.result) == ("Alice ] \\ x", "Bob", "W+R")
    assert (record.date, record.comment) == ("2026-11-24", "softbreak")
    game = record.game()
    names = [game.point_name(a) for a in record.actions]
    assert names == ["e5", "g3", "c7", "PASS", "d6"]


def test_round_trip_of_random_games_with_captures() -> None:
    for seed, size in enumerate((5, 7, 9, 13, 19)):
        actions = _random_game(size, seed, None if size <= 9 else 150)
        record = SgfRecord(size, 0.5 * seed, actions, "B name", "W ] name", "2026-11-24", "0")
        text = write_sgf(record)
        assert read_sgf(text) == record
        state = record.state()
        assert state.history() == list(actions)
        assert all(len(line) <= 61 for line in text.splitlines()[1:])  # ten moves a line
    # the random games are long and capture: the replay is not trivial
    assert sum(Go(5).captures(SgfRecord(5, 0, _random_game(5, 0)).state())) > 5


def test_a_record_longer_than_the_default_limit_is_replayed() -> None:
    actions = _random_game(5, 3, None)
    record = SgfRecord(5, 0.5, actions)
    assert record.game().info.max_game_length >= len(actions)
    assert record.state(moves=4).history() == list(actions[:4])
    with pytest.raises(SgfError, match=r"has .* moves, not"):
        record.state(moves=len(actions) + 1)


def test_results() -> None:
    assert [sgf_result(s) for s in (7.5, -0.5, 0.0, None)] == ["B+7.5", "W+0.5", "0", "?"]
    assert [sgf_result(s, h) for s, h in ((1, "R"), (-1, "T"), (-2, "F"))] == [
        "B+R",
        "W+T",
        "W+F",
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("GM[1];B[aa]", "not an SGF file"),
        ("(;SZ[9];B[aa]", "expected ')'"),
        ("(;SZ[9];B[aa)", "without its ']'"),
        ("(;SZ[9]B;W[aa])", "without a value"),
        ("()", "without a node"),
        ("(;GM[2]SZ[8])", "is not Go"),
        ("(;SZ[9:7])", "only square boards"),
        ("(;SZ[25])", "board sizes 5 to 19"),
        ("(;SZ[4])", "board sizes 5 to 19"),
        ("(;SZ[9]KM[six])", "is not a number"),
        ("(;SZ[9]KM[6.25])", "komi must be a multiple of 0.5"),
        ("(;SZ[9]HA[2])", "handicap"),
        ("(;SZ[9]AB[aa][bb])", "setup stones (AB)"),
        ("(;SZ[9];B[aa];AW[cc])", "setup stones (AW)"),
        ("(;SZ[9];W[aa])", "move 1: W plays, but B is to play"),
        ("(;SZ[9];B[aa];B[bb])", "move 2: B plays, but W is to play"),
        ("(;SZ[9];B[jj])", "move 1: 'jj' is off the 9x9 board"),
        ("(;SZ[9];B[a])", "move 1: 'a' is not a point"),
        ("(;SZ[9];B[AA])", "move 1: 'AA' is not a point"),
        ("(;SZ[9];B[aa];W[aa])", "move 2 (W a9) is illegal"),
        ("(;SZ[5];B[];W[];B[aa])", "move 3: the game ended before it"),
        # suicide: a white stone in a black corner
        ("(;SZ[5];B[ba];W[];B[ab];W[aa])", "move 4 (W a5) is illegal"),
    ],
)
def test_refusals_name_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(SgfError, match=re.escape(message)) as info:
        read_sgf(text)
    assert isinstance(info.value, MctslabError) and isinstance(info.value, ValueError)
    assert "\n" not in str(info.value)


def test_writing_refuses_what_is_not_a_go_record() -> None:
    with pytest.raises(SgfError, match="board_size"):
        write_sgf(SgfRecord(board_size=21))
    with pytest.raises(SgfError, match="move 2: action 82"):
        write_sgf(SgfRecord(9, 7.5, (0, 82)))


# GNU Go as the oracle ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def gnugo() -> Iterator[GtpProcess]:
    require_gnugo()
    process = GtpProcess(resolve_command("gnugo --mode gtp --chinese-rules"), "gnugo", timeout=60)
    try:
        yield process
    finally:
        process.close()


def _gnugo_board(gnugo: GtpProcess, path: Path) -> dict[str, set[str]]:
    gnugo.send(f"loadsgf {path}")
    return {c: set(gnugo.send(f"list_stones {c}").split()) for c in ("black", "white")}


def test_gnugo_loads_our_files_to_the_same_board(gnugo: GtpProcess, tmp_path: Path) -> None:
    for seed, size in enumerate((5, 7, 9, 9, 13)):
        actions = _random_game(size, 100 + seed, None if size < 13 else 120)
        record = SgfRecord(size, 7.5, actions)
        path = tmp_path / f"ours-{seed}.sgf"
        path.write_text(write_sgf(record))
        state = record.state()
        assert _gnugo_board(gnugo, path) == _stones(record.game(), state), seed
        assert gnugo.send("query_boardsize") == str(size)
        assert float(gnugo.send("get_komi")) == 7.5
        game = record.game()
        captured_black, captured_white = game.captures(state)  # stones each colour took
        assert int(gnugo.send("captures black")) == captured_black
        assert int(gnugo.send("captures white")) == captured_white


def test_we_read_gnugo_game_records_to_the_same_board(gnugo: GtpProcess, tmp_path: Path) -> None:
    for seed, size in ((1, 7), (2, 9), (3, 13)):
        path = tmp_path / f"gnugo-{seed}.sgf"
        argv = [*resolve_command("gnugo"), "--benchmark", "60", "--boardsize", str(size)]
        subprocess.run(
            [*argv, "--level", "1", "--seed", str(seed), "-o", str(path)],
            check=True,
            capture_output=True,
            timeout=120,
        )
        record = read_sgf(path.read_text())  # GNU Go's: comments, GN, RE, RU[Japanese]
        assert record.board_size == size and len(record.actions) >= 20
        assert _gnugo_board(gnugo, path) == _stones(record.game(), record.state())
