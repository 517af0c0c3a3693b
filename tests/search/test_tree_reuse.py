"""Tree reuse never crosses games: a searcher that keeps its tree reuses it only for the
same rules (game, parameters, version) and the same position.

Each case first searches one game, then another whose start has the same (empty) move
history, with the same searcher, and checks that the second search answers the second
game: its root children are the second game's legal moves and the node count is that
of a fresh search. Before the fix the reference engine matched the kept tree by move
history alone and answered Connect Four with tic-tac-toe's nine root children.
"""

from __future__ import annotations

import pytest

import mctslab
from mctslab.core.game import Game, rules_fingerprint, same_rules
from mctslab.search.config import SearchConfig
from mctslab.search.engine import make_searcher
from mctslab.search.mcts import MCTS
from mctslab.search.parallel import RootParallelSearcher

# Pairs of games whose initial states have the same (empty) history.
PAIRS = [
    pytest.param(("tic_tac_toe", {}), ("connect_four", {}), id="tic_tac_toe-then-connect_four"),
    pytest.param(("nim", {}), ("nim", {"piles": (2, 2)}), id="nim-then-other-piles"),
    pytest.param(("nim", {}), ("nim", {"misere": True}), id="nim-then-misere"),
    pytest.param(("connect_four", {}), ("connect_four", {"rows": 5}), id="connect_four-sizes"),
]


def _fresh(game: Game, engine: str) -> mctslab.SearchResult:
    config = SearchConfig(iterations=300, seed=5)
    state = game.new_initial_state()
    return make_searcher(config, state, engine).search(state)


def _same_answer(got: mctslab.SearchResult, fresh: mctslab.SearchResult) -> None:
    assert [c.action for c in got.children] == [c.action for c in fresh.children]
    assert sum(c.visits for c in got.children) == sum(c.visits for c in fresh.children)


@pytest.mark.parametrize("engine", ["reference", "compiled"])
@pytest.mark.parametrize(("first", "second"), PAIRS)
def test_a_searcher_does_not_reuse_the_tree_of_other_rules(
    engine: str, first: tuple[str, dict], second: tuple[str, dict]
) -> None:
    a, b = mctslab.make(first[0], **first[1]), mctslab.make(second[0], **second[1])
    searcher = make_searcher(SearchConfig(iterations=300, seed=5), a.new_initial_state(), engine)
    searcher.search(a.new_initial_state())
    got = searcher.search(b.new_initial_state())
    legal = b.new_initial_state().legal_actions()
    # The root's children belong to the second game (expansion "one": all are tried in 300).
    assert {c.action for c in got.children} <= set(legal)
    assert got.action in legal
    # Nothing of the first tree is left: the visits add up to this search's iterations
    # (a reused root would carry the first search's 300 visits as well).
    assert sum(c.visits for c in got.children) == got.iterations == 300
    # The searcher's generator moved on, so compare structure, not the exact statistics.
    _same_answer(got, _fresh(b, engine))


def test_the_reference_engine_still_reuses_the_tree_of_the_same_game() -> None:
    game = mctslab.make("connect_four")
    searcher = MCTS(SearchConfig(iterations=400, seed=1))
    state = game.new_initial_state()
    first = searcher.search(state)
    state.apply_action(first.action)
    state.apply_action(state.legal_actions()[0])
    # An equal game object (another make()) has the same rules: the tree is kept.
    second = searcher.search(mctslab.make("connect_four").state_from_actions(state.history()))
    assert sum(c.visits for c in second.children) > second.iterations


@pytest.mark.parametrize(("first", "second"), PAIRS[:2])
def test_root_parallel_workers_do_not_reuse_the_tree_of_other_rules(
    first: tuple[str, dict], second: tuple[str, dict]
) -> None:
    a, b = mctslab.make(first[0], **first[1]), mctslab.make(second[0], **second[1])
    searcher = make_searcher(
        SearchConfig(iterations=200, seed=3, workers=2), a.new_initial_state(), "reference"
    )
    assert isinstance(searcher, RootParallelSearcher)
    try:
        searcher.search(a.new_initial_state())
        got = searcher.search(b.new_initial_state())
    finally:
        searcher.close()
    assert {c.action for c in got.children} <= set(b.new_initial_state().legal_actions())
    assert sum(c.visits for c in got.children) == got.iterations == 400


def test_root_parallel_auto_switches_engine_with_the_game() -> None:
    """A worker made for a kernel game (compiled engine) meets a Python game: it makes a
    searcher for the new game instead of failing or reusing the old tree."""
    a = mctslab.make("tic_tac_toe")
    pig = mctslab.make("pig", target=10)
    searcher = make_searcher(SearchConfig(iterations=100, workers=2), a.new_initial_state())
    try:
        searcher.search(a.new_initial_state())
        state = pig.new_initial_state()  # player 0 decides: roll or stop
        got = searcher.search(state)
    finally:
        searcher.reset()
    assert {c.action for c in got.children} <= set(state.legal_actions())


def test_a_reused_root_must_hold_the_same_position() -> None:
    """The last check before reuse: the kept node's position equals the new state's, even
    when a game object lies about its identity (same class, info and parameters)."""
    game = mctslab.make("nim")
    other = mctslab.make("nim", piles=(2, 2))
    searcher = MCTS(SearchConfig(iterations=200, seed=2))
    searcher.search(game.new_initial_state())
    state = other.new_initial_state()
    searcher._game = state.game  # pretend the kept tree was made for these rules
    searcher._info = state.game.info  # (and the info check passes too)
    got = searcher.search(state)
    assert {c.action for c in got.children} <= set(state.legal_actions())
    assert sum(c.visits for c in got.children) == got.iterations


def test_rules_fingerprints_name_the_parameters() -> None:
    assert same_rules(mctslab.make("nim"), mctslab.make("nim"))
    assert not same_rules(mctslab.make("nim"), mctslab.make("nim", piles=(2, 2)))
    assert not same_rules(mctslab.make("pig"), mctslab.make("pig", target=50))
    assert not same_rules(mctslab.make("bohnenspiel"), mctslab.make("bohnenspiel", utility="score"))
    assert not same_rules(mctslab.make("tic_tac_toe"), mctslab.make("connect_four"))
    # A scratch buffer's contents are not rules: searching does not change the fingerprint.
    game = mctslab.make("connect_four")
    before = rules_fingerprint(game)
    game.new_initial_state().legal_actions()
    game.state_from_actions([3, 3, 4])
    assert rules_fingerprint(game) == before


def test_the_hidden_information_searches_answer_each_game_afresh() -> None:
    """ISMCTS and PIMC build their trees per search: after Kuhn poker, a Knockout Whist
    position gets Knockout Whist's moves (and a PIMC searcher never reuses its MCTS)."""
    from mctslab.core.game import sample_chance_outcome
    from mctslab.core.rng import Rng
    from mctslab.search.ismcts import ISMCTS, PIMC, ISMCTSConfig, PIMCConfig

    kuhn = mctslab.make("kuhn_poker").state_from_actions([2, 0])
    whist = mctslab.make("knockout_whist").new_initial_state()
    rng = Rng(1)
    while whist.current_player() < 0:
        whist.apply_action(sample_chance_outcome(whist, rng))  # the deal
    for searcher in (
        ISMCTS(ISMCTSConfig(iterations=200, seed=1)),
        PIMC(PIMCConfig(determinizations=4, iterations=50, seed=1)),
    ):
        searcher.search(kuhn)
        got = searcher.search(whist)
        assert {c.action for c in got.children} == set(whist.legal_actions())
