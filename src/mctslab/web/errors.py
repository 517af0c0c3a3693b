"""The server's error handlers: every error is :class:`mctslab.web.schemas.ErrorOut`, one line.

User errors are 4xx, never a 500: a request that does not match the schema (or
malformed JSON) is 422, a mctslab user error (a ``ValueError``: unknown game or option,
bad parameter, illegal move) is 400, and an SVG export without Graphviz is 503. A 405
names in ``Allow`` every method of the path.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import fastapi.routing
from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from mctslab.analysis import treeview

__all__ = ["add_error_handlers", "validation_message"]


def _one_line(text: str) -> str:
    return " ".join(text.split())


def validation_message(errors: Sequence[Any]) -> str:
    """A request's schema errors (pydantic's ``errors()``) as the one line of a 422: where
    the first is (``config.c``), what is wrong, and how many more there are. The MCP
    server's tools say the same (:mod:`mctslab.mcp.server`)."""
    first = errors[0] if errors else {}
    loc = [str(x) for x in first.get("loc", ()) if x != "body"]
    if first.get("type") == "json_invalid":
        reason = first.get("ctx", {}).get("error", "not JSON")
        message = f"malformed JSON body: {reason}"
    else:
        where = ".".join(loc) or "body"
        message = f"{where}: {first.get('msg', 'invalid input')}"
        if first.get("type") == "extra_forbidden":
            message = f"{where}: unknown field"
    if len(errors) > 1:
        message += f" (and {len(errors) - 1} more)"
    return _one_line(message)


def _routes(app: FastAPI) -> Iterable[Any]:
    """Every route of ``app``, those of its included routers among them (each answers
    ``matches`` and ``methods``). FastAPI from 0.16x keeps an included router as one entry
    of ``app.router.routes``, which :func:`fastapi.routing.iter_route_contexts` unfolds;
    before, ``include_router`` copied the router's routes in."""
    unfold = getattr(fastapi.routing, "iter_route_contexts", None)
    return app.router.routes if unfold is None else unfold(app.router.routes)


def add_error_handlers(app: FastAPI) -> None:
    """Register the handlers that turn every error into ``{"detail": one line}``."""

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"detail": validation_message(exc.errors())}, status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code == 405:
            # Starlette's Allow names the methods of the first route on the path; a path
            # with two routes (GET and DELETE /api/sessions/{sid}) has the methods of both.
            # Asked with no method, every route on the path matches in part (not NONE).
            methods: set[str] = set()
            for route in _routes(app):
                match, _ = route.matches({**request.scope, "method": ""})
                if match is not Match.NONE:
                    methods |= getattr(route, "methods", None) or set()
            headers = {**(exc.headers or {}), "Allow": ", ".join(sorted(methods))}
            exc = StarletteHTTPException(405, exc.detail, headers=headers)
        return await http_exception_handler(request, exc)

    @app.exception_handler(treeview.GraphvizNotFoundError)
    async def no_graphviz(request: Request, exc: treeview.GraphvizNotFoundError) -> JSONResponse:
        return JSONResponse({"detail": _one_line(str(exc))}, status_code=503)

    @app.exception_handler(ValueError)
    async def user_error(request: Request, exc: ValueError) -> JSONResponse:
        # Every mctslab user error is a ValueError (MctslabError): unknown game or
        # option, bad parameter, illegal move. Their messages name the problem.
        message = _one_line(str(exc)) or type(exc).__name__
        return JSONResponse({"detail": message}, status_code=400)
