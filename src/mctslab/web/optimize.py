"""The web lab's single-player view: the games and searches it offers, and the runs it holds.

``mctslab optimize`` (:mod:`mctslab.cli.optimize`) searches a single-player game for its
best sequence of moves; this module does the same for the lab's page, in background
threads, and keeps what the page polls:

- :func:`catalog`: the single-player games the lab offers, each with the parameters it
  declares (:func:`mctslab.core.registry.parameter_schema`: the travelling salesman's
  shipped TSPLIB instances or ``random:N:SEED``, SameGame's seed and size, Morpion
  Solitaire's variant), its shipped instances and the searches of its own
  (:mod:`mctslab.core.declarations`), and the search specs of
  :data:`mctslab.players.optimizers.OPTIMIZERS` with their options and defaults;
- :func:`build_game`: a request's game, its parameters checked against what the game
  declares (no file path is ever read: a TSP instance is a shipped name or
  ``random:N:SEED``);
- :class:`OptimizeRun` and :class:`RunStore`: a search running in a thread of its own.

A run is one call of :meth:`mctslab.players.optimizers.Optimizer.run` with the
request's seed and time, so it is exactly ``mctslab optimize`` with that seed and time
(the search's own restarts included), watched by a
:class:`~mctslab.search.single.result.Watch`: *Stop* (or the server's shutdown) ends it
at the search's next budget check (between two playouts of a reference search, two
chunks of about 20 ms of a compiled one), and the page's tour or board is the best
sequence the search has published so far (a reference search's each new best, a
compiled search's at the end of the chunk that found it; ``sa`` and ``ga`` tell their
tour when they end). A compiled search compiles its code on first use (or loads it from
numba's cache) before its clock starts: the view says ``compiling`` meanwhile, and
``compile_seconds`` is that time, apart from the search's ``time``; the curve's seconds
are wall seconds since the run started, compilation included.
"""

from __future__ import annotations

import functools
import math
import re
import threading
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field
from time import perf_counter
from typing import Any

from mctslab.core.declarations import (
    Parameter,
    baseline_limits,
    baselines,
    instances,
    known_optimum,
    rendering,
)
from mctslab.core.errors import InvalidConfigError, InvalidSpecError
from mctslab.core.game import Game, State
from mctslab.core.registry import has_capability, make, parameter_schema
from mctslab.core.text import strict_float, strict_int
from mctslab.players.optimizers import OPTIMIZERS, Optimizer, parse_optimizer
from mctslab.search.single.result import Improvement, Watch, check_single_player

__all__ = [
    "DEFAULT_RUN_SECONDS",
    "OPTIMIZE_GAMES",
    "SEARCH_DEFAULTS",
    "SUGGESTED",
    "OptimizeRun",
    "RunStore",
    "build_game",
    "catalog",
    "check_search",
    "own_searches",
    "solution_view",
]

#: A run's seconds unless the request says (or ``max_optimize_time`` is less).
DEFAULT_RUN_SECONDS = 5.0
#: The single-player games the lab offers, in the order the page lists them.
OPTIMIZE_GAMES = ("tsp", "samegame", "morpion_solitaire")

#: Each search's options with their defaults (what :class:`Optimizer` uses when an
#: option is left out), and a line about it.
SEARCH_DEFAULTS: dict[str, tuple[str, dict[str, float | int]]] = {
    "nrpa": (
        "Nested Rollout Policy Adaptation (Rosin 2011); bias > 0: Generalized NRPA",
        {"level": 2, "iterations": 100, "alpha": 1.0, "bias": 0.0},
    ),
    "nmcs": ("Nested Monte-Carlo Search (Cazenave 2009)", {"level": 2}),
    "sp-mcts": (
        "Single-Player MCTS (Schadd et al. 2008)",
        {"c": 0.5, "d": 0.01, "iterations": 1000},
    ),
    "random": ("uniformly random playouts, the best kept", {}),
    "greedy": ("each move the child the game's heuristic likes best", {}),
    "nn": ("nearest neighbour (tsp)", {}),
    "2opt": ("2-opt from the nearest neighbour's tour (tsp)", {}),
    "sa": ("simulated annealing over 2-opt moves (tsp)", {}),
    "ga": ("a genetic algorithm, order crossover (tsp)", {}),
    "exact": ("Held-Karp, the exact optimum (tsp, up to 16 cities)", {}),
}

