"""Playtesting a game by self-play: a report for its designer.

A game designer wants to know, before people play it: does the first player
win too often? How long are the games? How many choices does a player have,
and when? Which openings do good players choose? Does the answer change as the
players get stronger (a first-move advantage that only strong players find is
a balance problem that will show up late)?

:func:`analyze` plays ``games`` self-play games at each of several strengths
(the same spec on both seats; ``mcts:iterations=100`` and
``mcts:iterations=1000`` by default). Game ``g`` has the seed
``derive_seed(seed, "analyze", g)`` at every strength. For each strength it
reports:

* the first player's win, draw and loss rates, each with Wilson's 95% score
  interval (Wilson 1927):
  ``(p̂ + z²/2n ± z·sqrt(p̂(1-p̂)/n + z²/4n²)) / (1 + z²/n)``, which stays
  inside ``[0, 1]`` and keeps its coverage at rates near 0 or 1 where the
  normal interval does not (Brown, Cai & DasGupta 2001);
* the first player's score ``(W + D/2)/n`` with the interval of
  :func:`mctslab.arena.ratings.score_interval`, and the same as an Elo advantage,
  ``-400·log10(1/s - 1)``;
* game lengths in plies: mean, median, min, max and the histogram;
* the branching factor by ply: the mean number of legal actions at ply ``t``
  over the games that reached it, found by replaying the stored moves through
  the rules (decision nodes only; chance nodes are skipped);
* the openings: the first ``opening_plies`` plies, with counts and the first
  player's score after each;

and, across strengths, how the first player's score changes: the difference
between the last and the first strength with a normal 95% interval (the two
samples are treated as independent: different players, whatever the seeds).

A player that reads the full state (``mcts``, the default) would see the
hidden cards of a game with hidden information, and its self-play would measure
another game: it is refused there unless ``allow_cheating``, and the report
then says so. Use ``ismcts:...`` or ``pimc:...`` at such games.

The games are played by :func:`mctslab.arena.tournament.run_arena` (worker processes,
the results store, ``resume``) as one run of kind ``"analyze"``; the seats are
named ``<spec>.first`` and ``<spec>.second`` (the spec with ``:``, ``=``,
``,`` turned into ``-``), so ``mctslab ratings`` over a store with self-play
games rates the first-move advantage as if the seats were two players.
"""

from __future__ import annotations

import json
import math
import re
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mctslab.arena.game_task import SCORED
from mctslab.arena.ratings import Z95, score_interval, score_to_elo, wilson_interval
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
from mctslab.core.game import CHANCE
from mctslab.core.registry import make
from mctslab.players.player import cheating_note

__all__ = [
    "DEFAULT_PLAYERS",
    "AnalyzeConfig",
    "AnalyzeResult",
    "LengthStats",
    "Opening",
    "PlyBranching",
    "Rate",
    "StrengthReport",
    "analyze",
    "plot_analysis",
    "run_analysis",
    "seat_name",
    "wilson_interval",
    "write_report",
]

#: Two strengths ten times apart: enough to see whether the first-move advantage grows.
DEFAULT_PLAYERS = ("mcts:iterations=100", "mcts:iterations=1000")


def seat_name(spec: str, seat: int) -> str:
    """The store name of ``spec`` on seat 0 or 1: ``mcts-iterations-100.first``."""
    base = re.sub(r"[^A-Za-z0-9_.-]+", "-", spec).strip("-") or "player"
    return f"{base}.{'first' if seat == 0 else 'second'}"


# Configuration ------------------------------------------------------------------------------


