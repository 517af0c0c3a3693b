"""PUCT: AlphaGo's selection rule, with priors from an evaluator.

AlphaGo (Silver et al. 2016) and AlphaZero (Silver et al. 2017, 2018) select the child
that maximises::

    score(child) = Q(child) + c(N) * P(child) * sqrt(N(parent)) / (1 + N(child))

``Q`` is the child's mean reward in ``[0, 1]`` for the player to move at the parent
(the scale of :mod:`~mctslab.search.mcts`; an unvisited child scores ``fpu``, the
*first-play urgency*), ``P`` its prior from the evaluator (:mod:`~mctslab.search.evaluators`),
``N`` visit counts, and ``c(N) = c`` (or, with ``c_base``, AlphaZero's slowly growing
``c + log((N(parent) + c_base + 1) / c_base)``). ``c = 1.25`` on rewards in ``[0, 1]``
is mctx's ``pb_c_init`` and MuZero's; on values in ``[-1, 1]`` the same search has
``c = 2.5``. A node is evaluated the first time a descent reaches it: its children
are created at once with their priors (there is no "one child at a time" in PUCT),
and the evaluator's value is backed up where a playout's result was.

:class:`PuctConfig` is the ``puct`` option of :class:`~mctslab.search.config.SearchConfig`:
both engines run PUCT when it is set.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from mctslab.core.errors import InvalidConfigError
from mctslab.core.options import check_options, option
from mctslab.search.evaluators import BUILTIN_EVALUATORS, Evaluator, make_evaluator

__all__ = ["PuctConfig", "puct_exploration", "puct_score"]


@dataclass(frozen=True)
class PuctConfig:
    """PUCT's options (AlphaGo's selection rule; see the module docstring).

    Attributes:
        c: the exploration constant ``c`` on rewards in ``[0, 1]`` (mctx's and MuZero's
            ``pb_c_init`` is 1.25).
        c_base: AlphaZero's ``pb_c_base`` (19652 in its pseudocode): ``c(N) = c +
            log((N + c_base + 1) / c_base)``; ``None`` keeps ``c`` constant.
        evaluator: a built-in name (``"uniform+rollout"``, ``"uniform"``,
            ``"heuristic"``), an :class:`~mctslab.search.evaluators.Evaluator`, a
            function of a :class:`~mctslab.search.evaluators.LeafBatch`, or a
            ``torch.nn.Module``.
        fpu: first-play urgency, the ``Q`` of an unvisited child in ``[0, 1]``: 0 (a
            loss: AlphaZero's pseudocode, mctx's min-max transform), 0.5 (a draw), 1 (try
            every move once first).
        mix: AlphaGo's ``lambda``: the leaf's value is ``(1 - mix) * v + mix * z`` with
            ``v`` the evaluator's value and ``z`` a random playout's result (0: no
            playout; the ``"uniform+rollout"`` evaluator is the playout alone).
        noise_alpha: the Dirichlet parameter of the root noise (AlphaZero: 0.3 for chess,
            0.03 for Go: about 10 / the typical number of legal moves).
        noise_fraction: the share of the noise in the root priors, ``P = (1 - f) P +
            f * Dir(alpha)`` (AlphaZero's self-play: 0.25; 0: no noise).
        temperature: the final move: 0 plays the final-move rule of the search config
            (most visits by default); ``T > 0`` samples a root move with probability
            proportional to ``N ** (1 / T)`` (self-play's exploration; 1: in proportion
            to the visits).
        batch: leaves evaluated per evaluator call within one search (virtual loss keeps
            the descents of one batch apart); 1 evaluates each leaf when reached, and the
            two engines build the same tree.
        virtual_loss: visits with reward 0 (a loss) that each node on a pending descent's
            path counts until its leaf's value arrives (with ``batch > 1``).
        gumbel: Gumbel root search (Danihelka et al. 2022, :mod:`~mctslab.search.gumbel`)
            instead of PUCT's rule: Gumbel-top-k at the root, Sequential Halving over the
            iteration budget, deterministic choices below, the final move and the improved
            policy from completed Q-values (mctx's ``gumbel_muzero_policy``). Needs an
            iteration budget, ``batch = 1``, and starts each search from a fresh tree.
        considered: Gumbel's ``m``, root actions sampled (mctx's ``max_num_considered_actions``).
        gumbel_scale: the Gumbel noise's scale (0: the prior's top ``m`` actions, no noise).
        value_scale, maxvisit_init: the scale of completed Q-values, ``sigma = (maxvisit_init
            + max N) * value_scale * cq`` (mctx's 0.1 and 50).
    """

    c: float = option(
        1.25,
        "PUCT's exploration constant on rewards in [0, 1]",
        low=0,
        lab="PUCT exploration constant on rewards in [0, 1] (selection 'puct'): "
        "score = Q/N + c_puct * P * sqrt(N_parent) / (1 + N).",
    )
    c_base: float | None = option(
        None,
        "AlphaZero's pb_c_base: c grows as c + log((N + c_base + 1) / c_base)",
        low=0,
        low_open=True,
    )
    evaluator: Any = option(
        "uniform+rollout",
        "the priors' and values' evaluator: uniform+rollout, uniform, heuristic",
        check=False,
        lab="PUCT's evaluator (selection 'puct'): uniform priors with a random "
        "playout's result ('uniform+rollout'), value 0 ('uniform'), the game's heuristic "
        "('heuristic'; two-player zero-sum games with a heuristic), or a trained network's "
        "priors and value ('network:NAME', one of the game's models in GET /api/games; "
        "another game's is a 400).",
    )
    fpu: float = option(
        0.0,
        "first-play urgency: an unvisited child's Q",
        low=0,
        high=1,
        lab="PUCT's first-play urgency: the Q/N of an unvisited child, in [0, 1] "
        "(selection 'puct').",
    )
    mix: float = option(
        0.0, "AlphaGo's lambda: the playout's share of a leaf's value", low=0, high=1
    )
    noise_alpha: float = option(
        0.3, "the root noise's Dirichlet parameter", low=0, low_open=True, aliases=("alpha",)
    )
    noise_fraction: float = option(
        0.0, "the root noise's share of the priors", low=0, high=1, aliases=("noise",)
    )
    temperature: float = option(
        0.0,
        "the final move: 0 plays the final-move rule, T > 0 samples by N ** (1 / T)",
        low=0,
        high=100,
    )
    batch: int = option(1, "leaves evaluated per evaluator call", low=1, high=4096)
    virtual_loss: int = option(
        1, "virtual losses of a pending descent's nodes (batch > 1)", low=0, high=1000
    )
    gumbel: bool = option(False, "Gumbel root search instead of PUCT's rule")
    considered: int = option(16, "Gumbel's m: root actions sampled", low=1, high=4096)
    gumbel_scale: float = option(
        1.0, "the Gumbel noise's scale (0: the prior's top m)", low=0, aliases=("scale",)
    )
    value_scale: float = option(0.1, "the scale of completed Q-values (mctx's 0.1)", low=0)
    maxvisit_init: float = option(50.0, "completed Q-values' maxvisit_init (mctx's 50)", low=0)

    def __post_init__(self) -> None:
        where = "puct config"
        check_options(self, where)  # each field's type and range, as declared
        if self.gumbel and self.batch != 1:
            raise InvalidConfigError(
                f"{where}: gumbel=True plans its root visits one at a time: batch must be 1 "
                "(batch many searches with search_many instead)"
            )
        if isinstance(self.evaluator, str) and self.evaluator not in BUILTIN_EVALUATORS:
            make_evaluator(self.evaluator)  # raises the error that lists the valid names
        if self.mix > 0 and self.evaluator == "uniform+rollout":
            raise InvalidConfigError(
                f"{where}: mix mixes an evaluator's value with a playout; "
                "evaluator='uniform+rollout' is the playout alone"
            )

    def make_evaluator(self) -> Evaluator:
        """The evaluator this config names (a new one for a built-in name)."""
        return make_evaluator(self.evaluator)


def puct_exploration(c: float, c_base: float | None, parent_visits: int) -> float:
    """The parent's half of PUCT's exploration term, ``c(N) * sqrt(N)``, computed once
    per node and shared by its children."""
    if c_base is not None:
        c = c + math.log((parent_visits + c_base + 1.0) / c_base)
    return math.sqrt(parent_visits) * c


def puct_score(value_sum: float, visits: int, prior: float, explore: float, fpu: float) -> float:
    """``Q + explore * P / (1 + N)``, with ``Q = value_sum / N`` (``fpu`` when ``N = 0``)
    and ``explore =`` :func:`puct_exploration`. The compiled engine computes the same
    expression, float for float."""
    q = value_sum / visits if visits else fpu
    return q + explore * prior / (1.0 + visits)
