"""What a search found, shared by both engines: the root's statistics
(:class:`ChildStats`, :class:`SearchResult`, :func:`make_result`) and the final-move
rules that pick the move to play from them.

- *robust child* (:func:`robust_child`): the most visited move;
- *max child* (:func:`max_child`): the move of highest mean;
- *robust-max* plays a move that is both, searching on while they disagree
  (:func:`rules_agree`; :class:`~mctslab.search.budget.Budget` extends the budget);
- AlphaZero's self-play move, drawn with probability ``N ** (1 / T)``
  (:func:`sample_by_visits`);
- MCTS-Solver's proofs have their say first (:func:`final_choice`), and a Gumbel search
  plays its Sequential Halving's survivor (:mod:`mctslab.search.gumbel`).

(Chaslot et al. 2008, "Progressive strategies for Monte-Carlo tree search", compare
the robust, max and robust-max children.) The rules read any root child that has an
action, visits, a value sum and a proof (:class:`ChildLike`): the reference engine's
nodes, the compiled engine's :class:`RootChild` views.
"""

from __future__ import annotations

import math
from collections.abc import Generator, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Protocol, TypeVar

from mctslab.core.game import GameInfo
from mctslab.core.rng import Rng
from mctslab.search.config import SearchConfig
from mctslab.search.gumbel import final_choice as gumbel_final_choice
from mctslab.search.rules import puct_config
from mctslab.search.solver import value_for

__all__ = [
    "ChildLike",
    "ChildStats",
    "RootChild",
    "SearchResult",
    "Slices",
    "final_choice",
    "gumbel_stats",
    "make_result",
    "max_child",
    "robust_child",
    "rules_agree",
    "sample_by_visits",
]

C = TypeVar("C", bound="ChildLike")


@dataclass(frozen=True)
class ChildStats:
    """Root statistics of one move, from the point of view of the player to move.

    ``value`` is the mean return on the game's utility scale; ``proven`` is
    1 / 0 / -1 for a proven win / draw / loss, ``None`` if unproven; ``prior`` is
    the evaluator's prior under PUCT (``None`` under UCT); ``policy`` the improved
    policy of a Gumbel search (``softmax(logits + sigma(completed q))``, else ``None``).
    """

    action: int
    visits: int
    value: float
    proven: int | None
    prior: float | None = None
    policy: float | None = None


@dataclass(frozen=True)
class SearchResult:
    """What a search found. ``to_dict()`` gives the CLI's JSON.

    ``value`` is the root's mean return for the player to move; ``final_rule``
    names the rule that picked ``action`` (``"solver"`` when a proof did);
    ``stopped_by`` is ``"iterations"``, ``"time"``, ``"nodes"``, ``"proven"`` or
    ``"agreement"`` (robust-max stopped in its extension once its rules agreed) or
    ``"early"`` (early stop: the most visited child could no longer be caught).
    ``seconds`` and ``sims_per_s`` count search time only; ``compile_seconds`` is
    the time spent compiling or loading compiled code for this search.
    """

    action: int
    value: float
    children: tuple[ChildStats, ...]
    iterations: int
    nodes: int
    seconds: float
    sims_per_s: float
    proven: int | None
    player: int
    final_rule: str
    stopped_by: str
    compile_seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


#: A search in slices (``search_slices``, :class:`mctslab.search.engine.Searcher`): it
#: yields a result after each slice, interim ones with ``stopped_by == "slice"``
#: (:data:`mctslab.search.budget.SLICE`), last the final one; ``send`` it a number of
#: seconds to change the length of the slices that follow.
Slices = Generator[SearchResult, float | None, None]


class ChildLike(Protocol):
    """What the final-move rules read of a root child (a reference engine's
    :class:`~mctslab.search.reference.tree.Node`, or the compiled engine's view of one)."""

    action: int
    visits: int
    value_sum: float
    proven: int | None

    @property
    def mean(self) -> float: ...


@dataclass
class RootChild:
    """A root child's statistics apart from any tree (the compiled engine's and the
    root-parallel searcher's view of one); ``proven`` is for player 0."""

    action: int
    visits: int
    value_sum: float
    proven: int | None
    prior: float | None = None

    @property
    def mean(self) -> float:
        return self.value_sum / self.visits if self.visits else 0.0


def robust_child(children: Sequence[C]) -> C:
    return max(children, key=lambda n: (n.visits, n.mean, -n.action))


def max_child(children: Sequence[C]) -> C:
    seen = [n for n in children if n.visits] or children
    return max(seen, key=lambda n: (n.mean, n.visits, -n.action))


def rules_agree(children: Sequence[ChildLike]) -> bool:
    """Robust-max's test: the most visited child is also the best valued (true at a
    root without children); see :class:`~mctslab.search.budget.Budget`."""
    return not children or robust_child(children) is max_child(children)


def _draw_reward(info: GameInfo) -> float:
    """The reward of a draw (return 0) on the engine's scale ``[0, 1]``, the same for every
    player (the expression of :func:`mctslab.search.reference.tree.scaled_rewards`)."""
    return (0.0 - info.min_utility) / (info.max_utility - info.min_utility)


