"""Elo by maximum likelihood: closed forms, simulated leagues of known strength, edge cases."""

from __future__ import annotations

import json
import math
import statistics

import numpy as np
import pytest

from mctslab.arena.ratings import (
    ELO_PER_NATURAL_UNIT,
    GameOutcome,
    compute_ratings,
    elo_to_score,
    format_table,
    score_interval,
    score_to_elo,
    wilson_interval,
)
from mctslab.core.errors import InvalidConfigError

TRUE_ELO = {"p0": 0.0, "p100": 100.0, "p200": 200.0, "p400": 400.0}


def games(a: str, b: str, wins: int, draws: int, losses: int) -> list[GameOutcome]:
    """``wins`` wins, ``draws`` draws and ``losses`` losses of ``a`` against ``b``."""
    return (
        [GameOutcome(a, b, 1.0)] * wins
        + [GameOutcome(b, a, 0.5)] * draws
        + [GameOutcome(b, a, 1.0)] * losses
    )


def simulate_league(seed: int, games_per_pair: int = 800) -> list[GameOutcome]:
    """Round robin of TRUE_ELO's players; draws take 40% of the weaker side's expected score."""
    rng = np.random.default_rng(seed)
    names = list(TRUE_ELO)
    out = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            e = elo_to_score(TRUE_ELO[a] - TRUE_ELO[b])
            d = 0.4 * min(e, 1.0 - e)
            scores = rng.choice(
                [1.0, 0.5, 0.0], p=[e - d / 2, d, 1.0 - e - d / 2], size=games_per_pair
            )
            out += [GameOutcome(a, b, float(s)) for s in scores]
    return out


def test_elo_score_helpers() -> None:
    assert elo_to_score(0.0) == 0.5
    assert elo_to_score(400.0) == pytest.approx(10 / 11)
    assert score_to_elo(10 / 11) == pytest.approx(400.0)
    assert score_to_elo(0.5) == 0.0
    assert score_to_elo(1.0) == math.inf and score_to_elo(0.0) == -math.inf
    for elo in (-700.0, -35.5, 0.1, 250.0):
        assert score_to_elo(elo_to_score(elo)) == pytest.approx(elo)
    with pytest.raises(InvalidConfigError):
        score_to_elo(1.5)


def test_score_interval() -> None:
    # Wilson's interval of W + D/2 = 7 successes in 10 games.
    assert score_interval(6, 2, 2) == pytest.approx(wilson_interval(7, 10))
    assert score_interval(6, 2, 2) == pytest.approx((0.7, 0.3968, 0.8922), abs=1e-4)
    # 4 wins in 4 games are not a certain win: the normal interval collapsed to 1.000-1.000.
    assert score_interval(4, 0, 0) == pytest.approx((1.0, 0.5101, 1.0), abs=1e-4)
    assert score_interval(9, 0, 1)[2] < 1.0  # inside [0, 1] without clipping
    assert score_interval(0, 0, 0) == (0.5, 0.0, 1.0)
    assert score_interval(0, 40, 0) == pytest.approx((0.5, 0.3520, 0.6480), abs=1e-4)
    with pytest.raises(InvalidConfigError):
        score_interval(-1, 0, 0)


@pytest.mark.parametrize("record", [(7, 2, 1), (3, 0, 5), (1, 98, 1), (40, 3, 2), (0, 1, 9)])
def test_two_players_match_the_closed_form(record: tuple[int, int, int]) -> None:
    w, d, lost = record
    n, score = w + d + lost, (w + 0.5 * d) / (w + d + lost)
    r = compute_ratings(games("a", "b", w, d, lost), anchor="b", anchor_elo=0.0)
    a = r.player("a")
    assert a.elo == pytest.approx(score_to_elo(score), abs=1e-9)
    # Fisher information of one parameter: n·p(1-p) per natural unit.
    half = 1.96 * ELO_PER_NATURAL_UNIT / math.sqrt(n * score * (1 - score))
    assert a.low is not None and a.high is not None
    assert (a.low, a.high) == pytest.approx((a.elo - half, a.elo + half))
    b = r.player("b")
    assert (b.elo, b.low, b.high) == (0.0, 0.0, 0.0)


