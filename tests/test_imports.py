"""Every module of the package imports on its own, first, in a fresh interpreter.

An import cycle can hide behind the order in which modules happen to be imported:
``import mctslab.cli.main`` worked while ``import mctslab.cli.arena`` alone failed with
"cannot import name ... from partially initialized module". So each module is
imported in its own interpreter, with nothing of mctslab loaded before it; two run
at a time.
"""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import mctslab
from conftest import extras_required

# The packages of the optional extras (web, ray, openspiel): a module that imports one
# at the top is skipped where the extra is missing, unless the extras are required.
OPTIONAL_PACKAGES = {"fastapi", "starlette", "pydantic", "anyio", "uvicorn", "ray", "pyspiel"}
# Exit status of the child when the module needs a missing optional package.
_MISSING_EXTRA = 3
_CHILD = f"""
import importlib, sys
try:
    importlib.import_module(sys.argv[1])
except ModuleNotFoundError as exc:
    if (exc.name or "").split(".")[0] in {sorted(OPTIONAL_PACKAGES)!r}:
        sys.exit({_MISSING_EXTRA})
    raise
"""


def modules() -> list[str]:
    # __main__ is left out: importing it runs the command line.
    found = [
        info.name
        for info in pkgutil.walk_packages(mctslab.__path__, "mctslab.")
        if info.name != "mctslab.__main__"
    ]
    return ["mctslab", *found]


def import_alone(name: str) -> tuple[str, int, str]:
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, name], capture_output=True, text=True, timeout=300
    )
    return name, proc.returncode, proc.stderr


def test_every_module_imports_first_in_a_fresh_interpreter() -> None:
    names = modules()
    assert len(names) > 30 and "mctslab.cli.arena" in names  # the walk found the package
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(import_alone, names))
    missing_extra = [n for n, code, _ in results if code == _MISSING_EXTRA]
    failed = {
        n: err.strip().splitlines()[-1:]
        for n, code, err in results
        if code not in (0, _MISSING_EXTRA)
    }
    assert not failed, f"modules that do not import on their own: {failed}"
    if extras_required():
        assert not missing_extra, f"modules whose optional extra is missing: {missing_extra}"
