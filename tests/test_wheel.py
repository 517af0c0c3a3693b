"""The wheel installs alone: built from the sdist (``python -m build``, as ``make dist``
builds it), installed into a fresh virtual environment, and run there from a folder
outside the source tree without PYTHONPATH by tests/wheel_smoke.py (the version, a
search, the solver, the web lab, the shipped networks, the lessons).

The fresh environment gets mctslab's dependencies without a download: a ``.pth`` file
in its site-packages names a folder of links to the dev environment's third-party
packages (every entry of its site-packages but mctslab's own metadata, its editable
finder and the ``.pth`` files), and pip installs the wheel with ``--no-index``, so it
resolves the wheel's requirements against what is there, or fails naming what is
missing. Lines of a ``.pth`` only extend ``sys.path`` (``.pth`` files in a folder named
so are not read), and the links leave out mctslab's editable install: the smoke script
asserts that the package it imports is the fresh environment's. The build is
``--no-isolation`` (offline, against the dev environment's setuptools); ``make dist``
builds in isolation.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

import mctslab

if os.environ.get("MCTSLAB_REQUIRE_EXTRAS"):
    # `make test` installs every extra: a missing build (the dist extra) fails here.
    import build  # noqa: F401
else:
    pytest.importorskip("build")

REPO = Path(__file__).resolve().parents[1]
SMOKE = Path(__file__).resolve().parent / "wheel_smoke.py"
#: What of the dev environment's site-packages the fresh one must not see: mctslab's
#: own installation (its metadata, its editable finder and path) and the .pth files.
HIDDEN_PREFIXES = ("mctslab", "__editable__", "_mctslab")


def _clean_env() -> dict[str, str]:
    """This environment without PYTHONPATH or a virtual environment's variables."""
    drop = {"PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME", "PYTHONSTARTUP"}
    return {k: v for k, v in os.environ.items() if k not in drop}


def build_wheel(out: Path) -> Path:
    """The sdist, then the wheel from it, into ``out``; the wheel's path."""
    subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(REPO)],
        cwd=out,
        env=_clean_env(),
        capture_output=True,
        text=True,
        check=True,
    )
    (wheel,) = out.glob("mctslab-*.whl")
    return wheel


def link_dependencies(folder: Path) -> Path:
    """A folder of links to the dev environment's site-packages entries, mctslab's own
    installation and the ``.pth`` files left out."""
    site = Path(sysconfig.get_paths()["purelib"])
    folder.mkdir()
    for entry in site.iterdir():
        if entry.name.startswith(HIDDEN_PREFIXES) or entry.suffix == ".pth":
            continue
        (folder / entry.name).symlink_to(entry)
    return folder


def fresh_venv(root: Path, dependencies: Path) -> Path:
    """A virtual environment without pip (the dev environment's pip, seen through the
    links, installs into it), seeing ``dependencies``; its Python."""
    venv.EnvBuilder(with_pip=False, symlinks=True).create(root)
    python = root / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        env=_clean_env(),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(purelib, "_dev_dependencies.pth").write_text(f"{dependencies}\n")
    return python


def test_the_wheel_installs_into_a_fresh_environment_and_runs(tmp_path: Path) -> None:
    wheel = build_wheel(tmp_path)
    python = fresh_venv(tmp_path / "venv", link_dependencies(tmp_path / "dependencies"))
    cwd = tmp_path / "elsewhere"
    cwd.mkdir()
    env = _clean_env()
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "--no-index", "--no-cache-dir", str(wheel)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert install.returncode == 0, install.stdout + install.stderr
    assert "Successfully installed mctslab-" in install.stdout, install.stdout
    assert "Uninstalling" not in install.stdout, install.stdout
    smoke = subprocess.run(
        [str(python), str(SMOKE), mctslab.__version__],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert smoke.returncode == 0, smoke.stdout + smoke.stderr
    assert smoke.stdout.count("ok: ") == 7, smoke.stdout
