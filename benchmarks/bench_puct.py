"""PUCT benchmark: the compiled engine's PUCT against UCT, DeepMind's mctx, and a network.

Run ``python benchmarks/bench_puct.py [--quick]`` (or ``make bench``). Everything searches
Connect Four from the empty board, in one process, and measures:

1. **Search overhead** of the compiled engine (``CompiledMCTS``): simulations per second
   of PUCT with the built-in ``"uniform"`` evaluator (uniform priors, value 0: no
   playout, the search's own cost) and ``"uniform+rollout"`` (uniform priors, one random
   playout), against compiled UCT (``SearchConfig(c=1.0)``) at the same simulation counts
   (10k and 100k), the three taking turns within each repeat; ratios PUCT / UCT.
2. **Against mctx** (``mctx.muzero_policy``, jitted, on jax's CPU backend): ``B``
   independent searches of ``N`` simulations each (mctx's batch), with a trivial
   ``recurrent_fn`` (uniform logits, value 0, reward 0, discount -1, an integer counter
   as the embedding), timed after a warm-up call with ``block_until_ready``. Our side does
   the same work: ``B`` searches of ``N`` simulations with ``PuctConfig(batch=1)`` (one
   leaf per search per round, as in mctx) stepped together by ``search_many``, so that one
   evaluator call serves all ``B`` searches each round; once with a trivial evaluator
   written in Python (uniform priors over the legal mask, value 0: the round trip to
   Python that a network evaluator pays) and once with the built-in ``"uniform"``
   evaluator (no round trip: the searches run one after another in compiled code).
   Simulations per second = ``B * N / wall seconds``. **The games differ**: mctx's toy
   environment has no rules (every action is legal forever, nothing ends), while ours
   plays Connect Four's rules (legal moves, wins, full columns, terminal nodes), and the
   trees differ in shape (mctx's min-max value transform against our ``fpu=0``).
   Target from the issue: compiled PUCT >= 3x mctx's simulations per second at every
   batch size.
3. **With a network**: a small residual convolutional net over Connect Four's observation
   tensor (3x6x7; a 32-channel stem, 3 residual blocks of 32 channels, a policy head of 7
   logits and a ``tanh`` value head), passed as ``PuctConfig(evaluator=net)`` (a
   ``TorchEvaluator``), ``B`` = 64 and 256 searches through ``search_many`` with
   ``batch=1`` each (each evaluator call sees up to ``B`` leaves). It reports the total
   time, the time inside the network's ``forward``, inside the evaluator around it
   (tensor conversion, masking, softmax) and elsewhere (the searches, stepping them and
   batching their leaves in Python); target: the share of time outside the network
   <= 20% at ``B >= 64``. ``torch.set_num_threads`` is set to the machine's cores. The
   searches share one timed ``TorchEvaluator`` of the net (``PuctConfig(evaluator=net)``
   would build one per searcher, at each search's start: that cost is measured apart).

Ratios are printed against their targets with PASS/MISS, and the run always exits 0:
benchmarks record, tests assert. The numbers go to ``benchmarks/results/puct.json``
with the date, the machine and the versions of mctslab, numba, jax, mctx and torch.
"""

from __future__ import annotations

import argparse
import datetime as dt
import functools
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import common
import numpy as np

import mctslab
from mctslab.search.compiled import CompiledMCTS, search_many
from mctslab.search.config import SearchConfig
from mctslab.search.evaluators import LeafBatch, TorchEvaluator
from mctslab.search.puct import PuctConfig

try:
    import jax
    import jax.numpy as jnp
    import mctx
except ImportError:  # pragma: no cover - installed beside the dev extras
    jax = jnp = mctx = None
try:
    import torch
    from torch import nn
except ImportError:  # pragma: no cover - the nn extra installs it
    torch = nn = None

GAME = "connect_four"
NUM_ACTIONS = 7
UCT_C = 1.0  # bench_engines.py's constant for UCT on [0, 1] rewards
PUCT_C = 1.25  # mctx's pb_c_init and PuctConfig's default: the same rule on both sides
RESULTS = Path(__file__).resolve().parent / "results" / "puct.json"


@dataclass(frozen=True)
class Mode:
    """How hard to measure: ``--quick`` shrinks the counts and repeats once."""

    overhead_sizes: tuple[int, ...]
    overhead_repeats: int
    min_seconds: float  # each measurement repeats its work until at least this long
    batches: tuple[int, ...]
    simulations: tuple[int, ...]
    mctx_repeats: int
    net_batches: tuple[int, ...]
    net_simulations: int
    net_repeats: int


