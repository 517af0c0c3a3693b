"""The web lab's limits: :class:`Settings`, the caps every request is bounded by.

A module of its own, below every other module of the server: the sessions, the routes
and the application all read it (:func:`mctslab.web.app.create_app` takes one).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["LOOPBACK_HOSTS", "Settings", "half_the_memory"]

#: The names a loopback server is reached by: the ``Host`` headers answered by default.
LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "[::1]")


def half_the_memory() -> int:
    """Half the machine's physical memory in bytes (4 GiB where it cannot be read)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2
    except (ValueError, OSError, AttributeError):
        return 4 << 30


@dataclass(frozen=True)
class Settings:
    """The server's limits. A request beyond a cap gets a 4xx naming it.

    Attributes:
        session_ttl: seconds a session may stay idle before it is dropped.
        max_sessions: sessions held at once (429 beyond).
        max_client_sessions: sessions one client (an IP address) may hold at once (429
            beyond): one client cannot take every session. A client is the address it
            connects from (``X-Forwarded-For`` is believed only from the proxies
            ``mctslab serve --forwarded-allow-ips`` names); behind a proxy not named,
            every client has the proxy's address: raise it there.
        max_client_searches: searches (``/api/move``, a session's ``ai``,
            ``iterations`` and ``step``) one client may run at once (429 beyond).
        max_searches: searches the whole server runs at once (429 beyond).
        max_memory: bytes every tree together may take: the sessions' trees and those
            of running ``/api/move`` searches, each node priced by an estimate for its
            game (:mod:`mctslab.web.limits`). A search is given the nodes there is room
            for; a request that could not add one is refused (429) before allocating.
            Default: half the machine's memory.
        max_session_memory: bytes one session's trees (or one ``/api/move``
            search's) may take: lowers the node cap below ``max_nodes`` for games whose
            nodes are large (413 at creation if fewer than 100 nodes would fit).
        max_build_time: seconds setting up a game and its position may take (in a
            worker thread; 413 beyond).
        max_iterations: iterations one request may ask for (422 beyond).
        max_time: seconds of search one request may ask for (422 beyond), and the wall
            time any search may take, an iteration budget's too: a search stops there
            (``stopped_by: "max_time"``) whatever its budget says.
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
        allowed_hosts: the ``Host`` headers the server answers (400 for others,
            against DNS rebinding): names (any port), ``name:port``, or ``*`` for any
            (:mod:`mctslab.web.hosts`). ``mctslab serve --allowed-host`` adds names.
        clock: the clock that times idleness (a test can pass a fake one).
        max_optimize_time: seconds one single-player run (``POST /api/optimize/runs``)
            may ask for (422 beyond).
        max_optimize_runs: single-player runs at once, the whole server (429 beyond).
        warm_engine: compile (or load from numba's cache) the compiled engine's code for
            the built-in games in a child process when the server starts
            (:mod:`mctslab.web.warmup`; ``mctslab serve`` sets it), so that a first AI
            move does not wait for the compiler; a session says ``engine_ready`` once its
            game's code is loaded or in numba's cache.
        max_step_trees: SP-MCTS step sessions held (``POST /api/optimize/step``); the
            least recently stepped is dropped beyond.
        max_step_nodes: nodes one step session's tree may make (413 beyond).
        max_body_bytes: bytes a request body may have (413 beyond: refused from its
            ``Content-Length`` before it is read, or as soon as a chunked body passes
            it; :mod:`mctslab.web.body`). The largest the lab needs is a long game's
            moves: a few kilobytes.
    """

    session_ttl: float = 1800.0
    max_sessions: int = 100
    max_client_sessions: int = 20
    max_client_searches: int = 20
    max_searches: int = 64
    max_memory: int = field(default_factory=half_the_memory)
    max_session_memory: int = 512 << 20
    max_build_time: float = 5.0
    max_iterations: int = 200_000
    max_time: float = 10.0
    max_nodes: int = 1_000_000
    max_view_nodes: int = 50_000
    max_svg_nodes: int = 2_000
    chunk_seconds: float = 0.05
    search_threads: int = 1
    compiled_search_threads: int = field(default_factory=lambda: os.cpu_count() or 1)
    sweep_seconds: float = 30.0
    allowed_hosts: tuple[str, ...] = LOOPBACK_HOSTS
    clock: Callable[[], float] = time.monotonic
    max_optimize_time: float = 60.0
    max_optimize_runs: int = 2
    warm_engine: bool = False
    max_step_trees: int = 16
    max_step_nodes: int = 20_000
    max_body_bytes: int = 1 << 20
