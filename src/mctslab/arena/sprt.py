"""Sequential probability ratio test for engine strength, as chess-engine testing runs it.

The question: is A stronger than B by ``elo1`` (H1) rather than by ``elo0``
(H0)? Games are played until the log-likelihood ratio ``LLR`` leaves Wald's
bounds (Wald 1945, "Sequential tests of statistical hypotheses")::

    lower = ln(β / (1 - α)),   upper = ln((1 - β) / α)

``LLR >= upper`` accepts H1, ``LLR <= lower`` accepts H0 (α = β = 0.05 gives
±2.944). α bounds the chance of accepting H1 when H0 holds, β the reverse.

The LLR is the generalized SPRT of the logistic Elo model in the normal
approximation of Michel Van den Bergh ("A simple approximation of the GSPRT",
https://www.cantate.be/Fishtest/GSPRT_approximation.pdf), the one fishtest
(``LLR_alt2`` in ``server/fishtest/stats/LLRcalc.py``) and cutechess-style
tools use. With ``s0 = elo_to_score(elo0)``, ``s1 = elo_to_score(elo1)``,
``N`` observations of mean score ``m`` and variance ``v``::

    LLR = N · (s1 - s0) · (2m - s0 - s1) / (2v)

An observation is either a *pair* of games with colours swapped (pentanomial
model: the pair scores 0, 1/2, 1, 3/2 or 2, taken per game as 0, 1/4, 1/2, 3/4
or 1, so ``m`` is the per-game score and ``v`` the variance of the pair's
per-game average), or a single game (trinomial model: 0, 1/2, 1). Pairs are
what fishtest runs: the colour-swapped twin cancels most of the opening and
first-move bias, so ``v`` is smaller and tests end sooner. Pairs and unpaired
games added to one :class:`Sprt` are independent samples; their LLRs add.

Regularisation. When all observations are equal ``v`` is 0. Half a
pseudo-observation at each extreme (a lost and a won pair, or a lost and a won
game) is added to the counts before ``m`` and ``v`` are taken; ``N`` stays the
real count. On thousands of games this moves ``m`` and ``v`` by O(1/N). On a
run of nothing but won pairs the LLR grows like ``N²`` and H1 is accepted
after about 15 pairs at elo0=0, elo1=10 (the exact GSPRT needs about 100);
fishtest's ``regularize`` (empty cells set to 1e-3) accepts after one pair,
harmless when results arrive in batches of hundreds but not game by game.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from mctslab.arena.ratings import Z95, elo_to_score, score_to_elo
from mctslab.core.errors import InvalidConfigError

__all__ = [
    "PENTANOMIAL_VALUES",
    "PRIOR",
    "TRINOMIAL_VALUES",
    "Sprt",
    "SprtConfig",
    "llr_pentanomial",
    "llr_trinomial",
]

# Per-game score of each outcome class: pairs LL, LD, DD or WL, WD, WW; games L, D, W.
PENTANOMIAL_VALUES = (0.0, 0.25, 0.5, 0.75, 1.0)
TRINOMIAL_VALUES = (0.0, 0.5, 1.0)
# Pseudo-count added to the worst and to the best outcome class (see the module docstring).
PRIOR = 0.5

_GAME_SCORES = (0.0, 0.5, 1.0)

Decision = Literal["H1", "H0"]


@dataclass(frozen=True)
class SprtConfig:
    """Hypotheses H0: A is ``elo0`` stronger, H1: ``elo1`` stronger; error rates α, β.

    Defaults are fishtest's old standard: [0, 10] Elo at α = β = 0.05.
    """

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        for name in ("elo0", "elo1", "alpha", "beta"):
            if not math.isfinite(getattr(self, name)):
                raise InvalidConfigError(f"SPRT {name} must be finite, got {getattr(self, name)}")
        if not 0.0 < self.alpha < 1.0:
            raise InvalidConfigError(f"SPRT alpha must lie in (0, 1), got {self.alpha}")
        if not 0.0 < self.beta < 1.0:
            raise InvalidConfigError(f"SPRT beta must lie in (0, 1), got {self.beta}")
        if not self.elo0 < self.elo1:
            raise InvalidConfigError(
                f"SPRT needs elo0 < elo1, got elo0={self.elo0}, elo1={self.elo1}"
            )

    @property
    def lower(self) -> float:
        """Wald's lower bound ``ln(β / (1 - α))``: at or below it H0 is accepted."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """Wald's upper bound ``ln((1 - β) / α)``: at or above it H1 is accepted."""
        return math.log((1.0 - self.beta) / self.alpha)

    def to_dict(self) -> dict[str, float]:
        return {"elo0": self.elo0, "elo1": self.elo1, "alpha": self.alpha, "beta": self.beta}


def _llr(counts: Sequence[float], values: Sequence[float], cfg: SprtConfig) -> float:
    """``N·(s1 - s0)·(2m - s0 - s1)/(2v)`` with ``m, v`` from the regularised counts."""
    n = float(sum(counts))
    if n == 0:
        return 0.0
    reg = list(map(float, counts))
    reg[0] += PRIOR
    reg[-1] += PRIOR
    total = sum(reg)
    m = sum(c * x for c, x in zip(reg, values, strict=True)) / total
    v = sum(c * (x - m) ** 2 for c, x in zip(reg, values, strict=True)) / total
    s0, s1 = elo_to_score(cfg.elo0), elo_to_score(cfg.elo1)
    return n * (s1 - s0) * (2.0 * m - s0 - s1) / (2.0 * v)


def llr_pentanomial(counts: Sequence[int], cfg: SprtConfig) -> float:
    """LLR of game pairs; ``counts`` = pairs scoring 0, 1/2, 1, 3/2, 2 (LL, LD, DD+WL, WD, WW)."""
    if len(counts) != 5 or min(counts) < 0:
        raise InvalidConfigError(f"need 5 non-negative pentanomial counts, got {list(counts)}")
    return _llr(counts, PENTANOMIAL_VALUES, cfg)


def llr_trinomial(wins: int, draws: int, losses: int, cfg: SprtConfig) -> float:
    """LLR of single games won, drawn and lost by A."""
    if min(wins, draws, losses) < 0:
        raise InvalidConfigError(
            f"game counts must be non-negative, got W={wins} D={draws} L={losses}"
        )
    return _llr((losses, draws, wins), TRINOMIAL_VALUES, cfg)


def _check_score(score: float) -> None:
    if score not in _GAME_SCORES:
        raise InvalidConfigError(f"a game score must be 0, 0.5 or 1, got {score!r}")


def _finite_or_none(x: float) -> float | None:
    return x if math.isfinite(x) else None


class Sprt:
    """A running SPRT of A against B; feed it pairs (preferred) or single games.

    The first bound crossed decides, as the test stops there: results added
    after a decision are counted (and move ``llr``) but do not change
    ``decision``.
    """

    def __init__(self, config: SprtConfig | None = None) -> None:
        self.config = config if config is not None else SprtConfig()
        self._penta = [0, 0, 0, 0, 0]
        self._single = [0, 0, 0]  # unpaired games lost, drawn, won by A
        self._wdl = [0, 0, 0]  # all games: won, drawn, lost by A
        self._decision: Decision | None = None

    def add_pair(self, score_a_game1: float, score_a_game2: float) -> None:
        """Record a colour-swapped pair: A's score in each game (0, 0.5 or 1)."""
        _check_score(score_a_game1)
        _check_score(score_a_game2)
        self._penta[round(2 * (score_a_game1 + score_a_game2))] += 1
        for s in (score_a_game1, score_a_game2):
            self._wdl[2 - round(2 * s)] += 1
        self._decide()

    def add_game(self, score: float) -> None:
        """Record an unpaired game: A's score (0, 0.5 or 1)."""
        _check_score(score)
        self._single[round(2 * score)] += 1
        self._wdl[2 - round(2 * score)] += 1
        self._decide()

    def _decide(self) -> None:
        if self._decision is None:
            llr = self.llr
            if llr >= self.upper:
                self._decision = "H1"
            elif llr <= self.lower:
                self._decision = "H0"

    @property
    def llr(self) -> float:
        """Log-likelihood ratio of H1 against H0: pairs' plus unpaired games'."""
        lost, drawn, won = self._single
        return llr_pentanomial(self._penta, self.config) + llr_trinomial(
            won, drawn, lost, self.config
        )

    @property
    def lower(self) -> float:
        return self.config.lower

    @property
    def upper(self) -> float:
        return self.config.upper

    @property
    def decision(self) -> Decision | None:
        """``"H1"`` (A is ``elo1`` stronger), ``"H0"``, or ``None`` while the test runs."""
        return self._decision

    @property
    def pairs(self) -> int:
        return sum(self._penta)

    @property
    def games(self) -> int:
        return 2 * self.pairs + sum(self._single)

    def elo_estimate(self) -> tuple[float | None, float | None, float | None]:
        """A's Elo advantage and its 95% interval: ``(elo, low, high)``, ``None`` if infinite.

        The per-game score ``m`` with standard error from the variance of the
        pair scores (and of the unpaired games), ``sqrt(Σ var) / games``;
        the interval ``m ± 1.96·se`` is mapped through ``score_to_elo``.
        """
        games = self.games
        if games == 0:
            return None, None, None
        points = sum(c * 2 * x for c, x in zip(self._penta, PENTANOMIAL_VALUES, strict=True))
        points += sum(c * x for c, x in zip(self._single, TRINOMIAL_VALUES, strict=True))
        m = points / games
        var_total = 0.0  # variance of the total points, summed over independent samples
        for counts, values, per in (
            (self._penta, PENTANOMIAL_VALUES, 2.0),
            (self._single, TRINOMIAL_VALUES, 1.0),
        ):
            n = sum(counts)
            if n:
                mean = sum(c * per * x for c, x in zip(counts, values, strict=True)) / n
                var_total += sum(
                    c * (per * x - mean) ** 2 for c, x in zip(counts, values, strict=True)
                )
        half = Z95 * math.sqrt(var_total) / games
        low, high = max(0.0, m - half), min(1.0, m + half)
        return (
            _finite_or_none(score_to_elo(m)),
            _finite_or_none(score_to_elo(low)),
            _finite_or_none(score_to_elo(high)),
        )

    def status(self) -> dict[str, Any]:
        """JSON-ready state of the test (no ``inf``/``nan``)."""
        won, drawn, lost = self._wdl
        elo, low, high = self.elo_estimate()
        return {
            **self.config.to_dict(),
            "llr": self.llr,
            "lower": self.lower,
            "upper": self.upper,
            "decision": self.decision,
            "games": self.games,
            "pairs": self.pairs,
            "wins": won,
            "draws": drawn,
            "losses": lost,
            "pentanomial": list(self._penta),
            "score": (won + 0.5 * drawn) / self.games if self.games else None,
            "elo": elo,
            "elo_low": low,
            "elo_high": high,
        }
