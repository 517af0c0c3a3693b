"""``mctslab gtp``: the GTP version 2 protocol, every command, malformed input, ids,
resignation and the clock (:mod:`mctslab.cli.gtp`).

One subprocess session drives ``python -m mctslab gtp`` through every listed command;
the rest talks to :class:`~mctslab.cli.gtp.GtpEngine` in this process.
"""

from __future__ import annotations

import io
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import mctslab
from mctslab.cli.gtp import COMMANDS, RESIGN_BELOW, GtpEngine
from mctslab.players.gtp import action_to_vertex
from mctslab.players.player import MCTSPlayer

SESSION = [
    ("1 protocol_version", "=1 2"),
    ("name", "= mctslab"),
    ("version", None),
    ("list_commands", None),
    ("known_command genmove", "= true"),
    ("known_command lz-analyze", "= true"),
    ("known_command lz-foo", "= false"),
    ("2 known_command", "?2 syntax error: expected known_command COMMAND"),
    ("foo bar", "? unknown command"),
    ("boardsize 4", "? unacceptable size"),
    ("boardsize 20", "? unacceptable size"),
    ("boardsize nine", None),
    ("boardsize 5", "="),
    ("komi x", None),
    ("komi 7.25", None),  # a multiple of 0.5 only
    ("komi 6.5", "="),
    ("clear_board", "="),
    ("play b c3", "="),
    ("play w c3", "? illegal move: c3 (occupied)"),
    ("play x c3", "? syntax error: invalid color 'x'"),
    ("play w z9", "? syntax error: invalid vertex 'z9'"),
    ("play w i1", "? syntax error: invalid vertex 'i1'"),
    ("play w", "? syntax error: expected play COLOR VERTEX"),
    ("play white B2", "="),
    ("printsgf", "= \n(;GM[1]FF[4]*"),
    ("printsgf a b", "? syntax error: printsgf [FILENAME]"),
    ("loadsgf", "? syntax error: loadsgf FILENAME [MOVE_NUMBER]"),
    ("loadsgf /nonexistent/game.sgf", "? cannot load file: sgf: cannot read *"),
    ("12 genmove b", "=12 *"),
    ("genmove w", "= *"),
    ("undo", "="),
    ("undo", "="),
    ("showboard", None),
    ("final_score", "= W+6.5"),  # a stone each, the rest neutral: komi
    ("time_settings 30 1 1", "="),
    ("time_settings 30 x 1", None),
    ("time_left w 25 0", "="),
    ("time_left w -1 0", None),
    ("genmove white", "= *"),
    ("   # a comment line", ""),
    ("", ""),
    ("\t3\x01 name # comment", "=3 mctslab"),
    ("kgs-genmove_cleanup b", "= *"),
    ("undo", "="),
    ("undo", "="),
    ("undo", "="),
    ("undo", "="),
    ("undo", "? cannot undo"),  # the hand-over before 'genmove white' went with it
    ("play b pass", "="),
    ("play w pass", "="),  # two passes: the game is over ...
    ("final_score", "= W+6.5"),
    ("final_status_list dead", None),
    ("final_status_list alive", None),
    ("final_status_list seki", "="),
    ("final_status_list", "? syntax error: expected final_status_list dead|alive|seki"),
    ("final_status_list foo", "? syntax error: status 'foo' is not dead, alive or seki"),
    ("genmove b", "= *"),  # ... and a move resumes it
    ("99", "?99 syntax error: no command"),
    ("quit", "="),
]


def _answers(text: str) -> list[str]:
    """The answers of a GTP session: blocks ended by an empty line."""
    assert text.endswith("\n\n"), text[-40:]
    return text[:-2].split("\n\n")


def _check(answer: str, expected: str | None, command: str) -> None:
    if expected is None:  # an error or a value checked elsewhere
        return
    if expected.endswith("*"):
        assert answer.startswith(expected[:-1]), (command, answer)
    elif expected.startswith(("=", "?")) and len(expected) <= 3:
        assert answer.rstrip() == expected, (command, answer)
    else:
        assert answer == expected, (command, answer)


