"""Arena: measuring players against each other.

- :mod:`~mctslab.arena.tournament`: round-robin tournaments, time control, resume;
- :mod:`~mctslab.arena.game_task`: one game of a tournament (local or on Ray);
- :mod:`~mctslab.arena.store`: the SQLite results store;
- :mod:`~mctslab.arena.ratings`: Elo by maximum likelihood, with intervals;
- :mod:`~mctslab.arena.sprt`: the sequential probability ratio test;
- :mod:`~mctslab.arena.ray_backend`: tournaments on a Ray cluster;
- :mod:`~mctslab.arena.tune`: tuning a search option over a grid;
- :mod:`~mctslab.arena.analyze`: self-play playtesting reports.

May import: :mod:`mctslab.players` and the layers below it.

Its face: the tournament (:class:`ArenaConfig`, :class:`Entrant`, :func:`run_arena`,
:func:`schedule`, :func:`play_task`), the test that stops when a difference is proved
(:func:`run_sprt`, :class:`Sprt`, :class:`SprtConfig`), the ratings (:func:`compute_ratings`,
:class:`Ratings`, :class:`GameOutcome`) and the store (:class:`ResultStore`,
:class:`GameRecord`, :class:`NotAStoreError`).
"""

from mctslab.arena.ratings import GameOutcome, Ratings, compute_ratings
from mctslab.arena.sprt import Sprt, SprtConfig
from mctslab.arena.store import GameRecord, NotAStoreError, ResultStore
from mctslab.arena.tournament import ArenaConfig, Entrant, play_task, run_arena, run_sprt, schedule

__all__ = [
    "ArenaConfig",
    "Entrant",
    "GameOutcome",
    "GameRecord",
    "NotAStoreError",
    "Ratings",
    "ResultStore",
    "Sprt",
    "SprtConfig",
    "compute_ratings",
    "play_task",
    "run_arena",
    "run_sprt",
    "schedule",
]
