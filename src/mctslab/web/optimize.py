"""The web lab's single-player view: the games and searches it offers, and the runs it holds.

``mctslab optimize`` (:mod:`mctslab.cli.optimize`) searches a single-player game for its
best sequence of moves; this module does the same for the lab's page, in background
threads, and keeps what the page polls:

- :func:`catalog`: the single-player games the lab offers (the travelling salesman on
  the shipped TSPLIB instances or ``random:N:SEED``, SameGame by seed and size, Morpion
  Solitaire by variant) and the search specs of
  :data:`mctslab.players.optimizers.OPTIMIZERS` with their options and defaults;
- :func:`build_game`: a request's game, its parameters checked against the catalog (no
  file path is ever read: a TSP instance is a shipped name or ``random:N:SEED``);
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

import math
import re
import threading
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field
from time import perf_counter
from typing import Any

from mctslab.core.errors import InvalidConfigError, InvalidSpecError
from mctslab.core.game import Game, State
from mctslab.core.registry import make
from mctslab.core.text import strict_float, strict_int
from mctslab.players.optimizers import OPTIMIZERS, Optimizer, parse_optimizer
from mctslab.search.single.result import Improvement, Watch, check_single_player

__all__ = [
    "DEFAULT_RUN_SECONDS",
    "MAX_WEB_CITIES",
    "OPTIMIZE_GAMES",
    "SEARCH_DEFAULTS",
    "SUGGESTED",
    "TSP_ONLY",
    "OptimizeRun",
    "RunStore",
    "build_game",
    "catalog",
    "check_search",
    "known_optimum",
    "solution_view",
]

#: A run's seconds unless the request says (or ``max_optimize_time`` is less).
DEFAULT_RUN_SECONDS = 5.0
#: The single-player games the lab offers, in the order the page lists them.
OPTIMIZE_GAMES = ("tsp", "samegame", "morpion_solitaire")
#: The most cities of a ``random:N:SEED`` instance the lab builds.
MAX_WEB_CITIES = 300
#: The travelling salesman's own searches.
TSP_ONLY = ("nn", "2opt", "sa", "ga", "exact")

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

_RANDOM = re.compile(r"random:([0-9]{1,6}):([0-9]{1,10})")


# The catalog. ---------------------------------------------------------------------------


def _tsp_instances() -> list[dict[str, Any]]:
    from mctslab.games.tsp import known_instances, known_optimum, load_known

    out = []
    for name in known_instances():
        optimum = known_optimum(name)
        cities = len(load_known(name).coords)
        out.append({"name": name, "cities": cities, "optimum": optimum})
    return out


def _option_type(parse: Any) -> str:
    """How an option's value is read: an integer, a number, or a flag (1 or 0)."""
    return "integer" if parse is strict_int else "number" if parse is strict_float else "flag"


