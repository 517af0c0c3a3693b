"""Training's refusals (:func:`mctslab.train.train`, ``mctslab train``): a run directory
that cannot be used as asked is refused with :class:`TrainError` before anything is
written; a resumed run keeps its game and options but may change its budget; a
dataset pretrains a new run; bad options are :class:`InvalidConfigError`."""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner, Result

from conftest import require_extra

require_extra("torch", "nn")

from mctslab.analysis.dataset import read_meta, record_selfplay, write_dataset  # noqa: E402
from mctslab.cli.main import app  # noqa: E402
from mctslab.core.errors import InvalidConfigError  # noqa: E402
from mctslab.train import TrainConfig, TrainError, load_run, train  # noqa: E402

TINY = TrainConfig(
    game="tic_tac_toe",
    generations=1,
    games_per_generation=2,
    simulations=4,
    channels=4,
    blocks=1,
    hidden=8,
    eval_games=0,
)
TINY_ARGS = (
    "--generations", "1", "--games-per-generation", "2", "--simulations", "4",
    "--channels", "4", "--blocks", "1", "--hidden", "8", "--eval-games", "0", "--no-progress",
)  # fmt: skip
runner = CliRunner()


def hashes(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` (relative path -> SHA-256)."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="module")
def base_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One finished tiny tic-tac-toe run of one generation (copied by the tests that use it)."""
    out = tmp_path_factory.mktemp("base") / "run"
    result = train(TINY, out)
    assert result.generation == 1
    return out


@pytest.fixture
def run_dir(base_run: Path, tmp_path: Path) -> Path:
    out = tmp_path / "run"
    shutil.copytree(base_run, out)
    return out


def dataset(path: Path, game: str) -> Path:
    recorded = record_selfplay(game, "mcts:iterations=10", 1, seed=1)
    return write_dataset(path, recorded.arrays, recorded.meta)


# The run directory ---------------------------------------------------------------------------


def test_a_new_run_over_an_existing_run_is_refused(run_dir: Path) -> None:
    """train() without resume in a directory that holds a run: TrainError saying to use
    --resume; every file unchanged."""
    before = hashes(run_dir)
    with pytest.raises(TrainError, match="already holds a training run"):
        train(TINY, run_dir)
    with pytest.raises(TrainError, match="--resume"):
        train(replace(TINY, seed=3, simulations=8), run_dir)
    assert hashes(run_dir) == before


def test_a_new_run_over_a_half_run_is_refused(run_dir: Path) -> None:
    """A directory with state.json but no run.json (or the reverse) is a run too."""
    (run_dir / "run.json").unlink()
    before = hashes(run_dir)
    with pytest.raises(TrainError):
        train(TINY, run_dir)
    assert hashes(run_dir) == before


def test_resume_without_a_run_is_refused(tmp_path: Path) -> None:
    """--resume in a nonexistent or empty directory, or one with other files: TrainError;
    nothing is created."""
    missing = tmp_path / "missing"
    with pytest.raises(TrainError, match="not a training run"):
        train(TINY, missing, resume=True)
    assert not missing.exists()
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(TrainError, match="not a training run"):
        train(TINY, empty, resume=True)
    assert list(empty.iterdir()) == []
    other = tmp_path / "other"
    other.mkdir()
    (other / "run.json").write_text(json.dumps({"format": ["something", 1]}))
    (other / "state.json").write_text("{}")
    before = hashes(other)
    with pytest.raises(TrainError, match="not a mctslab training run"):
        train(TINY, other, resume=True)
    assert hashes(other) == before


def test_resume_as_another_game_is_refused_naming_both(run_dir: Path) -> None:
    """Resuming a tic_tac_toe run as connect_four: TrainError naming both games; every
    file unchanged."""
    before = hashes(run_dir)
    with pytest.raises(TrainError) as err:
        train(replace(TINY, game="connect_four"), run_dir, resume=True)
    assert "tic_tac_toe" in str(err.value) and "connect_four" in str(err.value)
    assert hashes(run_dir) == before


def test_resume_with_a_changed_option_is_refused_naming_it(run_dir: Path) -> None:
    """Resuming with other simulations (or lr): TrainError naming the option; every file
    unchanged. Options the user did not give are not compared."""
    before = hashes(run_dir)
    with pytest.raises(TrainError, match="simulations"):
        train(replace(TINY, simulations=5), run_dir, resume=True)
    with pytest.raises(TrainError, match="lr"):
        train(replace(TINY, lr=0.01), run_dir, resume=True, given={"lr"})
    assert hashes(run_dir) == before
    # Not given: the stored value is kept and nothing is refused (the run is complete).
    result = train(replace(TINY, simulations=5), run_dir, resume=True, given={"generations"})
    assert result.generation == 1
    assert hashes(run_dir) == before


def test_resume_with_more_generations_continues(run_dir: Path) -> None:
    """Resuming with generations=2 plays generation 2 from the stored run: its checkpoint
    appears, state.json names it, the history keeps generation 1's record."""
    run_before, state_before = load_run(run_dir)
    result = train(replace(TINY, generations=2), run_dir, resume=True)
    assert result.generation == 2
    assert (run_dir / "checkpoints" / "gen-0002.pt").is_file()
    run_after, state_after = load_run(run_dir)
    assert run_after == run_before  # run.json is written once
    assert state_after["generation"] == 2
    assert [h["generation"] for h in state_after["history"]] == [0, 1, 2]
    assert state_after["history"][:2] == state_before["history"]
    assert state_after["files"]["buffer"] == "buffer-0002.npz"
    assert not (run_dir / "buffer-0001.npz").exists()  # the stale buffer is gone
    assert state_after["games"] == state_before["games"] + 2


# Datasets --------------------------------------------------------------------------------------


def test_a_dataset_of_another_game_is_refused(tmp_path: Path) -> None:
    """--from-dataset of a connect_four file for a tic_tac_toe run: TrainError naming both
    games, no file written in --out, the dataset unchanged."""
    data = dataset(tmp_path / "c4.npz", "connect_four")
    data_bytes = data.read_bytes()
    out = tmp_path / "run"
    with pytest.raises(TrainError) as err:
        train(replace(TINY, from_dataset=str(data)), out)
    # One plain sentence: "tic_tac_toe , not" (a blank for the missing parameters) is gone.
    assert str(err.value).endswith("holds games of connect_four, not of tic_tac_toe")
    assert not out.exists() or list(out.rglob("*")) == []
    assert data.read_bytes() == data_bytes


def test_a_file_that_is_no_dataset_is_refused(tmp_path: Path) -> None:
    """--from-dataset of random bytes: TrainError, no file written in --out."""
    junk = tmp_path / "junk.npz"
    junk.write_bytes(np.random.default_rng(0).bytes(2000))
    out = tmp_path / "run"
    with pytest.raises(TrainError, match="not a self-play dataset"):
        train(replace(TINY, from_dataset=str(junk)), out)
    assert not out.exists() or list(out.rglob("*")) == []


def test_a_dataset_of_the_game_pretrains(tmp_path: Path) -> None:
    """A tic_tac_toe dataset: generation 0's record has steps > 0 and the dataset's
    positions; run.json stores the dataset path."""
    data = dataset(tmp_path / "ttt.npz", "tic_tac_toe")
    positions = read_meta(data)["positions"]
    assert positions > 0
    out = tmp_path / "run"
    train(replace(TINY, from_dataset=str(data)), out)
    run, state = load_run(out)
    gen0 = state["history"][0]
    assert gen0["generation"] == 0
    assert gen0["steps"] > 0
    assert gen0["positions"] == positions
    assert np.isfinite(gen0["total_loss"])
    assert run["config"]["from_dataset"] == str(data)


# TrainConfig -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "word"),
    [
        ({"generations": 0}, "generations"),
        ({"games_per_generation": -1}, "games_per_generation"),
        ({"optimizer": "rmsprop"}, "rmsprop"),
        ({"device": "tpu"}, "tpu"),
        ({"lr": 0.0}, "lr"),
        ({"lr": float("nan")}, "lr"),
        ({"network": "transformer"}, "transformer"),
        ({"minutes": -1.0}, "minutes"),
        ({"momentum": 1.0}, "momentum"),
        ({"baselines": (("gen-1", "random"),)}, "baseline"),
    ],
)
def test_train_config_rejects_bad_values(change: dict[str, Any], word: str) -> None:
    """Each bad value: InvalidConfigError (a ValueError) naming the option or value."""
    with pytest.raises(InvalidConfigError, match=word) as err:
        replace(TINY, **change)
    assert isinstance(err.value, ValueError)


def test_train_config_round_trips_through_a_dict() -> None:
    """to_dict / from_dict give the same config (as run.json stores it)."""
    config = replace(TINY, game_params=(("rows", 5),), baselines=(("r", "random"),))
    assert TrainConfig.from_dict(json.loads(json.dumps(config.to_dict()))) == config


# The CLI --------------------------------------------------------------------------------------


def invoke(*args: str) -> Result:
    return runner.invoke(app, list(args))


def assert_user_error(result: Result) -> str:
    """Exit 2, one ``error:`` line on stderr, no traceback."""
    assert result.exit_code == 2, (result.stdout, result.stderr, result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    assert "Traceback" not in result.output
    return lines[0]


def test_cli_train_then_refusals(tmp_path: Path) -> None:
    """mctslab train writes a run (run.json, state.json, metrics.csv, training.png,
    checkpoints/gen-0001.pt); the same command again without --resume, --resume with
    another --simulations, and an unknown game each exit 2 with one error: line and leave
    the files as they were."""
    out = tmp_path / "run"
    result = invoke("train", "tic_tac_toe", "--out", str(out), *TINY_ARGS)
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    for name in ("run.json", "state.json", "metrics.csv", "training.png"):
        assert (out / name).is_file(), name
    assert (out / "checkpoints" / "gen-0001.pt").is_file()
    assert (out / "training.png").read_bytes().startswith(b"\x89PNG")
    assert len((out / "metrics.csv").read_text().splitlines()) == 3  # header, gen 0 and 1
    assert "1 generations in" in result.stdout
    before = hashes(out)

    line = assert_user_error(invoke("train", "tic_tac_toe", "--out", str(out), *TINY_ARGS))
    assert "--resume" in line
    args = list(TINY_ARGS)
    args[args.index("--simulations") + 1] = "5"
    line = assert_user_error(invoke("train", "tic_tac_toe", "--out", str(out), "--resume", *args))
    assert "simulations" in line
    line = assert_user_error(
        invoke("train", "connect_four", "--out", str(out), "--resume", "--no-progress")
    )
    assert "tic_tac_toe" in line and "connect_four" in line
    assert hashes(out) == before

    fresh = tmp_path / "fresh"
    line = assert_user_error(invoke("train", "no_such_game", "--out", str(fresh), *TINY_ARGS))
    assert "no_such_game" in line
    assert not fresh.exists()
    line = assert_user_error(
        invoke("train", "tic_tac_toe", "--out", str(fresh), "--optimizer", "rmsprop")
    )
    assert "rmsprop" in line
    assert not fresh.exists()
