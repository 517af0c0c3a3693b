"""The README's library example runs (docs that run, as python-chess and pgx do)."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).parent.parent / "README.md"


def test_readme_ten_line_example_runs_and_prints_a_move() -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    example = blocks[0]
    assert len(example.strip().splitlines()) <= 12
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(example, "README.md", "exec"), {})
    text = out.getvalue()
    assert "MCTS plays" in text
    assert text.rstrip().endswith("0")  # tic-tac-toe solves to a draw
