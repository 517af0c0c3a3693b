"""Elo ratings from game results by maximum likelihood.

The model is the logistic Elo model (Elo 1978, "The Rating of Chessplayers,
Past and Present"), i.e. the Bradley-Terry model (Bradley and Terry 1952) on
the Elo scale::

    p(a beats b) = 1 / (1 + 10^(-(R_a - R_b) / 400))

Draws count as half a win and half a loss, so a game in which ``a`` scores
``s`` in {0, 1/2, 1} against ``b`` adds ``s·log p + (1 - s)·log(1 - p)`` to the
log-likelihood. :func:`compute_ratings` maximises the sum over all games by
Newton's method (the log-likelihood is concave; a backtracking line search
keeps every step uphill), with the anchor player fixed at ``anchor_elo``.
Rating tools such as Ordo fit the same model (less its first-move advantage).

Intervals are ``elo ± 1.96·sqrt(diag(I⁻¹))`` where ``I`` is the observed Fisher
information (minus the Hessian of the log-likelihood) with the anchor's row and
column removed: each interval is relative to the anchor, whose own interval is
``[anchor_elo, anchor_elo]``. With draws the per-game score varies less than
the model assumes, so the intervals are conservative.

When the likelihood has no finite maximum. Draw an edge ``x -> y`` when ``x``
scored at least half a point against ``y`` in some game. A finite maximum
exists exactly when this graph is strongly connected (Zermelo 1929; Ford
1957). Otherwise its strongly connected components are ordered: if players of
component D scored against component E but never the reverse, the likelihood
grows as D's ratings move away above E's without bound. The rule here:

- The anchor's component gets finite ratings, fitted on the games inside it
  (a game across components is one-sided and carries no finite information).
- A player with a chain of such edges to the anchor, but none back, is
  infinitely above it: ``unbounded="+"`` and ``elo/low/high`` are ``None``.
  Symmetrically a player the anchor reaches but who cannot reach back is
  ``unbounded="-"``. A player who won every game is ``"+"``, one who lost every
  game ``"-"``, and removing them can reveal more such players: the component
  rule covers that iteration and cycles of one-sided groups alike.
- A player ordered neither way (no games linking it to the anchor, or only
  one-sided results pointing away on both sides) is not comparable with the
  anchor: ``comparable=False``, ``elo/low/high`` and ``unbounded`` are ``None``.

The default anchor is the first player by name of the largest component (ties
go to the component holding the alphabetically first name), so with all
players comparable it is simply the first player by name, and a player who won
everything does not turn everyone else into ``"-"``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from mctslab.core.errors import InvalidConfigError

__all__ = [
    "ELO_PER_NATURAL_UNIT",
    "Z95",
    "GameOutcome",
    "PlayerRating",
    "Ratings",
    "compute_ratings",
    "elo_to_score",
    "format_table",
    "mean_interval",
    "score_interval",
    "score_to_elo",
    "wilson_interval",
]

# 400 / ln 10: Elo points per unit of the natural logit, the scale Newton's method works in.
ELO_PER_NATURAL_UNIT = 400.0 / math.log(10.0)
# Two-sided 95% normal quantile, rounded as the textbooks (and cutechess) round it.
Z95 = 1.96

_SCORES = (0.0, 0.5, 1.0)


def elo_to_score(elo: float) -> float:
    """Expected score of a player ``elo`` points stronger: ``1 / (1 + 10^(-elo/400))``."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def score_to_elo(score: float) -> float:
    """Elo difference giving expected score ``score``: ``-400·log10(1/score - 1)``.

    The inverse of :func:`elo_to_score`; ``score`` 1 gives ``inf`` and 0 gives
    ``-inf``. A score outside ``[0, 1]`` raises :class:`InvalidConfigError`.
    """
    if not 0.0 <= score <= 1.0 or math.isnan(score):
        raise InvalidConfigError(f"a score must lie in [0, 1], got {score}")
    if score == 1.0:
        return math.inf
    if score == 0.0:
        return -math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float, float]:
    """Rate and Wilson's score interval (Wilson 1927): ``(p̂, low, high)``.

    ``(p̂ + z²/2n ± z·sqrt(p̂(1-p̂)/n + z²/4n²)) / (1 + z²/n)``: unlike the normal
    interval ``p̂ ± z·sqrt(p̂(1-p̂)/n)`` it stays inside ``[0, 1]`` and keeps its
    coverage at rates near 0 or 1 (Brown, Cai & DasGupta 2001), where the normal one
    collapses to a point: 4 wins in 4 games are not a certain win. ``successes`` may
    count draws as halves. No trials gives ``(0, 0, 1)``.

    >>> [round(x, 4) for x in wilson_interval(0, 10)]
    [0.0, 0.0, 0.2775]
    """
    if not 0 <= successes <= n:
        raise InvalidConfigError(f"need 0 <= successes <= n, got {successes} of {n}")
    if n == 0:
        return 0.0, 0.0, 1.0
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1.0 - p) / n + z * z / (4.0 * n * n)) / denom
    return p, max(0.0, centre - half), min(1.0, centre + half)