#: Each game's suggested search (the page's default, and a request's without
#: ``search``): the settings behind the documented figures, and those figures in words.
SUGGESTED: dict[str, tuple[str, str]] = {
    "tsp": (
        "nrpa:level=2,bias=4,polish=1",
        "Generalized NRPA (bias=4: the edge-length prior) with 2-opt and Or-opt in its "
        "playouts (polish=1) found the proven optimum of eil51, berlin52, st70 and "
        "kroA100 in every run at 1 s; without polish, nrpa:level=3,bias=4 ends 0.00 to "
        "0.39% above it at 60 s, and plain NRPA (bias=0) 9 to 50% above "
        "(docs/optimize.md, benchmarks/bench_optimize.py)",
    ),
    "samegame": (
        "nrpa:level=2",
        "NRPA with Rosin's settings; SameGame has no prior or local search for bias and polish",
    ),
    "morpion_solitaire": (
        "nrpa:level=3",
        "NRPA level 3, the setting of the 5D record run (82 moves in an hour on 2 cores, "
        "docs/morpion.md); a few seconds here reach far less",
    ),
}

#: What the page says of each game: its title and what its score is.
TITLES: dict[str, tuple[str, str]] = {
    "tsp": ("Travelling salesman", "minus the closed tour's length"),
    "samegame": ("SameGame", "(n - 2)^2 for a group of n, 1,000 for a cleared board"),
    "morpion_solitaire": ("Morpion Solitaire", "the lines drawn"),
}


# The catalog. ---------------------------------------------------------------------------


def _default_game(name: str) -> Game:
    """``name`` made with the defaults its form offers (what the catalog reads)."""
    return make(name, **{p.name: p.default for p in parameter_schema(name)})


@functools.cache
def _default_games() -> dict[str, Game]:
    return {name: _default_game(name) for name in OPTIMIZE_GAMES}


def own_searches() -> dict[str, tuple[str, ...]]:
    """Each lab game's own searches (its declared ``baselines``: the travelling
    salesman's ``nn``, ``2opt``, ``sa``, ``ga`` and ``exact``), by game."""
    return {name: baselines(game) for name, game in _default_games().items()}


def _search_limit(kind: str) -> int | None:
    """The most actions a game's own search takes, as its game declares it (Held-Karp's
    cities), ``None`` for the searches of every game."""
    limits = [baseline_limits(g).get(kind) for g in _default_games().values()]
    return next((n for n in limits if n is not None), None)


def _option_type(parse: Any) -> str:
    """How an option's value is read: an integer, a number, or a flag (1 or 0)."""
    return "integer" if parse is strict_int else "number" if parse is strict_float else "flag"


def _game_entry(name: str) -> dict[str, Any]:
    """A game of the catalog: what it declares (parameters, instances) and what the page
    says of it (title, score, suggested search)."""
    title, score = TITLES[name]
    spec, why = SUGGESTED[name]
    return {
        "name": name,
        "title": title,
        "score": score,
        "parameters": [p.to_dict() for p in parameter_schema(name)],
        "instances": [
            {"name": i.name, "cities": i.size, "optimum": i.optimum}
            for i in instances(_default_games()[name])
        ],
        "suggested": {"search": spec, "note": why},
    }


def _search_entry(kind: str, options: dict[str, Any], own: dict[str, tuple[str, ...]]) -> Any:
    title, defaults = SEARCH_DEFAULTS.get(kind, (kind, {}))
    owners = [g for g, kinds in own.items() if kind in kinds]
    return {
        "kind": kind,
        "title": title,
        "max_cities": _search_limit(kind),
        "counts": parse_optimizer(kind).counts,
        "games": owners or list(OPTIMIZE_GAMES),
        "options": [
            {"name": name, "type": _option_type(parse), "default": defaults.get(name)}
            for name, parse in options.items()
        ],
    }


