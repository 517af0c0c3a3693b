"""The engines' stepping search (``search_slices``, :class:`mctslab.search.engine.Searcher`):
run to its end it is one ``search()`` of the same config (the same tree from the same seed
under an iteration budget, early stop and robust-max judged across slices by the engine),
with an interim result after each slice; and the protocol's tree size, release and reader."""

from __future__ import annotations

import pytest

import mctslab
from mctslab.core.errors import InvalidConfigError
from mctslab.search.budget import SLICE
from mctslab.search.config import SearchConfig
from mctslab.search.engine import make_searcher
from mctslab.search.parallel import RootParallelSearcher
from mctslab.search.puct import PuctConfig

ENGINES = ["reference", "compiled"]

CONFIGS = {
    "iterations": SearchConfig(iterations=3000, seed=5),
    "early stop": SearchConfig(iterations=3000, seed=5, early_stop=True),
    "robust-max": SearchConfig(iterations=400, seed=8, final="robust-max"),
    "max_nodes": SearchConfig(iterations=5000, seed=2, max_nodes=700),
    "solver": SearchConfig(iterations=2500, seed=5, solver=True),
    "puct batch": SearchConfig(iterations=300, seed=3, expansion="all", puct=PuctConfig(batch=8)),
}


def _state() -> mctslab.State:
    return mctslab.make("connect_four").state_from_actions([3])


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", list(CONFIGS))
def test_slices_run_to_the_end_are_one_search(engine: str, name: str) -> None:
    config, state = CONFIGS[name], _state()
    whole_searcher = make_searcher(config, state, engine)
    whole = whole_searcher.search(state)
    sliced = make_searcher(config, state, engine)
    results = list(sliced.search_slices(state, slice_seconds=1e-4))
    last = results[-1]
    assert len(results) > 1  # sliced, with interim results
    assert all(r.stopped_by == SLICE for r in results[:-1]) and last.stopped_by != SLICE
    assert (last.stopped_by, last.iterations, last.nodes) == (
        whole.stopped_by,
        whole.iterations,
        whole.nodes,
    )
    assert last.children == whole.children and last.action == whole.action
    assert sliced.root_children() == whole_searcher.root_children()
    assert sliced.tree_size() == whole_searcher.tree_size()
    done = [r.iterations for r in results]
    assert done == sorted(done)  # each slice goes on with the same search


@pytest.mark.parametrize("engine", ENGINES)
def test_a_search_with_a_config_of_its_own_leaves_the_searchers_config(engine: str) -> None:
    state = _state()
    own = SearchConfig(iterations=50, seed=1)
    searcher = make_searcher(own, state, engine)
    other = SearchConfig(iterations=700, seed=1, early_stop=True)
    result = searcher.search(state, config=other)
    expected = make_searcher(other, state, engine).search(state)
    assert (result.iterations, result.stopped_by, result.children) == (
        expected.iterations,
        expected.stopped_by,
        expected.children,
    )
    assert searcher.config == own
    sliced = make_searcher(own, state, engine)
    assert list(sliced.search_slices(state, config=other))[-1].iterations == result.iterations
    assert sliced.config == own


@pytest.mark.parametrize("engine", ENGINES)
def test_a_search_abandoned_between_slices_keeps_its_tree(engine: str) -> None:
    state = _state()
    config = SearchConfig(iterations=4000, seed=4)
    searcher = make_searcher(config, state, engine)
    slices = searcher.search_slices(state, slice_seconds=1e-4)
    first = next(slices)
    slices.close()
    assert first.stopped_by == SLICE and 0 < first.iterations < 4000
    nodes, visits = searcher.tree_size()
    assert nodes == first.nodes and visits == first.iterations
    # The kept tree is whole: a next search of the position goes on with it.
    more = searcher.search(state, config=SearchConfig(iterations=100, seed=4))
    assert more.iterations == 100 and searcher.tree_size()[1] == first.iterations + 100


@pytest.mark.parametrize("engine", ENGINES)
def test_release_forgets_the_tree(engine: str) -> None:
    state = _state()
    searcher = make_searcher(SearchConfig(iterations=300, seed=1), state, engine)
    assert searcher.tree_size() == (0, 0) and searcher.tree_reader() is None
    searcher.search(state)
    nodes, visits = searcher.tree_size()
    assert nodes > 1 and visits == 300
    reader = searcher.tree_reader()
    assert reader is not None and reader.history == state.history()
    assert sum(reader.stats(ch).visits for ch in reader.children(reader.root())) == 300
    searcher.release()
    assert searcher.tree_size() == (0, 0) and searcher.tree_reader() is None
    assert searcher.search(state).iterations == 300  # a fresh tree


def test_the_node_kind_names_what_a_node_cap_counts() -> None:
    state = _state()
    assert make_searcher(SearchConfig(), state, "reference").node_kind == "reference"
    assert make_searcher(SearchConfig(), state, "compiled").node_kind == "compiled"


def test_root_parallelism_is_one_slice() -> None:
    state = mctslab.make("tic_tac_toe").new_initial_state()
    config = SearchConfig(iterations=200, seed=1, workers=2, parallel="threads")
    searcher = make_searcher(config, state, "compiled")
    assert isinstance(searcher, RootParallelSearcher)
    try:
        results = list(searcher.search_slices(state, slice_seconds=1e-4))
        assert len(results) == 1 and results[0].stopped_by == "iterations"
        assert results[0].iterations == 400
        other = searcher.search(state, config=SearchConfig(iterations=50, seed=1, workers=2))
        assert other.iterations == 100 and searcher.config == config
        assert searcher.tree_size() == (0, 0)
        with pytest.raises(InvalidConfigError, match="workers=1"):
            searcher.tree_reader()
    finally:
        searcher.close()
