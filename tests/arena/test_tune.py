"""Tuning by tournaments: grids, the paired design, the statistics, the plot and the CLI."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from mctslab.arena.store import ResultStore
from mctslab.arena.tune import (
    TuneConfig,
    format_value,
    parse_grid,
    plot_tune,
    sign_test,
    tune,
    with_option,
)
from mctslab.cli.main import app
from mctslab.core.errors import InvalidConfigError, InvalidSpecError, MctslabError

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
OPPONENT = "mcts:iterations=50"
runner = CliRunner()


# Grids ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "name", "values"),
    [
        ("c=0.25:3.0:0.25", "c", [0.25 * k for k in range(1, 13)]),
        ("c=0.1:0.3:0.1", "c", [0.1, 0.2, 0.3]),  # 0.1 + 2·0.1 > 0.3 in floats: still included
        ("c=0.5:1.2:0.5", "c", [0.5, 1.0]),  # stop not on the grid: not passed
        ("c=1:1:1", "c", [1.0]),
        ("c=0.5,1,2", "c", [0.5, 1.0, 2.0]),
        (" c = 2, 0.5 ", "c", [2.0, 0.5]),  # list order kept
        ("iterations=100:1000:300", "iterations", [100, 400, 700, 1000]),
        ("iterations=10,1e3", "iterations", [10, 1000]),
        ("cutoff_depth=2:6:2", "cutoff_depth", [2, 4, 6]),
    ],
)
def test_parse_grid(text: str, name: str, values: list[float]) -> None:
    got_name, got = parse_grid(text)
    assert got_name == name
    assert got == values
    integer = name in ("iterations", "cutoff_depth")
    assert all(isinstance(v, int) if integer else isinstance(v, float) for v in got)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("c", "write name="),
        ("=1,2", "write name="),
        ("1c=1,2", "write name="),
        ("c=", "empty value"),
        ("c=1,,2", "empty value"),
        ("c=1:2", "start:stop:step"),
        ("c=1:2:3:4", "start:stop:step"),
        ("c=1::0.5", "start:stop:step"),
        ("c=0:1:-0.25", "step must be positive"),
        ("c=0:1:0", "step must be positive"),
        ("c=2:1:0.5", "empty range"),
        ("c=a,b", "not a number"),
        ("c=nan,1", "not a finite number"),
        ("c=1,1.0", "given twice"),
        ("iterations=1.5,2", "takes integers"),
        ("iterations=1:10:0.5", "takes integers"),
        ("c=0:1:0.0001", "more than"),
    ],
)
def test_parse_grid_errors_are_one_line(text: str, fragment: str) -> None:
    with pytest.raises(InvalidConfigError, match=fragment) as info:
        parse_grid(text)
    assert "\n" not in str(info.value)


def test_with_option_replaces_the_option_and_its_aliases() -> None:
    assert with_option("mcts", "c", 0.5) == "mcts:c=0.5"
    assert with_option("mcts:iterations=500,c=1.4", "c", 2.0) == "mcts:iterations=500,c=2.0"
    assert with_option("mcts:n=5,c=1", "iterations", 300) == "mcts:iterations=300,c=1"
    assert with_option("minimax", "depth", 3) == "minimax:depth=3"
    assert format_value(200) == "200" and format_value(1e-5) == "1e-05"


def test_sign_test_is_the_exact_binomial() -> None:
    assert sign_test(0, 0) == 1.0
    assert sign_test(6, 0) == pytest.approx(2 / 64)
    assert sign_test(1, 5) == pytest.approx(2 * 7 / 64)
    assert sign_test(3, 3) == 1.0


# Tuning --------------------------------------------------------------------------------------


def test_tune_against_an_opponent_finds_that_more_iterations_score_higher(tmp_path: Path) -> None:
    with ResultStore(tmp_path / "r.db") as store:
        result = tune(
            "tic_tac_toe", "iterations", [5, 200], opponent=OPPONENT, games=10, store=store
        )
        runs = store.runs()
        stored = list(store.games([result.run_id]))
    weak, strong = result.values
    assert strong.score > weak.score
    assert result.best is strong and result.runner_up is weak
    assert strong.p_best > 0.5 and sum(v.p_best for v in result.values) == pytest.approx(1.0)
    for v in result.values:
        assert v.games == v.wins + v.draws + v.losses == 10
        assert v.low <= v.score <= v.high
        assert v.elo is not None and v.elo_low is not None and v.elo_high is not None
        assert v.elo_low <= v.elo <= v.elo_high
    assert result.margin is not None and result.margin[0] == pytest.approx(
        strong.score - weak.score
    )
    assert result.p_value is not None and 0 < result.p_value <= 1
    assert "best iterations=200" in result.verdict()
    # one run of kind "tune" holds every game; each value meets the opponent with both colours
    assert [(r.kind, r.played) for r in runs] == [("tune", 20)]
    assert runs[0].players["iterations_200"] == "mcts:iterations=200"
    # paired: game g of every value has the same seed and seats the same colours
    by_value = {
        name: [r for r in stored if name in r.seats] for name in ("iterations_5", "iterations_200")
    }
    assert [r.seed for r in by_value["iterations_5"]] == [
        r.seed for r in by_value["iterations_200"]
    ]
    assert [r.seats.index("opponent") for r in by_value["iterations_5"]] == [1, 0] * 5
    json.dumps(result.to_dict(), allow_nan=False)


def test_same_seed_same_result_and_resume_plays_nothing(tmp_path: Path) -> None:
    kw: dict[str, Any] = {"opponent": "mcts:iterations=20", "games": 4, "seed": 3}
    with ResultStore(tmp_path / "r.db") as store:
        first = tune("tic_tac_toe", "c", [0.5, 2.0], store=store, **kw)
        again = tune("tic_tac_toe", "c", [0.5, 2.0], store=store, resume=True, **kw)
    fresh = tune("tic_tac_toe", "c", [0.5, 2.0], **kw)  # in-memory store
    assert again.run_id == first.run_id and again.played_now == 0 and first.played_now == 8

    def strip(d: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in d.items() if k not in ("run_id", "played_now")}

    assert strip(first.to_dict()) == strip(again.to_dict()) == strip(fresh.to_dict())
    other = tune("tic_tac_toe", "c", [0.5, 2.0], **{**kw, "seed": 4})
    assert other.values != fresh.values


def test_round_robin_mode_rates_the_values_against_each_other(tmp_path: Path) -> None:
    result = tune("tic_tac_toe", "iterations", [5, 50, 300], games=4, seed=0)
    assert result.config.mode == "round-robin" and result.ratings is not None
    assert result.ratings.games == 3 * 4
    first = result.values[0]
    assert first.elo == 0.0  # the anchor
    assert all(v.games == 8 for v in result.values)
    assert result.best.value == 300
    assert max(result.values, key=lambda v: v.score) is result.best
    assert sum(v.p_best for v in result.values) == pytest.approx(1.0)
    assert sum(v.wins for v in result.values) == sum(v.losses for v in result.values)
    data = result.to_dict()
    assert data["mode"] == "round-robin" and data["opponent"] is None
    json.dumps(data, allow_nan=False)
    path = plot_tune(result, tmp_path / "rr.png")
    assert path.read_bytes()[:8] == PNG_MAGIC


def test_plot_is_a_png(tmp_path: Path) -> None:
    result = tune("tic_tac_toe", "c", [0.5, 1.0, 2.0], opponent="mcts:iterations=20", games=2)
    path = plot_tune(result, tmp_path / "tune.png")
    data = path.read_bytes()
    assert data[:8] == PNG_MAGIC and len(data) > 5000
    # The same figure from the JSON form (a results file), read back.
    again = plot_tune(json.loads(json.dumps(result.to_dict())), tmp_path / "again.png")
    assert again.read_bytes() == data


@pytest.mark.parametrize(
    ("kw", "error", "fragment"),
    [
        ({"param": "c", "values": (1.0,)}, InvalidConfigError, "at least two values"),
        ({"param": "c", "values": ()}, InvalidConfigError, "at least one value"),
        ({"param": "bogus", "values": (1.0, 2.0)}, InvalidSpecError, "unknown mcts option"),
        ({"param": "c", "values": (-1.0, 1.0)}, InvalidSpecError, "c must be"),
        ({"param": "c", "values": (1.0,), "opponent": "human"}, InvalidSpecError, "human"),
        (
            {"param": "c", "values": (1.0,), "opponent": "mcts", "games": 0},
            InvalidConfigError,
            "games",
        ),
        ({"param": "c", "values": (1.0, 2.0), "game": "chess"}, MctslabError, "unknown game"),
    ],
)
def test_bad_tune_configs_fail_before_playing(
    kw: dict[str, Any], error: type[Exception], fragment: str
) -> None:
    with pytest.raises(error, match=fragment):
        TuneConfig(**{"game": "tic_tac_toe", **kw})


# CLI ---------------------------------------------------------------------------------------


def invoke(*args: str) -> Result:
    return runner.invoke(app, list(args))


def assert_user_error(result: Result) -> str:
    assert result.exit_code == 2, (result.stdout, result.stderr, result.exception)
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


def test_cli_tune_json_and_plot(tmp_path: Path) -> None:
    db, png = tmp_path / "r.db", tmp_path / "t.png"
    args = ["tune", "tic_tac_toe", "--param", "iterations=5,200", "--opponent", OPPONENT,
            "--games", "6", "--workers", "1", "--db", str(db), "--no-progress"]  # fmt: skip
    result = invoke(*args, "--plot", str(png), "--json")
    assert result.exit_code == 0, (result.stdout, result.stderr)
    data = json.loads(result.stdout)
    assert data["best"] == 200 and data["plot"] == str(png)
    assert [v["value"] for v in data["values"]] == [5, 200]
    assert png.read_bytes()[:8] == PNG_MAGIC
    text = invoke(*args, "--resume")
    assert text.exit_code == 0, text.stderr
    assert "P(best)" in text.stdout and "best iterations=200" in text.stdout
    assert "0 games played now" in " ".join(text.stdout.split())


def test_cli_tune_round_robin_with_game_param(tmp_path: Path) -> None:
    result = invoke(
        "tune", "nim", "--param", "c=0.5,2", "--player", "mcts:iterations=30",
        "--game-param", "piles=1;2", "--games", "2", "--workers", "1",
        "--db", str(tmp_path / "r.db"), "--json", "--no-progress",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["mode"] == "round-robin" and data["game_params"] == {"piles": "1;2"}


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        ((), "needs a grid"),
        (("--param", "c=0:1:-1"), "step must be positive"),
        (("--param", "c=1,2", "--opponent", "mcts:bogus=1"), "unknown mcts option"),
        (("--param", "c=1,2", "--player", "random"), "takes no options"),
        (("--param", "c=1,2", "--game-param", "size=3"), "unknown parameter"),
        (("--param", "c=1,2", "--plot", "/no/such/dir/t.png"), "no such directory"),
        (("--param", "c=1", "--games", "0", "--opponent", "random"), "games"),
    ],
)
def test_cli_tune_errors_exit_2_and_write_nothing(
    tmp_path: Path, args: tuple[str, ...], fragment: str
) -> None:
    db = tmp_path / "r.db"
    line = assert_user_error(invoke("tune", "tic_tac_toe", "--db", str(db), *args))
    assert fragment in line
    assert not db.exists()


def test_cli_tune_unknown_game(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    line = assert_user_error(invoke("tune", "chess", "--param", "c=1,2", "--db", str(db)))
    assert "unknown game" in line and not db.exists()


def test_integer_grid_values_reach_the_spec_as_integers() -> None:
    _, values = parse_grid("iterations=100:300:100")
    config = TuneConfig("tic_tac_toe", "iterations", tuple(values), opponent="random", games=2)
    assert config.specs() == [f"mcts:iterations={v}" for v in (100, 200, 300)]
    assert config.names() == ["iterations_100", "iterations_200", "iterations_300"]
    assert not any(math.isnan(float(v)) for v in values)


def test_integer_options_and_aliases_are_read_from_the_option_schema() -> None:
    from mctslab.arena.tune import INTEGER_OPTIONS
    from mctslab.core.options import options_of
    from mctslab.search.ismcts import PIMCConfig
    from mctslab.search.puct import PuctConfig

    for config in (PuctConfig, PIMCConfig):  # every int option, by name and alias
        for opt in options_of(config).values():
            assert (opt.kind == "int") == (set(opt.names) <= INTEGER_OPTIONS), opt.name
    assert {"cutoff_depth", "iters", "nodes", "threads", "at"} <= INTEGER_OPTIONS  # pig-hold's
    _, values = parse_grid("determinizations=5,10")
    assert values == [5, 10] and all(type(v) is int for v in values)
    # PUCT's aliases from the schema: noise is noise_fraction, threads is workers.
    assert with_option("puct:noise=0.1,c=2", "noise_fraction", 0.25) == (
        "puct:noise_fraction=0.25,c=2"
    )
    assert with_option("mcts:threads=2", "workers", 4) == "mcts:workers=4"
