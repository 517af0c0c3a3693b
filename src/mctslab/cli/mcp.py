"""``mctslab mcp``: serve mctslab's tools over the Model Context Protocol (stdio).

Registered on :data:`mctslab.cli.main.app`. The SDK and FastAPI (the ``mcp`` extra) are
imported only when the command runs, so that ``mctslab`` works without them.
"""

from __future__ import annotations

import sys

import typer

from mctslab.cli.app import EXIT_USER_ERROR, app

__all__ = ["mcp"]


@app.command()
def mcp() -> None:
    """Serve mctslab's games and searches to an assistant over the Model Context Protocol:
    speaks JSON-RPC on stdin and stdout, for an MCP client to start (docs/mcp.md)."""
    try:
        from mctslab.mcp.server import run
    except ImportError as err:
        missing = (err.name or "a module").split(".")[0]  # the package to install
        print(
            f"error: mctslab mcp needs the mcp extra ({missing} is missing): "
            "pip install 'mctslab[mcp]'",
            file=sys.stderr,
        )
        raise typer.Exit(EXIT_USER_ERROR) from None
    run()
