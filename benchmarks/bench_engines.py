"""Engine benchmark: mctslab's two engines against OpenSpiel's MCTS, in one run.

Run ``python benchmarks/bench_engines.py [--quick]`` (or ``make bench``). Everything is
single-threaded and searches from the initial position of ``tic_tac_toe`` and
``connect_four`` with uniformly random playouts and equivalent exploration constants
(mctslab ``c=1.0`` on rewards in ``[0, 1]`` is OpenSpiel ``uct_c=2.0`` on ``[-1, 1]``).

It measures:

1. simulations per second of the compiled engine (``CompiledMCTS``), the reference
   engine (``mctslab.search.mcts.MCTS``), OpenSpiel's C++ ``pyspiel.MCTSBot`` and OpenSpiel's
   Python ``MCTSBot`` (both timed around ``bot.step``). Engines compared with each other
   search the same number of iterations; they take turns within each repeat, so that a
   noisy machine slows them alike; rates are medians over repeats, ratios the medians of
   the per-repeat ratios;
2. the raw random-playout rate of the same rule kernels with no tree: the ceiling of
   any random-playout MCTS on these kernels;
3. equal work by tree size: the compiled engine and OpenSpiel's C++ bot at 10k, 100k,
   300k and 1M simulations on Connect Four and 10k, 100k, 1M on tic-tac-toe, in turns,
   with their paired ratios; and the compiled engine's bytes per tree node;
4. the time to the first move in a fresh process, with numba's cache cold and warm.

``--playouts-only`` measures part 2 alone, for every game with its own playout kernel
(:data:`PLAYOUT_GAMES`: tic-tac-toe, Connect Four, Bohnenspiel, Nim (1, 3, 5, 7)): raw
random playouts from the initial position through the generic loop over the rule
kernels and through the game's own ``playout`` kernel (the same draws), in turns within
each repeat, and the median of the per-repeat ratios own / generic; into
``benchmarks/results/engines_playouts.json`` (beside ``--output``).

Ratios are printed against their targets with PASS/MISS, and the run always exits 0:
benchmarks record, tests assert. The numbers also go to ``benchmarks/results/engines.json``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import common
import numpy as np
from numba import njit

import mctslab
from mctslab.games.kernels import generic_playout
from mctslab.search.compiled import CompiledMCTS
from mctslab.search.compiled.tree import borrow
from mctslab.search.config import SearchConfig
from mctslab.search.engine import make_searcher
from mctslab.search.mcts import MCTS
from mctslab.search.parallel import RootParallelSearcher

try:
    import pyspiel
    from open_spiel.python.algorithms import mcts as os_mcts
except ImportError:  # pragma: no cover - the dev extras install it
    pyspiel = None
    os_mcts = None

GAMES = ("tic_tac_toe", "connect_four")
PLAYOUT_GAMES = ("tic_tac_toe", "connect_four", "bohnenspiel", "nim")
PLAYOUTS_PER_CALL = 100_000  # each measurement repeats this until Mode.min_seconds
C = 1.0  # mctslab's c on [0, 1] rewards ...
UCT_C = 2.0 * C  # ... is OpenSpiel's uct_c on [-1, 1] rewards.
OPENSPIEL_MAX_MEMORY_MB = 1000  # far above what these searches use: no garbage collection
OPENSPIEL_NODE_BYTES = 80  # sizeof(open_spiel::algorithms::SearchNode) on 64-bit Linux
RESULTS = Path(__file__).resolve().parent / "results" / "engines.json"

# Iterations per search. The rate of an MCTS depends on the size of its tree, so engines
# compared with each other search the same budget: the compiled engine against OpenSpiel's
# C++ bot, the reference engine against OpenSpiel's Python bot. A measurement repeats the
# search until it has run for at least ``Mode.min_seconds``.
BUDGETS = {
    "tic_tac_toe": {
        "compiled": 200_000,
        "openspiel_cpp": 200_000,
        "reference": 10_000,
        "openspiel_python": 10_000,
        "raw_playouts": 1_000_000,
        "game_playouts": 1_000_000,
    },
    "connect_four": {
        "compiled": 100_000,
        "openspiel_cpp": 100_000,
        "reference": 3_000,
        "openspiel_python": 3_000,
        "raw_playouts": 200_000,
        "game_playouts": 200_000,
    },
}
# Equal work at several tree sizes: the compiled engine and OpenSpiel's C++ bot search the
# same number of simulations from the empty board, taking turns within each repeat.
SIZES = {
    "connect_four": (10_000, 100_000, 300_000, 1_000_000),
    "tic_tac_toe": (10_000, 100_000, 1_000_000),
}
ENGINE_LABELS = {
    "compiled": "mctslab compiled (numba)",
    "openspiel_cpp": "OpenSpiel C++ MCTSBot",
    "reference": "mctslab reference (Python)",
    "openspiel_python": "OpenSpiel Python MCTSBot",
    "raw_playouts": "raw random playouts, no tree",
    "game_playouts": "the game's playout kernel",
}


@dataclass
class Mode:
    """How hard to measure: ``--quick`` divides the budgets and repeats less."""

    repeats: int
    min_seconds: float
    divisor: int
    cold_games: tuple[str, ...]
    cached_repeats: int
    sizes: dict[str, tuple[int, ...]]
    size_repeats: int

    def iterations(self, game: str, engine: str) -> int:
        return max(1, BUDGETS[game][engine] // self.divisor)


FULL = Mode(
    repeats=5,
    min_seconds=1.5,
    divisor=1,
    cold_games=GAMES,
    cached_repeats=3,
    sizes=SIZES,
    size_repeats=3,
)
QUICK = Mode(
    repeats=2,
    min_seconds=0.5,
    divisor=5,
    cold_games=("connect_four",),
    cached_repeats=1,
    sizes={"connect_four": (10_000, 100_000), "tic_tac_toe": (10_000, 100_000)},
    size_repeats=1,
)


@dataclass
class Rates:
    """Repeated measurements of one rate (per second of search time)."""

    iterations: int
    rates: list[float] = field(default_factory=list)
    searches: list[int] = field(default_factory=list)

    def measure(self, run: Callable[[int, int], float], seed: int, min_seconds: float) -> float:
        """Run searches of ``iterations`` until ``min_seconds`` of search time; add the rate."""
        seconds = 0.0
        searches = 0
        while searches == 0 or seconds < min_seconds:
            seconds += run(self.iterations, seed + searches)
            searches += 1
        self.rates.append(searches * self.iterations / seconds)
        self.searches.append(searches)
        return self.rates[-1]

    @property
    def median(self) -> float:
        return statistics.median(self.rates) if self.rates else float("nan")

    def to_dict(self) -> dict[str, Any]:
        return {
            "iterations": self.iterations,
            "median_per_s": self.median,
            "min_per_s": min(self.rates, default=float("nan")),
            "max_per_s": max(self.rates, default=float("nan")),
            "per_s": self.rates,
            "searches_per_repeat": self.searches,
        }


# --- 2. Raw playouts: the rule kernels with no tree -------------------------------------


@njit
def random_playouts(legal_fn, apply_fn, returns_fn, root, params, n, rng, state, legal, rets):
    """Play ``n`` uniformly random games from ``root`` as the compiled engine's simulation
    phase does (SplitMix64 draws, same kernels, scratch arrays owned by the caller and
    passed on as borrowed views); returns the plies played and a checksum."""
    state = borrow(state)
    legal = borrow(legal)
    rets = borrow(rets)
    params = borrow(params)
    rng = borrow(rng)
    plies = 0
    checksum = 0.0
    for _ in range(n):
        state[:] = root
        plies += generic_playout(legal_fn, apply_fn, returns_fn, state, params, rng, legal, rets)
        checksum += rets[0]
    return plies, checksum


def raw_playouts(game_name: str, n: int, seed: int) -> tuple[float, float]:
    """Seconds for ``n`` random playouts from the initial position, and plies per playout."""
    game = mctslab.make(game_name)
    k = game.kernels
    root = game.new_initial_state().array
    rng = np.array([seed], dtype=np.uint64)
    width = max(len(root), game.info.num_actions)
    args = (k.legal_actions, k.apply_action, k.returns, root, game.params)
    start = time.perf_counter()
    bufs = (root.copy(), np.zeros(width, dtype=np.int64), np.zeros(2, dtype=np.float64))
    plies, _ = random_playouts(*args, n, rng, *bufs)
    return time.perf_counter() - start, plies / n


@njit
def game_playouts(playout_fn, root, params, n, rng, state, rets):
    """As :func:`random_playouts`, the same draws, through the game's own ``playout``
    kernel (``RuleKernels.playout``) instead of the generic loop."""
    state = borrow(state)
    rets = borrow(rets)
    params = borrow(params)
    rng = borrow(rng)
    plies = 0
    checksum = 0.0
    for _ in range(n):
        state[:] = root
        plies += playout_fn(state, params, rng, rets)
        checksum += rets[0]
    return plies, checksum


def raw_game_playouts(game_name: str, n: int, seed: int) -> tuple[float, float]:
    """As :func:`raw_playouts`, through the game's playout kernel."""
    game = mctslab.make(game_name)
    root = game.new_initial_state().array
    rng = np.array([seed], dtype=np.uint64)
    start = time.perf_counter()
    bufs = (root.copy(), np.zeros(2, dtype=np.float64))
    plies, _ = game_playouts(game.kernels.playout, root, game.params, n, rng, *bufs)
    return time.perf_counter() - start, plies / n


