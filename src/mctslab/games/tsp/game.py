"""The travelling salesman problem as a single-player kernel game.

A salesman starts at city 0 (TSPLIB node 1), visits every other city exactly once and
returns to city 0; the score to maximise is minus the closed tour's length,

    score(t) = -( d(t[0], t[1]) + d(t[1], t[2]) + ... + d(t[n-1], t[0]) ),   t[0] = 0,

with TSPLIB's integer distances (:mod:`mctslab.games.tsp.tsplib`). Rosin's Nested
Rollout Policy Adaptation (IJCAI 2011) and Cazenave's Nested Monte-Carlo Search
(IJCAI 2009) treat the TSP (with time windows) this way: a tour is a sequence of moves
"next city", and a playout completes a partial tour at random.

Single-player convention (the first game of mctslab to use it): ``num_players = 1``,
``state[0]`` is 0 while cities remain and ``TERMINAL`` once the tour is closed;
``returns`` writes the score (a float) to ``out[0]``; the game is not zero-sum.

Actions: the next city, ``0 .. n-1``; legal are the unvisited cities, ascending (city 0,
the start, never). The move that visits the last city also closes the tour back to
city 0, so a game is exactly ``n - 1`` moves. An action's name is the city's 1-based
TSPLIB node number. The ``move_code`` kernel is ``current_city * n + next_city``: an
edge, what NRPA learns a weight for; ``num_move_codes() = n * n``.

Utility bounds (``GameInfo``): every closed tour's length ``L`` satisfies

    lower = ceil( sum_i (d1(i) + d2(i)) / 2 )  <=  L  <=  upper = sum_i max_j d(i, j),

``d1(i) <= d2(i)`` the two shortest distances from city ``i`` (each city has two tour
edges, each tour edge touches two cities; and each city leaves by one edge no longer
than its longest). So ``min_utility = -upper``, ``max_utility = -lower``: tighter than
``[-n max d, 0]``, which matters to a search that maps returns onto ``[0, 1]`` with
them. (``upper = lower + 1`` where both are equal: the range must not be empty.)

Heuristic: the nearest-neighbour completion. From the current city go to the nearest
unvisited city (ties: the lowest), until none is left, then back to city 0; the length
``L`` of that closed tour (a real tour, so within the bounds) is mapped as a terminal
score is, ``2 (upper - L) / (upper - lower) - 1``, into ``[-1, 1]``. It costs
``O(r^2)`` for ``r`` unvisited cities.

State layout (``int64``), ``n`` cities:
``[player, city, count, length, visited_0 .. visited_{n-1}, tour_0 .. tour_{n-1}]``:
the current city, the number of cities in the tour so far (1 at the start), the length
so far (the closing edge included once terminal), a flag per city, and the tour so far
(``tour_0 = 0``; entries past ``count`` are 0).
``params = [n, lower, upper, d(0, 0) .. d(n-1, n-1)]`` (the distance matrix, row-major).
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
from numba import njit

from mctslab.core.declarations import Instance, Parameter, Rendering
from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import TERMINAL, GameInfo
from mctslab.core.text import ascii_int
from mctslab.games.kernels import KernelGame, KernelState, RuleKernels, rng_randint
from mctslab.games.tsp.exact import MAX_EXACT_CITIES
from mctslab.games.tsp.heuristics import reverse_segment
from mctslab.games.tsp.tsplib import (
    MAX_CITIES,
    TsplibInstance,
    check_distances,
    distance_matrix,
    instance_from_spec,
    known_instances,
    load_known,
)
from mctslab.games.tsp.tsplib import known_optimum as optimal_length

__all__ = ["BASELINES", "MAX_CITIES", "MAX_FORM_CITIES", "TSP", "form_instance", "utility_bounds"]

#: The travelling salesman's own searches, beside the searches of every single-player
#: game (:mod:`mctslab.players.optimizers` runs them): nearest neighbour, 2-opt,
#: simulated annealing, the genetic algorithm (:mod:`~mctslab.games.tsp.heuristics`) and
#: Held-Karp (:mod:`~mctslab.games.tsp.exact`).
BASELINES = ("nn", "2opt", "sa", "ga", "exact")
#: The most cities of a ``random:N:SEED`` instance a form offers (the web lab builds
#: no larger one; the command line takes up to :data:`MAX_CITIES`).
MAX_FORM_CITIES = 300
_RANDOM = re.compile(r"random:([0-9]{1,6}):([0-9]{1,10})")


def form_instance(value: Any) -> str:
    """A form's ``instance`` (its :class:`~mctslab.core.declarations.Parameter`'s
    ``read``): a shipped instance's name in any case, as it is spelled, or
    ``random:N:SEED`` with ``2 <= N <=`` :data:`MAX_FORM_CITIES`; no file is read.
    Raises :class:`InvalidConfigError` saying what it takes."""
    known = known_instances()
    if isinstance(value, str):
        lowered = {k.lower(): k for k in known}
        if value.strip().lower() in lowered:
            return lowered[value.strip().lower()]
        match = _RANDOM.fullmatch(value.strip())
        if match is not None:
            n, seed = int(match.group(1)), int(match.group(2))
            if 2 <= n <= MAX_FORM_CITIES and seed < 2**31:
                return f"random:{n}:{seed}"
    raise InvalidConfigError(
        f"one of {', '.join(known)} or random:N:SEED with 2 <= N <= "
        f"{MAX_FORM_CITIES} and 0 <= SEED < 2**31 (no file is read), got {value!r}"
    )


IntArray = npt.NDArray[np.int64]

# MAX_CITIES (from tsplib): the most cities a game may have, its distance matrix ``n * n``
# words of ``params``; checked before that matrix is built.

# State words.
S_PLAYER, S_CITY, S_COUNT, S_LENGTH, S_VISITED = 0, 1, 2, 3, 4
# Parameter words.
P_N, P_LOWER, P_UPPER, P_DIST = 0, 1, 2, 3


@njit(cache=True)
def init(params):  # type: ignore[no-untyped-def]
    n = params[P_N]
    s = np.zeros(S_VISITED + 2 * n, dtype=np.int64)
    s[S_COUNT] = 1
    s[S_VISITED] = 1  # city 0, where the tour starts (tour_0 = 0 already)
    return s


@njit(cache=True)
def legal_actions(s, params, out):  # type: ignore[no-untyped-def]
    if s[S_PLAYER] == TERMINAL:
        return 0
    k = 0
    for c in range(params[P_N]):
        if s[S_VISITED + c] == 0:
            out[k] = c
            k += 1
    return k


@njit(cache=True)
def apply_action(s, params, a):  # type: ignore[no-untyped-def]
    n = params[P_N]
    here = s[S_CITY]
    s[S_LENGTH] += params[P_DIST + here * n + a]
    s[S_VISITED + a] = 1
    s[S_VISITED + n + s[S_COUNT]] = a
    s[S_COUNT] += 1
    s[S_CITY] = a
    if s[S_COUNT] == n:  # the last city: close the tour
        s[S_LENGTH] += params[P_DIST + a * n]
        s[S_PLAYER] = TERMINAL


@njit(cache=True)
def returns(s, params, out):  # type: ignore[no-untyped-def]
    out[0] = -np.float64(s[S_LENGTH])


@njit(cache=True)
def heuristic(s, params, out):  # type: ignore[no-untyped-def]
    """The nearest-neighbour completion's score, mapped onto ``[-1, 1]``."""
    n = params[P_N]
    length = s[S_LENGTH]
    if s[S_PLAYER] != TERMINAL:
        free = np.empty(n, dtype=np.bool_)
        for c in range(n):
            free[c] = s[S_VISITED + c] == 0
        here = s[S_CITY]
        for _ in range(n - s[S_COUNT]):
            best = -1
            best_d = np.int64(0)
            for c in range(n):
                if free[c]:
                    d = params[P_DIST + here * n + c]
                    if best < 0 or d < best_d:
                        best, best_d = c, d
            free[best] = False
            length += best_d
            here = best
        length += params[P_DIST + here * n]
    lower, upper = params[P_LOWER], params[P_UPPER]
    v = 2.0 * (upper - length) / (upper - lower) - 1.0
    out[0] = min(1.0, max(-1.0, v))


