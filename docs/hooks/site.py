"""MkDocs hook of the documentation site (registered under ``hooks:`` in mkdocs.yml).

At build time, without writing into docs/ on disk (mkdocs 1.6's ``File.generated``):

- the home page, ``index.md``, is README.md, its links to ``docs/x.md`` made ``x.md``;
- each lesson, ``lessons/NN_name.ipynb``, becomes the page ``lessons/NN_name.md``
  (nbformat: markdown cells as markdown, code cells as fenced Python, text outputs as
  text blocks, image outputs as data URIs);
- the docs' links to repository files outside docs/ (``../benchmarks/results/x.png``,
  ``../examples/hexapawn.py``) point to copies of those files under ``repo/`` in the
  site, and ``../README.md#anchor`` to the home page;
- pages the lead adds later (:data:`OPTIONAL_PAGES`) join the navigation when they exist,
  so that the strict build does not fail before they do.
"""

from __future__ import annotations

import base64
import posixpath
import re
from pathlib import Path
from typing import Any

import nbformat
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

#: Pages that are not written yet: each joins the named top-level section of the
#: navigation once docs/<page> exists and mkdocs.yml's nav does not list it already.
OPTIONAL_PAGES: dict[str, list[str]] = {
    "Plan in my environment": ["adapters.md", "analysis-engine.md", "mcp.md"],
}

#: Where the copies of repository files outside docs/ go in the site.
REPO_DIR = "repo"

# A Markdown link or image whose target starts with ``../`` (outside docs/) or is a repo
# path written from the repository root (README.md's ``docs/x.md``).
_LINK = re.compile(r"(?P<bang>!?)\[(?P<text>[^\]]*)\]\((?P<target>[^)\s]+)\)")
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def _root(config: MkDocsConfig) -> Path:
    """The repository root: the folder of mkdocs.yml."""
    return Path(config.config_file_path).resolve().parent


def _nav_pages(nav: Any) -> set[str]:
    """Every page path named in a nav (nested lists of strings and one-key dicts)."""
    found: set[str] = set()
    if isinstance(nav, str):
        found.add(nav)
    elif isinstance(nav, list):
        for item in nav:
            found |= _nav_pages(item)
    elif isinstance(nav, dict):
        for value in nav.values():
            found |= _nav_pages(value)
    return found


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Add :data:`OPTIONAL_PAGES` that exist to their sections of the navigation."""
    docs = Path(config.docs_dir)
    listed = _nav_pages(config.nav)
    for item in config.nav or []:
        if not isinstance(item, dict):
            continue
        for title, children in item.items():
            for page in OPTIONAL_PAGES.get(title, []):
                if (docs / page).is_file() and page not in listed and isinstance(children, list):
                    children.append(page)
    return config


def _fence(text: str, language: str) -> str:
    """A fenced block longer than any run of backticks in ``text``."""
    runs = [len(m) for m in re.findall(r"`+", text)]
    ticks = "`" * max(3, max(runs, default=0) + 1)
    return f"{ticks}{language}\n{text.rstrip()}\n{ticks}\n"


def _output(output: Any) -> str:
    """One code cell output as Markdown: text as a text block, images as data URIs."""
    kind = output.get("output_type")
    if kind == "stream":
        return _fence(str(output.get("text", "")), "text")
    if kind == "error":
        return _fence(_ANSI.sub("", "\n".join(output.get("traceback", []))), "text")
    data = output.get("data", {})
    for mime in ("image/png", "image/jpeg"):
        if mime in data:
            return f"![output](data:{mime};base64,{str(data[mime]).strip()})\n"
    if "image/svg+xml" in data:
        svg = base64.b64encode(str(data["image/svg+xml"]).encode()).decode()
        return f"![output](data:image/svg+xml;base64,{svg})\n"
    if "text/plain" in data:
        return _fence(str(data["text/plain"]), "text")
    return ""


def notebook_markdown(path: Path) -> str:
    """A lesson notebook as one Markdown page, headed by where the notebook is."""
    book: Any = nbformat.read(path, as_version=4)  # type: ignore[no-untyped-call]
    parts: list[str] = []
    for index, cell in enumerate(book.cells):
        if cell.cell_type == "markdown":
            parts.append(cell.source.rstrip() + "\n")
            if index == 0:
                parts.append(
                    f'!!! note "This page is `lessons/{path.name}`"\n'
                    "    Run it yourself: `mctslab lessons` says where the notebooks are"
                    " and how to open them; the code cells below are its cells, without"
                    " their outputs unless the notebook stores them.\n"
                )
        elif cell.cell_type == "code" and cell.source.strip():
            parts.append(_fence(cell.source, "python"))
            parts.extend(filter(None, (_output(o) for o in cell.get("outputs", []))))
    return "\n".join(parts)


def _readme_markdown(text: str) -> str:
    """README.md as the home page: ``docs/x.md`` links become ``x.md``; links to other
    repository files become their text (the site does not hold them)."""

    def rewrite(match: re.Match[str]) -> str:
        target = match["target"]
        if "://" in target or target.startswith("#"):
            return match[0]
        if target.startswith("docs/"):
            return f"{match['bang']}[{match['text']}]({target.removeprefix('docs/')})"
        return match["text"]

    return _LINK.sub(rewrite, text)


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Generate the home page, the lesson pages and the copies of repository files."""
    root = _root(config)
    readme = (root / "README.md").read_text(encoding="utf-8")
    files.append(File.generated(config, "index.md", content=_readme_markdown(readme)))
    for notebook in sorted((root / "lessons").glob("*.ipynb")):
        page = f"lessons/{notebook.stem}.md"
        files.append(File.generated(config, page, content=notebook_markdown(notebook)))
    # Repository files the docs link to from outside docs/ (images, examples), copied.
    docs = Path(config.docs_dir).resolve()
    for doc in docs.rglob("*.md"):
        for match in _LINK.finditer(doc.read_text(encoding="utf-8")):
            target = match["target"].split("#")[0]
            source = (doc.parent / target).resolve()
            if "://" in target or not target or source.is_relative_to(docs):
                continue
            uri = f"{REPO_DIR}/{source.relative_to(root).as_posix()}"
            if (
                source.is_file()
                and source.name != "README.md"
                and files.get_file_from_path(uri) is None
            ):
                files.append(File.generated(config, uri, abs_src_path=str(source)))
    return files


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Point a docs page's ``../x`` links at the copies (``repo/x``) or the home page."""
    if page.file.generated_by is not None:
        return markdown
    depth = page.file.src_uri.count("/")

    def rewrite(match: re.Match[str]) -> str:
        path, _, anchor = match["target"].partition("#")
        if "://" in path or not path:
            return match[0]
        inside = posixpath.normpath(posixpath.join(posixpath.dirname(page.file.src_uri), path))
        if not inside.startswith("../"):
            return match[0]
        repo_path = inside.removeprefix("../")
        up = "../" * depth
        new = f"{up}index.md" if repo_path == "README.md" else f"{up}{REPO_DIR}/{repo_path}"
        new += f"#{anchor}" if anchor else ""
        return f"{match['bang']}[{match['text']}]({new})"

    return _LINK.sub(rewrite, markdown)