def catalog() -> dict[str, Any]:
    """What ``GET /api/optimize/games`` lists: the games with the parameters they declare
    (each a ``choice`` of values, or an ``integer`` with bounds) and the searches with
    their options (a default of ``None``: the search's own, not listed here)."""
    own = own_searches()
    return {
        "games": [_game_entry(name) for name in OPTIMIZE_GAMES],
        "searches": [_search_entry(k, o, own) for k, o in OPTIMIZERS.items()],
    }


# Games from a request. ------------------------------------------------------------------


def _integer(game: str, name: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, str) and re.fullmatch(r"[0-9]{1,12}", value.strip()):
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidConfigError(
            f"params.{name}: {game}'s {name} is an integer in [{low}, {high}], got {value!r}"
        )
    return value


def _checked(game: str, p: Parameter, value: Any) -> Any:
    """``value`` of parameter ``p`` of ``game`` as the game declares it: an integer in its
    bounds, one of its choices, or what its ``read`` accepts."""
    if p.kind == "integer":
        assert p.minimum is not None and p.maximum is not None
        return _integer(game, p.name, value, p.minimum, p.maximum)
    if p.read is not None:
        try:
            return p.read(value)
        except ValueError as err:
            raise InvalidConfigError(f"params.{p.name}: {err}") from None
    if p.choices and value not in p.choices:
        raise InvalidConfigError(f"params.{p.name}: one of {', '.join(p.choices)}, got {value!r}")
    return value


def checked_params(name: str, params: dict[str, Any]) -> dict[str, Any]:
    """``params`` for game ``name`` checked against the parameters it declares (a
    ``ValueError``, 400, names the parameter and what it may be), defaults filled in."""
    if name not in OPTIMIZE_GAMES:
        raise InvalidConfigError(
            f"game: {name!r} is not a single-player game of the lab; the lab's: "
            f"{', '.join(OPTIMIZE_GAMES)}"
        )
    known = {p.name: p for p in parameter_schema(name)}
    for key in params:
        if key not in known:
            raise InvalidConfigError(
                f"params.{key}: {name} has no parameter {key!r}; its parameters: {', '.join(known)}"
            )
    return {key: _checked(name, p, params.get(key, p.default)) for key, p in known.items()}


def build_game(name: str, params: dict[str, Any]) -> tuple[Game, State, dict[str, Any]]:
    """``(game, first position, the parameters used)`` for a request (slow for large
    instances: call it in a worker thread)."""
    used = checked_params(name, params)
    game = make(name, **used)
    if game.info.num_players != 1:  # pragma: no cover - the catalog's games are
        raise InvalidConfigError(f"{name} is not a single-player game")
    return game, game.new_initial_state(), used


def check_search(spec: str | None, game: Game, state: State | None = None) -> Optimizer:
    """The parsed ``spec`` for ``game`` (``None``: the game's :data:`SUGGESTED` search),
    checked for everything that would make the run fail once started, so that a request
    that can never search is a 400 at once, with the message the step endpoint gives
    for the same game (a ``ValueError``): an unknown search or option, another game's
    own search (the travelling salesman's), one of the game's own over the actions it
    takes (Held-Karp over its cities), ``polish=1`` on a game with no local search,
    ``engine=compiled`` on a game without rule kernels, and (``state``) a position
    already over."""
    if spec is None:
        spec = SUGGESTED.get(game.info.name, ("nrpa:level=2", ""))[0]
    try:
        optimizer = parse_optimizer(spec)
    except InvalidSpecError as err:
        raise InvalidSpecError(f"search: {err}") from None
    if state is not None:
        check_single_player(state, game.info.num_players)
    _check_knowledge(optimizer, game, state)
    _check_own(optimizer.kind, game)
    return optimizer


def _check_own(kind: str, game: Game) -> None:
    """A game's own search runs on that game only, within the actions it takes."""
    name, owned = game.info.name, own_searches()
    owners = [g for g, kinds in owned.items() if kind in kinds]
    if owners and kind not in baselines(game):
        whose = " or ".join(TITLES[o][0].lower().replace(" ", "-") for o in owners)
        general = [k for k in OPTIMIZERS if not any(k in kinds for kinds in owned.values())]
        raise InvalidSpecError(
            f"search: {kind} is a {whose} search; on {name} use "
            f"{', '.join(general[:-1])} or {general[-1]}"
        )
    limit = baseline_limits(game).get(kind)
    n = game.info.num_actions
    if limit is not None and n > limit:
        raise InvalidSpecError(f"search: {kind} solves up to {limit} cities; this instance has {n}")


