"""Single-player search specs: what ``mctslab optimize --search SPEC`` runs.

A spec names a search and its options, as player specs do::

    nrpa:level=3,iterations=100,alpha=1      Nested Rollout Policy Adaptation (Rosin 2011);
                                             bias=B: Generalized NRPA (Cazenave 2020)
    nmcs:level=2                             Nested Monte-Carlo Search (Cazenave 2009)
    sp-mcts:c=0.5,d=0.01,iterations=1000     Single-Player MCTS (Schadd et al. 2008)

The three take the playouts' knowledge: ``bias=B`` (NMCS and SP-MCTS draw playout moves
by ``softmax(B * prior)``; NRPA adds ``B * prior`` to its policy's weights) and
``polish=1`` (every playout's sequence improved by the game's local search, the
travelling salesman's 2-opt and Or-opt, before it is scored).
    random                                   uniformly random playouts, the best kept
    greedy                                   each move the best child by the game's heuristic
    nn | 2opt | sa | ga | exact              the travelling salesman's own: nearest
                                             neighbour, 2-opt from it, simulated annealing,
                                             a genetic algorithm, Held-Karp (<= 16 cities)

``engine=compiled|reference`` (default: compiled for a kernel game) picks the version of
the searches that have two (the same results for the same seed and playout budget). A
search runs from a position with a seed and a budget (seconds and/or playouts) and
returns an :class:`~mctslab.search.single.result.OptimizeResult`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from time import perf_counter
from typing import Any

from mctslab.core.errors import InvalidSpecError
from mctslab.core.game import Game, State
from mctslab.core.options import options_of
from mctslab.core.text import strict_float, strict_int
from mctslab.games.kernels import KernelGame
from mctslab.games.tsp import BASELINES as TSP_BASELINES
from mctslab.search.single import NMCSConfig, NRPAConfig, SPMCTSConfig, nmcs, nrpa, spmcts
from mctslab.search.single.result import (
    BestTracker,
    Budget,
    Improvement,
    OptimizeResult,
    Watch,
    check_single_player,
)

__all__ = ["OPTIMIZERS", "Optimizer", "optimize", "parse_optimizer"]


#: Each kind's options and their types (``engine`` is every kind's).
def _flag(text: str) -> bool:
    """``1/true/yes/on`` or ``0/false/no/off``."""
    word = text.strip().lower()
    if word in ("1", "true", "yes", "on"):
        return True
    if word in ("0", "false", "no", "off"):
        return False
    raise ValueError(text)


#: The spec parser of each kind of option value (ASCII digits: :mod:`mctslab.core.text`).
_PARSERS: dict[str, Callable[[str], Any]] = {
    "int": strict_int,
    "float": strict_float,
    "bool": _flag,
}


def _spec_options(config: type) -> dict[str, Callable[[str], Any]]:
    """A search's spec options, as its config declares them (``spec=True``; the seed and
    budgets are the run's), each with its value's parser."""
    return {name: _PARSERS[opt.kind] for name, opt in options_of(config).items() if opt.spec}


OPTIMIZERS: dict[str, dict[str, Callable[[str], Any]]] = {
    "nrpa": _spec_options(NRPAConfig),
    "nmcs": _spec_options(NMCSConfig),
    "sp-mcts": _spec_options(SPMCTSConfig),
    "random": {},
    "greedy": {},
    # The travelling salesman's own searches, as its game declares them.
    **{name: {} for name in TSP_BASELINES},
}
# What a result's playouts count where they are not playouts (None: one tour built).
_COUNTS: dict[str, str | None] = {
    "sa": "moves", "ga": "generations", "nn": None, "2opt": None, "exact": None, "greedy": None,
}  # fmt: skip
_ENGINES = ("auto", "compiled", "reference")

Listener = Callable[[Improvement], None]


@dataclass(frozen=True)
class Optimizer:
    """A parsed spec: the search's kind, its options and the engine."""

    kind: str
    options: tuple[tuple[str, Any], ...]
    engine: str = "auto"

    @property
    def spec(self) -> str:
        opts = ",".join(f"{k}={_shown(v)}" for k, v in self.options)
        return self.kind + (":" + opts if opts else "")

    @property
    def counts(self) -> str | None:
        """What its results' ``playouts`` count: ``"playouts"``, SA's 2-opt ``"moves"``
        tried, the GA's ``"generations"``, or ``None`` (nn, 2opt, exact, greedy: one
        tour built, nothing counted)."""
        return _COUNTS.get(self.kind, "playouts")

    def run(
        self,
        state: State,
        *,
        seed: int = 0,
        time: float | None = None,
        playouts: int | None = None,
        target: float | None = None,
        on_improve: Listener | None = None,
        watch: Watch | None = None,
    ) -> OptimizeResult:
        """Search from ``state`` (a single-player game's position) with this seed and budget
        (``target``: stop once a sequence scores at least this; the tree and nested
        searches only, the travelling salesman's baselines run their budget). ``watch``
        (:class:`~mctslab.search.single.result.Watch`): stop it from another thread,
        read its best sequence while it runs."""
        game = getattr(state, "game", None)
        info = game.info if game is not None else None
        if info is None:
            raise InvalidSpecError("the position has no game to read the number of players from")
        check_single_player(state, info.num_players)
        compiled = self._compiled(game)
        if self.kind in TSP_BASELINES:
            return _tsp_baseline(
                self.kind, state, seed, Budget(time, playouts, None, watch), on_improve
            )
        if self.kind == "greedy":
            return _greedy(state, Budget(watch=watch), on_improve)
        config = self.config(seed=seed, time=time, playouts=playouts, target=target)
        if isinstance(config, NRPAConfig):
            if compiled:
                from mctslab.search.single.compiled import compiled_nrpa

                result = compiled_nrpa(state, config, on_improve, watch)  # type: ignore[arg-type]
            else:
                result = nrpa(state, config, info, on_improve, watch)
            return _renamed(result, self.spec) if self.kind == "random" else result
        if isinstance(config, NMCSConfig):
            if compiled and config.level >= 1:
                from mctslab.search.single.compiled import compiled_nmcs

                return compiled_nmcs(state, config, on_improve, watch)  # type: ignore[arg-type]
            return nmcs(state, config, info, on_improve, watch)
        if compiled:
            from mctslab.search.single.spmcts_compiled import compiled_spmcts

            return compiled_spmcts(state, config, on_improve, watch)  # type: ignore[arg-type]
        return spmcts(state, config, info, on_improve, watch)

    def config(
        self,
        *,
        seed: int = 0,
        time: float | None = None,
        playouts: int | None = None,
        target: float | None = None,
    ) -> NRPAConfig | NMCSConfig | SPMCTSConfig:
        """The search's config with this seed and budget (``random`` is NRPA at level 0);
        a bad value is an :class:`~mctslab.core.errors.InvalidSpecError`. Only for the
        tree and nested searches."""
        opts: dict[str, Any] = dict(self.options)
        budget: dict[str, Any] = {
            "seed": seed, "time": time, "playouts": playouts, "target": target,
        }  # fmt: skip
        try:
            if self.kind in ("nrpa", "random"):
                if self.kind == "random":
                    opts["level"] = 0
                return NRPAConfig(**opts, **budget)
            if self.kind == "nmcs":
                return NMCSConfig(**opts, **budget)
            if self.kind == "sp-mcts":
                return SPMCTSConfig(**opts, **budget)
        except ValueError as err:
            raise InvalidSpecError(str(err)) from None
        raise InvalidSpecError(f"{self.kind} has no search config")

    def check(self) -> None:
        """Build the config once, so that a bad value is refused when the spec is read."""
        if self.kind in ("nrpa", "random", "nmcs", "sp-mcts"):
            self.config()

    def _compiled(self, game: Any) -> bool:
        kernel = isinstance(game, KernelGame)
        if self.engine == "compiled" and not kernel:
            raise InvalidSpecError(
                f"{self.kind}: engine=compiled needs a game with rule kernels; "
                f"{game.info.name} has none (use engine=reference)"
            )
        return kernel and self.engine != "reference"