def catalog() -> dict[str, Any]:
    """What ``GET /api/optimize/games`` lists: the games with their parameters (each a
    ``choice`` of values, or an ``integer`` with bounds) and the searches with their
    options (a default of ``None``: the search's own, not listed here)."""
    from mctslab.games.morpion import VARIANTS
    from mctslab.games.samegame import MAX_COLORS, MAX_SIZE

    instances = _tsp_instances()
    games: list[dict[str, Any]] = [
        {
            "name": "tsp",
            "title": "Travelling salesman",
            "score": "minus the closed tour's length",
            "parameters": [
                {
                    "name": "instance",
                    "kind": "choice",
                    "choices": [i["name"] for i in instances],
                    "default": "eil51",
                    "pattern": f"random:N:SEED (2 <= N <= {MAX_WEB_CITIES})",
                    "note": "a shipped TSPLIB instance (its proven optimum known), or "
                    "random:N:SEED: N random cities",
                }
            ],
            "instances": instances,
        },
        {
            "name": "samegame",
            "title": "SameGame",
            "score": "(n - 2)^2 for a group of n, 1,000 for a cleared board",
            "parameters": [
                {
                    "name": "seed",
                    "kind": "integer",
                    "default": 0,
                    "minimum": 0,
                    "maximum": 2**31 - 1,
                    "note": "the board's random colours",
                },
                {
                    "name": "rows",
                    "kind": "integer",
                    "default": 15,
                    "minimum": 1,
                    "maximum": MAX_SIZE,
                    "note": "rows",
                },
                {
                    "name": "columns",
                    "kind": "integer",
                    "default": 15,
                    "minimum": 1,
                    "maximum": MAX_SIZE,
                    "note": "columns",
                },
                {
                    "name": "colors",
                    "kind": "integer",
                    "default": 5,
                    "minimum": 1,
                    "maximum": MAX_COLORS,
                    "note": "colours",
                },
            ],
            "instances": [],
        },
        {
            "name": "morpion_solitaire",
            "title": "Morpion Solitaire",
            "score": "the lines drawn",
            "parameters": [
                {
                    "name": "variant",
                    "kind": "choice",
                    "choices": list(VARIANTS),
                    "default": "5T",
                    "note": "5 (or 4) in a line, touching (T) or disjoint (D); openspiel: "
                    "OpenSpiel's morpion_solitaire",
                }
            ],
            "instances": [],
        },
    ]
    for g in games:
        spec, why = SUGGESTED[str(g["name"])]
        g["suggested"] = {"search": spec, "note": why}
    from mctslab.games.tsp import MAX_EXACT_CITIES

    searches = []
    for kind, options in OPTIMIZERS.items():
        title, defaults = SEARCH_DEFAULTS.get(kind, (kind, {}))
        searches.append(
            {
                "kind": kind,
                "title": title,
                "max_cities": MAX_EXACT_CITIES if kind == "exact" else None,
                "counts": parse_optimizer(kind).counts,
                "games": ["tsp"] if kind in TSP_ONLY else list(OPTIMIZE_GAMES),
                "options": [
                    {
                        "name": name,
                        "type": _option_type(kind_type),
                        "default": defaults.get(name),
                    }
                    for name, kind_type in options.items()
                ],
            }
        )
    return {"games": games, "searches": searches}


# Games from a request. ------------------------------------------------------------------


def _integer(game: str, name: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, str) and re.fullmatch(r"[0-9]{1,12}", value.strip()):
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidConfigError(
            f"params.{name}: {game}'s {name} is an integer in [{low}, {high}], got {value!r}"
        )
    return value


def _tsp_instance(value: Any) -> str:
    from mctslab.games.tsp import known_instances

    known = known_instances()
    if isinstance(value, str):
        lowered = {k.lower(): k for k in known}
        if value.strip().lower() in lowered:
            return lowered[value.strip().lower()]
        match = _RANDOM.fullmatch(value.strip())
        if match is not None:
            n, seed = int(match.group(1)), int(match.group(2))
            if 2 <= n <= MAX_WEB_CITIES and seed < 2**31:
                return f"random:{n}:{seed}"
    raise InvalidConfigError(
        f"params.instance: one of {', '.join(known)} or random:N:SEED with 2 <= N <= "
        f"{MAX_WEB_CITIES} and 0 <= SEED < 2**31 (no file is read), got {value!r}"
    )


