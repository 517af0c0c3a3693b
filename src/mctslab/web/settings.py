"""The web lab's limits: :class:`Settings`, the caps every request is bounded by.

A module of its own, below every other module of the server: the sessions, the routes
and the application all read it (:func:`mctslab.web.app.create_app` takes one).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["Settings"]


@dataclass(frozen=True)
class Settings:
    """The server's limits. A request beyond a cap gets a 4xx naming it.

    Attributes:
        session_ttl: seconds a session may stay idle before it is dropped.
        max_sessions: sessions held at once (429 beyond).
        max_iterations: iterations one request may ask for (422 beyond).
        max_time: seconds of search one request may ask for (422 beyond).
        max_nodes: nodes a session's tree may hold (413 when a request could pass
            it; searches stop there).
        max_view_nodes: nodes one tree view or export may show (413 beyond).
        max_svg_nodes: nodes an SVG export may show (Graphviz's layout is slow).
        chunk_seconds: length of the short searches a session search is cut into:
            how quickly a cancel takes effect, and the turn of a search when several
            run at once.
        search_threads: reference-engine searches (chunks) that run at once. Python's
            GIL lets one thread compute at a time and the reference engine holds it, so
            more threads would not search faster; one keeps the event loop's wait for
            the GIL short (the server answers while searches run) and makes concurrent
            searches take turns, chunk by chunk, in arrival order.
        compiled_search_threads: compiled-engine searches (chunks) that run at once,
            by default one per core: the compiled engine releases the GIL, so
            concurrent sessions' searches run in parallel on every core while the
            event loop keeps answering.
        sweep_seconds: how often expired sessions are swept (they are also swept
            on every request).
        clock: the clock that times idleness (a test can pass a fake one).
    """

    session_ttl: float = 1800.0
    max_sessions: int = 100
    max_iterations: int = 200_000
    max_time: float = 10.0
    max_nodes: int = 1_000_000
    max_view_nodes: int = 50_000
    max_svg_nodes: int = 2_000
    chunk_seconds: float = 0.05
    search_threads: int = 1
    compiled_search_threads: int = field(default_factory=lambda: os.cpu_count() or 1)
    sweep_seconds: float = 30.0
    clock: Callable[[], float] = time.monotonic
