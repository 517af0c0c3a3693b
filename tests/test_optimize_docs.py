"""What the README and docs/optimize.md say about single-player search matches what they
show: the README's headline optimize command is the search its sentence quotes figures
for (it was plain NRPA beside Generalized NRPA's 0.00-0.39%), every ``mctslab optimize``
command shown names searches that parse, and docs/optimize.md's "Not yet here" does not
list what the same page delivers (the LKH-3/OR-Tools comparison, knowledge in NMCS's and
SP-MCTS's playouts).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from mctslab.players.optimizers import parse_optimizer

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
OPTIMIZE = (ROOT / "docs" / "optimize.md").read_text()


def optimize_commands(text: str) -> list[list[str]]:
    """Every ``mctslab optimize ...`` command of the page's sh blocks, as arguments."""
    out = []
    for block in re.findall(r"```sh\n(.*?)```", text, flags=re.S):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.strip()
            if line.startswith("mctslab optimize "):
                out.append(shlex.split(line))
    return out


def searches(args: list[str]) -> list[str]:
    return [args[i + 1] for i, a in enumerate(args) if a == "--search"]


def test_the_readmes_headline_command_is_the_search_its_figures_are_for() -> None:
    start = README.index("- **Optimisation**")
    section = README[start : README.index("\n- **", start + 1)]
    (command,) = optimize_commands(section)
    assert "Generalized NRPA" in section and "0.00" in section
    gnrpa = [s for s in searches(command) if s.startswith("nrpa")]
    assert gnrpa and all("bias=4" in s for s in gnrpa), command
    # The benchmark's row for the figure is that spec.
    assert f"`gnrpa` (`{gnrpa[0]}`)" in OPTIMIZE


@pytest.mark.parametrize("page", [README, OPTIMIZE], ids=["README", "optimize.md"])
def test_every_shown_optimize_command_names_searches_that_parse(page: str) -> None:
    commands = optimize_commands(page)
    assert commands
    for command in commands:
        for spec in searches(command):
            parse_optimizer(spec)  # raises on an unknown search or option


def test_not_yet_here_lists_nothing_the_page_delivers() -> None:
    start = OPTIMIZE.index("**Not yet here")
    end = OPTIMIZE.find("\n\n", start)
    section = OPTIMIZE[start : end if end > 0 else len(OPTIMIZE)]
    # Delivered on the same page: the comparison at equal time, knowledge in every search.
    assert "| `lkh3` |" in OPTIMIZE and "| `ortools` |" in OPTIMIZE
    assert "`nmcs` (`nmcs:level=2,bias=4`)" in OPTIMIZE
    assert "`sp-mcts` (`sp-mcts:bias=4`)" in OPTIMIZE
    for delivered in ("comparison benchmark", "knowledge in NMCS", "NRPA has it"):
        assert delivered not in section, section
    assert not re.search(r"LKH-3 \(`elkai`\) and OR-Tools, the", section)
