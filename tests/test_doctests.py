"""The docstrings' examples run (docs that run, as pgx's --doctest-modules does).

Only the modules that have examples are doctested: doctesting one without any
passes with nothing checked. ``DOCTESTED`` names them, and a test walks the whole
package to keep the list exact: a module that gains examples must be added, and
one that loses them fails instead of passing empty. The examples of the README and
the docs/ pages are run by tests/test_readme.py.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from types import ModuleType

import pytest

import mctslab
from conftest import extras_required

DOCTESTED = [
    "mctslab.adapters.gymnasium",
    "mctslab.adapters.openspiel",
    "mctslab.arena.analyze",
    "mctslab.arena.growth",
    "mctslab.arena.pooling",
    "mctslab.arena.ratings",
    "mctslab.arena.store",
    "mctslab.arena.tournament",
    "mctslab.arena.tune",
    "mctslab.cli.gtp",
    "mctslab.cli.gtp.analysis",
    "mctslab.cli.gtp.protocol",
    "mctslab.cli.katago.answer",
    "mctslab.cli.katago.query",
    "mctslab.core.declarations",
    "mctslab.core.fixed_chance",
    "mctslab.core.game",
    "mctslab.core.options",
    "mctslab.core.player_kinds",
    "mctslab.core.registry",
    "mctslab.core.rng",
    "mctslab.core.text",
    "mctslab.games.go.sgf",
    "mctslab.games.go.status",
    "mctslab.games.knockout_whist",
    "mctslab.games.kuhn_poker",
    "mctslab.games.pig",
    "mctslab.players.clock",
    "mctslab.players.network",
    "mctslab.players.optimizers",
    "mctslab.players.player",
    "mctslab.players.resign",
    "mctslab.players.time_control",
    "mctslab.search.budget",
    "mctslab.search.ismcts",
    "mctslab.search.mcts",
    "mctslab.search.minimax",
    "mctslab.search.options",
    "mctslab.teaching.bandits",
    "mctslab.teaching.graphs",
    "mctslab.teaching.listing",
    "mctslab.teaching.ucb",
    "mctslab.train.learner",
]

# Imported at the top of some modules (the web lab's server), installed by an extra.
OPTIONAL_PACKAGES = {"fastapi", "starlette", "pydantic", "anyio", "uvicorn", "ray", "pyspiel"}


def count_examples(module: ModuleType) -> int:
    """The examples doctest would run in ``module`` (its docstrings, its objects')."""
    return sum(len(test.examples) for test in doctest.DocTestFinder().find(module))


def test_the_list_is_every_module_with_examples() -> None:
    # __main__ is left out: importing it runs the command line.
    names = ["mctslab"] + [
        info.name
        for info in pkgutil.walk_packages(mctslab.__path__, "mctslab.")
        if info.name != "mctslab.__main__"
    ]
    assert len(names) > 30  # the walk found the package
    with_examples, not_importable = [], []
    for name in names:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name in OPTIONAL_PACKAGES and not extras_required():
                not_importable.append(name)
                continue
            raise
        if count_examples(module):
            with_examples.append(name)
    assert with_examples == [name for name in DOCTESTED if name not in not_importable]


@pytest.mark.parametrize("name", DOCTESTED)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    assert count_examples(module) >= 1, f"{name} has no docstring examples: drop it from DOCTESTED"
    failed, attempted = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert attempted == count_examples(module)
    assert failed == 0, f"{failed} of the {attempted} docstring examples of {name} failed"
