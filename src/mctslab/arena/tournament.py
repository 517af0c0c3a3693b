"""The arena: matches and round-robin tournaments between player specs, with time controls.

A tournament is a list of games fixed in advance (:func:`schedule`): every pair of
players meets ``games`` times, colours swapped in pairs (game ``2k`` and ``2k+1``
of a pairing have the same seed and, with ``openings=K``, the same ``K`` random
opening plies, each player once with each colour). Each game is a
:class:`~mctslab.arena.game_task.GameTask` played by :func:`~mctslab.arena.game_task.play_task`
(time control and forfeits are described there), a pure function of the task: the
same task gives the same game whenever the players' budgets are iteration counts
(time budgets depend on the machine's speed, so they are not reproducible).

:func:`run_arena` plays the tasks in worker processes (``workers``; or on a Ray
cluster, :mod:`mctslab.arena.ray_backend`), writes each finished game to the results
store (:mod:`mctslab.arena.store`) in its own transaction, and with ``resume`` plays
only the games the store does not have yet.

A run's identity (what ``resume`` matches) is everything that decides its games,
the rules included: the game's name, parameters and ``GameInfo.version``. A
``resume`` that finds the run played under other rules (a new version of the
game, other parameters) raises :class:`RulesChangedError` naming both, rather than
mixing games of two rule sets in one run.

Hidden information: every player is handed the full state, so in a game with
hidden information a player that reads it all (``mcts``, ``minimax``, ...;
:func:`mctslab.players.player.reads_hidden_information`) would see the other players'
cards. :func:`check_players` refuses it unless the configuration has
``allow_cheating``; the run then records who was allowed (``RunInfo.cheating``)
and the results say so.

A player that raises, or returns an illegal move, loses the game; the error is
recorded with the game and the tournament goes on.

Run bookkeeping. A run is ``"running"`` in the store until its last game is in
(``"finished"``); a run that stops on an error (a full disk: :class:`StoreWriteError`;
Ctrl-C) is marked ``"stopped"`` with the reason, as far as the store can still be
written, and a run whose process was killed stays ``"running"``: unfinished either way
(:attr:`RunInfo.unfinished`). Without ``resume``, a configuration already in the store
gets a new run (``duplicates="allow"``, what a caller such as the training loop gets by
default) or is refused (``duplicates="refuse"``, what ``mctslab arena`` and ``mctslab
sprt`` ask for: :class:`DuplicateRunError` points to ``--resume``). A new run of the same
configuration replays the same games wherever the budgets are iteration counts, and
:func:`pool_runs` counts such identical games once (:func:`game_key`).
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from mctslab.arena.game_task import (
    TIME_GRACE,
    TIME_TOLERANCE,
    Entrant,
    GameTask,
    derive_seed,
    effective_spec,
    play_task,
)
from mctslab.arena.growth import (
    BLOCKS_KEY,
    RunChangedError,
    blocks_of,
    grow_or_refuse,
    slot_of,
)
from mctslab.arena.pooling import PooledGames, PooledPlayer, game_key, pool_runs
from mctslab.arena.pooling import canonical as _canonical
from mctslab.arena.ray_backend import run_tasks_ray
from mctslab.arena.store import GameRecord, ResultStore, StoreWriteError
from mctslab.arena.workers import die_with_parent
from mctslab.core.errors import InvalidConfigError, InvalidSpecError
from mctslab.core.game import Game
from mctslab.core.registry import make
from mctslab.players.player import check_hidden_information, make_player, parse_spec
from mctslab.search.options import MAX_SECONDS

__all__ = [
    "MAX_GAMES",
    "MAX_RAY_WORKERS",
    "RULES_KEYS",
    "TIME_GRACE",
    "TIME_TOLERANCE",
    "WORKERS_PER_CORE",
    "ArenaConfig",
    "ArenaResult",
    "DuplicateRunError",
    "Entrant",
    "GameTask",
    "MoveTimes",
    "PooledGames",
    "PooledPlayer",
    "RulesChangedError",
    "RunChangedError",
    "check_max_games",
    "check_players",
    "derive_seed",
    "describe_rules",
    "effective_spec",
    "find_resumable_run",
    "game_key",
    "max_workers",
    "move_time_stats",
    "play_task",
    "pool_runs",
    "run_arena",
    "run_tasks",
    "schedule",
    "standings",
]

#: The keys of a run's identity that say which rules its games were played by.
RULES_KEYS = ("game", "game_params", "game_version")
#: The most games one run may hold (all pairings together; an SPRT's ``max_games``): its
#: schedule is built in advance, about 350 bytes a game (90 MB at the cap), where 10**30
#: games would exhaust any memory. The largest run of the project's benchmarks has 400.
MAX_GAMES = 250_000
#: Local worker processes at most, per core this process may use (:func:`default_workers`):
#: more only wait for a core, each holding its players' memory (200 to 500 MB for a
#: network player). Ray's workers run elsewhere, up to :data:`MAX_RAY_WORKERS`.
WORKERS_PER_CORE = 4
MAX_RAY_WORKERS = 4_096


class DuplicateRunError(InvalidConfigError):
    """A new run of a configuration the store already holds a run of (see the module
    docstring): the message names the run and points to ``--resume``."""


class RulesChangedError(InvalidConfigError):
    """``resume`` found the run, but it was played under other rules (another version of
    the game, other parameters): the message names the old rules and the new."""


@dataclass(frozen=True)
class ArenaConfig:
    """A round-robin tournament. ``games`` is the number of games per pairing.

    ``workers`` and ``backend`` decide where the games run, not what they are: they
    are not part of :meth:`identity`, so a run resumed with other workers (or on
    Ray) continues the same games. Nor is ``allow_cheating``, which decides whether
    players that read the full state may play a game with hidden information
    (:func:`check_players`), not what the games are.

    ``time_per_move`` alone is a constant clock; ``main_time`` gives each seat a game
    clock, with byo-yomi of ``time_per_move`` after it where that is set too
    (:mod:`mctslab.arena.game_clock`). ``resign_below``: a searching player resigns
    (and loses) when its root value falls below it (:mod:`mctslab.players.resign`);
    ``None``, the default, plays every game to its end.
    """

    game: str
    players: tuple[Entrant, ...]
    games: int = 2
    game_params: tuple[tuple[str, Any], ...] = ()
    time_per_move: float | None = None
    strict: bool = False
    seed: int = 0
    openings: int = 0
    workers: int = 1
    backend: str = "local"
    ray_address: str | None = None
    allow_cheating: bool = False
    main_time: float | None = None
    resign_below: float | None = None

    def __post_init__(self) -> None:
        if len(self.players) < 2:
            raise InvalidConfigError("a tournament needs at least two players")
        names = [p.name for p in self.players]
        for name in names:
            if not name or not name.replace("_", "").replace("-", "").replace(".", "").isalnum():
                raise InvalidConfigError(
                    f"bad player name {name!r}: use letters, digits, '-', '_' or '.'"
                )
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise InvalidConfigError(f"player name {dup[0]!r} is given twice")
        if not isinstance(self.games, int) or isinstance(self.games, bool) or self.games < 1:
            raise InvalidConfigError(f"games must be a positive integer, got {self.games!r}")
        pairings = len(self.players) * (len(self.players) - 1) // 2
        if self.games * pairings > MAX_GAMES:
            raise InvalidConfigError(
                f"{self.games:,} games per pairing"
                + (f" x {pairings} pairings" if pairings > 1 else "")
                + f" is more than a run's {MAX_GAMES:,} games at most"
            )
        if self.time_per_move is not None and not (
            math.isfinite(self.time_per_move) and 0 < self.time_per_move < MAX_SECONDS
        ):
            raise InvalidConfigError(
                "time per move must be a positive number of seconds below "
                f"{MAX_SECONDS:.0f}, got {self.time_per_move!r}"
            )
        if self.main_time is not None and not (
            math.isfinite(self.main_time) and 0 < self.main_time < MAX_SECONDS
        ):
            raise InvalidConfigError(
                f"main time must be a positive number of seconds below {MAX_SECONDS:.0f}, "
                f"got {self.main_time!r}"
            )
        if self.openings < 0:
            raise InvalidConfigError(f"openings must be >= 0 plies, got {self.openings}")
        if self.backend not in ("local", "ray"):
            raise InvalidConfigError(f"unknown backend {self.backend!r}; valid: local, ray")
        if isinstance(self.workers, bool) or not isinstance(self.workers, int) or self.workers < 1:
            raise InvalidConfigError(f"workers must be an integer >= 1, got {self.workers!r}")
        if self.workers > (most := max_workers(self.backend)):
            where = (
                "on Ray"
                if self.backend == "ray"
                else f"{WORKERS_PER_CORE} per core of this machine's {default_workers()}"
            )
            raise InvalidConfigError(
                f"workers must be at most {most:,} ({where}), got {self.workers:,}"
            )
        if self.strict and self.time_per_move is None and self.main_time is None:
            raise InvalidConfigError("strict time control needs a time per move or a main time")
        if self.resign_below is not None and not -1.0 <= self.resign_below <= 1.0:
            raise InvalidConfigError(
                f"resign threshold must be a root value in [-1, 1], got {self.resign_below!r}"
            )

    def identity(self, game_version: int) -> dict[str, Any]:
        """Everything that decides the games (what ``resume`` matches on), the rules
        included: the game's name, parameters and ``game_version`` (its
        ``GameInfo.version``, which the configuration cannot know by itself). A game
        clock (``main_time``) and a resignation threshold are in it only when set: runs
        from before them keep theirs."""
        clock = {} if self.main_time is None else {"main_time": self.main_time}
        if self.resign_below is not None:
            clock["resign_below"] = self.resign_below
        return {
            "game": self.game,
            "game_params": dict(self.game_params),
            "game_version": game_version,
            "players": [[p.name, p.spec] for p in self.players],
            "games": self.games,
            "time_per_move": self.time_per_move,
            "strict": self.strict,
            "seed": self.seed,
            "openings": self.openings,
        } | clock


def schedule(config: ArenaConfig, blocks: Sequence[int] | None = None) -> list[GameTask]:
    """The tournament's games: pairings in order, ``games`` games each; a run that grew
    numbers its slots by its ``blocks`` (:func:`mctslab.arena.growth.slot_of`)."""
    tasks = []
    pairs = list(combinations(range(len(config.players)), 2))
    layout = tuple(blocks) if blocks else (config.games,)
    if layout[-1] != config.games:
        raise InvalidConfigError(f"blocks {layout} do not end at the run's {config.games} games")
    for p, (i, j) in enumerate(pairs):
        a, b = config.players[i], config.players[j]
        for g in range(config.games):
            pair = g // 2
            seats = (a, b) if g % 2 == 0 else (b, a)
            seed = derive_seed(config.seed, a.name, b.name, pair)
            tasks.append(
                GameTask(
                    slot=slot_of(p, g, layout, len(pairs)),
                    game=config.game,
                    game_params=config.game_params,
                    seats=seats,
                    seed=seed,
                    openings=config.openings,
                    opening_seed=derive_seed(seed, "opening"),
                    time_per_move=config.time_per_move,
                    strict=config.strict,
                    allow_cheating=config.allow_cheating,
                    main_time=config.main_time,
                    resign_below=config.resign_below,
                )
            )
    return sorted(tasks, key=lambda t: t.slot)


# Running many games ----------------------------------------------------------------------


def run_tasks(
    tasks: Sequence[GameTask],
    workers: int = 1,
    backend: str = "local",
    ray_address: str | None = None,
) -> Iterator[GameRecord]:
    """Play ``tasks`` and yield each record as it finishes (in completion order).

    ``workers=1`` plays in this process; more use forked worker processes (no more than
    there are tasks, at most ``2 * workers`` games queued at a time; each ends when this
    process dies: :func:`~mctslab.arena.workers.die_with_parent`); ``backend="ray"``
    sends them to Ray.
    """
    if backend == "ray":
        yield from run_tasks_ray(tasks, workers, ray_address)
        return
    # No more processes than games: a fork pool starts all its workers at once, and a
    # 2-game arena of --workers 200 would fork 200 processes to use 2.
    workers = min(workers, len(tasks))
    if workers <= 1:
        for task in tasks:
            yield play_task(task)
        return
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    pending: set[Future[GameRecord]] = set()
    queue = iter(tasks)
    with ProcessPoolExecutor(
        max_workers=workers, mp_context=ctx, initializer=die_with_parent, initargs=(os.getpid(),)
    ) as pool:
        try:
            for task in queue:
                pending.add(pool.submit(play_task, task))
                if len(pending) >= 2 * workers:
                    break
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    yield fut.result()
                    nxt = next(queue, None)
                    if nxt is not None:
                        pending.add(pool.submit(play_task, nxt))
        finally:
            for fut in pending:
                fut.cancel()


@dataclass(frozen=True)
class MoveTimes:
    """A player's move times in seconds (timed moves only) and its overruns."""

    moves: int
    p50: float
    p99: float
    max: float
    overruns: int
    worst_overrun: float


