"""The documentation site (mkdocs.yml, docs/hooks/): every public name has a docstring
for the API reference to show, every page of docs/ is in the navigation, and the hook
turns the README and the lesson notebooks into pages.

The strict build itself runs in ``make test`` (``make docs-build``), not here. These tests
read the sources as the API reference does (griffe, statically) and need the ``docs``
extra: without it they skip, or fail under ``MCTSLAB_REQUIRE_EXTRAS``.
"""

from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

if os.environ.get("MCTSLAB_REQUIRE_EXTRAS"):
    # `make test` installs every extra: a missing MkDocs fails here instead of skipping.
    import griffe
    import mkdocs  # noqa: F401
    import yaml
else:
    griffe = pytest.importorskip("griffe")
    pytest.importorskip("mkdocs")
    yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _faces() -> list[str]:
    """mctslab and each of its subpackages whose ``__init__`` has an ``__all__``."""
    inits = [
        ROOT / "src/mctslab/__init__.py",
        *sorted((ROOT / "src/mctslab").glob("*/__init__.py")),
    ]
    faces = []
    for init in inits:
        if re.search(r"^__all__\s*[:=]", init.read_text(encoding="utf-8"), re.MULTILINE):
            package = init.parent.relative_to(ROOT / "src").as_posix().replace("/", ".")
            faces.append(package)
    return faces


def _undocumented(face: Any, name: str) -> str | None:
    """``face.name (where it is defined)`` when that object has no docstring, else None."""
    member = face.members[name]
    target = member.final_target if member.is_alias else member
    if target.is_module and name in target.members and not face.is_alias:
        # `from pkg.app import app` in pkg/__init__.py: griffe sees the module pkg.app
        # under that name, Python the object imported over it.
        inner = target.members[name]
        target = inner.final_target if inner.is_alias else inner
    docstring = target.docstring.value.strip() if target.docstring else ""
    return None if docstring else f"{face.path}.{name} ({target.path})"


def test_every_name_of_a_public_face_has_a_docstring() -> None:
    """Each name in the ``__all__`` of mctslab and of its subpackages is an object with a
    docstring, as the API reference (mkdocstrings, from the sources) reads it."""
    loader = griffe.GriffeLoader(search_paths=[str(ROOT / "src")], allow_inspection=False)
    package = loader.load("mctslab")
    faces = _faces()
    assert {"mctslab", "mctslab.games", "mctslab.arena"} <= set(faces)
    missing: list[str] = []
    for path in faces:
        face = package if path == "mctslab" else package.get_member(path.removeprefix("mctslab."))
        assert face.exports is not None, f"{path} has an __all__ griffe does not read"
        for export in face.exports:
            name = export if isinstance(export, str) else export.name
            undocumented = _undocumented(face, name)
            if undocumented:
                missing.append(undocumented)
    assert not missing, "public names without a docstring: " + ", ".join(missing)


def _nav_pages(nav: Any) -> set[str]:
    if isinstance(nav, str):
        return {nav}
    if isinstance(nav, list):
        return set().union(*(_nav_pages(item) for item in nav))
    if isinstance(nav, dict):
        return set().union(*(_nav_pages(value) for value in nav.values()))
    return set()


def _hook() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_site_hook", DOCS / "hooks/site.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_page_of_docs_and_every_lesson_is_in_the_navigation() -> None:
    """Every docs/**/*.md (the hook's own folder aside) and every lesson notebook's page
    is in mkdocs.yml's nav, or is a page the hook adds to it (OPTIONAL_PAGES)."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    listed = _nav_pages(config["nav"])
    listed |= {page for pages in _hook().OPTIONAL_PAGES.values() for page in pages}
    pages = {
        page.relative_to(DOCS).as_posix()
        for page in DOCS.rglob("*.md")
        if page.relative_to(DOCS).parts[0] not in {"hooks", "javascripts"}
    }
    lessons = {f"lessons/{book.stem}.md" for book in (ROOT / "lessons").glob("*.ipynb")}
    assert "web.md" in pages and "reference/mctslab.md" in pages and len(lessons) >= 11
    absent = sorted((pages | lessons | {"index.md"}) - listed)
    assert not absent, "pages missing from mkdocs.yml's nav: " + ", ".join(absent)


def test_the_hook_makes_pages_of_the_readme_and_of_a_notebook() -> None:
    """README's ``docs/x.md`` links become ``x.md``, other repository files their text;
    a notebook's markdown stays markdown (its formula included) and its code becomes
    fenced Python."""
    hook = _hook()
    home = hook._readme_markdown(
        "[the web lab](docs/web.md#api) and [DEVELOPERS.md](DEVELOPERS.md)"
    )
    assert home == "[the web lab](web.md#api) and DEVELOPERS.md"
    page = hook.notebook_markdown(ROOT / "lessons/02_bandits.ipynb")
    assert page.startswith("# Lesson 2: Bandits")
    assert "$$\\mathrm{UCB1}(\\text{child})" in page
    assert "```python\nimport json\n" in page


def test_the_roles_extension_shows_sphinx_roles_as_code() -> None:
    """``:class:`~a.B``` shows ``B``, ``:mod:`a.b``` shows ``a.b``, an explicit title
    its title: the API reference does not print the roles' names."""
    spec = importlib.util.spec_from_file_location("griffe_roles", DOCS / "hooks/griffe_roles.py")
    assert spec is not None and spec.loader is not None
    roles = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(roles)
    text = "See :class:`~mctslab.core.game.Game`, :mod:`mctslab.arena` and :func:`the search <search>`."
    assert roles.rewrite_roles(text) == "See `Game`, `mctslab.arena` and `the search`."