def checked_params(name: str, params: dict[str, Any]) -> dict[str, Any]:
    """``params`` for game ``name`` checked against the catalog (a ``ValueError``, 400,
    names the parameter and what it may be), defaults filled in."""
    spec = next((g for g in catalog()["games"] if g["name"] == name), None)
    if spec is None:
        raise InvalidConfigError(
            f"game: {name!r} is not a single-player game of the lab; the lab's: "
            f"{', '.join(OPTIMIZE_GAMES)}"
        )
    known = {p["name"]: p for p in spec["parameters"]}
    for key in params:
        if key not in known:
            raise InvalidConfigError(
                f"params.{key}: {name} has no parameter {key!r}; its parameters: {', '.join(known)}"
            )
    out: dict[str, Any] = {}
    for key, p in known.items():
        value = params.get(key, p["default"])
        if name == "tsp" and key == "instance":
            out[key] = _tsp_instance(value)
        elif p["kind"] == "integer":
            out[key] = _integer(name, key, value, p["minimum"], p["maximum"])
        elif value not in p["choices"]:
            raise InvalidConfigError(
                f"params.{key}: one of {', '.join(p['choices'])}, got {value!r}"
            )
        else:
            out[key] = value
    return out


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
    for the same game (a ``ValueError``): an unknown search or option, a
    travelling-salesman search on another game, Held-Karp over its cities, ``polish=1``
    on a game with no local search, ``engine=compiled`` on a game without rule kernels,
    and (``state``) a position already over."""
    if spec is None:
        spec = SUGGESTED.get(game.info.name, ("nrpa:level=2", ""))[0]
    try:
        optimizer = parse_optimizer(spec)
    except InvalidSpecError as err:
        raise InvalidSpecError(f"search: {err}") from None
    if state is not None:
        check_single_player(state, game.info.num_players)
    _check_knowledge(optimizer, game, state)
    name = game.info.name
    if optimizer.kind in TSP_ONLY and name != "tsp":
        raise InvalidSpecError(
            f"search: {optimizer.kind} is a travelling-salesman search; on {name} use "
            "nrpa, nmcs, sp-mcts, random or greedy"
        )
    if optimizer.kind == "exact":
        from mctslab.games.tsp import MAX_EXACT_CITIES

        n = game.info.num_actions
        if n > MAX_EXACT_CITIES:
            raise InvalidSpecError(
                f"search: exact (Held-Karp) solves up to {MAX_EXACT_CITIES} cities; this "
                f"instance has {n}"
            )
    return optimizer


def _check_knowledge(optimizer: Optimizer, game: Game, state: State | None) -> None:
    """``polish=1`` needs the game's local search, ``engine=compiled`` its rule kernels:
    refused here with the searches' own words rather than when the run starts."""
    from mctslab.games.kernels import KernelGame
    from mctslab.search.single.moves import move_polisher

    name = game.info.name
    if optimizer.engine == "compiled" and not isinstance(game, KernelGame):
        raise InvalidSpecError(
            f"search: {optimizer.kind}: engine=compiled needs a game with rule kernels; "
            f"{name} has none (use engine=reference)"
        )
    polish = dict(optimizer.options).get("polish", False)
    start = state if state is not None else game.new_initial_state()
    if polish and move_polisher(start) is None:
        raise InvalidSpecError(f"search: polish: {name} has no local search (no polish kernel)")


def known_optimum(game: Game) -> float | None:
    """A proven optimum's score, where one is known (the shipped TSPLIB instances)."""
    if game.info.name != "tsp":
        return None
    from mctslab.games.tsp import known_optimum as tsp_optimum

    length = tsp_optimum(str(getattr(game, "instance", "")))
    return None if length is None else -float(length)


def solution_view(game: Game, state: State, sequence: tuple[int, ...]) -> dict[str, Any]:
    """The best solution drawn as data: a tour's cities in order (closed: ``n + 1``
    points) with every city's coordinates, or a board's text and SVG."""
    final = state.clone()
    for a in sequence:
        final.apply_action(a)
    if game.info.name == "tsp":
        coords = getattr(game, "coordinates", None)
        order = game.tour(final)  # type: ignore[attr-defined]
        closed = [*order, order[0]] if final.is_terminal() and order else order
        cities = [] if coords is None else [[float(x), float(y)] for x, y in coords]
        return {
            "kind": "tour",
            "order": closed,
            "cities": cities,
            "tour": [cities[c] for c in closed] if cities else [],
            "length": int(game.length(final)),  # type: ignore[attr-defined]
            "text": None,
            "svg": None,
        }
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
