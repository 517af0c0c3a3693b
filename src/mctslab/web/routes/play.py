"""Playing a session's game: ``POST /api/sessions/{id}/play`` (the human's move) and
``POST /api/sessions/{id}/ai`` (the AI's: a search on the kept tree, then its move).

The AI's move follows the passing rules of :mod:`mctslab.players.resign`, as ``mctslab
gtp`` and the arena do: right after the human's pass it passes at once when that ends
the game won, and it plays on rather than pass first while every move wins.

After either move the reference tree is re-rooted at the new position
(:func:`reroot`): what the search learnt below the move is kept, the rest freed.
"""

from __future__ import annotations

from dataclasses import replace

from fastapi import APIRouter, HTTPException, Request

from mctslab.core.game import State
from mctslab.players import resign as ending
from mctslab.search.engine import Searcher
from mctslab.search.mcts import MCTS
from mctslab.search.trace import move_root, tree_size
from mctslab.search.warm import mark_ready, path_of
from mctslab.web.routes.lab import Lab, LabDep, client_of, exclusive, in_thread, not_over
from mctslab.web.runner import run_chunks
from mctslab.web.schemas import AiReport, BudgetIn, PlayIn, SessionView, error_responses
from mctslab.web.sessions import KeptSearch, Session
from mctslab.web.views import move_fields

__all__ = ["reroot", "router"]

router = APIRouter()


async def reroot(lab: Lab, session: Session, before: State) -> None:
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
        lab.settle(session)
        return
    mcts, lock = session.mcts, session.lock

    def work() -> None:
        with lock:
            move_root(mcts, state)  # what the move left behind is freed at once

    await in_thread(work)
    lab.settle(session)


@router.post(
    "/api/sessions/{sid}/play",
    response_model=SessionView,
    tags=["sessions"],
    responses=error_responses(400, 404, 409, 422),
)
async def play(sid: str, body: PlayIn, lab: LabDep) -> SessionView:
    """Play a move (an action id or its name); 400 naming the legal moves if illegal."""
    session = lab.get(sid)
    with exclusive(session):
        not_over(session)
        state = session.state
        before = state.clone()
        action = body.action
        if isinstance(action, str):  # a move's name, as the board shows it
            action = state.string_to_action(action)
        state.apply_action(action)  # IllegalActionError (400) names the legal moves
        await reroot(lab, session, before)
    return session.view()


@router.post(
    "/api/sessions/{sid}/ai",
    response_model=SessionView,
    tags=["sessions"],
    responses=error_responses(400, 404, 409, 422, 429),
)
async def ai(sid: str, request: Request, lab: LabDep, body: BudgetIn | None = None) -> SessionView:
    """The AI moves: a search with the session's configuration (or this request's
    budget) on the kept tree, then its move is played. Cancelled: 409, no move. The
    search stops at ``max_time`` of wall time whatever its budget."""
    session = lab.get(sid)
    budget = body or BudgetIn()
    lab.check_budget(budget.iterations, budget.time)  # the session's own were checked
    with exclusive(session):
        not_over(session)
        if await winning_pass(lab, session):
            return session.view()
    with exclusive(session), lab.searching(client_of(request)):
        not_over(session)
        config = session.config
        if budget.iterations is not None or budget.time is not None:
            config = replace(config, iterations=budget.iterations, time=budget.time)
        searcher: Searcher = session.mcts if session.fast is None else session.fast
        if session.fast is not None:
            session.keep(None)  # its tree is about to move on to this position
            config = replace(config, max_nodes=session.fast_config.max_nodes)
        else:
            config = replace(config, max_nodes=lab.growth_limit(session))
        state = session.state.clone()
        try:
            run = await run_chunks(
                searcher,
                state,
                config,
                cancel=session.cancel,
                lock=session.lock,
                chunk_seconds=lab.settings.chunk_seconds,
                limiter=lab.search_limiter(searcher),
                wall_limit=lab.settings.max_time,
            )
        finally:
            lab.settle(session)
        if run.stopped_by == "cancelled" or run.result is None:
            raise HTTPException(
                409, f"the search was cancelled after {run.iterations} iterations: no move"
            )
        result = run.result
        if session.engine == "compiled":
            mark_ready(session.game.info.name, path_of(session.config))
        session.last_ai = AiReport(**move_fields(result, state), engine=session.engine)
        if session.fast is not None:  # its tree is not the reference one: kept for the view
            session.keep(KeptSearch(session.fast, state.clone(), "compiled"))
        # A first pass where every move wins is no move: the shared rule plays on.
        action = ending.play_on(result.action, result, state)
        if action != result.action:
            session.last_ai = session.last_ai.model_copy(
                update={"action": action, "label": state.action_to_string(action)}
            )
        session.state.apply_action(action)
        await reroot(lab, session, state)
    return session.view()


async def winning_pass(lab: Lab, session: Session) -> bool:
    """Pass at once, without a search, when the human has just passed and a pass ends
    the game won for the AI (:func:`mctslab.players.resign.winning_pass`, the rule that
    ``mctslab gtp`` and the arena follow): a search would play on there, every move
    winning, filling its own territory. Whether it passed."""
    state = session.state.clone()
    action = ending.winning_pass(state)
    if action is None:
        return False
    after = state.child(action)
    session.last_ai = AiReport(
        action=action,
        label=state.action_to_string(action),
        player=state.current_player(),
        final_rule="winning pass (the opponent passed, and this pass ends the game won)",
        value=after.returns()[state.current_player()],
        iterations=0,
        seconds=0.0,
        stopped_by="winning pass",
        engine=session.engine,
        children=[],
    )
    session.state.apply_action(action)
    await reroot(lab, session, state)
    return True
