"""``GET /api/sessions/{id}/sgf``: a Go session's game so far as an SGF record, the file
Go tools read (Sabaki, GoGui, GNU Go's ``loadsgf``).

The record is the game's own declaration (:func:`mctslab.core.declarations.record_format`:
Go's is SGF); this module names no game.
"""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from mctslab.core.declarations import record_format
from mctslab.core.errors import InvalidConfigError
from mctslab.web.routes.lab import LabDep
from mctslab.web.schemas import error_responses

__all__ = ["router"]

router = APIRouter()


@router.get(
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
async def sgf(sid: str, lab: LabDep) -> Response:
    """The game so far as an SGF record, for Go sessions (400 for other games): the
    moves, komi, who played which colour and, once over, the result (``RE[B+7.5]``);
    Sabaki, GoGui and GNU Go's ``loadsgf`` read it."""
    session = lab.get(sid)
    declared = record_format(session.game)
    if declared is None or declared.format != "sgf":
        raise InvalidConfigError(f"SGF records Go games; this session plays {session.spec.game}")
    players = session.game.info.num_players
    human = session.spec.human_player
    names = [""] * players
    if human is not None:
        names = ["mctslab"] * players
        names[human] = "human"
    return Response(
        declared.write(session.state, tuple(names)),
        media_type=declared.media_type,
        headers={"Content-Disposition": f'attachment; filename="{declared.filename}"'},
    )
