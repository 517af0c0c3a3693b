"""The arena: matches and round-robin tournaments between player specs, with time controls.

A tournament is a list of games fixed in advance (:func:`schedule`): every pair of
players meets ``games`` times, colours swapped in pairs (game ``2k`` and ``2k+1``
of a pairing have the same seed and, with ``openings=K``, the same ``K`` random
opening plies, each player once with each colour). Each game is a
:class:`GameTask` played by :func:`play_task`, a pure function of the task: the
same task gives the same game whenever the players' budgets are iteration counts
(time budgets depend on the machine's speed, so they are not reproducible).

:func:`run_arena` plays the tasks in worker processes (``workers``; or on a Ray
cluster, :mod:`mctslab.ray_backend`), writes each finished game to the results
store (:mod:`mctslab.store`) in its own transaction, and with ``resume`` plays
only the games the store does not have yet.

Time control (``time_per_move``): every move is timed. A move slower than the
limit by more than :data:`TIME_TOLERANCE` (relative) plus :data:`TIME_GRACE`
seconds is an *overrun*, recorded with its size; with ``strict`` the player who
overran loses the game. An ``mcts`` spec with no budget of its own gets
``time=<limit>``; other players keep their own budget and are only measured.

A player that raises, or returns an illegal move, loses the game; the error is
recorded with the game and the tournament goes on.
"""

from __future__ import annotations

import hashlib
import math
import multiprocessing
import os
import time
import traceback
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from mctslab.errors import InvalidConfigError, InvalidSpecError
from mctslab.game import CHANCE, Game, State, sample_chance_outcome
from mctslab.players import Player, make_player, parse_spec
from mctslab.registry import make
from mctslab.rng import Rng
from mctslab.store import GameRecord, ResultStore, now

__all__ = [
    "TIME_GRACE",
    "TIME_TOLERANCE",
    "ArenaConfig",
    "ArenaResult",
    "Entrant",
    "GameTask",
    "MoveTimes",
    "derive_seed",
    "effective_spec",
    "move_time_stats",
    "play_task",
    "run_arena",
    "run_tasks",
    "schedule",
    "standings",
]

#: A move may exceed the time limit by this fraction of it ...
TIME_TOLERANCE = 0.10
#: ... plus this many seconds (process scheduling, the clock check between chunks).
TIME_GRACE = 0.02

_BUDGET_KEYS = {"time", "iterations", "iters", "n", "simulations", "max_nodes", "nodes"}


@dataclass(frozen=True)
class Entrant:
    """A named player: ``name`` labels it in tables and the store, ``spec`` makes it."""

    name: str
    spec: str


