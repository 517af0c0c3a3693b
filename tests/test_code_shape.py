"""The code's shape: no module over 800 lines, no function over 120 lines or with more
than 12 parameters, except where docs/layout.md's table of exceptions names the place
and the reason (numba's compiled signatures, typer's one parameter per option).

The table is read from the document, so a new exception is written down where a reader
of the layout sees it, and one that no longer applies is struck from it (the test fails
on a stale entry too)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "mctslab"
LAYOUT = ROOT / "docs" / "layout.md"

MAX_MODULE_LINES = 800
MAX_FUNCTION_LINES = 120
MAX_PARAMETERS = 12


def _parameters(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    a = node.args
    names = [*a.posonlyargs, *a.args, *a.kwonlyargs]
    count = len(names) + (a.vararg is not None) + (a.kwarg is not None)
    if names and names[0].arg in ("self", "cls"):
        count -= 1
    return count


def violations() -> set[str]:
    """Every place over a limit: ``path`` for a module, ``path:function`` for a
    function (nested functions by their own name), paths relative to src/mctslab."""
    found: set[str] = set()
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        text = path.read_text(encoding="utf-8")
        if len(text.splitlines()) > MAX_MODULE_LINES:
            found.add(rel)
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                assert node.end_lineno is not None
                long = node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
                if long or _parameters(node) > MAX_PARAMETERS:
                    found.add(f"{rel}:{node.name}")
    return found


def documented() -> dict[str, str]:
    """docs/layout.md's exceptions: the rows ``| `place` | reason |`` of the table
    under the heading "Exceptions to the size limits"."""
    text = LAYOUT.read_text(encoding="utf-8")
    section = text.split("## Exceptions to the size limits", 1)
    assert len(section) == 2, "docs/layout.md has no 'Exceptions to the size limits' section"
    rows = re.findall(r"^\| `([^`]+)` \| (.+?) \|$", section[1].split("\n## ", 1)[0], re.M)
    return dict(rows)


def test_every_place_over_a_limit_is_a_documented_exception() -> None:
    missing = sorted(violations() - set(documented()))
    assert not missing, (
        f"over the limits ({MAX_MODULE_LINES} lines a module, {MAX_FUNCTION_LINES} lines "
        f"or {MAX_PARAMETERS} parameters a function) and not in docs/layout.md's "
        f"exceptions: {missing}"
    )


def test_every_documented_exception_is_still_one() -> None:
    stale = sorted(set(documented()) - violations())
    assert not stale, f"docs/layout.md lists exceptions that no longer exceed a limit: {stale}"


def test_every_exception_gives_a_reason() -> None:
    assert all(len(reason.strip()) > 20 for reason in documented().values())


def _functions(rel: str) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    """The functions of module ``rel`` (relative to src/mctslab) by name, nested ones too."""
    tree = ast.parse((SRC / rel).read_text(encoding="utf-8"))
    return {
        node.name: node
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    }


def stated_counts(place: str, reason: str) -> dict[str, tuple[int, int]]:
    """``function: (stated, counted)`` for each parameter count a row of the table states:
    the first ``(N parameters`` is the place's own, and each further one must follow the
    name of another function of the same module (``uct_chunk`` in backquotes, then
    ``(11 parameters``)."""
    rel, _, name = place.partition(":")
    functions = _functions(rel)
    found: dict[str, tuple[int, int]] = {}
    for i, match in enumerate(re.finditer(r"(?:`(\w+)` )?\((\d+) parameters\b", reason)):
        named = name if i == 0 else match.group(1)
        assert named in functions, f"{place}: a count of {match.group(0)!r} names no function"
        found[named] = (int(match.group(2)), _parameters(functions[named]))
    return found


def test_every_exception_over_the_parameter_limit_states_its_count() -> None:
    """A row for a function over the parameter limit says how many it takes, and the
    counts a row states are the code's (they drifted once: ``cli/train.py:train`` said 40
    when it took 44)."""
    drifted, unstated = {}, []
    for place, reason in documented().items():
        if ":" not in place:
            continue
        counts = stated_counts(place, reason)
        rel, _, name = place.partition(":")
        if _parameters(_functions(rel)[name]) > MAX_PARAMETERS and name not in counts:
            unstated.append(place)
        drifted.update({f"{place} ({fn})": c for fn, c in counts.items() if c[0] != c[1]})
    assert not unstated, f"rows that do not state their '(N parameters)': {unstated}"
    assert not drifted, f"stated counts that are not the code's, (stated, counted): {drifted}"


def test_the_count_reader_sees_a_drifted_count() -> None:
    reason = "numba (20 parameters); it calls `uct_chunk` (12 parameters)"
    counts = stated_counts("search/compiled/chunk.py:run_chunk", reason)
    assert counts["run_chunk"][0] == 20 and counts["run_chunk"][1] != 20
    assert counts["uct_chunk"] == (12, 11)


def test_the_checker_sees_a_long_function(tmp_path: Path) -> None:
    """The limits bite: a 121-line function and a 13-parameter one are found."""
    body = "\n".join(["    x = 0"] * 120)
    long_fn = ast.parse(f"def f():\n{body}\n").body[0]
    assert isinstance(long_fn, ast.FunctionDef)
    assert long_fn.end_lineno is not None and long_fn.end_lineno - long_fn.lineno + 1 == 121
    many = ast.parse("def g(" + ", ".join(f"a{i}" for i in range(13)) + "): pass").body[0]
    assert isinstance(many, ast.FunctionDef) and _parameters(many) == 13
    method = ast.parse("def h(self, " + ", ".join(f"a{i}" for i in range(12)) + "): pass")
    assert _parameters(method.body[0]) == 12  # type: ignore[arg-type]
