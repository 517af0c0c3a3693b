"""``mctslab lessons``: lists the notebooks with their titles and says how to open them;
finds the source tree's lessons/, else the installed package's lessons_data/; without
either it says so in one error line, exit 2; ``--copy DIR`` copies them and never
overwrites a file."""

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


def test_in_the_source_tree_the_folder_is_the_repositorys_lessons() -> None:
    repo = Path(__file__).resolve().parents[2]
    assert lessons.lessons_folder() == repo / "lessons"


def test_installed_the_folder_is_the_packages_lessons_data(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # A wheel's install: site-packages/mctslab/cli/lessons.py, no src/ above it, even
    # with a lessons/ folder where the source tree's would be.
    module = tmp_path / "lib" / "site-packages" / "mctslab" / "cli" / "lessons.py"
    module.parent.mkdir(parents=True)
    (tmp_path / "lib" / "lessons").mkdir()
    monkeypatch.setattr(lessons, "__file__", str(module))
    assert lessons.lessons_folder() == tmp_path / "lib" / "site-packages" / "mctslab" / (
        "lessons_data"
    )


def test_copy_puts_every_notebook_and_the_graded_module_in_the_folder(tmp_path: Path) -> None:
    target = tmp_path / "my" / "course"
    done = CliRunner().invoke(app, ["lessons", "--copy", str(target)])
    assert done.exit_code == 0, done.output
    source = lessons.lessons_folder()
    expected = [*sorted(p.name for p in source.glob("*.ipynb")), "find_the_bugs.py"]
    assert sorted(p.name for p in target.iterdir()) == sorted(expected)
    for name in expected:
        assert (target / name).read_bytes() == (source / name).read_bytes()
    assert f"Copied {len(expected)} files into {target.resolve()}" in done.stdout
    assert f"jupyter lab {target.resolve()}" in done.stdout


def test_copy_refuses_to_overwrite_and_copies_nothing(tmp_path: Path) -> None:
    (tmp_path / "02_bandits.ipynb").write_text("my work")
    done = CliRunner().invoke(app, ["lessons", "--copy", str(tmp_path)])
    assert done.exit_code == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: --copy")
    assert "02_bandits.ipynb" in lines[0] and "nothing copied" in lines[0]
    assert [p.name for p in tmp_path.iterdir()] == ["02_bandits.ipynb"]
    assert (tmp_path / "02_bandits.ipynb").read_text() == "my work"


def test_copy_onto_a_file_is_an_error_line(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    done = CliRunner().invoke(app, ["lessons", "--copy", str(tmp_path / "file")])
    assert done.exit_code == 2
    assert done.stderr.startswith("error: --copy") and "not a directory" in done.stderr