def test_simulated_league_recovers_known_elo() -> None:
    r = compute_ratings(simulate_league(seed=1), anchor="p0")
    assert r.games == 6 * 800
    assert [p.name for p in r.players] == ["p400", "p200", "p100", "p0"]
    for p in r.players:
        assert p.elo is not None and p.low is not None and p.high is not None
        assert p.elo == pytest.approx(TRUE_ELO[p.name], abs=25)
        assert p.low <= TRUE_ELO[p.name] <= p.high
        assert p.unbounded is None and p.comparable


def test_intervals_cover_the_truth() -> None:
    covered = total = 0
    for seed in range(20):
        r = compute_ratings(simulate_league(seed, games_per_pair=200), anchor="p0")
        for p in r.players:
            if p.name != "p0":
                assert p.low is not None and p.high is not None
                covered += p.low <= TRUE_ELO[p.name] <= p.high
                total += 1
    # Nominal 95%, conservative with draws; 60 intervals.
    assert covered / total >= 0.9


def test_anchor_shifts_every_rating() -> None:
    outcomes = simulate_league(seed=3, games_per_pair=200)
    base = compute_ratings(outcomes, anchor="p0")
    moved = compute_ratings(outcomes, anchor="p100", anchor_elo=1500.0)
    assert moved.anchor == "p100" and moved.anchor_elo == 1500.0
    offset = 1500.0 - base.player("p100").elo  # type: ignore[operator]
    for p in base.players:
        assert moved.player(p.name).elo == pytest.approx(p.elo + offset, abs=1e-6)  # type: ignore[operator]
    assert moved.player("p100").low == moved.player("p100").high == 1500.0
    # The default anchor is the first name.
    assert compute_ratings(outcomes).anchor == "p0"


def test_symmetric_results_give_equal_ratings() -> None:
    r = compute_ratings(games("a", "b", 5, 3, 5))
    assert r.player("b").elo == pytest.approx(0.0, abs=1e-9)
    # A cycle: a beats b, b beats c, c beats a, each 3-1.
    cycle = games("a", "b", 3, 0, 1) + games("b", "c", 3, 0, 1) + games("c", "a", 3, 0, 1)
    r = compute_ratings(cycle, anchor="c", anchor_elo=100.0)
    for p in r.players:
        assert p.elo == pytest.approx(100.0, abs=1e-9)
        assert p.score == 0.5


def test_perfect_scores_are_unbounded() -> None:
    outcomes = (
        games("m", "n", 6, 2, 2)
        + games("champ", "m", 3, 0, 0)
        + games("champ", "n", 2, 0, 0)
        + games("m", "z", 2, 0, 0)
    )
    r = compute_ratings(outcomes)
    # champ is the first name, but the default anchor is taken from the largest finite group.
    assert r.anchor == "m"
    assert [p.name for p in r.players] == ["champ", "m", "n", "z"]
    champ, loser = r.player("champ"), r.player("z")
    assert champ.unbounded == "+" and champ.elo is None and champ.low is None
    assert (champ.wins, champ.draws, champ.losses, champ.score) == (5, 0, 0, 1.0)
    assert loser.unbounded == "-" and loser.elo is None
    # The finite part is fitted on the m-n games alone.
    assert r.player("n").elo == pytest.approx(-score_to_elo(0.7), abs=1e-9)


def test_iterative_and_group_unboundedness() -> None:
    # x and y beat each other but win every game against the rest: no finite maximum for
    # either, although neither has a perfect score. z beat only w, then lost to everyone.
    outcomes = (
        games("x", "y", 2, 1, 2)
        + games("x", "m", 3, 0, 0)
        + games("y", "n", 3, 0, 0)
        + games("m", "n", 4, 2, 4)
        + games("m", "z", 1, 0, 0)
        + games("z", "w", 1, 0, 0)
    )
    r = compute_ratings(outcomes, anchor="m")
    assert {p.name: p.unbounded for p in r.players} == {
        "x": "+",
        "y": "+",
        "m": None,
        "n": None,
        "z": "-",
        "w": "-",
    }
    assert r.player("n").elo == pytest.approx(0.0, abs=1e-9)
    # Anchored on an unbounded player, the others are measured from it.
    r = compute_ratings(outcomes, anchor="z")
    assert r.player("z").elo == 0.0 and r.player("w").unbounded == "-"
    assert r.player("m").unbounded == "+" and r.player("x").unbounded == "+"