def test_every_command_through_the_subprocess() -> None:
    commands = [c for c, _ in SESSION] + ["name"]  # after quit: never answered
    run = subprocess.run(
        [sys.executable, "-m", "mctslab", "gtp", "--player", "mcts:iterations=50", "--size", "5"],
        input="\n".join(commands) + "\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    answers = _answers(run.stdout)
    expected = [(c, e) for c, e in SESSION if e != ""]
    assert len(answers) == len(expected), answers
    by_command = dict(zip([c for c, _ in expected], answers, strict=True))
    for (command, want), answer in zip(expected, answers, strict=True):
        _check(answer, want, command)
        assert answer[0] in "=?", (command, answer)
    assert by_command["version"].startswith("= ") and len(by_command["version"]) > 2
    assert by_command["list_commands"].split("\n")[1:] == list(COMMANDS)[1:]
    assert by_command["list_commands"] == "= " + "\n".join(COMMANDS)
    for bad in ("boardsize nine", "komi x", "komi 7.25", "time_settings 30 x 1"):
        assert by_command[bad].startswith("? "), (bad, by_command[bad])
    assert by_command["time_left w -1 0"].startswith("? syntax error")
    assert "SZ[5]KM[6.5]RU[Chinese]" in by_command["printsgf"]
    assert by_command["printsgf"].endswith("\n;B[cc];W[bd])"), by_command["printsgf"]
    judged = [by_command[f"final_status_list {s}"] for s in ("dead", "alive")]
    assert [a.rstrip() for a in judged] == ["=", "="]  # the board is empty after the undos
    board = by_command["showboard"]
    assert board.startswith("= \n") and " 3 ++X++" in board and "ABCDE" in board
    for command in ("12 genmove b", "genmove w", "genmove white", "genmove b"):
        vertex = by_command[command].split()[1]
        assert vertex == "pass" or (vertex[0] in "ABCDE" and vertex[1:] in "12345"), vertex


def test_a_bad_player_is_one_error_line() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "mctslab", "gtp", "--player", "mcts:iterations=x"],
        input="name\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.startswith("error: ") and run.stderr.count("\n") == 1
    with pytest.raises(ValueError, match="human"):
        GtpEngine("human", warm_up=False)


def _engine(spec: str, **kwargs: object) -> GtpEngine:
    return GtpEngine(spec, warm_up=False, **kwargs)  # type: ignore[arg-type]


def ask(engine: GtpEngine, line: str) -> str:
    answer = engine.handle(line)
    assert answer is not None and answer.endswith("\n\n")
    return answer[:-2]


def test_malformed_input_never_crashes() -> None:
    engine = _engine("random", size=5)
    for line in [
        "play",
        "play b",
        "play b c3 extra",
        "play black 33",
        "play b c0",
        "play b c6",
        "play b resign",
        "genmove",
        "genmove purple",
        "boardsize",
        "boardsize -3",
        "komi",
        "komi nan",
        "komi 1e9",
        "time_settings 1 2",
        "time_left b x 0",
        "time_left b 1 0.5",
        "known_command",
        "\x00\x01\x02",
        "= 5",
        "?",
        "-1 name",
        "genmove b b",
        "12345678901234567890 name",
    ]:
        answer = engine.handle(line)
        if answer is not None:
            assert answer.startswith(("?", "=")), (line, answer)
    assert ask(engine, "play b c0").startswith("? syntax error")
    assert ask(engine, "komi 1e9").startswith("? ")
    assert ask(engine, "12345678901234567890 name") == "=12345678901234567890 mctslab"
    assert ask(engine, "name") == "= mctslab"  # still serving