def _quantile(xs: Sequence[float], q: float) -> float:
    ys = sorted(xs)
    pos = q * (len(ys) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(ys) - 1)
    return ys[lo] + (ys[hi] - ys[lo]) * (pos - lo)


def move_time_stats(records: Iterable[GameRecord]) -> dict[str, MoveTimes]:
    """p50/p99/max move time and overruns per player name (timed moves only)."""
    times: dict[str, list[float]] = {}
    over: dict[str, list[float]] = {}
    for r in records:
        for t, seat in zip(r.move_times, r.movers, strict=False):
            if t is not None and seat >= 0:
                times.setdefault(r.seats[seat], []).append(t)
        for _ply, seat, size in r.overruns:
            over.setdefault(r.seats[int(seat)], []).append(float(size))
    out = {}
    for name, ts in times.items():
        late = over.get(name, [])
        out[name] = MoveTimes(
            moves=len(ts),
            p50=_quantile(ts, 0.5),
            p99=_quantile(ts, 0.99),
            max=max(ts),
            overruns=len(late),
            worst_overrun=max(late, default=0.0),
        )
    return out


def standings(records: Iterable[GameRecord], names: Sequence[str]) -> list[tuple[str, float, int]]:
    """(name, points, games) per player, best first (two-player games)."""
    points = dict.fromkeys(names, 0.0)
    games = dict.fromkeys(names, 0)
    for r in records:
        if r.score is None:
            continue
        for seat, name in enumerate(r.seats[:2]):
            s = r.score if seat == 0 else 1.0 - r.score
            points[name] = points.get(name, 0.0) + s
            games[name] = games.get(name, 0) + 1
    return sorted(
        ((n, points[n], games[n]) for n in points), key=lambda t: (-t[1] / max(t[2], 1), t[0])
    )


