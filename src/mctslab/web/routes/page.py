"""The page: ``GET /`` (the lab's HTML) and ``/static`` (its CSS and ES modules).

Not in the OpenAPI schema: the page is for browsers, the API for everyone.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.responses import FileResponse, HTMLResponse, Response
from fastapi.staticfiles import StaticFiles

__all__ = ["STATIC", "add_page"]

STATIC = Path(__file__).parent.parent / "static"

router = APIRouter()


@router.get("/", include_in_schema=False, response_model=None)
async def index() -> Response:
    page = STATIC / "index.html"
    if page.exists():
        return FileResponse(page, headers={"Cache-Control": "no-cache"})
    return HTMLResponse("<!doctype html><title>mctslab</title><p>The page is missing.")


def add_page(app: FastAPI) -> None:
    """Register the page and mount ``/static`` on ``app`` (a mount is the app's: a router
    cannot carry one)."""
    app.include_router(router)
    if STATIC.is_dir():
        app.mount("/static", StaticFiles(directory=STATIC), name="static")
