"""Issue 52, round 4's outside attack on files and processes: an export never writes
into a training run (17), hostile checkpoints and ONNX sidecars are refused before they
cost memory or time (20), arena sizes are bounded (22), workers die with their parent
(23), and a few tracebacks and hangs become one error line (24, 25)."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from conftest import require_extra

torch = require_extra("torch", "nn")

from mctslab.cli.main import app  # noqa: E402
from mctslab.train import TrainConfig, load_run, train  # noqa: E402

runner = CliRunner()

TINY = TrainConfig(
    game="tic_tac_toe",
    generations=1,
    games_per_generation=2,
    simulations=4,
    channels=4,
    blocks=1,
    hidden=8,
    eval_games=0,
    threads=1,
    device="cpu",
)


def invoke(*args: str) -> Result:
    return runner.invoke(app, list(args))


def assert_user_error(result: Result) -> str:
    """Exit 2, one ``error:`` line (the last on stderr), no traceback."""
    assert result.exit_code == 2, (result.stdout, result.stderr, result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.stderr.splitlines()
    assert [line for line in lines if line.startswith("error: ")] == lines[-1:], result.stderr
    assert "Traceback" not in result.output, result.stderr
    return lines[-1]


def hashes(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


@pytest.fixture(scope="module")
def base_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("base") / "run"
    train(TINY, out)
    return out


@pytest.fixture
def run_dir(base_run: Path, tmp_path: Path) -> Path:
    out = tmp_path / "run"
    shutil.copytree(base_run, out)
    return out


# 17. export-model never writes into a run directory -----------------------------------------


@pytest.mark.parametrize("target", ["state.pt", "run.pt", "checkpoints/gen-0001.pt", "sub/x.pt"])
def test_export_model_into_a_run_directory_is_refused_and_the_run_resumes(
    run_dir: Path, target: str
) -> None:
    """``--out RUN/state.pt`` would write its card over state.json (and ``run.pt`` over
    run.json): refused with one error line, every file of the run unchanged, and the
    run still resumes."""
    before = hashes(run_dir)
    line = assert_user_error(invoke("export-model", str(run_dir), "--out", str(run_dir / target)))
    assert "inside the training run" in line
    assert hashes(run_dir) == before
    train(replace(TINY, generations=2), run_dir, resume=True)
    assert load_run(run_dir)[1]["generation"] == 2


def test_export_model_through_links_into_a_run_is_refused(run_dir: Path, tmp_path: Path) -> None:
    """A folder linked to the run, or a card name linked to its state.json: refused."""
    before = hashes(run_dir)
    (tmp_path / "alias").symlink_to(run_dir)
    line = assert_user_error(
        invoke("export-model", str(run_dir), "--out", str(tmp_path / "alias" / "state.pt"))
    )
    assert "inside the training run" in line
    out = tmp_path / "models"
    out.mkdir()
    (out / "net.json").symlink_to(run_dir / "state.json")
    assert_user_error(invoke("export-model", str(run_dir), "--out", str(out / "net.pt")))
    assert hashes(run_dir) == before


def test_export_model_outside_the_run_still_works(run_dir: Path, tmp_path: Path) -> None:
    """Beside the run, and below a folder with another program's state.json (no run.json):
    written."""
    done = invoke("export-model", str(run_dir), "--out", str(tmp_path / "net.pt"))
    assert done.exit_code == 0, done.output
    assert (tmp_path / "net.pt").is_file() and (tmp_path / "net.json").is_file()
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "state.json").write_text("{}")
    done = invoke("export-model", str(run_dir), "--out", str(tmp_path / "app" / "m" / "net.pt"))
    assert done.exit_code == 0, done.output


# 20. Hostile checkpoints and sidecars -------------------------------------------------------


def _good_checkpoint(folder: Path) -> Path:
    from mctslab.core.registry import make
    from mctslab.nn.checkpoint import save_checkpoint
    from mctslab.nn.networks import make_network

    game = make("tic_tac_toe")
    return save_checkpoint(
        folder / "good.pt", make_network(game, channels=4, blocks=1, hidden=8), game
    )


def _rewritten(good: Path, dest: Path, change: object) -> Path:
    """``good``'s payload with ``change(payload)`` applied, saved as ``torch.save`` does."""
    payload = torch.load(good, weights_only=True)
    change(payload)  # type: ignore[operator]
    torch.save(payload, dest)
    return dest