@dataclass(frozen=True)
class ArenaResult:
    """What a tournament run did: its run id in the store, and every game of the run.

    ``cheating`` names the players that were allowed to read hidden information
    (empty unless the configuration allowed cheating in a game with hidden information).
    """

    run_id: int
    planned: int
    played_now: int
    records: tuple[GameRecord, ...] = field(default=())
    cheating: tuple[str, ...] = ()


def check_players(config: ArenaConfig, game: Game) -> tuple[str, ...]:
    """Make every player once, so a bad spec fails before anything runs or is stored.

    A player that would see hidden information (a game with hidden information, a
    player that reads the full state) raises :class:`InvalidConfigError` unless
    ``config.allow_cheating``. Returns the names of the players allowed to cheat.
    """
    for entrant in config.players:
        kind, _ = parse_spec(entrant.spec)
        if kind == "human":
            raise InvalidSpecError(f"player {entrant.name!r}: a human cannot play in the arena")
        try:
            make_player(effective_spec(entrant.spec, config.time_per_move), game.info, 0)
        except InvalidSpecError as err:
            raise InvalidSpecError(f"player {entrant.name!r}: {err}") from None
    if game.info.num_players != 2:
        raise InvalidConfigError(
            f"the arena plays two-player games; {game.info.name} has {game.info.num_players}"
        )
    specs = [(p.name, effective_spec(p.spec, config.time_per_move)) for p in config.players]
    return check_hidden_information(game, specs, config.allow_cheating)


