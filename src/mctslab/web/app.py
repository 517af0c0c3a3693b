"""The web lab's application: :func:`create_app` wires the server's modules together.

A *session* is a game in progress with a search configuration and the reference
engine's tree (:class:`mctslab.search.mcts.MCTS`): the tree the step mode traces
(:func:`mctslab.search.trace.traced_iteration`), that ``iterations`` grows and that the
tree view and the exports draw (:mod:`mctslab.analysis.treeview`). With ``engine``
``"compiled"`` (or ``"auto"`` on a game with rule kernels) the AI's moves are
searched by the compiled engine, on a tree of its own that the view does not
show; step mode and ``iterations`` always run on the reference tree.

Searches run in worker threads, never on the event loop, one at a time per
session (a second one is refused with 409). A session search runs as a series of
short searches on the kept tree (see :func:`mctslab.web.runner.run_chunks`), checking
the session's cancel flag between them. Idle sessions expire after
``Settings.session_ttl``. Every request is bounded by the caps of
:class:`mctslab.web.settings.Settings`; a request beyond one gets a 4xx whose
``detail`` names the cap. User errors (unknown game or option, illegal move,
malformed JSON) are 4xx with a one-line ``detail``, never a 500.

The OpenAPI schema is exact (``tests/web/test_web_schema.py`` fuzzes the app against it
with schemathesis): every error is :class:`mctslab.web.schemas.ErrorOut` (``{"detail":
one line}``), each route lists every status it can send, and what the schema accepts
the server accepts. 422 means the request does not match the schema (types, enums,
patterns, the game names of ``GET /api/games``, the evaluators (the built-ins and the
networks of ``GET /api/games``), and the budget caps of ``Settings``,
which :func:`create_app` writes into the schema as maxima); 400 means it matches but
the game refuses it (a bad game parameter, an illegal move, a position after the end,
a node not in the tree), which no schema can tell in advance.

The modules, each importing only those before it: :mod:`~mctslab.web.settings` (the
caps), :mod:`~mctslab.web.schemas` (the models), :mod:`~mctslab.web.views` (models
built from states and results), :mod:`~mctslab.web.sessions` (sessions, their store,
freeing trees), :mod:`~mctslab.web.runner` (chunked searches),
:mod:`~mctslab.web.networks` (the trained networks offered as PUCT's evaluator),
:mod:`~mctslab.web.errors` (the error handlers), :mod:`~mctslab.web.routes` (the
endpoints, listed there; ``/docs`` and ``/openapi.json`` describe them in full) and
this one.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI

import mctslab
from mctslab.players.optimizers import OPTIMIZERS
from mctslab.web import networks
from mctslab.web.body import BodyLimit
from mctslab.web.errors import add_error_handlers
from mctslab.web.hosts import HostCheck
from mctslab.web.optimize import DEFAULT_RUN_SECONDS
from mctslab.web.positions import lab_game_names
from mctslab.web.routes import add_routes
from mctslab.web.schemas import (
    BODY_ERROR,
    DEFAULT_ITERATIONS,
    HOST_ERROR,
    OPENSPIEL_GAME,
    ErrorOut,
)
from mctslab.web.sessions import SessionStore
from mctslab.web.settings import Settings
from mctslab.web.warmup import WarmUp

__all__ = ["create_app"]


def create_app(settings: Settings | None = None) -> FastAPI:
    """The web lab's FastAPI application (serve it with uvicorn: ``mctslab serve``)."""
    settings = settings or Settings()
    sessions = SessionStore(settings)
    lab_games = lab_game_names()  # the games the schema names, and GET /api/games lists

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async def sweeper() -> None:
            while True:
                await asyncio.sleep(settings.sweep_seconds)
                sessions.sweep()

        task = asyncio.create_task(sweeper())
        warm_up = WarmUp()
        if settings.warm_engine:
            warm_up.start()
        try:
            yield
        finally:
            warm_up.stop()
            task.cancel()
            sessions.cancel_all()
            app.state.optimize.runs.stop_all()  # single-player runs end at their next check

    app = FastAPI(
        title="mctslab web lab",
        version=mctslab.__version__,
        description="Play against MCTS and watch its tree grow: sessions, step-by-step "
        "iterations, tree views and exports, and a stateless bot endpoint (POST /api/move). "
        "Errors are JSON {'detail': one line} (ErrorOut); each route lists the statuses it "
        "sends: 400 refused by the game (or a Host header not allowed), 404 no such session, "
        "409 busy, 413 over a size cap, 422 not what this schema accepts (or over a budget "
        "cap), 429 too many sessions or searches at once, or no memory left for trees.",
        lifespan=lifespan,
    )
    default_openapi = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            _make_exact(default_openapi(), settings, lab_games)  # caches it in app.openapi_schema
        return app.openapi_schema or {}

    app.openapi = openapi  # type: ignore[method-assign]
    add_error_handlers(app)  # errors: one line, 4xx for anything the user did
    add_routes(app, settings, sessions, lab_games)
    # A body is bounded before it is read whole, and checked as JSON (mctslab.web.body).
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)
    # Outermost: a request under a Host the server does not answer to reaches nothing.
    app.add_middleware(HostCheck, allowed_hosts=settings.allowed_hosts)
    return app


