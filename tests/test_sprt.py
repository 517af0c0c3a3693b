"""SPRT: Wald's bounds, the fishtest LLR formula, and simulated matches of known strength."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest

from mctslab.errors import InvalidConfigError
from mctslab.ratings import elo_to_score
from mctslab.sprt import Sprt, SprtConfig, llr_pentanomial, llr_trinomial


def game_scores(rng: np.random.Generator, elo: float, size: int) -> np.ndarray:
    """Scores of a player ``elo`` stronger; draws take 40% of the weaker side's expected score."""
    e = elo_to_score(elo)
    d = 0.4 * min(e, 1.0 - e)
    return rng.choice([1.0, 0.5, 0.0], p=[e - d / 2, d, 1.0 - e - d / 2], size=size)


def run_pairs(sprt: Sprt, rng: np.random.Generator, elo: float, max_pairs: int) -> Sprt:
    scores = game_scores(rng, elo, 2 * max_pairs).reshape(-1, 2)
    for g1, g2 in scores:
        sprt.add_pair(float(g1), float(g2))
        if sprt.decision is not None:
            break
    return sprt


def fishtest_llr_alt2(counts: list[float], values: list[float], elo0: float, elo1: float) -> float:
    """fishtest's ``N·LLR_alt2`` straight from the formula, without regularisation."""
    n = sum(counts)
    m = sum(c * x for c, x in zip(counts, values, strict=True)) / n
    v = sum(c * (x - m) ** 2 for c, x in zip(counts, values, strict=True)) / n
    s0, s1 = elo_to_score(elo0), elo_to_score(elo1)
    return n * (s1 - s0) * (2 * m - s0 - s1) / (2 * v)


def test_wald_bounds() -> None:
    cfg = SprtConfig(alpha=0.05, beta=0.05)
    assert cfg.lower == pytest.approx(-2.944, abs=5e-4)
    assert cfg.upper == pytest.approx(2.944, abs=5e-4)
    assert cfg.upper == pytest.approx(math.log(19))
    skew = SprtConfig(alpha=0.01, beta=0.1)
    assert skew.lower == pytest.approx(math.log(0.1 / 0.99))
    assert skew.upper == pytest.approx(math.log(0.9 / 0.01))


@pytest.mark.parametrize(
    "kwargs",
    [
        {"alpha": 0.0},
        {"alpha": 1.0},
        {"beta": -0.1},
        {"beta": 1.5},
        {"elo0": 10.0, "elo1": 10.0},
        {"elo0": 5.0, "elo1": 0.0},
        {"elo1": math.inf},
    ],
)
def test_config_validation(kwargs: dict[str, float]) -> None:
    with pytest.raises(InvalidConfigError):
        SprtConfig(**kwargs)


def test_llr_matches_the_fishtest_formula_on_large_samples() -> None:
    penta = [120, 830, 2410, 1010, 160]
    values = [0.0, 0.25, 0.5, 0.75, 1.0]
    cfg = SprtConfig(elo0=0.0, elo1=5.0)
    # The prior moves the LLR by O(1/N) relative to the unregularised formula...
    expected = fishtest_llr_alt2([float(c) for c in penta], values, 0.0, 5.0)
    assert llr_pentanomial(penta, cfg) == pytest.approx(expected, rel=5e-3)
    expected = fishtest_llr_alt2([900.0, 1500.0, 1100.0], [0.0, 0.5, 1.0], 0.0, 5.0)
    assert llr_trinomial(1100, 1500, 900, cfg) == pytest.approx(expected, rel=5e-3)
    # ...and is exactly the formula on the regularised counts times the real count.
    reg = [120.5, 830.0, 2410.0, 1010.0, 160.5]
    exact = fishtest_llr_alt2(reg, values, 0.0, 5.0) * sum(penta) / sum(reg)
    assert llr_pentanomial(penta, cfg) == pytest.approx(exact, rel=1e-12)


def test_llr_regularisation_by_hand() -> None:
    # One won pair: counts become LL 0.5, WW 1.5; m = 0.75, v = 0.1875, N = 1.
    cfg = SprtConfig()
    s0, s1 = 0.5, elo_to_score(10.0)
    assert llr_pentanomial([0, 0, 0, 0, 1], cfg) == pytest.approx(
        (s1 - s0) * (1.5 - s0 - s1) / (2 * 0.1875)
    )
    assert llr_pentanomial([0, 0, 0, 0, 0], cfg) == 0.0
    assert llr_trinomial(0, 0, 0, cfg) == 0.0