# Runs in the store ---------------------------------------------------------------------------


def _rules(game: str, params: Mapping[str, Any], version: int) -> tuple[str, Any, int]:
    return game, _canonical(dict(params)), version


def describe_rules(game: str, params: Mapping[str, Any], version: int) -> str:
    """``"connect_four version 1 with rows=5, columns=6"``: rules as an error names them.

    >>> describe_rules("tic_tac_toe", {}, 1)
    'tic_tac_toe version 1 with its default parameters'
    """
    shown = ", ".join(f"{k}={v}" for k, v in sorted(params.items()))
    return f"{game} version {version} with {shown or 'its default parameters'}"


def find_resumable_run(store: ResultStore, kind: str, identity: Mapping[str, Any]) -> int | None:
    """The run ``resume`` continues: the latest run of ``kind`` with this ``identity``
    (:meth:`ArenaConfig.identity`), or ``None`` when there is none.

    A run stored by an older mctslab, whose identity did not hold the game's version,
    is found by the rest of its identity and the version stored beside it. When the
    latest run that matches everything but the rules (the game's parameters and
    version) was played under other rules, resuming it would mix two rule sets in one
    run: :class:`RulesChangedError` names both.
    """
    exact = store.find_run(kind, identity)
    if exact is not None:
        return exact
    wanted = _canonical(dict(identity))
    rest = {k: v for k, v in wanted.items() if k not in RULES_KEYS}
    alike = [
        run
        for run in store.runs(wanted["game"])
        if run.kind == kind and _beside_rules(run.config) == rest
    ]
    new_rules = _rules(wanted["game"], wanted["game_params"], wanted["game_version"])
    same = [r for r in alike if _rules(r.game, r.game_params, r.game_version) == new_rules]
    if same:
        return same[-1].id
    if not alike:
        return None
    old = alike[-1]
    raise RulesChangedError(
        f"cannot resume run {old.id}: its {old.played} games were played under "
        f"{describe_rules(old.game, old.game_params, old.game_version)}, and the run would "
        f"now play {describe_rules(*new_rules)}; one run cannot mix two rule sets: "
        "leave out resume (--resume) to start a new run"
    )


