"""SP-MCTS one iteration at a time, traced: the web lab's step mode for single-player search.

The iterations are the reference search's own (:func:`mctslab.search.single.spmcts.iterate`
and :func:`~mctslab.search.single.spmcts.play_top_move` on a
:class:`~mctslab.search.single.spmcts.SPRun`), observed by a :class:`StepRecorder` (an
:class:`~mctslab.search.single.spmcts.SPRecorder`) that turns what each phase did into
the trace, as :mod:`mctslab.search.trace` observes the reference engine's ``iterate``:

- **selection**: for each node of the path that chose a child, every child's statistics
  and :func:`~mctslab.search.single.spmcts.sp_score`'s three terms, read on the scale of
  the scores seen in this run (``lo`` the lowest, ``width = hi - lo``; 0 and 1 while they
  are all equal), and the child chosen;
- **expansion**: the untried move drawn and how many there were;
- **playout**: the moves and the score;
- **backup**: every node of the path after the score was added.

:class:`StepTree` holds what :func:`~mctslab.search.single.spmcts.spmcts` keeps between
iterations: after ``iterations`` iterations at a position the top-score rule plays its
move (before the next iteration, so that each answer shows the move), and once the game
is over a new run starts from a fresh tree, the generator's stream going on; all from one
:class:`mctslab.core.rng.Rng` seeded as the search's. The same seed thus draws the same
moves as ``spmcts`` does, being the same code (``tests/web/test_optimize_api.py``
compares the trees).
"""

from __future__ import annotations

import itertools
import math
from typing import Any

from mctslab.core.game import State
from mctslab.core.rng import Rng
from mctslab.search.single.result import BestTracker, Budget, check_single_player
from mctslab.search.single.spmcts import (
    SPMCTSConfig,
    SPNode,
    SPRun,
    iterate,
    play_top_move,
    sp_score,
)

__all__ = ["StepRecorder", "StepTree"]


def _label(state: State, action: int) -> str:
    try:
        return str(state.action_to_string(action))
    except Exception:  # a label is a courtesy
        return str(action)


def _stats(node: SPNode) -> dict[str, Any]:
    return {"visits": node.visits, "value_sum": node.value_sum, "squares": node.squares}


def _ids(path: list[SPNode]) -> list[str]:
    """Each node's id: dot-separated moves from the current root, ``""`` the root."""
    ids = [""]
    for node in path[1:]:
        ids.append(f"{ids[-1]}.{node.action}" if ids[-1] else str(node.action))
    return ids


class StepRecorder:
    """What the phases of one iteration of ``run`` told, as the step mode's records."""

    def __init__(self, run: SPRun, config: SPMCTSConfig) -> None:
        self.run, self.config = run, config
        self.lo, self.width = run.scale()
        self.selection: list[dict[str, Any]] = []
        self.expansion: dict[str, Any] | None = None
        self.moves: list[int] = []
        self.score = 0.0
        self.backup: list[dict[str, Any]] = []

    def selected(self, path: list[SPNode], lo: float, width: float) -> None:
        self.lo, self.width = lo, width
        s = self.run.state.clone()
        for (node, chosen), nid in zip(itertools.pairwise(path), _ids(path), strict=False):
            self.selection.append(
                {
                    "node": nid,
                    "visits": node.visits,
                    "log_parent": math.log(node.visits),
                    "children": [self._child(s, node, ch) for ch in node.children],
                    "chosen": chosen.action,
                }
            )
            s.apply_action(chosen.action)

    def _child(self, s: State, node: SPNode, ch: SPNode) -> dict[str, Any]:
        """A child's statistics and its score's terms (what sp_score adds up)."""
        lo, width, c, d = self.lo, self.width, self.config.c, self.config.d
        log_parent = math.log(node.visits)
        mean = ch.value_sum / ch.visits
        variance = (ch.squares / ch.visits - mean * mean) / (width * width)
        return {
            "action": ch.action,
            "label": _label(s, ch.action),
            **_stats(ch),
            "mean": mean,
            "exploitation": (mean - lo) / width,
            "exploration": c * math.sqrt(log_parent / ch.visits),
            "deviation": math.sqrt(max(0.0, variance) + d / ch.visits),
            "score": sp_score(ch.value_sum, ch.squares, ch.visits, log_parent, lo, width, c, d),
        }

    def expanded(self, node: SPNode, child: SPNode, untried: int) -> None:
        path = self._path_to(node)
        s = self.run.state.clone()
        for n in path[1:]:
            s.apply_action(n.action)
        self.expansion = {
            "node": _ids(path)[-1],
            "action": child.action,
            "label": _label(s, child.action),
            "untried": untried,
        }

    def _path_to(self, node: SPNode) -> list[SPNode]:
        """The selection's path to ``node`` (the leaf it expands)."""
        path = [self.run.root]
        for step in self.selection:
            path.append(next(ch for ch in path[-1].children if ch.action == step["chosen"]))
        assert path[-1] is node
        return path

    def played(self, moves: list[int], score: float) -> None:
        self.moves, self.score = list(moves), score

    def backed_up(self, path: list[SPNode]) -> None:
        self.backup = [
            {"node": nid, "action": n.action, **_stats(n)}
            for n, nid in zip(path, _ids(path), strict=True)
        ]


