"""The web lab: play against MCTS in the browser and watch its tree grow.

``mctslab serve`` (:mod:`mctslab.cli.serve`) starts :func:`mctslab.web.app.create_app`
under uvicorn. The server needs the ``web`` extra (FastAPI, uvicorn); this package's
``__init__`` imports neither, so that ``mctslab`` works without it.

- :mod:`~mctslab.web.app`: ``create_app``, which wires the others, and the exact OpenAPI schema;
- :mod:`~mctslab.web.hosts`: the ``Host`` header check (against DNS rebinding);
- :mod:`~mctslab.web.routes`: the page and the API's endpoints (``add_routes``), one router
  per resource, sharing the app's state as one ``Lab`` object;
- :mod:`~mctslab.web.errors`: the error handlers (every error one line of JSON);
- :mod:`~mctslab.web.runner`: chunked searches, cancellable between chunks (``run_chunks``);
- :mod:`~mctslab.web.sessions`: sessions, their store, freeing trees, ``tune_process``;
- :mod:`~mctslab.web.positions`: the games the lab plays, positions built from requests;
- :mod:`~mctslab.web.limits`: the memory budget of every tree, searches per client;
- :mod:`~mctslab.web.views`: response models built from states and search results;
- :mod:`~mctslab.web.schemas`: the request and response models (pydantic);
- :mod:`~mctslab.web.settings`: ``Settings``, the caps every request is bounded by;
- :mod:`~mctslab.web.openspiel`: the OpenSpiel games served, parameters bounded;
- :mod:`~mctslab.web.render`: what the page draws for a position;
- ``static/``: the page (HTML, CSS, ES modules).

Each module imports only those listed below it. May import: :mod:`mctslab.clients`
and the layers below it.
"""
