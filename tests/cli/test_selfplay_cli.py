"""``mctslab selfplay`` and ``mctslab search --puct``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from test_cli import assert_user_error
from typer.testing import CliRunner, Result

from mctslab.analysis.dataset import FIELDS, read_dataset, read_meta
from mctslab.cli.main import app

runner = CliRunner()
SPEC = "mcts:iterations=20"


def invoke(*args: str) -> Result:
    return runner.invoke(app, list(args))


def selfplay(out: Path, *extra: str, spec: str = SPEC, games: int = 2) -> Result:
    args = ["selfplay", "tic_tac_toe", "--player", spec, "--games", str(games)]
    return invoke(*args, "--out", str(out), "--no-progress", *extra)


# selfplay ------------------------------------------------------------------------------------


def test_selfplay_writes_a_dataset(tmp_path: Path) -> None:
    out = tmp_path / "sp.npz"
    result = selfplay(out, "--seed", "3")
    assert result.exit_code == 0, result.output
    assert f"from 2 games written to {out}" in result.stdout
    arrays = read_dataset(out)
    assert set(arrays) == set(FIELDS)
    assert set(arrays["game"].tolist()) == {0, 1}
    meta = read_meta(out)
    assert (meta["game"], meta["player"], meta["seed"], meta["games"]) == (
        "tic_tac_toe",
        SPEC,
        3,
        2,
    )


def test_selfplay_same_seed_same_file_whatever_the_workers(tmp_path: Path) -> None:
    paths = [tmp_path / "a.npz", tmp_path / "b.npz", tmp_path / "c.npz"]
    for path, workers in zip(paths, ("1", "1", "2"), strict=True):
        result = selfplay(path, "--seed", "5", "--workers", workers, spec="puct:simulations=16")
        assert result.exit_code == 0, result.output
    first = read_dataset(paths[0])
    for path in paths[1:]:
        other = read_dataset(path)
        for name in FIELDS:
            np.testing.assert_array_equal(other[name], first[name])


def test_selfplay_max_moves_cuts_games_short(tmp_path: Path) -> None:
    out = tmp_path / "sp.npz"
    result = selfplay(out, "--max-moves", "3")
    assert result.exit_code == 0, result.output
    assert "(2 cut short by --max-moves)" in result.stdout
    assert read_dataset(out)["ply"].tolist() == [0, 1, 2, 0, 1, 2]


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (("--game", "no_such_game"), "unknown game 'no_such_game'"),
        (("--player", "random"), "'random' is a random player: use mcts:... or puct:..."),
        (("--player", "puct:foo=1"), "unknown puct option 'foo'"),
        (("--games", "0"), "--games must be a positive integer, got 0"),
        (("--workers", "0"), "--workers must be a positive integer, got 0"),
        (("--max-moves", "0"), "--max-moves must be a positive integer, got 0"),
        (("--out", "sp.parquet"), "parquet is not supported; write a .npz file"),
        (("--out", "sp.csv"), "a dataset is a .npz file"),
        (("--game", "pig"), "pig has no observation tensors"),
        (("--game", "kuhn_poker"), "kuhn_poker has no observation tensors"),
        (("--out", "missing/sp.npz"), "no such directory"),
    ],
)
def test_selfplay_bad_input_is_one_line_and_writes_nothing(
    tmp_path: Path, args: tuple[str, str], fragment: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    options = {"--game": "tic_tac_toe", "--player": SPEC, "--games": "2", "--out": "sp.npz"}
    options[args[0]] = args[1]
    game = options.pop("--game")
    flat = [item for pair in options.items() for item in pair]
    line = assert_user_error(invoke("selfplay", game, *flat, "--no-progress"))
    assert fragment in line
    assert list(tmp_path.iterdir()) == []


# search --puct -------------------------------------------------------------------------------


def test_search_puct_table_has_a_prior_column() -> None:
    result = invoke("search", "tic_tac_toe", "--moves", "4", "--puct", "--iterations", "100")
    assert result.exit_code == 0, result.output
    assert "prior" in result.stdout and "0.125" in result.stdout
    assert "100 iterations" in result.stdout
    uct = invoke("search", "tic_tac_toe", "--moves", "4", "--iterations", "100")
    assert uct.exit_code == 0 and "prior" not in uct.stdout


def test_search_puct_json_carries_priors_and_the_options() -> None:
    args = ["search", "tic_tac_toe", "--puct", "--iterations", "200", "--json"]
    args += ["--evaluator", "heuristic", "--fpu", "0.5", "--noise", "0.25", "--batch", "2"]
    result = invoke(*args, "c=2", "alpha=0.5")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["iterations"] == 200
    priors = [child["prior"] for child in data["children"]]
    assert all(isinstance(p, float) for p in priors) and sum(priors) == pytest.approx(1.0)
    uct = json.loads(invoke("search", "tic_tac_toe", "--iterations", "50", "--json").stdout)
    assert all(child["prior"] is None for child in uct["children"])


def test_search_puct_temperature_samples_by_visits() -> None:
    args = ["search", "tic_tac_toe", "--puct", "--iterations", "50", "--json", "--temperature"]
    actions = {json.loads(invoke(*args, "1", "--seed", str(s)).stdout)["action"] for s in range(8)}
    assert len(actions) > 1


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (("--fpu", "0.5"), "--fpu: a PUCT option; add --puct"),
        (("--evaluator", "uniform", "--batch", "2"), "--evaluator, --batch: PUCT options"),
        (("--puct", "--fpu", "2"), "puct config: fpu must be in [0, 1], got 2.0"),
        (("--puct", "--evaluator", "net"), "unknown evaluator 'net'; valid evaluators:"),
        (("--puct", "--temperature", "-1"), "temperature must be in [0, 100]"),
        (("--puct", "--noise", "1.5"), "noise_fraction must be in [0, 1]"),
        (("--puct", "--batch", "0"), "batch must be an integer in [1, 4096]"),
        (("--puct", "expansion=all"), "unknown puct option 'expansion'; valid options:"),
        (("--puct", "c=-1"), "c must be a finite number >= 0"),
    ],
)
def test_search_puct_bad_values_are_one_line(args: tuple[str, ...], fragment: str) -> None:
    line = assert_user_error(invoke("search", "tic_tac_toe", *args))
    assert fragment in line
