"""The classic travelling salesman baselines an MCTS result is compared with.

Every function takes a symmetric ``(n, n)`` integer distance matrix (a
:class:`~mctslab.games.tsp.game.TSP`'s ``distances``, or
:meth:`~mctslab.games.tsp.tsplib.TsplibInstance.distances`) and returns a tour as a
list of the ``n`` cities beginning with city 0, with its closed length:

- :func:`nearest_neighbour`: from a start city, always the nearest unvisited city
  (ties: the lowest); ``O(n^2)``; a tour typically ~25% above the optimum on random
  Euclidean instances (Johnson and McGeoch, "The traveling salesman problem: a case
  study in local optimization", 1997).
- :func:`two_opt`: Croes's 2-opt local search ("A method for solving
  traveling-salesman problems", Operations Research 6, 1958): remove two edges
  ``(a, b)``, ``(c, d)`` and reconnect as ``(a, c)``, ``(b, d)`` (the path between
  reversed) while that shortens the tour,
  ``delta = d(a, c) + d(b, d) - d(a, b) - d(c, d) < 0``; first improvement, to a
  local optimum (no 2-opt move shortens the tour). Integer distances make it end.

and three anytime searches that run for a :class:`Budget` and also return their
time-to-best trace, ``[(seconds, length), ...]``, an entry each time the best tour
found improved (:class:`AnytimeResult`):

- :func:`simulated_annealing` (Kirkpatrick, Gelatt and Vecchi, "Optimization by
  simulated annealing", Science 220, 1983; Černý 1985 for the TSP): a random 2-opt move
  (two positions ``1 <= i < j <= n-1`` uniformly, the segment between reversed) is
  accepted with Metropolis's probability ``min(1, exp(-delta / T))``; geometric cooling
  ``T_k = T_0 alpha^k`` per move, ``alpha = final_ratio^(1 / iterations)`` by default so
  that ``T`` falls from ``T_0`` to ``final_ratio T_0`` over the budget; ``T_0``, unless
  given, the mean uphill ``delta`` of 1,000 random moves from the initial tour (an
  average uphill move is first accepted with probability ``e^-1``).
- :func:`genetic_algorithm` (Holland 1975; for the TSP Larrañaga et al., "Genetic
  algorithms for the travelling salesman problem: a review of representations and
  operators", AI Review 13, 1999): a population of permutations; each generation
  keeps the best tour (elitism) and breeds the others from parents chosen by
  tournament selection (the shortest of ``tournament`` tours drawn at random),
  with order crossover (OX, Davis 1985: the child keeps a random slice of the first
  parent and takes the other cities in the second parent's order, from after the
  slice, cyclically), then with probability ``mutation_rate`` a mutation, a swap of two
  cities or the inversion of a segment, half and half.
- :func:`random_restarts`: uniformly random tours (Fisher-Yates, city 0 first), keeping
  the best: the floor every search must beat.

The hot loops are numba functions compiled with ``cache=True``; the random numbers come
from mctslab's SplitMix64 (:mod:`mctslab.core.rng`, a seed gives the same run). The
anytime searches run in chunks of iterations between which Python reads the clock: a
trace entry's time is the end of the chunk that found it (chunks are sized to last
about 10 ms), and with an ``iterations`` budget the result does not depend on the
chunking, only the trace's seconds do.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt
from numba import njit

from mctslab.core.errors import InvalidConfigError
from mctslab.games.kernels import rng_next, rng_randint
from mctslab.games.tsp.tsplib import check_distances, check_tour

__all__ = [
    "AnytimeResult",
    "Budget",
    "TourResult",
    "genetic_algorithm",
    "nearest_neighbour",
    "random_restarts",
    "reverse_segment",
    "simulated_annealing",
    "two_opt",
]

IntArray = npt.NDArray[np.int64]

_CHUNK_SECONDS = 0.01  # how long a chunk of iterations aims to run between clock reads
_SCHEDULE_WITHOUT_ITERATIONS = 1_000_000  # SA's cooling length when no budget sets one


@dataclass(frozen=True)
class Budget:
    """How long an anytime search runs: ``iterations`` (deterministic: SA's moves, the
    GA's generations, the random tours drawn) and/or ``seconds`` of wall time; it stops
    at the first limit reached, or when ``stop()`` (called between two chunks of about
    20 ms) says so: another thread's stop button. ``on_start`` is called once, when the
    clock starts: after the search's code is compiled (or loaded from numba's cache), so
    that a watcher can tell compiling from searching."""

    iterations: int | None = None
    seconds: float | None = None
    stop: Callable[[], bool] | None = None
    on_start: Callable[[], None] | None = None

    def __post_init__(self) -> None:
        if self.iterations is None and self.seconds is None:
            raise InvalidConfigError("Budget: give iterations, seconds or both")
        if self.iterations is not None and (
            not isinstance(self.iterations, int)
            or isinstance(self.iterations, bool)
            or self.iterations < 1
        ):
            raise InvalidConfigError(
                f"Budget: iterations must be a positive integer, got {self.iterations!r}"
            )
        if self.seconds is not None and (
            isinstance(self.seconds, bool)
            or not isinstance(self.seconds, int | float)
            or not 0 < self.seconds < math.inf
        ):
            raise InvalidConfigError(
                f"Budget: seconds must be a positive number, got {self.seconds!r}"
            )


class TourResult(NamedTuple):
    """A tour (from city 0) and its closed length."""

    length: int
    tour: list[int]


class AnytimeResult(NamedTuple):
    """The best tour an anytime search found, its length, and the time-to-best trace:
    ``(seconds since the start, best length)`` each time the best improved;
    ``iterations``, what the search did (SA's moves tried, the GA's generations, the
    random tours drawn)."""

    length: int
    tour: list[int]
    trace: list[tuple[float, int]]
    iterations: int = 0


# --------------------------------------------------------------------- compiled loops


@njit(cache=True)
def _uniform(rng):  # type: ignore[no-untyped-def]
    """A float in ``[0, 1)`` from the top 53 bits (as :meth:`mctslab.core.rng.Rng.random`)."""
    return np.float64(rng_next(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def _length(dist, tour):  # type: ignore[no-untyped-def]
    n = tour.shape[0]
    total = np.int64(0)
    for k in range(n - 1):
        total += dist[tour[k], tour[k + 1]]
    return total + dist[tour[n - 1], tour[0]]


@njit(cache=True)
def reverse_segment(tour, i, j):  # type: ignore[no-untyped-def]
    """Reverse ``tour[i..j]`` in place (a 2-opt move)."""
    while i < j:
        tour[i], tour[j] = tour[j], tour[i]
        i += 1
        j -= 1


@njit(cache=True)
def _nearest_neighbour(dist, start):  # type: ignore[no-untyped-def]
    n = dist.shape[0]
    tour = np.empty(n, dtype=np.int64)
    free = np.ones(n, dtype=np.bool_)
    here = start
    free[here] = False
    tour[0] = here
    for k in range(1, n):
        best = -1
        for c in range(n):
            if free[c] and (best < 0 or dist[here, c] < dist[here, best]):
                best = c
        free[best] = False
        tour[k] = best
        here = best
    return tour


@njit(cache=True)
def _two_opt(dist, tour):  # type: ignore[no-untyped-def]
    """First-improvement 2-opt in place, to a local optimum; returns the length."""
    n = tour.shape[0]
    improved = True
    while improved:
        improved = False
        for i in range(1, n - 1):
            a, b = tour[i - 1], tour[i]
            for j in range(i + 1, n):
                c, d = tour[j], tour[(j + 1) % n]
                if dist[a, c] + dist[b, d] < dist[a, b] + dist[c, d]:
                    reverse_segment(tour, i, j)
                    improved = True
                    b = tour[i]
    return _length(dist, tour)


@njit(cache=True)
def _move(rng, n):  # type: ignore[no-untyped-def]
    """Two positions ``1 <= i <= j <= n-1`` uniformly (``i == j``: no move)."""
    i = 1 + rng_randint(rng, n - 1)
    j = 1 + rng_randint(rng, n - 1)
    return (i, j) if i <= j else (j, i)


@njit(cache=True)
def _delta(dist, tour, i, j):  # type: ignore[no-untyped-def]
    n = tour.shape[0]
    a, b, c, d = tour[i - 1], tour[i], tour[j], tour[(j + 1) % n]
    return dist[a, c] + dist[b, d] - dist[a, b] - dist[c, d]


@njit(cache=True)
def _mean_uphill(dist, tour, rng, samples):  # type: ignore[no-untyped-def]
    total = 0.0
    count = 0
    for _ in range(samples):
        i, j = _move(rng, tour.shape[0])
        if i < j:
            delta = _delta(dist, tour, i, j)
            if delta > 0:
                total += delta
                count += 1
    return total / count if count else 1.0


@njit(cache=True)
def _anneal(dist, cur, best, ints, temp, alpha, rng, k, log):  # type: ignore[no-untyped-def]
    """``k`` moves of simulated annealing; ``ints = [current length, best length]``,
    ``temp = [T]``; logs each new best length; returns how many."""
    n = cur.shape[0]
    cur_len, best_len, t = ints[0], ints[1], temp[0]
    logged = 0
    for _ in range(k):
        i, j = _move(rng, n)
        if i < j:
            delta = _delta(dist, cur, i, j)
            if delta <= 0 or (t > 1e-300 and _uniform(rng) < math.exp(-delta / t)):
                reverse_segment(cur, i, j)
                cur_len += delta
                if cur_len < best_len:
                    best_len = cur_len
                    best[:] = cur
                    log[logged] = best_len
                    logged += 1
        t *= alpha
    ints[0], ints[1], temp[0] = cur_len, best_len, t
    return logged


@njit(cache=True)
def _shuffle_tail(tour, rng):  # type: ignore[no-untyped-def]
    """Fisher-Yates over positions ``1 .. n-1``: a uniform tour from city ``tour[0]``."""
    for i in range(tour.shape[0] - 1, 1, -1):
        j = 1 + rng_randint(rng, i)  # in [1, i]
        tour[i], tour[j] = tour[j], tour[i]


@njit(cache=True)
def _restarts(dist, cur, best, ints, rng, k, log):  # type: ignore[no-untyped-def]
    """``k`` uniformly random tours; ``ints = [best length]`` (-1: none yet)."""
    best_len = ints[0]
    logged = 0
    for _ in range(k):
        _shuffle_tail(cur, rng)
        length = _length(dist, cur)
        if best_len < 0 or length < best_len:
            best_len = length
            best[:] = cur
            log[logged] = best_len
            logged += 1
    ints[0] = best_len
    return logged


@njit(cache=True)
def _tournament(lengths, size, rng):  # type: ignore[no-untyped-def]
    p = lengths.shape[0]
    winner = rng_randint(rng, p)
    for _ in range(size - 1):
        other = rng_randint(rng, p)
        if lengths[other] < lengths[winner]:
            winner = other
    return winner


@njit(cache=True)
def _order_crossover(p1, p2, child, used, rng):  # type: ignore[no-untyped-def]
    """OX: ``child[i..j] = p1[i..j]``, the rest in ``p2``'s order from ``j + 1`` on."""
    n = p1.shape[0]
    i = rng_randint(rng, n)
    j = rng_randint(rng, n)
    if i > j:
        i, j = j, i
    used[:] = False
    for k in range(i, j + 1):
        child[k] = p1[k]
        used[p1[k]] = True
    pos = (j + 1) % n
    for step in range(n):
        city = p2[(j + 1 + step) % n]
        if not used[city]:
            child[pos] = city
            pos = (pos + 1) % n


