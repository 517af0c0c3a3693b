"""The compiled engine's chunk loop, in one slice or many: :func:`drive` (what
:meth:`CompiledMCTS.search_steps <mctslab.search.compiled.CompiledMCTS.search_steps>` and
``search`` run) and :func:`in_slices` (``search_slices``, the stepping search of the
:class:`~mctslab.search.engine.Searcher` protocol).

A slice ends between two chunks, once its seconds of search have passed: the chunks of a
sliced search are cut to about a slice's worth of iterations at the search's own rate (a
whole number of PUCT's batches), except under early stop with an iteration budget, whose
chunks (a hundredth of the budget, :meth:`~.driver.CompiledMCTS.advance`) are where early
stop looks: more looks would stop elsewhere than one ``search()``. Cutting chunks changes
nothing else (the budget's other checks are no-ops before the budget is spent, and
robust-max's agreement is looked at every iteration inside a chunk), so that a sliced
search run to its end builds the tree of one ``search()``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from mctslab.search.compiled.options import CHUNK_DONE, ITERATIONS, NEED_EVAL, PENDING
from mctslab.search.evaluators import LeafBatch
from mctslab.search.result import SearchResult, Slices
from mctslab.search.rules import puct_config

if TYPE_CHECKING:
    from mctslab.search.compiled.driver import CompiledMCTS, SearchRun

__all__ = ["drive", "in_slices"]


def in_slices(searcher: CompiledMCTS, run: SearchRun, slice_seconds: float) -> Slices:
    """``run`` (begun by :meth:`~.driver.CompiledMCTS.begin`) in slices of about
    ``slice_seconds`` of search, a result after each; PUCT's leaves go to the searcher's
    evaluator (:meth:`~.driver.CompiledMCTS.evaluate`). A search abandoned between slices
    (``close()``) keeps its tree, counted, for the next one."""
    steps = drive(searcher, run, slice_seconds)
    answer: Any = None
    finished = False
    try:
        while True:
            try:
                out = steps.send(answer)
            except StopIteration as stop:
                finished = True
                yield stop.value
                return
            if isinstance(out, LeafBatch):
                answer = searcher.evaluate(out)
            else:
                answer = yield out  # the next slices' seconds, if the caller sends any
    finally:
        steps.close()
        if not finished:  # the tree as the last chunk left it, for the next search
            searcher.keep_counters(run)


def drive(
    searcher: CompiledMCTS, run: SearchRun, slice_seconds: float | None
) -> Generator[LeafBatch | SearchResult, Any, SearchResult]:
    """The chunk loop of ``run``: it yields each batch of leaves for an evaluator in
    Python (and takes back ``(priors, values)``), and with ``slice_seconds`` an interim
    result whenever that much search has passed since the slice began (and takes back
    the next slices' seconds, or ``None``); it returns the final result. The clock is
    stopped between slices."""
    resumed = False
    end, chunk, first = 0, 64, int(run.ctl[ITERATIONS])
    slice_end = math.inf if slice_seconds is None else time.perf_counter() + slice_seconds
    while True:
        if not resumed:  # a new chunk: it ends ``max_chunk`` iterations from here
            end = int(run.ctl[ITERATIONS]) + _chunk(run, slice_seconds, chunk)
        # A chunk resumed after an evaluation counts its iterations from 0 again: it is
        # given what is left of its own (else a time budget's chunks never end).
        code = run.call(max(1, end - int(run.ctl[ITERATIONS])))
        resumed = code == NEED_EVAL
        if code == NEED_EVAL:
            k = int(run.ctl[PENDING])
            priors, values = yield searcher.leaf_batch(run.pending, k, run.state)
            run.pending.priors[:k] = priors
            run.pending.values[:k] = values
            continue
        stopped_by = searcher.advance(run, code)
        if stopped_by is not None:
            return searcher.finish(run, stopped_by)
        done, now = int(run.ctl[ITERATIONS]), time.perf_counter()
        if code != CHUNK_DONE or slice_seconds is None or done <= first:
            continue
        # Aim the chunks of a slice at the slice's length, at this search's rate.
        per = (now - run.start) / max(1, done)
        chunk = max(16, min(1 << 20, int(slice_seconds / max(per, 1e-9))))
        if now >= slice_end:
            asked = yield searcher.interim(run)
            slice_seconds = slice_seconds if asked is None else asked
            resumed_at = time.perf_counter()
            run.start += resumed_at - now  # the time between slices is not search time
            first, slice_end = done, resumed_at + slice_seconds


def _chunk(run: SearchRun, slice_seconds: float | None, chunk: int) -> int:
    """The iterations of the next chunk: :meth:`~.driver.SearchRun.max_chunk`, cut to
    ``chunk`` when the search is sliced (see the module docstring)."""
    limit = run.max_chunk()
    budget = run.budget
    if slice_seconds is None or (budget.early_stop and not budget.timed):
        return limit
    batch = puct_config(run.config).batch if run.config.rule.evaluated else 1
    if batch > 1:
        chunk = max(batch, chunk - chunk % batch)
    return min(limit, chunk)