def test_illegal_moves_suicide_ko_and_colour_order() -> None:
    engine = _engine("random", size=5, komi=0.5)
    # White surrounds a1: a black stone there is suicide.
    for line in ("play w a2", "play w b1"):
        assert ask(engine, line) == "= "  # black's passes are inserted
    assert ask(engine, "play b a1") == "? illegal move: a1 (suicide or ko)"
    assert engine.state.history() == [25, 5, 25, 1]
    # White twice: Black's turn is handed over, which never ends the game (GNU Go lets a
    # colour move out of turn), even right after White's pass; undo takes the move back
    # with its hand-over.
    assert ask(engine, "play b c3") == "= "
    assert ask(engine, "play w pass") == "= "
    assert ask(engine, "play w c4") == "= "
    assert not engine.state.is_terminal()
    assert engine.state.history() == [25, 5, 25, 1, 12, 25, 25, 17]
    assert ask(engine, "undo") == "= "
    assert engine.state.history() == [25, 5, 25, 1, 12, 25]
    assert ask(engine, "undo") == "= " and ask(engine, "undo") == "= "
    assert engine.state.history() == [25, 5, 25, 1]


def test_genmove_out_of_turn_hands_the_turn_over_without_ending_the_game() -> None:
    """``genmove w`` with Black to move: GNU Go and GoGui let White move; here Black's
    turn is handed over by a pass that does not count, so the engine does not win by
    passing at once (two passes), and ``undo`` takes back White's move and the
    hand-over: ``play b pass`` is then Black's first move."""
    engine = _engine("mcts:iterations=300,seed=1", size=9, komi=7.5)
    answer = ask(engine, "genmove w")
    assert answer.startswith("= ") and answer != "= pass", answer
    assert not engine.state.is_terminal() and len(engine.state.history()) == 2
    assert ask(engine, "undo") == "= "
    assert engine.state.history() == []
    assert ask(engine, "play b pass") == "= "
    assert engine.state.history() == [81] and not engine.state.is_terminal()


#: White's 5x5 wall with three one-point eyes (a1, c1, e1), set up by Black passing:
#: unconditionally alive, it owns at least 8 points, so at komi 24.5 Black cannot win.
WHITE_LIVES = ("a2", "b2", "c2", "d2", "e2", "b1", "d1")


def _hopeless(engine: GtpEngine) -> None:
    for point in WHITE_LIVES:
        assert ask(engine, "play b pass") == "= "
        assert ask(engine, f"play w {point}") == "= "


def test_resigns_when_clearly_lost_and_cleanup_never_does() -> None:
    engine = _engine("mcts:engine=reference,iterations=300", size=5, komi=24.5)
    _hopeless(engine)
    played = engine.state.history()
    assert ask(engine, "genmove b") == "= resign"
    assert engine.state.history() == played  # a resignation plays no move
    assert ask(engine, "kgs-genmove_cleanup b") not in ("= resign", "")
    never = _engine("mcts:engine=reference,iterations=300", size=5, komi=24.5, resign_below=-1)
    _hopeless(never)
    assert ask(never, "genmove b") != "= resign"
    # Without the wall Black wins its share of the random games: no resignation.
    open_board = _engine("mcts:engine=reference,iterations=300", size=5, komi=24.5)
    assert ask(open_board, "genmove b") != "= resign"


def test_the_clock_bounds_each_search_in_byo_yomi() -> None:
    """The clock gives each search a share of the time left (byo-yomi: 90% of a stone's
    time less a latency margin; main time: a share of it, plus most of a byo-yomi stone),
    never more than the move may take; the moves are still played."""
    engine = _engine("mcts:engine=reference,time=5", size=5)
    assert ask(engine, "time_settings 0 1 1") == "= "  # 1 s a move, from the start
    for colour in "bwbw":
        limit = engine.clock.move_time(colour, len(engine.state.history()), 25)
        assert limit is not None and 0 < limit < 1.0
        assert ask(engine, f"genmove {colour}").startswith("= ")
    assert ask(engine, "time_left b 0.4 1") == "= "
    limit = engine.clock.move_time("b", len(engine.state.history()), 25)
    assert limit is not None and limit < 0.4
    assert ask(engine, "genmove b").startswith("= ")
    # Main time: a share of it; no clock at all: the spec's own budget.
    engine.handle("time_settings 3 0 0")
    limit = engine.clock.move_time("w", len(engine.state.history()), 25)
    assert limit is not None and limit < 1.0
    assert ask(engine, "genmove w").startswith("= ")
    engine.handle("time_settings 0 0 0")
    assert engine.clock.move_time("b", 0, 25) is None


