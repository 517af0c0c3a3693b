"""``mctslab optimize``: single-player search from the command line, checked against
Held-Karp's exact optimum, its files, and its one-line user errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mctslab.cli.main import app
from mctslab.games.tsp import TSP, held_karp, read_tour
from mctslab.players.optimizers import parse_optimizer

runner = CliRunner()


def test_the_searches_reach_held_karps_optimum_on_nine_cities(tmp_path: Path) -> None:
    game = TSP("random:9:4")
    optimum, _ = held_karp(game.distances)
    out, tour = tmp_path / "best.json", tmp_path / "best.tour"
    args = ["optimize", "tsp", "-p", "instance=random:9:4", "--playouts", "3000", "--quiet",
            "--search", "exact", "--search", "nrpa:level=2,iterations=30",
            "--search", "nmcs:level=3", "--search", "sp-mcts:iterations=200",
            "--search", "nn", "--search", "random",
            "--json", "--out", str(out), "--tour", str(tour)]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    rows = {r["search"]: r for r in json.loads(result.stdout)["rows"]}
    assert rows["exact"]["best"] == -optimum
    for spec in ("nrpa:level=2,iterations=30", "nmcs:level=3", "sp-mcts:iterations=200"):
        assert rows[spec]["best"] == -optimum, spec
        assert rows[spec]["runs"][0]["playouts"] == 3000
    assert rows["nn"]["best"] <= -optimum
    # The best sequence, written as JSON and as a TSPLIB tour, replays to its score.
    data = json.loads(out.read_text())
    state = game.state_from_actions(data["sequence"])
    assert state.is_terminal() and state.returns()[0] == data["score"] == -optimum
    assert list(read_tour(tour, dimension=9).tour) == game.tour(state)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["optimize", "tic_tac_toe"], ["2 players", "single-player"]),
        (["optimize", "tsp", "--search", "bogus"], ["unknown search", "nrpa"]),
        (["optimize", "tsp", "--search", "nrpa:level=9"], ["level"]),
        (["optimize", "tsp", "--search", "nrpa:depth=2"], ["unknown nrpa option", "level"]),
        (["optimize", "samegame", "--tour", "x.tour", "--playouts", "10"], ["--tour", "tsp"]),
        (["optimize", "samegame", "--search", "sa", "--playouts", "10"], ["travelling"]),
        (["optimize", "tsp", "--time", "-1"], ["--time"]),
        (["optimize", "tsp", "-p", "instance=nowhere.tsp"], ["nowhere.tsp"]),
        (["optimize", "tsp", "--search", "nrpa:polish=maybe"], ["bad value", "polish"]),
        (
            ["optimize", "samegame", "--search", "nmcs:polish=1", "--playouts", "5"],
            ["no local search"],
        ),
        (
            ["optimize", "tsp", "-p", "instance=random:8:1", "--stop-at-optimum"],
            ["--stop-at-optimum", "no proven optimum"],
        ),
        (["optimize", "tsp", "--target", "nan"], ["--target"]),
    ],
)
def test_user_errors_are_one_line_and_exit_2(args: list[str], words: list[str]) -> None:
    result = runner.invoke(app, [*args, "--quiet"])
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for word in words:
        assert word in lines[0], lines[0]


def test_specs_are_parsed_with_their_options() -> None:
    opt = parse_optimizer("nrpa:level=3,iterations=50,alpha=0.5,engine=reference")
    assert opt.kind == "nrpa" and dict(opt.options) == {"level": 3, "iterations": 50, "alpha": 0.5}
    assert opt.engine == "reference" and opt.spec == "nrpa:level=3,iterations=50,alpha=0.5"
    with pytest.raises(ValueError, match="engine must be one of"):
        parse_optimizer("nmcs:engine=gpu")
    with pytest.raises(ValueError, match="bad value"):
        parse_optimizer("sp-mcts:c=lots")


def test_the_engines_agree_through_the_spec() -> None:
    state = TSP("random:8:2").new_initial_state()
    a = parse_optimizer("nrpa:level=1,iterations=40,engine=reference").run(state, playouts=40)
    b = parse_optimizer("nrpa:level=1,iterations=40,engine=compiled").run(state, playouts=40)
    assert (a.score, a.sequence) == (b.score, b.sequence)


def test_knowledge_options_and_a_target_that_stops_the_runs() -> None:
    """``bias``/``polish`` reach the searches through the spec; ``--target`` (the optimum
    here) stops each run as soon as it is reached, well before its playout budget."""
    game = TSP("random:11:6")
    optimum, _ = held_karp(game.distances)
    args = ["optimize", "tsp", "-p", "instance=random:11:6", "--playouts", "200000", "--quiet",
            "--target", str(-optimum), "--seeds", "2", "--json",
            "--search", "nrpa:level=2,bias=4,polish=1", "--search", "nmcs:level=1,polish=1",
            "--search", "sp-mcts:bias=2,polish=1,engine=reference"]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    for row in json.loads(result.stdout)["rows"]:
        assert "polish=1" in row["search"]
        for run in row["runs"]:
            assert run["score"] == -optimum and run["playouts"] < 200000, row["search"]
    plain = parse_optimizer("nmcs:level=1").config(seed=3)
    assert (plain.bias, plain.polish) == (0.0, False)
    assert parse_optimizer("nmcs:bias=2.5,polish=yes").config().polish is True
