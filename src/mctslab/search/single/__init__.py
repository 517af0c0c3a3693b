"""Single-player search: the best sequence of moves in a one-player game whose
``returns()[0]`` is a score to maximise (an optimisation problem written as a game).

- :mod:`~mctslab.search.single.nmcs`: Nested Monte-Carlo Search (Cazenave 2009);
- :mod:`~mctslab.search.single.nrpa`: Nested Rollout Policy Adaptation (Rosin 2011);
- :mod:`~mctslab.search.single.spmcts`: Single-Player MCTS (Schadd et al. 2008);
- :mod:`~mctslab.search.single.compiled` and
  :mod:`~mctslab.search.single.spmcts_compiled`: the three compiled with numba over a
  kernel game's rules, the same results as the reference versions;
- :mod:`~mctslab.search.single.result`: what they return (:class:`OptimizeResult`: the
  best sequence, its score, when it was found, every improvement), their budgets, and
  :class:`Watch` (stop a running search from another thread, read its best so far);
- :mod:`~mctslab.search.single.moves`: move codes and playouts.
"""

from mctslab.search.single.nmcs import NMCSConfig, nmcs
from mctslab.search.single.nrpa import NRPAConfig, nrpa
from mctslab.search.single.result import Improvement, OptimizeResult, Watch
from mctslab.search.single.spmcts import SPMCTSConfig, spmcts

__all__ = [
    "Improvement",
    "NMCSConfig",
    "NRPAConfig",
    "OptimizeResult",
    "SPMCTSConfig",
    "Watch",
    "nmcs",
    "nrpa",
    "spmcts",
]
