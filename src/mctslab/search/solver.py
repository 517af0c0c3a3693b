"""MCTS-Solver's proofs (Winands, Björnsson and Saito 2008, "Monte-Carlo tree search
solver"), what both engines share of them: the proof of a terminal position
(:func:`win_loss_draw`), a proof seen by either player (:func:`value_for`), and the
refusals of games whose proofs could not be exact (:func:`check_solver`,
:class:`NotWinLossDrawError`).

A proof is a sign for player 0: 1 (a win), 0 (a draw) or -1 (a loss). The reference
engine backs proofs up in its phase 4 (:func:`mctslab.search.reference.phases.prove`):
a node is a proven win for its player to move if one child is, and otherwise proven
once all children are proven, at their best value.
"""

from __future__ import annotations

from collections.abc import Sequence

from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import GameInfo
from mctslab.search.config import SearchConfig

__all__ = [
    "NotWinLossDrawError",
    "check_solver",
    "not_win_loss_message",
    "value_for",
    "win_loss_draw",
]


class NotWinLossDrawError(InvalidConfigError):
    """MCTS-Solver met a terminal position whose returns are not a win, a draw or a loss."""


def win_loss_draw(returns: list[float], info: GameInfo) -> int:
    """MCTS-Solver's proof of a terminal position for player 0: 1 (player 0 gets the
    game's ``max_utility``, player 1 its ``min_utility``), -1 (the reverse) or 0 (both
    0). Any other returns raise :class:`NotWinLossDrawError`: a proof is a sign, and
    backing up the sign of a score (Kuhn poker's 1 or 2 chips) would prove wrong values."""
    r0, r1 = returns[0], returns[1]
    if r0 == info.max_utility and r1 == info.min_utility:
        return 1
    if r0 == info.min_utility and r1 == info.max_utility:
        return -1
    if r0 == 0.0 and r1 == 0.0:
        return 0
    raise NotWinLossDrawError(not_win_loss_message(info, returns))


def not_win_loss_message(info: GameInfo, returns: Sequence[float]) -> str:
    """The error of MCTS-Solver on a game whose terminal returns are not win/draw/loss."""
    shown = ", ".join(f"{r:g}" for r in returns)
    return (
        f"solver=True needs results that are a win ({info.max_utility:g}), a draw (0) or a "
        f"loss ({info.min_utility:g}); {info.name} ended a game with returns [{shown}]: "
        "search it without the solver"
    )


def check_solver(config: SearchConfig, info: GameInfo) -> None:
    """Refuse MCTS-Solver where its proofs cannot be exact: the game must be two-player
    zero-sum with utilities from ``-u`` to ``u``. Whether every terminal is a win, a draw
    or a loss is checked as terminals are met (:class:`NotWinLossDrawError`)."""
    if not config.solver:
        return
    if info.num_players != 2 or not info.zero_sum:
        raise InvalidConfigError("solver=True needs a two-player zero-sum game")
    if info.min_utility != -info.max_utility:
        raise InvalidConfigError(
            f"solver=True needs win/draw/loss utilities symmetric about 0; {info.name}'s run "
            f"from {info.min_utility:g} to {info.max_utility:g}"
        )


def value_for(proven: int, player: int) -> int:
    """A proven value (for player 0) seen by ``player`` in a two-player zero-sum game."""
    return proven if player == 0 else -proven