@dataclass(frozen=True)
class ArenaConfig:
    """A round-robin tournament. ``games`` is the number of games per pairing.

    ``workers`` and ``backend`` decide where the games run, not what they are: they
    are not part of :meth:`identity`, so a run resumed with other workers (or on
    Ray) continues the same games.
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
        if not isinstance(self.games, int) or self.games < 1:
            raise InvalidConfigError(f"games must be a positive integer, got {self.games!r}")
        if self.time_per_move is not None and not (
            math.isfinite(self.time_per_move) and self.time_per_move > 0
        ):
            raise InvalidConfigError(
                f"time per move must be a positive number of seconds, got {self.time_per_move!r}"
            )
        if self.openings < 0:
            raise InvalidConfigError(f"openings must be >= 0 plies, got {self.openings}")
        if self.workers < 1:
            raise InvalidConfigError(f"workers must be >= 1, got {self.workers}")
        if self.backend not in ("local", "ray"):
            raise InvalidConfigError(f"unknown backend {self.backend!r}; valid: local, ray")
        if self.strict and self.time_per_move is None:
            raise InvalidConfigError("strict time control needs a time per move")

    def identity(self) -> dict[str, Any]:
        """Everything that decides the games (what ``resume`` matches on)."""
        return {
            "game": self.game,
            "game_params": dict(self.game_params),
            "players": [[p.name, p.spec] for p in self.players],
            "games": self.games,
            "time_per_move": self.time_per_move,
            "strict": self.strict,
            "seed": self.seed,
            "openings": self.openings,
        }


@dataclass(frozen=True)
class GameTask:
    """One game to play: everything :func:`play_task` needs, picklable."""

    slot: int
    game: str
    game_params: tuple[tuple[str, Any], ...]
    seats: tuple[Entrant, ...]
    seed: int
    openings: int = 0
    opening_seed: int = 0
    time_per_move: float | None = None
    strict: bool = False


def derive_seed(*parts: int | str) -> int:
    """A 63-bit seed from a base seed and labels (BLAKE2b: stable across runs and machines)."""
    text = ":".join(str(p) for p in parts).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "little") >> 1


def effective_spec(spec: str, time_per_move: float | None) -> str:
    """``spec`` as played under a time control: an ``mcts`` spec with no budget gets one."""
    kind, options = parse_spec(spec)
    if time_per_move is None or kind != "mcts" or _BUDGET_KEYS & set(options):
        return spec
    extra = f"time={time_per_move!r}"
    return f"{spec},{extra}" if options else f"mcts:{extra}"


def schedule(config: ArenaConfig) -> list[GameTask]:
    """The tournament's games in slot order: pairings in order, ``games`` games each."""
    tasks = []
    slot = 0
    for i, j in combinations(range(len(config.players)), 2):
        a, b = config.players[i], config.players[j]
        for g in range(config.games):
            pair = g // 2
            seats = (a, b) if g % 2 == 0 else (b, a)
            seed = derive_seed(config.seed, a.name, b.name, pair)
            tasks.append(
                GameTask(
                    slot=slot,
                    game=config.game,
                    game_params=config.game_params,
                    seats=seats,
                    seed=seed,
                    openings=config.openings,
                    opening_seed=derive_seed(seed, "opening"),
                    time_per_move=config.time_per_move,
                    strict=config.strict,
                )
            )
            slot += 1
    return tasks


def _opening(state: State, plies: int, seed: int) -> list[int]:
    """``plies`` uniformly random moves that do not end the game (where one exists)."""
    rng = Rng(seed)
    played: list[int] = []
    for _ in range(plies):
        if state.is_terminal():
            break
        if state.current_player() == CHANCE:
            action = sample_chance_outcome(state, rng)
        else:
            legal = state.legal_actions()
            alive = [a for a in legal if not state.child(a).is_terminal()]
            action = (alive or legal)[rng.randint(len(alive or legal))]
        state.apply_action(action)
        played.append(action)
    return played


def _forfeit(game: Game, n: int, loser: int) -> list[float]:
    """Returns when seat ``loser`` forfeits: it gets the minimum, the others the maximum."""
    lo, hi = game.info.min_utility, game.info.max_utility
    return [lo if p == loser else hi for p in range(n)]


def _score(returns: Sequence[float]) -> float | None:
    if len(returns) != 2:
        return None
    return 1.0 if returns[0] > returns[1] else (0.0 if returns[0] < returns[1] else 0.5)


