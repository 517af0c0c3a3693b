"""SPRT: Wald's bounds, LLRs against published values, and simulated error rates and matches."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest

from mctslab.arena.sprt import Sprt, SprtConfig, llr_pentanomial, llr_trinomial
from mctslab.core.errors import InvalidConfigError


def game_scores(rng: np.random.Generator, elo: float, size: int) -> np.ndarray:
    """Scores of a player ``elo`` stronger; draws take 40% of the weaker side's expected score."""
    e = 1.0 / (1.0 + 10.0 ** (-elo / 400.0))  # the logistic Elo model, not mctslab's code for it
    d = 0.4 * min(e, 1.0 - e)
    return rng.choice([1.0, 0.5, 0.0], p=[e - d / 2, d, 1.0 - e - d / 2], size=size)


def run_pairs(sprt: Sprt, rng: np.random.Generator, elo: float, max_pairs: int) -> Sprt:
    scores = game_scores(rng, elo, 2 * max_pairs).reshape(-1, 2)
    for g1, g2 in scores:
        sprt.add_pair(float(g1), float(g2))
        if sprt.decision is not None:
            break
    return sprt


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


# Published LLRs of the logistic-Elo GSPRT: fastchess's own unit tests
# (github.com/Disservin/fastchess, app/tests/sprt_test.cpp, "logistic pentanomial 1/2"
# and "logistic trinomial 1/2"; fastchess's Stats(ll, ld, wl, dd, wd, ww) and
# Stats(wins, losses, draws)), given there to 2 decimals. fastchess computes the exact
# GSPRT (the maximum-likelihood distributions of Van den Bergh's "Comments on
# Normalized Elo", proposition 1.1, as fishtest's LLR_logistic), not the normal
# approximation that mctslab uses: on tens of thousands of games the two agree to
# well within the rounding.
PUBLISHED_PENTANOMIAL = [
    # LL, LD, WL + DD, WD, WW; elo0, elo1; LLR
    ([223, 9863, 20279 + 1000, 10037, 246], 0.5, 2.5, -3.07),
    ([871, 26175, 55003 + 980, 26678, 821], 0.0, 2.0, -4.98),
]
PUBLISHED_TRINOMIAL = [
    # W, D, L; elo0, elo1; LLR
    (21404, 40708, 21184, 0.5, 2.5, -1.57),
    (57433, 106593, 57030, 0.0, 2.0, -2.59),
]


@pytest.mark.parametrize("counts,elo0,elo1,llr", PUBLISHED_PENTANOMIAL)
def test_llr_of_pairs_matches_published_values(
    counts: list[int], elo0: float, elo1: float, llr: float
) -> None:
    assert llr_pentanomial(counts, SprtConfig(elo0=elo0, elo1=elo1)) == pytest.approx(
        llr, abs=0.005
    )


@pytest.mark.parametrize("wins,draws,losses,elo0,elo1,llr", PUBLISHED_TRINOMIAL)
def test_llr_of_games_matches_published_values(
    wins: int, draws: int, losses: int, elo0: float, elo1: float, llr: float
) -> None:
    assert llr_trinomial(wins, draws, losses, SprtConfig(elo0=elo0, elo1=elo1)) == pytest.approx(
        llr, abs=0.005
    )


def test_llr_regularisation_by_hand() -> None:
    # mctslab's own prior (no published tool shares it): one won pair becomes LL 0.5,
    # WW 1.5, so m = 0.75, v = 0.1875, N = 1; s0 = 0.5, s1 = 1 / (1 + 10^(-10/400)) =
    # 0.51438718; LLR = (s1 - s0)(2m - s0 - s1) / (2v) = 0.01438718 * 0.48561282 / 0.375.
    cfg = SprtConfig()
    assert llr_pentanomial([0, 0, 0, 0, 1], cfg) == pytest.approx(0.01863094, abs=1e-8)
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


def error_rate_runs(cfg: SprtConfig, elo: float, runs: int, seed: int) -> dict[str | None, int]:
    """How often ``runs`` SPRTs between players ``elo`` apart end in H0, in H1, or not at all."""
    rng = np.random.default_rng(seed)
    ends: dict[str | None, int] = {"H0": 0, "H1": 0, None: 0}
    for _ in range(runs):
        sprt = Sprt(cfg)
        while sprt.decision is None and sprt.pairs < 20_000:
            for g1, g2 in game_scores(rng, elo, 512).reshape(-1, 2).tolist():
                sprt.add_pair(g1, g2)
                if sprt.decision is not None:
                    break
        ends[sprt.decision] += 1
    return ends


@pytest.mark.parametrize("truth", ["elo0", "elo1"])
def test_error_rates_are_alpha_and_beta(truth: str) -> None:
    # Wald's bounds promise: when A is exactly elo0 stronger, H1 is accepted about α of the
    # time; when it is exactly elo1 stronger, H0 about β of the time. α and β differ, so
    # that swapping them shows. Simulated matches (draws as in game_scores), 3000 SPRTs
    # each; the tolerance is 4 binomial standard deviations of the observed rate.
    cfg = SprtConfig(elo0=0.0, elo1=50.0, alpha=0.05, beta=0.10)
    runs = 3000
    elo, wrong, rate = (
        (cfg.elo0, "H1", cfg.alpha) if truth == "elo0" else (cfg.elo1, "H0", cfg.beta)
    )
    ends = error_rate_runs(cfg, elo, runs, seed=2026)
    assert ends[None] == 0  # every test decided
    tolerance = 4 * math.sqrt(rate * (1 - rate) / runs)
    assert ends[wrong] / runs == pytest.approx(rate, abs=tolerance), ends


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
