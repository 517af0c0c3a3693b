"""Search: the algorithms that choose a move from a position.

- :mod:`~mctslab.search.mcts`: the reference MCTS engine's public face (``MCTS``: tree
  reuse and the search loop; every name of its parts): :mod:`~mctslab.search.reference`
  holds the parts (tree, the selection rules and their registry, the four phases as
  four functions); :mod:`~mctslab.search.config` (``SearchConfig``),
  :mod:`~mctslab.search.result` (``SearchResult``, the final-move rules) and
  :mod:`~mctslab.search.solver` (MCTS-Solver's proofs) are shared with its twin;
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
