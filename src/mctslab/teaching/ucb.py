"""UCB as the course texts write it: raw rewards, any logarithm, and a tree by hand.

The engines score a child with UCB1 on rewards in ``[0, 1]`` and the natural logarithm
(:mod:`mctslab.search.rules`): ``Q/n + c * sqrt(ln N / n)``, ``c = sqrt(2)`` (Kocsis and
Szepesvari's UCT; Auer et al.'s UCB1). Teaching texts often take other liberties: raw
rewards such as 20 or 15 points, and the logarithm in base 10. :func:`ucb` takes both as
options, and :func:`worked_example` replays a four-iteration worked example by hand with
them: a root ``A`` with children ``B`` and ``C``; a leaf that has been visited is expanded
(``B`` into ``E`` and ``F``, ``C`` into ``G``) and its first new child simulated; ties
between unvisited children go left to right; the simulations return the given rewards.

>>> steps = worked_example(rewards=(20, 10, 0, 15), log_base=10)
>>> [s.simulated for s in steps]
['B', 'C', 'E', 'G']
>>> {name: round(score, 4) for name, score in steps[3].scores.items()}
{'B': 10.6907, 'C': 10.9769}
>>> natural = worked_example(rewards=(20, 10, 0, 15))
>>> {name: round(score, 4) for name, score in natural[3].scores.items()}
{'B': 11.0481, 'C': 11.4823}
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from mctslab.core.errors import InvalidConfigError

__all__ = ["Step", "ToyNode", "ucb", "worked_example"]


def ucb(
    mean: float,
    visits: int,
    parent_visits: int,
    c: float = math.sqrt(2),
    log_base: float = math.e,
) -> float:
    """``mean + c * sqrt(log_b(parent_visits) / visits)``: UCB1 with the logarithm in
    base ``log_base`` (``math.e`` is the standard formula's; 10 some texts') on rewards
    as they are. An unvisited child scores ``inf`` (it is tried first).

    >>> round(ucb(10.0, 2, 3, log_base=10), 4), round(ucb(10.0, 2, 3), 4)
    (10.6907, 11.0481)
    """
    if visits < 0 or parent_visits < 0 or log_base <= 1.0:
        raise InvalidConfigError(
            f"ucb: visits >= 0 and a log base > 1, got visits={visits}, "
            f"parent_visits={parent_visits}, log_base={log_base}"
        )
    if visits == 0:
        return math.inf
    return mean + c * math.sqrt(math.log(parent_visits, log_base) / visits)


@dataclass
class ToyNode:
    """A node of the hand-built tree: its name, visits and reward total (its value is
    the mean, ``total / visits``), and the names its expansion adds."""

    name: str
    expands_to: tuple[str, ...] = ()
    visits: int = 0
    total: float = 0.0
    children: list[ToyNode] = field(default_factory=list)

    @property
    def mean(self) -> float:
        return self.total / self.visits if self.visits else 0.0


@dataclass(frozen=True)
class Step:
    """One iteration of :func:`worked_example`: the root's children's UCB ``scores``
    when selection started (``inf`` if unvisited), the ``path`` selected (names), the
    node ``expanded`` (``None`` if the leaf had no visit yet), the node ``simulated`` and
    its ``reward``, then every node's ``(visits, mean)`` after backpropagation."""

    iteration: int
    scores: dict[str, float]
    path: tuple[str, ...]
    expanded: str | None
    simulated: str
    reward: float
    after: dict[str, tuple[int, float]]


def worked_example(
    rewards: Sequence[float] = (20, 10, 0, 15),
    c: float = math.sqrt(2),
    log_base: float = math.e,
    shape: dict[str, tuple[str, ...]] | None = None,
) -> list[Step]:
    """Replay the worked example (see the module's docstring) for ``len(rewards)``
    iterations, simulation ``i`` returning ``rewards[i]``; ``shape`` maps each node's
    name to the children its expansion adds (default ``A: B C``, ``B: E F``, ``C: G``)."""
    shape = shape or {"A": ("B", "C"), "B": ("E", "F"), "C": ("G",)}
    nodes = {name: ToyNode(name, kids) for name, kids in shape.items()}
    root = nodes["A"]
    root.children = [nodes.setdefault(k, ToyNode(k, shape.get(k, ()))) for k in root.expands_to]
    steps = []
    for i, reward in enumerate(rewards, start=1):
        scores = {k.name: ucb(k.mean, k.visits, root.visits, c, log_base) for k in root.children}
        path, node = [root], root
        while node.children:  # selection: the best score, the leftmost of a tie
            best = max(ucb(k.mean, k.visits, node.visits, c, log_base) for k in node.children)
            node = next(
                k for k in node.children if ucb(k.mean, k.visits, node.visits, c, log_base) == best
            )
            path.append(node)
        expanded = None
        if node.visits > 0 and node.expands_to:  # a visited leaf: expand it, go to its first child
            node.children = [
                nodes.setdefault(k, ToyNode(k, shape.get(k, ()))) for k in node.expands_to
            ]
            expanded, node = node.name, node.children[0]
            path.append(node)
        for visited in path:  # backpropagation: one more visit, the raw reward added
            visited.visits += 1
            visited.total += reward
        seen = {n.name: (n.visits, n.mean) for n in nodes.values() if n.visits}
        steps.append(
            Step(i, scores, tuple(n.name for n in path), expanded, node.name, reward, seen)
        )
    return steps