def playout_kernels(mode: Mode) -> dict[str, Any]:
    """Part 2 for :data:`PLAYOUT_GAMES`: the generic loop against each game's own kernel."""
    out: dict[str, Any] = {}
    for game_name in PLAYOUT_GAMES:
        n = max(1, PLAYOUTS_PER_CALL // mode.divisor)
        raw_playouts(game_name, 1, 0)  # compile or load numba's cache
        raw_game_playouts(game_name, 1, 0)
        generic, own = Rates(n), Rates(n)
        ratios = []
        for r in range(mode.repeats):
            seed = 1000 * (r + 1)
            a = generic.measure(
                lambda k, s, g=game_name: raw_playouts(g, k, s)[0], seed, mode.min_seconds
            )
            b = own.measure(
                lambda k, s, g=game_name: raw_game_playouts(g, k, s)[0], seed, mode.min_seconds
            )
            ratios.append(b / a)
            print(f"  {game_name} repeat {r + 1}: generic {a:,.0f}/s, own kernel {b:,.0f}/s")
        _, plies = raw_playouts(game_name, 10_000, 99)
        out[game_name] = {
            "generic_loop": generic.to_dict(),
            "own_kernel": own.to_dict(),
            "ratio_own_over_generic": statistics.median(ratios),
            "ratios": ratios,
            "mean_playout_plies": plies,
        }
    return out


# --- 1. Simulations per second of each engine (each runner returns search seconds) -------


def _config(iterations: int, seed: int) -> SearchConfig:
    return SearchConfig(c=C, expansion="one", simulation="random", iterations=iterations, seed=seed)


def compiled_search(game_name: str, iterations: int, seed: int) -> tuple[float, CompiledMCTS]:
    """Search time only (``SearchResult.seconds``), and the searcher for its tree."""
    game = mctslab.make(game_name)
    searcher = CompiledMCTS(_config(iterations, seed))
    result = searcher.search(game.new_initial_state())
    assert result.iterations == iterations
    return result.seconds, searcher


def reference_search(game_name: str, iterations: int, seed: int) -> float:
    game = mctslab.make(game_name)
    result = MCTS(_config(iterations, seed)).search(game.new_initial_state())
    assert result.iterations == iterations
    return result.seconds


def openspiel_cpp_search(game_name: str, iterations: int, seed: int) -> float:
    game = pyspiel.load_game(game_name)
    evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
    bot = pyspiel.MCTSBot(
        game, evaluator, UCT_C, iterations, OPENSPIEL_MAX_MEMORY_MB, False, seed, False
    )
    state = game.new_initial_state()
    start = time.perf_counter()
    bot.step(state)
    return time.perf_counter() - start


def openspiel_python_search(game_name: str, iterations: int, seed: int) -> float:
    game = pyspiel.load_game(game_name)
    evaluator = os_mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed))
    bot = os_mcts.MCTSBot(
        game,
        UCT_C,
        iterations,
        evaluator,
        solve=False,
        random_state=np.random.RandomState(seed),
    )
    state = game.new_initial_state()
    start = time.perf_counter()
    bot.step(state)
    return time.perf_counter() - start


