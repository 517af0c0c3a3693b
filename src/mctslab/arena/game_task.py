"""One game of a tournament: the task that describes it and :func:`play_task`, which plays it.

A :class:`GameTask` holds everything that decides a game (the game and its
parameters, the named players in seat order, the seeds, the opening, the time
control) and is picklable, so :func:`play_task` runs it anywhere: in this
process, in a worker process of :func:`mctslab.arena.tournament.run_tasks`, or on a Ray
worker (:mod:`mctslab.arena.ray_backend`). ``play_task`` is a pure function of the
task whenever the players' budgets are iteration counts.

This module is what the arena (which schedules games and stores them) and the
Ray backend (which only plays them) share; neither imports the other for it.

Time control (``time_per_move``, ``main_time``; :mod:`mctslab.arena.game_clock`): every
move is timed. Under a constant clock (``time_per_move`` alone) a move slower than the
limit by more than :data:`TIME_TOLERANCE` (relative) plus :data:`TIME_GRACE` seconds is
an *overrun*; under a game clock (``main_time``, then byo-yomi of ``time_per_move``
where set) a move that takes more than its seat's clock had left, plus ``TIME_GRACE``,
is one (a flag fall). An overrun is recorded with its size; with ``strict`` the player
who overran loses the game. A searching spec with no budget of its own searches
``time=<limit>`` with no iteration cap (under a game clock, each move what the clock
allows then), one with a budget of its own keeps it (:func:`effective_spec`, the rule of
:mod:`mctslab.players.time_control`); a ``gtp:`` program is told the control
(``time_settings``, and ``time_left`` before each move under a game clock); other
players keep their own budget and are only measured.

Resignation (termination ``"resign"``, a result of the game, not a forfeit): a ``gtp:``
program that answers ``resign`` (:class:`~mctslab.players.gtp.GtpResignation`), and,
with ``resign_below`` set, a searching player whose last search's root value fell below
it (the rule of :mod:`mctslab.players.resign`, which ``mctslab gtp`` follows too). The
resigning seat loses; ``error`` says who resigned and, for a search, at what value.

Passing (Go), the rules of :mod:`mctslab.players.resign` that ``mctslab gtp`` and the web
lab follow too: right after the opponent's pass, a searching player passes at once,
without a search, when that pass ends the game won
(:func:`~mctslab.players.resign.pass_for`), and a search's first pass where every move
looks won is replaced by its best other move (:func:`~mctslab.players.resign.play_on`).
A ``gtp:`` program passes by its own rules.

A player that raises (termination ``"error"``), or returns an illegal move
(``"illegal"``), loses the game; the error is recorded with the game. A game that its
rules end at their length limit before it is decided on the board is scored as the game
says (``game.adjudicate``, where a game has one: Go scores by agreement, its dead stones
removed) and recorded as ``"length"``, with the line that tells how it was scored.
:data:`SCORED` lists the terminations that are results on the board, not forfeits.
"""

from __future__ import annotations

import hashlib
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mctslab.arena.game_clock import MoveTimer
from mctslab.arena.store import GameRecord, now
from mctslab.core.game import CHANCE, Game, State, sample_chance_outcome
from mctslab.core.registry import make
from mctslab.core.rng import Rng
from mctslab.players import resign as ending
from mctslab.players.gtp import GtpPlayer, GtpResignation
from mctslab.players.player import Player, check_hidden_information, make_player
from mctslab.players.resign import resign_value, resigns
from mctslab.players.time_control import timed_spec

__all__ = [
    "SCORED",
    "TIME_GRACE",
    "TIME_TOLERANCE",
    "Entrant",
    "GameTask",
    "derive_seed",
    "effective_spec",
    "play_opening",
    "play_task",
]

#: The terminations of a game decided by its rules or given up by a player (every other
#: one is a forfeit: an ``"error"``, an ``"illegal"`` move, a loss on ``"time"``).
SCORED = ("normal", "length", "resign")

#: A move may exceed the time limit by this fraction of it ...
TIME_TOLERANCE = 0.10
#: ... plus this many seconds (process scheduling, the clock check between chunks).
TIME_GRACE = 0.02


@dataclass(frozen=True)
class Entrant:
    """A named player: ``name`` labels it in tables and the store, ``spec`` makes it."""

    name: str
    spec: str


@dataclass(frozen=True)
class GameTask:
    """One game to play: everything :func:`play_task` needs, picklable.

    ``allow_cheating`` lets a player that reads the full state play a game with hidden
    information (:func:`mctslab.players.player.check_hidden_information`).
    ``resign_below``: a searching player resigns when its root value falls below it
    (:mod:`mctslab.players.resign`); ``None``, never.
    """

    slot: int
    game: str
    game_params: tuple[tuple[str, Any], ...]
    seats: tuple[Entrant, ...]
    seed: int
    openings: int = 0
    opening_seed: int = 0
    time_per_move: float | None = None
    strict: bool = False
    allow_cheating: bool = False
    main_time: float | None = None
    resign_below: float | None = None


def derive_seed(*parts: int | str) -> int:
    """A 63-bit seed from a base seed and labels (BLAKE2b: stable across runs and machines)."""
    text = ":".join(str(p) for p in parts).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "little") >> 1