def sample_by_visits(children: Sequence[C], temperature: float, rng: Rng) -> C:
    """A child drawn with probability proportional to ``N ** (1 / temperature)``
    (AlphaZero's self-play move; weights computed as ``exp((ln N - ln N_max) / T)`` so
    that a low temperature does not overflow); unvisited children are never drawn."""
    seen = [n for n in children if n.visits] or list(children)
    top = max(n.visits for n in seen)
    if top == 0:
        return seen[rng.randint(len(seen))]
    weights = [math.exp((math.log(n.visits) - math.log(top)) / temperature) for n in seen]
    u = rng.random() * sum(weights)
    for n, w in zip(seen, weights, strict=True):
        u -= w
        if u < 0.0:
            return n
    return seen[-1]


def final_choice(
    children: Sequence[C],
    to_play: int,
    config: SearchConfig,
    info: GameInfo,
    rng: Rng | None = None,
) -> tuple[C, str]:
    """The move to play: the final-move rule, after MCTS-Solver's proofs have their say;
    under PUCT with a temperature (and no solver) a move sampled by visits from ``rng``."""
    temperature = puct_config(config).temperature if config.rule.evaluated else 0.0
    if temperature > 0 and not config.solver and children:
        return sample_by_visits(children, temperature, rng or Rng(config.seed)), "sampled"
    if config.solver:
        p = to_play
        wins = [n for n in children if n.proven is not None and value_for(n.proven, p) == 1]
        if wins:
            return robust_child(wins), "solver"
        open_ = [n for n in children if n.proven is None]
        draws = [n for n in children if n.proven is not None and n.proven == 0]
        if not open_:  # every move is proven: a draw if there is one, else the most-visited loss
            return robust_child(draws or children), "solver"
        pick = max_child(open_) if config.final == "max" else robust_child(open_)
        if draws and pick.mean < _draw_reward(info):
            return robust_child(draws), "solver"  # a sure draw beats an unproven move that loses
        return pick, config.final
    if config.final == "max":
        return max_child(children), "max"
    return robust_child(children), config.final


def gumbel_stats(
    children: Sequence[ChildLike], priors: Sequence[float]
) -> tuple[list[float], list[int], list[float]]:
    """The children's values for the player to move on ``[-1, 1]``, visits and priors."""
    return [2.0 * ch.mean - 1.0 for ch in children], [ch.visits for ch in children], list(priors)


def make_result(
    children: Sequence[ChildLike],
    to_play: int,
    root_proven: int | None,
    config: SearchConfig,
    info: GameInfo,
    *,
    iterations: int,
    nodes: int,
    seconds: float,
    stopped_by: str,
    compile_seconds: float = 0.0,
    rng: Rng | None = None,
    gumbel: tuple[dict[int, float], float] | None = None,
) -> SearchResult:
    """The :class:`SearchResult` of a root's children (shared by both engines); ``rng``
    draws the move when PUCT plays with a temperature; ``gumbel`` = (the root actions'
    Gumbel noise, the root's own value) gives a Gumbel search its move and policy."""
    p = to_play
    policy: list[float | None] = [None] * len(children)
    gumbel_pick: ChildLike | None = None
    if config.rule.root_halving and gumbel is not None and children:
        puct, (noise, raw) = puct_config(config), gumbel
        q, counts, priors = gumbel_stats(children, [ch.prior or 0.0 for ch in children])  # type: ignore[attr-defined]
        index, weights = gumbel_final_choice(
            q,
            counts,
            priors,
            raw,
            [noise.get(ch.action, 0.0) for ch in children],
            info.num_actions,
            puct.value_scale,
            puct.maxvisit_init,
        )
        gumbel_pick, policy = children[index], list(weights)
    span = info.max_utility - info.min_utility

    def utility(mean: float) -> float:
        return info.min_utility + mean * span

    stats = tuple(
        ChildStats(
            action=ch.action,
            visits=ch.visits,
            value=utility(ch.mean) if ch.visits else 0.0,
            proven=None if ch.proven is None else value_for(ch.proven, p),
            prior=getattr(ch, "prior", None) if config.rule.evaluated else None,
            policy=policy[i],
        )
        for i, ch in enumerate(children)
    )
    visits = sum(ch.visits for ch in children)
    total = sum(ch.value_sum for ch in children)
    if gumbel_pick is not None and not (
        config.solver and any(ch.proven is not None for ch in children)
    ):
        chosen, rule = gumbel_pick, "gumbel"
    else:
        chosen, rule = final_choice(children, p, config, info, rng)
    return SearchResult(
        action=chosen.action,
        value=utility(total / visits) if visits else 0.0,
        children=stats,
        iterations=iterations,
        nodes=nodes,
        seconds=seconds,
        sims_per_s=iterations / seconds if seconds > 0 else 0.0,
        proven=None if root_proven is None else value_for(root_proven, p),
        player=p,
        final_rule=rule,
        stopped_by=stopped_by,
        compile_seconds=compile_seconds,
    )