def test_clock_allocation() -> None:
    from mctslab.cli.gtp import Clock

    clock = Clock()
    clock.settings(60, 5, 1)
    assert clock.move_time("b", 0, 81) == pytest.approx((60 - 0.15) / 40 + 0.8 * 5)
    clock.left["b"] = (3.0, 2)
    assert clock.move_time("b", 100, 81) == pytest.approx(3 / 2 * 0.9 - 0.15)
    clock.spent("w", 61)  # main time spent: byo-yomi begins
    assert clock.left["w"] == (5, 1)
    clock.spent("w", 2)  # one stone in the period: a new period
    assert clock.left["w"] == (5, 1)
    clock.settings(0, 10, 0)  # byo-yomi time with no stones: no limit (GTP)
    assert clock.move_time("b", 0, 81) is None


def test_run_stops_at_quit_and_at_the_end_of_input() -> None:
    out = io.StringIO()
    _engine("random", size=5).run(io.StringIO("name\nquit\nname\n"), out)
    assert out.getvalue() == "= mctslab\n\n= \n\n"
    out = io.StringIO()
    _engine("random", size=5).run(io.StringIO("7 genmove b"), out)
    assert out.getvalue().startswith("=7 ")


# lz-analyze ------------------------------------------------------------------------------------

INFO = re.compile(r"(\S+) visits (\d+) winrate (\d+) prior (\d+) order (\d+) pv (\S+(?: \S+)*)")


def _parse_info(line: str) -> list[dict[str, object]]:
    """The candidates of one Leela Zero info line; asserts that the line is only those."""
    assert line.startswith("info move "), line
    candidates = []
    for chunk in line[len("info move ") :].split(" info move "):
        m = INFO.fullmatch(chunk)
        assert m is not None, chunk
        candidates.append(
            {
                "move": m.group(1),
                "visits": int(m.group(2)),
                "winrate": int(m.group(3)),
                "prior": int(m.group(4)),
                "order": int(m.group(5)),
                "pv": m.group(6).split(),
            }
        )
    return candidates


def _check_info(line: str, state: object, size: int) -> int:
    """Every candidate a legal move of ``state`` with a legal principal variation, ordered
    by visits, winrate in 0 .. 10000; returns the visits of all of them."""
    from mctslab.players.gtp import vertex_to_action

    candidates = _parse_info(line)
    legal = set(state.legal_actions())  # type: ignore[attr-defined]
    assert [c["order"] for c in candidates] == list(range(len(candidates)))
    visits = [c["visits"] for c in candidates]
    assert visits == sorted(visits, reverse=True) and visits[-1] > 0
    assert len({c["move"] for c in candidates}) == len(candidates)
    for c in candidates:
        action = vertex_to_action(str(c["move"]), size)
        assert action in legal, c
        assert 0 <= c["winrate"] <= 10000 and 0 < c["prior"] <= 10000  # type: ignore[operator]
        pv = c["pv"]
        assert isinstance(pv, list) and pv[0] == c["move"]
        line_state = state.clone()  # type: ignore[attr-defined]
        for vertex in pv:  # the variation is playable from the analysed position
            a = vertex_to_action(vertex, size)
            assert a in line_state.legal_actions(), (pv, vertex)
            line_state.apply_action(a)
            if line_state.is_terminal():
                break
    return sum(visits)


