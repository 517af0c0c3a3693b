"""Single-player search: the best sequence of moves in a one-player game whose
``returns()[0]`` is a score to maximise (an optimisation problem written as a game).

- :mod:`~mctslab.search.single.nmcs`: Nested Monte-Carlo Search (Cazenave 2009);
- :mod:`~mctslab.search.single.nrpa`: Nested Rollout Policy Adaptation (Rosin 2011);
- :mod:`~mctslab.search.single.result`: what they return (:class:`OptimizeResult`: the
  best sequence, its score, when it was found, every improvement) and their budgets;
- :mod:`~mctslab.search.single.moves`: move codes and playouts.
"""

from mctslab.search.single.nmcs import NMCSConfig, nmcs
from mctslab.search.single.nrpa import NRPAConfig, nrpa
from mctslab.search.single.result import Improvement, OptimizeResult

__all__ = ["Improvement", "NMCSConfig", "NRPAConfig", "OptimizeResult", "nmcs", "nrpa"]