@njit(cache=True)
def _mutate(tour, rng):  # type: ignore[no-untyped-def]
    n = tour.shape[0]
    i = rng_randint(rng, n)
    j = rng_randint(rng, n)
    if _uniform(rng) < 0.5:
        tour[i], tour[j] = tour[j], tour[i]
    else:
        reverse_segment(tour, min(i, j), max(i, j))


@njit(cache=True)
def _random_population(dist, pop, lengths, seeded, rng):  # type: ignore[no-untyped-def]
    """Rows ``seeded ..`` uniformly random permutations; every row's length."""
    n = pop.shape[1]
    for r in range(pop.shape[0]):
        if r >= seeded:
            for c in range(n):
                pop[r, c] = c
            _shuffle_tail(pop[r], rng)
        lengths[r] = _length(dist, pop[r])


@njit(cache=True)
def _evolve(dist, pop, nxt, lengths, nlengths, best, ints, rng, k, size, pc, pm, log):  # type: ignore[no-untyped-def]
    """``k`` generations; ``ints = [best length]``; logs each new best length."""
    p = pop.shape[0]
    used = np.zeros(pop.shape[1], dtype=np.bool_)
    best_len = ints[0]
    logged = 0
    for _ in range(k):
        elite = np.argmin(lengths)
        nxt[0] = pop[elite]
        nlengths[0] = lengths[elite]
        for c in range(1, p):
            a = _tournament(lengths, size, rng)
            if _uniform(rng) < pc:
                b = _tournament(lengths, size, rng)
                _order_crossover(pop[a], pop[b], nxt[c], used, rng)
            else:
                nxt[c] = pop[a]
            if _uniform(rng) < pm:
                _mutate(nxt[c], rng)
            nlengths[c] = _length(dist, nxt[c])
        pop[:] = nxt
        lengths[:] = nlengths
        top = np.argmin(lengths)
        if lengths[top] < best_len:
            best_len = lengths[top]
            best[:] = pop[top]
            log[logged] = best_len
            logged += 1
    ints[0] = best_len
    return logged


