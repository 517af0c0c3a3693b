"""Growing a session's tree without a move, for the lab's step mode and its counters:
``POST /api/sessions/{id}/iterations`` (``k`` iterations) and ``/step`` (one, traced
phase by phase); ``/cancel`` stops a running search, ``/reset`` starts the session over
(its first position, a fresh tree).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from fastapi import APIRouter, HTTPException, Request

from mctslab.search.trace import traced_iteration, tree_size
from mctslab.web.routes.lab import LabDep, client_of, exclusive, in_thread, not_over
from mctslab.web.runner import run_chunks
from mctslab.web.schemas import (
    CancelOut,
    IterationsIn,
    IterationsOut,
    SessionView,
    TraceOut,
    error_responses,
)

__all__ = ["router"]

router = APIRouter()


@router.post(
    "/api/sessions/{sid}/iterations",
    response_model=IterationsOut,
    tags=["sessions"],
    responses=error_responses(400, 404, 409, 413, 422, 429),
)
async def iterations(sid: str, body: IterationsIn, request: Request, lab: LabDep) -> IterationsOut:
    """Run ``k`` iterations on the session's tree at the current position (no move);
    they stop at ``max_time`` of wall time."""
    session = lab.get(sid)
    lab.check_budget(body.k, None)
    with exclusive(session), lab.searching(client_of(request)):
        not_over(session)
        lab.node_cap_reached(session)
        nodes, _ = tree_size(session.mcts)
        cap = session.config.max_nodes or lab.settings.max_nodes
        # One node an iteration at most: expansion "one" under UCT without RAVE
        # (RAVE adds a node's children at once, as PUCT does).
        one_each = (
            session.config.expansion == "one"
            and not session.config.rule.evaluated
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
            max_nodes=lab.growth_limit(session),
        )
        state = session.state.clone()
        try:
            run = await run_chunks(
                session.mcts,
                state,
                config,
                cancel=session.cancel,
                lock=session.lock,
                chunk_seconds=lab.settings.chunk_seconds,
                limiter=lab.search_limiter(session.mcts),
                wall_limit=lab.settings.max_time,
            )
        finally:
            lab.settle(session)
    nodes, visits = tree_size(session.mcts)
    return IterationsOut(
        iterations=run.iterations,
        nodes=nodes,
        root_visits=visits,
        seconds=run.seconds,
        compile_seconds=run.compile_seconds,
        stopped_by=run.stopped_by,
    )


@router.post(
    "/api/sessions/{sid}/step",
    response_model=TraceOut,
    tags=["sessions"],
    responses=error_responses(400, 404, 409, 413, 429),
)
async def step(sid: str, request: Request, lab: LabDep) -> dict[str, Any]:
    """Run one iteration on the session's tree and report its four phases."""
    session = lab.get(sid)
    with exclusive(session), lab.searching(client_of(request)):
        not_over(session)
        lab.node_cap_reached(session)
        state = session.state.clone()
        lab.growth_limit(session)  # room for the nodes it may add, held until settled

        def work() -> dict[str, Any]:
            with session.lock:
                return traced_iteration(session.mcts, state).to_dict()

        try:
            return await in_thread(work)
        finally:
            lab.settle(session)


@router.post(
    "/api/sessions/{sid}/reset",
    response_model=SessionView,
    tags=["sessions"],
    responses=error_responses(404, 409),
)
async def reset(sid: str, lab: LabDep) -> SessionView:
    """Back to the starting position with a fresh tree and generator (same seed)."""
    session = lab.get(sid)
    with exclusive(session):
        await in_thread(session.restart)  # fresh searchers (compiled: kernels load)
        lab.settle(session)
    return session.view()


@router.post(
    "/api/sessions/{sid}/cancel",
    response_model=CancelOut,
    tags=["sessions"],
    responses=error_responses(404),
)
async def cancel(sid: str, lab: LabDep) -> CancelOut:
    """Cancel the session's running search (it stops within ``chunk_seconds``)."""
    session = lab.get(sid)
    running = session.busy
    if running:
        session.cancel.set()
    return CancelOut(cancelled=running)
