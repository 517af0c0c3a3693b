"""The Model Context Protocol server: mctslab's games and searches as an assistant's tools.

:mod:`~mctslab.mcp.server` holds the server (``mctslab mcp`` runs it over stdio) and its
tools: list the games, search a position, solve one exactly, play a move against
mctslab, explain a search's tree. It needs the ``mcp`` extra (the official SDK, and
FastAPI for the web lab's checks it reuses); this ``__init__`` imports neither.

May import: :mod:`mctslab.web` and the layers below it.
"""
