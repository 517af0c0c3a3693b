"""``mctslab gtp``: the GTP version 2 protocol, every command, malformed input, ids,
resignation and the clock (:mod:`mctslab.cli.gtp`).

One subprocess session drives ``python -m mctslab gtp`` through every listed command;
the rest talks to :class:`~mctslab.cli.gtp.GtpEngine` in this process.
"""

from __future__ import annotations

import io
import subprocess
import sys

import pytest

from mctslab.cli.gtp import COMMANDS, GtpEngine

SESSION = [
    ("1 protocol_version", "=1 2"),
    ("name", "= mctslab"),
    ("version", None),
    ("list_commands", None),
    ("known_command genmove", "= true"),
    ("known_command lz-analyze", "= false"),
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
    ("undo", "="),  # the pass inserted before 'genmove white' too
    ("undo", "? cannot undo"),
    ("play b pass", "="),
    ("play w pass", "="),  # two passes: the game is over ...
    ("final_score", "= W+6.5"),
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
    # A pass that would end the game is not inserted: white passed last.
    assert ask(engine, "play b c3") == "= "
    assert ask(engine, "play w pass") == "= "
    assert ask(engine, "play w c4").startswith("? illegal move: white is not to play")
    assert ask(engine, "undo") == "= "
    assert engine.state.history() == [25, 5, 25, 1, 12]


def test_resigns_when_clearly_lost_and_cleanup_never_does() -> None:
    # Komi 24.5 on 5x5: Black wins only by owning every point, which it cannot.
    engine = _engine("mcts:engine=reference,iterations=300", size=5, komi=24.5)
    assert ask(engine, "genmove b") == "= resign"
    assert engine.state.history() == []  # a resignation plays no move
    assert ask(engine, "kgs-genmove_cleanup b") not in ("= resign", "")
    never = _engine("mcts:engine=reference,iterations=300", size=5, komi=24.5, resign_below=-1)
    assert ask(never, "genmove b") != "= resign"
    winning = _engine("mcts:engine=reference,iterations=300", size=5, komi=-24.5)
    assert ask(winning, "genmove b") != "= resign"


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
