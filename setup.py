"""The build's one step that pyproject.toml cannot say: the lessons in the wheel.

The course's notebooks live in the repository's ``lessons/`` (beside ``src/``, where
``make test`` executes them and the docs link them), not inside the package. The wheel
carries them as package data, ``mctslab/lessons_data/``, so that ``mctslab lessons``
finds them in an installation without the source tree. The sdist carries ``lessons/``
(MANIFEST.in), so a wheel built from the sdist, as ``python -m build`` builds it, has
them too. Everything else about the build is in pyproject.toml.
"""

from __future__ import annotations

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
#: The lesson files the wheel ships: the notebooks and the module lesson 11 grades.
LESSON_PATTERNS = ("*.ipynb", "*.py")


def lesson_files() -> list[Path]:
    """The files of ``lessons/`` the wheel ships, sorted (none outside a source tree)."""
    folder = HERE / "lessons"
    return sorted(p for pattern in LESSON_PATTERNS for p in folder.glob(pattern) if p.is_file())


class BuildPyWithLessons(build_py):
    """``build_py``, then ``lessons/`` copied to ``mctslab/lessons_data/`` in the build."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:  # an editable install reads the source tree's lessons/
            return
        target = Path(self.build_lib) / "mctslab" / "lessons_data"
        self.mkpath(str(target))
        for path in lesson_files():
            self.copy_file(str(path), str(target / path.name))

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs = list(super().get_outputs(include_bytecode))
        if not self.editable_mode:
            target = Path(self.build_lib) / "mctslab" / "lessons_data"
            outputs += [str(target / path.name) for path in lesson_files()]
        return outputs


setup(cmdclass={"build_py": BuildPyWithLessons})
