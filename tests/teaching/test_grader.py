"""Lesson 11's autograder (mctslab.teaching.grader, ``mctslab grade``): it passes
mctslab's own engine, the textbook listing and the lesson's file once fixed, and names
each planted bug of lessons/find_the_bugs.py; a file it cannot grade is one error line."""

from __future__ import annotations

import os
import queue
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

import mctslab
from mctslab import SearchConfig
from mctslab.cli.main import app
from mctslab.teaching.grader import GradeError, TrapGame, checks, grade, load_student
from mctslab.teaching.listing import mcts

LESSON = Path(__file__).resolve().parents[2] / "lessons" / "find_the_bugs.py"
PERSPECTIVE = (
    "self.player = self.to_move  # whose wins this node counts",
    "self.player = parent.to_move if parent is not None else -1",
)
EXPLORATION = ("math.sqrt(2 * math.log(", "math.sqrt(math.log(")


def _lesson(tmp_path: Path, *fixes: tuple[str, str]) -> Path:
    text = LESSON.read_text()
    for bug, fix in fixes:
        assert bug in text
        text = text.replace(bug, fix)
    path = tmp_path / "student.py"
    path.write_text(text)
    return path


def test_the_trap_is_a_loss_that_minimax_avoids() -> None:
    mctslab.check_game(TrapGame())  # the game API's contract, on random games
    state = TrapGame().new_initial_state()
    assert mctslab.solve(state).best_actions == (0,)
    assert state.legal_actions() == [0, 1]
    state.apply_action(1)
    assert state.legal_actions() == list(range(8))


def test_mctslabs_engine_and_the_listing_pass() -> None:
    def engine(state: mctslab.State, iterations: int) -> int:
        config = SearchConfig(iterations=iterations, seed=0)
        return mctslab.search(state, config, engine="reference").action

    for function in (engine, mcts):
        result = grade(function, positions=150)
        assert result.passed and result.bug is None, result


def test_each_planted_bug_is_named(tmp_path: Path) -> None:
    both = grade(load_student(LESSON), positions=150)
    assert not both.passed and both.bug is not None and both.bug.startswith("perspective")
    exploration = grade(load_student(_lesson(tmp_path, PERSPECTIVE)), positions=150)
    assert exploration.bug is not None and exploration.bug.startswith("exploration")
    assert [c.name for c in exploration.checks if not c.passed] == ["trap"]
    fixed = grade(load_student(_lesson(tmp_path, PERSPECTIVE, EXPLORATION)), positions=150)
    assert fixed.passed and fixed.bug is None


def test_a_stale_tree_is_named(tmp_path: Path) -> None:
    """A search that keeps its first root and answers every later call from it."""
    path = tmp_path / "stale.py"
    path.write_text(
        "from mctslab.teaching.listing import mcts as fresh\n"
        "MEMORY = {}\n"
        "def mcts(state, iterations):\n"
        "    if 'move' not in MEMORY or MEMORY['move'] not in state.legal_actions():\n"
        "        MEMORY['move'] = fresh(state, iterations)\n"
        "    return MEMORY['move']\n"
    )
    result = grade(load_student(path), positions=50)
    assert not result.passed and result.bug is not None


@pytest.mark.parametrize(
    ("content", "name", "word"),
    [
        (None, "missing.py", "no such file"),
        ("x = 1\n", "notes.txt", "not a Python file"),
        ("def mcts(:\n", "broken.py", "failed to import: SyntaxError"),
        ("def search(state, iterations):\n    return 0\n", "other.py", "no function mcts"),
        ("def mcts(state, iterations):\n    return 1 / 0\n", "crash.py", "ZeroDivisionError"),
        ("import sys\nsys.exit(0)\n", "quits.py", "called sys.exit(0) while being imported"),
        (
            "import sys\ndef mcts(state, iterations):\n    sys.exit(0)\n",
            "quits_later.py",
            "called sys.exit(0): not graded",
        ),
    ],
)
def test_a_file_it_cannot_grade_is_one_error_line(
    tmp_path: Path, content: str | None, name: str, word: str
) -> None:
    path = tmp_path / name
    if content is not None:
        path.write_text(content)
    with pytest.raises(GradeError, match=re.escape(word)):
        grade(load_student(path), positions=5)
    done = CliRunner().invoke(app, ["grade", str(path), "--positions", "5"])
    assert done.exit_code == 2 and done.stderr.startswith("error:")
    assert len(done.stderr.strip().splitlines()) == 1 and word.split(":")[0] in done.stderr


