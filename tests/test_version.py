"""mctslab's version has one place, ``mctslab.__version__``: setuptools reads it from the
file's syntax tree (pyproject's ``dynamic``, no import of numba), and ``mctslab
--version``, the web lab's ``/api/health``, SGF records, docs/games.md's SGF example and
the changelog's latest release all say the same."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

import mctslab
from mctslab.cli.main import app

REPO = Path(__file__).resolve().parents[1]


def test_the_version_is_0_2_0() -> None:
    assert mctslab.__version__ == "0.2.0"


def test_pyproject_takes_the_version_from_the_package() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert "version" not in project["project"]
    assert project["project"]["dynamic"] == ["version"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "mctslab.__version__"}


def test_setuptools_reads_it_without_importing_mctslab_or_numba() -> None:
    # read_attr tries the module's syntax tree first and imports only if that fails:
    # a build that imported mctslab would need numba (and compile) just to name itself.
    code = (
        "import sys\n"
        "from setuptools.config.expand import read_attr\n"
        "v = read_attr('mctslab.__version__', package_dir={'': 'src'}, root_dir='.')\n"
        "print(v, 'mctslab' in sys.modules, 'numba' in sys.modules)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == [mctslab.__version__, "False", "False"]


def test_the_command_line_says_it() -> None:
    done = CliRunner().invoke(app, ["--version"])
    assert done.exit_code == 0
    assert done.stdout.startswith(f"mctslab {mctslab.__version__} (Python ")


def test_the_web_labs_health_says_it() -> None:
    if os.environ.get("MCTSLAB_REQUIRE_EXTRAS"):
        import fastapi  # noqa: F401
    else:
        pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from mctslab.web.app import create_app
    from mctslab.web.settings import Settings

    with TestClient(create_app(Settings()), base_url="http://localhost") as client:
        answer = client.get("/api/health")
    assert answer.status_code == 200
    assert answer.json()["version"] == mctslab.__version__


def test_sgf_records_and_the_docs_example_say_it() -> None:
    from mctslab.games.go.sgf import SgfRecord, write_sgf

    text = write_sgf(SgfRecord())
    assert f"AP[mctslab:{mctslab.__version__}]" in text
    docs = (REPO / "docs" / "games.md").read_text()
    assert re.findall(r"AP\[mctslab:([^\]]+)\]", docs) == [mctslab.__version__]


def test_the_changelogs_latest_release_is_it() -> None:
    text = (REPO / "CHANGELOG.md").read_text()
    releases = re.findall(r"^## \[([^\]]+)\]", text, flags=re.MULTILINE)
    assert releases[0] == mctslab.__version__
    assert "0.1.0" in releases