class _Sink:
    """A thread-safe ``write`` for the engine, whose text can be waited for."""

    def __init__(self) -> None:
        self.text = ""
        self.cond = threading.Condition()

    def write(self, text: str) -> None:
        with self.cond:
            self.text += text
            self.cond.notify_all()

    def wait_lines(self, n: int) -> list[str]:
        """Wait (for at most two minutes: a loaded machine) for ``n`` complete lines."""
        with self.cond:
            self.cond.wait_for(lambda: self.text.count("\n") >= n, timeout=120)
            return self.text.split("\n")


def test_lz_analyze_streams_info_lines_until_the_next_command() -> None:
    sink = _Sink()
    engine = GtpEngine("mcts:iterations=500", size=5, write=sink.write)
    assert ask(engine, "play b c3") == "= "
    assert engine.handle("7 lz-analyze w 2") == ""  # the answer is streamed
    lines = sink.wait_lines(4)
    assert lines[0] == "=7" and engine.analysis is not None
    state = engine.state.clone()
    totals = [_check_info(line, state, 5) for line in lines[1:3]]
    assert totals[1] >= totals[0] > 0  # one growing tree
    # The next command stops the analysis: a blank line ends it, then the answer.
    assert engine.handle("play w b2") == "= \n\n"
    assert engine.analysis is None and sink.text.endswith("\n\n")
    assert sink.text.count("\n\n") == 1
    assert engine.state.history() == [12, 6]
    # Colour and interval in the keyword form; the side not to move gets a pass inserted.
    before = sink.text.count("\n")
    assert engine.handle("lz-analyze interval 1 white") == ""
    lines = sink.wait_lines(before + 3)[before:]
    assert lines[0] == "="
    passed = engine.game.state_from_actions([12, 6, 25])
    _check_info(lines[1], passed, 5)
    assert engine.handle("name") == "= mctslab\n\n"
    assert engine.state.history() == [12, 6]  # the inserted pass is not played


def test_lz_analyze_without_an_interval_still_ends_cleanly() -> None:
    sink = _Sink()
    engine = GtpEngine("mcts:engine=reference,iterations=100", size=5, write=sink.write)
    assert engine.handle("lz-analyze") == ""
    assert engine.handle("quit") == "= \n\n"
    assert sink.text == "=\n\n"  # no interval: no info lines (as Leela Zero)


def test_lz_analyze_refuses_bad_arguments_and_players() -> None:
    engine = _engine("mcts:iterations=100", size=5)
    for line in (
        "lz-analyze x",
        "lz-analyze b -5",
        "lz-analyze interval",
        "lz-analyze interval x",
        "lz-analyze 1.5",
        "lz-analyze avoid b d4 1",
        "lz-genmove_analyze purple",
    ):
        answer = ask(engine, line)
        assert answer.startswith("? syntax error: lz-"), (line, answer)
    assert engine.analysis is None
    assert ask(_engine("random", size=5), "lz-analyze 10") == "? lz-analyze needs an MCTS player"
    gumbel = _engine("gumbel:simulations=8", size=5)
    assert ask(gumbel, "lz-analyze 10").startswith("? lz-analyze needs an MCTS player")
    assert ask(engine, "known_command lz-analyze") == "= true"


def test_lz_genmove_analyze_plays_after_its_info_lines() -> None:
    sink = _Sink()
    engine = GtpEngine("mcts:iterations=400", size=5, write=sink.write)
    state = engine.state.clone()
    assert engine.handle("3 lz-genmove_analyze b 1") == ""
    lines = sink.text.split("\n")
    assert lines[0] == "=3" and sink.text.endswith("\n\n")
    assert lines[-3].startswith("play ") and len(lines) >= 5
    for line in lines[1:-3]:
        _check_info(line, state, 5)
    played = engine.state.history()
    assert len(played) == 1 and lines[-3] == f"play {action_to_vertex(played[0], 5)}"
    assert ask(engine, "genmove w").startswith("= ")  # the game goes on


