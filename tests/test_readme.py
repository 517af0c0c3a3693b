"""The README's examples run and print what it shows (docs that run: python-chess doctests its README).

- Every ```python block runs, in the README's order and in one namespace, as a
  reader would type them into one session ("Two engines, one tree" searches the
  ``state`` of "In ten lines").
- What a block prints must be the ```text block right after it (blank lines
  between at most), line for line up to trailing spaces; a block with no such
  block must print nothing.
- A block is left out only when the line before it says why:
  ``<!-- not-run: reason -->``. The markers are counted, so a new block runs
  unless someone marks it, and says why, on purpose.
- A ```text block that starts with ``$ mctslab ...`` is a command and its exact
  output: it runs through the command line (the other shell blocks are the CLI
  tests' business).
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

README = Path(__file__).parent.parent / "README.md"

# The blocks marked <!-- not-run: ... -->: the sketch of a game class and the
# search_chunk fragment. Change this only together with a marker.
NOT_RUN = 2

_MARKER = re.compile(r"<!--\s*not-run:\s*(\S.*?)\s*-->")


@dataclass(frozen=True)
class Block:
    lang: str
    line: int  # README line of the block's first line of code (1-based)
    code: str
    before: str  # the last non-blank line above the opening fence
    after_gap: bool  # whether anything but blank lines separates it from the next block


def blocks() -> list[Block]:
    """The fenced blocks of the README, in order."""
    lines = README.read_text(encoding="utf-8").splitlines()
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


def shown_output(all_blocks: list[Block], k: int) -> str | None:
    """The output the README shows for block ``k``: the ```text block right after it."""
    block = all_blocks[k]
    if k + 1 < len(all_blocks) and not block.after_gap and all_blocks[k + 1].lang == "text":
        return all_blocks[k + 1].code
    return None


def same_text(got: str) -> list[str]:
    """Lines without trailing spaces, trailing blank lines dropped."""
    return "\n".join(line.rstrip() for line in got.splitlines()).rstrip("\n").splitlines()


def test_every_python_block_runs_unless_marked() -> None:
    all_blocks = blocks()
    python = [b for b in all_blocks if b.lang == "python"]
    skipped = [b for b in python if _MARKER.fullmatch(b.before.strip())]
    assert len(python) >= 4
    assert len(skipped) == NOT_RUN, [f"README.md:{b.line}" for b in skipped]
    # A marker must sit right above a python block (not above prose or another block).
    markers = README.read_text(encoding="utf-8").count("not-run:")
    assert markers == NOT_RUN


def test_python_blocks_print_what_the_readme_shows() -> None:
    all_blocks = blocks()
    namespace: dict[str, object] = {"__name__": "readme"}
    ran = 0
    for k, block in enumerate(all_blocks):
        if block.lang != "python" or _MARKER.fullmatch(block.before.strip()):
            continue
        out = io.StringIO()
        # Padded so that a traceback names the README's own line numbers.
        code = compile("\n" * (block.line - 1) + block.code, str(README), "exec")
        with contextlib.redirect_stdout(out):
            exec(code, namespace)
        ran += 1
        want = shown_output(all_blocks, k)
        where = f"the python block at README.md:{block.line}"
        if want is None:
            assert out.getvalue() == "", f"{where} prints output the README does not show"
        else:
            assert same_text(out.getvalue()) == same_text(want), f"{where} prints otherwise"
    assert ran == sum(b.lang == "python" for b in all_blocks) - NOT_RUN


def test_ten_lines_are_ten_lines() -> None:
    first = next(b for b in blocks() if b.lang == "python")
    assert len(first.code.splitlines()) <= 10  # the section is "In ten lines"


def test_shown_commands_print_their_output() -> None:
    from typer.testing import CliRunner

    from mctslab.cli.main import app

    commands = [b for b in blocks() if b.lang == "text" and b.code.startswith("$ mctslab ")]
    assert commands  # `mctslab tree`'s example
    for block in commands:
        command, _, want = block.code.partition("\n")
        result = CliRunner().invoke(app, shlex.split(command)[2:])
        where = f"README.md:{block.line}: {command}"
        assert result.exit_code == 0, f"{where}: {result.output}"
        assert same_text(result.stdout) == same_text(want), where


def test_the_venv_is_activated_before_the_first_command_example() -> None:
    # `make run` installs mctslab into .venv: a newcomer pasting `mctslab ...` needs
    # to be told how to reach it before the first example that runs it.
    text = README.read_text(encoding="utf-8")
    first_command = min(
        b.line
        for b in blocks()
        if b.lang in ("sh", "console", "bash")
        and any(line.split("#")[0].strip().startswith("mctslab ") for line in b.code.splitlines())
    )
    said = text.find("source .venv/bin/activate")
    assert said >= 0, "the README does not say how to activate .venv"
    assert text[:said].count("\n") + 1 < first_command
