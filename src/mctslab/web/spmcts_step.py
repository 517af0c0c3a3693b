"""SP-MCTS one iteration at a time, traced: the web lab's step mode for single-player search.

:class:`StepTree` re-implements :func:`mctslab.search.single.spmcts.spmcts` on a tree of
its own, rule for rule, so that each iteration can be reported phase by phase (the
reference search keeps its tree to itself):

- **selection** from the root while a node has no untried move and has children: the
  child of highest :func:`~mctslab.search.single.spmcts.sp_score` (the first of equal
  ones), read on the scale of the scores seen in this run (``lo`` the lowest, ``width =
  hi - lo``; 0 and 1 while they are all equal);
- **expansion**: one untried move, the ``k``-th of the ascending list with ``k =
  rng.randint(len(untried))``;
- **playout**: uniformly random moves to the end
  (:func:`mctslab.search.single.moves.random_playout`);
- **backup**: the score and its square added to every node of the path.

After ``iterations`` iterations at a position the first move of the run's best sequence
is played and its subtree kept (the "top score" rule), and once the game is over a new
run starts from a fresh tree (a randomized restart), the generator's stream going on;
all from one :class:`mctslab.core.rng.Rng` seeded as the search's. The same seed thus
draws the same moves as ``spmcts`` does (``tests/web/test_optimize_api.py`` compares the
root's visit counts and the best sequence after ``N`` iterations).
"""

from __future__ import annotations

import math
from typing import Any

from mctslab.core.game import State
from mctslab.core.rng import Rng
from mctslab.search.single.moves import random_playout
from mctslab.search.single.result import check_single_player
from mctslab.search.single.spmcts import SPMCTSConfig, sp_score

__all__ = ["StepNode", "StepTree"]


class StepNode:
    """A node of the step tree (as spmcts's: its move, children, untried moves, visits,
    sum of scores and sum of squared scores)."""

    __slots__ = ("action", "children", "squares", "terminal", "untried", "value_sum", "visits")

    def __init__(self, action: int, state: State) -> None:
        self.action = action
        self.children: list[StepNode] = []
        self.untried = state.legal_actions()
        self.terminal = state.is_terminal()
        self.visits = 0
        self.value_sum = 0.0
        self.squares = 0.0


def _label(state: State, action: int) -> str:
    try:
        return str(state.action_to_string(action))
    except Exception:  # a label is a courtesy
        return str(action)


def _stats(node: StepNode) -> dict[str, Any]:
    return {"visits": node.visits, "value_sum": node.value_sum, "squares": node.squares}