def _beside_rules(config: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in config.items() if k not in (*RULES_KEYS, BLOCKS_KEY)}


def _open_run(
    store: ResultStore,
    kind: str,
    config: ArenaConfig,
    game: Game,
    identity: Mapping[str, Any],
    planned: int | None,
    cheating: tuple[str, ...],
    resume: bool,
    duplicates: str = "allow",
) -> int:
    """The run to play into: the one ``resume`` continues, or a new one; with
    ``duplicates="refuse"`` and no ``resume``, a configuration the store already holds a
    run of raises :class:`DuplicateRunError` (before anything is written)."""
    if duplicates not in ("allow", "refuse"):
        raise InvalidConfigError(f"duplicates must be 'allow' or 'refuse', got {duplicates!r}")
    run_id = find_resumable_run(store, kind, identity) if resume else None
    if resume and run_id is None and duplicates == "refuse":
        run_id = grow_or_refuse(store, kind, _canonical(dict(identity)), planned)
    if not resume and duplicates == "refuse":
        _refuse_duplicate(store, kind, identity)
    if run_id is None:
        return store.start_run(
            kind,
            config.game,
            game.info.version,
            identity,
            config.seed,
            {p.name: p.spec for p in config.players},
            planned,
            cheating=cheating,
        )
    store.add_cheating(run_id, cheating)
    store.resume_run(run_id)
    return run_id