# Student's t, two-sided 95%, by degrees of freedom 1..30 (beyond: the normal 1.96).
_T95 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
        2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
        2.060, 2.056, 2.052, 2.048, 2.045, 2.042)  # fmt: skip


def mean_interval(values: list[float]) -> tuple[float, float, float]:
    """A mean and its 95% interval from Student's t: ``(mean, low, high)``,
    ``mean ± t(0.975, n - 1) · s / sqrt(n)`` (``s`` the sample standard deviation). Over
    few runs (5 seeds: ``t = 2.776``) it is much wider than the normal ``1.96``. One value
    gives ``(v, v, v)``.

    >>> [round(x, 3) for x in mean_interval([1.0, 2.0, 3.0, 4.0, 5.0])]
    [3.0, 1.037, 4.963]
    """
    n = len(values)
    if n == 0:
        raise InvalidConfigError("mean_interval: no values")
    mean = math.fsum(values) / n
    if n == 1:
        return mean, mean, mean
    s = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1))
    t = _T95[n - 2] if n - 1 <= len(_T95) else Z95
    half = t * s / math.sqrt(n)
    return mean, mean - half, mean + half


def score_interval(
    wins: int, draws: int, losses: int, z: float = Z95
) -> tuple[float, float, float]:
    """Mean score and its Wilson confidence interval: ``(mean, low, high)``.

    ``mean = (W + D/2) / n``, the interval :func:`wilson_interval` of ``W + D/2``
    successes in ``n`` games (``z`` = 1.96: 95%). The normal approximation used
    before said ``1.000 (1.000-1.000)`` after 4 wins in 4 games; Wilson's says
    ``1.000 (0.510-1.000)``. Counting a draw as half a win is conservative: the
    interval is as wide as if every draw were a coin flip. No games gives
    ``(0.5, 0.0, 1.0)``: nothing known.
    """
    if min(wins, draws, losses) < 0:
        raise InvalidConfigError(
            f"game counts must be non-negative, got W={wins} D={draws} L={losses}"
        )
    n = wins + draws + losses
    if n == 0:
        return 0.5, 0.0, 1.0
    return wilson_interval(wins + 0.5 * draws, n, z)


@dataclass(frozen=True)
class GameOutcome:
    """One game: ``a`` scored ``score`` (1 win, 0.5 draw, 0 loss) against ``b``."""

    a: str
    b: str
    score: float

    def __post_init__(self) -> None:
        if self.score not in _SCORES:
            raise InvalidConfigError(f"a game score must be 0, 0.5 or 1, got {self.score!r}")
        if self.a == self.b:
            raise InvalidConfigError(f"a player cannot play itself: {self.a!r}")


