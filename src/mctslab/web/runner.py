"""Chunked searches: a search the server can cancel and interleave with others.

Neither engine can be interrupted inside a search, so :func:`run_chunks` spends a
budget as a series of short searches on the kept tree, each in a worker thread,
checking a cancel flag between them; :class:`ChunkedRun` is what it did. The sessions'
searches and the bot service's all run this way.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, replace

import anyio
import anyio.to_thread

from mctslab.core.game import State
from mctslab.search.budget import Budget
from mctslab.search.engine import Searcher
from mctslab.search.mcts import RootChild, SearchConfig, SearchResult, rules_agree

__all__ = ["ChunkedRun", "run_chunks"]


@dataclass(frozen=True)
class ChunkedRun:
    """What :func:`run_chunks` did: the last search's result with the run's totals
    (``None`` if cancelled before any search), the seconds spent searching, why it
    stopped, and the seconds spent compiling the engine's code (or loading it from
    numba's cache) on first use, apart from the search's."""

    result: SearchResult | None
    iterations: int
    seconds: float
    stopped_by: str
    compile_seconds: float = 0.0


def _agree(searcher: Searcher) -> bool:
    """robust-max's test on ``searcher``'s kept tree."""
    return rules_agree([RootChild(*c) for c in searcher.root_children()])


async def run_chunks(
    searcher: Searcher,
    state: State,
    config: SearchConfig,
    *,
    cancel: threading.Event,
    lock: threading.Lock,
    chunk_seconds: float = 0.05,
    limiter: anyio.CapacityLimiter | None = None,
    wall_limit: float | None = None,
) -> ChunkedRun:
    """Spend ``config``'s budget as a series of short searches of ``searcher``'s kept tree,
    each in a worker thread, checking ``cancel`` between them: the engines cannot be
    interrupted inside a search.

    From one position, searches of ``n1``, ``n2``, ... iterations on a kept tree build
    the tree that one search of ``n1 + n2 + ...`` iterations builds (the same root, the
    same generator), so an iteration budget gives exactly the one-search result. A
    time budget counts time spent searching (not time waiting for ``limiter``), in
    slices of ``chunk_seconds``. The search's :class:`~mctslab.search.budget.Budget`
    decides between chunks when to stop, robust-max's extension included (each chunk
    plays robust; the agreement test is made between chunks rather than between
    iterations). Each search holds ``lock``
    (readers of the tree take it too) and a token of ``limiter``: the server's searches
    take turns chunk by chunk.

    ``wall_limit`` bounds the whole run in wall-clock seconds, waits for ``limiter``
    included, whatever the budget: an iteration budget too large for the time (or a
    server too busy) stops there, ``stopped_by`` ``"max_time"`` (the server's cap).
    """
    budget = Budget.of(config)
    robust_max = budget.robust_max
    base = replace(config, final="robust" if robust_max else config.final, reuse_tree=True)
    done, spent, compiling = 0, 0.0, 0.0
    chunk = 64  # iterations of the first chunk under an iteration budget; then adapted
    result: SearchResult | None = None
    started = time.monotonic()
    while True:
        if cancel.is_set():
            stopped_by = "cancelled"
            break
        stop = budget.stop(done, spent, agree=lambda: _agree(searcher))
        if stop is not None:
            stopped_by = stop
            break
        # The cap is on searching: a first move's compilation is not the search's time.
        wall_left = (
            None if wall_limit is None else wall_limit - (time.monotonic() - started - compiling)
        )
        if wall_left is not None and wall_left <= 0:
            stopped_by = "max_time"
            break
        left = budget.iterations_left(done)
        if budget.timed:
            iterations: int | None = left
            slice_: float | None = max(1e-3, min(budget.seconds_left(spent), chunk_seconds))
        else:
            iterations, slice_ = min(chunk, left or chunk), None
        if wall_left is not None and wall_left < chunk_seconds:
            # The last chunk before the cap: a time slice, so that it ends in time.
            slice_ = max(1e-3, wall_left if slice_ is None else min(slice_, wall_left))
        chunk_config = replace(base, iterations=iterations, time=slice_)

        def search_chunk(chunk_config: SearchConfig = chunk_config) -> tuple[SearchResult, float]:
            with lock:
                t0 = time.perf_counter()
                original, searcher.config = searcher.config, chunk_config
                try:
                    return searcher.search(state), time.perf_counter() - t0
                finally:
                    searcher.config = original

        last, seconds = await anyio.to_thread.run_sync(search_chunk, limiter=limiter)
        result = last
        done += last.iterations
        compiling += last.compile_seconds
        spent += max(0.0, seconds - last.compile_seconds)
        if last.stopped_by in ("proven", "nodes"):
            stopped_by = last.stopped_by
            break
        if not budget.timed:  # aim for chunks of about chunk_seconds
            per = seconds / max(1, last.iterations)
            chunk = max(16, min(1 << 20, int(chunk_seconds / max(per, 1e-9))))
    if result is not None:
        rule = result.final_rule
        result = replace(
            result,
            iterations=done,
            seconds=spent,
            sims_per_s=done / spent if spent > 0 else 0.0,
            stopped_by=stopped_by,
            final_rule="robust-max" if robust_max and rule == "robust" else rule,
            compile_seconds=compiling,
        )
    return ChunkedRun(result, done, spent, stopped_by, compiling)
