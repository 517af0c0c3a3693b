"""``mctslab mcp`` without its extra: one ``error:`` line naming the extra, exit 2."""

from __future__ import annotations

import sys

import pytest
from typer.testing import CliRunner

from mctslab.cli.main import app


def test_mcp_without_the_sdk_says_to_install_the_extra_and_exits_2(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A None in sys.modules makes `import mcp` raise ImportError, as a missing SDK does.
    for name in [m for m in sys.modules if m == "mcp" or m.startswith("mcp.")]:
        monkeypatch.delitem(sys.modules, name)
    for name in [m for m in sys.modules if m.startswith("mctslab.mcp")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "mcp", None)
    result = CliRunner().invoke(app, ["mcp"])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert lines == [
        "error: mctslab mcp needs the mcp extra (mcp is missing): pip install 'mctslab[mcp]'"
    ]