def measure_game(game_name: str, mode: Mode) -> dict[str, Any]:
    """Every engine's rate on one game, the engines taking turns in each repeat."""
    # First calls compile or load numba's cache: time them apart from the rates.
    state = mctslab.make(game_name).new_initial_state()
    first = CompiledMCTS(_config(100, 0)).search(state)
    start = time.perf_counter()
    raw_playouts(game_name, 1, 0)
    raw_compile = time.perf_counter() - start

    # In this order, each engine runs right after the one it is compared with (the ratios
    # are taken per repeat, on measurements seconds apart, then their median).
    runners: dict[str, Callable[[int, int], float]] = {
        "raw_playouts": lambda n, seed: raw_playouts(game_name, n, seed)[0],
        "compiled": lambda n, seed: compiled_search(game_name, n, seed)[0],
    }
    if mctslab.make(game_name).kernels.playout is not None:
        raw_game_playouts(game_name, 1, 0)
        runners["game_playouts"] = lambda n, seed: raw_game_playouts(game_name, n, seed)[0]
    if pyspiel is not None:
        runners["openspiel_cpp"] = lambda n, seed: openspiel_cpp_search(game_name, n, seed)
    runners["reference"] = lambda n, seed: reference_search(game_name, n, seed)
    if pyspiel is not None:
        runners["openspiel_python"] = lambda n, seed: openspiel_python_search(game_name, n, seed)
    rates = {name: Rates(mode.iterations(game_name, name)) for name in runners}
    for r in range(mode.repeats):
        for name, run in runners.items():
            rate = rates[name].measure(run, 1000 * (r + 1), mode.min_seconds)
            print(f"  {game_name} {name} repeat {r + 1}: {rate:,.0f}/s", flush=True)
    _, plies = raw_playouts(game_name, 10_000, 99)
    return {
        "rates": {name: rate.to_dict() for name, rate in rates.items()},
        "compiled_compile_seconds": first.compile_seconds,
        "raw_playout_compile_seconds": raw_compile,
        "mean_playout_plies": plies,
    }