FULL = Mode(
    overhead_sizes=(10_000, 100_000),
    overhead_repeats=3,
    min_seconds=0.5,
    batches=(1, 16, 256),
    simulations=(200, 800),
    mctx_repeats=3,
    net_batches=(64, 256),
    net_simulations=200,
    net_repeats=2,
)
QUICK = Mode(
    overhead_sizes=(10_000,),
    overhead_repeats=1,
    min_seconds=0.2,
    batches=(1, 16, 256),
    simulations=(100,),
    mctx_repeats=1,
    net_batches=(64, 256),
    net_simulations=16,
    net_repeats=1,
)


@dataclass
class Rates:
    """Repeated measurements of one rate (simulations per second)."""

    simulations: int  # per measured call
    rates: list[float] = field(default_factory=list)

    def measure(self, run: Callable[[int], float], min_seconds: float) -> float:
        """Call ``run(seed)`` (it returns its seconds) until ``min_seconds``; add the rate."""
        seconds, calls = 0.0, 0
        while calls == 0 or seconds < min_seconds:
            seconds += run(1000 * len(self.rates) + calls)
            calls += 1
        self.rates.append(calls * self.simulations / seconds)
        return self.rates[-1]

    @property
    def median(self) -> float:
        return statistics.median(self.rates) if self.rates else float("nan")

    def to_dict(self) -> dict[str, Any]:
        return {
            "simulations_per_call": self.simulations,
            "median_per_s": self.median,
            "min_per_s": min(self.rates, default=float("nan")),
            "max_per_s": max(self.rates, default=float("nan")),
            "per_s": self.rates,
        }


def paired(a: Rates, b: Rates) -> float:
    """Median over repeats of ``a / b``, each pair measured seconds apart: steadier than
    the ratio of medians on a machine whose load changes."""
    pairs = list(zip(a.rates, b.rates, strict=False))
    return statistics.median(x / y for x, y in pairs) if pairs else float("nan")


def root_state() -> Any:
    return mctslab.make(GAME).new_initial_state()


# --- 1. Search overhead: PUCT with built-in evaluators against UCT ----------------------

OVERHEAD_ENGINES = {
    "uct": "UCT c=1.0, random playout",
    "puct_uniform": 'PUCT "uniform" (no playout)',
    "puct_rollout": 'PUCT "uniform+rollout"',
}


def overhead_config(engine: str, n: int, seed: int) -> SearchConfig:
    if engine == "uct":
        return SearchConfig(c=UCT_C, iterations=n, seed=seed)
    evaluator = "uniform" if engine == "puct_uniform" else "uniform+rollout"
    return SearchConfig(iterations=n, seed=seed, puct=PuctConfig(c=PUCT_C, evaluator=evaluator))


def overhead_search(state: Any, engine: str, n: int, nodes: dict[str, int], seed: int) -> float:
    """Search time of one search (``SearchResult.seconds``); records its tree's nodes."""
    searcher = CompiledMCTS(overhead_config(engine, n, seed))
    result = searcher.search(state)
    assert result.iterations == n
    nodes[engine] = searcher.nodes
    return result.seconds


def overhead(mode: Mode) -> list[dict[str, Any]]:
    """Each engine at each size, in turns within each repeat; search time only
    (``SearchResult.seconds``, as in ``bench_engines.py``)."""
    state = root_state()
    rows = []
    for n in mode.overhead_sizes:
        rates = {e: Rates(n) for e in OVERHEAD_ENGINES}
        nodes: dict[str, int] = {}

        for engine in OVERHEAD_ENGINES:  # the first search compiles or loads numba's cache
            overhead_search(state, engine, n, nodes, 0)
        for r in range(mode.overhead_repeats):
            for engine in OVERHEAD_ENGINES:
                run = functools.partial(overhead_search, state, engine, n, nodes)
                rate = rates[engine].measure(run, mode.min_seconds)
                print(f"  {n:,} simulations {engine} repeat {r + 1}: {rate:,.0f}/s", flush=True)
        rows.append(
            {
                "simulations": n,
                "nodes": dict(nodes),
                "rates": {e: rates[e].to_dict() for e in OVERHEAD_ENGINES},
                "ratio_uniform_over_uct": paired(rates["puct_uniform"], rates["uct"]),
                "ratio_rollout_over_uct": paired(rates["puct_rollout"], rates["uct"]),
            }
        )
    return rows