def effective_spec(spec: str, time_per_move: float | None) -> str:
    """``spec`` as played under a time control of ``time_per_move`` seconds a move: the
    rule of :func:`mctslab.players.time_control.timed_spec` (a spec's own budget wins;
    otherwise the clock decides, with no default iteration cap)."""
    return timed_spec(spec, time_per_move)


def play_opening(state: State, plies: int, seed: int) -> list[int]:
    """Play and return ``plies`` uniformly random moves on ``state`` that do not end the
    game (where one exists), chance outcomes drawn from the same ``Rng(seed)``: the arena's
    random opening."""
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
    """Play one game of a tournament and return its record (never raises for a player's fault).

    Raises :class:`~mctslab.core.errors.InvalidConfigError` before any player moves when a
    seat's player would read hidden information and ``task.allow_cheating`` is not set.
    """
    started = now()
    game = make(task.game, **dict(task.game_params))
    info = game.info
    state = game.new_initial_state()
    n = info.num_players
    opening = play_opening(state, task.openings, task.opening_seed)
    moves: list[int] = list(opening)
    times: list[float | None] = [None] * len(opening)
    movers: list[int] = [-1] * len(opening)
    timer = MoveTimer(
        time_per_move=task.time_per_move,
        main_time=task.main_time,
        tolerance=TIME_TOLERANCE,
        grace=TIME_GRACE,
    )
    overruns = timer.overruns
    # A constant clock is the spec's (its budget); a game clock gives one each move.
    limit = task.time_per_move if task.main_time is None else None
    chance_rng = Rng(derive_seed(task.seed, "chance"))
    termination, error = "normal", None
    returns: list[float] | None = None
    players: list[Player] = []
    specs: list[tuple[str, str]] = []
    for seat, entrant in enumerate(task.seats):
        try:
            spec = effective_spec(entrant.spec, limit)
            player = make_player(spec, info, seed=derive_seed(task.seed, "seat", seat))
            timer.seat(seat, player, spec)  # a gtp: program is told its time settings
            players.append(player)
        except Exception as err:  # a bad spec is caught before the run; this is a crash
            return _record(task, opening, moves, times, movers, overruns,
                           _forfeit(game, n, seat), "error",
                           f"{entrant.name}: {_describe(err)}", started)  # fmt: skip
        specs.append((entrant.name, spec))
    # Not a player's fault but the configuration's: raised (the arena checks before any game).
    check_hidden_information(game, specs, task.allow_cheating)
    for player in players:
        for a in opening:
            player.inform(a)
    for seat, player in enumerate(players):
        if isinstance(player, GtpPlayer):
            try:  # the program starts before the clock: its start-up is not a move
                player.prepare(state)
            except Exception as err:  # it could not start: a crash of that seat
                return _record(task, opening, moves, times, movers, overruns,
                               _forfeit(game, n, seat), "error",
                               f"{task.seats[seat].name}: {_describe(err)}", started)  # fmt: skip
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
            timer.before(p, players[p], state, game)
            t0 = time.perf_counter()
            action, termination, error = _choose(players[p], state, name, task.resign_below)
            if error is not None:  # resigned or crashed: that seat loses
                returns = _forfeit(game, n, p)
                break
            elapsed = time.perf_counter() - t0
            legal = state.legal_actions()
            if not isinstance(action, int) or action not in legal:
                termination = "illegal"
                error = f"{name}: illegal move {action!r} (legal: {legal})"
                returns = _forfeit(game, n, p)
                break
            state.apply_action(action)
            moves.append(action)
            times.append(elapsed)
            movers.append(p)
            forfeit = timer.after(p, elapsed, len(moves) - 1, name, task.strict)
            if forfeit is not None:
                termination, error = "time", forfeit
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
        adjudicate = getattr(game, "adjudicate", None)
        judged = adjudicate(state, derive_seed(task.seed, "adjudicate")) if adjudicate else None
        if judged is not None:  # Go at its length limit: scored by agreement, said so
            returns, error = judged
            termination = "length"
        else:
            returns = [float(r) for r in state.returns()]
    return _record(
        task, opening, moves, times, movers, overruns, returns, termination, error, started
    )


def _choose(
    player: Player, state: State, name: str, resign_below: float | None
) -> tuple[Any, str, str | None]:
    """``player``'s move in ``state`` by the rules the arena shares with ``mctslab gtp``
    and the web lab (:mod:`mctslab.players.resign`), with ``"normal"`` and no error; or
    no move, the termination (``"resign"``, ``"error"``) and what happened."""
    passed = ending.pass_for(player, state)
    if passed is not None:  # the game ends won by it: no search (nor a stale resignation)
        return passed, "normal", None
    try:
        action = player.choose(state.clone())
    except GtpResignation as err:
        return None, "resign", f"{name}: GtpResignation: {err}"
    except Exception as err:
        return None, "error", f"{name}: {_describe(err)}"
    if resign_below is not None and resigns(player, resign_below):
        return None, "resign", _resignation(name, player)
    return ending.play_on(action, getattr(player, "last_result", None), state), "normal", None


def _resignation(name: str, player: Player) -> str:
    seen = resign_value(player)
    assert seen is not None
    return f"{name} resigns: root value {seen[0]:+.3f} after {seen[1]} simulations"


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