def _shown(value: Any) -> str:
    """An option's value as a spec writes it: flags as 1/0, numbers as ``%g``."""
    if isinstance(value, bool):
        return "1" if value else "0"
    return f"{value:g}" if isinstance(value, float) else str(value)


def parse_optimizer(spec: str) -> Optimizer:
    """The :class:`Optimizer` of ``spec`` (``KIND[:key=value,...]``); an unknown kind, option
    or bad value is an :class:`~mctslab.core.errors.InvalidSpecError` naming what is known."""
    kind, _, rest = spec.strip().partition(":")
    kind = kind.strip().lower()
    if kind not in OPTIMIZERS:
        raise InvalidSpecError(
            f"unknown search {kind!r} in {spec!r}; known: {', '.join(OPTIMIZERS)}"
        )
    known = OPTIMIZERS[kind]
    options: list[tuple[str, Any]] = []
    engine = "auto"
    for part in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, raw = part.partition("=")
        key = key.strip()
        if not eq:
            raise InvalidSpecError(f"expected key=value, got {part!r} in {spec!r}")
        if key == "engine":
            if raw not in _ENGINES:
                raise InvalidSpecError(f"engine must be one of {', '.join(_ENGINES)}, got {raw!r}")
            engine = raw
            continue
        if key not in known:
            valid = ", ".join([*known, "engine"])
            raise InvalidSpecError(f"unknown {kind} option {key!r}; valid options: {valid}")
        try:
            value = known[key](raw)
        except ValueError:
            raise InvalidSpecError(f"bad value {raw!r} for {key!r} in {spec!r}") from None
        options.append((key, value))
    optimizer = Optimizer(kind, tuple(options), engine)
    optimizer.check()
    return optimizer


