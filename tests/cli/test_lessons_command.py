"""``mctslab lessons``: lists the notebooks with their titles and says how to open them;
without the source tree's lessons/ it says so in one error line, exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from mctslab.cli import lessons
from mctslab.cli.main import app


def test_the_command_lists_every_lesson_with_its_title() -> None:
    done = CliRunner().invoke(app, ["lessons"])
    assert done.exit_code == 0, done.output
    notebooks = sorted(p.name for p in lessons.lessons_folder().glob("*.ipynb"))
    assert notebooks and all(name in done.stdout for name in notebooks)
    assert "Lesson 4: The worked UCT example" in done.stdout
    assert "jupyter lab" in done.stdout and "docs/lessons.md" in done.stdout


def test_without_the_lessons_it_says_where_they_are(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(lessons, "lessons_folder", lambda: tmp_path / "nowhere")
    done = CliRunner().invoke(app, ["lessons"])
    assert done.exit_code == 2
    assert done.stderr.startswith("error: the lessons are notebooks") and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1
