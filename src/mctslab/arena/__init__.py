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
"""
