"""The web API's routes: the page, the service endpoints and the sessions'.

:func:`add_routes` registers them on the application (:func:`mctslab.web.app.create_app`),
each a handler that checks its request against the caps of :class:`Settings` and sends
the documented errors (:func:`mctslab.web.schemas.error_responses`):

- ``GET /`` (the page) and ``/static``;
- ``GET /api/health``, ``GET /api/games`` (with each game's trained networks, offered
  as PUCT's evaluator ``network:NAME``: :mod:`mctslab.web.networks`);
- ``POST /api/move``: a stateless bot service (position and budget in, move out);
- ``POST /api/sessions`` (create), ``GET`` / ``DELETE /api/sessions/{id}``;
- ``POST /api/sessions/{id}/play|ai|iterations|step|reset|cancel``;
- ``GET /api/sessions/{id}/tree|node|export``.

Searches run in worker threads, never on the event loop, one at a time per session (a
second one is refused with 409), as chunks (:func:`mctslab.web.runner.run_chunks`).
"""

from __future__ import annotations

import re
import secrets
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal, TypeVar

import anyio
import anyio.to_thread
from fastapi import FastAPI, HTTPException, Query, Request
from fastapi.responses import FileResponse, HTMLResponse, Response
from fastapi.staticfiles import StaticFiles

import mctslab
from mctslab.analysis import treeview
from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import Game, State, player_label
from mctslab.core.registry import available_games, game_parameters, make
from mctslab.games.go import Go
from mctslab.games.kernels import KernelState
from mctslab.games.sgf import SgfError, game_so_far, write_sgf
from mctslab.search.engine import Searcher, has_kernels, make_searcher, releases_gil
from mctslab.search.mcts import MCTS, SearchConfig
from mctslab.search.puct import PuctConfig
from mctslab.search.trace import traced_iteration, tree_at, tree_size
from mctslab.web import networks
from mctslab.web.limits import ClientSearches, compiled_node_bytes
from mctslab.web.openspiel import ALLOWED
from mctslab.web.positions import build_position, hides_information, lab_game_names
from mctslab.web.render import render, state_text
from mctslab.web.runner import run_chunks
from mctslab.web.schemas import (
    DEFAULT_ITERATIONS,
    NODE_ID,
    OPENSPIEL_GAME,
    AiReport,
    BudgetIn,
    CancelOut,
    EngineConfig,
    GameOut,
    HealthOut,
    IterationsIn,
    IterationsOut,
    ModelOut,
    MoveIn,
    MoveOut,
    NodeOut,
    PlayIn,
    SessionIn,
    SessionView,
    TraceOut,
    TreeNodeOut,
    error_responses,
)
from mctslab.web.sessions import KeptSearch, Session, SessionStore, release, release_later
from mctslab.web.settings import Settings
from mctslab.web.views import legal_moves, move_fields

__all__ = ["add_routes", "lab_game_names"]

STATIC = Path(__file__).parent / "static"

T = TypeVar("T")


def _client(request: Request) -> str:
    """The client a request comes from, as the per-client caps count it: its address."""
    return request.client.host if request.client is not None else ""


def _search_config(
    config: EngineConfig,
    iterations: int | None,
    time_: float | None,
    max_iterations: int,
    evaluator: Any = None,
) -> SearchConfig:
    """The :class:`SearchConfig` of ``config``, with a request's budget if it gives one.

    The default iterations are capped by ``max_iterations`` (the schema says so).
    ``evaluator`` is PUCT's evaluator where ``config.evaluator`` names a network (the
    loaded one, :func:`_evaluator`); else the name is the evaluator."""
    its, secs = config.iterations, config.time
    if "iterations" not in config.model_fields_set:
        its = None if "time" in config.model_fields_set else min(DEFAULT_ITERATIONS, max_iterations)
    if iterations is not None or time_ is not None:
        its, secs = iterations, time_
    puct = None
    if config.selection == "puct":
        for name in ("rave", "progressive_bias"):
            if getattr(config, name):
                # SearchConfig refuses it too; this names the lab's fields.
                raise InvalidConfigError(
                    f"config.{name}: {name}={getattr(config, name):g} is an option of UCT's "
                    "selection (selection 'uct'); PUCT has its priors: set it to 0"
                )
        puct = PuctConfig(
            c=config.c_puct,
            evaluator=config.evaluator if evaluator is None else evaluator,
            fpu=config.fpu,
        )
    return SearchConfig(
        c=config.c,
        puct=puct,
        expansion=config.expansion,
        simulation=config.simulation,
        final=config.final,
        solver=config.solver,
        cutoff_depth=config.cutoff_depth,
        seed=config.seed,
        iterations=its,
        time=secs,
        rave=config.rave,
        progressive_bias=config.progressive_bias,
    )


