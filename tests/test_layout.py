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
