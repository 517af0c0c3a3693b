"""What every router shares: the server's state (:class:`Lab`) and the checks against its caps.

One :class:`Lab` is made per application (:func:`mctslab.web.routes.add_routes`) and kept
in ``app.state``; a handler asks for it as a parameter (:data:`LabDep`), so that two apps
in one process (the tests make many) never share a store, a counter or a limiter, and
no module holds the server's state in a global.

The checks raise the documented HTTP errors (:func:`mctslab.web.schemas.error_responses`),
each with a ``detail`` that names the cap or what to do instead.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Annotated, Any, TypeVar, cast

import anyio
import anyio.to_thread
from fastapi import Depends, HTTPException, Request

from mctslab.core.game import Game, State
from mctslab.core.registry import available_games
from mctslab.search.config import SearchConfig
from mctslab.search.engine import releases_gil
from mctslab.search.trace import tree_size
from mctslab.web import networks
from mctslab.web.limits import ClientSearches, compiled_node_bytes
from mctslab.web.openspiel import ALLOWED
from mctslab.web.positions import hides_information
from mctslab.web.schemas import OPENSPIEL_GAME, EngineConfig, GameOut
from mctslab.web.sessions import Session, SessionStore
from mctslab.web.settings import Settings

__all__ = [
    "Lab",
    "LabDep",
    "client_of",
    "exclusive",
    "explicit_budget",
    "in_thread",
    "lab_of",
    "not_over",
]

T = TypeVar("T")

PositionBuilder = Callable[[str, dict[str, Any], list[int]], tuple[Game, State, int]]


@dataclass(frozen=True)
class Lab:
    """The server's state that the routes share: the caps, the session store, the games
    the schema names, the counters and limiters of running work, and the function that
    builds a request's position (:func:`mctslab.web.positions.build_position`, passed in
    so that a test can slow it down).

    Frozen: what changes (the store, the counters, the caches) changes inside its
    fields, never by rebinding one."""

    settings: Settings
    sessions: SessionStore
    games: list[str]
    build_position: PositionBuilder
    searches: ClientSearches
    # Games are built in worker threads holding one of these 4 tokens (see build).
    build_limiter: anyio.CapacityLimiter
    # compiled (releases the GIL) -> the tokens its searches take; made on first use.
    search_limiters: dict[bool, anyio.CapacityLimiter] = field(default_factory=dict)
    # GET /api/games without the networks (those are looked up on each call).
    games_cache: list[GameOut] = field(default_factory=list)

    @classmethod
    def of(
        cls,
        settings: Settings,
        sessions: SessionStore,
        games: list[str],
        build_position: PositionBuilder,
    ) -> Lab:
        """A fresh lab for one application: no search running, nothing cached."""
        return cls(
            settings=settings,
            sessions=sessions,
            games=games,
            build_position=build_position,
            searches=ClientSearches(settings.max_client_searches, settings.max_searches),
            build_limiter=anyio.CapacityLimiter(4),
        )

    # Sessions. ---------------------------------------------------------------------------

    def get(self, sid: str) -> Session:
        """The session ``sid``, its idle clock restarted (404 if there is none)."""
        self.sessions.sweep()
        session = self.sessions.get(sid)
        if session is None:
            raise HTTPException(
                404,
                f"no session {sid!r}: it never existed, was deleted, or expired after "
                f"{self.settings.session_ttl:g} s idle",
            )
        session.touch()
        return session

    def room_for_one_more(self, client: str) -> None:
        """429 if the server, or this client, holds as many sessions as it may."""
        settings, sessions = self.settings, self.sessions
        sessions.sweep()
        if len(sessions) >= settings.max_sessions:
            raise HTTPException(
                429,
                f"too many sessions: the server holds at most {settings.max_sessions} "
                f"(max_sessions); delete one, or wait for idle ones to expire after "
                f"{settings.session_ttl:g} s",
            )
        if sessions.of_client(client) >= settings.max_client_sessions:
            raise HTTPException(
                429,
                f"too many sessions from this client: at most {settings.max_client_sessions} "
                f"(max_client_sessions); delete one, or wait for idle ones to expire after "
                f"{settings.session_ttl:g} s",
            )

    # What a request asks for. ----------------------------------------------------------

    def check_game(self, name: str) -> None:
        """422 for a game the schema does not name (neither in GET /api/games nor
        openspiel:NAME)."""
        if name in self.games or re.fullmatch(OPENSPIEL_GAME, name):
            return
        if name in available_games():
            raise HTTPException(422, f"game: {hides_information(name)}")
        raise HTTPException(
            422,
            f"game: unknown game {name!r}; the lab's games: {', '.join(self.games)} "
            f"(and OpenSpiel's {', '.join(sorted(ALLOWED))} as openspiel:NAME)",
        )

    @staticmethod
    def check_evaluator(config: EngineConfig) -> None:
        """422 for an evaluator the schema does not name (a built-in, or network:NAME
        for a network of GET /api/games)."""
        why = networks.unknown_evaluator(config.evaluator)
        if why is not None:
            raise HTTPException(422, f"config.evaluator: {why}")

    def check_budget(self, iterations: int | None, seconds: float | None) -> None:
        """422 for a budget over ``max_iterations`` or ``max_time``."""
        settings = self.settings
        if iterations is not None and iterations > settings.max_iterations:
            raise HTTPException(
                422,
                f"iterations={iterations} is over the cap of {settings.max_iterations} "
                "iterations per request (max_iterations)",
            )
        if seconds is not None and seconds > settings.max_time:
            raise HTTPException(
                422,
                f"time={seconds:g} s is over the cap of {settings.max_time:g} s per request "
                "(max_time)",
            )

    # Work in worker threads. -----------------------------------------------------------

    def check_searches(self, client: str) -> None:
        """429 if ``client`` (or the server) runs as many searches at once as it may."""
        why = self.searches.refusal(client)
        if why is not None:
            raise HTTPException(429, why)

    @contextmanager
    def searching(self, client: str) -> Iterator[None]:
        """Count a search of ``client`` while it runs (429 over the per-client or the
        server's number of searches at once)."""
        self.check_searches(client)
        self.searches.start(client)
        try:
            yield
        finally:
            self.searches.end(client)

    async def build(self, fn: Callable[[], T]) -> T:
        """``fn()`` (a game, a position, a session: its tables, its compiled kernels) in a
        worker thread, within ``max_build_time`` (413 beyond; the thread is left to
        finish on its own, holding one of the 4 tokens games are built with)."""
        try:
            with anyio.fail_after(self.settings.max_build_time):
                return await anyio.to_thread.run_sync(
                    fn, limiter=self.build_limiter, abandon_on_cancel=True
                )
        except TimeoutError:
            raise HTTPException(
                413,
                f"setting up the game took longer than {self.settings.max_build_time:g} s "
                "(max_build_time): choose smaller parameters or fewer moves",
            ) from None

    def search_limiter(self, searcher: object) -> anyio.CapacityLimiter:
        """The tokens searches take, chunk by chunk (made in the event loop, on first use):
        compiled searches release the GIL and share ``compiled_search_threads`` tokens,
        the others ``search_threads``."""
        compiled = releases_gil(searcher)
        if compiled not in self.search_limiters:
            settings = self.settings
            n = settings.compiled_search_threads if compiled else settings.search_threads
            self.search_limiters[compiled] = anyio.CapacityLimiter(n)
        return self.search_limiters[compiled]

    # Trees and the memory budget. --------------------------------------------------------

    def node_caps(self, node_bytes: int, config: SearchConfig, compiled: bool) -> tuple[int, int]:
        """``(reference nodes, compiled nodes)`` a session (or a stateless search) may hold:
        ``max_nodes``, or fewer where ``max_session_memory`` allows fewer of this game's
        nodes (413 below 100). The compiled tree gets half the session's memory at most."""
        settings = self.settings
        fast_bytes = compiled_node_bytes(config)
        fast = min(settings.max_nodes, settings.max_session_memory // 2 // fast_bytes)
        room = settings.max_session_memory - (fast * fast_bytes if compiled else 0)
        nodes = min(settings.max_nodes, room // max(1, node_bytes))
        if nodes < min(100, settings.max_nodes):
            raise HTTPException(
                413,
                f"a node of this game's tree takes about {node_bytes} bytes: "
                f"max_session_memory ({settings.max_session_memory} bytes) holds only "
                f"{max(nodes, 0)}; choose a smaller board",
            )
        return nodes, fast

    def memory_spent(self, wanted: int) -> HTTPException:
        """The 429 of a tree the server's memory budget has no room for."""
        return HTTPException(
            429,
            f"the server's memory budget for trees is spent ({self.sessions.memory.used} of "
            f"{self.settings.max_memory} bytes, max_memory; this needs {wanted} more): delete a "
            "session or try again later",
        )

    def check_memory(self, nbytes: int, what: str, key: object = None) -> None:
        """413 if ``what`` (a single-player run, a step tree) could take more than
        ``max_session_memory``; 429 if the memory budget has no room for ``nbytes`` now
        (with what ``key`` holds already)."""
        settings, memory = self.settings, self.sessions.memory
        if nbytes > settings.max_session_memory:
            raise HTTPException(
                413,
                f"{what} could take {nbytes} bytes, over the cap of "
                f"{settings.max_session_memory} bytes per search (max_session_memory): "
                "choose fewer iterations or a smaller game",
            )
        if nbytes > memory.room(key):
            raise self.memory_spent(nbytes - memory.room(key) + memory.room())

    def growth_limit(self, session: Session) -> int:
        """The reference tree's node cap for a search that grows it now: the session's, or
        what the memory budget has room for; held until :meth:`settle` (429 if the tree
        could not grow by one node)."""
        memory = self.sessions.memory
        nodes, _ = tree_size(session.mcts)
        cap = session.config.max_nodes or self.settings.max_nodes
        room = memory.room(session.id) - session.tree_bytes(0)
        limit = min(cap, room // max(1, session.node_bytes))
        if limit <= max(nodes, 1) and nodes < cap:
            raise self.memory_spent(session.node_bytes * (cap - nodes))
        limit = max(limit, 2)
        memory.hold(session.id, session.tree_bytes(limit))
        return limit

    def settle(self, session: Session) -> None:
        """Hold what the session's trees take now (after a search, a move, a reset)."""
        if self.sessions.get(session.id) is session:
            self.sessions.memory.hold(session.id, session.tree_bytes())

    def node_cap_reached(self, session: Session) -> None:
        """413 if the session's tree is at its node cap: it cannot grow before a move."""
        nodes, _ = tree_size(session.mcts)
        cap = session.config.max_nodes or self.settings.max_nodes
        if nodes >= cap:
            raise HTTPException(
                413,
                f"the session's tree has {nodes} nodes, at the cap of {cap} nodes per "
                "session (max_nodes, or fewer of this game's nodes within "
                "max_session_memory): play a move or reset the session",
            )


async def lab_of(request: Request) -> Lab:
    """The application's :class:`Lab` (a coroutine: FastAPI would run a plain function
    in a worker thread)."""
    return cast(Lab, request.app.state.lab)


# A handler's parameter ``lab: LabDep`` is the application's Lab; it adds nothing to the
# OpenAPI schema (the request is all it reads).
LabDep = Annotated[Lab, Depends(lab_of)]


def client_of(request: Request) -> str:
    """The client a request comes from, as the per-client caps count it: its address."""
    return request.client.host if request.client is not None else ""


def explicit_budget(config: EngineConfig) -> tuple[int | None, float | None]:
    """The budget ``config`` asks for (its default iterations are within the cap)."""
    given = config.model_fields_set
    return config.iterations if "iterations" in given else None, config.time


def not_over(session: Session) -> None:
    """400 if the session's game is over: nothing to search or play."""
    state = session.state
    if state.is_terminal():
        shown = ", ".join(f"{r:g}" for r in state.returns())
        raise HTTPException(
            400, f"the game is over (returns {shown}): reset the session to play again"
        )


@contextmanager
def exclusive(session: Session) -> Iterator[None]:
    """One search (or move) at a time per session; the event loop runs one handler
    step at a time, so the test-and-set of ``busy`` needs no lock."""
    if session.busy:
        raise HTTPException(
            409,
            "a search is running on this session: wait for it, or cancel it "
            f"(POST /api/sessions/{session.id}/cancel)",
        )
    session.busy = True
    session.cancel.clear()
    try:
        yield
    finally:
        session.busy = False
        session.touch()


async def in_thread(fn: Callable[[], T]) -> T:
    """``fn()`` in a worker thread (anyio's default limiter), off the event loop."""
    return await anyio.to_thread.run_sync(fn)