def test_the_command_exits_1_on_a_bug_and_0_when_fixed(tmp_path: Path) -> None:
    runner = CliRunner()
    buggy = runner.invoke(app, ["grade", str(LESSON), "--positions", "60"])
    assert buggy.exit_code == 1 and "likely bug: perspective" in buggy.stdout
    assert "FAIL  wins" in buggy.stdout
    fixed = _lesson(tmp_path, PERSPECTIVE, EXPLORATION)
    ok = runner.invoke(app, ["grade", str(fixed), "--positions", "60"])
    assert ok.exit_code == 0 and ok.stdout.strip().endswith("every check passed")
    bad = runner.invoke(app, ["grade", str(fixed), "--positions", "some"])
    assert bad.exit_code == 2 and "--positions" in bad.stderr


def test_the_checks_come_one_at_a_time_as_each_finishes() -> None:
    """The generator yields wins and blocks before the minimax positions are asked, and
    each later check before the next one's calls; grade() is the same checks, collected."""
    calls: list[int] = []

    def counted(state: mctslab.State, iterations: int) -> int:
        calls.append(len(state.history()))
        return mcts(state, iterations)

    seen: list[tuple[str, int]] = []
    for check in checks(counted, positions=30):
        seen.append((check.name, len(calls)))
    names = [name for name, _ in seen]
    assert names == ["wins", "blocks", "minimax", "fresh tree", "trap", "legal"]
    at = dict(seen)
    assert at["wins"] == at["blocks"] < at["minimax"] < at["fresh tree"] < at["trap"]
    assert at["minimax"] - at["blocks"] == 30 and at["trap"] == at["legal"] == len(calls)
    collected = grade(mcts, positions=30)
    assert [c.name for c in collected.checks] == names and collected.passed


STALLS_AT_THE_TRAP = """
import os, time
from mctslab.teaching.listing import mcts as listing

def mcts(state, iterations):
    # The trap probe comes after wins, blocks, minimax and fresh tree: wait there until
    # the test has read those four lines (so they cannot have come at the end).
    if str(state).startswith("trap game"):
        for _ in range(6000):
            if os.path.exists(os.environ["GO_ON"]):
                break
            time.sleep(0.05)
    return listing(state, iterations)
"""


def test_the_command_prints_each_line_before_the_grading_ends(tmp_path: Path) -> None:
    """Through a pipe (block-buffered unless flushed): the first four lines arrive while
    the student's function is still blocked in the fifth check."""
    student = tmp_path / "student.py"
    student.write_text(STALLS_AT_THE_TRAP)
    go_on = tmp_path / "go_on"
    process = subprocess.Popen(
        [sys.executable, "-m", "mctslab", "grade", str(student), "--positions", "20"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "GO_ON": str(go_on)},
    )
    lines: queue.Queue[str] = queue.Queue()
    assert process.stdout is not None
    stdout = process.stdout
    threading.Thread(target=lambda: [lines.put(line) for line in stdout], daemon=True).start()
    try:
        first = [lines.get(timeout=240) for _ in range(4)]  # a bound, not a measurement
        assert [line.split()[1] for line in first] == ["wins", "blocks", "minimax", "fresh"]
        assert process.poll() is None  # still waiting in the trap check
    finally:
        go_on.touch()
    assert process.wait(timeout=240) == 0, process.stderr.read() if process.stderr else ""
    rest = [lines.get(timeout=10) for _ in range(3)]
    assert rest[0].split()[1] == "trap" and rest[1].split()[1] == "legal"
    assert rest[2].strip() == "every check passed"