# --- 3. Tree memory and the rate as the tree grows --------------------------------------


def tree_memory(searcher: CompiledMCTS) -> dict[str, Any]:
    """Bytes of the compiled tree per node: per allocated node and per node created, split
    into the per-node arrays (as long as the first array) and any per-slot arrays (longer:
    one entry per legal action of an opened node, in layouts that have them)."""
    tree = searcher.tree
    assert tree is not None
    capacity = len(tree[0])
    node_arrays = [a for a in tree if len(a) == capacity]
    slot_arrays = [a for a in tree if len(a) != capacity]
    total = sum(a.nbytes for a in tree)
    nodes = max(1, searcher.nodes)
    slots_used = getattr(searcher, "slots", 0) if slot_arrays else 0
    return {
        "capacity_nodes": capacity,
        "capacity_slots": sum(len(a) for a in slot_arrays[:1]),
        "nodes": searcher.nodes,
        "slots_used": slots_used,
        "total_bytes": total,
        "bytes_per_node_capacity": total / capacity,
        "bytes_per_node_created": total / nodes,
        "node_arrays": len(node_arrays),
        "node_array_bytes_per_node": sum(a.itemsize for a in node_arrays),
        "slot_arrays": len(slot_arrays),
        "slot_bytes_per_node_used": sum(a.itemsize for a in slot_arrays) * slots_used / nodes,
    }


def size_row(game_name: str, n: int, repeats: int) -> tuple[dict[str, Any], CompiledMCTS]:
    """The compiled engine and OpenSpiel's C++ bot at ``n`` simulations from the initial
    position, in turns within each repeat (each measurement at least 0.5 s of search);
    their rates, the paired ratio, and the last compiled searcher (for its tree)."""
    compiled, cpp = Rates(n), Rates(n)
    last: list[CompiledMCTS] = []

    def run_compiled(iterations: int, seed: int) -> float:
        seconds, searcher = compiled_search(game_name, iterations, seed)
        last[:] = [searcher]
        return seconds

    def run_cpp(iterations: int, seed: int) -> float:
        return openspiel_cpp_search(game_name, iterations, seed)

    for r in range(repeats):
        compiled.measure(run_compiled, 7000 + 100 * r, 0.5)
        if pyspiel is not None:
            cpp.measure(run_cpp, 7000 + 100 * r, 0.5)
    pairs = list(zip(compiled.rates, cpp.rates, strict=False))
    ratio = statistics.median(a / b for a, b in pairs) if pairs else float("nan")
    row = {
        "iterations": n,
        "nodes": last[0].nodes,
        "compiled": compiled.to_dict(),
        "openspiel_cpp": cpp.to_dict(),
        "ratio": ratio,
    }
    print(
        f"  {game_name} {n:,} simulations: compiled {compiled.median:,.0f}/s, "
        f"OpenSpiel C++ {cpp.median:,.0f}/s, ratio {ratio:.2f}x",
        flush=True,
    )
    return row, last[0]


