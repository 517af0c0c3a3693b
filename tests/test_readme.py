"""The README's and docs/ pages' examples run and print what they show (docs that run:
python-chess doctests its README).

Every page is checked where it lives: README.md and each docs/*.md.

- Every ```python block runs, in its page's order and in one namespace per page,
  as a reader would type them into one session.
- What a block prints must be the ```text block right after it (blank lines
  between at most), line for line up to trailing spaces; a block with no such
  block must print nothing.
- A block is left out only when the line before it says why:
  ``<!-- not-run: reason -->``. The markers are counted per page (``NOT_RUN``),
  so a new block runs unless someone marks it, and says why, on purpose.
- A ```text block that starts with ``$ mctslab ...`` is a command and its exact
  output: it runs through the command line (the other shell blocks are the CLI
  tests' business).
- Every relative link (``[text](path)``, ``![image](path)``) names a file that
  exists, and a ``#anchor`` into a Markdown file names one of its headings.
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
PAGES = [README, *DOCS]

# The blocks marked <!-- not-run: ... -->, per page: the sketch of a game class and
# the search_chunk fragment. Change this only together with a marker.
NOT_RUN = {"docs/games.md": 2}

_MARKER = re.compile(r"<!--\s*not-run:\s*(\S.*?)\s*-->")


def name(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


pages = pytest.mark.parametrize("page", PAGES, ids=name)


@dataclass(frozen=True)
class Block:
    lang: str
    line: int  # the page's line of the block's first line of code (1-based)
    code: str
    before: str  # the last non-blank line above the opening fence
    after_gap: bool  # whether anything but blank lines separates it from the next block


def blocks(page: Path) -> list[Block]:
    """The fenced blocks of a page, in order."""
    lines = page.read_text(encoding="utf-8").splitlines()
    found: list[tuple[str, int, int, str]] = []  # lang, first code line, closing fence, before
    i = 0
    while i < len(lines):
        if lines[i].startswith("```"):
            lang = lines[i][3:].strip()
            end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
            before = next((lines[k] for k in range(i - 1, -1, -1) if lines[k].strip()), "")
            found.append((lang, i + 1, end, before))
            i = end + 1
        else:
            i += 1
    out = []
    for n, (lang, first, end, before) in enumerate(found):
        following = found[n + 1][1] - 1 if n + 1 < len(found) else len(lines)
        gap = any(line.strip() for line in lines[end + 1 : following])
        out.append(Block(lang, first + 1, "\n".join(lines[first:end]), before, gap))
    return out


def prose(page: Path) -> list[tuple[int, str]]:
    """The page's lines outside fenced blocks, with their line numbers (1-based)."""
    out, fenced = [], False
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced:
            out.append((number, line))
    return out


def shown_output(all_blocks: list[Block], k: int) -> str | None:
    """The output a page shows for block ``k``: the ```text block right after it."""
    block = all_blocks[k]
    if k + 1 < len(all_blocks) and not block.after_gap and all_blocks[k + 1].lang == "text":
        return all_blocks[k + 1].code
    return None


def same_text(got: str) -> list[str]:
    """Lines without trailing spaces, trailing blank lines dropped."""
    return "\n".join(line.rstrip() for line in got.splitlines()).rstrip("\n").splitlines()


def test_not_run_names_only_pages_that_exist() -> None:
    assert set(NOT_RUN) <= {name(p) for p in PAGES}
    assert sum(b.lang == "python" for p in PAGES for b in blocks(p)) >= 4


@pages
def test_every_python_block_runs_unless_marked(page: Path) -> None:
    python = [b for b in blocks(page) if b.lang == "python"]
    skipped = [b for b in python if _MARKER.fullmatch(b.before.strip())]
    assert len(skipped) == NOT_RUN.get(name(page), 0), [f"{name(page)}:{b.line}" for b in skipped]
    # A marker must sit right above a python block (not above prose or another block).
    markers = page.read_text(encoding="utf-8").count("not-run:")
    assert markers == NOT_RUN.get(name(page), 0)


