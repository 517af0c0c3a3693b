"""The docstrings' examples run (docs that run, as pgx's --doctest-modules does)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import mctslab

MODULES = sorted(
    name
    for info in pkgutil.walk_packages(mctslab.__path__, "mctslab.")
    if not (name := info.name).endswith(("_cli", ".cli", "__main__")) and ".web" not in name
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    failures, _ = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert failures == 0, f"{failures} docstring example(s) of {name} failed"
