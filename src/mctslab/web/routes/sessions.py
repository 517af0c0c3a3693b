"""A session's life: ``POST /api/sessions`` (create), ``GET`` and ``DELETE
/api/sessions/{id}``.

A session is made within the caps on sessions (the server's and the client's) and on
memory: its trees are priced before it is made, and the store holds what they take.

A client at its cap of sessions (``max_client_sessions``) gets its new session in place
of its oldest idle one (:func:`room_for_client`): a page that starts game after game,
a class behind one proxy address, or a browser that closed its tabs without deleting
their sessions would otherwise be refused every new game until the old ones expired,
30 minutes later. Only a client whose every session is running a search is refused (429).
"""

from __future__ import annotations

import secrets
from dataclasses import replace

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import Response

from mctslab.core.errors import InvalidConfigError
from mctslab.search.engine import has_kernels
from mctslab.web.limits import compiled_node_bytes
from mctslab.web.routes.config import network_evaluator, search_config
from mctslab.web.routes.lab import Lab, LabDep, client_of, explicit_budget, in_thread
from mctslab.web.schemas import SessionIn, SessionView, error_responses
from mctslab.web.sessions import Session

__all__ = ["router"]

router = APIRouter()


@router.post(
    "/api/sessions",
    response_model=SessionView,
    status_code=201,
    tags=["sessions"],
    responses=error_responses(400, 413, 422, 429),
)
async def create_session(body: SessionIn, request: Request, lab: LabDep) -> SessionView:
    """A new session: a game from its start (or after ``actions``), the configuration
    of the AI's moves, and which player the human plays."""
    settings, sessions = lab.settings, lab.sessions
    lab.check_game(body.game)
    lab.check_evaluator(body.config)
    lab.check_budget(*explicit_budget(body.config))
    client = client_of(request)
    room_for_client(lab, client, make_room=False)
    game, state, node_bytes = await lab.build(
        lambda: lab.build_position(body.game, body.params, body.actions)
    )
    if body.human_player is not None and body.human_player >= game.info.num_players:
        raise HTTPException(
            400,
            f"human_player must be a player of {body.game} (0 to "
            f"{game.info.num_players - 1}) or null, got {body.human_player}",
        )
    evaluator = await network_evaluator(body.config, game)
    config = search_config(body.config, None, None, settings.max_iterations, evaluator)
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
    nodes, fast = lab.node_caps(node_bytes, config, engine == "compiled")
    config = replace(config, max_nodes=nodes)
    fast_bytes = fast * compiled_node_bytes(config) if engine == "compiled" else 0
    wanted_bytes = fast_bytes + node_bytes
    room_for_client(lab, client, make_room=False)  # other sessions may have been made meanwhile
    if sessions.memory.room() < wanted_bytes:
        raise lab.memory_spent(wanted_bytes)
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
    # Only now, the request having passed every check, is an old session replaced.
    room_for_client(lab, client, make_room=True)
    sessions.add(session)
    return session.view()


def room_for_client(lab: Lab, client: str, *, make_room: bool) -> None:
    """Room for one more session of ``client``, or a 429.

    At the client's cap (``max_client_sessions``) its oldest idle session makes room:
    dropped where ``make_room`` (the new session is about to be added), else only looked
    for, so that a request refused later (a bad parameter, say) has dropped nothing. The
    server's total does not grow by a replacement, so its own cap is checked only for a
    session added beside the others. Without an idle session (every one is searching),
    the client is refused."""
    settings, sessions = lab.settings, lab.sessions
    sessions.sweep()
    if sessions.of_client(client) >= settings.max_client_sessions:
        oldest = sessions.oldest_idle(client)
        if oldest is None:
            raise HTTPException(
                429,
                f"too many sessions from this client: all of its {settings.max_client_sessions} "
                "sessions (max_client_sessions) are running a search; wait for one to "
                "finish, or cancel or delete one",
            )
        if not make_room:
            return
        sessions.drop(oldest.id)
    lab.room_for_one_more(client)


@router.get(
    "/api/sessions/{sid}",
    response_model=SessionView,
    tags=["sessions"],
    responses=error_responses(404),
)
async def session_view(sid: str, lab: LabDep) -> SessionView:
    """The session: position, legal moves, drawing, tree size, last AI move, busy."""
    return lab.get(sid).view()


@router.delete(
    "/api/sessions/{sid}", status_code=204, tags=["sessions"], responses=error_responses(404)
)
async def delete_session(sid: str, lab: LabDep) -> Response:
    """Drop the session (a running search is cancelled)."""
    lab.get(sid)
    lab.sessions.drop(sid)
    return Response(status_code=204)