def play_task(task: GameTask) -> GameRecord:
    """Play one game of a tournament and return its record (never raises for a player's fault)."""
    started = now()
    game = make(task.game, **dict(task.game_params))
    info = game.info
    state = game.new_initial_state()
    n = info.num_players
    opening = _opening(state, task.openings, task.opening_seed)
    moves: list[int] = list(opening)
    times: list[float | None] = [None] * len(opening)
    movers: list[int] = [-1] * len(opening)
    overruns: list[tuple[int, int, float]] = []
    limit = task.time_per_move
    allowed = None if limit is None else limit * (1 + TIME_TOLERANCE) + TIME_GRACE
    chance_rng = Rng(derive_seed(task.seed, "chance"))
    termination, error = "normal", None
    returns: list[float] | None = None
    players: list[Player] = []
    for seat, entrant in enumerate(task.seats):
        try:
            spec = effective_spec(entrant.spec, limit)
            players.append(make_player(spec, info, seed=derive_seed(task.seed, "seat", seat)))
        except Exception as err:  # a bad spec is caught before the run; this is a crash
            return _record(task, opening, moves, times, movers, overruns,
                           _forfeit(game, n, seat), "error",
                           f"{entrant.name}: {_describe(err)}", started)  # fmt: skip
    for player in players:
        for a in opening:
            player.inform(a)
    while not state.is_terminal():
        p = state.current_player()
        if p == CHANCE:
            action = sample_chance_outcome(state, chance_rng)
            state.apply_action(action)
            moves.append(action)
            times.append(None)
            movers.append(-1)
        else:
            name = task.seats[p].name
            t0 = time.perf_counter()
            try:
                action = players[p].choose(state.clone())
            except Exception as err:
                termination, error = "error", f"{name}: {_describe(err)}"
                returns = _forfeit(game, n, p)
                break
            elapsed = time.perf_counter() - t0
            legal = state.legal_actions()
            if not isinstance(action, int) or action not in legal:
                termination = "error"
                error = f"{name}: illegal move {action!r} (legal: {legal})"
                returns = _forfeit(game, n, p)
                break
            state.apply_action(action)
            moves.append(action)
            times.append(elapsed)
            movers.append(p)
            if allowed is not None and limit is not None and elapsed > allowed:
                overruns.append((len(moves) - 1, p, elapsed - limit))
                if task.strict:
                    termination = "time"
                    error = f"{name}: {elapsed:.3f} s for a move, limit {limit:g} s"
                    returns = _forfeit(game, n, p)
                    break
        for seat, player in enumerate(players):
            try:
                player.inform(action)
            except Exception as err:
                termination, error = "error", f"{task.seats[seat].name}: {_describe(err)}"
                returns = _forfeit(game, n, seat)
                break
        if returns is not None:
            break
    if returns is None:
        returns = [float(r) for r in state.returns()]
    return _record(
        task, opening, moves, times, movers, overruns, returns, termination, error, started
    )


def _describe(err: BaseException) -> str:
    where = traceback.extract_tb(err.__traceback__)
    at = f" (at {where[-1].filename.rsplit('/', 1)[-1]}:{where[-1].lineno})" if where else ""
    return f"{type(err).__name__}: {err}{at}"


def _record(
    task: GameTask,
    opening: list[int],
    moves: list[int],
    times: list[float | None],
    movers: list[int],
    overruns: list[tuple[int, int, float]],
    returns: list[float],
    termination: str,
    error: str | None,
    started: str,
) -> GameRecord:
    return GameRecord(
        slot=task.slot,
        seats=tuple(e.name for e in task.seats),
        seed=task.seed,
        opening=tuple(opening),
        moves=tuple(moves),
        returns=tuple(returns),
        score=_score(returns),
        termination=termination,
        error=error,
        move_times=tuple(times),
        movers=tuple(movers),
        overruns=tuple(overruns),
        started=started,
    )


# Running many games ----------------------------------------------------------------------


def run_tasks(
    tasks: Sequence[GameTask],
    workers: int = 1,
    backend: str = "local",
    ray_address: str | None = None,
) -> Iterator[GameRecord]:
    """Play ``tasks`` and yield each record as it finishes (in completion order).

    ``workers=1`` plays in this process; more use forked worker processes (at most
    ``2 * workers`` games queued at a time); ``backend="ray"`` sends them to Ray.
    """
    if backend == "ray":
        from mctslab.ray_backend import run_tasks_ray

        yield from run_tasks_ray(tasks, workers, ray_address)
        return
    if workers == 1 or len(tasks) <= 1:
        for task in tasks:
            yield play_task(task)
        return
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    pending: set[Future[GameRecord]] = set()
    queue = iter(tasks)
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
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
    """What a tournament run did: its run id in the store, and every game of the run."""

    run_id: int
    planned: int
    played_now: int
    records: tuple[GameRecord, ...] = field(default=())