@njit(cache=True)
def playout(s, params, rng, out):  # type: ignore[no-untyped-def]
    """Uniformly random cities to the end, in place, drawing as the generic loop: the
    ``k``-th unvisited city in ascending order, ``k = rng_randint(rng, unvisited)``.
    Returns the moves played; writes the score to ``out``."""
    n = params[P_N]
    plies = 0
    while s[S_PLAYER] != TERMINAL:
        k = rng_randint(rng, n - s[S_COUNT])
        c = 0
        while s[S_VISITED + c] != 0 or k > 0:  # the k-th zero flag, found in one pass
            k -= s[S_VISITED + c] == 0
            c += 1
        apply_action(s, params, c)
        plies += 1
    out[0] = -np.float64(s[S_LENGTH])
    return plies


@njit(cache=True)
def move_code(s, params, a):  # type: ignore[no-untyped-def]
    """The edge ``(current city, next city)`` as ``current * n + next``."""
    return s[S_CITY] * params[P_N] + a


@njit(cache=True)
def move_bias(s, params, a):  # type: ignore[no-untyped-def]
    """Generalized NRPA's prior of the edge to ``a``: minus its length in units of a good
    tour's mean edge (the lower bound on a tour's length over ``n``), so about -1 for a
    short edge and -5 for one five times as long."""
    n = params[P_N]
    d = params[P_DIST + s[S_CITY] * n + a]
    return -float(d) * n / max(params[P_LOWER], 1)