# --- 2. Against mctx: B independent searches of N simulations ----------------------------


def mctx_recurrent_fn(params: Any, rng_key: Any, action: Any, embedding: Any) -> Any:
    """No rules, no knowledge: uniform logits, value 0, reward 0, discount -1 (the
    players alternate); the embedding counts the steps below the root."""
    b = action.shape[0]
    out = mctx.RecurrentFnOutput(
        reward=jnp.zeros(b, jnp.float32),
        discount=-jnp.ones(b, jnp.float32),
        prior_logits=jnp.zeros((b, NUM_ACTIONS), jnp.float32),
        value=jnp.zeros(b, jnp.float32),
    )
    return out, embedding + 1


@functools.partial(jax.jit if jax is not None else (lambda f, **_: f), static_argnums=(2,))
def mctx_search(rng_key: Any, embedding: Any, num_simulations: int) -> Any:
    """``mctx.muzero_policy`` from a root with the same trivial output."""
    b = embedding.shape[0]
    root = mctx.RootFnOutput(
        prior_logits=jnp.zeros((b, NUM_ACTIONS), jnp.float32),
        value=jnp.zeros(b, jnp.float32),
        embedding=embedding,
    )
    return mctx.muzero_policy(
        params=(),
        rng_key=rng_key,
        root=root,
        recurrent_fn=mctx_recurrent_fn,
        num_simulations=num_simulations,
        pb_c_init=PUCT_C,
    )


def run_mctx(b: int, n: int, seed: int) -> float:
    embedding = jnp.zeros(b, jnp.int32)
    key = jax.random.PRNGKey(seed)
    start = time.perf_counter()
    out = jax.block_until_ready(mctx_search(key, embedding, n))
    seconds = time.perf_counter() - start
    assert int(out.search_tree.node_visits[0, 0]) == n + 1
    return seconds


def uniform_in_python(batch: LeafBatch) -> tuple[np.ndarray, np.ndarray]:
    """The trivial evaluator, in Python: uniform priors over the legal moves, value 0."""
    mask = batch.legal_mask.astype(np.float64)
    return mask / mask.sum(axis=1, keepdims=True), np.zeros(len(mask))


def run_many(evaluator: Any, b: int, n: int, seed: int) -> float:
    """Wall seconds of ``b`` PUCT searches of ``n`` simulations, stepped by ``search_many``
    (the searchers are made before the clock starts)."""
    state = root_state()
    searchers = [
        CompiledMCTS(
            SearchConfig(
                iterations=n,
                seed=seed + i,
                puct=PuctConfig(c=PUCT_C, evaluator=evaluator, batch=1),
            )
        )
        for i in range(b)
    ]
    start = time.perf_counter()
    results = search_many(searchers, [state] * b)
    seconds = time.perf_counter() - start
    assert len(results) == b and all(r.iterations == n for r in results)
    return seconds


MCTX_SIDES = {
    "mctx": "mctx muzero_policy (jit)",
    "python_eval": "mctslab, evaluator in Python",
    "builtin_uniform": 'mctslab, built-in "uniform"',
}


def against_mctx(mode: Mode) -> list[dict[str, Any]]:
    """mctx and both of our sides at each (B, N), in turns within each repeat."""
    rows = []
    for n in mode.simulations:
        for b in mode.batches:
            runs: dict[str, Callable[[int], float]] = {
                "mctx": functools.partial(run_mctx, b, n),
                "python_eval": functools.partial(run_many, uniform_in_python, b, n),
                "builtin_uniform": functools.partial(run_many, "uniform", b, n),
            }
            if mctx is None:
                del runs["mctx"]
            start = time.perf_counter()
            for run in runs.values():  # warm-up: jit compilation, numba's cache
                run(0)
            warmup = time.perf_counter() - start
            rates = {side: Rates(b * n) for side in runs}
            for _ in range(mode.mctx_repeats):
                for side, run in runs.items():
                    rates[side].measure(run, mode.min_seconds)
            row: dict[str, Any] = {
                "batch": b,
                "simulations": n,
                "warmup_seconds": warmup,
                "rates": {side: r.to_dict() for side, r in rates.items()},
            }
            if "mctx" in rates:
                row["ratio_python_eval_over_mctx"] = paired(rates["python_eval"], rates["mctx"])
                row["ratio_builtin_over_mctx"] = paired(rates["builtin_uniform"], rates["mctx"])
            print(
                f"  B={b} N={n}: "
                + ", ".join(f"{side} {r.median:,.0f}/s" for side, r in rates.items()),
                flush=True,
            )
            rows.append(row)
    return rows


