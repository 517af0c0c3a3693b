"""MCTS in one screen, as a textbook lists it, with its two classic bugs as switches.

The engines (:mod:`mctslab.search`) are built for speed and for every variant; a lesson
needs the algorithm small enough to read at once. :func:`mcts` is that: a node holds its
visits and wins, the four phases are four loops, rewards are in ``[0, 1]`` (a win 1, a
draw 0.5, a loss 0, from a two-player game's returns in ``[-1, 1]``), and the move played
is the most visited. Two switches reproduce the mistakes students (and listings) make:

- ``credit="to_move"``: backpropagation credits a node with the reward of the player
  **to move** at that node instead of the player who **moved into** it. Selection at a
  node chooses among moves of the player to move there, so each child's value must be
  that player's: with the wrong perspective the search prefers the moves that are best
  for the opponent, and misses wins in one and blocks.
- ``exploration="doubled"``: the exploration term written ``c * sqrt(2 ln N / n)`` with
  ``c = sqrt(2)``, which is ``2 * sqrt(ln N / n)``: the constant counted twice, so the
  search explores too much and plays worse at the same budget.

``credit="mover"`` with ``exploration="standard"`` is UCT (Kocsis and Szepesvari, 2006)
as the engines run it, though not node for node: this listing draws its own random
numbers. Every random choice comes from ``seed``.

>>> import mctslab
>>> game = mctslab.make("tic_tac_toe")
>>> state = game.state_from_actions([0, 3, 1, 4])  # X: a1 b1 (actions 0, 1); O: 3, 4
>>> mcts(state, iterations=300, seed=0)  # X completes the top row
2
"""

from __future__ import annotations

import functools
import math
import random
from typing import Literal

from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import State

__all__ = ["ListingNode", "mcts"]


class ListingNode:
    """A node: the move that led here, the player who made it (``mover``) and the one to
    move here (``to_move``; two players alternate), its children, the moves not tried
    yet, its visits and its wins (rewards summed)."""

    def __init__(self, state: State, parent: ListingNode | None, move: int | None) -> None:
        self.parent = parent
        self.move = move
        self.mover: int = parent.to_move if parent is not None else -1
        # Two players alternate: at the end, the one who would move next is the other.
        self.to_move: int = 1 - self.mover if state.is_terminal() else state.current_player()
        self.children: list[ListingNode] = []
        self.untried = [] if state.is_terminal() else list(state.legal_actions())
        self.visits = 0
        self.wins = 0.0


def mcts(
    state: State,
    iterations: int,
    seed: int = 0,
    c: float = math.sqrt(2),
    credit: Literal["mover", "to_move"] = "mover",
    exploration: Literal["standard", "doubled"] = "standard",
    outcomes: tuple[float, float, float] = (1.0, 0.5, 0.0),
) -> int:
    """The most visited move after ``iterations`` iterations of the listing's UCT from
    ``state`` (see the module's docstring for ``credit`` and ``exploration``);
    ``outcomes`` are the rewards of a win, a draw and a loss (``(1, 0.5, 0)``: the
    engines' scale; ``(1, 0, -1)`` the returns themselves; ``(1, 0, 0)`` a draw worth no
    more than a loss)."""
    if iterations < 1 or credit not in ("mover", "to_move"):
        raise InvalidConfigError(
            f"mcts: iterations >= 1 and credit 'mover' or 'to_move', got {iterations}, {credit!r}"
        )
    if exploration not in ("standard", "doubled"):
        raise InvalidConfigError(f"mcts: exploration 'standard' or 'doubled', got {exploration!r}")
    if state.is_terminal():
        raise InvalidConfigError("mcts: the game is over, there is no move to choose")
    rng = random.Random(seed)
    root = ListingNode(state, None, None)
    factor = 2.0 if exploration == "doubled" else 1.0
    for _ in range(iterations):
        node, position = root, state.clone()
        # 1. Selection: down the tree while every move of the node has been tried.
        while not node.untried and node.children:
            node = max(node.children, key=functools.partial(_uct, node.visits, c, factor))
            position.apply_action(node.move)  # type: ignore[arg-type]
        # 2. Expansion: one untried move becomes a child.
        if node.untried:
            move = node.untried.pop(rng.randrange(len(node.untried)))
            position.apply_action(move)
            child = ListingNode(position, node, move)
            node.children.append(child)
            node = child
        # 3. Simulation: random moves to the end.
        while not position.is_terminal():
            position.apply_action(rng.choice(position.legal_actions()))
        win, draw, loss = outcomes
        rewards = [win if r > 0 else loss if r < 0 else draw for r in position.returns()]
        # 4. Backpropagation: every node of the path, with the reward of its player.
        while node is not None:
            node.visits += 1
            player = node.mover if credit == "mover" else node.to_move
            if player >= 0:
                node.wins += rewards[player]
            node = node.parent  # type: ignore[assignment]
    best = max(root.children, key=lambda k: k.visits)
    return int(best.move)  # type: ignore[arg-type]


def _uct(parent_visits: int, c: float, factor: float, child: ListingNode) -> float:
    """``wins / visits + c * sqrt(factor * ln N / visits)``: UCT (``factor`` 1), or the
    doubled-constant bug (``factor`` 2)."""
    return child.wins / child.visits + c * math.sqrt(
        factor * math.log(parent_visits) / child.visits
    )
