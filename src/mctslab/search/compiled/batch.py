"""Many PUCT searches stepped together, one evaluator call a round (:func:`search_many`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np
from numba.typed import List as TypedList

from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import State
from mctslab.search.compiled.driver import CompiledMCTS, _Run, puct_round_fn
from mctslab.search.compiled.options import (
    EVALUATOR_CODES,
    ITERATIONS,
    NEED_EVAL,
    NEED_SPACE,
    PENDING,
)
from mctslab.search.compiled.puct_chunk import Pending
from mctslab.search.evaluators import LeafBatch, check_output, make_evaluator
from mctslab.search.mcts import SearchResult


def search_many(
    searchers: Sequence[CompiledMCTS],
    states: Sequence[State],
    evaluator: Any = None,
) -> list[SearchResult]:
    """Several PUCT searches stepped together, one evaluator call a round for all of them
    (as mctx batches independent searches): each round, every search that waits for its
    leaves' evaluation adds its batch; the batches go to the evaluator as one
    :class:`~mctslab.search.evaluators.LeafBatch` and the answers back to each search.
    ``evaluator``: a spec as ``PuctConfig.evaluator`` takes it, by default the first
    searcher's. Each search makes the same choices as it would alone (its own tree,
    generator and budget), so results equal ``[s.search(x) for s, x in zip(...)]``.

    Searches of one game and one config with an iteration budget run each round in one
    compiled call (:func:`run_puct_round`); others are stepped one by one
    (:meth:`CompiledMCTS.search_steps`).
    """
    if len(searchers) != len(states):
        raise InvalidConfigError(
            f"search_many: {len(searchers)} searchers for {len(states)} states"
        )
    if rounds_apply(searchers, states):
        return search_rounds(searchers, states, evaluator)
    return search_stepped(searchers, states, evaluator)


def rounds_apply(searchers: Sequence[CompiledMCTS], states: Sequence[State]) -> bool:
    """Whether :func:`search_rounds` can run these searches: one config but the seed
    (PUCT with an evaluator in Python, an iteration budget, no robust-max extension) and
    one game."""
    if not searchers:
        return False
    config = searchers[0].config
    puct = config.puct
    game = getattr(states[0], "game", None)
    return (
        puct is not None
        and not (isinstance(puct.evaluator, str) and puct.evaluator in EVALUATOR_CODES)
        and config.time is None
        and config.iterations is not None
        and config.final != "robust-max"
        and all(dataclasses.replace(s.config, seed=config.seed) == config for s in searchers)
        and all(getattr(x, "game", None) is game for x in states)
    )


def search_rounds(
    searchers: Sequence[CompiledMCTS], states: Sequence[State], evaluator: Any
) -> list[SearchResult]:
    """:func:`search_many` with one compiled call a round for every search."""
    runs = [s._start(x, None) for s, x in zip(searchers, states, strict=True)]
    first = runs[0]
    b = len(runs)
    # The searches' own arrays, stacked, each search keeping a view of its row.
    fields = Pending._fields
    pend = Pending(*(np.stack([getattr(r.pending, f) for r in runs]) for f in fields))
    ctls = np.stack([r.ctl for r in runs])
    rngs = np.stack([s.rng for s in searchers])
    root_priors = np.stack([r.root_prior for r in runs])
    root_states = np.stack([r.root_state for r in runs])
    capacities = np.stack([r.capacity for r in runs])
    for j, (r, s) in enumerate(zip(runs, searchers, strict=True)):
        r.pending = Pending(*(getattr(pend, f)[j] for f in fields))
        r.ctl, r.root_prior, r.capacity = ctls[j], root_priors[j], capacities[j]
        s.rng = rngs[j]
    trees, extras = TypedList(), TypedList()
    for s in searchers:
        trees.append(s.tree)
        extras.append(s._extra)
    round_fn = puct_round_fn(first.kernels)
    codes = np.zeros(b, dtype=np.int64)
    for j, s in enumerate(searchers):
        assert s.tree is not None
        capacities[j, 0] = len(s.tree.first_child)
    budget = first.searcher.config.iterations
    assert budget is not None
    game: Any = getattr(states[0], "game", None)
    shape = game.observation_shape() if first.kernels.observation is not None else None
    results: list[SearchResult | None] = [None] * b
    chosen = None if evaluator is None else make_evaluator(evaluator)
    try:
        while True:
            # The iteration budget's rest (no robust-max extension here: see rounds_apply).
            max_chunks = budget - ctls[:, ITERATIONS]
            round_fn(
                trees, extras, root_priors, root_states, first.params, first.cfg_i,
                first.cfg_f, ctls, rngs, first.bufs, first.fbufs, pend, capacities,
                max_chunks, codes,
            )  # fmt: skip
            waiting = np.flatnonzero(codes == NEED_EVAL).tolist()
            for j in np.flatnonzero((codes >= 0) & (codes != NEED_EVAL)).tolist():
                r, code = runs[j], int(codes[j])
                stopped_by = searchers[j]._after_chunk(r, code)
                if stopped_by is not None:
                    results[j] = searchers[j]._finish(r, stopped_by)
                    codes[j] = -1
                elif code == NEED_SPACE:
                    grown = searchers[j].tree
                    assert grown is not None
                    trees[j], extras[j] = grown, searchers[j]._extra
                    capacities[j, 0] = len(grown.first_child)
            if waiting:
                batch = round_batch(searchers, states, runs, pend, ctls, waiting, shape)
                if chosen is None:
                    chosen = searchers[waiting[0]]._evaluator
                raw_priors, raw_values = chosen.evaluate(batch)
                priors, values = check_output(raw_priors, raw_values, batch.legal_mask)
                counts = ctls[waiting, PENDING]
                if np.all(counts == 1):
                    pend.priors[waiting, 0] = priors
                    pend.values[waiting, 0] = values
                else:
                    at = 0
                    for j, k in zip(waiting, counts.tolist(), strict=True):
                        pend.priors[j, :k] = priors[at : at + k]
                        pend.values[j, :k] = values[at : at + k]
                        at += k
            elif np.all(codes < 0):
                break
    finally:
        for s in searchers:
            s.rng = s.rng.copy()  # its own word again, not a view of the stack
    return [r for r in results if r is not None]


def round_batch(
    searchers: Sequence[CompiledMCTS],
    states: Sequence[State],
    runs: Sequence[_Run],
    pend: Pending,
    ctls: Any,
    waiting: list[int],
    shape: tuple[int, ...] | None,
) -> LeafBatch:
    """The waiting searches' leaves as one :class:`LeafBatch`, read from the stacked
    pending rows (one leaf each, the usual case, by one fancy index)."""
    counts = ctls[waiting, PENDING]
    pairs = list(zip(waiting, counts.tolist(), strict=True))
    if np.all(counts == 1):
        rows: Any = np.asarray(waiting)
        masks, to_play = pend.masks[rows, 0], pend.to_play[rows, 0]
        observations = pend.observations[rows, 0] if shape is not None else None
    else:
        masks = np.concatenate([pend.masks[j, :k] for j, k in pairs])
        to_play = np.concatenate([pend.to_play[j, :k] for j, k in pairs])
        observations = None
        if shape is not None:
            observations = np.concatenate([pend.observations[j, :k] for j, k in pairs])
    if observations is not None and shape is not None:
        observations = observations.reshape((len(masks), *shape))

    def make_states() -> list[State]:
        out: list[State] = []
        for j, k in pairs:
            out.extend(searchers[j]._leaf_batch(runs[j].pending, k, states[j]).states)
        return out

    return LeafBatch(masks, to_play, observations=observations, make_states=make_states)


def search_stepped(
    searchers: Sequence[CompiledMCTS], states: Sequence[State], evaluator: Any
) -> list[SearchResult]:
    """:func:`search_many` by each search's generator (:meth:`CompiledMCTS.search_steps`)."""
    steps = [s.search_steps(x) for s, x in zip(searchers, states, strict=True)]
    results: list[SearchResult | None] = [None] * len(steps)
    waiting: dict[int, LeafBatch] = {}

    def advance(i: int, answer: tuple[Any, Any] | None) -> None:
        try:
            waiting[i] = next(steps[i]) if answer is None else steps[i].send(answer)
        except StopIteration as stop:
            results[i] = stop.value
            waiting.pop(i, None)

    for i in range(len(steps)):
        advance(i, None)
    chosen = None if evaluator is None else make_evaluator(evaluator)
    while waiting:
        order = sorted(waiting)
        batch = LeafBatch.concat([waiting[i] for i in order])
        if chosen is None:
            chosen = searchers[order[0]]._evaluator
        raw_priors, raw_values = chosen.evaluate(batch)
        priors, values = check_output(raw_priors, raw_values, batch.legal_mask)
        at = 0
        for i in order:
            k = len(waiting[i])
            advance(i, (priors[at : at + k], values[at : at + k]))
            at += k
    return [r for r in results if r is not None]
