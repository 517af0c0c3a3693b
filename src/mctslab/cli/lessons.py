"""``mctslab lessons``: where the course's notebooks are, how to open them, and a copy of
them to work in (``--copy DIR``).

The lessons (``lessons/*.ipynb`` in the source tree, indexed in docs/lessons.md) follow
the classic MCTS course material: each is a Jupyter notebook that imports only
mctslab's public API, and ``make test`` executes them all and checks their numbers. The
wheel ships them as package data (``mctslab/lessons_data/``, copied there by setup.py's
build step), so an installation without the source tree has them too.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Annotated

import typer

from mctslab.cli.app import EXIT_USER_ERROR, CliError, app, check_output_dir, user_errors

__all__ = [
    "LESSON_PATTERNS",
    "NotANotebook",
    "copy_lessons",
    "lesson_files",
    "lesson_titles",
    "lessons_command",
    "lessons_folder",
]

#: The files of a lessons folder that make the course: the notebooks and the module
#: lesson 11 grades (setup.py ships the same patterns).
LESSON_PATTERNS = ("*.ipynb", "*.py")


def lessons_folder() -> Path:
    """The source tree's ``lessons/`` beside this package (``src/mctslab/../..``) when
    there is one (a checkout, an editable install), else the installed package's
    ``mctslab/lessons_data/`` (a wheel's install)."""
    here = Path(__file__).resolve()
    source = here.parents[3] / "lessons"
    if here.parents[2].name == "src" and source.is_dir():
        return source
    return here.parents[1] / "lessons_data"


def lesson_files(folder: Path) -> list[Path]:
    """The course's files in ``folder`` (:data:`LESSON_PATTERNS`), sorted by name."""
    found = {p for pattern in LESSON_PATTERNS for p in folder.glob(pattern) if p.is_file()}
    return sorted(found, key=lambda p: p.name)


def copy_lessons(folder: Path, target: Path) -> list[Path]:
    """Copy the course's files of ``folder`` into ``target`` (created if missing) and
    return the copies; a :class:`~mctslab.cli.app.CliError` naming them, and nothing
    copied, when any of them exists there already (a student's work is never
    overwritten)."""
    check_output_dir(target, "--copy")
    files = lesson_files(folder)
    existing = [path.name for path in files if (target / path.name).exists()]
    if existing:
        raise CliError(
            f"--copy {str(target)!r}: {', '.join(existing)} already there; nothing copied "
            "(choose another folder, or move those files away)"
        )
    target.mkdir(parents=True, exist_ok=True)
    return [Path(shutil.copy2(path, target / path.name)) for path in files]


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
def lessons_command(
    copy: Annotated[
        Path | None,
        typer.Option(
            "--copy",
            metavar="DIR",
            help="Copy the notebooks (and find_the_bugs.py) into DIR, created if missing, "
            "to work on them there; files already in DIR are never overwritten.",
        ),
    ] = None,
) -> None:
    """List the lessons (Jupyter notebooks of the MCTS course) and say how to open them."""
    folder = lessons_folder()
    titles = lesson_titles(folder) if folder.is_dir() else []
    if not titles:
        print(
            "error: the lessons are notebooks in the source tree's lessons/ folder or the "
            f"package's lessons_data/ ({folder}), and this installation has neither: "
            "reinstall mctslab from its wheel, or clone the repository and run "
            "mctslab lessons there",
            file=sys.stderr,
        )
        raise typer.Exit(EXIT_USER_ERROR)
    if copy is not None:
        with user_errors():
            copied = copy_lessons(folder, copy)
        folder = copy.resolve()
        print(f"Copied {len(copied)} files into {folder}:")
    else:
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
    if copy is None:
        print("To work on your own copy: mctslab lessons --copy DIR.")
    if broken:  # listed with the reason above; the exit status says something is wrong
        print(
            f"error: {', '.join(broken)} in {folder}: not a readable notebook (see above); "
            "restore it from the repository (git checkout -- lessons/)",
            file=sys.stderr,
        )
        raise typer.Exit(EXIT_USER_ERROR)
