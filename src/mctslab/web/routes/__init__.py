"""The web API's routes: the page, the service endpoints and the sessions', one router
per resource.

:func:`add_routes` registers them on the application (:func:`mctslab.web.app.create_app`),
each a handler that checks its request against the caps of :class:`Settings` and sends
the documented errors (:func:`mctslab.web.schemas.error_responses`):

- :mod:`~mctslab.web.routes.page`: ``GET /`` (the page) and ``/static``;
- :mod:`~mctslab.web.routes.service`: ``GET /api/health``, ``GET /api/games`` (with each
  game's trained networks, offered as PUCT's evaluator ``network:NAME``:
  :mod:`mctslab.web.networks`);
- :mod:`~mctslab.web.routes.bot`: ``POST /api/move``, a stateless bot service (position
  and budget in, move out);
- :mod:`~mctslab.web.routes.sessions`: ``POST /api/sessions`` (create), ``GET`` /
  ``DELETE /api/sessions/{id}``;
- :mod:`~mctslab.web.routes.play`: ``POST /api/sessions/{id}/play|ai`` (a move);
- :mod:`~mctslab.web.routes.search`: ``POST /api/sessions/{id}/iterations|step|reset|cancel``
  (the tree grown, started over, stopped);
- :mod:`~mctslab.web.routes.tree`: ``GET /api/sessions/{id}/tree|node|export``;
- :mod:`~mctslab.web.routes.sgf`: ``GET /api/sessions/{id}/sgf`` (Go sessions);
- :mod:`~mctslab.web.routes.optimize`: ``GET /api/optimize/games``, ``POST
  /api/optimize/runs``, ``GET /api/optimize/runs/{rid}``, ``POST
  /api/optimize/runs/{rid}/stop``, ``POST /api/optimize/step`` (single-player search:
  the page's Optimize tab; its state, :class:`~mctslab.web.routes.optimize.OptimizeLab`,
  in ``app.state.optimize``).

What they share travels as one :class:`~mctslab.web.routes.lab.Lab` per application (the
caps, the session store, the counters and limiters of running work), kept in
``app.state``: :mod:`~mctslab.web.routes.lab`, with the checks that raise the documented
errors; :mod:`~mctslab.web.routes.config` turns a request's configuration into a
search's. The routers import those two, never each other.

Searches run in worker threads, never on the event loop, one at a time per session (a
second one is refused with 409), as chunks (:func:`mctslab.web.runner.run_chunks`).
"""

from __future__ import annotations

from fastapi import FastAPI

from mctslab.web.positions import build_position, lab_game_names
from mctslab.web.routes.bot import router as bot_router
from mctslab.web.routes.lab import Lab
from mctslab.web.routes.optimize import OptimizeLab
from mctslab.web.routes.optimize import router as optimize_router
from mctslab.web.routes.page import add_page
from mctslab.web.routes.play import router as play_router
from mctslab.web.routes.search import router as search_router
from mctslab.web.routes.service import router as service_router
from mctslab.web.routes.sessions import router as sessions_router
from mctslab.web.routes.sgf import router as sgf_router
from mctslab.web.routes.tree import router as tree_router
from mctslab.web.sessions import SessionStore
from mctslab.web.settings import Settings

__all__ = ["add_routes", "build_position", "lab_game_names"]

# In the order they are registered: the order of the paths in the OpenAPI schema (and of
# the matching, though no two paths overlap).
ROUTERS = (
    service_router,
    bot_router,
    sessions_router,
    play_router,
    search_router,
    tree_router,
    sgf_router,
    optimize_router,
)


def add_routes(
    app: FastAPI, settings: Settings, sessions: SessionStore, lab_games: list[str]
) -> None:
    """Register the page and the API's routes on ``app``.

    ``sessions`` is the server's store, ``lab_games`` the games the schema names (those
    of :func:`lab_game_names`), and ``settings`` the caps every request is checked
    against. Positions are built by this module's ``build_position``, read when the app
    is made: a test puts a slow one in its place (``tests/web/test_web_limits.py``).
    """
    app.state.lab = Lab.of(settings, sessions, lab_games, build_position)
    app.state.optimize = OptimizeLab.of(settings)
    add_page(app)
    for router in ROUTERS:
        app.include_router(router)