@pages
def test_python_blocks_print_what_the_page_shows(page: Path) -> None:
    all_blocks = blocks(page)
    namespace: dict[str, object] = {"__name__": "readme"}
    ran = 0
    for k, block in enumerate(all_blocks):
        if block.lang != "python" or _MARKER.fullmatch(block.before.strip()):
            continue
        out = io.StringIO()
        # Padded so that a traceback names the page's own line numbers.
        code = compile("\n" * (block.line - 1) + block.code, str(page), "exec")
        with contextlib.redirect_stdout(out):
            exec(code, namespace)
        ran += 1
        want = shown_output(all_blocks, k)
        where = f"the python block at {name(page)}:{block.line}"
        if want is None:
            assert out.getvalue() == "", f"{where} prints output the page does not show"
        else:
            assert same_text(out.getvalue()) == same_text(want), f"{where} prints otherwise"
    assert ran == sum(b.lang == "python" for b in all_blocks) - NOT_RUN.get(name(page), 0)


def test_ten_lines_are_ten_lines() -> None:
    first = next(b for b in blocks(README) if b.lang == "python")
    assert len(first.code.splitlines()) <= 10  # the section is "In ten lines"


def test_some_page_shows_a_command_and_its_output() -> None:
    # `mctslab tree`'s example (docs/cli.md)
    assert any(
        b.lang == "text" and b.code.startswith("$ mctslab ") for p in PAGES for b in blocks(p)
    )


@pages
def test_shown_commands_print_their_output(page: Path) -> None:
    from typer.testing import CliRunner

    from mctslab.cli.main import app

    commands = [b for b in blocks(page) if b.lang == "text" and b.code.startswith("$ mctslab ")]
    for block in commands:
        command, _, want = block.code.partition("\n")
        result = CliRunner().invoke(app, shlex.split(command)[2:])
        where = f"{name(page)}:{block.line}: {command}"
        assert result.exit_code == 0, f"{where}: {result.output}"
        assert same_text(result.stdout) == same_text(want), where


def test_the_venv_is_activated_before_the_first_command_example() -> None:
    # `make run` installs mctslab into .venv: a newcomer pasting `mctslab ...` needs
    # to be told how to reach it before the first example that runs it.
    text = README.read_text(encoding="utf-8")
    first_command = min(
        b.line
        for b in blocks(README)
        if b.lang in ("sh", "console", "bash")
        and any(line.split("#")[0].strip().startswith("mctslab ") for line in b.code.splitlines())
    )
    said = text.find("source .venv/bin/activate")
    assert said >= 0, "the README does not say how to activate .venv"
    assert text[:said].count("\n") + 1 < first_command


_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
_CODE_SPAN = re.compile(r"`[^`]*`")


def anchors(page: Path) -> set[str]:
    """The anchors GitHub gives a page's headings: lower case, punctuation dropped,
    spaces to hyphens, ``-1``, ``-2``, ... after a repeated one."""
    seen: Counter[str] = Counter()
    out = set()
    for _, line in prose(page):
        heading = re.match(r"#{1,6} +(.*?)\s*#*\s*$", line)
        if heading is None:
            continue
        slug = re.sub(r"[^\w\- ]", "", heading[1].lower()).replace(" ", "-")
        out.add(slug if not seen[slug] else f"{slug}-{seen[slug]}")
        seen[slug] += 1
    return out


def test_anchors_are_githubs() -> None:
    assert {"minimax-mctslabsearchminimax", "the-options-searchconfig"} <= anchors(
        ROOT / "docs" / "search.md"
    )


@pages
def test_relative_links_point_to_what_exists(page: Path) -> None:
    broken = []
    for number, line in prose(page):
        for target in _LINK.findall(_CODE_SPAN.sub("", line)):
            if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
                continue
            path, _, anchor = target.partition("#")
            linked = (page.parent / path).resolve() if path else page
            if not linked.exists():
                broken.append(f"{name(page)}:{number}: {target} (no such file)")
            elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
                broken.append(f"{name(page)}:{number}: {target} (no such heading)")
    assert not broken, "\n".join(broken)


def test_the_readme_links_every_docs_page() -> None:
    text = README.read_text(encoding="utf-8")
    assert DOCS
    assert [p for p in DOCS if f"]({name(p)})" not in text] == []
