"""``gtp:CMD``: a GTP program as a player (:mod:`mctslab.players.gtp`).

A whole game of ``mctslab gtp`` (a subprocess, through a ``gtp:`` player) against GNU Go
in the arena; resignation; bad commands; no child process left behind. GNU Go is
Debian's ``gnugo`` (``make test`` installs it); without it those tests skip, or fail
under ``MCTSLAB_REQUIRE_EXTRAS``.
"""

from __future__ import annotations

import gc
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

import mctslab
from conftest import require_gnugo
from mctslab.arena.game_task import SCORED, Entrant, GameTask, derive_seed, play_task
from mctslab.core.errors import InvalidSpecError
from mctslab.players.gtp import (
    GtpError,
    GtpPlayer,
    GtpResignation,
    action_to_vertex,
    vertex_to_action,
)
from mctslab.players.player import make_player, parse_spec, play_game

PYTHON = shlex.quote(sys.executable)
MCTSLAB = f"gtp:{PYTHON} -m mctslab gtp --player mcts:engine=reference,iterations=200"
#: Chinese (area) rules and positional superko: the rules of mctslab's Go.
GNUGO = "gtp:gnugo --mode gtp --level 1 --chinese-rules --positional-superko"
RESIGNING = f"{MCTSLAB} --resign-below 0.99"


