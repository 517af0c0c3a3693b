"""The lab's request model is generated from the configs' declarations
(:mod:`mctslab.core.options`): every option declared with ``lab=True`` is a field of
``EngineConfig`` with its type, bounds, choices and default, and goes from a request into
the :class:`SearchConfig` (or its :class:`PuctConfig`) unchanged."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

import pytest

pytest.importorskip("fastapi")

from pydantic import ValidationError

from mctslab.core.options import Option, option, options_of
from mctslab.search.config import SearchConfig
from mctslab.search.puct import PuctConfig
from mctslab.web.routes.config import search_config
from mctslab.web.schemas import (
    LAB_OPTIONS,
    EngineConfig,
    engine_config_model,
    lab_options,
)


def test_the_lab_offers_what_the_configs_declare() -> None:
    """SearchConfig's lab options (its budget and selection are the lab's own fields) and
    PuctConfig's, PUCT's c as c_puct."""
    declared = [o.name for o in options_of(SearchConfig).values() if o.lab]
    own = {"iterations", "time", "selection"}
    expected = [n for n in declared if n not in own] + [
        "c_puct" if o.name == "c" else o.name for o in options_of(PuctConfig).values() if o.lab
    ]
    assert list(LAB_OPTIONS) == expected
    assert LAB_OPTIONS["c_puct"] == (PuctConfig, options_of(PuctConfig)["c"])
    assert set(EngineConfig.model_fields) == {*LAB_OPTIONS, *own, "engine"}


def _expected_schema(opt: Option) -> dict[str, Any]:
    """What the JSON schema says of an option: its default, bounds and choices."""
    expected: dict[str, Any] = {"default": opt.default}
    if opt.choices:
        expected["enum"] = list(opt.choices)
    if opt.low is not None:
        expected["exclusiveMinimum" if opt.low_open else "minimum"] = opt.low
    if opt.high is not None:
        expected["exclusiveMaximum" if opt.high_open else "maximum"] = opt.high
    return expected


@pytest.mark.parametrize("name", list(LAB_OPTIONS))
def test_each_lab_option_has_its_declared_default_bounds_and_choices(name: str) -> None:
    _, opt = LAB_OPTIONS[name]
    prop = EngineConfig.model_json_schema()["properties"][name]
    for key, value in _expected_schema(opt).items():
        assert prop[key] == value, (name, key)
    assert prop["description"]


@dataclass(frozen=True)
class _Wider(SearchConfig):
    """SearchConfig with one more lab option, as a new one would be declared."""

    widen: int = option(3, "children a node adds per visit", low=1, high=9, lab=True)
    style: Literal["calm", "wild"] = option("calm", "how it plays", lab=True)


def test_a_new_lab_option_appears_in_the_request_model() -> None:
    model = engine_config_model(lab_options(_Wider, PuctConfig))
    props = model.model_json_schema()["properties"]
    assert props["widen"]["default"] == 3
    assert (props["widen"]["minimum"], props["widen"]["maximum"]) == (1, 9)
    assert props["widen"]["type"] == "integer"
    assert props["widen"]["description"] == "Children a node adds per visit."
    assert props["style"]["enum"] == ["calm", "wild"]
    assert model(widen=9, style="wild").widen == 9
    for bad in ({"widen": 10}, {"widen": 0}, {"widen": True}, {"style": "odd"}):
        with pytest.raises(ValidationError):
            model(**bad)


def _other_value(name: str, opt: Option) -> Any:
    """A valid value of the option other than its default."""
    if opt.kind == "bool":
        return not opt.default
    if opt.choices:
        return next(c for c in opt.choices if c != opt.default)
    if opt.kind in ("int", "float"):
        high = opt.high if opt.high is not None and math.isfinite(opt.high) else None
        value = opt.default + 1 if high is None or opt.default + 1 < high else high / 2
        return int(value) if opt.kind == "int" else float(value)
    return {"evaluator": "uniform"}[name]


@pytest.mark.parametrize("name", list(LAB_OPTIONS))
def test_every_lab_option_goes_from_a_request_into_the_search_config(name: str) -> None:
    owner, opt = LAB_OPTIONS[name]
    value = _other_value(name, opt)
    selection = "puct" if owner is PuctConfig else "uct"
    config = search_config(
        EngineConfig.model_validate({"selection": selection, name: value}), None, None, 10**6
    )
    target = config.puct if owner is PuctConfig else config
    assert getattr(target, opt.name) == value
    assert (config.puct is not None) == (selection == "puct")
