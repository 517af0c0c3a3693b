"""Resignation: when a searching player gives a game up.

A player resigns after a move's search when the search ran at least
:data:`RESIGN_MIN_VISITS` simulations and the root's value, the mean return of all of
them for the side to move (-1 loss .. +1 win), is below a threshold (:data:`RESIGN_BELOW`,
-0.95: more than 97.5% of its simulations lost, whatever they played). The root's mean
rather than the chosen move's, which a single lucky playout among a few visits can lift.
A search that proved the position lost (MCTS-Solver, ``solver=1``: ``proven == -1``)
resigns whatever it visited, its value being -1 for certain. A threshold of -1 or below
never resigns; players without a search (``random``,
``minimax``, ``gtp:...``) never resign by this rule (a ``gtp:`` program resigns by its
own, :class:`mctslab.players.gtp.GtpResignation`).

The rule of the classic Go programs (Fuego's ``uct_param_player resign_threshold``,
Pachi's ``resign_threshold``: resign when the best move's win rate is below a few per
cent); :mod:`mctslab.cli.gtp` answers ``genmove`` with ``resign`` by it, and the arena
(:func:`mctslab.arena.game_task.play_task`, ``mctslab arena --resign-below``) ends the
game there, recorded with termination ``"resign"``.

>>> from mctslab.core.registry import make
>>> from mctslab.players.player import make_player
>>> game = make("tic_tac_toe")
>>> player = make_player("mcts:iterations=200", game.info, seed=1)
>>> resigns(player, RESIGN_BELOW)  # no search yet
False
>>> state = game.new_initial_state()
>>> for a in (0, 3, 1):  # X threatens 0-1-2 and O to move must block
...     state.apply_action(a)
>>> _ = player.choose(state)
>>> resigns(player, RESIGN_BELOW)  # a drawn game is not lost
False
>>> resigns(player, 0.99)  # every position is "lost" below a threshold this high
True
>>> bachet = make("bachet", stones=6)  # lost for the player to move
>>> solver = make_player("mcts:iterations=200,solver=1", bachet.info, seed=1)
>>> _ = solver.choose(bachet.new_initial_state())
>>> solver.last_result.proven, resign_value(solver), resigns(solver, RESIGN_BELOW)
(-1, (-1.0, 23), True)
"""

from __future__ import annotations

from typing import Any

__all__ = ["RESIGN_BELOW", "RESIGN_MIN_VISITS", "resign_value", "resigns", "result_resigns"]

#: Resign when the root's value for the side to move is below this ...
RESIGN_BELOW = -0.95
#: ... after a search that visited the root at least this many times.
RESIGN_MIN_VISITS = 100


def resign_value(player: Any) -> tuple[float, int] | None:
    """The root value and simulations of ``player``'s last search, ``None`` without one;
    a position the search proved lost has the value -1."""
    result = getattr(player, "last_result", None)
    if result is None:
        return None
    return _value(result), int(result.iterations)


def result_resigns(result: Any, below: float, simulations: int | None = None) -> bool:
    """Whether a search that ended with ``result`` resigns: a proven loss, or at least
    :data:`RESIGN_MIN_VISITS` ``simulations`` (the result's own iterations unless given:
    ``lz-genmove_analyze`` searches in slices that add up) and the root's value below
    ``below``."""
    proven = getattr(result, "proven", None) == -1
    done = int(result.iterations) if simulations is None else simulations
    return (proven or done >= RESIGN_MIN_VISITS) and _value(result) < below


def resigns(player: Any, below: float) -> bool:
    """Whether ``player`` resigns after its last move's search
    (:func:`result_resigns` of its ``last_result``); never without a search."""
    result = getattr(player, "last_result", None)
    return result is not None and result_resigns(result, below)


def _value(result: Any) -> float:
    return -1.0 if getattr(result, "proven", None) == -1 else float(result.value)
