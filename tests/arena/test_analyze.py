"""The playtesting report: self-play statistics checked against tic-tac-toe's known shape."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from mctslab.arena.analyze import (
    AnalyzeConfig,
    AnalyzeResult,
    analyze,
    plot_analysis,
    seat_name,
    wilson_interval,
)
from mctslab.arena.store import ResultStore
from mctslab.cli.main import app
from mctslab.core.errors import InvalidConfigError, InvalidSpecError

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
PLAYERS = ("mcts:iterations=20", "mcts:iterations=200")
GAMES = 12
runner = CliRunner()


@pytest.fixture(scope="module")
def report() -> AnalyzeResult:
    return analyze("tic_tac_toe", PLAYERS, games=GAMES, seed=5)


def test_wilson_interval_known_values() -> None:
    # Wilson (1927); the values of Newcombe (1998), table I: 0/10 and 5/10 (z = 1.96).
    assert wilson_interval(0, 10) == pytest.approx((0.0, 0.0, 0.2775), abs=1e-4)
    assert wilson_interval(5, 10) == pytest.approx((0.5, 0.2366, 0.7634), abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 0.0, 1.0)
    with pytest.raises(InvalidConfigError):
        wilson_interval(3, 2)


def test_rates_sum_to_one_and_intervals_hold_them(report: AnalyzeResult) -> None:
    assert [s.spec for s in report.strengths] == list(PLAYERS)
    for s in report.strengths:
        assert s.games == GAMES and s.forfeits == 0
        assert s.first_wins + s.draws + s.first_losses == GAMES
        assert s.win.rate + s.draw.rate + s.loss.rate == pytest.approx(1.0)
        for r in (s.win, s.draw, s.loss):
            assert 0.0 <= r.low <= r.rate <= r.high <= 1.0
        mean, low, high = s.first_score
        assert mean == pytest.approx(s.win.rate + 0.5 * s.draw.rate)
        assert low <= mean <= high


def test_branching_factor_and_lengths_match_the_rules(report: AnalyzeResult) -> None:
    for s in report.strengths:
        by_ply = {b.ply: b for b in s.branching}
        # Every non-terminal tic-tac-toe position at ply t has 9 - t legal moves.
        assert by_ply[0].mean == 9 and by_ply[1].mean == 8
        assert all(b.mean == b.min == b.max == 9 - b.ply for b in s.branching)
        assert by_ply[0].positions == GAMES
        assert 5 <= s.lengths.min <= s.lengths.median <= s.lengths.max <= 9
        assert s.lengths.min <= s.lengths.mean <= s.lengths.max
        assert sum(n for _, n in s.lengths.histogram) == GAMES
        assert [k for k, _ in s.lengths.histogram] == list(range(s.lengths.min, s.lengths.max + 1))
        # A game that lasts L plies reaches plies 0..L-1.
        assert by_ply[s.lengths.max - 1].positions >= 1
        assert s.branching[-1].ply == s.lengths.max - 1


def test_openings_count_every_game(report: AnalyzeResult) -> None:
    for s in report.strengths:
        assert sum(o.count for o in s.openings) == GAMES
        counts = [o.count for o in s.openings]
        assert counts == sorted(counts, reverse=True)
        assert len({o.moves for o in s.openings}) == len(s.openings)
        for o in s.openings:
            assert len(o.moves) == len(o.names) == 2
            assert all(len(n) == 2 for n in o.names)  # "b2"
            assert 0.0 <= o.first_score <= 1.0


def test_report_serialises_and_reads(report: AnalyzeResult) -> None:
    data = json.loads(json.dumps(report.to_dict(), allow_nan=False))
    assert [s["spec"] for s in data["strengths"]] == list(PLAYERS)
    assert data["strengths"][0]["branching"][0] == {
        "ply": 0, "mean": 9.0, "min": 9, "max": 9, "positions": GAMES,
    }  # fmt: skip
    assert set(data["advantage_change"]) == {"diff", "low", "high"}
    text = report.format_report()
    assert "first-player advantage by strength" in text
    assert all(spec in text for spec in PLAYERS)
    assert report.advantage_change is not None
    d, lo, hi = report.advantage_change
    s0, s1 = report.strengths[0].first_score[0], report.strengths[1].first_score[0]
    assert d == pytest.approx(s1 - s0) and lo <= d <= hi


def test_same_seed_same_report(report: AnalyzeResult, tmp_path: Path) -> None:
    with ResultStore(tmp_path / "r.db") as store:
        again = analyze("tic_tac_toe", PLAYERS, games=GAMES, seed=5, store=store)
        resumed = analyze("tic_tac_toe", PLAYERS, games=GAMES, seed=5, store=store, resume=True)
        stored = list(store.games([again.run_id]))
    assert again.strengths == report.strengths
    assert resumed.played_now == 0 and resumed.strengths == report.strengths
    assert len(stored) == 2 * GAMES
    assert {r.seats for r in stored} == {(seat_name(p, 0), seat_name(p, 1)) for p in PLAYERS}
    # game g has the same seed at every strength
    assert [r.seed for r in stored[:GAMES]] == [r.seed for r in stored[GAMES:]]


def test_plots_are_pngs(report: AnalyzeResult, tmp_path: Path) -> None:
    paths = plot_analysis(report, tmp_path / "plots")
    assert [p.name for p in paths] == ["lengths.png", "branching.png", "first_player.png"]
    for p in paths:
        assert p.read_bytes()[:8] == PNG_MAGIC


@pytest.mark.parametrize(
    ("kw", "error", "fragment"),
    [
        ({"players": ("random", "random")}, InvalidConfigError, "given twice"),
        ({"players": ()}, InvalidConfigError, "at least one"),
        ({"players": ("human",)}, InvalidSpecError, "human"),
        ({"players": ("mcts:bogus=1",)}, InvalidSpecError, "unknown mcts option"),
        ({"opening_plies": 0}, InvalidConfigError, "opening plies"),
        ({"games": 0}, InvalidConfigError, "games"),
    ],
)
def test_bad_configs(kw: dict[str, Any], error: type[Exception], fragment: str) -> None:
    with pytest.raises(error, match=fragment):
        AnalyzeConfig(**{"game": "tic_tac_toe", **kw})


# CLI ---------------------------------------------------------------------------------------


def invoke(*args: str) -> Result:
    return runner.invoke(app, list(args))


def test_cli_analyze_json_text_and_out_dir(tmp_path: Path) -> None:
    db, out = tmp_path / "r.db", tmp_path / "out"
    args = ["analyze", "tic_tac_toe", "--player", PLAYERS[0], "--games", "4", "--workers", "1",
            "--db", str(db), "--no-progress"]  # fmt: skip
    result = invoke(*args, "--out", str(out), "--json")
    assert result.exit_code == 0, (result.stdout, result.stderr)
    data = json.loads(result.stdout)
    assert data["strengths"][0]["games"] == 4 and data["advantage_change"] is None
    names = {p.name for p in out.iterdir()}
    assert names == {
        "report.json",
        "report.txt",
        "lengths.png",
        "branching.png",
        "first_player.png",
    }
    assert json.loads((out / "report.json").read_text())["strengths"] == data["strengths"]
    text = invoke(*args, "--resume")
    assert text.exit_code == 0, text.stderr
    assert "first player" in text.stdout and "legal actions by ply" in text.stdout


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (("--player", "mcts:bogus=1"), "unknown mcts option"),
        (("--player", "random", "--player", "random"), "given twice"),
        (("--games", "0"), "games"),
        (("--param", "size=3"), "unknown parameter"),
        (("--opening-plies", "0"), "opening plies"),
    ],
)
def test_cli_analyze_errors_exit_2_and_write_nothing(
    tmp_path: Path, args: tuple[str, ...], fragment: str
) -> None:
    db, out = tmp_path / "r.db", tmp_path / "out"
    result = invoke("analyze", "tic_tac_toe", "--db", str(db), "--out", str(out), *args)
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0]
    assert not db.exists() and not out.exists()


def test_cli_analyze_out_must_be_a_directory(tmp_path: Path) -> None:
    db, out = tmp_path / "r.db", tmp_path / "file"
    out.write_text("x")
    result = invoke("analyze", "tic_tac_toe", "--db", str(db), "--out", str(out))
    assert result.exit_code == 2 and "not a directory" in result.stderr
    assert not db.exists()
