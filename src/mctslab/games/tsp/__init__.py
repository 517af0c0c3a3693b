"""The travelling salesman problem: a single-player kernel game and its baselines.

One module per concept, in the order a study runs through them:

- :mod:`~mctslab.games.tsp.tsplib`: TSPLIB ``.tsp`` and ``.tour`` files, TSPLIB's
  integer distances, random Euclidean instances, the shipped instances (``eil51``,
  ``berlin52``, ``st70``, ``kroA100``) and their optima;
- :mod:`~mctslab.games.tsp.game`: :class:`TSP`, the kernel game (the next city is the
  move, the score minus the closed tour's length), with what it declares to the lab:
  its form's parameter, its shipped instances and their proven optima, its own
  searches (:data:`BASELINES`);
- :mod:`~mctslab.games.tsp.exact`: Held-Karp dynamic programming, the exact optimum up
  to 16 cities;
- :mod:`~mctslab.games.tsp.heuristics`: nearest neighbour, 2-opt, simulated annealing,
  a genetic algorithm and random restarts, with time-to-best traces.

May import: :mod:`mctslab.core` and :mod:`mctslab.games.kernels`.

This face holds the game, its baselines and their results, and the TSPLIB files' reading
and writing; the limits and the parsing and checking helpers are imported from their
module by name, as ``from mctslab.games.tsp.tsplib import parse_tsp``.

An optimal tour, played as a game (its return is minus its length)::

    from mctslab.games.tsp import TSP, held_karp

    game = TSP(instance="random:8:1")
    length, tour = held_karp(game.distances)
    assert game.state_from_actions(tour[1:]).returns() == [-float(length)]
"""

from mctslab.games.tsp.exact import held_karp
from mctslab.games.tsp.game import BASELINES, TSP
from mctslab.games.tsp.heuristics import (
    AnytimeResult,
    Budget,
    TourResult,
    genetic_algorithm,
    nearest_neighbour,
    random_restarts,
    simulated_annealing,
    two_opt,
)
from mctslab.games.tsp.tsplib import (
    TsplibError,
    TsplibInstance,
    TsplibTour,
    known_optimum,
    read_tour,
    read_tsp,
    tour_length,
    write_tour,
)

__all__ = [
    "BASELINES",
    "TSP",
    "AnytimeResult",
    "Budget",
    "TourResult",
    "TsplibError",
    "TsplibInstance",
    "TsplibTour",
    "genetic_algorithm",
    "held_karp",
    "known_optimum",
    "nearest_neighbour",
    "random_restarts",
    "read_tour",
    "read_tsp",
    "simulated_annealing",
    "tour_length",
    "two_opt",
    "write_tour",
]