# ---------------------------------------------------------------------------- drivers


def _distances(dist: Any, what: str) -> IntArray:
    return check_distances(dist, symmetric=True, what=what)


def _from_zero(tour: Any) -> list[int]:
    """The tour as a list rotated to begin at city 0."""
    cities = [int(c) for c in tour]
    k = cities.index(0)
    return cities[k:] + cities[:k]


def _initial(d: IntArray, initial: Sequence[int] | None, what: str) -> IntArray:
    """The given tour (rotated to city 0), else the nearest-neighbour tour from city 0."""
    if initial is None:
        return np.asarray(_nearest_neighbour(d, 0), dtype=np.int64)
    return np.array(_from_zero(check_tour(initial, d.shape[0], what)), dtype=np.int64)


def _rng(seed: int) -> npt.NDArray[np.uint64]:
    """The one-word SplitMix64 state of ``Rng(seed)``."""
    if not isinstance(seed, int | np.integer) or isinstance(seed, bool):
        raise InvalidConfigError(f"seed must be an integer, got {seed!r}")
    return np.array([int(seed) & ((1 << 64) - 1)], dtype=np.uint64)


def _started(budget: Budget) -> None:
    if budget.on_start is not None:
        budget.on_start()


def _run(
    step: Callable[[int], list[int]],
    budget: Budget,
    start: float,
    trace: list[tuple[float, int]],
) -> int:
    """Call ``step(k)`` (``k`` iterations, the new best lengths found) in chunks until
    the budget is spent, appending ``(seconds, length)`` to ``trace``; the iterations
    done."""
    done = 0
    chunk = 64
    while budget.iterations is None or done < budget.iterations:
        k = chunk if budget.iterations is None else min(chunk, budget.iterations - done)
        before = time.perf_counter()
        found = step(k)
        now = time.perf_counter()
        trace.extend((now - start, length) for length in found)
        done += k
        if budget.seconds is not None and now - start >= budget.seconds:
            break
        if budget.stop is not None and budget.stop():
            break
        # Aim the next chunk at _CHUNK_SECONDS, growing at most 4 times a chunk.
        chunk = max(1, min(4 * k, int(k * _CHUNK_SECONDS / max(now - before, 1e-7))))
    return done


