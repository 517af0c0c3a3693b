"""Adapters: mctslab's games inside other projects' APIs (OpenSpiel, PettingZoo, Gymnasium).

Each module imports its project lazily: importing :mod:`mctslab.adapters` imports none of
them, importing :mod:`mctslab.adapters.pettingzoo` imports PettingZoo (the ``pettingzoo``
extra), :mod:`mctslab.adapters.gymnasium` Gymnasium (the ``gymnasium`` extra). The
adapters wrap mctslab's own states (``make(name).new_initial_state()``, ``clone``,
``apply_action``, ``returns``); no rule is written twice.

May import: :mod:`mctslab.arena`, :mod:`mctslab.players` and the layers below them.
"""

__all__: list[str] = []