def test_all_wins_accept_h1_without_dividing_by_zero() -> None:
    sprt = Sprt()
    for _ in range(200):
        sprt.add_pair(1.0, 1.0)
        if sprt.decision is not None:
            break
    assert sprt.decision == "H1"
    assert 5 < sprt.pairs < 50  # not after one lucky pair, not never
    status = sprt.status()
    assert status["elo"] is None  # a perfect score has no finite Elo
    json.dumps(status, allow_nan=False)


def test_stronger_player_accepts_h1_quickly() -> None:
    for seed in range(10):
        sprt = run_pairs(
            Sprt(SprtConfig(elo0=0.0, elo1=10.0)), np.random.default_rng(seed), 200.0, 200
        )
        assert sprt.decision == "H1"
        assert sprt.pairs < 100
        assert sprt.llr >= sprt.upper


def test_equal_players_accept_h0() -> None:
    decisions = []
    for seed in range(20):
        sprt = run_pairs(
            Sprt(SprtConfig(elo0=0.0, elo1=50.0)), np.random.default_rng(seed), 0.0, 3000
        )
        decisions.append(sprt.decision)
    assert None not in decisions
    assert decisions.count("H0") >= 18  # α = 5%: at most a false H1 or two in 20


def test_decision_is_none_in_the_middle() -> None:
    sprt = Sprt()
    assert sprt.decision is None and sprt.llr == 0.0 and sprt.games == 0
    sprt.add_pair(1.0, 0.0)
    sprt.add_pair(0.5, 0.5)
    sprt.add_game(1.0)
    assert sprt.lower < sprt.llr < sprt.upper
    assert sprt.decision is None
    assert (sprt.pairs, sprt.games) == (2, 5)


def test_decision_is_kept_once_made() -> None:
    sprt = Sprt()
    while sprt.decision is None:
        sprt.add_game(1.0)
    for _ in range(100):
        sprt.add_game(0.0)
    assert sprt.llr < sprt.upper and sprt.decision == "H1"


def test_more_wins_give_a_higher_llr() -> None:
    cfg = SprtConfig(elo0=0.0, elo1=10.0)
    for draws in (0, 5, 40):
        # Turning a loss into a win, at a fixed number of games.
        llrs = [llr_trinomial(w, draws, 30 - w, cfg) for w in range(31)]
        assert all(a < b for a, b in itertools.pairwise(llrs))
        # Adding a win.
        llrs = [llr_trinomial(w, draws, 10, cfg) for w in range(60)]
        assert all(a < b for a, b in itertools.pairwise(llrs))
    # Pairs: moving a pair up one class.
    base = [10, 20, 40, 20, 10]
    for k in range(4):
        better = base.copy()
        better[k] -= 1
        better[k + 1] += 1
        assert llr_pentanomial(better, cfg) > llr_pentanomial(base, cfg)


def test_status_counts_and_elo_estimate() -> None:
    sprt = Sprt(SprtConfig(elo0=-5.0, elo1=5.0, alpha=0.1, beta=0.2))
    sprt.add_pair(1.0, 0.5)
    sprt.add_pair(0.0, 1.0)
    sprt.add_pair(0.5, 0.5)
    sprt.add_game(0.0)
    status = json.loads(json.dumps(sprt.status(), allow_nan=False))
    assert status["pentanomial"] == [0, 0, 2, 1, 0]
    assert (status["wins"], status["draws"], status["losses"]) == (2, 3, 2)
    assert (status["games"], status["pairs"]) == (7, 3)
    assert status["score"] == pytest.approx(0.5)
    assert status["elo"] == pytest.approx(0.0, abs=1e-9)
    assert status["elo_low"] < 0 < status["elo_high"]
    assert status["alpha"] == 0.1 and status["decision"] is None
    assert status["llr"] == pytest.approx(sprt.llr)
    assert status["lower"] == pytest.approx(math.log(0.2 / 0.9))


def test_elo_estimate_covers_the_truth() -> None:
    sprt = Sprt(SprtConfig(elo0=0.0, elo1=1000.0))  # wide hypotheses: collect every pair
    scores = game_scores(np.random.default_rng(5), 100.0, 8000).reshape(-1, 2)
    for g1, g2 in scores:
        sprt.add_pair(float(g1), float(g2))
    elo, low, high = sprt.elo_estimate()
    assert elo is not None and low is not None and high is not None
    assert low < 100.0 < high and high - low < 30.0
    assert elo == pytest.approx(100.0, abs=15.0)


def test_bad_scores_raise() -> None:
    sprt = Sprt()
    with pytest.raises(InvalidConfigError):
        sprt.add_pair(1.0, 2.0)
    with pytest.raises(InvalidConfigError):
        sprt.add_game(0.25)
    with pytest.raises(InvalidConfigError):
        llr_pentanomial([1, 2, 3], SprtConfig())
    assert sprt.games == 0