class StepTree:
    """SP-MCTS's search state, advanced one traced iteration at a time (module docstring)."""

    def __init__(self, state: State, config: SPMCTSConfig) -> None:
        info = state.game.info  # type: ignore[attr-defined]
        check_single_player(state, info.num_players)
        self.config = config
        self.start = state.clone()
        self.rng = Rng(config.seed)
        self.tracker = BestTracker(Budget())  # the best of every run, never out of budget
        self.iterations = 0  # in all
        self.runs = 0  # finished runs
        self.finished_nodes = 0  # made by the finished runs
        self._new_run()

    def _new_run(self) -> None:
        self.run = SPRun(self.start)
        self.here = 0  # iterations at the current root

    @property
    def state(self) -> State:
        """The current root's position."""
        return self.run.state

    @property
    def nodes(self) -> int:
        """Nodes made in all, the trees of finished runs included."""
        return self.finished_nodes + self.run.nodes

    @property
    def best(self) -> float:
        return self.tracker.score

    @property
    def best_seq(self) -> list[int]:
        return list(self.tracker.sequence)

    def _play_best_move(self) -> dict[str, Any]:
        """The top-score rule's move (its subtree kept); a new run once the game is over."""
        label = _label(self.run.state, self.run.best_seq[len(self.run.prefix)])
        a = play_top_move(self.run)
        self.here = 0
        played = {"action": a, "label": label, "restart": False}
        if self.run.state.is_terminal():
            self.runs += 1
            self.finished_nodes += self.run.nodes
            self._new_run()
            played["restart"] = True
        return played

    def root_children(self) -> list[dict[str, Any]]:
        """The current root's children: move, label and statistics."""
        state = self.run.state
        return [
            {"action": ch.action, "label": _label(state, ch.action), **_stats(ch)}
            for ch in self.run.root.children
        ]

    def step(self) -> dict[str, Any]:
        """One iteration (after the top-score rule's move, when its turn has come), traced."""
        played = None
        if self.here >= self.config.iterations:
            played = self._play_best_move()
        run, best_before = self.run, self.tracker.score
        recorder = StepRecorder(run, self.config)
        iterate(run, self.config, self.rng, self.tracker, recorder)
        self.iterations += 1
        self.here += 1
        return {
            "iteration": self.iterations,
            "run": self.runs + 1,
            "at_root": self.here,
            "prefix": list(run.prefix),
            "played": played,
            "c": self.config.c,
            "d": self.config.d,
            "lo": recorder.lo,
            "width": recorder.width,
            "selection": recorder.selection,
            "expansion": recorder.expansion,
            "leaf_terminal": recorder.expansion is None,
            "playout": {"moves": recorder.moves, "score": recorder.score},
            "backup": recorder.backup,
            "best": self.tracker.score,
            "new_best": self.tracker.score > best_before,
            "root": {"visits": run.root.visits, "children": self.root_children()},
            "nodes": self.nodes,
        }
