"""The package's layout rules that import-linter does not check.

What one module shares with another is public: no module imports another module's
underscore names (``from mctslab.search.mcts import _robust``) or reads them through
the module (``mcts._robust``). The layers and the absence of import cycles are
checked by ``lint-imports`` in ``make test`` (pyproject.toml's contracts).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "mctslab"
MODULES = sorted(p for p in SRC.rglob("*.py"))


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def private_imports(source: str, here: str) -> list[str]:
    """``module: name`` for each underscore name module ``here`` (its ``source``) takes
    from another mctslab module."""
    tree = ast.parse(source)
    found = []
    aliases: dict[str, str] = {}  # local name -> mctslab module it stands for
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("mctslab"):
            for alias in node.names:
                if alias.name.startswith("_") and node.module != here:
                    found.append(f"{node.module}: {alias.name}")
                aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("mctslab"):
                    aliases[alias.asname or alias.name.split(".")[0]] = alias.name
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
        ):
            target = aliases[node.value.id]
            if (
                target != here
                and (SRC.parent / target.replace(".", "/")).with_suffix(".py").exists()
            ):
                found.append(f"{target}: {node.attr}")
    return found


@pytest.mark.parametrize("path", MODULES, ids=_module_name)
def test_no_module_imports_another_modules_private_names(path: Path) -> None:
    assert private_imports(path.read_text(), _module_name(path)) == []


def test_the_check_sees_a_private_import() -> None:
    source = "from mctslab.search.mcts import _rewards\nimport mctslab.search.mcts as m\nm._count\n"
    assert private_imports(source, "mctslab.search.trace") == [
        "mctslab.search.mcts: _rewards",
        "mctslab.search.mcts: _count",
    ]
    assert private_imports(source, "mctslab.search.mcts") == []  # its own names


TESTS = Path(__file__).resolve().parent
# Folders of tests/ that mirror no package: the data the tests read, the lessons' notebooks.
NOT_MIRRORS = {"data", "lessons"}


def test_every_test_folder_mirrors_a_package() -> None:
    """tests/ mirrors src/mctslab/ (docs/layout.md): each folder of tests, ``tests/games/go``
    say, is a package of the source, ``src/mctslab/games/go``."""
    folders = {
        p.relative_to(TESTS)
        for p in TESTS.rglob("*")
        if p.is_dir() and p.name != "__pycache__" and not p.name.startswith(".")
    }
    strays = sorted(
        f.as_posix()
        for f in folders
        if f.parts[0] not in NOT_MIRRORS and not (SRC / f / "__init__.py").exists()
    )
    assert not strays, f"test folders that mirror no package of src/mctslab: {strays}"


def test_test_files_have_unique_names() -> None:
    """Without ``__init__.py`` in tests/, pytest imports a test file by its base name: two
    of one name in two folders fail to import, so a nested package's tests carry its name
    (``tests/games/go/test_go_status.py``)."""
    names = [p.name for p in TESTS.rglob("test_*.py")]
    assert sorted({n for n in names if names.count(n) > 1}) == []
