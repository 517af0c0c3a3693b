"""The web lab's warm-up: ``mctslab warm`` in a child process while the server serves.

Numba compiles in Python and holds the interpreter while it does: a warm-up in one of
the server's threads kept the page from loading during a cold start. A child
process compiles the built-in games' code into numba's cache (:mod:`mctslab.search.warm`:
tic-tac-toe, Connect Four and Go first) at a lower priority than the server (``mctslab
warm --nice``), and the server reads each step it ends from the child's stderr
(``warmed GAME (PATH) in S s``) and notes it (:func:`~mctslab.search.warm.mark_cached`):
a session of that game then says ``engine_ready`` and its first move loads the code from
the cache in a second or two. A failed warm-up only means first moves compile as they
would have; the child ends with the server.
"""

from __future__ import annotations

import re
import subprocess
import sys
import threading
from typing import IO

from mctslab.search.warm import mark_cached

__all__ = ["WarmUp", "read_warm_lines"]

_WARMED = re.compile(r"^warmed (\S+) \((\w+)\) in ")


def read_warm_lines(lines: IO[str]) -> None:
    """Note each ``warmed GAME (PATH) in S s`` line of ``mctslab warm``'s stderr; pass an
    ``error:`` line on to the server's stderr as a note."""
    for line in lines:
        found = _WARMED.match(line)
        if found:
            mark_cached(found[1], found[2])
        elif line.startswith("error:"):
            print(f"note: warming the compiled engine failed ({line[6:].strip()})", file=sys.stderr)


class WarmUp:
    """``mctslab warm --nice`` in a child process, its progress noted as it goes."""

    def __init__(self) -> None:
        self._process: subprocess.Popen[str] | None = None

    def start(self) -> None:
        """Start the child (this Python, ``-m mctslab``) and a thread that reads it."""
        self._process = subprocess.Popen(
            [sys.executable, "-m", "mctslab", "warm", "--nice"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        stderr = self._process.stderr
        assert stderr is not None
        threading.Thread(
            target=read_warm_lines, args=(stderr,), name="warm-up", daemon=True
        ).start()

    def stop(self) -> None:
        """End the child if it still runs (the server is stopping)."""
        process = self._process
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