def by_size(mode: Mode) -> tuple[dict[str, list[dict[str, Any]]], dict[str, Any]]:
    """Equal work at each size of ``mode.sizes`` (:func:`size_row`), and the memory of
    the largest Connect Four tree."""
    rows: dict[str, list[dict[str, Any]]] = {}
    memory: dict[str, Any] = {}
    for game_name, sizes in mode.sizes.items():
        rows[game_name] = []
        for n in sizes:
            row, searcher = size_row(game_name, n, mode.size_repeats)
            rows[game_name].append(row)
            if game_name == "connect_four" and n == max(sizes):
                memory = tree_memory(searcher)
    return rows, memory


# --- 3b. Every core: root parallelism in threads ----------------------------------------

THREAD_SIMULATIONS = {"connect_four": 200_000, "tic_tac_toe": 200_000}


def threaded_search(game_name: str, workers: int, iterations: int, seed: int) -> float:
    """Simulations per second of ``workers`` compiled searches in threads of this process
    (root parallelism, each with the whole budget), over the wall time of the search."""
    game = mctslab.make(game_name)
    state = game.new_initial_state()
    config = SearchConfig(
        c=C, iterations=iterations, seed=seed, workers=workers, parallel="threads", reuse_tree=False
    )
    searcher = make_searcher(config, state, "compiled")
    try:
        searcher.search(state)  # start the threads, load the code: not timed
        result = searcher.search(state)
    finally:
        if isinstance(searcher, RootParallelSearcher):
            searcher.close()
    assert result.iterations == workers * iterations
    return result.iterations / result.seconds


def thread_scaling(repeats: int) -> dict[str, Any]:
    """1 and 2 worker threads, in turns within each repeat; the paired ratio of their
    simulations per second (2.0: both cores fully used)."""
    out: dict[str, Any] = {}
    for game_name, n in THREAD_SIMULATIONS.items():
        one: list[float] = []
        two: list[float] = []
        for r in range(repeats):
            one.append(threaded_search(game_name, 1, n, 9000 + r))
            two.append(threaded_search(game_name, 2, n, 9000 + r))
        ratio = statistics.median(b / a for a, b in zip(one, two, strict=True))
        out[game_name] = {
            "simulations_per_worker": n,
            "one_thread_per_s": statistics.median(one),
            "two_threads_per_s": statistics.median(two),
            "ratio": ratio,
        }
        print(
            f"  {game_name}: 1 thread {statistics.median(one):,.0f}/s, "
            f"2 threads {statistics.median(two):,.0f}/s, ratio {ratio:.2f}x",
            flush=True,
        )
    return out


def render_threads(threads: dict[str, Any]) -> str:
    lines = [
        _rule("Root parallelism in threads (compiled, each worker the whole budget)"),
        f"{'game':<14}{'simulations':>12}{'1 thread/s':>13}{'2 threads/s':>13}{'ratio':>8}",
    ]
    for g, row in threads.items():
        lines.append(
            f"{g:<14}{row['simulations_per_worker']:>12,}{row['one_thread_per_s']:>13,.0f}"
            f"{row['two_threads_per_s']:>13,.0f}{row['ratio']:>7.2f}x"
        )
    return "\n".join(lines)


# --- 4. Time to first move in a fresh process -------------------------------------------

