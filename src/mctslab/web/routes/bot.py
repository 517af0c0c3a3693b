"""``POST /api/move``: the stateless bot service (a position and a budget in, a move out).

Each call searches a fresh tree, priced at its cap in the server's memory budget for as
long as it runs, and drops it after; no session is made. The search itself,
:func:`search_position`, is the MCP server's too (:mod:`mctslab.mcp.server`).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace

from fastapi import APIRouter, HTTPException, Request

from mctslab.core.game import Game, State
from mctslab.search.engine import Searcher, has_kernels, make_searcher
from mctslab.search.result import SearchResult
from mctslab.web.limits import (
    compiled_node_bound,
    compiled_node_bytes,
    compiled_tree_nodes,
    one_node_an_iteration,
)
from mctslab.web.routes.config import network_evaluator, search_config
from mctslab.web.routes.lab import Lab, LabDep, client_of, explicit_budget, in_thread
from mctslab.web.runner import run_chunks
from mctslab.web.schemas import MoveIn, MoveOut, error_responses
from mctslab.web.sessions import release_later
from mctslab.web.views import move_fields

__all__ = ["Searched", "router", "search_position"]

router = APIRouter()


@dataclass(frozen=True)
class Searched:
    """A stateless search's outcome (:func:`search_position`): the result, the game and
    the position it was searched from, the searcher (its tree kept until the caller releases it:
    :func:`mctslab.web.sessions.release_later`) and whether the compiled engine ran."""

    result: SearchResult
    game: Game
    state: State
    searcher: Searcher
    compiled: bool


async def search_position(body: MoveIn, client: str, lab: Lab) -> Searched:
    """The bot service's search of ``body`` for ``client``: every check of the caps, in
    order (game, evaluator, budget, the searches at once, the position's build, the tree's
    memory), then a fresh tree searched in chunks within ``max_time``. Raises the
    documented ``HTTPException`` (a refusal) or a ``ValueError`` (a user error, 400).
    Shared with the MCP server (:mod:`mctslab.mcp.server`), which has no request."""
    settings, sessions = lab.settings, lab.sessions
    lab.check_game(body.game)
    lab.check_evaluator(body.config)
    lab.check_budget(*explicit_budget(body.config))  # even where overridden
    lab.check_budget(body.iterations, body.time)
    with lab.searching(client):
        game, state, node_bytes = await lab.build(
            lambda: lab.build_position(body.game, body.params, body.actions)
        )
        if state.is_terminal():
            raise HTTPException(400, "the game is over at this position: no move to choose")
        evaluator = await network_evaluator(body.config, game)
        config = search_config(
            body.config, body.iterations, body.time, settings.max_iterations, evaluator
        )
        engine = body.config.engine or "auto"
        compiled = engine != "reference" and has_kernels(state)
        nodes, fast = lab.node_caps(node_bytes, config, compiled)
        # The tree is priced at its cap for as long as the search runs (a compiled
        # tree given a cap is allocated whole): fewer nodes where the budget has less room.
        per = compiled_node_bytes(config) if compiled else node_bytes
        wanted = fast if compiled else nodes
        room = sessions.memory.room() // per
        bound = compiled_node_bound(config, game.info.num_actions) if compiled else None
        sized = None if bound is None else compiled_tree_nodes(bound, one_node_an_iteration(config))
        if sized is not None and sized < fast and sized <= room:
            # The budget bounds the tree under its cap: no cap, and the engine sizes the
            # tree by the budget (a 500-iteration move took a 1,000,000-node, 31 MB tree).
            held, max_nodes = sized, None
        else:
            cap = min(wanted, room)
            if cap < min(100, wanted):
                raise lab.memory_spent(per * min(100, wanted))
            held, max_nodes = cap, cap
        token = object()
        sessions.memory.hold(token, held * per)
        try:
            config = replace(config, max_nodes=max_nodes)
            searcher = await in_thread(lambda: make_searcher(config, state, engine))
            run = await run_chunks(
                searcher,
                state,
                config,
                cancel=threading.Event(),  # nobody can cancel a stateless search
                lock=threading.Lock(),
                chunk_seconds=settings.chunk_seconds,
                limiter=lab.search_limiter(searcher),
                wall_limit=settings.max_time,
            )
        finally:
            sessions.memory.drop(token)
    assert run.result is not None
    return Searched(run.result, game, state, searcher, compiled)


@router.post(
    "/api/move",
    response_model=MoveOut,
    tags=["service"],
    responses=error_responses(400, 413, 422, 429),
)
async def move(body: MoveIn, request: Request, lab: LabDep) -> MoveOut:
    """A bot service: the position (game, parameters, moves so far), a configuration
    and a budget in; the chosen move and the root statistics out. Stateless: each
    call searches a fresh tree; with an iteration budget the result is that of
    ``mctslab.search(state, config, engine=...)`` with the same seed (the search
    runs in chunks, taking turns with the sessions' searches, and stops at
    ``max_time`` of wall time whatever its budget)."""
    done = await search_position(body, client_of(request), lab)
    result = done.result
    release_later(done.searcher, threading.Lock())
    return MoveOut(
        **move_fields(result, done.state),
        proven=result.proven,
        engine="compiled" if done.compiled else "reference",
    )
