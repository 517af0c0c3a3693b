"""``mctslab warm``: compile the engine's code for the built-in games ahead of time.

``make test`` runs it before the tests, and the web lab's server runs it in a child
process, so that a user's first compiled move loads the code from numba's
cache (a second or two) instead of compiling it (15 to 90 s a game)
(:mod:`mctslab.search.warm`).
"""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer

from mctslab.cli.app import app, user_errors

__all__ = ["warm_command"]


def _tell(name: str, path: str) -> None:
    print(f"warming {name} ({path}) ...", file=sys.stderr, flush=True)


def _done(name: str, path: str, seconds: float) -> None:
    # The web lab's server reads these lines (mctslab.web.warmup): keep their form.
    print(f"warmed {name} ({path}) in {seconds:.1f} s", file=sys.stderr, flush=True)


@app.command("warm")
def warm_command(
    games: Annotated[
        list[str] | None,
        typer.Argument(
            help="Games to warm (default: every built-in game the compiled engine searches).",
            show_default=False,
        ),
    ] = None,
    nice: Annotated[
        bool,
        typer.Option(
            "--nice",
            help="Run at a lower priority (os.nice(10)): the web lab's server warms so.",
        ),
    ] = False,
) -> None:
    """Compile (or load from numba's cache) the compiled engine for the built-in games, so
    that the first move of a game does not wait for the compiler."""
    from mctslab.search.warm import warm

    if nice and hasattr(os, "nice"):
        os.nice(10)
    with user_errors():
        results = warm(games, on_step=_tell, on_done=_done)
        total = sum(r.seconds for r in results)
        print(
            "warm: "
            + ", ".join(f"{r.game} {r.seconds:.1f} s" for r in results)
            + f"; {total:.1f} s in all (compiled, or loaded from numba's cache)"
        )