def _check_knowledge(optimizer: Optimizer, game: Game, state: State | None) -> None:
    """``polish=1`` needs the game's local search, ``engine=compiled`` its rule kernels:
    refused here with the searches' own words rather than when the run starts."""
    from mctslab.search.single.moves import move_polisher

    name = game.info.name
    if optimizer.engine == "compiled" and not has_capability(game, "kernels"):
        raise InvalidSpecError(
            f"search: {optimizer.kind}: engine=compiled needs a game with rule kernels; "
            f"{name} has none (use engine=reference)"
        )
    polish = dict(optimizer.options).get("polish", False)
    start = state if state is not None else game.new_initial_state()
    if polish and move_polisher(start) is None:
        raise InvalidSpecError(f"search: polish: {name} has no local search (no polish kernel)")


def solution_view(game: Game, state: State, sequence: tuple[int, ...]) -> dict[str, Any]:
    """The best solution drawn as data: a tour's cities in order (closed: ``n + 1``
    points) with every city's coordinates, as a game that declares a ``tour`` drawing
    draws it (the travelling salesman), or a board's text and SVG."""
    final = state.clone()
    for a in sequence:
        final.apply_action(a)
    declared = rendering(game)
    if declared.kind == "tour" and declared.draw is not None:
        return {"kind": "tour", **declared.draw(final), "text": None, "svg": None}
    to_svg = getattr(game, "to_svg", None)
    return {
        "kind": "board",
        "order": [],
        "cities": [],
        "tour": [],
        "length": None,
        "text": str(game.render(final)) if hasattr(game, "render") else str(final),  # type: ignore[attr-defined]
        "svg": to_svg(final) if to_svg is not None else None,
    }


# Runs. ----------------------------------------------------------------------------------