@dataclass(frozen=True)
class AnalyzeConfig:
    """Self-play at each of ``players`` (specs, weakest first by convention), ``games`` each.

    ``opening_plies`` is how many first plies name an opening. The game and every
    player are checked on construction, before anything is played or stored;
    ``allow_cheating`` lets players that read the full state play a game with hidden
    information.
    """

    game: str
    players: tuple[str, ...] = DEFAULT_PLAYERS
    games: int = 50
    seed: int = 0
    workers: int = 1
    game_params: tuple[tuple[str, Any], ...] = ()
    opening_plies: int = 2
    allow_cheating: bool = False

    def __post_init__(self) -> None:
        if not self.players:
            raise InvalidConfigError("analyze needs at least one player spec")
        specs = [p.strip() for p in self.players]
        twice = sorted({s for s in specs if specs.count(s) > 1})
        if twice:
            raise InvalidConfigError(f"player {twice[0]!r} is given twice")
        if not isinstance(self.opening_plies, int) or self.opening_plies < 1:
            raise InvalidConfigError(f"opening plies must be >= 1, got {self.opening_plies!r}")
        check_players(self.arena_config(), make(self.game, **dict(self.game_params)))

    def arena_config(self) -> ArenaConfig:
        """The arena run: both seats of every strength as players."""
        players = tuple(Entrant(seat_name(s, seat), s) for s in self.players for seat in (0, 1))
        return ArenaConfig(
            game=self.game,
            players=players,
            games=self.games,
            game_params=self.game_params,
            seed=self.seed,
            workers=self.workers,
            allow_cheating=self.allow_cheating,
        )

    def tasks(self) -> list[GameTask]:
        """Strength ``i``'s games are slots ``i·games .. (i+1)·games - 1``; seeds by game index."""
        tasks: list[GameTask] = []
        for spec in self.players:
            seats = (Entrant(seat_name(spec, 0), spec), Entrant(seat_name(spec, 1), spec))
            for g in range(self.games):
                tasks.append(
                    GameTask(
                        slot=len(tasks),
                        game=self.game,
                        game_params=self.game_params,
                        seats=seats,
                        seed=derive_seed(self.seed, "analyze", g),
                        allow_cheating=self.allow_cheating,
                    )
                )
        return tasks


# Results --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rate:
    """A proportion with its 95% interval."""

    rate: float
    low: float
    high: float

    def to_dict(self) -> dict[str, float]:
        return {"rate": self.rate, "low": self.low, "high": self.high}


@dataclass(frozen=True)
class LengthStats:
    """Game lengths in plies; ``histogram`` is ``(length, games)`` for every length min..max."""

    mean: float
    median: float
    min: int
    max: int
    histogram: tuple[tuple[int, int], ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "mean": self.mean,
            "median": self.median,
            "min": self.min,
            "max": self.max,
            "histogram": {str(k): v for k, v in self.histogram},
        }


@dataclass(frozen=True)
class PlyBranching:
    """Legal actions at ``ply`` (0 = the first move): mean, min, max over ``positions`` games."""

    ply: int
    mean: float
    min: int
    max: int
    positions: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "ply": self.ply,
            "mean": self.mean,
            "min": self.min,
            "max": self.max,
            "positions": self.positions,
        }


@dataclass(frozen=True)
class Opening:
    """An opening (first plies, as action ids and names), how often, and the first player's score."""

    moves: tuple[int, ...]
    names: tuple[str, ...]
    count: int
    first_score: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "moves": list(self.moves),
            "names": list(self.names),
            "count": self.count,
            "first_score": self.first_score,
        }


@dataclass(frozen=True)
class StrengthReport:
    """Everything measured at one strength (``spec`` on both seats).

    ``first_wins``/``draws``/``first_losses`` count the games from the first
    player's side; ``first_score`` is ``(mean, low, high)``; ``first_elo`` the
    score as an Elo advantage (``None`` where infinite). ``openings`` are all
    the openings played, most common first; ``forfeits`` the games a player
    lost by an error.
    """

    spec: str
    games: int
    first_wins: int
    draws: int
    first_losses: int
    win: Rate
    draw: Rate
    loss: Rate
    first_score: tuple[float, float, float]
    first_elo: float | None
    lengths: LengthStats
    branching: tuple[PlyBranching, ...]
    mean_branching: float
    openings: tuple[Opening, ...]
    forfeits: int

    def to_dict(self) -> dict[str, Any]:
        mean, low, high = self.first_score
        return {
            "spec": self.spec,
            "games": self.games,
            "first_wins": self.first_wins,
            "draws": self.draws,
            "first_losses": self.first_losses,
            "win": self.win.to_dict(),
            "draw": self.draw.to_dict(),
            "loss": self.loss.to_dict(),
            "first_score": {"mean": mean, "low": low, "high": high},
            "first_elo": self.first_elo,
            "lengths": self.lengths.to_dict(),
            "branching": [b.to_dict() for b in self.branching],
            "mean_branching": self.mean_branching,
            "openings": [o.to_dict() for o in self.openings],
            "forfeits": self.forfeits,
        }


