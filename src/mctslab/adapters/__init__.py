"""Adapters: mctslab's games offered to other frameworks' algorithms.

The reverse of :mod:`mctslab.games.openspiel` and :mod:`mctslab.players.openspiel`,
where mctslab uses what other frameworks offer: here their algorithms use mctslab's
games, each adapter wrapping mctslab's own states (``clone``, ``apply_action``) and
copying no rule.

- :mod:`~mctslab.adapters.openspiel`: a game registered as a ``pyspiel`` Python game
  (``register("kuhn_poker")`` -> ``"mctslab_kuhn_poker"``, for ``pyspiel.load_game``).

Each adapter is imported by its own name (``from mctslab.adapters.openspiel import
register``): this face imports none of them, so that ``import mctslab.adapters``
needs none of the frameworks (``pyspiel``, ``pettingzoo``, ``gymnasium``).

May import: every layer below :mod:`mctslab.clients` (:mod:`mctslab.train`,
:mod:`mctslab.arena`, :mod:`mctslab.analysis`, :mod:`mctslab.players` and below), not
:mod:`mctslab.clients`, :mod:`mctslab.web` or :mod:`mctslab.cli`.
"""

__all__: list[str] = []
