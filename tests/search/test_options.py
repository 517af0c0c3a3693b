"""The configuration checks shared by SearchConfig, ISMCTSConfig and PIMCConfig
(mctslab.search.options): one rule and one message for each option in every config."""

from __future__ import annotations

import pytest

from mctslab import InvalidConfigError, SearchConfig
from mctslab.search.ismcts import ISMCTSConfig, PIMCConfig

CONFIGS = [
    ("search config", SearchConfig),
    ("ismcts config", ISMCTSConfig),
    ("pimc config", PIMCConfig),
]


@pytest.mark.parametrize(("where", "config"), CONFIGS)
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"iterations": 0}, "iterations must be a positive integer (at most 1e9), got 0"),
        ({"iterations": 10**9 + 1}, "iterations must be a positive integer (at most 1e9)"),
        ({"iterations": True}, "iterations must be a positive integer"),
        ({"iterations": 10, "c": -1.0}, "c must be a finite number >= 0, got -1.0"),
        ({"iterations": 10, "c": float("inf")}, "c must be a finite number >= 0, got inf"),
        ({"iterations": 10, "seed": 1.5}, "seed must be an integer, got 1.5"),
        ({"iterations": None, "time": -1.0}, "time must be a positive number of seconds"),
        ({"iterations": None, "time": 1e7}, "time must be a positive number of seconds"),
    ],
)
def test_every_config_rejects_the_same_values_with_the_same_message(
    where: str, config: type, kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(InvalidConfigError) as raised:
        config(**kwargs)
    assert str(raised.value).startswith(f"{where}: ")
    assert message in str(raised.value)


@pytest.mark.parametrize(("where", "config"), CONFIGS)
def test_the_largest_budget_is_accepted(where: str, config: type) -> None:
    assert config(iterations=10**9).iterations == 10**9
