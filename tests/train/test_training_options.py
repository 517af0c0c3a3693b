"""The training options that make a stronger network on a small budget: the value target
mixing the outcome and the search's root value (``value_mix``), the cosine learning-rate
schedule (``lr_schedule``), and a run started from a trained network's weights
(``init``). Each is checked on what it changes, and on what it must not change."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from conftest import require_extra

torch = require_extra("torch", "nn")

from mctslab.cli.main import app  # noqa: E402
from mctslab.core.errors import InvalidConfigError  # noqa: E402
from mctslab.core.registry import make  # noqa: E402
from mctslab.nn.checkpoint import load_checkpoint  # noqa: E402
from mctslab.nn.networks import make_network  # noqa: E402
from mctslab.train import TrainConfig, TrainError, load_run, train  # noqa: E402
from mctslab.train.export import export_model  # noqa: E402
from mctslab.train.learner import learning_rate  # noqa: E402
from mctslab.train.selfplay import SelfPlayOptions, play_games  # noqa: E402

TINY = {"channels": 16, "blocks": 1, "hidden": 32, "eval_games": 0}
RUN = {"generations": 3, "games_per_generation": 4, "simulations": 8, "replay_ratio": 4, **TINY}


def _examples(mix: float) -> dict[str, np.ndarray]:
    game = make("tic_tac_toe")
    net = make_network(game, channels=16, blocks=1, hidden=32, seed=2).eval()
    options = SelfPlayOptions(simulations=16, parallel_games=4, value_mix=mix)
    examples, _ = play_games(net, game, [11, 12, 13, 14], options)
    return examples


def test_the_value_target_mixes_outcome_and_root_value_and_changes_nothing_else() -> None:
    """The mix changes the value column only (the same games and visit targets), and
    linearly: the target at 0.5 is the mean of the targets at 0 (the outcome: -1, 0 or
    1) and at 1 (the root value, which is not only -1, 0, 1)."""
    torch.set_num_threads(1)
    z, half, q = (_examples(m) for m in (0.0, 0.5, 1.0))
    for key in ("observation", "policy", "legal_mask", "game", "ply"):
        np.testing.assert_array_equal(z[key], q[key])
    assert set(np.unique(z["value"])) <= {-1.0, 0.0, 1.0}
    assert len(set(np.round(q["value"], 6))) > 3  # search values, not outcomes
    assert np.all(np.abs(q["value"]) <= 1.0)
    np.testing.assert_allclose(half["value"], (z["value"] + q["value"]) / 2, atol=1e-6)


def test_the_cosine_schedule_goes_from_lr_to_lr_min() -> None:
    lrs = [learning_rate(0.01, "cosine", 0.001, g, 5) for g in range(1, 6)]
    assert lrs[0] == pytest.approx(0.01) and lrs[-1] == pytest.approx(0.001)
    assert all(a > b for a, b in itertools.pairwise(lrs))
    assert lrs[2] == pytest.approx(0.001 + 0.009 * (1 + math.cos(math.pi / 2)) / 2)
    assert learning_rate(0.01, "constant", 0.001, 4, 5) == 0.01


def test_a_run_trains_each_generation_at_its_scheduled_rate(tmp_path: Path) -> None:
    """The optimizer the run commits carries the last generation's rate: lr_min under
    the cosine schedule, lr under the constant one."""
    torch.set_num_threads(1)
    for schedule, want in (("cosine", 2e-4), ("constant", 2e-3)):
        out = tmp_path / schedule
        train(
            TrainConfig(game="tic_tac_toe", lr=2e-3, lr_min=2e-4, lr_schedule=schedule, **RUN),
            out,
        )
        _, state = load_run(out)
        saved = torch.load(out / state["files"]["optimizer"], weights_only=True)
        assert saved["param_groups"][0]["lr"] == pytest.approx(want)


def test_init_starts_the_run_from_the_networks_weights(tmp_path: Path) -> None:
    torch.set_num_threads(1)
    first = train(TrainConfig(game="tic_tac_toe", **RUN), tmp_path / "first")
    train(
        TrainConfig(game="tic_tac_toe", init=str(first.checkpoint()), seed=9, **RUN),
        tmp_path / "second",
    )
    game = make("tic_tac_toe")
    theirs, _ = load_checkpoint(first.checkpoint(), game)
    start, _ = load_checkpoint(tmp_path / "second/checkpoints/gen-0000.pt", game)
    for (k, a), b in zip(theirs.state_dict().items(), start.state_dict().values(), strict=True):
        assert torch.equal(a, b), k
    # A shipped network by name, of other sizes than the run's: refused, nothing made.
    with pytest.raises(TrainError, match=r"other sizes.*channels 32"):
        train(TrainConfig(game="tic_tac_toe", init="tic_tac_toe", **RUN), tmp_path / "third")
    assert not (tmp_path / "third" / "state.json").exists()
    with pytest.raises(TrainError, match=r"--init nowhere\.pt: unknown model"):
        train(TrainConfig(game="tic_tac_toe", init="nowhere.pt", **RUN), tmp_path / "fourth")
    with pytest.raises(TrainError, match="not for this tic_tac_toe"):
        train(TrainConfig(game="tic_tac_toe", init="connect_four", **RUN), tmp_path / "fifth")


def test_export_after_counts_the_whole_lineage(tmp_path: Path) -> None:
    """A run started with --init exports with --after the first network's card: the card's
    generations, games, positions and time are the two runs' totals, this run's own under
    ``run``, and ``lineage`` names the first network; a card of another network shape is
    refused, nothing written."""
    torch.set_num_threads(1)
    first = train(TrainConfig(game="tic_tac_toe", **RUN), tmp_path / "first")
    export_model(tmp_path / "first", tmp_path / "one.pt")
    train(
        TrainConfig(game="tic_tac_toe", init=str(first.checkpoint()), seed=9, **RUN),
        tmp_path / "second",
    )
    _, card_path = export_model(
        tmp_path / "second", tmp_path / "two.pt", after=tmp_path / "one.json"
    )
    one = json.loads((tmp_path / "one.json").read_text())
    two = json.loads(card_path.read_text())
    for key in ("generations", "games", "positions", "wall_seconds"):
        assert two[key] == pytest.approx(one[key] + two["run"][key])
    assert two["generations"] == 6 and two["run"]["generations"] == 3
    assert [step["name"] for step in two["lineage"]] == ["one"]
    # A third run continues the lineage.
    export_model(tmp_path / "second", tmp_path / "three.pt", after=card_path)
    three = json.loads((tmp_path / "three.json").read_text())
    assert three["generations"] == 9 and [s["name"] for s in three["lineage"]] == ["one", "two"]
    other = dict(one, network={**one["network"], "channels": 99})
    (tmp_path / "other.json").write_text(json.dumps(other))
    with pytest.raises(TrainError, match="another game or network shape"):
        export_model(tmp_path / "second", tmp_path / "four.pt", after=tmp_path / "other.json")
    assert not (tmp_path / "four.pt").exists()
    with pytest.raises(TrainError, match="not a readable model card"):
        export_model(tmp_path / "second", tmp_path / "five.pt", after=tmp_path / "none.json")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"value_mix": 1.5}, "value mix must be in"),
        ({"value_mix": math.nan}, "value mix must be in"),
        ({"lr_schedule": "step"}, "valid: constant, cosine"),
        ({"lr_schedule": "cosine", "lr_min": 0.1}, "must be at most lr"),
        ({"lr_min": -1.0}, "lr_min must be >= 0"),
    ],
)
def test_bad_options_are_refused(options: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidConfigError, match=message):
        TrainConfig(game="tic_tac_toe", **options)  # type: ignore[arg-type]


def test_the_cli_takes_the_options_and_refuses_init_on_resume(tmp_path: Path) -> None:
    args = ["train", "tic_tac_toe", "--out", str(tmp_path / "run"), "--generations", "1",
            "--games-per-generation", "2", "--simulations", "4", "--channels", "16",
            "--blocks", "1", "--hidden", "32", "--eval-games", "0", "--threads", "1",
            "--value-mix", "0.5", "--lr-schedule", "cosine", "--no-progress"]  # fmt: skip
    done = CliRunner().invoke(app, args)
    assert done.exit_code == 0, done.output
    run_json, _ = load_run(tmp_path / "run")
    assert run_json["config"]["value_mix"] == 0.5
    assert run_json["config"]["lr_schedule"] == "cosine"
    again = CliRunner().invoke(app, [*args[:4], "--resume", "--init", "tic_tac_toe"])
    assert again.exit_code == 2
    assert again.stderr.startswith("error: --init starts a run")
