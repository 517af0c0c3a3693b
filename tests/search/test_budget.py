"""The stopping rule every budgeted loop shares (mctslab.search.budget.Budget):
iteration and time budgets and robust-max's one extension."""

from __future__ import annotations

import pytest

from mctslab import SearchConfig
from mctslab.search.budget import Budget


def test_an_iteration_budget_stops_at_its_count() -> None:
    budget = Budget.of(SearchConfig(iterations=10))
    assert [budget.stop(i, 0.0, agree=lambda: False) for i in (0, 9, 10)] == [
        None,
        None,
        "iterations",
    ]
    assert budget.iterations_left(4) == 6 and not budget.timed


def test_a_time_budget_stops_on_the_seconds_given_not_a_clock() -> None:
    budget = Budget.of(SearchConfig(iterations=None, time=0.5))
    assert budget.timed and budget.iterations_left(10**6) is None
    assert budget.stop(10**6, 0.49, agree=lambda: True) is None
    assert budget.stop(10**6, 0.5, agree=lambda: True) == "time"


def test_time_wins_the_tie_with_iterations() -> None:
    budget = Budget(iterations=10, seconds=1.0)
    assert budget.stop(10, 2.0, agree=lambda: True) == "time"


def test_robust_max_stretches_both_budgets_once_while_the_rules_disagree() -> None:
    budget = Budget.of(
        SearchConfig(iterations=100, time=1.0, final="robust-max", robust_max_extra=0.5)
    )
    assert budget.stop(100, 0.2, agree=lambda: False) is None and budget.extended
    assert budget.iterations_left(100) == 50
    assert budget.stop(149, 1.4, agree=lambda: False) is None
    assert budget.stop(149, 1.5, agree=lambda: False) == "time"
    assert budget.stop(150, 0.0, agree=lambda: False) == "iterations"


def test_robust_max_stops_on_agreement_only_once_extended() -> None:
    calls = []

    def agree() -> bool:
        calls.append(1)
        return True

    budget = Budget.of(SearchConfig(iterations=100, final="robust-max"))
    assert budget.stop(50, 0.0, agree=agree) is None and calls == []
    assert budget.stop(100, 0.0, agree=agree) == "iterations" and not budget.extended


@pytest.mark.parametrize("final", ["robust", "max"])
def test_other_final_rules_never_extend(final: str) -> None:
    budget = Budget.of(SearchConfig(iterations=100, final=final))  # type: ignore[arg-type]
    assert budget.stop(100, 0.0, agree=lambda: False) == "iterations" and not budget.extended


def test_no_extension_when_the_extra_is_zero() -> None:
    budget = Budget.of(SearchConfig(iterations=7, final="robust-max", robust_max_extra=0.0))
    assert budget.stop(7, 0.0, agree=lambda: False) == "iterations"
