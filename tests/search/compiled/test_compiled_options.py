"""The compiled engine's options (``search/compiled/options.py``): the layout of the arrays
that carry them follows the fields of ``Options``, the word codes follow the choices
``SearchConfig`` declares, and ``make_options`` fills each field from the config option of
the same name (issue 53, item 1: an option is declared once)."""

from __future__ import annotations

import numpy as np

import mctslab
from mctslab.core.options import options_of
from mctslab.search.compiled.options import (
    EXPANSION_CODE,
    FLOAT_OPTIONS,
    INT_OPTIONS,
    SIMULATION_CODE,
    Options,
    make_options,
    option_arrays,
    read_options,
)
from mctslab.search.config import SearchConfig
from mctslab.search.puct import PuctConfig

INFO = mctslab.make("connect_four").info


def test_the_arrays_hold_every_field_once_ints_then_floats() -> None:
    assert sorted(INT_OPTIONS + FLOAT_OPTIONS) == sorted(Options._fields)
    assert {"cutoff_depth", "solver", "gumbel", "rule"} <= set(INT_OPTIONS)
    assert {"c", "verdict_threshold", "fpu", "max_utility"} <= set(FLOAT_OPTIONS)


def test_word_codes_are_the_declared_choices_in_order() -> None:
    assert list(EXPANSION_CODE) == list(options_of(SearchConfig)["expansion"].choices)
    assert list(SIMULATION_CODE) == list(options_of(SearchConfig)["simulation"].choices)
    assert list(EXPANSION_CODE.values()) == list(range(len(EXPANSION_CODE)))


def test_arrays_read_back_to_the_same_options() -> None:
    config = SearchConfig(
        simulation="cutoff", cutoff_depth=5, solver=True, max_nodes=300, verdict_threshold=0.75
    )
    options = make_options(config, INFO, evaluator=0, rule=0)
    cfg_i, cfg_f = option_arrays(options)
    assert cfg_i.dtype == np.int64 and cfg_f.dtype == np.float64
    back = read_options(cfg_i, cfg_f)
    assert tuple(back) == tuple(options)
    assert back.simulation == SIMULATION_CODE["cutoff"] and back.cutoff_depth == 5
    assert back.solver is True and back.max_nodes == 300 and back.verdict_threshold == 0.75


def test_make_options_fills_fields_from_the_options_of_the_same_name() -> None:
    uct = make_options(SearchConfig(c=0.7, rave=300.0), INFO, evaluator=0, rule=2)
    assert (uct.c, uct.rave_k, uct.rule, uct.max_nodes) == (0.7, 300.0, 2, -1)
    assert (uct.batch, uct.fpu, uct.gumbel, uct.c_base) == (0, 0.0, False, 0.0)
    assert (uct.min_utility, uct.span, uct.max_utility) == (-1.0, 2.0, 1.0)
    puct = make_options(
        SearchConfig(puct=PuctConfig(c=2.0, batch=8, fpu=0.5, c_base=100.0)),
        INFO,
        evaluator=3,
        rule=0,
    )
    assert (puct.c, puct.batch, puct.fpu, puct.c_base, puct.evaluator) == (2.0, 8, 0.5, 100.0, 3)
    assert make_options(SearchConfig(puct=PuctConfig()), INFO, evaluator=1, rule=0).c_base == -1