def test_lz_genmove_analyze_stops_early_as_one_search_does() -> None:
    """The move's budget is one search in the engine's slices: early stop is judged across
    them with the lead (the slices were once searches of their own, each judging early
    stop on what was left of the move's iterations at that slice's own rate)."""
    sink = _Sink()
    spec = "mcts:iterations=20000,early_stop=1,early_stop_factor=0.5,final=robust-max"
    engine = GtpEngine(spec, size=5, write=sink.write)
    player = engine.player
    assert isinstance(player, MCTSPlayer)
    config, state = player.config, engine.state.clone()
    expected = mctslab.make_searcher(config, state, player.engine).search(state)
    assert expected.stopped_by == "early" and expected.iterations < 20000
    assert engine.handle("lz-genmove_analyze b 2") == ""  # slices of 0.01 s
    result = player.last_result
    assert result is not None and player.searcher is not None
    assert (result.stopped_by, result.iterations, result.nodes) == (
        expected.stopped_by,
        expected.iterations,
        expected.nodes,
    )
    assert result.children == expected.children
    assert player.searcher.config == config  # never written from outside


def test_lz_genmove_analyze_resigns_by_the_rule_of_genmove() -> None:
    """The same rule as ``genmove`` (:func:`mctslab.players.resign.result_resigns`),
    counting the simulations of all the slices of the move's search."""
    for below, resigned in ((RESIGN_BELOW, True), (-1.0, False)):
        sink = _Sink()
        engine = GtpEngine(
            "mcts:engine=reference,iterations=300",
            size=5,
            komi=24.5,
            resign_below=below,
            write=sink.write,
            warm_up=False,
        )
        _hopeless(engine)
        played = engine.state.history()
        assert engine.handle("lz-genmove_analyze b 1") == ""
        last = sink.text.split("\n")[-3]
        assert (last == "play resign") is resigned, sink.text
        assert (engine.state.history() == played) is resigned