def _refuse_duplicate(store: ResultStore, kind: str, identity: Mapping[str, Any]) -> None:
    try:
        run_id = find_resumable_run(store, kind, identity)
    except RulesChangedError:
        return  # the run found was played under other rules: a new run is another configuration
    if run_id is None:
        return
    [run] = [r for r in store.runs() if r.id == run_id]
    state = "finished" if not run.unfinished else "unfinished"
    planned = f"/{run.planned}" if run.planned is not None else ""
    raise DuplicateRunError(
        f"{str(store.path)!r} already holds run {run.id} of this configuration ({run.played}"
        f"{planned} games, {state}); a new run would replay the same games and count them "
        "twice: add --resume to continue it (only its missing games are played), or change "
        "--seed (or --db) for new games"
    )


def _stop_reason(err: BaseException) -> str:
    if isinstance(err, KeyboardInterrupt):
        return "interrupted (Ctrl-C)"
    return " ".join(str(err).split()) or type(err).__name__


def _mark_stopped(store: ResultStore, run_id: int, err: BaseException) -> None:
    """Mark the run stopped by ``err``, where the store can still be written (a full disk
    may refuse this too: the run then stays ``running``, unfinished all the same)."""
    with contextlib.suppress(StoreWriteError):
        store.stop_run(run_id, _stop_reason(err))


def run_arena(
    config: ArenaConfig,
    store: ResultStore | None,
    resume: bool = False,
    kind: str = "arena",
    on_record: Callable[[GameRecord, int, int], None] | None = None,
    tasks: Sequence[GameTask] | None = None,
    duplicates: str = "allow",
    on_open: Callable[[int, int, int], None] | None = None,
) -> ArenaResult:
    """Play ``config``'s tournament into ``store`` (see the module docstring).

    ``store=None`` plays into an in-memory store, gone afterwards. With ``resume``,
    the latest run of the same configuration continues: only its missing slots
    are played (:func:`find_resumable_run`; other rules raise
    :class:`RulesChangedError`). Without it, ``duplicates`` says what a configuration
    the store already holds gets: a new run (``"allow"``) or :class:`DuplicateRunError`
    (``"refuse"``). ``on_record(record, done, total)`` is called after each game is
    committed, ``on_open(run_id, stored, total)`` when the run is open (what a Ctrl-C
    handler tells the user). With ``duplicates="refuse"``, ``resume`` also grows a run
    whose only change is more games and refuses one whose players' specs changed
    (:class:`RunChangedError`, :mod:`mctslab.arena.growth`). Bad players or games raise
    before the store is written; a failed write
    (:class:`StoreWriteError`) or Ctrl-C stops the run, marked ``"stopped"``, with every
    game committed before it kept.
    """
    if store is None:
        with ResultStore(":memory:") as memory:
            return run_arena(config, memory, resume, kind, on_record, tasks, duplicates, on_open)
    game = make(config.game, **dict(config.game_params))
    cheating = check_players(config, game)
    all_tasks = list(tasks) if tasks is not None else schedule(config)
    identity = config.identity(game.info.version)
    run_id = _open_run(
        store, kind, config, game, identity, len(all_tasks), cheating, resume, duplicates
    )
    if tasks is None:  # a run that grew numbers its slots by its blocks
        [run] = [r for r in store.runs() if r.id == run_id]
        all_tasks = schedule(config, blocks_of(run.config, config.games))
    done_slots = store.played_slots(run_id)
    todo = [t for t in all_tasks if t.slot not in done_slots]
    done = len(all_tasks) - len(todo)
    if on_open is not None:
        on_open(run_id, done, len(all_tasks))
    played_now = 0
    try:
        for record in run_tasks(todo, config.workers, config.backend, config.ray_address):
            if store.add_game(run_id, record):
                played_now += 1
                done += 1
            if on_record is not None:
                on_record(record, done, len(all_tasks))
        if done == len(all_tasks):
            store.finish_run(run_id)
    except BaseException as err:
        _mark_stopped(store, run_id, err)
        if isinstance(err, StoreWriteError):
            raise StoreWriteError(
                f"{err} (run {run_id} stopped with {done} of its {len(all_tasks)} games "
                "stored; free some space and continue it with --resume)"
            ) from None
        raise
    records = tuple(store.games([run_id]))
    return ArenaResult(run_id, len(all_tasks), played_now, records, cheating)