def _alive(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def _children() -> set[int]:
    """This process's child processes (any state, zombies included)."""
    me = os.getpid()
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == me:
                found.add(int(entry.name))
    return found


def test_vertices_are_gtp_s() -> None:
    assert [action_to_vertex(a, 9) for a in (0, 8, 9, 80, 81)] == ["A1", "J1", "A2", "J9", "pass"]
    for size in (5, 9, 19):
        for action in range(size * size + 1):
            assert vertex_to_action(action_to_vertex(action, size), size) == action
    assert vertex_to_action("resign", 9) is None and vertex_to_action("T1", 9) is None
    game = mctslab.make("go", board_size=9)
    state = game.new_initial_state()
    assert state.string_to_action("d4") == vertex_to_action("D4", 9)


def test_the_spec_is_the_command_line() -> None:
    assert parse_spec("gtp:gnugo --mode gtp --level 1") == (
        "gtp",
        {"command": "gnugo --mode gtp --level 1"},
    )
    assert parse_spec("gtp:prog --opt a=1,b=2")[1] == {"command": "prog --opt a=1,b=2"}


def test_bad_commands_are_clear_errors() -> None:
    go = mctslab.make("go", board_size=5).info
    with pytest.raises(InvalidSpecError, match="give the program's command"):
        make_player("gtp:", go)
    with pytest.raises(InvalidSpecError, match="not found"):
        make_player("gtp:no-such-gtp-program-xyz --mode gtp", go)
    with pytest.raises(InvalidSpecError, match="cannot split"):
        make_player('gtp:gnugo "unclosed', go)
    with pytest.raises(InvalidSpecError, match="plays go only"):
        make_player(f"gtp:{PYTHON}", mctslab.make("tic_tac_toe").info)
    state = mctslab.make("go", board_size=5).new_initial_state()
    # A program that exits at once, and one that never answers.
    dead = GtpPlayer(f"{PYTHON} -c 'import sys; sys.exit(3)'", go)
    with dead, pytest.raises(GtpError, match="status 3"):
        dead.choose(state)
    silent = GtpPlayer(f"{PYTHON} -c 'import time; time.sleep(60)'", go, timeout=1)
    with pytest.raises(GtpError, match="no answer"):
        silent.choose(state)
    assert silent.process is not None and silent.process.proc.poll() is not None  # killed
    # A crash in the arena is a loss of that seat, recorded.
    task = GameTask(
        slot=0,
        game="go",
        game_params=(("board_size", 5),),
        seats=(Entrant("dead", f"gtp:{PYTHON} -c 'pass'"), Entrant("random", "random")),
        seed=0,
    )
    record = play_task(task)
    assert record.termination == "error" and record.returns == (-1.0, 1.0)
    assert record.error is not None and record.error.startswith("dead: GtpError")


def test_a_whole_game_of_mctslab_gtp_against_gnugo() -> None:
    require_gnugo()
    before = _children()
    for seats in (("mctslab", "gnugo"), ("gnugo", "mctslab")):
        specs = {"mctslab": MCTSLAB, "gnugo": GNUGO}
        task = GameTask(
            slot=0,
            game="go",
            game_params=(("board_size", 5), ("komi", 0.5)),
            seats=tuple(Entrant(name, specs[name]) for name in seats),
            seed=1,
        )
        record = play_task(task)
        # Legal to the end: by two passes or the move limit, or a resignation.
        if record.termination == "resign":
            assert record.error is not None and "GtpResignation" in record.error, record.error
        else:
            # Over by two passes, or at the length limit and then scored by agreement.
            assert record.termination in SCORED, record.error
            game = mctslab.make("go", board_size=5, komi=0.5)
            state = game.state_from_actions(record.moves)
            judged = game.adjudicate(state, derive_seed(record.seed, "adjudicate"))  # type: ignore[attr-defined]
            assert state.is_terminal() and (record.termination == "length") == (judged is not None)
            assert list(record.returns) == (state.returns() if judged is None else judged[0])
        assert len(record.moves) >= 4
    gc.collect()
    assert _children() <= before  # every program quit and was reaped


def test_kept_in_step_through_inform_and_closed() -> None:
    require_gnugo()
    game = mctslab.make("go", board_size=5, komi=0.5)
    gnugo = make_player(GNUGO, game.info)
    assert isinstance(gnugo, GtpPlayer)
    state = game.new_initial_state()
    for action in (12, 6):  # an opening told before the program starts
        state.apply_action(action)
        gnugo.inform(action)
    final = play_game(state, [make_player("random", game.info, seed=3), gnugo])
    assert final.is_terminal()
    assert gnugo.process is not None
    board = gnugo.process.send("showboard")  # its board is the game's
    assert board.count("X") - 1 == sum(game.colour_at(final, p) == 1 for p in range(25))
    pid = gnugo.process.proc.pid
    gnugo.close()
    assert not _alive(pid) and pid not in _children()
    # Collected without close(): the finalizer quits and reaps it.
    other = make_player(GNUGO, game.info)
    other.choose(game.new_initial_state())
    assert isinstance(other, GtpPlayer) and other.process is not None
    pid = other.process.proc.pid
    del other
    gc.collect()
    assert not _alive(pid) and pid not in _children()


def test_resignation_loses_the_game() -> None:
    # A program told to resign below +0.99 resigns at its first move (when the engine
    # resigns is tested in tests/cli/test_gtp_engine.py): the arena records the loss.
    game = mctslab.make("go", board_size=5, komi=24.5)
    black = GtpPlayer(RESIGNING[len("gtp:") :], game.info)
    with black, pytest.raises(GtpResignation, match="resigns as Black"):
        play_game(game.new_initial_state(), [black, make_player("random", game.info)])
    task = GameTask(
        slot=0,
        game="go",
        game_params=(("board_size", 5), ("komi", 24.5)),
        seats=(Entrant("mctslab", RESIGNING), Entrant("random", "random")),
        seed=0,
    )
    record = play_task(task)
    assert record.returns == (-1.0, 1.0) and record.moves == ()
    assert record.termination == "resign" and record.termination in SCORED
    assert record.error is not None and record.error.startswith("mctslab: GtpResignation")


def test_no_program_outlives_a_killed_arena() -> None:
    """An arena killed outright (SIGKILL) runs no clean-up: its program sees its input
    close and quits. Run under a supervisor that is the orphans' subreaper (Linux), so that
    it is reaped here and not left to a PID 1 that may never reap it."""
    require_gnugo()
    if not sys.platform.startswith("linux"):
        pytest.skip("PR_SET_CHILD_SUBREAPER is Linux's")
    arena = (
        "import mctslab, sys\n"
        "from mctslab.players.player import make_player\n"
        "g = mctslab.make('go', board_size=5)\n"
        f"p = make_player({GNUGO!r}, g.info)\n"
        "p.choose(g.new_initial_state())\n"
        "print(p.process.proc.pid, flush=True)\n"
        "sys.stdin.read()\n"
    )
    supervisor = (
        "import ctypes, os, signal, subprocess, sys, time\n"
        "ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER\n"
        "arena = subprocess.Popen([sys.executable, '-c', sys.argv[1]],\n"
        "                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)\n"
        "pid = int(arena.stdout.readline())\n"
        "arena.send_signal(signal.SIGKILL)\n"
        "arena.wait()\n"
        "deadline = time.monotonic() + 10\n"
        "while time.monotonic() < deadline:\n"
        "    if os.waitpid(pid, os.WNOHANG)[0] == pid:\n"
        "        print('quit')\n"
        "        break\n"
        "    time.sleep(0.05)\n"
        "else:\n"
        "    os.kill(pid, signal.SIGKILL)\n"
        "    os.waitpid(pid, 0)\n"
        "    print('still running')\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", supervisor, arena], capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "quit"


FAKE_GTP = """
import sys, time
log, delay, startup = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
time.sleep(startup)
for line in sys.stdin:
    with open(log, "a") as f:
        f.write(line)
    words = line.split()
    if not words:
        continue
    if words[0] == "quit":
        print("= \\n", flush=True)
        break
    if words[0] == "time_settings" and not all(w.isdigit() for w in words[1:]):
        print("? syntax error\\n", flush=True)  # as GNU Go: integers only
    elif words[0] == "genmove":
        time.sleep(delay)
        print("= pass\\n", flush=True)
    else:
        print("= \\n", flush=True)
"""


def _fake(tmp_path: Path, delay: float = 0.0, startup: float = 0.0) -> tuple[str, Path]:
    """A GTP program that logs what it is told, passes at every genmove after ``delay``
    seconds, and takes ``startup`` seconds to start."""
    script, log = tmp_path / "fake_gtp.py", tmp_path / "commands.log"
    script.write_text(FAKE_GTP)
    quoted = f"{shlex.quote(str(script))} {shlex.quote(str(log))}"
    return f"{PYTHON} {quoted} {delay} {startup}", log


def test_the_time_per_move_is_told_as_byo_yomi(tmp_path: Path) -> None:
    command, log = _fake(tmp_path)
    go = mctslab.make("go", board_size=5).info
    state = mctslab.make("go", board_size=5).new_initial_state()
    for seconds, sent in (
        (2.0, ["time_settings 0 2 1"]),
        (2.5, ["time_settings 0 2.5 1", "time_settings 0 2 1"]),
        (0.5, ["time_settings 0 0.5 1"]),
        (None, []),
    ):
        log.write_text("")
        with GtpPlayer(command, go, time_per_move=seconds) as player:
            assert player.choose(state) == 25  # refused or not, the game goes on
        lines = log.read_text().splitlines()
        assert [line for line in lines if line.startswith("time_settings")] == sent
        if sent:  # told once, after the board is set up and before the first genmove
            assert lines.index(sent[0]) > lines.index("clear_board")
            assert lines.index(sent[-1]) < lines.index("genmove b")
    with pytest.raises(InvalidSpecError, match="positive"):
        GtpPlayer(command, go, time_per_move=0)
    # mctslab gtp takes a fraction of a second, and plans its searches with it.
    with GtpPlayer(MCTSLAB[len("gtp:") :], go, time_per_move=0.5) as player:
        assert player.choose(state) in state.legal_actions()
        assert player.process is not None
        assert player.process.send("time_settings 0 0.5 1") == ""


def test_a_program_over_the_arena_s_limit_forfeits(tmp_path: Path) -> None:
    """The arena's strict time control applies to a gtp: player as to any other: a move
    over the limit (and its tolerance) loses the game; the program was told the limit."""
    command, log = _fake(tmp_path, delay=1.0)
    task = GameTask(
        slot=0,
        game="go",
        game_params=(("board_size", 5),),
        seats=(Entrant("slow", f"gtp:{command}"), Entrant("random", "random")),
        seed=0,
        time_per_move=0.2,
        strict=True,
    )
    record = play_task(task)
    assert record.termination == "time" and record.returns == (-1.0, 1.0)
    assert record.error is not None and record.error.startswith("slow: ")
    assert "time_settings 0 0.2 1" in log.read_text().splitlines()


def test_a_program_s_start_up_is_not_counted_as_its_first_move(tmp_path: Path) -> None:
    """A program that takes a second to start (an interpreter, a compiled search loaded
    from its cache) is started before the game's clock runs: under a strict 0.3 s a move
    it does not lose its first move on time."""
    command, log = _fake(tmp_path, startup=1.0)
    task = GameTask(
        slot=0,
        game="go",
        game_params=(("board_size", 5),),
        seats=(Entrant("slow-start", f"gtp:{command}"), Entrant("random", "random")),
        seed=0,
        time_per_move=0.3,
        strict=True,
    )
    record = play_task(task)
    assert record.termination == "normal", record.error
    assert record.moves[0] == 25  # its first move: the fake program passes
    lines = log.read_text().splitlines()
    assert lines.index("clear_board") < lines.index("genmove b")


def test_a_game_clock_is_told_with_the_time_left_before_each_move(tmp_path: Path) -> None:
    """Under the arena's game clock (``main_time``) the program is told ``time_settings M
    0 0`` (sudden death) or ``M T 1`` (byo-yomi after it) once, and ``time_left`` for its
    colour before every ``genmove``, in whole seconds that only go down."""
    command, log = _fake(tmp_path)
    for byo, settings in ((None, "time_settings 90 0 0"), (2.0, "time_settings 90 2 1")):
        log.write_text("")
        task = GameTask(
            slot=0,
            game="go",
            game_params=(("board_size", 5),),
            seats=(Entrant("prog", f"gtp:{command}"), Entrant("random", "random")),
            seed=0,
            time_per_move=byo,
            main_time=90.0,
            strict=True,
        )
        record = play_task(task)
        assert record.termination == "normal", record.error
        lines = log.read_text().splitlines()
        assert [line for line in lines if line.startswith("time_settings")] == [settings]
        genmoves = [i for i, line in enumerate(lines) if line.startswith("genmove")]
        assert genmoves and all(lines[i - 1].startswith("time_left b ") for i in genmoves)
        left = [int(lines[i - 1].split()[2]) for i in genmoves]
        assert left[0] == 90 and left == sorted(left, reverse=True)
        assert all(lines[i - 1].split()[3] == "0" for i in genmoves)  # main time: 0 stones