@dataclass(frozen=True)
class PlayerRating:
    """One player's record and rating relative to the anchor.

    ``score`` is the fraction of points won; ``elo`` the maximum-likelihood
    rating and ``[low, high]`` its 95% interval relative to the anchor.
    ``unbounded`` is ``"+"`` (``"-"``) when the maximum likelihood puts the
    player infinitely above (below) the anchor; ``comparable`` is ``False``
    when the results order the player neither way. In both cases ``elo``,
    ``low`` and ``high`` are ``None``. See the module docstring for the rule.
    """

    name: str
    games: int
    wins: int
    draws: int
    losses: int
    score: float
    elo: float | None
    low: float | None
    high: float | None
    unbounded: str | None
    comparable: bool = True

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "score": self.score,
            "elo": self.elo,
            "low": self.low,
            "high": self.high,
            "unbounded": self.unbounded,
            "comparable": self.comparable,
        }


@dataclass(frozen=True)
class Ratings:
    """Ratings of every player, best first, and the head-to-head records.

    ``players`` is sorted ``"+"`` first (by score), then by ``elo`` descending,
    then ``"-"`` (by score), then the players not comparable with the anchor;
    names break ties. ``pairwise[(x, y)]`` is ``(wins, draws, losses)`` of ``x``
    against ``y`` for every ordered pair that met.
    """

    anchor: str
    anchor_elo: float
    players: tuple[PlayerRating, ...]
    pairwise: dict[tuple[str, str], tuple[int, int, int]]
    games: int

    def player(self, name: str) -> PlayerRating:
        """The rating of ``name`` (``KeyError`` listing the players if absent)."""
        for p in self.players:
            if p.name == name:
                return p
        raise KeyError(f"no player {name!r}; players: {[p.name for p in self.players]}")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data: no ``inf`` or ``nan`` (missing ratings are ``None``)."""
        return {
            "games": self.games,
            "anchor": self.anchor,
            "anchor_elo": self.anchor_elo,
            "players": [p.to_dict() for p in self.players],
            "pairwise": [
                {"a": a, "b": b, "wins": w, "draws": d, "losses": lost}
                for (a, b), (w, d, lost) in sorted(self.pairwise.items())
            ],
        }


def compute_ratings(
    outcomes: Iterable[GameOutcome], anchor: str | None = None, anchor_elo: float = 0.0
) -> Ratings:
    """Maximum-likelihood Elo ratings of the players in ``outcomes``.

    ``anchor`` is held at ``anchor_elo``; every other rating and interval is
    relative to it. Unknown anchors raise :class:`InvalidConfigError`. See the
    module docstring for the model, the intervals and the rule for players
    whose likelihood has no finite maximum (and for the default anchor).
    """
    # Head-to-head W/D/L keyed by ordered pair; both orders are kept.
    pairwise: dict[tuple[str, str], list[int]] = {}
    n_games = 0
    for g in outcomes:
        n_games += 1
        slot = {1.0: 0, 0.5: 1, 0.0: 2}[g.score]
        pairwise.setdefault((g.a, g.b), [0, 0, 0])[slot] += 1
        pairwise.setdefault((g.b, g.a), [0, 0, 0])[2 - slot] += 1
    if n_games == 0:
        if anchor is not None:
            raise InvalidConfigError(f"unknown anchor {anchor!r}: there are no games")
        return Ratings(anchor="", anchor_elo=anchor_elo, players=(), pairwise={}, games=0)

    names = sorted({a for a, _ in pairwise})
    index = {name: i for i, name in enumerate(names)}
    # scored[x] = players y against whom x scored at least a draw: the edges x -> y.
    scored: list[set[int]] = [set() for _ in names]
    for (a, b), (w, d, _) in pairwise.items():
        if w + d > 0:
            scored[index[a]].add(index[b])
    reach = [_reachable(scored, i) for i in range(len(names))]

    if anchor is None:
        anchor = names[_default_anchor(reach)]
    elif anchor not in index:
        raise InvalidConfigError(f"unknown anchor {anchor!r}; players: {names}")
    k = index[anchor]
    component = sorted(i for i in reach[k] if k in reach[i])

    elos = _fit(component, k, names, pairwise)

    players = []
    for i, name in enumerate(names):
        w = sum(pairwise[(name, o)][0] for o in names if (name, o) in pairwise)
        d = sum(pairwise[(name, o)][1] for o in names if (name, o) in pairwise)
        lost = sum(pairwise[(name, o)][2] for o in names if (name, o) in pairwise)
        n = w + d + lost
        elo = low = high = None
        unbounded = None
        comparable = True
        if i in elos:
            centre, half = elos[i]
            elo, low, high = (
                anchor_elo + centre,
                anchor_elo + centre - half,
                anchor_elo + centre + half,
            )
        elif k in reach[i]:
            unbounded = "+"
        elif i in reach[k]:
            unbounded = "-"
        else:
            comparable = False
        players.append(
            PlayerRating(
                name=name,
                games=n,
                wins=w,
                draws=d,
                losses=lost,
                score=(w + 0.5 * d) / n,
                elo=elo,
                low=low,
                high=high,
                unbounded=unbounded,
                comparable=comparable,
            )
        )

    def order(p: PlayerRating) -> tuple[int, float, str]:
        if p.elo is not None:
            return 1, -p.elo, p.name
        group = {"+": 0, "-": 2}.get(p.unbounded or "", 3)
        return group, -p.score, p.name

    return Ratings(
        anchor=anchor,
        anchor_elo=anchor_elo,
        players=tuple(sorted(players, key=order)),
        pairwise={pair: (c[0], c[1], c[2]) for pair, c in pairwise.items()},
        games=n_games,
    )


def _reachable(edges: list[set[int]], start: int) -> set[int]:
    """Every node reachable from ``start`` (itself included) by depth-first search."""
    seen = {start}
    stack = [start]
    while stack:
        for j in edges[stack.pop()]:
            if j not in seen:
                seen.add(j)
                stack.append(j)
    return seen


def _default_anchor(reach: list[set[int]]) -> int:
    """First name (lowest index) of the largest strongly connected component."""
    best: tuple[int, int] | None = None  # (-size, first index)
    for i in range(len(reach)):
        size = sum(1 for j in reach[i] if i in reach[j])
        key = (-size, i)
        if best is None or key < best:
            best = key
    assert best is not None
    return best[1]


def _fit(
    component: list[int],
    anchor: int,
    names: list[str],
    pairwise: dict[tuple[str, str], list[int]],
) -> dict[int, tuple[float, float]]:
    """Newton's method on the games inside ``component``: ``{player: (elo, 95% half-width)}``.

    Works in natural logits ``θ = R·ln10/400`` so that ``p = σ(θ_a - θ_b)``.
    The gradient is ``∂L/∂θ_i = Σ_j (S_ij - n_ij·p_ij)`` and the observed
    information ``I_ii = Σ_j n_ij·p_ij(1-p_ij)``, ``I_ij = -n_ij·p_ij(1-p_ij)``
    (Hunter 2004, "MM algorithms for generalized Bradley-Terry models", gives
    the same derivatives); the anchor's coordinate is fixed at 0.
    """
    pos = {p: c for c, p in enumerate(component)}
    rows: list[tuple[int, int, float, float]] = []  # (i, j, games, score of i), i < j
    for x in component:
        for y in component:
            if x < y and (names[x], names[y]) in pairwise:
                w, d, lost = pairwise[(names[x], names[y])]
                rows.append((pos[x], pos[y], w + d + lost, w + 0.5 * d))
    out: dict[int, tuple[float, float]] = {anchor: (0.0, 0.0)}
    if not rows:
        return out
    i_idx = np.array([r[0] for r in rows], dtype=np.int64)
    j_idx = np.array([r[1] for r in rows], dtype=np.int64)
    n = np.array([r[2] for r in rows], dtype=np.float64)
    s = np.array([r[3] for r in rows], dtype=np.float64)
    free = np.array([c for c, p in enumerate(component) if p != anchor], dtype=np.int64)

    def loglik(theta: NDArray[np.float64]) -> float:
        d = theta[i_idx] - theta[j_idx]
        # log σ(x) = -log(1 + e^-x), written with logaddexp so large |x| does not overflow.
        return float(-np.sum(s * np.logaddexp(0.0, -d) + (n - s) * np.logaddexp(0.0, d)))

    def derivatives(theta: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        p = 1.0 / (1.0 + np.exp(-(theta[i_idx] - theta[j_idx])))
        r = s - n * p
        grad = np.zeros(len(component))
        np.add.at(grad, i_idx, r)
        np.add.at(grad, j_idx, -r)
        w = n * p * (1.0 - p)
        info = np.zeros((len(component), len(component)))
        np.add.at(info, (i_idx, i_idx), w)
        np.add.at(info, (j_idx, j_idx), w)
        np.add.at(info, (i_idx, j_idx), -w)
        np.add.at(info, (j_idx, i_idx), -w)
        return grad[free], info[np.ix_(free, free)]

    theta = np.zeros(len(component))
    current = loglik(theta)
    for _ in range(200):
        grad, info = derivatives(theta)
        step = np.linalg.solve(info, grad)
        t = 1.0
        while True:
            trial = theta.copy()
            trial[free] += t * step
            value = loglik(trial)
            # Accept any step that does not go downhill; at the optimum the
            # Newton step is rounding noise and is taken as is.
            if value >= current - 1e-12 * abs(current) or t < 1e-8:
                break
            t *= 0.5
        theta, current = trial, value
        if float(np.max(np.abs(t * step))) < 1e-13:
            break
    _, info = derivatives(theta)
    var = np.diag(np.linalg.inv(info))
    for c, p in enumerate(free):
        half = Z95 * ELO_PER_NATURAL_UNIT * math.sqrt(float(var[c]))
        out[component[p]] = (ELO_PER_NATURAL_UNIT * float(theta[p]), half)
    return out


def format_table(r: Ratings) -> str:
    """Plain-text ranking (rank, name, elo ± 95%, W/D/L, score, games) and head-to-head table.

    Unbounded ratings print as ``+inf`` / ``-inf``, players not comparable with
    the anchor as ``?``. Cell (x, y) of the head-to-head table is ``W-D-L`` of
    ``x`` against ``y``; ``.`` means they did not meet.
    """
    if not r.players:
        return "no games\n"
    names = [p.name for p in r.players]
    width = max(4, *(len(n) for n in names))
    lines = [
        f"{r.games} games; anchor {r.anchor} = {r.anchor_elo:g} Elo; "
        "intervals are 95% and relative to the anchor",
        "",
        f"{'rank':>4}  {'name':<{width}}  {'elo':>8}  {'±95%':>7}  {'W-D-L':>14}  {'score':>6}  {'games':>6}",
    ]
    rank = 0
    for p in r.players:
        if p.elo is not None and p.low is not None and p.high is not None:
            elo, pm = f"{p.elo:.1f}", f"{(p.high - p.low) / 2:.1f}"
        else:
            elo, pm = {"+": "+inf", "-": "-inf"}.get(p.unbounded or "", "?"), ""
        if p.name == r.anchor:
            pm = "anchor"
        rank_text = "?"
        if p.comparable:
            rank += 1
            rank_text = str(rank)
        wdl = f"{p.wins}-{p.draws}-{p.losses}"
        lines.append(
            f"{rank_text:>4}  {p.name:<{width}}  {elo:>8}  {pm:>7}  {wdl:>14}  {p.score:>6.3f}  {p.games:>6}"
        )
    lines += ["", "head to head (row vs column, W-D-L)"]
    cells = {
        (x, y): "-".join(str(v) for v in r.pairwise[(x, y)]) if (x, y) in r.pairwise else "."
        for x in names
        for y in names
    }
    col = [max(len(y), *(len(cells[(x, y)]) for x in names if x != y), 1) for y in names]
    lines.append(" " * width + "".join(f"  {y:>{c}}" for y, c in zip(names, col, strict=True)))
    for x in names:
        row = "".join(
            f"  {'x' if x == y else cells[(x, y)]:>{c}}" for y, c in zip(names, col, strict=True)
        )
        lines.append(f"{x:<{width}}{row}")
    return "\n".join(lines) + "\n"
