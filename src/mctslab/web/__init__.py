"""The web lab: play against MCTS in the browser and watch its tree grow.

``mctslab serve`` (:mod:`mctslab.cli.serve`) starts :func:`mctslab.web.server.create_app`
under uvicorn. The server needs the ``web`` extra (FastAPI, uvicorn); this package's
``__init__`` imports neither, so that ``mctslab`` works without it.
"""
