"""What a new user meets first on the command line: ``--version``, help that shows no
type after a flag, and the small outputs the first-contact trial found wrong."""

from __future__ import annotations

import re

from typer.testing import CliRunner, Result

from mctslab import __version__
from mctslab.cli.main import app

runner = CliRunner()


def ok(*args: str) -> Result:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    return result


def test_version_prints_mctslab_and_its_runtime() -> None:
    line = ok("--version").stdout.strip()
    assert re.fullmatch(
        rf"mctslab {re.escape(__version__)} \(Python 3\.\d+\.\d+, numba \S+, numpy \S+\)", line
    ), line


def test_help_shows_no_type_after_a_flag() -> None:
    for command in ((), ("games",), ("arena",), ("search",), ("train",)):
        text = ok(*command, "--help").stdout
        assert "<bool>" not in text, command
        assert "--help" in text
    assert "<int>" in ok("arena", "--help").stdout  # options that take a value keep theirs