def _laughs(payload: dict[str, object]) -> None:
    """A game name that repeats one string 2**40 times through shared lists: a few KB on
    disk, a hang for whoever prints or compares it."""
    name: object = "ha"
    for _ in range(40):
        name = [name, name]
    payload["game"]["name"] = name  # type: ignore[index]


def _deep_meta(payload: dict[str, object]) -> None:
    deep: object = "x"
    for _ in range(200):
        deep = [deep]
    payload["meta"] = {"train": deep}


def _game_a_list(payload: dict[str, object]) -> None:
    payload["game"] = ["tic_tac_toe"]


def _network_a_dict(payload: dict[str, object]) -> None:
    payload["network"]["channels"] = {"n": 4}  # type: ignore[index]


def _meta_an_object(payload: dict[str, object]) -> None:
    payload["meta"] = {"n": torch.zeros(2)}


def _deflated(good: Path, dest: Path, extra: bool) -> Path:
    """``good`` with its entries deflated (and, with ``extra``, 20 MB of zeros added that
    deflate to 20 KB: a zip bomb in miniature)."""
    import zipfile

    with zipfile.ZipFile(good) as src, zipfile.ZipFile(dest, "w") as out:
        for entry in src.infolist():
            out.writestr(entry.filename, src.read(entry), zipfile.ZIP_DEFLATED)
        if extra:
            out.writestr("archive/data/999", bytes(20 * 1024**2), zipfile.ZIP_DEFLATED)
    return dest


HOSTILE = {
    "laughs": (_laughs, "game is not"),
    "deep_meta": (_deep_meta, "larger or deeper"),
    "game_a_list": (_game_a_list, "game is not"),
    "network_a_dict": (_network_a_dict, "network option 'channels'"),
    "meta_an_object": (_meta_an_object, "not a JSON value"),
}


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_a_hostile_header_is_refused_by_every_reader(tmp_path: Path, kind: str) -> None:
    """A billion-laughs game name, a meta nested 200 deep, header fields of the wrong
    type: peek and load raise CheckpointError (a ValueError) at once; export-onnx,
    train --init and play az:model= each end with one error line."""
    from mctslab.core.registry import make
    from mctslab.nn.checkpoint import CheckpointError, load_checkpoint, peek_checkpoint

    change, message = HOSTILE[kind]
    bad = _rewritten(_good_checkpoint(tmp_path), tmp_path / f"{kind}.pt", change)
    for read in (lambda: peek_checkpoint(bad), lambda: load_checkpoint(bad, make("tic_tac_toe"))):
        with pytest.raises(CheckpointError, match=message):
            read()
    assert message in assert_user_error(
        invoke("export-onnx", str(bad), "--out", str(tmp_path / "x.onnx"))
    )
    line = assert_user_error(
        invoke("train", "tic_tac_toe", "--out", str(tmp_path / "run"), "--init", str(bad),
               "--channels", "4", "--blocks", "1", "--hidden", "8", "--no-progress")
    )  # fmt: skip
    assert message in line
    line = assert_user_error(
        invoke("play", "tic_tac_toe", "--player1", f"az:model={bad}", "--player2", "random")
    )
    assert message in line


@pytest.mark.parametrize("extra", [False, True])
def test_a_compressed_checkpoint_is_refused_before_it_inflates(tmp_path: Path, extra: bool) -> None:
    from mctslab.nn.checkpoint import CheckpointError, peek_checkpoint

    bad = _deflated(_good_checkpoint(tmp_path), tmp_path / "deflated.pt", extra)
    with pytest.raises(CheckpointError, match="compressed"):
        peek_checkpoint(bad)


def test_an_overlong_checkpoint_is_refused_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file longer than MAX_FILE_BYTES (a sparse one: no disk used) is refused before
    PyTorch or the zip reader opens it."""
    from mctslab.nn import checkpoint

    big = tmp_path / "big.pt"
    with big.open("wb") as f:
        f.truncate(checkpoint.MAX_FILE_BYTES + 1)
    monkeypatch.setattr(torch, "load", lambda *a, **k: pytest.fail("torch.load was called"))
    with pytest.raises(checkpoint.CheckpointError, match="more than a network checkpoint"):
        checkpoint.peek_checkpoint(big)


def test_a_huge_onnx_sidecar_is_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A 5 GB ``.onnx`` beside a checkpoint (sparse) is never read: the network is
    exported afresh (or runs in PyTorch) as for a stale sidecar."""
    from mctslab.core.registry import make
    from mctslab.players import network

    good = _good_checkpoint(tmp_path)
    sidecar = good.with_suffix(".onnx")
    with sidecar.open("wb") as f:
        f.truncate(5 * 1024**3)
    real = Path.read_bytes

    def read_bytes(self: Path) -> bytes:
        assert self != sidecar, "the 5 GB sidecar was read"
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    evaluator, backend, note = network.network_evaluator(good, make("tic_tac_toe"))
    assert backend in ("onnx", "torch") and evaluator is not None, note


