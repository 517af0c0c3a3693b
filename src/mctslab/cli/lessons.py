"""``mctslab lessons``: where the course's notebooks are, and how to open them.

The lessons (``lessons/*.ipynb`` in the source tree, indexed in docs/lessons.md) follow
the classic MCTS course material: each is a Jupyter notebook that imports only
mctslab's public API, and ``make test`` executes them all and checks their numbers.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer

from mctslab.cli.app import EXIT_USER_ERROR, app

__all__ = ["NotANotebook", "lesson_titles", "lessons_command", "lessons_folder"]


def lessons_folder() -> Path:
    """The source tree's ``lessons/`` beside this package (``src/mctslab/..``)."""
    return Path(__file__).resolve().parents[3] / "lessons"


class NotANotebook(ValueError):
    """A lesson file that is not a readable Jupyter notebook (the message says why)."""


def lesson_titles(folder: Path) -> list[tuple[str, str]]:
    """Each notebook's file name and title (its first heading, ``# Lesson N: ...``); a
    file that is not a readable notebook gets ``(not a readable notebook: WHY)``."""
    found = []
    for path in sorted(folder.glob("*.ipynb")):
        try:
            title = _title(path)
        except NotANotebook as err:
            title = f"(not a readable notebook: {err})"
        found.append((path.name, title))
    return found


def _title(path: Path) -> str:
    """The first ``# `` heading of a markdown cell of the notebook ``path`` (its name
    without one); :class:`NotANotebook` for invalid JSON or cells of another shape."""
    try:
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        for cell in cells:
            source = cell["source"]
            text = ("".join(source) if isinstance(source, list) else str(source)).strip()
            if cell["cell_type"] == "markdown" and text.startswith("# "):
                return text.splitlines()[0][2:].strip()
    except (OSError, ValueError, RecursionError) as err:  # UnicodeDecodeError, JSON's
        raise NotANotebook(f"{type(err).__name__}: {str(err)[:80]}") from None
    except (KeyError, TypeError, AttributeError) as err:
        raise NotANotebook(f"no cells of a notebook ({type(err).__name__})") from None
    return path.stem


@app.command("lessons")
def lessons_command() -> None:
    """List the lessons (Jupyter notebooks of the MCTS course) and say how to open them."""
    folder = lessons_folder()
    titles = lesson_titles(folder) if folder.is_dir() else []
    if not titles:
        print(
            "error: the lessons are notebooks in the source tree's lessons/ folder, which "
            "this installation does not have: clone the repository and run "
            "mctslab lessons there",
            file=sys.stderr,
        )
        raise typer.Exit(EXIT_USER_ERROR)
    print(f"The lessons are in {folder}:")
    for name, title in titles:
        print(f"  {name:<24} {title}")
    broken = [name for name, title in titles if title.startswith("(not a readable notebook")]
    print(
        "Open them in JupyterLab, which no extra of mctslab installs (pip install "
        f"jupyterlab, then jupyter lab {folder}), or in VS Code; run one headless with "
        f"jupyter execute {folder / titles[0][0]} (nbclient's command, in the dev extra "
        "that make test installs; make test runs them all). "
        "docs/lessons.md says what each one covers."
    )
    if broken:  # listed with the reason above; the exit status says something is wrong
        print(
            f"error: {', '.join(broken)} in {folder}: not a readable notebook (see above); "
            "restore it from the repository (git checkout -- lessons/)",
            file=sys.stderr,
        )
        raise typer.Exit(EXIT_USER_ERROR)
