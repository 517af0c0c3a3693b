"""The run directory (issue 28): a resumed run keeps its stored options unless the
command line gives them again; a run directory is data (no file outside it is read or
deleted, no program it names is started); bad input (a folder that is not a run, absurd
sizes, a read-only or full disk, corrupt files) is one ``error:`` line and loses
nothing; the evaluation's games are distinct and an ``--out`` with a comma works."""

from __future__ import annotations

import errno
import json
import os
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner, Result

from conftest import require_extra

torch = require_extra("torch", "nn")

from mctslab.arena.game_task import derive_seed  # noqa: E402
from mctslab.arena.store import GameRecord, ResultStore  # noqa: E402
from mctslab.cli.main import app  # noqa: E402
from mctslab.core.registry import make  # noqa: E402
from mctslab.train import TrainConfig, TrainError, load_run, loop, train  # noqa: E402
from mctslab.train.buffer import ReplayBuffer  # noqa: E402

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
    "--games-per-generation", "2", "--simulations", "4", "--channels", "4", "--blocks",
    "1", "--hidden", "8", "--eval-games", "0", "--no-progress",
)  # fmt: skip
runner = CliRunner()


def hashes(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def invoke(*args: str) -> Result:
    return runner.invoke(app, list(args))


def assert_user_error(result: Result) -> str:
    """Exit 2, one ``error:`` line, the last on stderr (after the run's header line where
    the run had started), no traceback."""
    assert result.exit_code == 2, (result.stdout, result.stderr, result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.stderr.splitlines()
    assert [line for line in lines if line.startswith("error: ")] == lines[-1:], result.stderr
    # The header line may wrap (rich's width depends on the terminal, or xdist's none).
    assert "Traceback" not in result.output, result.stderr
    return lines[-1]


def assert_ok(result: Result) -> None:
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)


@pytest.fixture(scope="module")
def base_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished tiny run of one generation, with stored options that differ from the
    defaults (copied by the tests that use it)."""
    out = tmp_path_factory.mktemp("base") / "run"
    train(replace(TINY, minutes=50.0, threads=1, device="cpu"), out)
    return out


@pytest.fixture
def run_dir(base_run: Path, tmp_path: Path) -> Path:
    out = tmp_path / "run"
    shutil.copytree(base_run, out)
    return out


class Started(Exception):
    """Raised at the "start" event to see the config a resumed run would run with."""


def started_config(out: Path, asked: TrainConfig, given: set[str]) -> TrainConfig:
    seen: list[TrainConfig] = []

    def on_event(kind: str, payload: dict[str, Any]) -> None:
        if kind == "start":
            seen.append(payload["config"])
            raise Started

    with pytest.raises(Started):
        train(asked, out, resume=True, given=given, on_event=on_event)
    return seen[0]


# 2. A resumed run keeps its stored options ----------------------------------------------------

STORED: dict[str, Any] = {
    "generations": 1,
    "minutes": 50.0,
    "workers": 1,
    "threads": 1,
    "device": "cpu",
}
LEFT_OUT: dict[str, Any] = {
    "generations": 10,
    "minutes": None,
    "workers": 3,
    "threads": None,
    "device": "auto",
}
GIVEN: dict[str, Any] = {
    "generations": 4,
    "minutes": 7.0,
    "workers": 2,
    "threads": 2,
    "device": "auto",
}


@pytest.mark.parametrize("option", sorted(STORED))
def test_a_resumable_option_left_out_keeps_the_stored_value(run_dir: Path, option: str) -> None:
    """Resuming with none of the resumable options given runs with the stored values,
    not the values of the config passed (the command line's defaults)."""
    config = started_config(run_dir, replace(TINY, **LEFT_OUT), given=set())
    assert getattr(config, option) == STORED[option]


@pytest.mark.parametrize("option", sorted(GIVEN))
def test_a_resumable_option_given_overrides_the_stored_value(run_dir: Path, option: str) -> None:
    """A resumable option given on this command line wins; the others keep theirs."""
    config = started_config(run_dir, replace(TINY, **{option: GIVEN[option]}), given={option})
    assert getattr(config, option) == GIVEN[option]
    for other in set(STORED) - {option}:
        assert getattr(config, other) == STORED[other]


def test_cli_resume_without_generations_keeps_the_stored_budget(run_dir: Path) -> None:
    """A run stored with --generations 1 resumed without --generations stops at once
    (it trained to 10 before); with --generations 2 it trains one more."""
    before = hashes(run_dir)
    result = invoke("train", "tic_tac_toe", "--out", str(run_dir), "--resume", "--no-progress")
    assert_ok(result)
    assert "1 generations in" in result.stdout
    assert load_run(run_dir)[1]["generation"] == 1
    assert hashes(run_dir) == before
    args = ("--resume", "--generations", "2", "--no-progress")
    assert_ok(invoke("train", "tic_tac_toe", "--out", str(run_dir), *args))
    assert load_run(run_dir)[1]["generation"] == 2


def test_a_resume_continues_to_the_generations_it_was_last_given(run_dir: Path) -> None:
    """Resumed with --generations 3 and stopped after generation 2 (Ctrl-C), a resume
    without --generations continues to 3: not to run.json's 1 (stops at once), nor 10."""

    def stop_after_2(kind: str, payload: dict[str, Any]) -> None:
        if kind == "generation" and payload["record"]["generation"] == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        train(replace(TINY, generations=3), run_dir, resume=True, given={"generations"},
              on_event=stop_after_2)  # fmt: skip
    assert load_run(run_dir)[1]["generation"] == 2
    result = invoke("train", "tic_tac_toe", "--out", str(run_dir), "--resume", "--no-progress")
    assert_ok(result)
    assert load_run(run_dir)[1]["generation"] == 3


# 7. A run directory is data -----------------------------------------------------------------


def edit_json(path: Path, change: Any) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def resume_refused(run_dir: Path) -> str:
    """``mctslab train tic_tac_toe --out RUN --resume --generations 2``, which must
    refuse with one ``error:`` line: that line."""
    args = ("--out", str(run_dir), "--resume", "--generations", "2", "--no-progress")
    return assert_user_error(invoke("train", "tic_tac_toe", *args))


def plant_baseline_and_resume(run_dir: Path, spec: str, refusal: str) -> dict[str, bytes]:
    """Edit run.json to name the baseline ``spec`` (one evaluation game), check that
    ``train(resume=True)`` refuses with ``refusal`` in its message, and return the
    run's file hashes as they were before the attempt."""

    def plant(run: dict[str, Any]) -> None:
        run["config"]["baselines"] = [["x", spec]]
        run["config"]["eval_games"] = 1

    edit_json(run_dir / "run.json", plant)
    before = hashes(run_dir)
    with pytest.raises(TrainError, match=refusal):
        train(replace(TINY, generations=2), run_dir, resume=True, given={"generations"})
    return before


def test_a_gtp_baseline_in_run_json_is_not_started_on_resume(run_dir: Path, tmp_path: Path) -> None:
    """run.json edited to name a gtp: baseline that creates a marker file: --resume
    refuses with one error: line saying to give --baseline again; the program never
    runs, no file of the run changes."""
    marker = tmp_path / "marker"
    spec = f"gtp:/bin/sh -c 'touch {marker}'"
    before = plant_baseline_and_resume(run_dir, spec, refusal="--baseline")
    line = resume_refused(run_dir)
    assert "--baseline" in line and "program" in line
    assert not marker.exists()
    assert hashes(run_dir) == before
    # Given again on the command line, the same baseline is the user's choice.
    asked = replace(TINY, baselines=(("x", spec),), eval_games=1)
    config = started_config(run_dir, asked, given={"baselines"})
    assert config.baselines == (("x", spec),)
    assert not marker.exists()


def test_a_model_path_baseline_in_run_json_is_not_loaded_on_resume(
    run_dir: Path, tmp_path: Path
) -> None:
    """run.json edited to name an az: baseline whose network file lies outside the run:
    --resume refuses before training or loading anything; given again on the command line
    it is the user's choice; a shipped network's name is no file and passes."""
    outside = tmp_path / "net.pt"
    outside.write_bytes(b"not a checkpoint")
    spec = f"az:model={outside},simulations=2"
    assert plant_baseline_and_resume(run_dir, spec, refusal="reads a file") == hashes(run_dir)
    asked = replace(TINY, baselines=(("x", spec),), eval_games=1)
    assert started_config(run_dir, asked, given={"baselines"}).baselines == (("x", spec),)
    shipped = "az:model=tic_tac_toe,simulations=2"
    edit_json(run_dir / "run.json", lambda run: run["config"].update(baselines=[["x", shipped]]))
    assert started_config(run_dir, TINY, given=set()).baselines == (("x", shipped),)


def _outside_buffer(run_dir: Path, tmp_path: Path) -> tuple[str, Path]:
    outside = tmp_path / "elsewhere" / "x.npz"
    outside.parent.mkdir()
    shutil.copy(run_dir / "buffer-0001.npz", outside)
    return os.path.relpath(outside, run_dir), outside


@pytest.mark.parametrize("how", ["dotdot", "absolute", "symlink"])
@pytest.mark.parametrize("which", ["buffer", "optimizer", "network"])
def test_a_file_named_outside_the_run_is_neither_read_nor_deleted(
    run_dir: Path, tmp_path: Path, how: str, which: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """state.json naming a file outside the run (../../elsewhere/x, an absolute path, a
    symlink leading out): --resume refuses before reading it; the outside file is still
    there, unchanged (a resume used to load it and delete it at the next commit)."""
    state = load_run(run_dir)[1]
    inside = run_dir / state["files"][which]
    outside = tmp_path / "elsewhere" / inside.name
    outside.parent.mkdir()
    shutil.copy(inside, outside)
    secret = outside.read_bytes()
    if how == "dotdot":
        name = os.path.relpath(outside, run_dir)
    elif how == "absolute":
        name = str(outside)
    else:
        name = "link" + inside.suffix
        (run_dir / name).symlink_to(outside)
    edit_json(run_dir / "state.json", lambda s: s["files"].__setitem__(which, name))
    before = hashes(run_dir)
    reads: list[Path] = []

    def spy(real: Any) -> Any:
        def load(path: Any, *args: Any, **kwargs: Any) -> Any:
            reads.append(Path(path))
            return real(path, *args, **kwargs)

        return load

    monkeypatch.setattr(np, "load", spy(np.load))
    monkeypatch.setattr(torch, "load", spy(torch.load))
    with pytest.raises(TrainError, match="outside the run directory"):
        train(replace(TINY, generations=2), run_dir, resume=True, given={"generations"})
    monkeypatch.undo()
    assert all(p.resolve() != outside for p in reads)  # refused before any load
    line = resume_refused(run_dir)
    assert "outside the run directory" in line
    assert outside.read_bytes() == secret
    assert hashes(run_dir) == before


def test_a_results_store_linked_outside_is_refused(run_dir: Path, tmp_path: Path) -> None:
    """results.sqlite or checkpoints/ as a symlink leading out: refused, nothing written there."""
    target = tmp_path / "elsewhere"
    target.mkdir()
    (run_dir / "results.sqlite").symlink_to(target / "db.sqlite")
    with pytest.raises(TrainError, match="outside the run directory"):
        train(replace(TINY, generations=2), run_dir, resume=True, given={"generations"})
    assert list(target.iterdir()) == []


# 11. Bad input is one error: line and loses nothing ------------------------------------------


def test_a_new_run_in_a_folder_that_is_not_a_run_is_refused(tmp_path: Path) -> None:
    """--out naming a non-empty folder without a run: refused; its metrics.csv and
    training.png are not overwritten. An empty folder is fine."""
    out = tmp_path / "mine"
    out.mkdir()
    (out / "metrics.csv").write_text("precious\n")
    (out / "training.png").write_bytes(b"mine")
    before = hashes(out)
    with pytest.raises(TrainError, match="not a training run"):
        train(TINY, out)
    line = assert_user_error(invoke("train", "tic_tac_toe", "--out", str(out), *TINY_ARGS))
    assert "not a training run" in line
    assert hashes(out) == before
    empty = tmp_path / "empty"
    empty.mkdir()
    assert train(TINY, empty).generation == 1


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--batch-size", "1000000000"),
        ("--batch-size", "1e9"),
        ("--parallel-games", "1000000000"),
        ("--buffer", "1000000000000"),
        ("--simulations", "1000000000000"),
        ("--games-per-generation", "1000000000000"),
        ("--eval-games", "1000000000"),
        ("--eval-openings", "1000000000"),
    ],
)
def test_absurd_sizes_are_one_error_line(tmp_path: Path, option: str, value: str) -> None:
    """An absurd count is refused before anything is allocated or written."""
    out = tmp_path / "run"
    line = assert_user_error(invoke("train", "tic_tac_toe", "--out", str(out), option, value))
    assert option.lstrip("-").split("-")[0] in line.replace("_", "-")
    assert not out.exists()


def test_an_out_that_cannot_be_created_is_one_error_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--out under a regular file, or in a folder we may not write (the refusal raised by
    mkdir itself: root may write in any folder), is one error: line, nothing made."""
    blocker = tmp_path / "file"
    blocker.write_text("x")
    line = assert_user_error(
        invoke("train", "tic_tac_toe", "--out", str(blocker / "run"), *TINY_ARGS)
    )
    assert "not a directory" in line
    assert blocker.read_text() == "x"
    readonly = tmp_path / "ro"
    readonly.mkdir()
    real_mkdir = Path.mkdir

    def refused(self: Path, *args: Any, **kwargs: Any) -> None:
        if readonly in self.parents:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(self))
        real_mkdir(self, *args, **kwargs)

    monkeypatch.setattr(Path, "mkdir", refused)
    line = assert_user_error(
        invoke("train", "tic_tac_toe", "--out", str(readonly / "run"), *TINY_ARGS)
    )
    assert "cannot write" in line or "Permission denied" in line
    assert list(readonly.iterdir()) == []


def _full_disk(*args: Any, **kwargs: Any) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), "state.json")


@pytest.mark.parametrize("where", ["buffer", "state"])
def test_a_full_disk_keeps_the_run_at_its_last_generation(
    run_dir: Path, where: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ENOSPC while committing generation 2 (the buffer, or state.json): one error: line
    saying the run is at generation 1; state.json and the files it names are intact, and
    a later --resume trains generation 2."""
    if where == "buffer":
        monkeypatch.setattr(ReplayBuffer, "save", _full_disk)
    else:
        real = loop._write_json
        monkeypatch.setattr(
            loop, "_write_json", lambda p, o: _full_disk() if p.name == "state.json" else real(p, o)
        )
    args = ("--resume", "--generations", "2", "--no-progress")
    line = assert_user_error(invoke("train", "tic_tac_toe", "--out", str(run_dir), *args))
    assert "No space left" in line and "generation 1" in line
    monkeypatch.undo()
    state = load_run(run_dir)[1]
    assert state["generation"] == 1
    for name in state["files"].values():
        assert (run_dir / name).is_file()
    assert_ok(invoke("train", "tic_tac_toe", "--out", str(run_dir), *args))
    assert load_run(run_dir)[1]["generation"] == 2


def test_a_full_disk_at_the_start_leaves_no_half_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ENOSPC before generation 0 is committed: one error: line, no directory left that
    a rerun would refuse."""
    monkeypatch.setattr(ReplayBuffer, "save", _full_disk)
    out = tmp_path / "run"
    line = assert_user_error(invoke("train", "tic_tac_toe", "--out", str(out), *TINY_ARGS))
    assert "No space left" in line
    assert not out.exists()
    monkeypatch.undo()
    assert_ok(invoke("train", "tic_tac_toe", "--out", str(out), *TINY_ARGS))


def _junk(path: Path) -> None:
    path.write_bytes(np.random.default_rng(0).bytes(1500))


def _wrong_shapes(path: Path) -> None:
    np.savez(path, observation=np.zeros((3, 5)), legal_mask=np.zeros((3, 9), bool),
             policy=np.zeros((3, 9)), value=np.zeros(3))  # fmt: skip


@pytest.mark.parametrize(
    ("which", "spoil"),
    [("optimizer", _junk), ("buffer", _junk), ("buffer", _wrong_shapes), ("network", _junk)],
)
def test_a_corrupt_file_on_resume_is_one_error_line(run_dir: Path, which: str, spoil: Any) -> None:
    """A corrupt optimizer, buffer (or one of another game's shapes) or network file:
    --resume says which file, exit 2, and changes nothing."""
    name = load_run(run_dir)[1]["files"][which]
    spoil(run_dir / name)
    before = hashes(run_dir)
    args = ("--resume", "--generations", "2", "--no-progress")
    line = assert_user_error(invoke("train", "tic_tac_toe", "--out", str(run_dir), *args))
    assert Path(name).name in line
    assert hashes(run_dir) == before


# 4. The evaluation's games are distinct; 11. an --out with a comma -----------------------------


@pytest.fixture(scope="module")
def evaluated_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, TrainConfig]:
    """One generation evaluated with 10 games against the previous generation and a
    baseline, in a directory whose path holds a comma."""
    out = tmp_path_factory.mktemp("eval") / "a,b" / "run"
    config = replace(
        TINY, eval_games=10, eval_simulations=4, baselines=(("uct", "mcts:iterations=20"),)
    )
    train(config, out)
    return out, config


def test_the_evaluation_games_are_pairwise_distinct(
    evaluated_run: tuple[Path, TrainConfig],
) -> None:
    """Each opponent's 10 games are 10 distinct move sequences (colour-swapped pairs
    used to share an opening and, between deterministic players, replay one game); each
    game has the opening planned for it; the scores count 10 games."""
    out, config = evaluated_run
    state = load_run(out)[1]
    record = state["history"][-1]
    game = make("tic_tac_toe")
    assert len(record["eval_runs"]) == 2
    with ResultStore(out / "results.sqlite") as store:
        for run_id in record["eval_runs"]:
            games = list(store.games([run_id]))
            assert len(games) == config.eval_games
            assert len({g.moves for g in games}) == len(games)
            assert all(g.termination == "normal" for g in games), [g.error for g in games]
            name = next(s for s in games[0].seats if s != "gen-0001")
            seeds = loop.opening_seeds(
                game, config.eval_openings, len(games), derive_seed(config.seed, "eval", 1, name)
            )
            for g in games:
                assert g.opening == loop.arena_opening(game, config.eval_openings, seeds[g.slot])
    for score in record["scores"].values():
        assert score["games"] == score["played"] == config.eval_games


def test_an_out_path_with_a_comma_evaluates(evaluated_run: tuple[Path, TrainConfig]) -> None:
    """--out .../a,b/run: the network's az:model= spec quotes the path; every evaluation
    game is played (no player error) and scored."""
    out, _ = evaluated_run
    assert "," in str(out)
    record = load_run(out)[1]["history"][-1]
    assert set(record["scores"]) == {"gen-0000", "uct"}
    assert all(0 <= s["score"] <= 1 for s in record["scores"].values())


def test_opening_seeds_give_distinct_openings_where_the_game_has_them() -> None:
    game = make("tic_tac_toe")
    openings = [loop.arena_opening(game, 2, s) for s in loop.opening_seeds(game, 2, 40, 7)]
    assert len(set(openings)) == 40
    # One ply has only 9 openings: 12 games cannot all differ; every opening is used.
    openings = [loop.arena_opening(game, 1, s) for s in loop.opening_seeds(game, 1, 12, 7)]
    assert len(set(openings)) == 9


def _record(slot: int, moves: tuple[int, ...], score: float) -> GameRecord:
    seats = ("a", "b") if slot % 2 == 0 else ("b", "a")
    return GameRecord(slot, seats, 0, (), moves, (score, 1 - score), score)


def test_repeated_games_count_once_in_the_intervals() -> None:
    """Games repeating an earlier game's moves are left out of the scores and ratings:
    the Wilson interval is that of the distinct games."""
    records = [_record(0, (0, 1), 1.0), _record(1, (0, 1), 1.0), _record(2, (2, 1), 0.0)]
    assert [r.slot for r in loop.distinct_games(records)] == [0, 2]