class StepTree:
    """SP-MCTS's search state, advanced one traced iteration at a time (module docstring)."""

    def __init__(self, state: State, config: SPMCTSConfig) -> None:
        info = state.game.info  # type: ignore[attr-defined]
        check_single_player(state, info.num_players)
        self.config = config
        self.start = state.clone()
        self.rng = Rng(config.seed)
        self.iterations = 0  # in all
        self.runs = 0  # finished runs
        self.nodes = 0  # made in all (the trees of finished runs included)
        self.best = -math.inf
        self.best_seq: list[int] = []
        self._new_run()

    def _new_run(self) -> None:
        self.state = self.start.clone()
        self.root = StepNode(-1, self.state)
        self.nodes += 1
        self.prefix: list[int] = []
        self.lo = math.inf
        self.hi = -math.inf
        self.run_best = -math.inf
        self.run_best_seq: list[int] = []
        self.here = 0  # iterations at the current root

    def _play_best_move(self) -> dict[str, Any]:
        """The top-score rule: the first move of the run's best sequence, its subtree kept
        (spmcts's ``_run``); a new run once the game is over."""
        a = self.run_best_seq[len(self.prefix)]
        label = _label(self.state, a)
        child = next((ch for ch in self.root.children if ch.action == a), None)
        self.state.apply_action(a)
        if child is None:
            self.root.untried.remove(a)
            child = StepNode(a, self.state)
            self.root.children.append(child)
            self.nodes += 1
        self.root = child
        self.prefix.append(a)
        self.here = 0
        played = {"action": a, "label": label, "restart": False}
        if self.state.is_terminal():
            self.runs += 1
            self._new_run()
            played["restart"] = True
        return played

    def root_children(self) -> list[dict[str, Any]]:
        """The current root's children: move, label and statistics."""
        return [
            {"action": ch.action, "label": _label(self.state, ch.action), **_stats(ch)}
            for ch in self.root.children
        ]

    def step(self) -> dict[str, Any]:
        """One iteration (after the top-score rule's move, when its turn has come), traced."""
        played = None
        if self.here >= self.config.iterations:
            played = self._play_best_move()
        c, d = self.config.c, self.config.d
        node, s = self.root, self.state.clone()
        path = [node]
        ids = [""]
        width = self.hi - self.lo if self.hi > self.lo else 1.0
        lo = self.lo if self.hi > self.lo else 0.0
        selection: list[dict[str, Any]] = []
        while not node.untried and node.children:
            log_parent = math.log(node.visits)
            best, best_v = node.children[0], -math.inf
            rows = []
            for ch in node.children:
                v = sp_score(ch.value_sum, ch.squares, ch.visits, log_parent, lo, width, c, d)
                mean = ch.value_sum / ch.visits
                variance = (ch.squares / ch.visits - mean * mean) / (width * width)
                rows.append(
                    {
                        "action": ch.action,
                        "label": _label(s, ch.action),
                        **_stats(ch),
                        "mean": mean,
                        "exploitation": (mean - lo) / width,
                        "exploration": c * math.sqrt(log_parent / ch.visits),
                        "deviation": math.sqrt(max(0.0, variance) + d / ch.visits),
                        "score": v,
                    }
                )
                if v > best_v:
                    best, best_v = ch, v
            selection.append(
                {
                    "node": ids[-1],
                    "visits": node.visits,
                    "log_parent": log_parent,
                    "children": rows,
                    "chosen": best.action,
                }
            )
            node = best
            s.apply_action(node.action)
            path.append(node)
            ids.append(f"{ids[-1]}.{node.action}" if ids[-1] else str(node.action))
        expansion = None
        if node.untried:
            untried = list(node.untried)
            a = node.untried.pop(self.rng.randint(len(node.untried)))
            expansion = {
                "node": ids[-1],
                "action": a,
                "label": _label(s, a),
                "untried": len(untried),
            }
            s.apply_action(a)
            child = StepNode(a, s)
            node.children.append(child)
            path.append(child)
            ids.append(f"{ids[-1]}.{a}" if ids[-1] else str(a))
            self.nodes += 1
        moves: list[int] = []
        score = random_playout(s, self.rng, moves)
        sequence = [*self.prefix, *(n.action for n in path[1:]), *moves]
        new_best = score > self.best
        if new_best:
            self.best, self.best_seq = score, sequence
        if score > self.run_best:
            self.run_best, self.run_best_seq = score, sequence
        self.lo, self.hi = min(self.lo, score), max(self.hi, score)
        backup = []
        for n, nid in zip(path, ids, strict=True):
            n.visits += 1
            n.value_sum += score
            n.squares += score * score
            backup.append({"node": nid, "action": n.action, **_stats(n)})
        self.iterations += 1
        self.here += 1
        return {
            "iteration": self.iterations,
            "run": self.runs + 1,
            "at_root": self.here,
            "prefix": list(self.prefix),
            "played": played,
            "c": c,
            "d": d,
            "lo": lo,
            "width": width,
            "selection": selection,
            "expansion": expansion,
            "leaf_terminal": expansion is None,
            "playout": {"moves": moves, "score": score},
            "backup": backup,
            "best": self.best,
            "new_best": new_best,
            "root": {"visits": self.root.visits, "children": self.root_children()},
            "nodes": self.nodes,
        }
