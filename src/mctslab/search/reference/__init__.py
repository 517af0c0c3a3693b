"""The reference MCTS engine's parts, one module per concept, in the order of an iteration:

- :mod:`~mctslab.search.reference.tree`: the tree (``Node``, ``SearchTree``, ``open_node``);
- :mod:`~mctslab.search.reference.selection`: the selection rules' choosers (UCT,
  UCB1-Tuned, RAVE and progressive bias, PUCT, Gumbel), ``SELECTION_RULES``, derived from
  the rules' registry :data:`mctslab.search.rules.RULES`;
- :mod:`~mctslab.search.reference.phases`: the four phases (``select``, ``expand``,
  ``simulate``, ``backpropagate``), ``iterate``, which calls them, and its observer
  (``Recorder``).

What both engines share lies beside this package: :mod:`~mctslab.search.config`
(``SearchConfig``), :mod:`~mctslab.search.result` (``SearchResult``, the final-move
rules), :mod:`~mctslab.search.solver` (MCTS-Solver's proofs), :mod:`~mctslab.search.budget`
(when a search stops). The engine's searcher (``MCTS``, ``search``) is
:mod:`mctslab.search.mcts`, which re-exports nothing: each name above is imported from
its own module. Its compiled twin, :mod:`mctslab.search.compiled`, imports neither.
"""
