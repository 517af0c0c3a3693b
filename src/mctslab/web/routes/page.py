"""The page: ``GET /`` (the lab's HTML), ``/static`` (its CSS and ES modules) and
``GET /engine-config.json`` (the JSON schema of a request's search configuration, whose
defaults the page's settings start from).

Not in the OpenAPI schema: the page is for browsers, the API for everyone.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from fastapi import APIRouter, FastAPI
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles

from mctslab.web.schemas import EngineConfig

__all__ = ["STATIC", "add_page"]

STATIC = Path(__file__).parent.parent / "static"

router = APIRouter()


@router.get("/", include_in_schema=False, response_model=None)
async def index() -> Response:
    page = STATIC / "index.html"
    if page.exists():
        return FileResponse(page, headers={"Cache-Control": "no-cache"})
    return HTMLResponse("<!doctype html><title>mctslab</title><p>The page is missing.")


@cache
def engine_config_schema() -> dict[str, Any]:
    """:class:`EngineConfig`'s JSON schema: the model ``/openapi.json`` describes a
    session's ``config`` with, its defaults the same (c = sqrt(2), as SearchConfig's)."""
    return EngineConfig.model_json_schema()


@router.get("/engine-config.json", include_in_schema=False, response_model=None)
async def engine_config() -> Response:
    """The search configuration's schema, for the page's defaults: the model alone, in
    milliseconds, where the whole ``/openapi.json`` takes seconds to build on its first
    request (the page would open that much later)."""
    return JSONResponse(engine_config_schema(), headers={"Cache-Control": "no-cache"})


def add_page(app: FastAPI) -> None:
    """Register the page and mount ``/static`` on ``app`` (a mount is the app's: a router
    cannot carry one)."""
    app.include_router(router)
    if STATIC.is_dir():
        app.mount("/static", StaticFiles(directory=STATIC), name="static")