def test_players_not_comparable_with_the_anchor() -> None:
    outcomes = games("a", "b", 3, 1, 2) + games("c", "d", 1, 1, 1) + games("a", "e", 1, 0, 0)
    outcomes += games("f", "e", 1, 0, 0)  # f and a both beat e only: f vs a is unknown
    r = compute_ratings(outcomes, anchor="a")
    for name in ("c", "d", "f"):
        p = r.player(name)
        assert not p.comparable and p.elo is None and p.unbounded is None
    assert r.player("e").unbounded == "-"
    assert [p.name for p in r.players][-3:] == ["f", "c", "d"]  # listed last, by score then name
    assert "?" in format_table(r)


def test_pairwise_table() -> None:
    outcomes = games("a", "b", 3, 1, 2) + games("a", "c", 0, 0, 4)
    r = compute_ratings(outcomes)
    assert r.pairwise == {
        ("a", "b"): (3, 1, 2),
        ("b", "a"): (2, 1, 3),
        ("a", "c"): (0, 0, 4),
        ("c", "a"): (4, 0, 0),
    }
    a = r.player("a")
    assert (a.games, a.wins, a.draws, a.losses) == (10, 3, 1, 6)
    assert a.score == pytest.approx(0.35)


def test_bad_input_raises() -> None:
    with pytest.raises(InvalidConfigError, match="unknown anchor"):
        compute_ratings(games("a", "b", 1, 1, 1), anchor="zed")
    with pytest.raises(InvalidConfigError):
        GameOutcome("a", "b", 0.7)
    with pytest.raises(InvalidConfigError):
        GameOutcome("a", "a", 1.0)


def test_no_games() -> None:
    r = compute_ratings([])
    assert r.players == () and r.pairwise == {} and r.games == 0
    assert format_table(r) == "no games\n"


def test_to_dict_is_strict_json() -> None:
    outcomes = games("a", "b", 3, 1, 2) + games("top", "a", 2, 0, 0) + games("c", "d", 0, 1, 0)
    r = compute_ratings(outcomes)
    data = json.loads(json.dumps(r.to_dict(), allow_nan=False))
    assert data["games"] == 9 and data["anchor"] == "a" and data["anchor_elo"] == 0.0
    top = next(p for p in data["players"] if p["name"] == "top")
    assert top["elo"] is None and top["unbounded"] == "+"
    assert {"a": "a", "b": "b", "wins": 3, "draws": 1, "losses": 2} in data["pairwise"]
    assert set(data["players"][0]) >= {
        "name",
        "games",
        "wins",
        "draws",
        "losses",
        "score",
        "elo",
        "low",
        "high",
        "unbounded",
    }


def test_format_table() -> None:
    r = compute_ratings(games("alpha", "beta", 7, 2, 1) + games("gamma", "beta", 3, 0, 0))
    text = format_table(r)
    lines = text.splitlines()
    assert "anchor alpha" in lines[0]
    ranking = [line.split()[1] for line in lines[3:6]]
    assert ranking == ["gamma", "alpha", "beta"]
    assert "+inf" in lines[3] and "anchor" in lines[4] and "-240.8" in lines[5]
    assert "7-2-1" in text and "1-2-7" in text and "3-0-0" in text


def test_mean_interval_uses_students_t() -> None:
    """Five values: t(0.975, 4) = 2.776 (not the normal 1.96); one value: a point; none:
    an error. Checked against the formula mean +- t s / sqrt(n) by hand."""
    from mctslab.arena.ratings import mean_interval

    mean, low, high = mean_interval([1.0, 2.0, 3.0, 4.0, 5.0])
    half = 2.776 * math.sqrt(2.5) / math.sqrt(5)
    assert mean == 3.0 and low == pytest.approx(3.0 - half) and high == pytest.approx(3.0 + half)
    assert mean_interval([7.0]) == (7.0, 7.0, 7.0)
    many = [float(i % 7) for i in range(100)]
    m, _, hi = mean_interval(many)
    assert hi - m == pytest.approx(1.96 * statistics.stdev(many) / 10)
    with pytest.raises(ValueError):
        mean_interval([])
