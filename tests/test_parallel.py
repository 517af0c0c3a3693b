"""Root parallelism: workers=N merges N independent seeded searches."""

from __future__ import annotations

import pytest

import mctslab
from mctslab.engine import make_searcher, search
from mctslab.mcts import SearchConfig
from mctslab.parallel import RootParallelSearcher


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_two_workers_merge_the_searches_of_seeds_s_and_s_plus_1(engine: str) -> None:
    state = mctslab.make("connect_four").state_from_actions([3])
    merged = search(state, SearchConfig(iterations=1500, seed=7, workers=2), engine=engine)
    one = search(state, SearchConfig(iterations=1500, seed=7), engine=engine)
    two = search(state, SearchConfig(iterations=1500, seed=8), engine=engine)
    assert merged.iterations == 3000 and merged.nodes == one.nodes + two.nodes
    for m, a, b in zip(merged.children, one.children, two.children, strict=True):
        assert m.action == a.action == b.action
        assert m.visits == a.visits + b.visits
        mean = (a.value * a.visits + b.value * b.visits) / (a.visits + b.visits)
        assert m.value == pytest.approx(mean)
    best = max(merged.children, key=lambda ch: (ch.visits, ch.value))
    assert merged.action == best.action and merged.final_rule == "robust"


def test_workers_keep_their_trees_and_pass_on_proofs() -> None:
    game = mctslab.make("tic_tac_toe")
    state = game.state_from_actions([0, 3, 1, 4])  # x wins with c1
    searcher = make_searcher(SearchConfig(iterations=2000, workers=2, solver=True), state)
    assert isinstance(searcher, RootParallelSearcher)
    try:
        result = searcher.search(state)
        assert result.action == 2 and result.proven == 1 and result.final_rule == "solver"
        quiet = game.state_from_actions([4])
        first = searcher.search(quiet)
        quiet.apply_action(first.action)
        quiet.apply_action(quiet.legal_actions()[0])
        again = searcher.search(quiet)
        assert again.nodes > 0
    finally:
        searcher.close()


def test_workers_from_a_player_spec_and_bad_values() -> None:
    info = mctslab.make("tic_tac_toe").info
    player = mctslab.make_player("mcts:iterations=200,workers=2", info)
    state = mctslab.make("tic_tac_toe").new_initial_state()
    assert player.choose(state) in state.legal_actions()
    with pytest.raises(mctslab.InvalidConfigError, match="workers"):
        SearchConfig(workers=0)
    with pytest.raises(mctslab.InvalidConfigError, match="make_searcher"):
        mctslab.MCTS(SearchConfig(workers=2)).search(state)