def nearest_neighbour(dist: Any, start: int = 0) -> TourResult:
    """The nearest-neighbour tour from ``start`` (ties: the lowest city), from city 0."""
    d = _distances(dist, "nearest_neighbour")
    n = int(d.shape[0])
    if isinstance(start, bool) or not isinstance(start, int | np.integer) or not 0 <= start < n:
        raise InvalidConfigError(f"nearest_neighbour: start must be a city in [0, {n - 1}]")
    tour = _nearest_neighbour(d, int(start))
    return TourResult(int(_length(d, tour)), _from_zero(tour))


def two_opt(dist: Any, tour: Sequence[int] | None = None) -> TourResult:
    """2-opt local search from ``tour`` (default: the nearest-neighbour tour) to a local
    optimum: no 2-opt move of the result is shorter. Never longer than ``tour``."""
    d = _distances(dist, "two_opt")
    t = _initial(d, tour, "two_opt")
    length = int(_two_opt(d, t)) if d.shape[0] >= 4 else int(_length(d, t))
    return TourResult(length, [int(c) for c in t])


def simulated_annealing(
    dist: Any,
    budget: Budget,
    *,
    seed: int = 0,
    initial: Sequence[int] | None = None,
    t0: float | None = None,
    final_ratio: float = 1e-3,
    alpha: float | None = None,
) -> AnytimeResult:
    """Simulated annealing over 2-opt moves (module docstring) for ``budget.iterations``
    moves and/or ``budget.seconds``, from ``initial`` (default: the nearest-neighbour
    tour). ``t0``: the initial temperature (default: the mean uphill move); ``alpha``:
    the cooling factor a move, in ``(0, 1]`` (default: ``final_ratio ** (1 /
    iterations)``). Under a time-only budget with no ``alpha`` the schedule follows the
    clock instead, so that the cooling spans the whole budget whatever the machine's
    speed: ``T = t0 * final_ratio ** (elapsed / seconds)``, set before each chunk of
    moves (chunks last about 10 ms); the moves made then vary with the machine, as any
    time-budgeted search's do. The trace begins with ``(0.0, the initial length)``; the
    result is never longer."""
    d = _distances(dist, "simulated_annealing")
    if t0 is not None and (isinstance(t0, bool) or not 0 < t0 < math.inf):
        raise InvalidConfigError(f"simulated_annealing: t0 must be positive, got {t0!r}")
    if not 0 < final_ratio < 1:
        raise InvalidConfigError(
            f"simulated_annealing: final_ratio must lie in (0, 1), got {final_ratio!r}"
        )
    by_clock = alpha is None and budget.iterations is None and budget.seconds is not None
    if by_clock:
        alpha = 1.0  # the temperature is set from the clock before each chunk
    elif alpha is None:
        alpha = final_ratio ** (1.0 / (budget.iterations or _SCHEDULE_WITHOUT_ITERATIONS))
    elif isinstance(alpha, bool) or not 0 < alpha <= 1:
        raise InvalidConfigError(f"simulated_annealing: alpha must lie in (0, 1], got {alpha!r}")
    rng = _rng(seed)
    cur = _initial(d, initial, "simulated_annealing: initial")
    length = int(_length(d, cur))
    trace: list[tuple[float, int]] = [(0.0, length)]
    if d.shape[0] < 4:  # every tour of 3 cities or fewer has the same length
        return AnytimeResult(length, [int(c) for c in cur], trace)
    best = cur.copy()
    temp = np.array([t0 if t0 is not None else _mean_uphill(d, cur, rng, 1000)], dtype=np.float64)
    start_temp = float(temp[0])
    ints = np.array([length, length], dtype=np.int64)
    log = np.zeros(1, dtype=np.int64)
    began = [0.0]

    def step(k: int) -> list[int]:
        nonlocal log
        if log.shape[0] < k:
            log = np.zeros(k, dtype=np.int64)
        if by_clock and k:
            assert budget.seconds is not None
            done = min(1.0, (time.perf_counter() - began[0]) / budget.seconds)
            temp[0] = start_temp * final_ratio**done
        found = _anneal(d, cur, best, ints, temp, float(alpha), rng, k, log)
        return [int(v) for v in log[:found]]

    step(0)  # compile (or load from the cache) before the clock starts
    _started(budget)
    began[0] = time.perf_counter()
    moves = _run(step, budget, began[0], trace)
    return AnytimeResult(int(ints[1]), [int(c) for c in best], trace, moves)


