"""docs/layout.md's module map and layer line are the code's.

The map (the code block that opens with ``src/mctslab/``) has a block per package: the
package's path relative to ``src/mctslab`` at the start of a line (``  search/reference/``;
the root's block is the ``src/mctslab/`` line itself), continued on lines indented
further. A block names each module of its package by its path relative to the package
(``tree.py`` in ``search/reference/``) and may name its subpackages and data folders
(``go/``, ``static/``). So a module added without a word in the map fails here, and so
does a name the map keeps after its module has moved or gone. The layer line must be
the layers contract of pyproject.toml, the one ``lint-imports`` enforces.
(docs/layout.md's table of size exceptions is read by tests/test_code_shape.py.)
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "mctslab"
LAYOUT = ROOT / "docs" / "layout.md"

_ROOT_HEADER = "src/mctslab/"
# A package's block starts a line: two spaces, its path, a space or the line's end.
_HEADER = re.compile(r"^  ([a-z_]\w*(?:/[a-z_]\w*)*/)(?= |$)")
# A name in a block: a path ending in ``.py`` or in ``/``, standing alone (not inside a
# dotted name, a URL or a longer path such as ``docs/lessons.md``).
_NAME = re.compile(r"(?<![\w./-])([A-Za-z_]\w*(?:/[A-Za-z_]\w*)*(?:\.py|/))(?![\w./-])")


def module_map(text: str) -> dict[str, list[str]]:
    """The map's blocks: the package's path (``""`` for ``src/mctslab``, else like
    ``"search/reference/"``) -> the names its block gives, as written."""
    lines = text.splitlines()
    start = lines.index(_ROOT_HEADER) if _ROOT_HEADER in lines else None
    if start is None:
        start = next(i for i, line in enumerate(lines) if line.startswith(_ROOT_HEADER + " "))
    blocks: dict[str, list[str]] = {}
    current = ""
    for line in lines[start:]:
        if line.startswith(_ROOT_HEADER):
            body = line[len(_ROOT_HEADER) :]
        elif (header := _HEADER.match(line)) is not None:
            current = header.group(1)
            assert current not in blocks, f"docs/layout.md's map has two blocks {current}"
            body = line[header.end() :]
        elif line.startswith("   "):  # a block's continuation
            body = line
        else:  # the end of the map: ``examples/``, ``tests/`` or the closing fence
            break
        blocks.setdefault(current, []).extend(_NAME.findall(body))
    return blocks


def packages() -> list[str]:
    """Every package under src/mctslab, as the map's headers write it (``""``, ``"web/routes/"``)."""
    return sorted(
        "" if p.parent == SRC else p.parent.relative_to(SRC).as_posix() + "/"
        for p in SRC.rglob("__init__.py")
    )


def modules() -> dict[str, list[str]]:
    """Every module's file by package: ``"search/reference/" -> ["phases.py", ...]``; a
    subpackage's ``__init__.py`` is its block, the root's is named in the root's."""
    found: dict[str, list[str]] = {package: [] for package in packages()}
    for path in SRC.rglob("*.py"):
        package = path.parent.relative_to(SRC).as_posix() + "/" if path.parent != SRC else ""
        if path.name != "__init__.py" or package == "":
            found[package].append(path.name)
    return {package: sorted(names) for package, names in found.items()}


def missing(blocks: dict[str, list[str]]) -> list[str]:
    """The packages without a block and the modules their package's block does not name."""
    absent = [package or _ROOT_HEADER for package in packages() if package not in blocks]
    for package, names in modules().items():
        named = set(blocks.get(package, []))
        absent += [package + name for name in names if name not in named]
    return sorted(absent)


def stale(blocks: dict[str, list[str]]) -> list[str]:
    """The names in the map that are no module, package or folder of their block's."""
    return sorted(
        package + name
        for package, names in blocks.items()
        for name in names
        if not (SRC / package / name).exists() or name.endswith("__pycache__/")
    )


def test_every_package_and_module_is_in_the_map() -> None:
    absent = missing(module_map(LAYOUT.read_text(encoding="utf-8")))
    assert not absent, (
        f"not named in docs/layout.md's map (each module by its path in its package's "
        f"block, each package a block of its own): {absent}"
    )


def test_every_name_in_the_map_is_in_the_code() -> None:
    gone = stale(module_map(LAYOUT.read_text(encoding="utf-8")))
    assert not gone, f"docs/layout.md's map names what src/mctslab does not hold: {gone}"


def test_the_map_reader_sees_a_missing_and_a_stale_module() -> None:
    """The reader bites: a map without ``search/reference/tree.py``, which names a
    ``gone.py``, is caught both ways; names inside longer paths are not names."""
    text = (LAYOUT.read_text(encoding="utf-8")).replace(
        "the reference engine by concept, in the order of an iteration: tree.py",
        "the reference engine by concept, in the order of an iteration: gone.py",
    )
    blocks = module_map(text)
    assert "gone.py" in blocks["search/reference/"]
    assert "search/reference/tree.py" in missing(blocks)
    assert stale(blocks) == ["search/reference/gone.py"]
    sample = "src/mctslab/  a.py (see docs/lessons.md, mctslab.players.clock), b/\n  c/  d.py\n"
    assert module_map(sample) == {"": ["a.py", "b/"], "c/": ["d.py"]}


def layers_in_doc(text: str) -> list[list[str]]:
    """docs/layout.md's layer line, ``Layers, from the top: `cli` > ... ;``, as the layers
    top down, each a list of its independent subpackages."""
    line = " ".join(text.split("Layers, from the top:", 1)[1].split(";", 1)[0].split())
    return [re.findall(r"`(\w+)`", layer) for layer in line.split(">")]


def layers_contract() -> list[list[str]]:
    """pyproject.toml's layers contract, in the same shape."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contract = next(c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers")
    return [
        [name.strip().removeprefix("mctslab.") for name in layer.split("|")]
        for layer in contract["layers"]
    ]


def test_the_layer_line_is_the_layers_contract() -> None:
    assert layers_in_doc(LAYOUT.read_text(encoding="utf-8")) == layers_contract()


def test_every_subpackage_is_in_a_layer() -> None:
    top = sorted(p.removesuffix("/") for p in packages() if p.count("/") == 1)
    assert sorted(name for layer in layers_contract() for name in layer) == top
