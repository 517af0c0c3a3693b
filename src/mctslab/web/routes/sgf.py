"""``GET /api/sessions/{id}/sgf``: a Go session's game so far as an SGF record, the file
Go tools read (Sabaki, GoGui, GNU Go's ``loadsgf``)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from mctslab.games.go import Go
from mctslab.games.go.sgf import SgfError, game_so_far, write_sgf
from mctslab.games.kernels import KernelState
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
