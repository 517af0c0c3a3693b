"""Early stop (Huang, Coulom and Lin 2010): a search stops once the most visited root
child's lead exceeds the iterations its budget has left, in both engines, and never
changes the move it plays."""

from __future__ import annotations

import math
from typing import Any

import pytest

import mctslab
from mctslab.core.errors import InvalidConfigError
from mctslab.players.player import parse_spec, search_config
from mctslab.search.budget import Budget, visit_lead
from mctslab.search.compiled import CompiledMCTS
from mctslab.search.config import SearchConfig
from mctslab.search.mcts import MCTS


def test_the_lead_is_the_top_two_visits_apart() -> None:
    assert visit_lead([3, 10, 7]) == 3
    assert visit_lead([5]) == 5
    assert visit_lead([]) == 0
    assert visit_lead([4, 4]) == 0


def test_the_budget_stops_only_when_the_lead_cannot_be_caught() -> None:
    budget = Budget(iterations=100, seconds=None, early_stop=True)
    assert budget.stop(50, 0.0, agree=lambda: True, lead=lambda: 50) is None  # 50 left
    assert budget.stop(50, 0.0, agree=lambda: True, lead=lambda: 51) == "early"
    # Without early_stop the lead is never read.
    plain = Budget(iterations=100, seconds=None)
    assert plain.stop(50, 0.0, agree=lambda: True, lead=lambda: 10**9) is None
    # Under robust-max the two rules must agree too.
    robust_max = Budget(iterations=100, seconds=None, robust_max=True, early_stop=True)
    assert robust_max.stop(90, 0.0, agree=lambda: False, lead=lambda: 50) is None
    assert robust_max.stop(90, 0.0, agree=lambda: True, lead=lambda: 50) == "early"


@pytest.mark.parametrize("engine", [MCTS, CompiledMCTS])
def test_a_clear_position_stops_early_and_plays_the_same_move(engine: Any) -> None:
    """Connect Four, X to move with a win in one (column 3): the winning move soon leads
    by more than the budget left, and the search stops early with it, spending a
    fraction of the iterations; the move is the full search's."""
    state = mctslab.make("connect_four").state_from_actions([3, 0, 3, 0, 3, 1])  # type: ignore[attr-defined]
    full = engine(SearchConfig(iterations=20_000, seed=2)).search(state)
    early = engine(SearchConfig(iterations=20_000, seed=2, early_stop=True)).search(state)
    assert early.stopped_by == "early" and full.stopped_by == "iterations"
    assert early.action == full.action == 3
    assert early.iterations < 15_000


def test_a_time_budget_stops_early_in_a_clear_position() -> None:
    state = mctslab.make("connect_four").state_from_actions([3, 0, 3, 0, 3, 1])  # type: ignore[attr-defined]
    config = SearchConfig(iterations=None, time=5.0, seed=2, early_stop=True)
    result = CompiledMCTS(config).search(state)
    assert result.stopped_by == "early" and result.action == 3


def test_early_stop_is_a_spec_option_and_refuses_the_max_rule() -> None:
    _, options = parse_spec("mcts:early_stop=1,time=2")
    assert search_config(options).early_stop is True
    with pytest.raises(InvalidConfigError, match="final='max'"):
        SearchConfig(early_stop=True, final="max")
    with pytest.raises(InvalidConfigError, match="early_stop must be True or False"):
        SearchConfig(early_stop=1)  # type: ignore[arg-type]


def test_the_early_stop_factor_stops_sooner_and_both_factors_are_checked() -> None:
    """``early_stop_factor`` < 1 (Baier and Winands' ``f_earlystop``): the lead need
    only exceed that share of what is left; both STOP factors are spec options, refused
    outside their ranges."""
    sure = Budget(iterations=1000, seconds=None, early_stop=True)
    bold = Budget(iterations=1000, seconds=None, early_stop=True, factor=0.25)
    assert sure.stop(500, 0.0, agree=lambda: True, lead=lambda: 200) is None
    assert bold.stop(500, 0.0, agree=lambda: True, lead=lambda: 200) == "early"
    assert Budget.of(SearchConfig(early_stop=True, early_stop_factor=0.25)).factor == 0.25
    _, options = parse_spec("mcts:early_stop=1,early_stop_factor=0.4,time_factor=2.5")
    config = search_config(options)
    assert (config.early_stop_factor, config.time_factor) == (0.4, 2.5)
    for key, bad in (
        ("early_stop_factor", 0.0),
        ("early_stop_factor", 1.5),
        ("time_factor", 0.0),
        ("time_factor", 11.0),
        ("time_factor", math.nan),
        ("time_factor", True),
    ):
        with pytest.raises(InvalidConfigError, match=key):
            SearchConfig(**{key: bad})


@pytest.mark.parametrize("engine", [MCTS, CompiledMCTS])
def test_a_bolder_early_stop_searches_less_and_plays_the_same_move(engine: Any) -> None:
    """The Connect Four win in one again, same seed: with ``early_stop_factor=0.2`` the
    search stops well before the exact rule does, with the same move."""
    state = mctslab.make("connect_four").state_from_actions([3, 0, 3, 0, 3, 1])  # type: ignore[attr-defined]
    sure = engine(SearchConfig(iterations=20_000, seed=2, early_stop=True)).search(state)
    bold = engine(
        SearchConfig(iterations=20_000, seed=2, early_stop=True, early_stop_factor=0.2)
    ).search(state)
    assert bold.stopped_by == sure.stopped_by == "early"
    assert bold.action == sure.action == 3
    assert bold.iterations < 0.6 * sure.iterations, (bold.iterations, sure.iterations)
