"""Adapters: mctslab's games inside other projects' APIs (OpenSpiel, PettingZoo, Gymnasium).

The reverse of :mod:`mctslab.games.openspiel` and :mod:`mctslab.players.openspiel`,
where mctslab uses what other frameworks offer: here their algorithms use mctslab's
games, each adapter wrapping mctslab's own states (``clone``, ``apply_action``,
``returns``) and copying no rule.

- :mod:`~mctslab.adapters.openspiel`: a game registered as a ``pyspiel`` Python game
  (``register("kuhn_poker")`` -> ``"mctslab_kuhn_poker"``, for ``pyspiel.load_game``);
- :mod:`~mctslab.adapters.pettingzoo`: a game as a PettingZoo AEC environment, and
  ``MCTSPolicy``, mctslab's search as a PettingZoo policy (the ``pettingzoo`` extra);
- :mod:`~mctslab.adapters.gymnasium`: a single-player game as a Gymnasium environment
  (the ``gymnasium`` extra).

Each adapter is imported by its own name (``from mctslab.adapters.openspiel import
register``): this face imports none of them, so that ``import mctslab.adapters``
needs none of the frameworks (``pyspiel``, ``pettingzoo``, ``gymnasium``).

May import: every layer below :mod:`mctslab.clients` (:mod:`mctslab.train`,
:mod:`mctslab.arena`, :mod:`mctslab.analysis`, :mod:`mctslab.players` and below), not
:mod:`mctslab.clients`, :mod:`mctslab.web` or :mod:`mctslab.cli`.
"""

__all__: list[str] = []