@dataclass
class OptimizeRun:
    """A search of a single-player game in a thread of its own (module docstring). The
    thread writes, the server reads: under :attr:`lock`."""

    id: str
    game_name: str
    params: dict[str, Any]
    optimizer: Optimizer
    seed: int
    time: float
    game: Game
    state: State
    status: str = "running"
    error: str | None = None
    started: float = field(default_factory=perf_counter)
    ended: float | None = None
    score: float = -math.inf
    sequence: tuple[int, ...] = ()
    sequence_score: float = -math.inf
    improvements: list[tuple[float, int, float]] = field(default_factory=list)
    playouts: int = 0
    watch: Watch = field(default_factory=Watch)
    lock: threading.Lock = field(default_factory=threading.Lock)
    _view: tuple[tuple[int, ...], dict[str, Any]] | None = None

    @property
    def running(self) -> bool:
        return self.status == "running"

    def elapsed(self) -> float:
        return (self.ended if self.ended is not None else perf_counter()) - self.started

    def stop(self) -> None:
        """Ask the search to end (its best kept)."""
        self.watch.stop()

    def compile_seconds(self) -> float | None:
        """Seconds before the search's clock started (``None``: still compiling)."""
        began = self.watch.started
        if began is None:
            return None if self.ended is None else self.elapsed()
        return max(0.0, began - self.started)

    def search_seconds(self) -> float:
        """Seconds on the search's own clock: since compiling ended (0 while compiling),
        so that ``search_seconds + compile_seconds`` is the wall time, counted once."""
        began = self.watch.started
        if began is None:
            return 0.0
        end = self.ended if self.ended is not None else perf_counter()
        return max(0.0, end - max(began, self.started))

    def work(self) -> None:
        """The thread's body: the search, until its time is spent, it is stopped, or it
        ends by itself."""

        def listen(found: Improvement) -> None:
            # found.seconds is on the search's clock, which starts after compiling.
            with self.lock:
                if found.score > self.score:
                    self.score = found.score
                    self.improvements.append((found.seconds, found.playouts, found.score))
                self.playouts = max(self.playouts, found.playouts)

        try:
            result = self.optimizer.run(
                self.state, seed=self.seed, time=self.time, on_improve=listen, watch=self.watch
            )
            with self.lock:
                self.playouts = result.playouts
                if result.score > self.score:
                    self.improvements.append((result.seconds, result.playouts, result.score))
                    self.score = result.score
                self.sequence_score = result.score
                self.sequence = tuple(result.sequence)
        except Exception as err:  # a search's refusal (or failure) ends the run, told
            with self.lock:
                self.error = " ".join(str(err).split()) or type(err).__name__
                self.status = "error"
        finally:
            with self.lock:
                self.ended = perf_counter()
                if self.status == "running":
                    self.status = "stopped" if self.watch.stopped else "done"

    def view(self) -> dict[str, Any]:
        """What ``GET /api/optimize/runs/{id}`` answers."""
        with self.lock:
            score = self.score if math.isfinite(self.score) else None
            sequence, sequence_score = self.sequence, self.sequence_score
            if self.running:  # the best the search has published so far
                sequence_score, sequence = self.watch.best()
            compile_seconds = self.compile_seconds()
            data: dict[str, Any] = {
                "id": self.id,
                "game": self.game_name,
                "params": self.params,
                "search": self.optimizer.spec,
                "seed": self.seed,
                "time": self.time,
                "status": self.status,
                "compiling": self.running and compile_seconds is None,
                "compile_seconds": compile_seconds,
                "search_seconds": self.search_seconds(),
                "error": self.error,
                "elapsed": self.elapsed(),
                "playouts": self.playouts,
                "score": score,
                "improvements": [list(i) for i in self.improvements],
                "sequence": list(sequence),
                "sequence_score": sequence_score if sequence else None,
            }
        optimum = known_optimum(self.game)
        data["optimum"] = optimum
        data["gap"] = (
            (optimum - score) / abs(optimum)
            if optimum is not None and score is not None and optimum != 0
            else None
        )
        data["found_seconds"] = data["improvements"][-1][0] if data["improvements"] else None
        data["solution"] = self._solution(sequence)
        return data

    def _solution(self, sequence: tuple[int, ...]) -> dict[str, Any] | None:
        if not sequence:
            return None
        if self._view is not None and self._view[0] == sequence:
            return self._view[1]
        drawn = solution_view(self.game, self.state, sequence)
        self._view = (sequence, drawn)
        return drawn


class RunStore:
    """The runs the server holds: at most ``running`` at once (a start beyond is
    refused), and the ``kept`` latest finished ones (older finished runs are dropped)."""

    def __init__(self, running: int, kept: int = 32) -> None:
        self.max_running = running
        self.kept = kept
        self._runs: OrderedDict[str, OptimizeRun] = OrderedDict()
        self._threads: dict[str, threading.Thread] = {}

    def running(self) -> int:
        return sum(1 for r in self._runs.values() if r.running)

    def get(self, rid: str) -> OptimizeRun | None:
        return self._runs.get(rid)

    def start(
        self,
        game_name: str,
        params: dict[str, Any],
        optimizer: Optimizer,
        seed: int,
        seconds: float,
        game: Game,
        state: State,
    ) -> OptimizeRun:
        """A new run, its thread started (the caller checked :meth:`running`)."""
        run = OptimizeRun(
            id=uuid.uuid4().hex[:12],
            game_name=game_name,
            params=params,
            optimizer=optimizer,
            seed=seed,
            time=seconds,
            game=game,
            state=state,
        )
        self._runs[run.id] = run
        thread = threading.Thread(target=run.work, name=f"optimize-{run.id}", daemon=True)
        self._threads[run.id] = thread
        thread.start()
        self._drop_old()
        return run

    def _drop_old(self) -> None:
        finished = [rid for rid, r in self._runs.items() if not r.running]
        for rid in finished[: max(0, len(finished) - self.kept)]:
            del self._runs[rid]
            self._threads.pop(rid, None)

    def stop_all(self, wait: float = 0.0) -> None:
        """Set every run's stop flag (the server's shutdown); wait up to ``wait``
        seconds for each thread."""
        for run in self._runs.values():
            run.stop()
        if wait > 0:
            for thread in list(self._threads.values()):
                thread.join(timeout=wait)
