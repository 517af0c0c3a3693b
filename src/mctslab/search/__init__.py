"""Search: the algorithms that choose a move from a position.

- :mod:`~mctslab.search.mcts`: the reference MCTS engine's searcher (``MCTS``: tree
  reuse and the search loop; ``search``): :mod:`~mctslab.search.reference` holds its
  parts (tree, the selection rules' choosers, the four phases as four functions);
  :mod:`~mctslab.search.config` (``SearchConfig``), :mod:`~mctslab.search.result`
  (``SearchResult``, the final-move rules), :mod:`~mctslab.search.solver`
  (MCTS-Solver's proofs) and :mod:`~mctslab.search.budget` (when a search stops) are
  the base both engines stand on, each name imported from the module that defines it;
- :mod:`~mctslab.search.compiled`: its compiled twin over rule kernels (numba);
- :mod:`~mctslab.search.puct`: AlphaGo's PUCT rule and its options (``PuctConfig``);
- :mod:`~mctslab.search.evaluators`: priors and values for PUCT (built in, functions,
  torch networks);
- :mod:`~mctslab.search.gumbel`: Gumbel root search (Danihelka et al. 2022);
- :mod:`~mctslab.search.engine`: engine choice (``make_searcher``, ``search``);
- :mod:`~mctslab.search.parallel`: root parallelism in processes;
- :mod:`~mctslab.search.trace`: the step-by-step tracer of the reference engine;
- :mod:`~mctslab.search.ismcts`: searches for hidden information (PIMC, ISMCTS);
- :mod:`~mctslab.search.minimax`: exact minimax and alpha-beta, the baselines.

May import: :mod:`mctslab.core` and :mod:`mctslab.games`.
"""
