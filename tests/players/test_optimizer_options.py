"""A single-player search's spec options are its config's declarations
(:mod:`mctslab.core.options`): the fields declared ``spec=True``, each parsed by its
type's parser; the seed and budgets are the run's."""

from __future__ import annotations

import pytest

from mctslab.core.options import options_of
from mctslab.core.text import strict_float, strict_int
from mctslab.players.optimizers import OPTIMIZERS
from mctslab.search.single import NMCSConfig, NRPAConfig, SPMCTSConfig

CONFIGS = {"nrpa": NRPAConfig, "nmcs": NMCSConfig, "sp-mcts": SPMCTSConfig}


@pytest.mark.parametrize("kind", list(CONFIGS))
def test_a_kinds_options_are_its_configs_spec_options(kind: str) -> None:
    declared = options_of(CONFIGS[kind])
    assert list(OPTIMIZERS[kind]) == [n for n, o in declared.items() if o.spec]
    parsers = {"int": strict_int, "float": strict_float}
    for name, parse in OPTIMIZERS[kind].items():
        assert parse is parsers.get(declared[name].kind, parse)
        assert declared[name].help
    assert {"seed", "time", "playouts", "target", "runs"} <= set(declared) - set(OPTIMIZERS[kind])


@pytest.mark.parametrize("kind", list(CONFIGS))
def test_the_declared_bounds_are_the_configs_checks(kind: str) -> None:
    """Each declared bound is one the config refuses a value past."""
    cls = CONFIGS[kind]
    for opt in options_of(cls).values():
        if opt.kind not in ("int", "float") or opt.high is None:
            continue
        over = opt.high + 1 if opt.kind == "int" else opt.high * 2
        with pytest.raises(ValueError, match=opt.name):
            cls(**{opt.name: over})