_FIRST_MOVE = """
import json, sys, time
t0 = time.perf_counter()
import mctslab
from mctslab.search.compiled import CompiledMCTS
from mctslab.search.config import SearchConfig
state = mctslab.make(sys.argv[1]).new_initial_state()
r = CompiledMCTS(SearchConfig(c=1.0, iterations=1000, seed=0)).search(state)
print(json.dumps({"in_process_s": time.perf_counter() - t0,
                  "compile_seconds": r.compile_seconds, "action": r.action}))
"""


def first_move(game_name: str, cache_dir: str | None) -> dict[str, float]:
    """A fresh interpreter imports mctslab and searches 1,000 iterations. ``wall_s``
    includes interpreter start-up; ``in_process_s`` counts from ``import mctslab``."""
    env = dict(os.environ)
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = cache_dir
    start = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", _FIRST_MOVE, game_name],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    wall = time.perf_counter() - start
    return {"wall_s": wall} | json.loads(out.strip().splitlines()[-1])


def first_moves(mode: Mode) -> dict[str, Any]:
    results: dict[str, Any] = {}
    for game_name in GAMES:
        entry: dict[str, Any] = {}
        if game_name in mode.cold_games:
            with tempfile.TemporaryDirectory(prefix="numba-cold-") as cold_dir:
                entry["cold"] = first_move(game_name, cold_dir)
            print(f"  {game_name} cold first move: {entry['cold']['wall_s']:.2f} s", flush=True)
        first_move(game_name, None)  # make sure the normal cache is filled
        runs = [first_move(game_name, None) for _ in range(mode.cached_repeats)]
        entry["cached"] = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
        entry["cached_runs"] = runs
        print(f"  {game_name} cached first move: {entry['cached']['wall_s']:.2f} s", flush=True)
        results[game_name] = entry
    return results


# --- Report -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    name: str
    game: str
    value: float
    goal: float
    higher_is_better: bool = True
    unit: str = "x"

    @property
    def passed(self) -> bool:
        return self.value >= self.goal if self.higher_is_better else self.value <= self.goal

    def to_dict(self) -> dict[str, Any]:
        digits = {"%": 0, "x": 2}.get(self.unit, 1)
        return {
            "name": self.name,
            "shown": f"{self.value:.{digits}f}{self.unit}",
            "game": self.game,
            "value": self.value,
            "target": (">= " if self.higher_is_better else "<= ") + f"{self.goal:g}{self.unit}",
            "passed": self.passed,
        }


def paired_ratio(games: dict[str, Any], game_name: str, a: str, b: str) -> float:
    """Median over repeats of rate ``a`` / rate ``b``, each pair measured seconds apart:
    steadier than the ratio of medians on a machine whose load changes."""
    rates = games[game_name]["rates"]
    if a not in rates or b not in rates:
        return float("nan")
    pairs = zip(rates[a]["per_s"], rates[b]["per_s"], strict=True)
    return statistics.median(x / y for x, y in pairs)


def targets(
    games: dict[str, Any], memory: dict[str, Any], sizes: dict[str, list[dict[str, Any]]]
) -> list[Target]:
    speedup = {"tic_tac_toe": 2.5, "connect_four": 10.0}
    out = [
        Target(
            "compiled / OpenSpiel C++",
            g,
            paired_ratio(games, g, "compiled", "openspiel_cpp"),
            speedup[g],
        )
        for g in GAMES
    ]
    out += [
        Target(f"compiled / OpenSpiel C++ at {row['iterations']:,}", g, row["ratio"], speedup[g])
        for g in GAMES
        for row in sizes.get(g, [])
    ]
    out += [
        Target(
            "compiled / raw playouts",
            g,
            100 * paired_ratio(games, g, "compiled", "raw_playouts"),
            20.0,
            unit="%",
        )
        for g in GAMES
    ]
    out += [
        Target(
            name,
            "connect_four",
            memory.get(key, float("nan")),
            32.0,
            higher_is_better=False,
            unit=" B",
        )
        for name, key in (
            ("bytes per node of capacity", "bytes_per_node_capacity"),
            ("bytes per node created (1M iterations)", "bytes_per_node_created"),
        )
    ]
    out += [
        Target(
            "reference / OpenSpiel Python",
            g,
            paired_ratio(games, g, "reference", "openspiel_python"),
            3.0,
        )
        for g in GAMES
    ]
    return out


def _rule(title: str) -> str:
    return f"\n{title}\n{'-' * len(title)}"


