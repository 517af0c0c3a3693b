"""Players: what chooses moves in a game, named by spec strings.

- :mod:`~mctslab.players.player`: the ``Player`` protocol, mctslab's players (MCTS,
  ISMCTS, PIMC, minimax, random, human), spec strings, ``play_game`` and the rule on
  players that would read hidden information;
- :mod:`~mctslab.players.openspiel`: OpenSpiel's bots as players.

May import: :mod:`mctslab.nn`, :mod:`mctslab.search`, :mod:`mctslab.games`,
:mod:`mctslab.core`.
"""