def test_a_card_nested_too_deep_is_one_error_line(tmp_path: Path) -> None:
    good = _good_checkpoint(tmp_path)
    good.with_suffix(".json").write_text("[" * 100_000 + "]" * 100_000)
    line = assert_user_error(invoke("export-onnx", str(good), "--out", str(tmp_path / "x.onnx")))
    assert "not a readable model card" in line


# 25. export-onnx never rewrites the package's own files ------------------------------------


def test_export_onnx_of_a_shipped_network_writes_to_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("onnx")
    from mctslab.players.network import shipped_models

    shipped = shipped_models()["tic_tac_toe"]
    package = hashes(shipped.parent)
    monkeypatch.chdir(tmp_path)
    done = invoke("export-onnx", "tic_tac_toe")
    assert done.exit_code == 0, done.output
    assert (tmp_path / "tic_tac_toe.onnx").stat().st_size > 0
    line = assert_user_error(
        invoke("export-onnx", "tic_tac_toe", "--out", str(shipped.with_suffix(".onnx")))
    )
    assert "inside the installed mctslab package" in line
    assert hashes(shipped.parent) == package


# 22. Arena sizes are bounded -----------------------------------------------------------------

HUGE = str(10**30)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["arena", "tic_tac_toe", "--games", HUGE], "more than a run's 250,000 games"),
        (["arena", "tic_tac_toe", "--games", "200000", "--player", "c=random"], "3 pairings"),
        (["arena", "tic_tac_toe", "--workers", HUGE], "workers must be at most"),
        (["arena", "tic_tac_toe", "--workers", "0"], "workers must be an integer >= 1"),
        (["sprt", "tic_tac_toe", "--max-games", HUGE], "max games must be at most 250,000"),
        (["arena", "tic_tac_toe", "--main-time", "1e9"], "main time must be a positive"),
        (["arena", "tic_tac_toe", "--time-per-move", "1e7"], "time per move must be a positive"),
        (["sprt", "tic_tac_toe", "--workers", "100000"], "workers must be at most"),
        (["selfplay", "tic_tac_toe", "--games", HUGE], "--games must be at most 250,000"),
        (["selfplay", "tic_tac_toe", "--workers", HUGE], "--workers must be at most"),
    ],
)
def test_absurd_arena_sizes_are_one_error_line(
    tmp_path: Path, args: list[str], message: str
) -> None:
    """10**30 games (which would build a schedule no memory holds), 10**30 workers (a
    traceback before): one error line, nothing played, no store written."""
    db = tmp_path / "r.db"
    extra = (
        ["--player", "mcts:iterations=10", "--out", str(tmp_path / "s.npz")]
        if args[0] == "selfplay"
        else ["--player", "a=random", "--player", "b=random", "--db", str(db)]
    )
    line = assert_user_error(invoke(*args, *extra, "--no-progress"))
    assert message in line, line
    assert not db.exists()