def render_sizes(sizes: dict[str, list[dict[str, Any]]]) -> str:
    """The equal-work table by tree size."""
    lines = [
        _rule("Equal work by tree size: compiled and OpenSpiel C++, same simulations"),
        f"{'game':<14}{'simulations':>12}{'nodes':>11}{'compiled/s':>13}"
        f"{'OpenSpiel/s':>13}{'ratio':>8}",
    ]
    for g, rows in sizes.items():
        for row in rows:
            lines.append(
                f"{g:<14}{row['iterations']:>12,}{row['nodes']:>11,}"
                f"{row['compiled']['median_per_s']:>13,.0f}"
                f"{row['openspiel_cpp']['median_per_s']:>13,.0f}{row['ratio']:>7.2f}x"
            )
    return "\n".join(lines)


def render(report: dict[str, Any]) -> str:
    lines = [
        "mctslab engine benchmark: single thread, initial position, random playouts, "
        f"mctslab c={C} = OpenSpiel uct_c={UCT_C}",
        f"{report['date']}  {report['machine']['cpu_model'] or report['machine']['processor']}  "
        f"{report['machine']['cpu_count']} CPUs  Python {report['versions']['python']}  "
        f"numba {report['versions']['numba']}  open-spiel {report['versions']['open-spiel']}  "
        f"({report['mode']}: medians of {report['repeats']} repeats)",
        _rule("Simulations per second (search time only)"),
        f"{'game':<14}{'engine':<30}{'iterations':>11}{'per second':>13}"
        f"{'min':>12}{'max':>12}  compile/load",
    ]
    for g in GAMES:
        entry = report["games"][g]
        for engine in ENGINE_LABELS:
            if engine == "game_playouts" and engine not in entry["rates"]:
                continue  # the game has no playout kernel
            if engine not in entry["rates"]:
                lines.append(f"{g:<14}{ENGINE_LABELS[engine]:<30}{'not installed':>11}")
                continue
            r = entry["rates"][engine]
            compile_s = ""
            if engine == "compiled":
                compile_s = f"{entry['compiled_compile_seconds']:.3f} s"
            elif engine == "raw_playouts":
                compile_s = f"{entry['raw_playout_compile_seconds']:.3f} s"
            lines.append(
                f"{g:<14}{ENGINE_LABELS[engine]:<30}{r['iterations']:>11,}"
                f"{r['median_per_s']:>13,.0f}{r['min_per_s']:>12,.0f}{r['max_per_s']:>12,.0f}"
                f"  {compile_s}"
            )
        lines.append(
            f"{'':<14}(raw playouts: {entry['mean_playout_plies']:.1f} plies per game "
            "from the initial position)"
        )

    lines.append(render_sizes(report["sizes"]))
    lines.append(render_threads(report["threads"]))

    m = report["memory"]
    slots = f" and {m['capacity_slots']:,} slots" if m["slot_arrays"] else ""
    lines += [
        _rule("Tree memory (compiled engine, connect_four, largest search above)"),
        f"nodes created {m['nodes']:,}; capacity {m['capacity_nodes']:,} nodes{slots}; "
        f"arrays {m['total_bytes'] / 2**20:,.1f} MiB",
        f"bytes per node of capacity   {m['bytes_per_node_capacity']:7.1f}",
        f"bytes per node created       {m['bytes_per_node_created']:7.1f}",
        f"  per-node arrays            {m['node_array_bytes_per_node']:7.1f}"
        f"   ({m['node_arrays']} arrays, one entry per node)",
    ]
    if m["slot_arrays"]:
        lines.append(
            f"  slots in use               {m['slot_bytes_per_node_used']:7.1f}"
            f"   ({m['slot_arrays']} arrays, one entry per legal action of an opened node)"
        )
    lines += [
        f"OpenSpiel C++ SearchNode     {OPENSPIEL_NODE_BYTES:7d}   (constant: sizeof(SearchNode);"
        " all children allocated",
        f"{'':<39}at once; no board stored: the root state is cloned and replayed)",
    ]

    lines.append(_rule("Time to first move (fresh process, 1,000-iteration compiled search)"))
    lines.append(
        f"{'game':<14}{'numba cache':<14}{'process wall':>13}{'in process':>12}{'compile/load':>14}"
    )
    for g, entry in report["first_move"].items():
        for kind in ("cold", "cached"):
            if kind in entry:
                e = entry[kind]
                lines.append(
                    f"{g:<14}{kind:<14}{e['wall_s']:>11.2f} s{e['in_process_s']:>10.2f} s"
                    f"{e['compile_seconds']:>12.2f} s"
                )

    lines.append(_rule("Targets (ratios: median over repeats of paired measurements)"))
    for t in report["targets"]:
        status = "PASS" if t["passed"] else "MISS"
        lines.append(f"{t['name']:<40}{t['game']:<14}{t['shown']:>10}   {t['target']:<10}{status}")
    return "\n".join(lines)


