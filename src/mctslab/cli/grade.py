"""``mctslab grade FILE.py``: lesson 11's autograder (:mod:`mctslab.teaching.grader`).

It imports FILE.py (running its code, as ``python FILE.py`` would) and grades its
``mcts(state, iterations)`` function against tic-tac-toe's exact answers and a probe,
naming the likely bug when a check fails. Exit 0: every check passed; 1: a check
failed; 2: the file cannot be graded (missing, not Python, failing to import, no
``mcts`` function, an ``mcts`` that raises, or ``sys.exit()`` called by the file) or an
option is out of range. Each check's line is printed, flushed, as soon as it finishes.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from mctslab.cli.app import app, user_errors

__all__ = ["grade_command"]


@app.command("grade")
def grade_command(
    file: Annotated[str, typer.Argument(help="A Python file with mcts(state, iterations).")],
    positions: Annotated[
        str,
        typer.Option(help="Tic-tac-toe positions for the minimax check: a number, or all (4,520)."),
    ] = "all",
    iterations: Annotated[int, typer.Option(help="The budget of every call.")] = 400,
    seed: Annotated[int, typer.Option(help="Seeds Python's random before each call.")] = 0,
) -> None:
    """Grade a student's MCTS (lesson 11): wins, blocks, minimax-optimal moves, no stale
    tree, and a trap that too much exploration falls into."""
    from mctslab.teaching.grader import Grade, GradeError, checks, load_student

    done = []
    with user_errors():
        if positions != "all" and not positions.isdigit():
            raise GradeError(f"--positions is a number or all, got {positions!r}")
        function = load_student(file)
        # One line per check as it finishes, flushed: the minimax check over 4,520
        # positions takes half a minute, and a grader silent until the end looks hung.
        for check in checks(
            function,
            positions=None if positions == "all" else int(positions),
            iterations=iterations,
            seed=seed,
        ):
            done.append(check)
            mark = "pass" if check.passed else "FAIL"
            print(f"{mark}  {check.name:<11} {check.detail}", flush=True)
    result = Grade.of(done)
    if result.passed:
        print("every check passed")
        return
    print(f"likely bug: {result.bug}")
    sys.stdout.flush()
    raise typer.Exit(1)
