"""The command line, ``mctslab``: the top layer, which nothing else imports.

- :mod:`~mctslab.cli.app`: the typer app, the shared options and the error handling;
- :mod:`~mctslab.cli.main`: ``play``, ``search``, ``solve``, ``games`` and ``main``;
  it imports one module per command group: :mod:`~mctslab.cli.arena` (arena,
  ratings, sprt), :mod:`~mctslab.cli.tune` (tune, analyze), :mod:`~mctslab.cli.tree`,
  :mod:`~mctslab.cli.exploitability`, :mod:`~mctslab.cli.selfplay` (self-play
  datasets), :mod:`~mctslab.cli.bohnenspiel`, :mod:`~mctslab.cli.gtp` (a Go engine
  over GTP), :mod:`~mctslab.cli.sgf` (Go games as SGF files) and
  :mod:`~mctslab.cli.serve` (the web lab).

May import: every other layer.
"""

from mctslab.cli.app import app
from mctslab.cli.main import main

__all__ = ["app", "main"]