def test_lz_analyze_through_the_subprocess() -> None:
    """Over real pipes: the engine reads the next command while the search runs."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "mctslab", "gtp", "--player", "mcts:time=1", "--size", "5"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        bufsize=1,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write("lz-analyze b 5\n")
        proc.stdin.flush()
        assert proc.stdout.readline() == "=\n"
        state = mctslab.make("go", board_size=5).new_initial_state()
        for _ in range(2):
            _check_info(proc.stdout.readline().rstrip("\n"), state, 5)
        proc.stdin.write("2 play b c3\n")
        proc.stdin.flush()
        rest = []
        while (line := proc.stdout.readline()) != "\n":
            rest.append(line)  # info lines written before it stopped
        assert all(line.startswith("info move ") for line in rest)
        assert proc.stdout.readline() == "=2 \n" and proc.stdout.readline() == "\n"
        proc.stdin.write("quit\n")
        proc.stdin.flush()
        assert proc.stdout.read() == "= \n\n"
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_loadsgf_and_printsgf_carry_a_game_both_ways(tmp_path: Path) -> None:
    """``printsgf FILE`` writes the game; ``loadsgf`` sets size, komi and moves from a
    file (up to the position before ``MOVE_NUMBER``); a failed load keeps the game."""
    engine = _engine("random", size=5)
    for line in ("komi 0.5", "play b c3", "play w b2", "play b pass", "play w d4"):
        assert ask(engine, line) == "= "
    path = tmp_path / "game.sgf"
    assert ask(engine, f"printsgf {path}") == "= "
    text = path.read_text()
    assert "SZ[5]KM[0.5]" in text and text.rstrip().endswith(";B[cc];W[bd];B[];W[db])")

    other = _engine("random", size=9)
    assert ask(other, f"loadsgf {path}") == "= "
    assert (other.game.board_size, other.game.komi) == (5, 0.5)
    assert other.state.history() == engine.state.history()
    assert ask(other, f"loadsgf {path} 3") == "= "  # the position before move 3
    assert [other.game.point_name(a) for a in other.state.history()] == ["c3", "b2"]
    assert ask(other, "genmove b").startswith("= ")  # the player follows the loaded game
    assert len(other.state.history()) == 3
    assert ask(other, f"loadsgf {path} 0").startswith("? syntax error")

    before = other.state.history()
    bad = tmp_path / "bad.sgf"
    for content, why in (
        ("(;GM[1]SZ[5];B[cc];W[cc])", "move 2 (W c3) is illegal"),
        ("(;SZ[5]HA[2]AB[aa][bb])", "handicap"),
        ("(;SZ[5];B[cc", "without its ']'"),
    ):
        bad.write_text(content)
        answer = ask(other, f"loadsgf {bad}")
        assert answer.startswith("? cannot load file: sgf: ") and why in answer, answer
        assert other.state.history() == before and other.game.board_size == 5
    assert ask(other, f"printsgf {tmp_path / 'no' / 'such' / 'dir.sgf'}").startswith(
        "? cannot write file"
    )


def test_final_status_list_names_the_dead_stone_tromp_taylor_counts() -> None:
    """5x5, Black's wall on column b, White's on c, a black stone at e3 in White's area,
    two passes: final_score counts e3 alive, final_status_list calls it dead."""
    engine = _engine("random", size=5)
    ask(engine, "komi 0.5")
    for row in range(1, 6):
        assert ask(engine, f"play b B{row}").rstrip() == "="
        assert ask(engine, f"play w C{row}").rstrip() == "="
    for line in ("play b E3", "play w pass", "play b pass"):
        assert ask(engine, line).rstrip() == "="
    assert ask(engine, "final_score") == "= B+5.5"
    assert ask(engine, "final_status_list dead") == "= \nE3"
    alive = ask(engine, "final_status_list ALIVE").split("\n")
    assert alive == ["= ", "B1 B2 B3 B4 B5", "C1 C2 C3 C4 C5"]
    assert ask(engine, "final_status_list seki").rstrip() == "="


def test_a_spec_without_a_budget_spends_the_clock_not_the_default_iterations() -> None:
    """Issue 28: ``mcts:...`` with no budget of its own under ``time_settings 0 1 1`` used
    to stop every move at SearchConfig's default 1,000 iterations (a tenth of its time).
    Now the clock decides: no iteration cap, the planned seconds as the time budget, and
    the search stops by time, after more than the old cap of iterations."""
    engine = GtpEngine("mcts:rave=30000,c=0", size=9)  # warmed up: compiled before the clock
    assert ask(engine, "time_settings 0 1 1") == "= "
    planned = engine.clock.move_time("b", 0, 81)
    assert ask(engine, "genmove b").startswith("= ")
    player = engine.player
    assert isinstance(player, MCTSPlayer) and player.last_result is not None
    assert player.config.iterations is None
    assert player.config.time == pytest.approx(planned)
    result = player.last_result
    assert result.stopped_by == "time"
    assert result.seconds >= 0.9 * planned
    assert result.iterations > 1000


def test_lz_genmove_analyze_under_a_clock_has_no_iteration_cap() -> None:
    sink = _Sink()
    engine = GtpEngine("mcts:c=1", size=5, write=sink.write, warm_up=False)
    assert ask(engine, "time_settings 0 0.5 1") == "= "
    config = engine._move_config("b")
    assert config is not None and config.iterations is None
    assert config.time == pytest.approx(engine.clock.move_time("b", 0, 25))


def test_a_spec_budget_of_its_own_wins_over_the_clock() -> None:
    """Fixed work stays fixed (``iterations=``), and an own time is only cut to the clock."""
    fixed = _engine("mcts:iterations=300", size=5)
    assert ask(fixed, "time_settings 0 1 1") == "= "
    assert ask(fixed, "genmove b").startswith("= ")
    assert isinstance(fixed.player, MCTSPlayer) and fixed.player.last_result is not None
    assert fixed.player.config.iterations == 300 and fixed.player.config.time is None
    assert fixed.player.last_result.iterations == 300
    long = _engine("mcts:time=5", size=5)
    assert ask(long, "time_settings 0 1 1") == "= "
    config = long._move_config("b")
    assert config is not None and config.time == pytest.approx(long.clock.move_time("b", 0, 25))
    short = _engine("mcts:time=0.1", size=5)
    assert ask(short, "time_settings 0 1 1") == "= "
    config = short._move_config("b")
    assert config is not None and config.time == 0.1 and config.iterations is None


def test_a_byte_that_is_not_utf8_is_a_bad_command_not_a_crash() -> None:
    """Issue 28: one non-UTF-8 byte under a UTF-8 locale killed ``mctslab gtp`` with a
    traceback; it is now an unknown command answered with ``?``, and the session goes on."""
    import os

    env = {**os.environ, "LC_ALL": "C.UTF-8", "LANG": "C.UTF-8"}
    env.pop("PYTHONIOENCODING", None)
    run = subprocess.run(
        [sys.executable, "-m", "mctslab", "gtp", "--player", "random", "--size", "5"],
        input=b"name\n\xff\xfe bad\nversion\nquit\n",
        capture_output=True,
        timeout=120,
        env=env,
    )
    assert run.returncode == 0 and b"Traceback" not in run.stderr, run.stderr
    answers = _answers(run.stdout.decode("utf-8"))
    assert answers[0] == "= mctslab" and answers[1].startswith("? ")
    assert answers[2].startswith("= ") and len(answers) == 4


def test_loadsgf_refuses_what_is_not_a_small_regular_file(tmp_path: Path) -> None:
    """A FIFO hung ``loadsgf`` and ``/dev/zero`` was read without limit (2.6 GB)."""
    import os

    engine = _engine("random", size=5)
    fifo = tmp_path / "fifo.sgf"
    os.mkfifo(fifo)
    for path in (fifo, Path("/dev/zero"), tmp_path):
        answer = ask(engine, f"loadsgf {path}")
        assert answer.startswith("? cannot load file: "), answer
    big = tmp_path / "big.sgf"
    big.write_text("(;GM[1]SZ[5]" + " " * (2 << 20) + ")")
    assert ask(engine, f"loadsgf {big}").startswith("? cannot load file: ")
    small = tmp_path / "small.sgf"
    small.write_text("(;GM[1]FF[4]SZ[5]KM[0.5];B[cc];W[bd])")
    assert ask(engine, f"loadsgf {small} ２").startswith("? syntax error: move number")
    assert ask(engine, f"loadsgf {small} 2") == "= "
    assert len(engine.state.history()) == 1
    assert ask(engine, "１ name").startswith("? ")  # not an id: an unknown command


def test_passes_at_once_when_the_opponent_passed_and_the_count_wins() -> None:
    """After White's pass, Black's pass ends the game. One Black stone on an empty 5x5
    board counts 25 points: a win at komi 0.5, so genmove passes without a search. With
    a White stone too, every empty point touches both colours: Black's two stones
    against White's one and komi 2.5 lose, so it searches on."""
    winning = _engine("mcts:engine=reference,iterations=50", size=5, komi=0.5)
    assert ask(winning, "play b c3") == "= "
    assert ask(winning, "play w pass") == "= "
    assert ask(winning, "genmove b") == "= pass"
    assert winning.state.is_terminal()
    assert getattr(winning.player, "last_result", None) is None  # no search was made
    losing = _engine("mcts:engine=reference,iterations=50", size=5, komi=2.5)
    for move in ("b c3", "w c2", "b d4", "w pass"):
        assert ask(losing, f"play {move}") == "= "
    assert not losing._pass_wins()
    ask(losing, "genmove b")
    assert getattr(losing.player, "last_result", None) is not None
    # Only after the opponent's own pass: a pass handed over for a move out of turn
    # (two Black moves in a row) is not one.
    handed = _engine("mcts:engine=reference,iterations=50", size=5, komi=0.5)
    assert ask(handed, "play b c3") == "= "
    assert ask(handed, "play b c2") == "= "
    assert not handed._pass_wins()
