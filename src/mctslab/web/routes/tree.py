"""Views of a session's tree: ``GET /api/sessions/{id}/tree`` (JSON for the page),
``/node`` (the position at a node) and ``/export`` (JSON, DOT, SVG or text, as a file).

A view is built in a worker under the session's lock, from what is taken on the event
loop (where moves are played): the reference tree at the current position, or the
search kept for the view (:meth:`mctslab.web.sessions.Session.shown_search`). It is
refused (413) before it is built where it would show more than the view's cap.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Literal

from fastapi import APIRouter, HTTPException, Query
from fastapi.responses import Response

from mctslab.analysis import treeview
from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import State, player_label
from mctslab.search.engine import Searcher
from mctslab.search.mcts import MCTS
from mctslab.web.render import render, state_text
from mctslab.web.routes.lab import LabDep, in_thread
from mctslab.web.schemas import NODE_ID, NodeOut, TreeNodeOut, error_responses
from mctslab.web.sessions import Session
from mctslab.web.settings import Settings
from mctslab.web.views import legal_moves

__all__ = ["router"]

router = APIRouter()


# Building a view. -------------------------------------------------------------------------


def view_size(settings: Settings, mcts: MCTS, node: str, depth: int | None, top: int | None) -> int:
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
    settings: Settings,
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
        return lambda: _build_kept(settings, searcher, lock, root, node, depth, top, cap, keep)
    state, mcts = session.state.clone(), session.mcts
    return lambda: _build_view(settings, mcts, lock, state, node, depth, top, cap, keep)


def too_large(settings: Settings, cap: int) -> HTTPException:
    """The 413 of a view over ``cap`` nodes (the cap named: SVG's, or every view's)."""
    return HTTPException(
        413,
        f"the view would show more than {cap} nodes (the cap "
        f"{'max_svg_nodes' if cap == settings.max_svg_nodes else 'max_view_nodes'}"
        "): ask for a smaller depth or top",
    )


def _build_kept(
    settings: Settings,
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
        view = treeview.from_searcher(searcher, state, node=node, depth=depth, top=top, keep=keep)
    if sum(1 for _ in treeview.walk(view)) > cap:
        raise too_large(settings, cap)
    return view


def _build_view(
    settings: Settings,
    mcts: MCTS,
    lock: threading.Lock,
    state: State,
    node: str,
    depth: int | None,
    top: int | None,
    cap: int,
    keep: str = "",
) -> treeview.TreeNode:
    """The view of the reference tree, counted before it is built: it may be large, and
    grows while no search holds the lock."""
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
        size = view_size(settings, mcts, node, depth, top) + len(treeview.parse_node_id(keep))
        if size > cap:
            raise too_large(settings, cap)
        return treeview.from_reference(mcts, state, node=node, depth=depth, top=top, keep=keep)


# The routes. ------------------------------------------------------------------------------


@router.get(
    "/api/sessions/{sid}/tree",
    response_model=TreeNodeOut,
    tags=["sessions"],
    responses=error_responses(400, 404, 413, 422),
)
async def tree(
    sid: str,
    lab: LabDep,
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
    session = lab.get(sid)
    settings = lab.settings
    build = build_view(settings, session, node, depth, top, settings.max_view_nodes, path)
    return treeview.to_json(await in_thread(build))


@router.get(
    "/api/sessions/{sid}/node",
    response_model=NodeOut,
    tags=["sessions"],
    responses=error_responses(400, 404, 422),
)
async def node_position(
    sid: str,
    lab: LabDep,
    node: str = Query("", pattern=NODE_ID, description="A node id: moves from the root, 4.0.8"),
) -> NodeOut:
    """The position of a node of the tree (any legal path of moves from the root),
    the tree GET /tree shows: a kept search's starts at the position it searched."""
    session = lab.get(sid)
    kept = session.shown_search()
    state = (session.state if kept is None else kept.state).clone()
    moves = []
    for i, action in enumerate(treeview.parse_node_id(node)):
        try:
            label = state.action_to_string(action) if action in state.legal_actions() else None
            state.apply_action(action)
        except ValueError as err:
            raise InvalidConfigError(f"node {node!r}, move {i + 1}: {err}") from None
        moves.append(label if label is not None else str(action))
    return NodeOut(
        id=node.strip(),
        moves=moves,
        actions=state.history(),
        text=state_text(state),
        render=render(session.game, state),
        to_play=state.current_player(),
        terminal=state.is_terminal(),
        legal=legal_moves(state),
    )


# The export's media types, by format.
_MEDIA = {
    "json": "application/json",
    "dot": "text/vnd.graphviz",
    "svg": "image/svg+xml",
    "text": "text/plain; charset=utf-8",
}


@router.get(
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
    lab: LabDep,
    format: Literal["json", "dot", "svg", "text"] = Query("json"),
    node: str = Query("", pattern=NODE_ID),
    depth: int | None = Query(None, ge=0),
    top: int | None = Query(None, ge=1),
) -> Response:
    """The tree as JSON, Graphviz DOT, SVG (needs Graphviz's ``dot``) or text."""
    session = lab.get(sid)
    settings = lab.settings
    cap = settings.max_svg_nodes if format == "svg" else settings.max_view_nodes
    game = session.game
    players = [player_label(game, p) for p in range(game.info.num_players)]

    build = build_view(settings, session, node, depth, top, cap)

    def work() -> str:
        view = build()
        try:
            return treeview.export(view, format, players)
        except ImportError:  # the graphviz Python package
            raise treeview.GraphvizNotFoundError(
                "SVG export needs the graphviz Python package: pip install graphviz"
            ) from None

    text = await in_thread(work)
    extension = "txt" if format == "text" else format
    return Response(
        text,
        media_type=_MEDIA[format],
        headers={"Content-Disposition": f'attachment; filename="mcts-tree.{extension}"'},
    )