def test_workers_beyond_the_games_start_no_more_processes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--workers 8 for a 2-game arena: a pool of 2 processes, not 8 (a fork pool starts
    all its workers at once)."""
    import concurrent.futures

    from mctslab.arena import tournament

    monkeypatch.setattr(tournament, "default_workers", lambda: 2)
    sizes: list[int] = []
    real = concurrent.futures.ProcessPoolExecutor

    class Counting(real):  # type: ignore[misc, valid-type]
        def __init__(self, max_workers: int, **kwargs: object) -> None:
            sizes.append(max_workers)
            super().__init__(max_workers=max_workers, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(tournament, "ProcessPoolExecutor", Counting)
    done = invoke(
        "arena", "tic_tac_toe", "--player", "a=random", "--player", "b=random", "--games", "2",
        "--workers", "8", "--db", str(tmp_path / "r.db"), "--no-progress",
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    assert sizes == [2]


# 23. Workers die with their parent ----------------------------------------------------------


def _children(pid: int) -> set[int]:
    """The processes whose parent is ``pid`` (from /proc: no dependency)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2 :].split()
            if int(fields[1]) == pid:
                found.add(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    """Running, not a zombie waiting for init to reap it."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def _kill_and_watch_workers(argv: list[str], workers: int, cwd: Path) -> None:
    """Start ``mctslab ARGV``, wait for its ``workers`` worker processes, kill -9 it, and
    assert every child it had is gone (polled with a generous bound, no speed asserted)."""
    import os
    import signal
    import subprocess
    import sys
    import time

    proc = subprocess.Popen(
        [sys.executable, "-m", "mctslab", *argv],
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 300
        children: set[int] = set()
        while len(children) < workers and time.monotonic() < deadline:
            assert proc.poll() is None, "the run ended before its workers started"
            time.sleep(0.2)
            children = _children(proc.pid)
        assert len(children) >= workers, children
        time.sleep(1.0)  # the workers' initializer has run (they are playing)
        children = _children(proc.pid)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    deadline = time.monotonic() + 120
    while any(_alive(c) for c in children) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = [c for c in children if _alive(c)]
    for pid in left:  # do not leave them to the next test
        os.kill(pid, signal.SIGKILL)
    assert not left, f"workers {left} outlived their killed parent"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_arena_workers_exit_when_the_arena_is_killed(tmp_path: Path) -> None:
    _kill_and_watch_workers(
        ["arena", "connect_four", "--player", "a=mcts:iterations=100000", "--player",
         "b=mcts:iterations=100000", "--games", "4", "--workers", "2", "--db",
         str(tmp_path / "r.db"), "--no-progress"],
        2,
        tmp_path,
    )  # fmt: skip


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_train_workers_exit_when_training_is_killed(tmp_path: Path) -> None:
    _kill_and_watch_workers(
        ["train", "tic_tac_toe", "--out", str(tmp_path / "run"), "--workers", "2",
         "--games-per-generation", "100000", "--simulations", "50", "--channels", "4",
         "--blocks", "1", "--hidden", "8", "--eval-games", "0", "--no-progress"],
        2,
        tmp_path,
    )  # fmt: skip


# 24. Tracebacks and hangs become error lines ------------------------------------------------


def _gtp(*lines: str) -> list[str]:
    from mctslab.cli.gtp import GtpEngine

    engine = GtpEngine("mcts", size=5, warm_up=False)
    return [str(engine.handle(line)).strip() for line in lines]


@pytest.mark.parametrize(
    "command",
    [
        "time_settings 1000000 0 0",
        "time_settings 0 1e12 1",
        "time_settings 60 10 1000000",
        "time_left b 1e7 0",
    ],
)
def test_a_gtp_clock_of_a_million_seconds_is_a_syntax_error(command: str) -> None:
    """A clock that would let a move search 1e6 s or more made every genmove
    "? internal error"; now the setting is refused and genmove still plays."""
    answer, move = _gtp(command, "genmove b")[0], _gtp("time_settings 30 0 0", "genmove b")[1]
    assert answer.startswith("? syntax error:") and "internal" not in answer, answer
    assert move.startswith("= ") and len(move) > 2


def test_a_large_clock_still_searches_below_the_search_limit() -> None:
    """The largest accepted clock with STOP's largest time factor plans less than
    MAX_SECONDS (the clock's own cap, which the arena's game clocks share)."""
    from mctslab.cli.gtp import GtpEngine
    from mctslab.search.options import MAX_SECONDS

    engine = GtpEngine("mcts:time_factor=10", size=5, warm_up=False)
    assert engine.handle("time_settings 999999 999999 1").strip() == "="
    config = engine._move_config("b")
    assert config is not None and config.time is not None and config.time < MAX_SECONDS


@pytest.mark.parametrize(
    "command",
    [
        "lz-analyze b " + "9" * 5000,
        "lz-analyze b interval " + "9" * 400,
        "lz-analyze minmoves 10" + "0" * 30,
    ],
)
def test_a_huge_lz_analyze_number_is_a_syntax_error(command: str) -> None:
    [answer] = _gtp(command)
    assert answer.startswith("? syntax error: lz-analyze:") and "must be at most" in answer, answer


def test_a_deeply_nested_sgf_is_read_not_a_recursion_error(tmp_path: Path) -> None:
    """Every move a variation of the last, 5,000 deep: loadsgf reads its main line (a
    load error where its moves do not alternate), never "internal error"."""
    moves = [f";{'BW'[i % 2]}[{'abcde'[i % 5]}{'abcde'[i // 5 % 5]}]" for i in range(5000)]
    deep = tmp_path / "deep.sgf"
    deep.write_text("(;GM[1]SZ[5]" + "".join(f"({m}" for m in moves) + ")" * 5000 + ")")
    [answer] = _gtp(f"loadsgf {deep}")
    assert answer.startswith("? cannot load file: sgf:"), answer
    ok = tmp_path / "ok.sgf"
    ok.write_text("(;GM[1]SZ[5]" + "(;B[aa](;W[bb](;B[cc])(;B[dd]))(;W[ee]))" * 1 + ")")
    from mctslab.games.go.sgf import read_sgf

    assert read_sgf(ok.read_text()).actions == (20, 16, 12)  # aa bb cc: each first variation
    cut = tmp_path / "cut.sgf"
    cut.write_text("(;GM[1]SZ[5]" + "(;B[aa]" * 3000)
    [answer] = _gtp(f"loadsgf {cut}")
    assert answer.startswith("? cannot load file: sgf: expected ')'"), answer


def test_a_full_disk_while_a_resumed_run_saves_its_checkpoint_is_one_error_line(
    run_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PyTorch reports a write cut short by a full disk as a RuntimeError (measured on a
    full tmpfs: "enforce fail at inline_container.cc ... unexpected pos"): one error line,
    the run intact at generation 1, and it resumes."""
    from mctslab.nn import checkpoint

    real = checkpoint.torch.save

    def save(obj: object, f: object, *args: object, **kwargs: object) -> None:
        if isinstance(obj, dict) and obj.get("meta", {}).get("generation") == 2:
            raise RuntimeError("[enforce fail at inline_container.cc:672] . unexpected pos 1 vs 2")
        real(obj, f, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(checkpoint.torch, "save", save)
    args = ("--resume", "--generations", "2", "--no-progress")
    line = assert_user_error(invoke("train", "tic_tac_toe", "--out", str(run_dir), *args))
    assert "gen-0002" in line and "intact at generation 1" in line, line
    monkeypatch.undo()
    assert load_run(run_dir)[1]["generation"] == 1
    assert not list((run_dir / "checkpoints").glob(".*tmp"))  # no half-written file left
    done = invoke("train", "tic_tac_toe", "--out", str(run_dir), *args)
    assert done.exit_code == 0, done.output
    assert load_run(run_dir)[1]["generation"] == 2


def _unshare_works() -> bool:
    import shutil
    import subprocess

    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(
        ["unshare", "-rm", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"],
        capture_output=True,
    )
    return probe.returncode == 0


@pytest.mark.skipif(not _unshare_works(), reason="needs unshare -rm to mount a small tmpfs")
def test_a_checkpoint_on_a_really_full_disk_is_an_os_error(tmp_path: Path) -> None:
    """On a real 300 KB tmpfs, save_checkpoint fills it and fails with OSError (ENOSPC),
    not PyTorch's RuntimeError, and leaves no temporary file."""
    import subprocess
    import sys

    script = tmp_path / "fill.py"
    script.write_text(
        "import sys\n"
        "from pathlib import Path\n"
        "from mctslab.core.registry import make\n"
        "from mctslab.nn.checkpoint import save_checkpoint\n"
        "from mctslab.nn.networks import make_network\n"
        "g = make('tic_tac_toe')\n"
        "net = make_network(g, channels=16, blocks=2, hidden=32)\n"
        "for i in range(100):\n"
        "    try:\n"
        "        save_checkpoint(f'/mnt/c{i}.pt', net, g)\n"
        "    except BaseException as e:\n"
        "        left = sorted(p.name for p in Path('/mnt').glob('.*'))\n"
        "        print(type(e).__name__, getattr(e, 'errno', None), left)\n"
        "        sys.exit(0)\n"
        "print('never full')\n"
    )
    done = subprocess.run(
        ["unshare", "-rm", "sh", "-c",
         f"mount -t tmpfs -o size=300k tmpfs /mnt && {sys.executable} {script}"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.stdout.strip() == "OSError 28 []", (done.stdout, done.stderr)


def test_lessons_with_a_malformed_notebook_is_an_error_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mctslab.cli import lessons

    (tmp_path / "01_good.ipynb").write_text(
        '{"cells": [{"cell_type": "markdown", "source": ["# Lesson 1: Good"]}]}'
    )
    (tmp_path / "02_bad.ipynb").write_text('{"cells": [')
    (tmp_path / "03_odd.ipynb").write_text('{"cells": [1, 2]}')
    monkeypatch.setattr(lessons, "lessons_folder", lambda: tmp_path)
    done = invoke("lessons")
    line = assert_user_error(done)
    assert "02_bad.ipynb" in line and "03_odd.ipynb" in line
    assert "Lesson 1: Good" in done.stdout and "not a readable notebook" in done.stdout
