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

__all__ = ["lesson_titles", "lessons_command", "lessons_folder"]


def lessons_folder() -> Path:
    """The source tree's ``lessons/`` beside this package (``src/mctslab/..``)."""
    return Path(__file__).resolve().parents[3] / "lessons"


def lesson_titles(folder: Path) -> list[tuple[str, str]]:
    """Each notebook's file name and title (its first heading, ``# Lesson N: ...``)."""
    found = []
    for path in sorted(folder.glob("*.ipynb")):
        title = path.stem
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            text = "".join(cell["source"]).strip()
            if cell["cell_type"] == "markdown" and text.startswith("# "):
                title = text.splitlines()[0][2:].strip()
                break
        found.append((path.name, title))
    return found


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
    print(
        "Open them in JupyterLab, which no extra of mctslab installs (pip install "
        f"jupyterlab, then jupyter lab {folder}), or in VS Code; run one headless with "
        f"jupyter execute {folder / titles[0][0]} (nbclient's command, in the dev extra "
        "that make test installs; make test runs them all). "
        "docs/lessons.md says what each one covers."
    )