def check_players(config: ArenaConfig, game: Game) -> None:
    """Make every player once, so a bad spec fails before anything runs or is stored."""
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


def run_arena(
    config: ArenaConfig,
    store: ResultStore | None,
    resume: bool = False,
    kind: str = "arena",
    on_record: Callable[[GameRecord, int, int], None] | None = None,
    tasks: Sequence[GameTask] | None = None,
) -> ArenaResult:
    """Play ``config``'s tournament into ``store`` (see the module docstring).

    ``store=None`` plays into an in-memory store, gone afterwards. With ``resume``,
    the latest run of the same configuration continues: only its missing slots
    are played. ``on_record(record, done, total)`` is called after each
    game is committed. Bad players or games raise before the store is written.
    """
    if store is None:
        with ResultStore(":memory:") as memory:
            return run_arena(config, memory, resume, kind, on_record, tasks)
    game = make(config.game, **dict(config.game_params))
    check_players(config, game)
    all_tasks = list(tasks) if tasks is not None else schedule(config)
    identity = config.identity()
    run_id = store.find_run(kind, identity) if resume else None
    if run_id is None:
        run_id = store.start_run(
            kind,
            config.game,
            game.info.version,
            identity,
            config.seed,
            {p.name: p.spec for p in config.players},
            len(all_tasks),
        )
    done_slots = store.played_slots(run_id)
    todo = [t for t in all_tasks if t.slot not in done_slots]
    done = len(all_tasks) - len(todo)
    played_now = 0
    for record in run_tasks(todo, config.workers, config.backend, config.ray_address):
        if store.add_game(run_id, record):
            played_now += 1
            done += 1
        if on_record is not None:
            on_record(record, done, len(all_tasks))
    if done == len(all_tasks):
        store.finish_run(run_id)
    return ArenaResult(run_id, len(all_tasks), played_now, tuple(store.games([run_id])))


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
    """How an SPRT run ended: ``decision`` is ``"H1"``, ``"H0"`` or ``None`` (game cap hit)."""

    run_id: int
    decision: str | None
    pairs: int
    status: dict[str, Any]


def run_sprt(
    config: ArenaConfig,
    test: Any,
    store: ResultStore,
    max_games: int = 20_000,
    resume: bool = False,
    on_pair: Callable[[Any, int], None] | None = None,
) -> SprtOutcome:
    """Play pairs of games (colours swapped) between ``config``'s two players until the
    sequential probability ratio test ``test`` (a :class:`mctslab.sprt.Sprt`) accepts a
    hypothesis, or ``max_games`` games are played.

    Pairs are counted in their scheduled order, whatever order the workers finish
    them in, so the decision (and the pair at which it is reached) depends only on
    the seeds. Games that finished after the deciding pair stay in the store.
    """
    if len(config.players) != 2:
        raise InvalidConfigError("an SPRT takes exactly two players")
    if max_games < 2:
        raise InvalidConfigError(f"max games must be >= 2, got {max_games}")
    game = make(config.game, **dict(config.game_params))
    check_players(config, game)
    pairs_cap = max_games // 2
    full = ArenaConfig(**{**config.__dict__, "games": 2 * pairs_cap})
    tasks = schedule(full)
    identity = {**full.identity(), "sprt": test.config.to_dict()}
    run_id = store.find_run("sprt", identity) if resume else None
    if run_id is None:
        run_id = store.start_run(
            "sprt",
            config.game,
            game.info.version,
            identity,
            config.seed,
            {p.name: p.spec for p in config.players},
            None,
        )
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
    return SprtOutcome(run_id, test.decision, next_pair, test.status())
