"""``mctslab serve``: start the web lab.

Registered on :data:`mctslab.cli.main.app`. FastAPI and uvicorn (the ``web`` extra) are
imported only when the command runs, so that ``mctslab`` works without them.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from mctslab.cli.app import EXIT_USER_ERROR, app

__all__ = ["serve"]


@app.command()
def serve(
    host: Annotated[
        str, typer.Option("--host", help="Address to bind (loopback: this machine only).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port to listen on.")] = 8000,
) -> None:
    """Start the web lab: play against MCTS in the browser and watch its tree grow."""
    try:
        import uvicorn

        from mctslab.web.app import create_app
        from mctslab.web.sessions import tune_process
        from mctslab.web.settings import Settings
    except ImportError as err:
        print(
            f"error: mctslab serve needs the web extra ({err.name} is missing): "
            "pip install 'mctslab[web]'",
            file=sys.stderr,
        )
        raise typer.Exit(EXIT_USER_ERROR) from None
    if not 0 <= port <= 65535:
        print(f"error: --port must be in [0, 65535], got {port}", file=sys.stderr)
        raise typer.Exit(EXIT_USER_ERROR)
    shown = f"[{host}]" if ":" in host else host
    print(f"mctslab web lab: http://{shown}:{port}/  (Ctrl-C to stop)", flush=True)
    if host not in ("127.0.0.1", "localhost", "::1"):
        print(
            "warning: the lab is reachable from other machines; it has no authentication",
            file=sys.stderr,
        )
    tune_process()
    uvicorn.run(create_app(Settings()), host=host, port=port, log_level="warning")