def _renamed(result: OptimizeResult, spec: str) -> OptimizeResult:
    from dataclasses import replace

    return replace(result, search=spec)


def _greedy(state: State, budget: Budget, on_improve: Listener | None) -> OptimizeResult:
    """Each move the child whose ``heuristic()[0]`` is highest (ties: the lowest action)."""
    if not hasattr(state, "heuristic"):
        raise InvalidSpecError("greedy needs the game's heuristic(); this game has none")
    tracker = BestTracker(budget, on_improve)
    s = state.clone()
    moves: list[int] = []
    while not s.is_terminal():
        best_a, best_h = -1, -math.inf
        for a in s.legal_actions():
            h = float(s.child(a).heuristic()[0])  # type: ignore[attr-defined]
            if h > best_h:
                best_a, best_h = a, h
        s.apply_action(best_a)
        moves.append(best_a)
    tracker.offer(float(s.returns()[0]), moves)
    return tracker.result(1, "greedy")


def _tsp_baseline(
    kind: str,
    state: State,
    seed: int,
    budget: Budget,
    on_improve: Listener | None,
) -> OptimizeResult:
    """The travelling salesman's baselines (:mod:`mctslab.games.tsp.heuristics`), from the
    start of the tour only; ``playouts`` is their iteration budget (SA's moves, the GA's
    generations); a watch stops SA and the GA between two of their chunks."""
    from mctslab.games import tsp as tsp_module

    game = getattr(state, "game", None)
    if not isinstance(game, tsp_module.TSP):
        raise InvalidSpecError(f"{kind} is a travelling-salesman baseline; use it on tsp")
    if state.history():
        raise InvalidSpecError(f"{kind} searches whole tours: start from the first move")
    dist = game.distances
    tracker = BestTracker(budget, on_improve)
    if kind in ("nn", "2opt", "exact"):
        if kind == "nn":
            length, tour = tsp_module.nearest_neighbour(dist)
        elif kind == "2opt":
            length, tour = tsp_module.two_opt(dist, tsp_module.nearest_neighbour(dist).tour)
        else:
            length, tour = tsp_module.held_karp(dist)
        tracker.offer(-float(length), tour[1:])
        return tracker.result(1, kind)
    if budget.time is None and budget.playouts is None:
        raise InvalidSpecError(f"{kind} needs a budget: --time or --playouts")
    watch = budget.watch
    stop = None if watch is None else (lambda: watch.stopped)
    began = budget.start
    if watch is not None:
        watch.started = None  # compiling: the clock starts in started()

    def started() -> None:  # SA's or the GA's code compiled: their clock starts
        budget.start = perf_counter()
        if watch is not None:
            watch.started = budget.start

    anytime = tsp_module.Budget(
        iterations=budget.playouts, seconds=budget.time, stop=stop, on_start=started
    )
    run = tsp_module.simulated_annealing if kind == "sa" else tsp_module.genetic_algorithm
    result = run(dist, anytime, seed=seed)
    for seconds, length in result.trace:
        tracker.improvements.append(Improvement(seconds, 0, -float(length)))
        if on_improve is not None:
            on_improve(tracker.improvements[-1])
    tracker.score = -float(result.length)
    tracker.sequence = tuple(result.tour[1:])
    tracker.playouts = result.iterations  # SA's moves, the GA's generations (Optimizer.counts)
    if watch is not None:
        watch.publish(tracker.score, tracker.sequence)
    return replace(tracker.result(1, kind), compile_seconds=budget.start - began)


def optimize(
    problem: State | Game,
    search: str = "nrpa:level=2",
    *,
    seed: int = 0,
    time: float | None = None,
    playouts: int | None = None,
    target: float | None = None,
) -> OptimizeResult:
    """The best sequence of moves a single-player search finds for ``problem`` (a
    one-player game, or one of its positions, whose ``returns()[0]`` is the score to
    maximise): the search ``search`` names (a spec, :func:`parse_optimizer`: ``nrpa``,
    ``nmcs``, ``sp-mcts``, ``random``, ``greedy`` and the travelling salesman's own),
    with this seed and budget (seconds and/or playouts; ``target``: stop at a score at
    least this). What ``mctslab optimize`` runs, as a function.

    >>> import mctslab
    >>> result = mctslab.optimize(mctslab.make("samegame", rows=5, columns=5, colors=3), "nmcs:level=1")
    >>> result.score > 0, result.search
    (True, 'nmcs:level=1,seed=0')
    """
    state = problem.new_initial_state() if isinstance(problem, Game) else problem
    return parse_optimizer(search).run(
        state, seed=seed, time=time, playouts=playouts, target=target
    )