@dataclass(frozen=True)
class AnalyzeResult:
    """The playtesting report: one :class:`StrengthReport` per strength, in the given order.

    ``advantage_change`` is ``(diff, low, high)``: the last strength's first-player
    score minus the first's (``None`` with one strength). ``cheating`` names the
    seats (``<spec>.first``, ...) allowed to read hidden information.
    """

    config: AnalyzeConfig
    strengths: tuple[StrengthReport, ...]
    advantage_change: tuple[float, float, float] | None
    run_id: int
    played_now: int
    cheating: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: plain numbers, strings, lists and dicts (no ``inf``/``nan``)."""
        c = self.config
        change = self.advantage_change
        return {
            "game": c.game,
            "game_params": dict(c.game_params),
            "games": c.games,
            "seed": c.seed,
            "opening_plies": c.opening_plies,
            "run_id": self.run_id,
            "played_now": self.played_now,
            "strengths": [s.to_dict() for s in self.strengths],
            "advantage_change": None
            if change is None
            else dict(zip(("diff", "low", "high"), change, strict=True)),
            "cheating": list(self.cheating),
        }

    def format_report(self, top_openings: int = 5) -> str:
        """The report as plain text (histograms drawn with ``#``)."""
        c = self.config
        params = ", ".join(f"{k}={v}" for k, v in c.game_params)
        lines = [
            f"Playtesting report: {c.game}{f' ({params})' if params else ''}: "
            f"{c.games} self-play games per strength, seed {c.seed}",
            "Intervals are 95%: Wilson for rates, normal for scores.",
        ]
        if self.cheating:
            lines.append(cheating_note(self.cheating))
        for s in self.strengths:
            mean, low, high = s.first_score
            lines += [
                "",
                f"== {s.spec} ==",
                f"first player  wins {_rate(s.win)}  draws {_rate(s.draw)}  losses {_rate(s.loss)}",
                f"first-player score {mean:.3f} [{low:.3f}, {high:.3f}] "
                f"({_elo(s)} Elo)" + (f"; {s.forfeits} forfeit(s)" if s.forfeits else ""),
                f"game length (plies)  mean {s.lengths.mean:.1f}  median {s.lengths.median:g}  "
                f"min {s.lengths.min}  max {s.lengths.max}",
            ]
            peak = max((n for _, n in s.lengths.histogram), default=1) or 1
            for length, n in s.lengths.histogram:
                bar = "#" * round(30 * n / peak)
                lines.append(f"  {length:>4} | {bar:<30} {n}")
            by_ply = "  ".join(f"{b.ply}:{b.mean:.1f}" for b in s.branching)
            lines += [
                f"branching factor  mean {s.mean_branching:.2f} over all positions",
                f"  by ply  {by_ply}",
                f"openings (first {c.opening_plies} plies), {len(s.openings)} different; "
                f"most common:",
            ]
            for o in s.openings[:top_openings]:
                lines.append(
                    f"  {' '.join(o.names):<16} {o.count:>5} games  "
                    f"first-player score {o.first_score:.3f}"
                )
        lines += ["", "== first-player advantage by strength =="]
        width = max(len(s.spec) for s in self.strengths)
        for s in self.strengths:
            mean, low, high = s.first_score
            lines.append(
                f"{s.spec:<{width}}  score {mean:.3f} [{low:.3f}, {high:.3f}]  "
                f"{_elo(s):>6} Elo  W/D/L {s.win.rate:.2f}/{s.draw.rate:.2f}/"
                f"{s.loss.rate:.2f}  mean length {s.lengths.mean:.1f}"
            )
        if self.advantage_change is not None:
            d, lo, hi = self.advantage_change
            first, last = self.strengths[0].spec, self.strengths[-1].spec
            lines.append(
                f"change from {first} to {last}: {d:+.3f} [{lo:+.3f}, {hi:+.3f}]"
                + (" (significant at 5%)" if lo > 0 or hi < 0 else " (not significant at 5%)")
            )
        return "\n".join(lines) + "\n"


def _rate(r: Rate) -> str:
    return f"{r.rate:.3f} [{r.low:.3f}, {r.high:.3f}]"


def _elo(s: StrengthReport) -> str:
    if s.first_elo is not None:
        return f"{s.first_elo:+.0f}"
    return "+inf" if s.first_score[0] > 0.5 else "-inf"


# Measuring ------------------------------------------------------------------------------------


def _first_scores(records: Sequence[GameRecord]) -> list[float]:
    return [r.score for r in records if r.score is not None]


def _report(config: AnalyzeConfig, spec: str, records: Sequence[GameRecord]) -> StrengthReport:
    game = make(config.game, **dict(config.game_params))
    scores = _first_scores(records)
    n = len(scores)
    wins, draws, losses = scores.count(1.0), scores.count(0.5), scores.count(0.0)
    mean, low, high = score_interval(wins, draws, losses)
    elo = score_to_elo(mean) if n else 0.0

    lengths = [len(r.moves) for r in records]
    counts = {k: lengths.count(k) for k in set(lengths)}
    lo_len, hi_len = (min(lengths), max(lengths)) if lengths else (0, 0)
    length_stats = LengthStats(
        mean=statistics.fmean(lengths) if lengths else 0.0,
        median=float(statistics.median(lengths)) if lengths else 0.0,
        min=lo_len,
        max=hi_len,
        histogram=tuple((k, counts.get(k, 0)) for k in range(lo_len, hi_len + 1))
        if lengths
        else (),
    )

    # Replay every game through the rules: the stored moves say what was played, the
    # rules say what else could have been (the legal actions at each ply).
    legal: dict[int, list[int]] = {}
    openings: dict[tuple[int, ...], list[float]] = {}
    names: dict[tuple[int, ...], tuple[str, ...]] = {}
    for r in records:
        state = game.new_initial_state()
        named: list[str] = []
        for ply, action in enumerate(r.moves):
            if state.current_player() != CHANCE:
                legal.setdefault(ply, []).append(len(state.legal_actions()))
            if ply < config.opening_plies:
                named.append(state.action_to_string(action))
            state.apply_action(action)
        key = tuple(r.moves[: config.opening_plies])
        openings.setdefault(key, []).append(0.5 if r.score is None else r.score)
        names[key] = tuple(named)
    branching = tuple(
        PlyBranching(ply, statistics.fmean(v), min(v), max(v), len(v))
        for ply, v in sorted(legal.items())
    )
    every = [x for v in legal.values() for x in v]
    opening_list = sorted(
        (Opening(k, names[k], len(v), statistics.fmean(v)) for k, v in openings.items()),
        key=lambda o: (-o.count, o.moves),
    )
    return StrengthReport(
        spec=spec,
        games=len(records),
        first_wins=wins,
        draws=draws,
        first_losses=losses,
        win=Rate(*wilson_interval(wins, n)),
        draw=Rate(*wilson_interval(draws, n)),
        loss=Rate(*wilson_interval(losses, n)),
        first_score=(mean, low, high),
        first_elo=elo if math.isfinite(elo) else None,
        lengths=length_stats,
        branching=branching,
        mean_branching=statistics.fmean(every) if every else 0.0,
        openings=tuple(opening_list),
        forfeits=sum(1 for r in records if r.termination not in SCORED),
    )


def _change(a: Sequence[float], b: Sequence[float]) -> tuple[float, float, float]:
    """``mean(b) - mean(a)`` with a normal 95% interval (independent samples)."""
    if not a or not b:
        return 0.0, -1.0, 1.0
    ma, mb = statistics.fmean(a), statistics.fmean(b)
    var = statistics.pvariance(a) / len(a) + statistics.pvariance(b) / len(b)
    half = Z95 * math.sqrt(var)
    d = mb - ma
    return d, max(-1.0, d - half), min(1.0, d + half)


def run_analysis(
    config: AnalyzeConfig,
    store: ResultStore | None = None,
    resume: bool = False,
    on_record: Callable[[GameRecord, int, int], None] | None = None,
    allow_cheating: bool = False,
) -> AnalyzeResult:
    """Play ``config``'s self-play games (one arena run of kind ``"analyze"``) and measure them.

    ``store`` keeps every game (``None``: an in-memory store); ``resume`` continues
    the latest run of the same configuration; ``on_record(record, done, total)``
    is called after each game.
    """
    arena = run_arena(
        config.arena_config(),
        store,
        resume=resume,
        kind="analyze",
        on_record=on_record,
        tasks=config.tasks(),
    )
    by_first: dict[str, list[GameRecord]] = {}
    for r in arena.records:
        by_first.setdefault(r.seats[0], []).append(r)
    reports = tuple(
        _report(config, spec, by_first.get(seat_name(spec, 0), [])) for spec in config.players
    )
    change = None
    if len(config.players) > 1:
        first = _first_scores(by_first.get(seat_name(config.players[0], 0), []))
        last = _first_scores(by_first.get(seat_name(config.players[-1], 0), []))
        change = _change(first, last)
    return AnalyzeResult(config, reports, change, arena.run_id, arena.played_now, arena.cheating)


def analyze(
    game: str,
    players: Sequence[str] = DEFAULT_PLAYERS,
    games: int = 50,
    seed: int = 0,
    workers: int = 1,
    store: ResultStore | None = None,
    resume: bool = False,
    game_params: Sequence[tuple[str, Any]] = (),
    opening_plies: int = 2,
    on_record: Callable[[GameRecord, int, int], None] | None = None,
    allow_cheating: bool = False,
) -> AnalyzeResult:
    """The playtesting report of ``game`` from self-play at each of ``players``.

    >>> r = analyze("tic_tac_toe", ["mcts:iterations=20"], games=4)
    >>> [b.mean for b in r.strengths[0].branching[:2]]
    [9.0, 8.0]
    """
    config = AnalyzeConfig(
        game=game,
        players=tuple(p.strip() for p in players),
        games=games,
        seed=seed,
        workers=workers,
        game_params=tuple(sorted(game_params)),
        opening_plies=opening_plies,
        allow_cheating=allow_cheating,
    )
    return run_analysis(config, store, resume, on_record)


# Plotting ------------------------------------------------------------------------------------


def plot_analysis(result: AnalyzeResult, directory: str | Path) -> tuple[Path, ...]:
    """Write ``lengths.png``, ``branching.png`` and ``first_player.png`` into ``directory``.

    Game-length histograms (one bar group per strength), the mean branching
    factor by ply (a line per strength), and the first player's score by
    strength with its 95% interval (win and draw rates beside it). Drawn on
    matplotlib's Agg canvas; the directory is created if missing.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    game = result.config.game
    k = len(result.strengths)
    paths = []

    fig = Figure(figsize=(7.0, 4.2), dpi=110)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    width = 0.8 / k
    for i, s in enumerate(result.strengths):
        xs = [length - 0.4 + width * (i + 0.5) for length, _ in s.lengths.histogram]
        ax.bar(xs, [n for _, n in s.lengths.histogram], width=width, label=s.spec)
    ax.set_title(f"{game}: game length in self-play", fontsize=10)
    ax.set_xlabel("plies")
    ax.set_ylabel("games")
    ax.legend(fontsize=8)
    ax.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    paths.append(out / "lengths.png")
    fig.savefig(paths[-1], format="png")

    fig = Figure(figsize=(7.0, 4.2), dpi=110)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    for s in result.strengths:
        ax.plot([b.ply for b in s.branching], [b.mean for b in s.branching], "o-",
                markersize=3, label=s.spec)  # fmt: skip
    ax.set_title(f"{game}: legal actions by ply (mean over the games that reach it)", fontsize=10)
    ax.set_xlabel("ply")
    ax.set_ylabel("legal actions")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8)
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    paths.append(out / "branching.png")
    fig.savefig(paths[-1], format="png")

    fig = Figure(figsize=(7.0, 4.2), dpi=110)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    xs = list(range(k))
    scores = [s.first_score for s in result.strengths]
    ax.errorbar(
        xs, [m for m, _, _ in scores],
        yerr=[[m - lo for m, lo, _ in scores], [hi - m for m, _, hi in scores]],
        fmt="o-", capsize=4, color="tab:blue", label="first-player score, 95% CI",
    )  # fmt: skip
    ax.plot(xs, [s.win.rate for s in result.strengths], "^", color="tab:green",
            label="first player wins")  # fmt: skip
    ax.plot(xs, [s.draw.rate for s in result.strengths], "s", color="tab:grey", label="draws")
    ax.axhline(0.5, color="grey", linestyle="--", linewidth=1)
    ax.set_xticks(xs, [s.spec for s in result.strengths], fontsize=8)
    ax.set_xlim(-0.5, k - 0.5)
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(f"{game}: first-player advantage by strength", fontsize=10)
    ax.set_ylabel("rate / score")
    ax.legend(fontsize=8)
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    paths.append(out / "first_player.png")
    fig.savefig(paths[-1], format="png")
    return tuple(paths)


def write_report(result: AnalyzeResult, directory: str | Path) -> Path:
    """Write ``report.json`` (:meth:`AnalyzeResult.to_dict`) into ``directory``."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "report.json"
    path.write_text(json.dumps(result.to_dict(), indent=2) + "\n")
    return path