# The OpenAPI schema, made exact ---------------------------------------------------------------


# The request fields the caps of Settings bound: (schema component, field) -> cap.
_CAPPED_FIELDS = {
    ("EngineConfig", "iterations"): "max_iterations",
    ("EngineConfig", "time"): "max_time",
    ("MoveIn", "iterations"): "max_iterations",
    ("MoveIn", "time"): "max_time",
    ("BudgetIn", "iterations"): "max_iterations",
    ("BudgetIn", "time"): "max_time",
    ("IterationsIn", "k"): "max_iterations",
    ("OptimizeRunIn", "time"): "max_optimize_time",
}


def _make_exact(schema: dict[str, Any], settings: Settings, games: list[str]) -> None:
    """Complete FastAPI's schema (in place) with what only the app knows.

    - FastAPI adds a 422 of its own model (an array of errors) to every route that has
      a parameter. The server sends :class:`ErrorOut` instead, and the routes that can
      send a 422 say so themselves: the added ones are dropped (a path parameter alone
      cannot be invalid).
    - The caps of ``settings`` become the maxima of the budget fields (the server
      checks them itself, with a ``detail`` that names the cap).
    - A game is a name of ``games`` (``GET /api/games``) or ``openspiel:NAME`` for a game
      of the lab's OpenSpiel list (:data:`mctslab.web.openspiel.ALLOWED`).
    - Every route may send a 400 for a ``Host`` header the server does not answer to
      (:mod:`mctslab.web.hosts`): it is documented on each; every route that takes a
      body, a 413 for one over ``max_body_bytes`` (:mod:`mctslab.web.body`).
    - An evaluator is a built-in's name or ``network:NAME`` for a network the lab offers
      (a game's ``models`` in ``GET /api/games``: those shipped, where PyTorch imports).
    """
    components = schema["components"]["schemas"]
    for operations in schema["paths"].values():
        for operation in operations.values():
            added = operation["responses"].get("422", {})
            ref = added.get("content", {}).get("application/json", {}).get("schema", {})
            if ref.get("$ref", "").endswith("/HTTPValidationError"):
                del operation["responses"]["422"]
            responses = operation["responses"]
            error = {"schema": {"$ref": f"#/components/schemas/{ErrorOut.__name__}"}}
            if "400" not in responses:
                responses["400"] = {
                    "description": HOST_ERROR,
                    "content": {"application/json": error},
                }
            if "requestBody" in operation and "413" not in responses:
                responses["413"] = {
                    "description": BODY_ERROR,
                    "content": {"application/json": error},
                }
    components.pop("HTTPValidationError", None)
    components.pop("ValidationError", None)
    iterations = components["EngineConfig"]["properties"]["iterations"]
    iterations["default"] = min(DEFAULT_ITERATIONS, settings.max_iterations)
    run_time = components["OptimizeRunIn"]["properties"]["time"]
    run_time["default"] = min(DEFAULT_RUN_SECONDS, settings.max_optimize_time)
    for (model, field), cap in _CAPPED_FIELDS.items():
        prop = components[model]["properties"][field]
        for branch in prop.get("anyOf", [prop]):
            if branch.get("type") in ("integer", "number"):
                branch["maximum"] = getattr(settings, cap)
    _single_player(components)
    # PUCT's evaluator: a built-in, or a network the lab offers (GET /api/games).
    evaluator = components["EngineConfig"]["properties"]["evaluator"]
    evaluator["enum"] = networks.evaluator_names()
    for model in ("SessionIn", "MoveIn"):
        prop = components[model]["properties"]["game"]
        del prop["type"]
        prop["anyOf"] = [
            {"type": "string", "enum": games},
            {"type": "string", "pattern": OPENSPIEL_GAME},
        ]


def _single_player(components: dict[str, Any]) -> None:
    """The single-player requests' schemas, as exact as their handlers
    (:mod:`mctslab.web.routes.optimize`):

    - a run's ``search`` is a spec of a known kind (``KIND`` or ``KIND:options``, the
      kinds of :data:`mctslab.players.optimizers.OPTIMIZERS`); its options' values and a
      kind the game does not take (a TSP-only search on SameGame) stay the handler's 400;
    - a step request continues a session (``session`` and ``skip`` alone) or makes one
      (no ``session``, or ``null``): configuration fields beside a ``session`` were
      refused (400) where the schema allowed them.
    """
    run = components.get("OptimizeRunIn")
    if run is not None:
        # Any case: the handler reads the kind lower-cased.
        kinds = "|".join(
            "".join(f"[{c}{c.upper()}]" if c.isalpha() else re.escape(c) for c in kind)
            for kind in OPTIMIZERS
        )
        for branch in run["properties"]["search"].get("anyOf", [run["properties"]["search"]]):
            if branch.get("type") == "string":
                branch["pattern"] = rf"^\s*({kinds})\s*(:[\s\S]*)?$"
    step = components.get("OptimizeStepIn")
    if step is not None:
        step["anyOf"] = [
            {"properties": {"session": {"type": "null"}}},
            {"required": ["session"], "propertyNames": {"enum": ["session", "skip"]}},
        ]
