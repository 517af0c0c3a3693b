"""The analysis protocol's answers: a search's result written as KataGo's JSON.

Apart from the requests (:mod:`mctslab.cli.katago.query`) and the engine that searches
(:mod:`mctslab.cli.katago.engine`). An answer is KataGo's (``docs/Analysis_Engine.md``)::

    {"id": "foo", "isDuringSearch": false, "turnNumber": 2,
     "moveInfos": [{"move": "D4", "visits": 120, "edgeVisits": 120, "winrate": 0.56,
                    "utility": 0.12, "lcb": 0.47, "prior": 0.04, "order": 0,
                    "pv": ["D4", "E5", "C3"], "scoreLead": 3.1, "scoreMean": 3.1}, ...],
     "rootInfo": {"currentPlayer": "B", "visits": 500, "winrate": 0.55, "utility": 0.1,
                  "lcb": 0.5, "scoreLead": 2.8, "scoreMean": 2.8},
     "ownership": [...], "policy": [...]}

- ``moveInfos``: the root's moves with a visit, ``order`` 0 the move the search plays
  (its final-move rule), then by visits (then winrate); ``winrate`` the move's mean
  return mapped to ``0 .. 1`` (:func:`~mctslab.cli.gtp.analysis.mean_winrate`),
  ``utility`` the mean return itself (``-1 .. 1``), ``lcb`` the Wilson score
  interval's lower bound on the winrate (95 %; Wilson 1927: the mean return of ``n``
  playouts as a proportion, so that few visits give a low bound), ``prior`` the PUCT
  prior or uniform under UCT (:func:`~mctslab.cli.gtp.analysis.root_prior`), ``pv``
  the most visited line (:func:`~mctslab.cli.gtp.analysis.principal_variation`).
- ``rootInfo``: the root's visits (the search's iterations), mean, LCB, and
  ``currentPlayer`` (``"B"``: the first player, ``"W"``: the second).
- Go only: ``scoreLead`` (``scoreMean`` the same, as KataGo) of the root and of each
  move, Black's area minus White's minus komi averaged over heavy playouts from the
  position (:class:`GoScores`: the search itself keeps no score); ``ownership`` from
  :func:`~mctslab.games.go.status.final_status` (``includeOwnership``).
- ``policy`` (``includePolicy``): the root's priors, ``-1`` for an illegal move.

Every value is from the perspective of ``reportAnalysisWinratesAs`` (KataGo's:
``BLACK`` by default, as KaTrain asks): the winrate, utility, LCB and score of the
first player (Black), the second (White) or the player to move (``SIDETOMOVE``);
KataGo turns the LCB over with the winrate (``1 - lcb``), and so does this engine.
Ownership and policy are in KataGo's order: row by row from the top (``A19``), then
the pass (policy only).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mctslab.cli.gtp.analysis import mean_winrate, principal_variation, root_prior
from mctslab.cli.katago.query import Position, Query
from mctslab.core.game import Game, State, player_label
from mctslab.core.rng import Rng
from mctslab.games.go import Go
from mctslab.games.go.playouts import heavy_playout
from mctslab.games.go.scoring import area_score2
from mctslab.games.go.status import final_status
from mctslab.games.kernels import KernelState
from mctslab.players.gtp import action_to_vertex
from mctslab.search.result import ChildStats, SearchResult

__all__ = [
    "GoScores",
    "answer",
    "flipped",
    "no_results",
    "ownership_rows",
    "terminal_answer",
    "wilson_lower",
]

#: The normal quantile of the LCB's 95 % two-sided interval.
Z = 1.96


def flipped(perspective: str, mover: int) -> bool:
    """Whether the mover's values are turned over to report them from ``perspective``
    (``BLACK``: the first player's, ``WHITE``: the second's, ``SIDETOMOVE``: the mover's)."""
    if perspective == "SIDETOMOVE":
        return False
    return mover != (0 if perspective == "BLACK" else 1)


def wilson_lower(p: float, n: int, z: float = Z) -> float:
    """The lower bound of the Wilson score interval of a proportion ``p`` seen in ``n``
    trials: ``(p + z^2/2n - z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n)`` (0 for ``n = 0``).

    >>> round(wilson_lower(0.5, 100), 4), wilson_lower(1.0, 0)
    (0.4038, 0.0)
    """
    if n <= 0:
        return 0.0
    z2 = z * z
    centre = p + z2 / (2 * n)
    spread = z * math.sqrt(max(0.0, p * (1 - p)) / n + z2 / (4 * n * n))
    return max(0.0, (centre - spread) / (1 + z2 / n))


def move_name(game: Game, state: State, action: int) -> str:
    """A move as the protocol writes it: Go's GTP vertex (``D4``, ``pass``), another
    game's own move name."""
    if isinstance(game, Go):
        return action_to_vertex(action, game.board_size)
    return state.action_to_string(action)


def _line_names(game: Game, state: State, line: Sequence[int]) -> list[str]:
    """The names of a line of moves from ``state`` (each named in its own position)."""
    if isinstance(game, Go):
        return [action_to_vertex(a, game.board_size) for a in line]
    names = []
    walk = state.clone()
    for a in line:
        if walk.is_terminal() or a not in walk.legal_actions():
            break
        names.append(walk.action_to_string(a))
        walk.apply_action(a)
    return names


def _round(x: float) -> float:
    return float(f"{x:.8g}")


# Go's scores and ownership -----------------------------------------------------------------------


@dataclass
class GoScores:
    """Go's score estimates of one position and of the positions after its moves, each
    the mean over ``playouts`` heavy playouts (Go's compiled ``heavy_playout``: MoGo's
    policy, to the end of the game) of Black's Tromp-Taylor area minus White's minus
    komi, and the ownership of the position (:func:`final_status`'s, from
    ``ownership_playouts`` playouts), each computed once. Every position starts its
    playouts from the same ``seed``: common random numbers, so that the difference
    between two moves' scores (what KaTrain reports as points lost) carries less of the
    playouts' noise than either score.
    """

    game: Go
    state: KernelState
    playouts: int
    ownership_playouts: int
    seed: int
    _scores: dict[int | None, float] = field(default_factory=dict)
    _ownership: list[float] | None = None

    def score(self, action: int | None = None) -> float | None:
        """Black's expected lead after ``action`` (``None``: in the position itself),
        or ``None`` without playouts."""
        if self.playouts <= 0:
            return None
        if action not in self._scores:
            state = self.state if action is None else self.state.child(action)
            self._scores[action] = self._mean_score(state)
        return self._scores[action]

    def _mean_score(self, state: KernelState) -> float:
        params = self.game.params
        word = np.array([Rng(self.seed).state], dtype=np.uint64)
        out = np.zeros(2, dtype=np.float64)
        total = 0.0
        for _ in range(self.playouts):
            board = state.array.copy()
            heavy_playout(board, params, word, out)
            total += float(area_score2(board, params)) / 2.0
        return total / self.playouts

    def ownership(self) -> list[float] | None:
        """Black's ownership of each point, in KataGo's order (:func:`ownership_rows`);
        ``None`` without playouts, or where :func:`final_status` cannot replay the
        position's history (a turn handed over right after a pass replays as the
        second pass: the game would be over)."""
        if self._ownership is None and self.ownership_playouts > 0:
            try:
                status = final_status(
                    self.game, self.state, playouts=self.ownership_playouts, seed=self.seed
                )
            except ValueError:
                self.ownership_playouts = 0  # no ownership for this position
                return None
            self._ownership = ownership_rows(status.ownership, self.game.board_size)
        return self._ownership


def ownership_rows(ownership: Sequence[float], n: int) -> list[float]:
    """Values by action (row 1 first, mctslab's order) in KataGo's order: row by row
    from the top (row ``n``, ``A19`` on 19x19) to the bottom, each left to right.

    >>> ownership_rows([1, 2, 3, 4], 2)  # a1 b1 a2 b2 -> a2 b2 a1 b1
    [3, 4, 1, 2]
    """
    return [ownership[r * n + c] for r in reversed(range(n)) for c in range(n)]


# Answers ---------------------------------------------------------------------------------------


def _ordered(
    children: Sequence[ChildStats], best: int, winrate: Callable[[ChildStats], float]
) -> list[ChildStats]:
    """The visited children: the move the search plays first, then by visits and winrate
    (``sorted`` is stable: ties keep the action order)."""
    return sorted(
        (ch for ch in children if ch.visits > 0),
        key=lambda ch: (ch.action == best, ch.visits, winrate(ch)),
        reverse=True,
    )


def answer(
    query: Query,
    position: Position,
    result: SearchResult,
    searcher: object,
    during: bool,
    scores: GoScores | None = None,
) -> dict[str, Any]:
    """KataGo's answer for ``position`` from ``result`` (``during``: an interim one),
    the PVs read from ``searcher``'s tree, Go's scores and ownership from ``scores``."""
    game, state = query.game, position.state
    info = game.info
    mover = state.current_player()
    flip = flipped(query.perspective, mover)
    sign = -1.0 if flip else 1.0

    def winrate(child: ChildStats) -> float:
        return mean_winrate(child, info.min_utility, info.max_utility)

    def seen(w: float) -> float:  # a mover's winrate (or LCB) from the perspective
        return 1.0 - w if flip else w

    children = result.children
    moves = []
    for order, child in enumerate(_ordered(children, result.action, winrate)):
        w = winrate(child)
        line = principal_variation(searcher, child.action, query.pv_len + 1)
        move: dict[str, Any] = {
            "move": move_name(game, state, child.action),
            "visits": child.visits,
            "edgeVisits": child.visits,
            "winrate": _round(seen(w)),
            "utility": _round(sign * child.value),
            "lcb": _round(seen(wilson_lower(w, child.visits))),
            "prior": _round(root_prior(child, len(children))),
            "order": order,
            "pv": _line_names(game, state, line),
        }
        if scores is not None and (lead := scores.score(child.action)) is not None:
            lead *= _black_sign(query.perspective, mover)
            move["scoreLead"] = move["scoreMean"] = _round(lead)
        moves.append(move)
    root = ChildStats(result.action, result.iterations, result.value, None)
    w = winrate(root)
    root_info: dict[str, Any] = {
        "currentPlayer": "BW"[mover],
        "visits": result.iterations,
        "winrate": _round(seen(w)),
        "utility": _round(sign * result.value),
        "lcb": _round(seen(wilson_lower(w, result.iterations))),
    }
    if not isinstance(game, Go):
        root_info["currentPlayerName"] = player_label(game, mover)
    reply: dict[str, Any] = {
        "id": query.ident,
        "isDuringSearch": during,
        "turnNumber": position.turn,
        "moveInfos": moves,
        "rootInfo": root_info,
    }
    _go_extras(reply, query, mover, scores)
    if query.include_policy:
        reply["policy"] = _policy(game, state, children)
    return reply


def _black_sign(perspective: str, mover: int) -> float:
    """+1 where Black's values are reported as they are, -1 where turned over."""
    return -1.0 if perspective == "WHITE" or (perspective == "SIDETOMOVE" and mover == 1) else 1.0


def _go_extras(reply: dict[str, Any], query: Query, mover: int, scores: GoScores | None) -> None:
    """Go's root ``scoreLead`` and ``ownership``, from Black's point of view turned to the
    perspective's."""
    if scores is None:
        return
    sign = _black_sign(query.perspective, mover)
    lead = scores.score()
    if lead is not None:
        reply["rootInfo"]["scoreLead"] = reply["rootInfo"]["scoreMean"] = _round(sign * lead)
    if query.include_ownership:
        owned = scores.ownership()
        if owned is not None:
            reply["ownership"] = [_round(sign * o) for o in owned]


def _policy(game: Game, state: State, children: Sequence[ChildStats]) -> list[float]:
    """The root's priors by move, ``-1`` where a move is illegal: Go's in KataGo's order
    (rows from the top, then the pass), another game's by action."""
    priors = {ch.action: root_prior(ch, len(children)) for ch in children}
    if not priors:  # no child yet: uniform over the legal moves
        legal = state.legal_actions()
        priors = dict.fromkeys(legal, 1.0 / len(legal)) if legal else {}
    values = [_round(priors[a]) if a in priors else -1.0 for a in range(game.info.num_actions)]
    if isinstance(game, Go):
        n = game.board_size
        return [*ownership_rows(values[: n * n], n), values[n * n]]
    return values


def no_results(query_id: str, turn: int) -> dict[str, Any]:
    """The answer of a position terminated before any search (KataGo's)."""
    return {"id": query_id, "isDuringSearch": False, "noResults": True, "turnNumber": turn}


def terminal_answer(query: Query, position: Position) -> dict[str, Any]:
    """The answer for a position whose game is over (another game than Go, whose
    positions over by two passes are resumed): no moves; the root's winrate the result,
    from the perspective (the first player's under ``SIDETOMOVE``)."""
    info = query.game.info
    returns = position.state.returns()
    player = 1 if query.perspective == "WHITE" else 0
    span = info.max_utility - info.min_utility
    w = (returns[player] - info.min_utility) / span if span > 0 else 0.5
    return {
        "id": query.ident,
        "isDuringSearch": False,
        "turnNumber": position.turn,
        "moveInfos": [],
        "rootInfo": {
            "visits": 0,
            "winrate": _round(w),
            "utility": _round(returns[player]),
            "lcb": _round(w),
            "gameOver": True,
        },
    }
