"""Many PUCT searches stepped together, one evaluator call a round (:func:`search_many`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np
from numba.typed import List as TypedList

from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import State
from mctslab.search.compiled.driver import CompiledMCTS, puct_round_fn
from mctslab.search.compiled.options import (
    EVALUATOR_CODES,
    ITERATIONS,
    NEED_EVAL,
    NEED_SPACE,
    PENDING,
)
from mctslab.search.compiled.puct_chunk import Pending
from mctslab.search.evaluators import LeafBatch, check_output, make_evaluator
from mctslab.search.result import SearchResult
from mctslab.search.rules import puct_config


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
    if not config.rule.evaluated:
        return False
    puct = puct_config(config)
    game = getattr(states[0], "game", None)
    return (
        not (isinstance(puct.evaluator, str) and puct.evaluator in EVALUATOR_CODES)
        and config.time is None
        and config.iterations is not None
        and config.final != "robust-max"
        and all(dataclasses.replace(s.config, seed=config.seed) == config for s in searchers)
        and all(getattr(x, "game", None) is game for x in states)
    )


class SearchRounds:
    """Many PUCT searches of one game and config advanced together, one compiled call a
    round (:func:`~mctslab.search.compiled.puct_chunk.run_puct_round`), driven through
    their searchers' public steps (:meth:`CompiledMCTS.begin`, ``advance``, ``finish``).

    The searches' own arrays are stacked, each search keeping a view of its row: a round
    runs every unfinished search's chunk; :meth:`settle` handles the codes of those that
    did not stop for an evaluation; :meth:`leaf_batch` gathers the waiting leaves of all
    of them as one :class:`~mctslab.search.evaluators.LeafBatch` and :meth:`answer`
    writes the evaluation back. :meth:`close` gives each searcher its own generator again.
    """

    def __init__(self, searchers: Sequence[CompiledMCTS], states: Sequence[State]) -> None:
        self.searchers, self.states = list(searchers), list(states)
        runs = [s.begin(x, None) for s, x in zip(searchers, states, strict=True)]
        self.runs = runs
        fields = Pending._fields
        self.pend = Pending(*(np.stack([getattr(r.pending, f) for r in runs]) for f in fields))
        self.ctls = np.stack([r.ctl for r in runs])
        self.rngs = np.stack([s.rng for s in searchers])
        self.root_priors = np.stack([r.root_prior for r in runs])
        self.root_states = np.stack([r.root_state for r in runs])
        self.capacities = np.stack([r.capacity for r in runs])
        for j, (r, s) in enumerate(zip(runs, searchers, strict=True)):
            r.pending = Pending(*(getattr(self.pend, f)[j] for f in fields))
            r.ctl, r.root_prior, r.capacity = self.ctls[j], self.root_priors[j], self.capacities[j]
            s.rng = self.rngs[j]
        self.trees, self.extras = TypedList(), TypedList()
        for j, s in enumerate(searchers):
            assert s.tree is not None
            self.trees.append(s.tree)
            self.extras.append(s.extra)
            self.capacities[j, 0] = len(s.tree.first_child)
        first = runs[0]
        self.round_fn = puct_round_fn(first.kernels)
        self.codes = np.zeros(len(runs), dtype=np.int64)
        budget = first.searcher.config.iterations
        assert budget is not None
        self.budget = budget
        game: Any = getattr(states[0], "game", None)
        self.shape = game.observation_shape() if first.kernels.observation is not None else None
        self.found: list[SearchResult | None] = [None] * len(runs)

    def step(self) -> None:
        """One round: every unfinished search's chunk, the rest of its iteration budget
        (no robust-max extension here: see :func:`rounds_apply`)."""
        first = self.runs[0]
        max_chunks = self.budget - self.ctls[:, ITERATIONS]
        self.round_fn(
            self.trees, self.extras, self.root_priors, self.root_states, first.params,
            first.cfg_i, first.cfg_f, self.ctls, self.rngs, first.bufs, first.fbufs, self.pend,
            self.capacities, max_chunks, self.codes,
        )  # fmt: skip

    def settle(self) -> list[int]:
        """Handle the round's codes but ``NEED_EVAL`` (a search stopped, or its tree grown,
        or its noise drawn); the searches waiting for an evaluation, in order."""
        codes = self.codes
        waiting: list[int] = np.flatnonzero(codes == NEED_EVAL).tolist()
        for j in np.flatnonzero((codes >= 0) & (codes != NEED_EVAL)).tolist():
            searcher, run, code = self.searchers[j], self.runs[j], int(codes[j])
            stopped_by = searcher.advance(run, code)
            if stopped_by is not None:
                self.found[j] = searcher.finish(run, stopped_by)
                codes[j] = -1
            elif code == NEED_SPACE:
                grown = searcher.tree
                assert grown is not None
                self.trees[j], self.extras[j] = grown, searcher.extra
                self.capacities[j, 0] = len(grown.first_child)
        return waiting

    @property
    def done(self) -> bool:
        """Whether every search has finished."""
        return bool(np.all(self.codes < 0))

    def leaf_batch(self, waiting: list[int]) -> LeafBatch:
        """The waiting searches' leaves as one :class:`LeafBatch`, read from the stacked
        pending rows (one leaf each, the usual case, by one fancy index)."""
        pend, shape = self.pend, self.shape
        counts = self.ctls[waiting, PENDING]
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
        searchers, runs, states = self.searchers, self.runs, self.states

        def make_states() -> list[State]:
            out: list[State] = []
            for j, k in pairs:
                out.extend(searchers[j].leaf_batch(runs[j].pending, k, states[j]).states)
            return out

        return LeafBatch(masks, to_play, observations=observations, make_states=make_states)

    def answer(self, waiting: list[int], priors: Any, values: Any) -> None:
        """Write the evaluation of :meth:`leaf_batch`'s leaves back to each search's rows."""
        pend = self.pend
        counts = self.ctls[waiting, PENDING]
        if np.all(counts == 1):
            pend.priors[waiting, 0] = priors
            pend.values[waiting, 0] = values
        else:
            at = 0
            for j, k in zip(waiting, counts.tolist(), strict=True):
                pend.priors[j, :k] = priors[at : at + k]
                pend.values[j, :k] = values[at : at + k]
                at += k

    def close(self) -> None:
        """Give each searcher its own generator word again, not a view of the stack."""
        for s in self.searchers:
            s.rng = s.rng.copy()

    def results(self) -> list[SearchResult]:
        """The finished searches' results, in order."""
        return [r for r in self.found if r is not None]


def search_rounds(
    searchers: Sequence[CompiledMCTS], states: Sequence[State], evaluator: Any
) -> list[SearchResult]:
    """:func:`search_many` with one compiled call a round for every search."""
    rounds = SearchRounds(searchers, states)
    chosen = None if evaluator is None else make_evaluator(evaluator)
    try:
        while True:
            rounds.step()
            waiting = rounds.settle()
            if waiting:
                batch = rounds.leaf_batch(waiting)
                if chosen is None:
                    chosen = searchers[waiting[0]].evaluator
                raw_priors, raw_values = chosen.evaluate(batch)
                priors, values = check_output(raw_priors, raw_values, batch.legal_mask)
                rounds.answer(waiting, priors, values)
            elif rounds.done:
                break
    finally:
        rounds.close()
    return rounds.results()


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
            chosen = searchers[order[0]].evaluator
        raw_priors, raw_values = chosen.evaluate(batch)
        priors, values = check_output(raw_priors, raw_values, batch.legal_mask)
        at = 0
        for i in order:
            k = len(waiting[i])
            advance(i, (priors[at : at + k], values[at : at + k]))
            at += k
    return [r for r in results if r is not None]