# --- 3. With a network: where the time goes ----------------------------------------------


def make_net() -> Any:
    """A small AlphaZero-style net for Connect Four: a stem, 3 residual blocks of 32
    channels, (7 policy logits, tanh value) (``mctslab.nn.networks.make_network``)."""
    from mctslab.nn.networks import make_network

    return make_network(mctslab.make(GAME), channels=32, blocks=3, hidden=64, seed=0)


def timed_module(net: Any) -> Any:
    """``net`` behind a module that adds up the seconds spent in its ``forward`` (torch
    on the CPU runs synchronously: the clock around the call is the network's time)."""

    class Timed(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = net
            self.seconds = 0.0
            self.calls = 0
            self.rows = 0

        def forward(self, x: Any) -> Any:
            start = time.perf_counter()
            out = self.net(x)
            self.seconds += time.perf_counter() - start
            self.calls += 1
            self.rows += int(x.shape[0])
            return out

    return Timed()


class TimedEvaluator:
    """A ``TorchEvaluator`` whose calls are timed (forward, conversions, softmax)."""

    rollout = False
    name = "timed torch"

    def __init__(self, inner: TorchEvaluator) -> None:
        self.inner = inner
        self.seconds = 0.0

    def evaluate(self, batch: LeafBatch) -> tuple[Any, Any]:
        start = time.perf_counter()
        out = self.inner.evaluate(batch)
        self.seconds += time.perf_counter() - start
        return out


def with_network(mode: Mode) -> dict[str, Any]:
    """``B`` searches with the network as their evaluator; where their time goes."""
    threads = os.cpu_count() or 1
    torch.set_num_threads(threads)
    net = timed_module(make_net())
    timer = TimedEvaluator(TorchEvaluator(net))
    state = root_state()
    n = mode.net_simulations
    rows = []
    for b in mode.net_batches:
        # Warm-up: numba's cache, and oneDNN's kernels for this batch size.
        net.net.eval()
        with torch.inference_mode():
            for _ in range(3):
                net.net(torch.zeros((b, 3, 6, 7)))
        config = SearchConfig(iterations=8, puct=PuctConfig(c=PUCT_C, evaluator=timer, batch=1))
        search_many([CompiledMCTS(config) for _ in range(b)], [state] * b)
        # What PuctConfig(evaluator=net) adds: each searcher wraps the module itself.
        start = time.perf_counter()
        for _ in range(b):
            TorchEvaluator(net)
        wrap_seconds = time.perf_counter() - start
        runs = []
        for r in range(mode.net_repeats):
            searchers = [
                CompiledMCTS(
                    SearchConfig(
                        iterations=n,
                        seed=100 * r + i,
                        puct=PuctConfig(c=PUCT_C, evaluator=timer, batch=1),
                    )
                )
                for i in range(b)
            ]
            net.seconds, net.calls, net.rows, timer.seconds = 0.0, 0, 0, 0.0
            start = time.perf_counter()
            results = search_many(searchers, [state] * b)
            total = time.perf_counter() - start
            assert all(res.iterations == n for res in results)
            run = {
                "total_seconds": total,
                "forward_seconds": net.seconds,
                "evaluator_seconds": timer.seconds,
                "evaluator_calls": net.calls,
                "mean_leaves_per_call": net.rows / max(1, net.calls),
                "simulations_per_s": b * n / total,
                "outside_network_share": 1.0 - net.seconds / total,
                "evaluator_wrapper_share": (timer.seconds - net.seconds) / total,
                "search_share": (total - timer.seconds) / total,
            }
            runs.append(run)
            print(
                f"  B={b} N={n} repeat {r + 1}: {total:.2f} s, network "
                f"{net.seconds / total:.0%}, outside {run['outside_network_share']:.0%}",
                flush=True,
            )
        best = min(runs, key=lambda x: x["outside_network_share"])
        median = {
            k: statistics.median(run[k] for run in runs)
            for k in runs[0]
            if isinstance(runs[0][k], float)
        }
        rows.append(
            {
                "batch": b,
                "simulations": n,
                "median": median,
                "best": best,
                "runs": runs,
                "per_searcher_torch_evaluators_seconds": wrap_seconds,
            }
        )
    return {
        "torch_threads": threads,
        "network": "3x6x7 -> conv 32 -> 3 residual blocks (32 ch) -> 7 logits, tanh value",
        "parameters": sum(p.numel() for p in net.parameters()),
        "rows": rows,
    }


# --- Report -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    name: str
    value: float
    goal: float
    higher_is_better: bool = True
    unit: str = "x"

    @property
    def passed(self) -> bool:
        return self.value >= self.goal if self.higher_is_better else self.value <= self.goal

    def to_dict(self) -> dict[str, Any]:
        shown = f"{100 * self.value:.0f}%" if self.unit == "%" else f"{self.value:.2f}x"
        goal = f"{100 * self.goal:.0f}%" if self.unit == "%" else f"{self.goal:g}x"
        return {
            "name": self.name,
            "shown": shown,
            "value": self.value,
            "target": (">= " if self.higher_is_better else "<= ") + goal,
            "passed": self.passed,
        }


def targets(report: dict[str, Any]) -> list[Target]:
    out = []
    for row in report["mctx"]:
        at = f"B={row['batch']} N={row['simulations']}"
        if "ratio_python_eval_over_mctx" in row:
            out.append(
                Target(f"Python evaluator / mctx, {at}", row["ratio_python_eval_over_mctx"], 3)
            )
            out.append(
                Target(f'built-in "uniform" / mctx, {at}', row["ratio_builtin_over_mctx"], 3)
            )
    if report["network"] is not None:
        for row in report["network"]["rows"]:
            out.append(
                Target(
                    f"time outside the network, B={row['batch']}",
                    row["median"]["outside_network_share"],
                    0.20,
                    higher_is_better=False,
                    unit="%",
                )
            )
    return out


def _rule(title: str) -> str:
    return f"\n{title}\n{'-' * len(title)}"


def render(report: dict[str, Any]) -> str:
    m, v = report["machine"], report["versions"]
    lines = [
        "mctslab PUCT benchmark: Connect Four from the empty board",
        f"{report['date']}  {m['cpu_model'] or m['processor']}  {m['cpu_count']} CPUs  "
        f"Python {v['python']}  mctslab {v['mctslab']}  numba {v['numba']}  jax {v['jax']}  "
        f"mctx {v['mctx']}  torch {v['torch']}  ({report['mode']})",
        "load average (1 min) before {:.1f}, after {:.1f}: other processes slow every "
        "number here".format(
            report["load_average_1_5_15_min"]["before"][0],
            report["load_average_1_5_15_min"]["after"][0],
        ),
        _rule("1. Search overhead: compiled engine, search time only (medians)"),
        f"{'simulations':>11}  {'engine':<30}{'nodes':>9}{'per second':>13}"
        f"{'min':>12}{'max':>12}{'/ UCT':>8}",
    ]
    for row in report["overhead"]:
        uct = row["rates"]["uct"]["per_s"]
        for engine, label in OVERHEAD_ENGINES.items():
            r = row["rates"][engine]
            ratio = statistics.median(a / b for a, b in zip(r["per_s"], uct, strict=False))
            lines.append(
                f"{row['simulations']:>11,}  {label:<30}{row['nodes'][engine]:>9,}"
                f"{r['median_per_s']:>13,.0f}{r['min_per_s']:>12,.0f}{r['max_per_s']:>12,.0f}"
                f"{ratio:>7.2f}x"
            )
    lines += [
        _rule("2. B independent searches of N simulations: simulations/s (wall, medians)"),
        "mctx: no rules (toy environment, nothing ends); mctslab: Connect Four's rules. "
        "mctslab runs batch=1 per search",
        "and search_many: one evaluator call a round for all B searches.",
        f"{'B':>4}{'N':>5}{'mctx':>11}{'Python eval':>13}{'/ mctx':>8}"
        f"{'built-in':>12}{'/ mctx':>8}{'warm-up':>10}",
    ]
    for row in report["mctx"]:
        r = row["rates"]
        mctx_rate = r["mctx"]["median_per_s"] if "mctx" in r else float("nan")
        lines.append(
            f"{row['batch']:>4}{row['simulations']:>5}{mctx_rate:>11,.0f}"
            f"{r['python_eval']['median_per_s']:>13,.0f}"
            f"{row.get('ratio_python_eval_over_mctx', float('nan')):>7.2f}x"
            f"{r['builtin_uniform']['median_per_s']:>12,.0f}"
            f"{row.get('ratio_builtin_over_mctx', float('nan')):>7.2f}x"
            f"{row['warmup_seconds']:>8.1f} s"
        )
    net = report["network"]
    if net is not None:
        lines += [
            _rule("3. With a network: B searches, batch=1 each, one evaluator call a round"),
            f"{net['network']}, {net['parameters']:,} parameters; "
            f"torch.set_num_threads({net['torch_threads']}) (the machine's cores)",
            f"{'B':>4}{'N':>5}{'total':>9}{'sims/s':>9}{'leaves/call':>13}{'network':>9}"
            f"{'evaluator':>11}{'search':>8}{'outside network':>17}",
        ]
        for row in net["rows"]:
            md = row["median"]
            lines.append(
                f"{row['batch']:>4}{row['simulations']:>5}{md['total_seconds']:>7.2f} s"
                f"{md['simulations_per_s']:>9,.0f}"
                f"{md['mean_leaves_per_call']:>13.1f}"
                f"{1 - md['outside_network_share']:>9.0%}"
                f"{md['evaluator_wrapper_share']:>11.0%}{md['search_share']:>8.0%}"
                f"{md['outside_network_share']:>17.0%}"
            )
        lines += [
            "network: inside forward; evaluator: TorchEvaluator around it (tensors, mask, "
            "softmax); search: the rest",
            "(compiled descents, stepping the searches, batching). One TorchEvaluator "
            "shared by the B searches;",
            "PuctConfig(evaluator=net) would build one per searcher: "
            + ", ".join(
                f"{1000 * row['per_searcher_torch_evaluators_seconds']:.0f} ms for B={row['batch']}"
                for row in net["rows"]
            )
            + " (not in the totals).",
        ]
    lines.append(_rule("Targets (ratios: median over repeats of paired measurements)"))
    for t in report["targets"]:
        status = "PASS" if t["passed"] else "MISS"
        lines.append(f"{t['name']:<44}{t['shown']:>9}   {t['target']:<9}{status}")
    return "\n".join(lines)


def versions() -> dict[str, str]:
    return common.versions("mctslab", "numba", "numpy", "jax", "jaxlib", "mctx", "torch")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller counts, one repeat")
    parser.add_argument("--output", type=Path, default=RESULTS, help="where to write the JSON")
    args = parser.parse_args(argv)
    mode = QUICK if args.quick else FULL
    if mctx is None:
        print("mctx/jax are not installed: the mctx side is skipped (pip install mctx)")
    if torch is None:
        print("torch is not installed: the network section is skipped (pip install torch)")

    started = time.perf_counter()
    load_before = os.getloadavg()
    print("1. search overhead: PUCT against UCT ...", flush=True)
    over = overhead(mode)
    print("2. B independent searches: mctx and search_many ...", flush=True)
    against = against_mctx(mode)
    print("3. with a network ...", flush=True)
    network = with_network(mode) if torch is not None else None

    report: dict[str, Any] = {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "mode": "quick" if args.quick else "full",
        "machine": common.machine(),
        "versions": versions(),
        "settings": {
            "game": GAME,
            "uct_c": UCT_C,
            "puct_c": PUCT_C,
            "mctx_policy": "muzero_policy (defaults but pb_c_init), jit, jax CPU",
            "mctx_environment": "no rules: uniform logits, value 0, reward 0, discount -1",
            "mctslab_environment": "Connect Four's rules",
            "puct_batch": 1,
            "overhead_repeats": mode.overhead_repeats,
            "mctx_repeats": mode.mctx_repeats,
            "net_repeats": mode.net_repeats,
            "min_seconds": mode.min_seconds,
        },
        # Another process on the machine slows everything, torch's threads most.
        "load_average_1_5_15_min": {"before": load_before, "after": os.getloadavg()},
        "overhead": over,
        "mctx": against,
        "network": network,
    }
    report["targets"] = [t.to_dict() for t in targets(report)]
    report["benchmark_seconds"] = time.perf_counter() - started

    print()
    print(render(report))
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n")
    print(f"\nresults written to {args.output} ({report['benchmark_seconds']:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
