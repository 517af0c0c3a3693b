"""Held-Karp: the exact travelling salesman tour by dynamic programming.

Held and Karp ("A dynamic programming approach to sequencing problems", J. SIAM 10(1),
1962; Bellman found the same recursion the same year). With the tour starting at city
0, let ``C(S, j)`` be the length of the shortest path that leaves city 0, visits every
city of ``S`` (a set of cities other than 0) exactly once and ends at ``j`` in ``S``:

    C({j}, j)  = d(0, j)
    C(S, j)    = min over i in S - {j} of  C(S - {j}, i) + d(i, j)
    OPT        = min over j of  C({1 .. n-1}, j) + d(j, 0)

``O(2^n n^2)`` time and ``O(2^n n)`` memory: exact up to :data:`MAX_EXACT_CITIES`
(16 cities: ``2^15 * 15`` table entries), the reference the heuristics are tested
against. It does not need symmetric distances.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from mctslab.core.errors import InvalidConfigError
from mctslab.games.tsp.tsplib import check_distances

__all__ = ["MAX_EXACT_CITIES", "held_karp"]

#: The most cities :func:`held_karp` solves.
MAX_EXACT_CITIES = 16


@njit(cache=True)
def _held_karp(dist):  # type: ignore[no-untyped-def]
    """``(length, tour)`` for ``n >= 2`` cities; city ``i >= 1`` is bit ``i - 1`` of a set."""
    n = dist.shape[0]
    m = n - 1
    full = 1 << m
    inf = np.iinfo(np.int64).max
    cost = np.full((full, m), inf, dtype=np.int64)
    parent = np.full((full, m), -1, dtype=np.int8)
    for j in range(m):
        cost[1 << j, j] = dist[0, j + 1]
    # Subsets in increasing order: S - {j} < S, so C(S - {j}, .) is final before C(S, .).
    for s in range(1, full):
        for j in range(m):
            c = cost[s, j]
            if c == inf:  # j not in s
                continue
            for k in range(m):
                if (s >> k) & 1:
                    continue
                t = s | (1 << k)
                v = c + dist[j + 1, k + 1]
                if v < cost[t, k]:
                    cost[t, k] = v
                    parent[t, k] = j
    best = inf
    last = 0
    for j in range(m):
        v = cost[full - 1, j] + dist[j + 1, 0]
        if v < best:
            best = v
            last = j
    tour = np.zeros(n, dtype=np.int64)
    s = full - 1
    j = last
    for pos in range(n - 1, 0, -1):  # walk the parents back from the last city
        tour[pos] = j + 1
        i = parent[s, j]
        s ^= 1 << j
        j = i
    return best, tour


def held_karp(dist: Any) -> tuple[int, list[int]]:
    """The optimal tour of the ``(n, n)`` integer distance matrix ``dist``, ``1 <= n <=
    16``: ``(length, tour)``, the tour a list of the ``n`` cities from city 0 (the
    first optimal one the recursion meets). Raises
    :class:`~mctslab.core.errors.InvalidConfigError` above 16 cities."""
    d = check_distances(dist, symmetric=False, what="held_karp")
    n = int(d.shape[0])
    if n > MAX_EXACT_CITIES:
        raise InvalidConfigError(
            f"held_karp: {n} cities; the exact solver takes at most {MAX_EXACT_CITIES} "
            f"(O(2^n n^2) time); use the heuristics of mctslab.games.tsp.heuristics"
        )
    if n == 1:
        return 0, [0]
    length, tour = _held_karp(d)
    return int(length), [int(c) for c in tour]