@njit(cache=True)
def _two_opt_path(path, params):  # type: ignore[no-untyped-def]
    """First-improvement 2-opt on a path whose two ends stay fixed: for edges ``(a, b)``
    before edge ``(c, d)``, reverse ``b .. c`` when ``d(a, c) + d(b, d) < d(a, b) + d(c, d)``;
    repeated until no pair improves. True if the path changed."""
    n, m = params[P_N], path.shape[0]
    changed = False
    improved = True
    while improved:
        improved = False
        for i in range(1, m - 2):
            a, b = path[i - 1], path[i]
            dab = params[P_DIST + a * n + b]
            for j in range(i + 1, m - 1):
                c, d = path[j], path[j + 1]
                delta = (
                    params[P_DIST + a * n + c]
                    + params[P_DIST + b * n + d]
                    - dab
                    - params[P_DIST + c * n + d]
                )
                if delta < 0:
                    reverse_segment(path, i, j)
                    improved = changed = True
                    b = path[i]
                    dab = params[P_DIST + a * n + b]
    return changed


@njit(cache=True)
def _or_opt_path(path, params, tmp):  # type: ignore[no-untyped-def]
    """One Or-opt move on a path whose ends stay fixed, the first that shortens it: a
    segment of 1 to 3 inner cities moved between two other neighbours, kept or reversed.
    True if one was made."""
    n, m = params[P_N], path.shape[0]
    for seg in range(1, 4):
        for i in range(1, m - seg):
            j = i + seg - 1  # the segment is path[i..j]; path[j + 1] exists (j <= m - 2)
            p, q, s1, s2 = path[i - 1], path[j + 1], path[i], path[j]
            gain = (
                params[P_DIST + p * n + s1]
                + params[P_DIST + s2 * n + q]
                - params[P_DIST + p * n + q]
            )
            if gain <= 0:
                continue
            for k in range(m - 1):
                if i - 1 <= k <= j:
                    continue  # an edge that touches the segment
                x, y = path[k], path[k + 1]
                dxy = params[P_DIST + x * n + y]
                fwd = params[P_DIST + x * n + s1] + params[P_DIST + s2 * n + y] - dxy
                rev = params[P_DIST + x * n + s2] + params[P_DIST + s1 * n + y] - dxy
                if fwd < gain or rev < gain:
                    # Rebuild: the segment goes between x and y, reversed if that is shorter.
                    w = 0
                    for t in range(m):
                        if i <= t <= j:
                            continue
                        tmp[w] = path[t]
                        w += 1
                        if t == k:
                            for u in range(seg):
                                tmp[w] = path[j - u] if rev < fwd else path[i + u]
                                w += 1
                    path[:m] = tmp[:m]
                    return True
    return False


@njit(cache=True)
def polish(start, params, seq, n_moves):  # type: ignore[no-untyped-def]
    """The local search of the single-player searches' ``polish`` option: the rest of the
    tour, ``seq[:n_moves]`` from ``start``'s current city and back to city 0, improved by
    2-opt and Or-opt (segments of 1 to 3 cities) with both ends fixed, to a local optimum
    of both; ``seq`` rewritten in place. Returns the closed tour's score, minus
    ``start``'s length so far plus the polished rest's. No draws: the same sequence in,
    the same out."""
    if n_moves == 0:
        return -np.float64(start[S_LENGTH])
    n = params[P_N]
    m = n_moves + 2
    path = np.empty(m, dtype=np.int64)
    tmp = np.empty(m, dtype=np.int64)
    path[0] = start[S_CITY]
    path[1 : n_moves + 1] = seq[:n_moves]
    path[m - 1] = 0
    _two_opt_path(path, params)
    while _or_opt_path(path, params, tmp):
        _two_opt_path(path, params)
    seq[:n_moves] = path[1 : n_moves + 1]
    length = start[S_LENGTH]
    for t in range(m - 1):
        length += params[P_DIST + path[t] * n + path[t + 1]]
    return -np.float64(length)