def max_workers(backend: str = "local") -> int:
    """The most workers a run may ask for: :data:`WORKERS_PER_CORE` per core this process
    may use, or :data:`MAX_RAY_WORKERS` on Ray. A run uses no more than its games."""
    return MAX_RAY_WORKERS if backend == "ray" else WORKERS_PER_CORE * default_workers()


def default_workers() -> int:
    """The number of cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def entrants(pairs: Mapping[str, str]) -> tuple[Entrant, ...]:
    return tuple(Entrant(n, s) for n, s in pairs.items())


@dataclass(frozen=True)
class SprtOutcome:
    """How an SPRT run ended: ``decision`` is ``"H1"``, ``"H0"`` or ``None`` (game cap hit);
    ``cheating`` names the players allowed to read hidden information."""

    run_id: int
    decision: str | None
    pairs: int
    status: dict[str, Any]
    cheating: tuple[str, ...] = ()


def check_max_games(max_games: int) -> None:
    """Refuse an SPRT's ``max_games`` below 2 or above :data:`MAX_GAMES`."""
    if isinstance(max_games, bool) or not isinstance(max_games, int) or max_games < 2:
        raise InvalidConfigError(f"max games must be an integer >= 2, got {max_games!r}")
    if max_games > MAX_GAMES:
        raise InvalidConfigError(
            f"max games must be at most {MAX_GAMES:,} (a run's games at most), got {max_games:,}"
        )


def run_sprt(
    config: ArenaConfig,
    test: Any,
    store: ResultStore,
    max_games: int = 20_000,
    resume: bool = False,
    on_pair: Callable[[Any, int], None] | None = None,
    duplicates: str = "allow",
) -> SprtOutcome:
    """Play pairs of games (colours swapped) between ``config``'s two players until the
    sequential probability ratio test ``test`` (a :class:`mctslab.arena.sprt.Sprt`) accepts a
    hypothesis, or ``max_games`` games are played.

    Pairs are counted in their scheduled order, whatever order the workers finish
    them in, so the decision (and the pair at which it is reached) depends only on
    the seeds. Games that finished after the deciding pair stay in the store.
    ``duplicates`` and the stopped runs are as in :func:`run_arena`.
    """
    if len(config.players) != 2:
        raise InvalidConfigError("an SPRT takes exactly two players")
    check_max_games(max_games)
    game = make(config.game, **dict(config.game_params))
    cheating = check_players(config, game)
    pairs_cap = max_games // 2
    full = ArenaConfig(**{**config.__dict__, "games": 2 * pairs_cap})
    tasks = schedule(full)
    identity = {**full.identity(game.info.version), "sprt": test.config.to_dict()}
    run_id = _open_run(store, "sprt", config, game, identity, None, cheating, resume, duplicates)
    a = config.players[0].name
    finished: dict[int, GameRecord] = {r.slot: r for r in store.games([run_id])}
    next_pair = 0

    def feed() -> bool:
        """Add every complete pair, in order; True once the test has decided."""
        nonlocal next_pair
        while 2 * next_pair + 1 in finished and 2 * next_pair in finished:
            g1, g2 = finished[2 * next_pair], finished[2 * next_pair + 1]
            test.add_pair(g1.score_of(a), g2.score_of(a))
            next_pair += 1
            if on_pair is not None:
                on_pair(test, next_pair)
            if test.decision is not None:
                return True
        return False

    batch = 2 * max(1, config.workers)
    try:
        decided = feed()
        position = 0
        while not decided and next_pair < pairs_cap:
            todo: list[GameTask] = []
            while len(todo) < batch and position < len(tasks):
                if tasks[position].slot not in finished:
                    todo.append(tasks[position])
                position += 1
            if not todo:
                break
            for record in run_tasks(todo, config.workers, config.backend, config.ray_address):
                store.add_game(run_id, record)
                finished[record.slot] = record
            decided = feed()
        if decided or next_pair >= pairs_cap:
            store.finish_run(run_id)
    except BaseException as err:
        _mark_stopped(store, run_id, err)
        raise
    return SprtOutcome(run_id, test.decision, next_pair, test.status(), cheating)
