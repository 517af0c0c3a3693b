"""Chunked searches: a search the server can cancel and interleave with others.

Neither engine can be interrupted inside a chunk of compiled code or an iteration, so
:func:`run_chunks` runs the engine's search in slices
(:meth:`~mctslab.search.engine.Searcher.search_slices`), each slice in a worker thread,
checking a cancel flag between them; :class:`ChunkedRun` is what it did. The engine
owns the loop: its budget (early stop with the lead, robust-max's extension, the caps)
is judged across slices as one search judges it. The sessions' searches and the bot
service's all run this way.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, replace

import anyio
import anyio.to_thread

from mctslab.core.game import State
from mctslab.search.budget import SLICE
from mctslab.search.config import SearchConfig
from mctslab.search.engine import Searcher
from mctslab.search.result import SearchResult

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
    """Spend ``config``'s budget in one search of ``searcher``'s kept tree, run in slices
    of ``chunk_seconds`` of search (:meth:`~mctslab.search.engine.Searcher.search_slices`),
    each in a worker thread, checking ``cancel`` between them: the engines cannot be
    interrupted inside a slice.

    The search is the engine's, budget and all: an iteration budget gives exactly the
    result of one ``search()`` of ``config`` (the same tree from the same seed), early
    stop and robust-max included; a time budget counts time spent searching (not time
    waiting for ``limiter``). The tree is reused from the searcher's last search (the
    sessions' runs of iterations add up). Each slice holds ``lock`` (readers of the tree
    take it too) and a token of ``limiter``: the server's searches take turns slice by
    slice.

    ``wall_limit`` bounds the whole run in wall-clock seconds, waits for ``limiter``
    included, whatever the budget: an iteration budget too large for the time (or a
    server too busy) stops there, ``stopped_by`` ``"max_time"`` (the server's cap); the
    slice before the cap is cut to end at it.
    """
    slices = searcher.search_slices(
        state, config=replace(config, reuse_tree=True), slice_seconds=chunk_seconds
    )
    result: SearchResult | None = None
    started = time.monotonic()
    compiling = 0.0
    try:
        while True:
            if cancel.is_set():
                stopped_by = "cancelled"
                break
            # The cap is on searching: a first move's compilation is not the search's time.
            wall_left = (
                None
                if wall_limit is None
                else wall_limit - (time.monotonic() - started - compiling)
            )
            if wall_left is not None and wall_left <= 0:
                stopped_by = "max_time"
                break
            seconds = None
            if wall_left is not None and wall_left < chunk_seconds:
                seconds = max(1e-3, wall_left)  # the last slice before the cap ends at it

            def next_slice(
                seconds: float | None = seconds, first: bool = result is None
            ) -> SearchResult:
                with lock:  # the first slice starts the search, the others go on with it
                    return next(slices) if first else slices.send(seconds)

            last = await anyio.to_thread.run_sync(next_slice, limiter=limiter)
            result, compiling = last, last.compile_seconds
            if last.stopped_by != SLICE:
                stopped_by = last.stopped_by
                break
    finally:
        slices.close()  # a search abandoned between slices keeps its tree as it is
    if result is None:
        return ChunkedRun(None, 0, 0.0, stopped_by)
    result = replace(result, stopped_by=stopped_by)
    return ChunkedRun(result, result.iterations, result.seconds, stopped_by, compiling)