def _check_cities(n: int) -> None:
    if not 2 <= n <= MAX_CITIES:
        raise InvalidConfigError(f"tsp: need 2 to {MAX_CITIES:,} cities, got {n:,}")


def utility_bounds(dist: IntArray) -> tuple[int, int]:
    """``(lower, upper)``: bounds on every closed tour's length (module docstring)."""
    n = dist.shape[0]
    if n == 1:
        return 0, 1
    if n == 2:
        lower = upper = int(dist[0, 1] + dist[1, 0])
    else:
        off = np.sort(dist + np.diag(np.full(n, np.iinfo(np.int64).max // 4)), axis=1)
        lower = int((int(off[:, 0].sum()) + int(off[:, 1].sum()) + 1) // 2)
        upper = int(dist.max(axis=1).sum())
    return lower, max(upper, lower + 1)


class TSP(KernelGame):
    """The travelling salesman problem on one instance, as a single-player game.

    Give exactly one of: ``instance``, a shipped TSPLIB name (``"eil51"``), a
    ``random:N:SEED`` spec, a ``.tsp`` path or a :class:`TsplibInstance`;
    ``coords``, an ``(n, 2)`` array (TSPLIB ``EUC_2D`` distances); ``distances``, a
    symmetric ``(n, n)`` matrix of non-negative integers. ``2 <= n <=``
    :data:`MAX_CITIES`. With none, ``eil51``.
    """

    kernels = RuleKernels(
        init,
        legal_actions,
        apply_action,
        returns,
        heuristic,
        playout=playout,
        move_code=move_code,
        move_bias=move_bias,
        polish=polish,
    )

    baselines = BASELINES
    #: Held-Karp's limit: its table has ``2**n`` rows.
    baseline_limits: ClassVar[dict[str, int]] = {"exact": MAX_EXACT_CITIES}

    @classmethod
    def parameter_schema(cls) -> tuple[Parameter, ...]:
        """What a form offers (the web lab's Optimize tab, ``mctslab games``): a shipped
        instance or ``random:N:SEED`` (:func:`form_instance`); files and matrices are
        the command line's and the API's."""
        return (
            Parameter(
                "instance",
                "eil51",
                "a shipped TSPLIB instance (its proven optimum known), or random:N:SEED: "
                "N random cities",
                choices=tuple(known_instances()),
                pattern=f"random:N:SEED (2 <= N <= {MAX_FORM_CITIES})",
                read=form_instance,
            ),
        )

    @classmethod
    def instances(cls) -> tuple[Instance, ...]:
        """The shipped TSPLIB instances: each name, its cities, its proven optimal length."""
        return tuple(
            Instance(name, len(load_known(name).coords), optimal_length(name))
            for name in known_instances()
        )

    def rendering(self) -> Rendering:
        """The web lab's drawing of a tour (the Optimize tab's solution): the cities in
        order, closed once the tour is complete, and their coordinates."""
        return Rendering(kind="tour", draw=self._tour)

    def _tour(self, state: KernelState) -> dict[str, Any]:
        order = self.tour(state)
        closed = [*order, order[0]] if state.is_terminal() and order else order
        coords = self.coordinates
        cities = [] if coords is None else [[float(x), float(y)] for x, y in coords]
        return {
            "order": closed,
            "cities": cities,
            "tour": [cities[c] for c in closed] if cities else [],
            "length": int(self.length(state)),
        }

    def known_optimum(self) -> float | None:
        """The proven optimum's score (minus the optimal tour's length) of a shipped
        instance, ``None`` for any other."""
        length = optimal_length(self.instance)
        return None if length is None else -float(length)

    def __init__(
        self,
        instance: str | TsplibInstance | None = None,
        *,
        coords: Any = None,
        distances: Any = None,
    ) -> None:
        given = sum(x is not None for x in (instance, coords, distances))
        if given > 1:
            raise InvalidConfigError("tsp: give one of instance, coords and distances")
        self.coordinates: npt.NDArray[np.float64] | None = None
        # The number of cities is checked before the distance matrix is built (n * n
        # words: 3.2 GB at 20,000 cities), and a file's or a random spec's before its
        # cities are read or drawn.
        if distances is not None:
            _check_cities(np.shape(distances)[0] if np.ndim(distances) >= 1 else 0)
            dist = check_distances(distances, what="tsp: distances")
            self.instance = "matrix"
        elif coords is not None:
            self.coordinates = np.asarray(coords, dtype=np.float64).copy()
            _check_cities(self.coordinates.shape[0] if self.coordinates.ndim >= 1 else 0)
            dist = distance_matrix(self.coordinates, "EUC_2D")
            self.instance = "coords"
        else:
            if isinstance(instance, TsplibInstance):
                data = instance
            else:
                data = instance_from_spec("eil51" if instance is None else instance, MAX_CITIES)
            _check_cities(data.dimension)
            dist = data.distances()
            self.coordinates = np.array(data.coords, dtype=np.float64)
            self.instance = data.name
        n = int(dist.shape[0])
        _check_cities(n)
        lower, upper = utility_bounds(dist)
        if upper >= 2**52:  # lengths must stay exact as floats
            raise InvalidConfigError("tsp: distances too large (a tour's length passes 2**52)")
        self.n = n
        self.distances = dist
        self.distances.setflags(write=False)
        self.lower_bound, self.upper_bound = lower, upper
        info = GameInfo(
            name="tsp",
            version=1,
            num_players=1,
            num_actions=n,
            max_game_length=n - 1,
            zero_sum=False,
            min_utility=-float(upper),
            max_utility=-float(lower),
        )
        params = np.concatenate(
            [np.array([n, lower, upper], dtype=np.int64), dist.reshape(-1)]
        ).astype(np.int64)
        super().__init__(info, params)

    def __repr__(self) -> str:
        return f"<game tsp {self.instance}, {self.n} cities>"

    def num_move_codes(self) -> int:
        """``n * n``: a move's code is the edge it adds (the ``move_code`` kernel)."""
        return self.n * self.n

    def tour(self, state: KernelState) -> list[int]:
        """The cities visited so far (0-based), in order, from city 0; once terminal, the
        whole tour (closed back to city 0, which is not repeated)."""
        count = int(state.array[S_COUNT])
        start = S_VISITED + self.n
        return [int(c) for c in state.array[start : start + count]]

    def length(self, state: KernelState) -> int:
        """The length so far (the closed tour's once terminal)."""
        return int(state.array[S_LENGTH])

    def action_name(self, state: KernelState, action: int) -> str:
        return str(action + 1)

    def parse_action(self, state: KernelState, text: str) -> int | None:
        node = ascii_int(text.strip())
        return None if node is None or not 1 <= node <= self.n else node - 1

    def render(self, state: KernelState) -> str:
        """The tour so far as node numbers, the length, and (with coordinates) a map:
        ``S`` the start, ``@`` the current city, ``o`` visited, ``.`` unvisited."""
        tour = self.tour(state)
        done = state.is_terminal()
        what = "closed tour" if done else f"at city {tour[-1] + 1}, {len(tour)}/{self.n} visited"
        lines = [f"tsp {self.instance}: {what}, length {self.length(state)}"]
        shown = [str(c + 1) for c in tour] + (["1"] if done else [])
        if len(shown) > 40:
            shown = [*shown[:18], "...", *shown[-18:]]
        lines.append("tour: " + " ".join(shown))
        if self.coordinates is not None:
            lines.extend(self._map(state, tour))
        return "\n".join(lines)

    def _map(
        self, state: KernelState, tour: list[int], width: int = 60, height: int = 20
    ) -> list[str]:
        xy = self.coordinates
        assert xy is not None
        lo, hi = xy.min(axis=0), xy.max(axis=0)
        span = np.where(hi > lo, hi - lo, 1.0)
        cols = np.rint((xy[:, 0] - lo[0]) / span[0] * (width - 1)).astype(int)
        rows = np.rint((xy[:, 1] - lo[1]) / span[1] * (height - 1)).astype(int)
        grid = [[" "] * width for _ in range(height)]
        rank = {" ": 0, ".": 1, "o": 2, "S": 3, "@": 4}  # what shows where cities share a cell
        visited = state.array[S_VISITED : S_VISITED + self.n]
        here = -1 if state.is_terminal() else tour[-1]
        for c in range(self.n):
            mark = "@" if c == here else "S" if c == 0 else "o" if visited[c] else "."
            r, k = height - 1 - rows[c], cols[c]  # north up
            if rank[mark] > rank[grid[r][k]]:
                grid[r][k] = mark
        return [
            "+" + "-" * width + "+",
            *("|" + "".join(g) + "|" for g in grid),
            "+" + "-" * width + "+",
        ]
