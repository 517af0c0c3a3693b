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
rules), :mod:`~mctslab.search.solver` (MCTS-Solver's proofs). The engine's public face,
the searcher (``MCTS``, ``search``) and every name above, is :mod:`mctslab.search.mcts`;
its compiled twin is :mod:`mctslab.search.compiled`.
"""
