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
    done = invoke("export-model", str(run_dir), "--out", str(tmp_path / "net.pt"))
    assert done.exit_code == 0, done.output
    assert (tmp_path / "net.pt").is_file() and (tmp_path / "net.json").is_file()