async def _evaluator(config: EngineConfig, game: Game) -> Any:
    """PUCT's evaluator object for ``config`` in ``game``: a network's
    (``network:NAME``, loaded in a worker thread: the first load takes a while), or
    ``None`` where the evaluator is a built-in's name or the selection is UCT. A network
    of another game, or of other parameters, is a 400."""
    if config.selection != "puct" or networks.network_name(config.evaluator) is None:
        return None
    return await anyio.to_thread.run_sync(
        lambda: networks.network_evaluator(config.evaluator, game)
    )


def add_routes(
    app: FastAPI, settings: Settings, sessions: SessionStore, lab_games: list[str]
) -> None:
    """Register the page and the API's routes on ``app``.

    ``sessions`` is the server's store, ``lab_games`` the games the schema names (those
    of :func:`lab_game_names`), and ``settings`` the caps every request is checked
    against.
    """
    games_cache: list[GameOut] = []

    # Helpers that raise the documented HTTP errors. -------------------------------------

    def get(sid: str) -> Session:
        sessions.sweep()
        session = sessions.get(sid)
        if session is None:
            raise HTTPException(
                404,
                f"no session {sid!r}: it never existed, was deleted, or expired after "
                f"{settings.session_ttl:g} s idle",
            )
        session.touch()
        return session

    def check_game(name: str) -> None:
        """422 for a game the schema does not name (neither in GET /api/games nor
        openspiel:NAME)."""
        if name in lab_games or re.fullmatch(OPENSPIEL_GAME, name):
            return
        if name in available_games():
            raise HTTPException(422, f"game: {hides_information(name)}")
        raise HTTPException(
            422,
            f"game: unknown game {name!r}; the lab's games: {', '.join(lab_games)} "
            f"(and OpenSpiel's {', '.join(sorted(ALLOWED))} as openspiel:NAME)",
        )

    def check_evaluator(config: EngineConfig) -> None:
        """422 for an evaluator the schema does not name (a built-in, or network:NAME
        for a network of GET /api/games)."""
        why = networks.unknown_evaluator(config.evaluator)
        if why is not None:
            raise HTTPException(422, f"config.evaluator: {why}")

    def room_for_one_more(client: str) -> None:
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

    searches = ClientSearches(settings.max_client_searches, settings.max_searches)

    @contextmanager
    def searching(client: str) -> Iterator[None]:
        """Count a search of ``client`` while it runs (429 over the per-client or the
        server's number of searches at once)."""
        why = searches.refusal(client)
        if why is not None:
            raise HTTPException(429, why)
        searches.start(client)
        try:
            yield
        finally:
            searches.end(client)

    build_limiter = anyio.CapacityLimiter(4)

    async def build(fn: Callable[[], T]) -> T:
        """``fn()`` (a game, a position, a session: its tables, its compiled kernels) in a
        worker thread, within ``max_build_time`` (413 beyond; the thread is left to
        finish on its own, holding one of the 4 tokens games are built with)."""
        try:
            with anyio.fail_after(settings.max_build_time):
                return await anyio.to_thread.run_sync(
                    fn, limiter=build_limiter, abandon_on_cancel=True
                )
        except TimeoutError:
            raise HTTPException(
                413,
                f"setting up the game took longer than {settings.max_build_time:g} s "
                "(max_build_time): choose smaller parameters or fewer moves",
            ) from None

    def node_caps(node_bytes: int, config: SearchConfig, compiled: bool) -> tuple[int, int]:
        """``(reference nodes, compiled nodes)`` a session (or a stateless search) may hold:
        ``max_nodes``, or fewer where ``max_session_memory`` allows fewer of this game's
        nodes (413 below 100). The compiled tree gets half the session's memory at most."""
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

    def memory_spent(wanted: int) -> HTTPException:
        return HTTPException(
            429,
            f"the server's memory budget for trees is spent ({sessions.memory.used} of "
            f"{settings.max_memory} bytes, max_memory; this needs {wanted} more): delete a "
            "session or try again later",
        )

    def growth_limit(session: Session) -> int:
        """The reference tree's node cap for a search that grows it now: the session's, or
        what the memory budget has room for; held until :func:`settle` (429 if the tree
        could not grow by one node)."""
        nodes, _ = tree_size(session.mcts)
        cap = session.config.max_nodes or settings.max_nodes
        room = sessions.memory.room(session.id) - session.tree_bytes(0)
        limit = min(cap, room // max(1, session.node_bytes))
        if limit <= max(nodes, 1) and nodes < cap:
            raise memory_spent(session.node_bytes * (cap - nodes))
        limit = max(limit, 2)
        sessions.memory.hold(session.id, session.tree_bytes(limit))
        return limit

    def settle(session: Session) -> None:
        """Hold what the session's trees take now (after a search, a move, a reset)."""
        if sessions.get(session.id) is session:
            sessions.memory.hold(session.id, session.tree_bytes())

    def explicit_budget(config: EngineConfig) -> tuple[int | None, float | None]:
        """The budget ``config`` asks for (its default iterations are within the cap)."""
        given = config.model_fields_set
        return config.iterations if "iterations" in given else None, config.time

    def check_budget(iterations: int | None, seconds: float | None) -> None:
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

    def node_cap_reached(session: Session) -> None:
        nodes, _ = tree_size(session.mcts)
        cap = session.config.max_nodes or settings.max_nodes
        if nodes >= cap:
            raise HTTPException(
                413,
                f"the session's tree has {nodes} nodes, at the cap of {cap} nodes per "
                "session (max_nodes, or fewer of this game's nodes within "
                "max_session_memory): play a move or reset the session",
            )

    def not_over(session: Session) -> None:
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
        return await anyio.to_thread.run_sync(fn)

    limiters: dict[bool, anyio.CapacityLimiter] = {}

    def search_limiter(searcher: object) -> anyio.CapacityLimiter:
        """The tokens searches take, chunk by chunk (made in the event loop, on first use):
        compiled searches release the GIL and share ``compiled_search_threads`` tokens,
        the others ``search_threads``."""
        compiled = releases_gil(searcher)
        if compiled not in limiters:
            n = settings.compiled_search_threads if compiled else settings.search_threads
            limiters[compiled] = anyio.CapacityLimiter(n)
        return limiters[compiled]

    async def reroot(session: Session, before: State) -> None:
        """Re-root the reference tree at the session's position (counting a large
        subtree takes a while: in a worker). A chance node reached is rolled first.

        ``before`` is the position the move was played from, where the reference tree
        is rooted: if the move ended the game, a search there is kept for the view (the
        last search before the end) and a fresh searcher takes the tree's place."""
        session.settle()
        state = session.state.clone()
        if state.is_terminal() and tree_size(session.mcts)[1] > 0:
            session.keep(KeptSearch(session.mcts, before, "reference"))
            session.mcts = MCTS(session.config)
            settle(session)
            return
        mcts, lock = session.mcts, session.lock

        def work() -> None:
            with lock:
                old = mcts.root
                if state.is_terminal():
                    mcts.reset()
                else:
                    tree_at(mcts, state)
                if mcts.root is not old:
                    release(old, keep=mcts.root)  # what the move left behind

        await in_thread(work)
        settle(session)

    def view_size(mcts: MCTS, node: str, depth: int | None, top: int | None) -> int:
        """Nodes a view would show (stops counting past the cap); 0 if ``node`` is unknown."""
        here = mcts.root
        if here is None:
            return 1
        for action in treeview.parse_node_id(node):
            found = here.child(action)
            if found is None:
                return 0  # treeview says which child is missing
            here = found
        cap = max(settings.max_view_nodes, settings.max_svg_nodes)
        count, stack = 0, [(here, depth)]
        while stack and count <= cap:
            n, d = stack.pop()
            count += 1
            if d == 0:
                continue
            kids = sorted(n.children, key=lambda ch: (-ch.visits, ch.action))
            below = None if d is None else d - 1
            stack.extend((ch, below) for ch in kids[:top])
        return count

    def build_view(
        session: Session,
        node: str,
        depth: int | None,
        top: int | None,
        cap: int,
        keep: str = "",
    ) -> Callable[[], treeview.TreeNode]:
        """A function that builds the tree view in a worker, under the session's lock
        (what it reads is taken now, on the event loop, where moves are played): the
        reference tree at the current position, or the kept search's tree
        (:meth:`Session.shown_search`)."""
        lock, kept = session.lock, session.shown_search()
        if kept is not None:
            searcher, root = kept.searcher, kept.state.clone()
            return lambda: _build_kept(searcher, lock, root, node, depth, top, cap, keep)
        state, mcts = session.state.clone(), session.mcts
        return lambda: _build_view(mcts, lock, state, node, depth, top, cap, keep)

    def too_large(cap: int) -> HTTPException:
        return HTTPException(
            413,
            f"the view would show more than {cap} nodes (the cap "
            f"{'max_svg_nodes' if cap == settings.max_svg_nodes else 'max_view_nodes'}"
            "): ask for a smaller depth or top",
        )

    def _build_kept(
        searcher: Searcher,
        lock: threading.Lock,
        state: State,
        node: str,
        depth: int | None,
        top: int | None,
        cap: int,
        keep: str,
    ) -> treeview.TreeNode:
        """The view of a kept search's tree (either engine's), counted once built: it is
        at most the session's node cap, and no longer grows."""
        with lock:
            view = treeview.from_searcher(
                searcher, state, node=node, depth=depth, top=top, keep=keep
            )
        if sum(1 for _ in treeview.walk(view)) > cap:
            raise too_large(cap)
        return view

    def _build_view(
        mcts: MCTS,
        lock: threading.Lock,
        state: State,
        node: str,
        depth: int | None,
        top: int | None,
        cap: int,
        keep: str = "",
    ) -> treeview.TreeNode:
        with lock:
            if mcts.root is None or state.is_terminal():
                if treeview.parse_node_id(node):
                    raise InvalidConfigError(f"node {node!r} is not in the tree: it is empty")
                return treeview.TreeNode(
                    id="",
                    action=None,
                    label=None,
                    player=None,
                    to_play=state.current_player(),
                    visits=0,
                    value=None,
                    uct=None,
                    proven=None,
                    terminal=state.is_terminal(),
                    untried=len(state.legal_actions()),
                    children=(),
                    hidden=0,
                    hidden_visits=0,
                )
            size = view_size(mcts, node, depth, top) + len(treeview.parse_node_id(keep))
            if size > cap:
                raise too_large(cap)
            return treeview.from_reference(mcts, state, node=node, depth=depth, top=top, keep=keep)

    # Pages and service endpoints. -------------------------------------------------------

    @app.get("/", include_in_schema=False, response_model=None)
    async def index() -> Response:
        page = STATIC / "index.html"
        if page.exists():
            return FileResponse(page, headers={"Cache-Control": "no-cache"})
        return HTMLResponse("<!doctype html><title>mctslab</title><p>The page is missing.")

    if STATIC.is_dir():
        app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/api/health", response_model=HealthOut, tags=["service"])
    async def health() -> HealthOut:
        """Liveness: answers at once, even while searches run. With the budget caps
        (the page sets its inputs' maxima from them)."""
        return HealthOut(
            status="ok",
            sessions=len(sessions),
            version=mctslab.__version__,
            max_iterations=settings.max_iterations,
            max_time=settings.max_time,
        )

    @app.get("/api/games", response_model=list[GameOut], tags=["service"])
    async def games() -> list[GameOut]:
        """The registered games the lab shows (those of perfect information), their
        parameters (with defaults), board kind, and the trained networks it offers for
        each as PUCT's evaluator (``network:NAME``, with their model cards)."""
        if not games_cache:
            for name in lab_games:  # card games are played in the terminal (mctslab play)
                game = make(name)
                params = {
                    k: list(v) if isinstance(v, tuple) else v
                    for k, v in game_parameters(name).items()
                }
                info = game.info
                games_cache.append(
                    GameOut(
                        name=name,
                        version=info.version,
                        parameters=params,
                        num_players=info.num_players,
                        num_actions=info.num_actions,
                        board=str(render(game.new_initial_state())["kind"]),
                    )
                )
        # The networks are looked up on each call (the first imports PyTorch: in a worker).
        models: dict[str, list[ModelOut]] = {}
        for model in await in_thread(lambda: networks.models_for(None)):
            models.setdefault(model.game, []).append(model)
        return [g.model_copy(update={"models": models.get(g.name, [])}) for g in games_cache]

    @app.post(
        "/api/move",
        response_model=MoveOut,
        tags=["service"],
        responses=error_responses(400, 413, 422, 429),
    )
    async def move(body: MoveIn, request: Request) -> MoveOut:
        """A bot service: the position (game, parameters, moves so far), a configuration
        and a budget in; the chosen move and the root statistics out. Stateless: each
        call searches a fresh tree; with an iteration budget the result is that of
        ``mctslab.search(state, config, engine=...)`` with the same seed (the search
        runs in chunks, taking turns with the sessions' searches, and stops at
        ``max_time`` of wall time whatever its budget)."""
        check_game(body.game)
        check_evaluator(body.config)
        check_budget(*explicit_budget(body.config))  # even where overridden
        check_budget(body.iterations, body.time)
        client = _client(request)
        with searching(client):
            game, state, node_bytes = await build(
                lambda: build_position(body.game, body.params, body.actions)
            )
            if state.is_terminal():
                raise HTTPException(400, "the game is over at this position: no move to choose")
            evaluator = await _evaluator(body.config, game)
            config = _search_config(
                body.config, body.iterations, body.time, settings.max_iterations, evaluator
            )
            engine = body.config.engine or "auto"
            compiled = engine != "reference" and has_kernels(state)
            nodes, fast = node_caps(node_bytes, config, compiled)
            # The tree is priced at its cap for as long as the search runs (a compiled
            # tree is allocated whole): fewer nodes where the budget has less room.
            per = compiled_node_bytes(config) if compiled else node_bytes
            wanted = fast if compiled else nodes
            cap = min(wanted, sessions.memory.room() // per)
            if cap < min(100, wanted):
                raise memory_spent(per * min(100, wanted))
            token = object()
            sessions.memory.hold(token, cap * per)
            try:
                config = replace(config, max_nodes=cap)
                searcher = await in_thread(lambda: make_searcher(config, state, engine))
                run = await run_chunks(
                    searcher,
                    state,
                    config,
                    cancel=threading.Event(),  # nobody can cancel a stateless search
                    lock=threading.Lock(),
                    chunk_seconds=settings.chunk_seconds,
                    limiter=search_limiter(searcher),
                    wall_limit=settings.max_time,
                )
            finally:
                sessions.memory.drop(token)
        assert run.result is not None
        result = run.result
        if isinstance(searcher, MCTS):
            release_later(searcher.root, threading.Lock())
        return MoveOut(
            **move_fields(result, state),
            proven=result.proven,
            engine="compiled" if compiled else "reference",
        )

    # Sessions. ---------------------------------------------------------------------------

    @app.post(
        "/api/sessions",
        response_model=SessionView,
        status_code=201,
        tags=["sessions"],
        responses=error_responses(400, 413, 422, 429),
    )
    async def create_session(body: SessionIn, request: Request) -> SessionView:
        """A new session: a game from its start (or after ``actions``), the configuration
        of the AI's moves, and which player the human plays."""
        check_game(body.game)
        check_evaluator(body.config)
        check_budget(*explicit_budget(body.config))
        client = _client(request)
        room_for_one_more(client)
        game, state, node_bytes = await build(
            lambda: build_position(body.game, body.params, body.actions)
        )
        if body.human_player is not None and body.human_player >= game.info.num_players:
            raise HTTPException(
                400,
                f"human_player must be a player of {body.game} (0 to "
                f"{game.info.num_players - 1}) or null, got {body.human_player}",
            )
        evaluator = await _evaluator(body.config, game)
        config = _search_config(body.config, None, None, settings.max_iterations, evaluator)
        wanted = body.config.engine or "reference"
        engine = (
            "compiled"
            if wanted == "compiled" or (wanted == "auto" and has_kernels(state))
            else "reference"
        )
        if engine == "compiled" and not has_kernels(state):
            raise InvalidConfigError(
                "engine='compiled' needs a game with rule kernels; use engine='reference'"
            )
        nodes, fast = node_caps(node_bytes, config, engine == "compiled")
        config = replace(config, max_nodes=nodes)
        fast_bytes = fast * compiled_node_bytes(config) if engine == "compiled" else 0
        wanted_bytes = fast_bytes + node_bytes
        room_for_one_more(client)  # other sessions may have been made meanwhile
        if sessions.memory.room() < wanted_bytes:
            raise memory_spent(wanted_bytes)
        sid = secrets.token_urlsafe(9)
        token = object()  # held while the session is made (its compiled searcher, say)
        sessions.memory.hold(token, wanted_bytes)
        try:
            # In a worker: a compiled session loads (or compiles) its kernels, seconds
            # on a cold cache, and replays the moves. Not timed: nothing of it grows with
            # what the request asks beyond the position just built in time.
            session = await in_thread(
                lambda: Session(
                    sid,
                    body,
                    game,
                    config,
                    engine,
                    settings,
                    client=client,
                    node_bytes=node_bytes,
                    fast_nodes=fast,
                    fast_bytes=fast_bytes,
                )
            )
        finally:
            sessions.memory.drop(token)
        room_for_one_more(client)
        sessions.add(session)
        return session.view()

    @app.get(
        "/api/sessions/{sid}",
        response_model=SessionView,
        tags=["sessions"],
        responses=error_responses(404),
    )
    async def session_view(sid: str) -> SessionView:
        """The session: position, legal moves, drawing, tree size, last AI move, busy."""
        return get(sid).view()

    @app.delete(
        "/api/sessions/{sid}", status_code=204, tags=["sessions"], responses=error_responses(404)
    )
    async def delete_session(sid: str) -> Response:
        """Drop the session (a running search is cancelled)."""
        get(sid)
        sessions.drop(sid)
        return Response(status_code=204)

    @app.post(
        "/api/sessions/{sid}/play",
        response_model=SessionView,
        tags=["sessions"],
        responses=error_responses(400, 404, 409, 422),
    )
    async def play(sid: str, body: PlayIn) -> SessionView:
        """Play a move (an action id or its name); 400 naming the legal moves if illegal."""
        session = get(sid)
        with exclusive(session):
            not_over(session)
            state = session.state
            before = state.clone()
            action = body.action
            if isinstance(action, str):  # a move's name, as the board shows it
                action = state.string_to_action(action)
            state.apply_action(action)  # IllegalActionError (400) names the legal moves
            await reroot(session, before)
        return session.view()

    @app.post(
        "/api/sessions/{sid}/ai",
        response_model=SessionView,
        tags=["sessions"],
        responses=error_responses(400, 404, 409, 422, 429),
    )
    async def ai(sid: str, request: Request, body: BudgetIn | None = None) -> SessionView:
        """The AI moves: a search with the session's configuration (or this request's
        budget) on the kept tree, then its move is played. Cancelled: 409, no move. The
        search stops at ``max_time`` of wall time whatever its budget."""
        session = get(sid)
        budget = body or BudgetIn()
        check_budget(budget.iterations, budget.time)  # the session's own were checked
        with exclusive(session), searching(_client(request)):
            not_over(session)
            config = session.config
            if budget.iterations is not None or budget.time is not None:
                config = replace(config, iterations=budget.iterations, time=budget.time)
            searcher: Searcher = session.mcts if session.fast is None else session.fast
            if session.fast is not None:
                session.keep(None)  # its tree is about to move on to this position
                config = replace(config, max_nodes=session.fast_config.max_nodes)
            else:
                config = replace(config, max_nodes=growth_limit(session))
            state = session.state.clone()
            try:
                run = await run_chunks(
                    searcher,
                    state,
                    config,
                    cancel=session.cancel,
                    lock=session.lock,
                    chunk_seconds=settings.chunk_seconds,
                    limiter=search_limiter(searcher),
                    wall_limit=settings.max_time,
                )
            finally:
                settle(session)
            if run.stopped_by == "cancelled" or run.result is None:
                raise HTTPException(
                    409, f"the search was cancelled after {run.iterations} iterations: no move"
                )
            result = run.result
            session.last_ai = AiReport(**move_fields(result, state), engine=session.engine)
            if session.fast is not None:  # its tree is not the reference one: kept for the view
                session.keep(KeptSearch(session.fast, state.clone(), "compiled"))
            session.state.apply_action(result.action)
            await reroot(session, state)
        return session.view()

    @app.post(
        "/api/sessions/{sid}/iterations",
        response_model=IterationsOut,
        tags=["sessions"],
        responses=error_responses(400, 404, 409, 413, 422, 429),
    )
    async def iterations(sid: str, body: IterationsIn, request: Request) -> IterationsOut:
        """Run ``k`` iterations on the session's tree at the current position (no move);
        they stop at ``max_time`` of wall time."""
        session = get(sid)
        check_budget(body.k, None)
        with exclusive(session), searching(_client(request)):
            not_over(session)
            node_cap_reached(session)
            nodes, _ = tree_size(session.mcts)
            cap = session.config.max_nodes or settings.max_nodes
            # One node an iteration at most: expansion "one" under UCT without RAVE
            # (RAVE adds a node's children at once, as PUCT does).
            one_each = (
                session.config.expansion == "one"
                and session.config.puct is None
                and not session.config.rave
            )
            if one_each and nodes + body.k > cap:
                raise HTTPException(
                    413,
                    f"{body.k} iterations could grow the tree to {nodes + body.k} nodes, over "
                    f"the cap of {cap} nodes per session (max_nodes, or fewer of this "
                    "game's nodes within max_session_memory)",
                )
            config = replace(
                session.config,
                iterations=body.k,
                time=None,
                final="robust",
                max_nodes=growth_limit(session),
            )
            state = session.state.clone()
            try:
                run = await run_chunks(
                    session.mcts,
                    state,
                    config,
                    cancel=session.cancel,
                    lock=session.lock,
                    chunk_seconds=settings.chunk_seconds,
                    limiter=search_limiter(session.mcts),
                    wall_limit=settings.max_time,
                )
            finally:
                settle(session)
        nodes, visits = tree_size(session.mcts)
        return IterationsOut(
            iterations=run.iterations,
            nodes=nodes,
            root_visits=visits,
            seconds=run.seconds,
            stopped_by=run.stopped_by,
        )

    @app.post(
        "/api/sessions/{sid}/step",
        response_model=TraceOut,
        tags=["sessions"],
        responses=error_responses(400, 404, 409, 413, 429),
    )
    async def step(sid: str, request: Request) -> dict[str, Any]:
        """Run one iteration on the session's tree and report its four phases."""
        session = get(sid)
        with exclusive(session), searching(_client(request)):
            not_over(session)
            node_cap_reached(session)
            state = session.state.clone()
            growth_limit(session)  # room for the nodes it may add, held until settled

            def work() -> dict[str, Any]:
                with session.lock:
                    return traced_iteration(session.mcts, state).to_dict()

            try:
                return await in_thread(work)
            finally:
                settle(session)

    @app.post(
        "/api/sessions/{sid}/reset",
        response_model=SessionView,
        tags=["sessions"],
        responses=error_responses(404, 409),
    )
    async def reset(sid: str) -> SessionView:
        """Back to the starting position with a fresh tree and generator (same seed)."""
        session = get(sid)
        with exclusive(session):
            await in_thread(session.restart)  # fresh searchers (compiled: kernels load)
            settle(session)
        return session.view()

    @app.post(
        "/api/sessions/{sid}/cancel",
        response_model=CancelOut,
        tags=["sessions"],
        responses=error_responses(404),
    )
    async def cancel(sid: str) -> CancelOut:
        """Cancel the session's running search (it stops within ``chunk_seconds``)."""
        session = get(sid)
        running = session.busy
        if running:
            session.cancel.set()
        return CancelOut(cancelled=running)

    @app.get(
        "/api/sessions/{sid}/tree",
        response_model=TreeNodeOut,
        tags=["sessions"],
        responses=error_responses(400, 404, 413, 422),
    )
    async def tree(
        sid: str,
        node: str = Query(
            "", pattern=NODE_ID, description="Start at this node id (e.g. 4.0); '' the root."
        ),
        depth: int | None = Query(None, ge=0, description="Levels below the node (default: all)."),
        top: int | None = Query(None, ge=1, description="Most visited children kept per node."),
        path: str = Query(
            "",
            pattern=NODE_ID,
            description="A node id whose path from the root is shown whatever depth and top "
            "say (e.g. the step mode's last iteration), as far as it is in the tree.",
        ),
    ) -> dict[str, Any]:
        """The session's tree (or a subtree, to a depth, the top-k children of each node)."""
        session = get(sid)
        build = build_view(session, node, depth, top, settings.max_view_nodes, path)
        return treeview.to_json(await in_thread(build))

    @app.get(
        "/api/sessions/{sid}/node",
        response_model=NodeOut,
        tags=["sessions"],
        responses=error_responses(400, 404, 422),
    )
    async def node_position(
        sid: str,
        node: str = Query("", pattern=NODE_ID, description="A node id: moves from the root, 4.0.8"),
    ) -> NodeOut:
        """The position of a node of the tree (any legal path of moves from the root),
        the tree GET /tree shows: a kept search's starts at the position it searched."""
        session = get(sid)
        kept = session.shown_search()
        state = (session.state if kept is None else kept.state).clone()
        for i, action in enumerate(treeview.parse_node_id(node)):
            try:
                state.apply_action(action)
            except ValueError as err:
                raise InvalidConfigError(f"node {node!r}, move {i + 1}: {err}") from None
        return NodeOut(
            id=node.strip(),
            actions=state.history(),
            text=state_text(state),
            render=render(state),
            to_play=state.current_player(),
            terminal=state.is_terminal(),
            legal=legal_moves(state),
        )

    @app.get(
        "/api/sessions/{sid}/export",
        tags=["sessions"],
        response_class=Response,
        responses={
            200: {
                "description": "The tree in the format asked for, as an attachment.",
                "content": {
                    "application/json": {"schema": {"$ref": "#/components/schemas/TreeNodeOut"}},
                    "text/vnd.graphviz": {"schema": {"type": "string"}},
                    "image/svg+xml": {"schema": {"type": "string"}},
                    "text/plain": {"schema": {"type": "string"}},
                },
                "headers": {
                    "Content-Disposition": {
                        "description": 'attachment; filename="mcts-tree.<json|dot|svg|txt>"',
                        "schema": {"type": "string"},
                    }
                },
            },
            **error_responses(400, 404, 413, 422, 503),
        },
    )
    async def export(
        sid: str,
        format: Literal["json", "dot", "svg", "text"] = Query("json"),
        node: str = Query("", pattern=NODE_ID),
        depth: int | None = Query(None, ge=0),
        top: int | None = Query(None, ge=1),
    ) -> Response:
        """The tree as JSON, Graphviz DOT, SVG (needs Graphviz's ``dot``) or text."""
        session = get(sid)
        cap = settings.max_svg_nodes if format == "svg" else settings.max_view_nodes
        info = session.game.info
        players = [player_label(info, p) for p in range(info.num_players)]

        build = build_view(session, node, depth, top, cap)

        def work() -> str:
            view = build()
            try:
                return treeview.export(view, format, players)
            except ImportError:  # the graphviz Python package
                raise treeview.GraphvizNotFoundError(
                    "SVG export needs the graphviz Python package: pip install graphviz"
                ) from None

        text = await in_thread(work)
        media = {
            "json": "application/json",
            "dot": "text/vnd.graphviz",
            "svg": "image/svg+xml",
            "text": "text/plain; charset=utf-8",
        }[format]
        extension = "txt" if format == "text" else format
        return Response(
            text,
            media_type=media,
            headers={"Content-Disposition": f'attachment; filename="mcts-tree.{extension}"'},
        )

    @app.get(
        "/api/sessions/{sid}/sgf",
        tags=["sessions"],
        response_class=Response,
        responses={
            200: {
                "description": "The Go game so far as an SGF file (FF[4]), as an attachment.",
                "content": {"application/x-go-sgf": {"schema": {"type": "string"}}},
                "headers": {
                    "Content-Disposition": {
                        "description": 'attachment; filename="mctslab-go.sgf"',
                        "schema": {"type": "string"},
                    }
                },
            },
            **error_responses(400, 404),
        },
    )
    async def sgf(sid: str) -> Response:
        """The game so far as an SGF record, for Go sessions (400 for other games): the
        moves, komi, who played which colour and, once over, the result (``RE[B+7.5]``);
        Sabaki, GoGui and GNU Go's ``loadsgf`` read it."""
        session = get(sid)
        game = session.game
        if not isinstance(game, Go):
            raise SgfError(f"SGF records Go games; this session plays {session.spec.game}")
        state = session.state
        assert isinstance(state, KernelState)  # Go's states are
        human = session.spec.human_player
        names = ["", ""]
        if human is not None:
            names = ["mctslab", "mctslab"]
            names[human] = "human"
        return Response(
            write_sgf(game_so_far(game, state, black=names[0], white=names[1])),
            media_type="application/x-go-sgf",
            headers={"Content-Disposition": 'attachment; filename="mctslab-go.sgf"'},
        )