def versions() -> dict[str, str]:
    return common.versions("numba", "numpy", "mctslab", "open-spiel")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer iterations and repeats")
    parser.add_argument("--output", type=Path, default=RESULTS, help="where to write the JSON")
    parser.add_argument(
        "--sizes-only",
        action="store_true",
        help="only the equal-work table by tree size (JSON beside --output, *_by_size.json)",
    )
    parser.add_argument(
        "--playouts-only",
        action="store_true",
        help="only raw playouts, generic loop against each game's own kernel, for "
        "tic-tac-toe, Connect Four, Bohnenspiel and Nim (JSON beside --output, "
        "*_playouts.json)",
    )
    args = parser.parse_args(argv)
    mode = QUICK if args.quick else FULL
    if pyspiel is None:
        print("open-spiel is not installed: its engines are skipped (pip install open-spiel)")
    if args.playouts_only:
        print("measuring raw playouts: the generic loop and each game's own kernel ...")
        report = {
            "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "mode": "quick" if args.quick else "full",
            "repeats": mode.repeats,
            "min_seconds": mode.min_seconds,
            "machine": common.machine(),
            "versions": versions(),
            "games": playout_kernels(mode),
        }
        for g, row in report["games"].items():
            print(
                f"{g:<14}{row['generic_loop']['median_per_s']:>14,.0f}/s"
                f"{row['own_kernel']['median_per_s']:>14,.0f}/s"
                f"{row['ratio_own_over_generic']:>8.2f}x"
            )
        out = args.output.with_name(args.output.stem + "_playouts.json")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(report, indent=2) + "\n")
        print(f"\nresults written to {out}")
        return 0
    if args.sizes_only:
        size_rows, _ = by_size(mode)
        print("measuring root parallelism in threads ...", flush=True)
        threads = thread_scaling(mode.size_repeats)
        report = {
            "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "mode": "quick" if args.quick else "full",
            "machine": common.machine(),
            "versions": versions(),
            "sizes": size_rows,
            "threads": threads,
        }
        print(render_sizes(size_rows))
        print(render_threads(threads))
        out = args.output.with_name(args.output.stem + "_by_size.json")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(report, indent=2) + "\n")
        print(f"\nresults written to {out}")
        return 0

    started = time.perf_counter()
    print("measuring simulations per second ...", flush=True)
    games = {g: measure_game(g, mode) for g in GAMES}
    print("measuring equal work by tree size ...", flush=True)
    size_rows, memory = by_size(mode)
    print("measuring root parallelism in threads ...", flush=True)
    threads = thread_scaling(mode.size_repeats)
    print("measuring the time to the first move ...", flush=True)
    first = first_moves(mode)

    report: dict[str, Any] = {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "mode": "quick" if args.quick else "full",
        "repeats": mode.repeats,
        "machine": common.machine(),
        "versions": versions(),
        "settings": {
            "mctslab_c": C,
            "openspiel_uct_c": UCT_C,
            "expansion": "one",
            "simulation": "random",
            "openspiel_max_memory_mb": OPENSPIEL_MAX_MEMORY_MB,
            "openspiel_rollouts_per_simulation": 1,
        },
        "games": games,
        "sizes": size_rows,
        "threads": threads,
        "memory": memory | {"openspiel_cpp_node_bytes": OPENSPIEL_NODE_BYTES},
        "first_move": first,
    }
    report["targets"] = [t.to_dict() for t in targets(games, memory, size_rows)]
    report["benchmark_seconds"] = time.perf_counter() - started

    print()
    print(render(report))
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n")
    print(f"\nresults written to {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
