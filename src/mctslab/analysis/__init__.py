"""Analysis: looking inside searches and policies.

- :mod:`~mctslab.analysis.treeview`: tree views and exports (text, DOT, SVG, JSON) of
  either engine's tree;
- :mod:`~mctslab.analysis.exploitability`: exact best responses and exploitability;
- :mod:`~mctslab.analysis.player_policy`: a player's policy read at every information
  state;
- :mod:`~mctslab.analysis.dataset`: datasets of positions and search statistics from
  self-play (``mctslab selfplay``).

May import: :mod:`mctslab.players` and the layers below it.
"""