def genetic_algorithm(
    dist: Any,
    budget: Budget,
    *,
    seed: int = 0,
    population: int = 100,
    tournament: int = 3,
    crossover_rate: float = 0.9,
    mutation_rate: float = 0.2,
    initial: Sequence[int] | None = None,
) -> AnytimeResult:
    """A generational genetic algorithm (module docstring) for ``budget.iterations``
    generations and/or ``budget.seconds``: ``population`` tours, the first ``initial``
    if given and the others uniformly random; tournament selection of ``tournament``
    tours, order crossover with probability ``crossover_rate`` (else a copy of the
    first parent), a swap or inversion mutation with probability ``mutation_rate``,
    the best tour kept. The trace begins with the first population's best; the result
    is never longer (so never longer than ``initial``)."""
    d = _distances(dist, "genetic_algorithm")
    n = int(d.shape[0])
    for name, value, lo in (("population", population, 2), ("tournament", tournament, 1)):
        if isinstance(value, bool) or not isinstance(value, int) or value < lo:
            raise InvalidConfigError(f"genetic_algorithm: {name} must be an integer >= {lo}")
    for name, rate in (("crossover_rate", crossover_rate), ("mutation_rate", mutation_rate)):
        if isinstance(rate, bool) or not 0 <= rate <= 1:
            raise InvalidConfigError(f"genetic_algorithm: {name} must lie in [0, 1]")
    rng = _rng(seed)
    pop = np.zeros((population, n), dtype=np.int64)
    seeded = 0
    if initial is not None:
        pop[0] = _initial(d, initial, "genetic_algorithm: initial")
        seeded = 1
    lengths = np.zeros(population, dtype=np.int64)
    nxt, nlengths = pop.copy(), lengths.copy()
    best = np.zeros(n, dtype=np.int64)
    ints = np.zeros(1, dtype=np.int64)
    log = np.zeros(1, dtype=np.int64)

    def step(k: int) -> list[int]:
        nonlocal log
        if log.shape[0] < k:
            log = np.zeros(k, dtype=np.int64)
        found = _evolve(
            d, pop, nxt, lengths, nlengths, best, ints, rng, k, tournament,
            float(crossover_rate), float(mutation_rate), log,
        )  # fmt: skip
        return [int(v) for v in log[:found]]

    step(0)  # compile before the clock starts
    _random_population(d, pop[:0], lengths[:0], 0, rng)  # no rows: compiles, draws nothing
    _started(budget)
    start = time.perf_counter()
    _random_population(d, pop, lengths, seeded, rng)
    top = int(np.argmin(lengths))
    best[:] = pop[top]
    ints[0] = lengths[top]
    trace = [(time.perf_counter() - start, int(ints[0]))]
    generations = _run(step, budget, start, trace)
    return AnytimeResult(int(ints[0]), _from_zero(best), trace, generations)


def random_restarts(dist: Any, budget: Budget, *, seed: int = 0) -> AnytimeResult:
    """The best of uniformly random tours, ``budget.iterations`` of them and/or for
    ``budget.seconds``. The trace's first entry is the first tour's."""
    d = _distances(dist, "random_restarts")
    rng = _rng(seed)
    cur = np.arange(d.shape[0], dtype=np.int64)
    best = cur.copy()
    ints = np.array([-1], dtype=np.int64)
    log = np.zeros(1, dtype=np.int64)

    def step(k: int) -> list[int]:
        nonlocal log
        if log.shape[0] < k:
            log = np.zeros(k, dtype=np.int64)
        found = _restarts(d, cur, best, ints, rng, k, log)
        return [int(v) for v in log[:found]]

    step(0)  # compile before the clock starts
    _started(budget)
    trace: list[tuple[float, int]] = []
    tours = _run(step, budget, time.perf_counter(), trace)
    return AnytimeResult(int(ints[0]), [int(c) for c in best], trace, tours)
