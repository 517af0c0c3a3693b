"""Tuning a numeric player option by tournaments: which ``c`` (or budget, or depth) plays best?

A *grid* names one option of a player spec and the values to try
(:func:`parse_grid`: ``"c=0.25:3.0:0.25"`` or ``"c=0.5,1,2"``). Each value makes
a candidate, the base spec with that option set (``mcts`` with ``c=0.5`` is
``mcts:c=0.5``). Two designs:

* **against an opponent** (``opponent`` given): every candidate plays ``games``
  games against the same fixed opponent, colours swapped in pairs. The score of
  candidate ``v`` is ``s_v = (W + D/2) / n`` with the 95% interval of
  :func:`mctslab.arena.ratings.score_interval`, and its Elo difference to the opponent
  is ``-400·log10(1/s_v - 1)`` (the interval's ends mapped the same way).
* **round robin** (no opponent): the candidates play each other, ``games``
  games per pairing, and maximum-likelihood Elo ratings
  (:func:`mctslab.arena.ratings.compute_ratings`, anchored at the first value) rank
  them. In a balanced round robin the Bradley-Terry maximum-likelihood order is
  the order of the total scores (the scores are sufficient statistics; Zermelo
  1929), so the best value is the one with the highest score either way.

The comparison is *paired* (common random numbers): pair ``k`` of every
pairing uses the same seed, ``derive_seed(seed, "tune", k)``, for the game, the
players' generators and the random opening, whichever value plays. Differences
between values are then not blurred by the luck of the seeds.

How sure we are:

* ``p_best``: the probability that each value is the best, by a bootstrap over
  the seed pairs (Efron & Tibshirani 1993): ``B`` resamples of the ``K`` pair
  indices with replacement, the *same* indices for every value so the pairing
  is kept; in each resample the value(s) with the highest mean score get the
  credit (shared on ties). Seeded, hence reproducible. With few pairs (under
  about ten) the bootstrap cannot see the spread it did not sample and is
  overconfident: read the sign test then.
* best against runner-up: the per-pair score difference
  ``d_k = s_best,k - s_second,k``; ``margin`` is its mean with the paired
  normal interval ``mean ± 1.96·sd(d)/sqrt(K)``, and ``significant`` is a
  two-sided sign test on the pairs (``P(Bin(n₊ + n₋, 1/2)`` as extreme as
  ``n₊``) < 0.05). The sign test is exact and stays honest with a handful of
  pairs, where a sample variance can be zero. Picking the best and then testing
  it against the runner-up favours the winner (the winner's curse): read a
  marginal "significant" as "worth a confirming SPRT" (``mctslab sprt``).

Everything is played by :func:`mctslab.arena.tournament.run_arena` as one run of kind
``"tune"`` in the results store, so ``resume`` continues an interrupted grid.
As in the arena, a player that reads the full state (``mcts``, ``minimax``) is
refused at a game with hidden information unless ``allow_cheating``; the result
then names it (:attr:`TuneResult.cheating`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from mctslab.arena.ratings import (
    Z95,
    GameOutcome,
    Ratings,
    compute_ratings,
    score_interval,
    score_to_elo,
)
from mctslab.arena.store import GameRecord, ResultStore
from mctslab.arena.tournament import (
    ArenaConfig,
    Entrant,
    GameTask,
    check_players,
    derive_seed,
    run_arena,
)
from mctslab.core.errors import InvalidConfigError
from mctslab.core.options import Option, options_of
from mctslab.core.registry import make
from mctslab.core.text import strict_float
from mctslab.players.player import parse_spec, player_kinds

__all__ = [
    "INTEGER_OPTIONS",
    "MAX_GRID_POINTS",
    "TuneConfig",
    "TuneResult",
    "TuneValue",
    "format_value",
    "parse_grid",
    "plot_tune",
    "run_tune",
    "sign_test",
    "tune",
    "with_option",
]


def _spec_options() -> list[Option]:
    """Every option a player spec sets: those of the configs of each player kind's row
    (:func:`mctslab.players.player.player_kinds`), read from their option schema."""
    return [
        opt
        for kind in player_kinds().values()
        for config in kind.options
        for opt in options_of(config).values()
        if opt.spec
    ]


#: Player options whose values are integers, by name and alias: an option is an integer
#: where its kind is ``int`` in any config a spec sets, so a grid over it holds ints.
INTEGER_OPTIONS = frozenset(
    name for opt in _spec_options() if opt.kind == "int" for name in opt.names
)
#: More grid points than this is a typo, not a plan (each point is a match).
MAX_GRID_POINTS = 1000
#: Bootstrap resamples behind ``p_best``: the Monte Carlo error of a probability is
#: at most ``0.5 / sqrt(B)`` ≈ 0.008.
BOOTSTRAP_SAMPLES = 4000
#: The name of the fixed opponent in the store.
OPPONENT = "opponent"


def _same_options() -> dict[str, set[str]]:
    """Options that are the same option under another name (the schema's aliases):
    setting one replaces the others."""
    same: dict[str, set[str]] = {}
    for opt in _spec_options():
        if opt.aliases:
            same.setdefault(opt.name, set()).update(opt.names)
    return same


_SAME_OPTION = _same_options()
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


# Grids -------------------------------------------------------------------------------------


def _number(raw: str, name: str, integer: bool, text: str) -> int | float:
    """One grid number: an int for an integer option (``"100"``, ``"1e3"``), else a float."""
    try:
        value = strict_float(raw)
    except ValueError:
        raise InvalidConfigError(
            f"bad grid {text!r}: {raw.strip()!r} is not a number in ASCII digits"
        ) from None
    if not math.isfinite(value):
        raise InvalidConfigError(f"bad grid {text!r}: {raw.strip()!r} is not a finite number")
    if integer:
        if not value.is_integer():
            raise InvalidConfigError(
                f"bad grid {text!r}: {name} takes integers, got {raw.strip()!r}"
            )
        return int(value)
    return value


def parse_grid(text: str) -> tuple[str, list[int | float]]:
    """``"c=0.25:3.0:0.25"`` or ``"c=0.5,1,2"`` -> ``("c", [values])``.

    ``start:stop:step`` runs from ``start`` to ``stop`` inclusive (``stop`` is
    reached if it lies within ``1e-9`` steps of the grid), ``step > 0``; float
    values are rounded to 12 decimals so ``0.1:0.3:0.1`` gives ``0.3``, not
    ``0.30000000000000004``. Options in :data:`INTEGER_OPTIONS` (``iterations``,
    ``depth``, ... : an ``int`` in the option schema) take integers and give ints; the
    others give floats.
    Bad grammar, an empty grid, a non-positive step, a repeated value or more
    than :data:`MAX_GRID_POINTS` values raise :class:`InvalidConfigError`.

    >>> parse_grid("c=0.5:1.5:0.25")
    ('c', [0.5, 0.75, 1.0, 1.25, 1.5])
    >>> parse_grid("iterations=100,1000")
    ('iterations', [100, 1000])
    """
    name, eq, body = text.partition("=")
    name = name.strip()
    if not eq or not _NAME.fullmatch(name):
        raise InvalidConfigError(
            f"bad grid {text!r}: write name=start:stop:step or name=v1,v2,..., e.g. c=0.25:3:0.25"
        )
    integer = name in INTEGER_OPTIONS
    values: list[int | float]
    if ":" in body:
        parts = body.split(":")
        if len(parts) != 3 or not all(p.strip() for p in parts):
            raise InvalidConfigError(f"bad grid {text!r}: a range is start:stop:step")
        start, stop, step = (_number(p, name, integer, text) for p in parts)
        if step <= 0:
            raise InvalidConfigError(f"bad grid {text!r}: the step must be positive, got {step}")
        if stop < start:
            raise InvalidConfigError(
                f"bad grid {text!r}: empty range (stop {stop} < start {start})"
            )
        count = math.floor((stop - start) / step + 1e-9) + 1
        if count > MAX_GRID_POINTS:
            raise InvalidConfigError(
                f"bad grid {text!r}: {count} values, more than {MAX_GRID_POINTS}"
            )
        if integer:
            values = [int(start + k * step) for k in range(count)]
        else:
            values = [round(start + k * step, 12) for k in range(count)]
    else:
        items = body.split(",")
        if not all(item.strip() for item in items):
            raise InvalidConfigError(f"bad grid {text!r}: an empty value in the list")
        values = [_number(item, name, integer, text) for item in items]
        if len(values) > MAX_GRID_POINTS:
            raise InvalidConfigError(
                f"bad grid {text!r}: {len(values)} values, more than {MAX_GRID_POINTS}"
            )
    repeated = sorted({v for v in values if values.count(v) > 1})
    if repeated:
        raise InvalidConfigError(f"bad grid {text!r}: value {repeated[0]} is given twice")
    return name, values


def format_value(value: int | float) -> str:
    """A grid value as written in a spec: ``200``, ``0.25``, ``1.0``, ``1e-05``."""
    return str(value) if isinstance(value, int) else repr(float(value))


def with_option(spec: str, key: str, value: int | float) -> str:
    """``spec`` with option ``key`` set to ``value`` (replacing it and its aliases).

    >>> with_option("mcts:iterations=500,c=1.4", "c", 0.5)
    'mcts:iterations=500,c=0.5'
    >>> with_option("mcts", "iters", 100)
    'mcts:iters=100'
    """
    kind, options = parse_spec(spec)
    same = next((names for names in _SAME_OPTION.values() if key in names), {key})
    out: list[str] = []
    placed = False
    for k, v in options.items():
        if k in same:
            if not placed:
                out.append(f"{key}={format_value(value)}")
                placed = True
        else:
            out.append(f"{k}={v}")
    if not placed:
        out.append(f"{key}={format_value(value)}")
    return f"{kind}:{','.join(out)}"


# Configuration and results -------------------------------------------------------------------


@dataclass(frozen=True)
class TuneConfig:
    """A tuning grid: option ``param`` of ``base_spec`` set to each of ``values``.

    ``opponent`` is a spec (every value plays ``games`` games against it) or
    ``None`` (round robin, ``games`` games per pairing). The rest is as in
    :class:`mctslab.arena.tournament.ArenaConfig` (``allow_cheating`` included). Players and
    game are checked on construction, so a bad grid fails before anything is played
    or stored.
    """

    game: str
    param: str
    values: tuple[int | float, ...]
    base_spec: str = "mcts"
    opponent: str | None = None
    games: int = 20
    seed: int = 0
    workers: int = 1
    time_per_move: float | None = None
    openings: int = 0
    game_params: tuple[tuple[str, Any], ...] = ()
    bootstrap: int = BOOTSTRAP_SAMPLES
    allow_cheating: bool = False

    def __post_init__(self) -> None:
        if not self.values:
            raise InvalidConfigError("a tuning grid needs at least one value")
        if len(set(self.values)) != len(self.values):
            raise InvalidConfigError("a tuning grid has a value twice")
        if self.opponent is None and len(self.values) < 2:
            raise InvalidConfigError("a round robin needs at least two values (or an opponent)")
        if self.bootstrap < 1:
            raise InvalidConfigError(f"bootstrap samples must be >= 1, got {self.bootstrap}")
        # The arena checks games, seeds, workers, time control; then every player is made once.
        check_players(self.arena_config(), make(self.game, **dict(self.game_params)))

    def names(self) -> list[str]:
        """The candidates' player names: ``c_0.25``, ``iterations_200``, ..."""
        return [f"{self.param}_{format_value(v)}" for v in self.values]

    def specs(self) -> list[str]:
        """The candidates' specs, in grid order."""
        return [with_option(self.base_spec, self.param, v) for v in self.values]

    @property
    def mode(self) -> str:
        """``"opponent"`` or ``"round-robin"``."""
        return "round-robin" if self.opponent is None else "opponent"

    def arena_config(self) -> ArenaConfig:
        """The one arena run that plays the whole grid."""
        players = [Entrant(n, s) for n, s in zip(self.names(), self.specs(), strict=True)]
        if self.opponent is not None:
            players.append(Entrant(OPPONENT, self.opponent))
        return ArenaConfig(
            game=self.game,
            players=tuple(players),
            games=self.games,
            game_params=self.game_params,
            time_per_move=self.time_per_move,
            seed=self.seed,
            openings=self.openings,
            workers=self.workers,
            allow_cheating=self.allow_cheating,
        )

    def tasks(self) -> list[GameTask]:
        """Every game, slot order: each pairing's ``games`` games, colours swapped in pairs.

        Pair ``k`` has the seed ``derive_seed(seed, "tune", k)`` in every pairing
        (not the arena's per-pairing seeds): the comparison between values is paired.
        """
        candidates = [Entrant(n, s) for n, s in zip(self.names(), self.specs(), strict=True)]
        if self.opponent is not None:
            pairings = [(c, Entrant(OPPONENT, self.opponent)) for c in candidates]
        else:
            pairings = [(a, b) for i, a in enumerate(candidates) for b in candidates[i + 1 :]]
        tasks: list[GameTask] = []
        for a, b in pairings:
            for g in range(self.games):
                seed = derive_seed(self.seed, "tune", g // 2)
                tasks.append(
                    GameTask(
                        slot=len(tasks),
                        game=self.game,
                        game_params=self.game_params,
                        seats=(a, b) if g % 2 == 0 else (b, a),
                        seed=seed,
                        openings=self.openings,
                        opening_seed=derive_seed(seed, "opening"),
                        time_per_move=self.time_per_move,
                        allow_cheating=self.allow_cheating,
                    )
                )
        return tasks


@dataclass(frozen=True)
class TuneValue:
    """One grid value's results.

    ``score`` (with the 95% interval ``[low, high]``) is its mean score: against
    the opponent, or over all its round-robin games. ``elo`` and its interval
    are against the opponent, or relative to the first value in a round robin;
    ``None`` where infinite (a value that won or lost every game). ``p_best`` is
    the bootstrap probability that it is the best value.
    """

    value: int | float
    name: str
    spec: str
    games: int
    wins: int
    draws: int
    losses: int
    score: float
    low: float
    high: float
    elo: float | None
    elo_low: float | None
    elo_high: float | None
    p_best: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "name": self.name,
            "spec": self.spec,
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "score": self.score,
            "low": self.low,
            "high": self.high,
            "elo": self.elo,
            "elo_low": self.elo_low,
            "elo_high": self.elo_high,
            "p_best": self.p_best,
        }


@dataclass(frozen=True)
class TuneResult:
    """A tuned grid: every value's results, the best one and how sure that is.

    ``margin`` is ``(mean, low, high)`` of the best value's score minus the
    runner-up's, per game over the seed pairs (``None`` with one value);
    ``p_value`` the sign test's and ``significant`` whether ``p_value < 0.05``
    (see the module docstring). ``run_id`` is the run in the store;
    ``played_now`` the games this call played (the rest were resumed); ``cheating``
    the names of the players allowed to read hidden information.
    """

    config: TuneConfig
    values: tuple[TuneValue, ...]
    best: TuneValue
    runner_up: TuneValue | None
    margin: tuple[float, float, float] | None
    p_value: float | None
    significant: bool
    run_id: int
    played_now: int
    ratings: Ratings | None = field(default=None, compare=False)
    cheating: tuple[str, ...] = ()

    @property
    def elo_reference(self) -> str:
        """What the Elo numbers are relative to."""
        if self.config.opponent is not None:
            return f"opponent {self.config.opponent}"
        return f"{self.values[0].name} (the first value)"

    def verdict(self) -> str:
        """One line: the best value, its score, how sure, against the runner-up."""
        b = self.best
        text = (
            f"best {self.config.param}={format_value(b.value)}: score {b.score:.3f} "
            f"[{b.low:.3f}, {b.high:.3f}], P(best) {b.p_best:.2f}"
        )
        if self.runner_up is None or self.margin is None or self.p_value is None:
            return text
        mean, low, high = self.margin
        word = "significant" if self.significant else "not significant"
        return (
            f"{text}; vs runner-up {self.config.param}={format_value(self.runner_up.value)}: "
            f"{mean:+.3f} [{low:+.3f}, {high:+.3f}] per game, sign test p={self.p_value:.3g} "
            f"({word} at 5%)"
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (no ``inf``/``nan``: infinite Elo differences are ``None``)."""
        c = self.config
        return {
            "game": c.game,
            "game_params": dict(c.game_params),
            "param": c.param,
            "mode": c.mode,
            "base_spec": c.base_spec,
            "opponent": c.opponent,
            "games": c.games,
            "seed": c.seed,
            "openings": c.openings,
            "time_per_move": c.time_per_move,
            "bootstrap": c.bootstrap,
            "run_id": self.run_id,
            "played_now": self.played_now,
            "elo_reference": self.elo_reference,
            "values": [v.to_dict() for v in self.values],
            "best": self.best.value,
            "runner_up": None if self.runner_up is None else self.runner_up.value,
            "margin": None
            if self.margin is None
            else dict(zip(("mean", "low", "high"), self.margin, strict=True)),
            "p_value": self.p_value,
            "significant": self.significant,
            "verdict": self.verdict(),
            "ratings": None if self.ratings is None else self.ratings.to_dict(),
            "cheating": list(self.cheating),
        }


# Statistics ----------------------------------------------------------------------------------


def sign_test(plus: int, minus: int) -> float:
    """Two-sided exact sign test: ``P`` of a split at least as uneven under ``Bin(n, 1/2)``.

    >>> sign_test(5, 0)
    0.0625
    >>> sign_test(2, 2)
    1.0
    """
    n = plus + minus
    if n == 0:
        return 1.0
    k = min(plus, minus)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2.0**n
    return min(1.0, 2.0 * tail)


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def _pair_matrices(
    records: Sequence[GameRecord], names: Sequence[str], per_pairing: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``points[v, k]`` and ``games[v, k]``: candidate ``v``'s points and games in seed pair ``k``.

    A game's slot ``s`` is game ``s % per_pairing`` of its pairing, whose pair is
    that ``// 2``; pairs ``k`` have the same seed in every pairing.
    """
    index = {n: i for i, n in enumerate(names)}
    pairs = (per_pairing + 1) // 2
    points = np.zeros((len(names), pairs))
    games = np.zeros((len(names), pairs))
    for r in records:
        if r.score is None:
            continue
        k = (r.slot % per_pairing) // 2
        for seat, name in enumerate(r.seats[:2]):
            if name in index:
                points[index[name], k] += r.score if seat == 0 else 1.0 - r.score
                games[index[name], k] += 1
    return points, games


def _p_best(
    points: NDArray[np.float64], games: NDArray[np.float64], samples: int, seed: int
) -> NDArray[np.float64]:
    """Bootstrap over seed pairs (same resampled pairs for every value): P(each value is best)."""
    v, k = points.shape
    if k == 0:
        return np.full(v, 1.0 / v)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, k, size=(samples, k))
    means = points[:, idx].sum(axis=2) / np.maximum(games[:, idx].sum(axis=2), 1.0)
    top = means >= means.max(axis=0, keepdims=True) - 1e-12
    credit = top / top.sum(axis=0, keepdims=True)
    out: NDArray[np.float64] = credit.mean(axis=1)
    return out


def _margin(
    points: NDArray[np.float64], games: NDArray[np.float64], a: int, b: int
) -> tuple[tuple[float, float, float], float]:
    """Per-pair score difference of ``a`` over ``b``: ``(mean, low, high)`` and the sign test p."""
    played = (games[a] > 0) & (games[b] > 0)
    d = points[a][played] / games[a][played] - points[b][played] / games[b][played]
    if d.size == 0:
        return (0.0, -1.0, 1.0), 1.0
    mean = float(d.mean())
    if d.size < 2:
        low, high = -1.0, 1.0
    else:
        half = Z95 * float(d.std(ddof=1)) / math.sqrt(d.size)
        low, high = max(-1.0, mean - half), min(1.0, mean + half)
    p = sign_test(int((d > 0).sum()), int((d < 0).sum()))
    return (mean, low, high), p


def _wdl(records: Sequence[GameRecord], name: str) -> tuple[int, int, int]:
    won = drawn = lost = 0
    for r in records:
        s = r.score_of(name)
        if s is None:
            continue
        if s == 1.0:
            won += 1
        elif s == 0.0:
            lost += 1
        else:
            drawn += 1
    return won, drawn, lost


# Running ---------------------------------------------------------------------------------------


def run_tune(
    config: TuneConfig,
    store: ResultStore | None = None,
    resume: bool = False,
    on_record: Callable[[GameRecord, int, int], None] | None = None,
) -> TuneResult:
    """Play ``config``'s grid (one arena run of kind ``"tune"``) and analyse it.

    ``store`` keeps every game (``None``: an in-memory store, gone afterwards);
    with ``resume`` the latest run of the same grid continues. ``on_record(record,
    done, total)`` is called after each game.
    """
    arena = run_arena(
        config.arena_config(),
        store,
        resume=resume,
        kind="tune",
        on_record=on_record,
        tasks=config.tasks(),
    )
    return _analyse(config, list(arena.records), arena.run_id, arena.played_now, arena.cheating)


def _analyse(
    config: TuneConfig,
    records: list[GameRecord],
    run_id: int,
    played_now: int,
    cheating: tuple[str, ...] = (),
) -> TuneResult:
    names, specs = config.names(), config.specs()
    points, games = _pair_matrices(records, names, config.games)
    p_best = _p_best(points, games, config.bootstrap, derive_seed(config.seed, "bootstrap"))
    rat = None
    if config.opponent is None:
        outcomes = [
            GameOutcome(r.seats[0], r.seats[1], r.score) for r in records if r.score is not None
        ]
        rat = compute_ratings(outcomes, anchor=names[0])
    values = []
    for i, (value, name, spec) in enumerate(zip(config.values, names, specs, strict=True)):
        won, drawn, lost = _wdl(records, name)
        n = won + drawn + lost
        score, low, high = score_interval(won, drawn, lost)
        if rat is None:
            elo, elo_low, elo_high = (_finite(score_to_elo(x)) for x in (score, low, high))
        else:
            pr = rat.player(name) if n else None
            elo, elo_low, elo_high = (pr.elo, pr.low, pr.high) if pr else (None, None, None)
        values.append(
            TuneValue(
                value=value,
                name=name,
                spec=spec,
                games=n,
                wins=won,
                draws=drawn,
                losses=lost,
                score=score,
                low=low,
                high=high,
                elo=elo,
                elo_low=elo_low,
                elo_high=elo_high,
                p_best=float(p_best[i]),
            )
        )
    order = sorted(range(len(values)), key=lambda i: (-values[i].score, -values[i].p_best, i))
    best = values[order[0]]
    runner_up = values[order[1]] if len(order) > 1 else None
    margin = p_value = None
    if runner_up is not None:
        margin, p_value = _margin(points, games, order[0], order[1])
    return TuneResult(
        config=config,
        values=tuple(values),
        best=best,
        runner_up=runner_up,
        margin=margin,
        p_value=p_value,
        significant=p_value is not None and p_value < 0.05 and margin is not None and margin[0] > 0,
        run_id=run_id,
        played_now=played_now,
        ratings=rat,
        cheating=cheating,
    )


def tune(
    game: str,
    param: str,
    values: Sequence[int | float],
    base_spec: str = "mcts",
    opponent: str | None = None,
    games: int = 20,
    seed: int = 0,
    workers: int = 1,
    time_per_move: float | None = None,
    openings: int = 0,
    store: ResultStore | None = None,
    resume: bool = False,
    game_params: Sequence[tuple[str, Any]] = (),
    on_record: Callable[[GameRecord, int, int], None] | None = None,
    allow_cheating: bool = False,
) -> TuneResult:
    """Tune option ``param`` of ``base_spec`` over ``values`` (see the module docstring).

    >>> r = tune("tic_tac_toe", "iterations", [2, 300], opponent="mcts:iterations=30", games=4)
    >>> r.best.value
    300
    """
    config = TuneConfig(
        game=game,
        param=param,
        values=tuple(values),
        base_spec=base_spec,
        opponent=opponent,
        games=games,
        seed=seed,
        workers=workers,
        time_per_move=time_per_move,
        openings=openings,
        game_params=tuple(sorted(game_params)),
        allow_cheating=allow_cheating,
    )
    return run_tune(config, store, resume, on_record)


# Plotting ----------------------------------------------------------------------------------------


def plot_tune(result: TuneResult | dict[str, Any], path: str | Path) -> Path:
    """A PNG of score against the parameter: 95% error bars, the 50% line, the best value starred.

    ``result`` is a :class:`TuneResult` or its JSON form (:meth:`TuneResult.to_dict`, as
    ``mctslab tune --json`` and the benchmarks' results files keep it): a figure is drawn
    again from the file its numbers are published from. Drawn with matplotlib's Agg
    canvas directly (no pyplot, no display, the global backend untouched).
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    data = result.to_dict() if isinstance(result, TuneResult) else result
    pts = sorted(data["values"], key=lambda v: v["value"])
    best = next(v for v in pts if v["value"] == data["best"])
    xs = [float(v["value"]) for v in pts]
    ys = [v["score"] for v in pts]
    err = [[v["score"] - v["low"] for v in pts], [v["high"] - v["score"] for v in pts]]
    param = data["param"]
    fig = Figure(figsize=(7.0, 4.2), dpi=110)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.errorbar(xs, ys, yerr=err, fmt="o-", color="tab:blue", capsize=3, label="score, 95% CI")
    ax.axhline(0.5, color="grey", linestyle="--", linewidth=1, label="50%")
    ax.plot(
        [float(best["value"])], [best["score"]], marker="*", markersize=16,
        color="tab:red", linestyle="none",
        label=f"best {param}={format_value(best['value'])} (P(best) {best['p_best']:.2f})",
    )  # fmt: skip
    against = f"vs {data['opponent']}" if data["opponent"] is not None else "round robin"
    ax.set_title(f"{data['game']}: {data['base_spec']} tuning {param} {against}", fontsize=10)
    if min(xs) > 0 and max(xs) / min(xs) >= 20:
        ax.set_xscale("log")  # budgets grow geometrically; a linear axis crushes the small ones
    ax.set_xlabel(param)
    ax.set_ylabel("score" if data["opponent"] is not None else "score in the round robin")
    ax.set_ylim(-0.02, 1.02)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    out = Path(path)
    fig.savefig(out, format="png")
    return out
