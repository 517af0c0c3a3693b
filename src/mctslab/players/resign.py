"""Resignation and passing: when a searching player gives a game up, and when it ends one.

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

**Passing** (a game with a move named ``pass``: Go), two rules that ``mctslab gtp``, the
arena and the web lab's AI move all call from here:

- :func:`winning_pass`: right after the opponent's pass, pass at once, without a search,
  when that pass ends the game won for the side to move (Go: the board counted as it
  stands, Tromp-Taylor area). A search could play on there, every move winning: the lab's
  AI filled its own territory for 33 moves at W+63.5 while the human passed.
- :func:`play_on`: the opposite case, a pass the opponent has not asked for. When a
  search picks the pass while the opponent has not passed, and the pass and the most
  visited other move both look won (means of at least :data:`WON_ABOVE`), that other
  move is played instead: with every move winning, a first pass wins nothing and hands
  the opponent a free move (the lab's AI passed once in mid-game so, the board as it
  stood counting as a win). A pass the search rates above every other move's prospects
  stays: the end of a game where playing on would fill its own eyes.

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

from mctslab.core.game import State

__all__ = [
    "RESIGN_BELOW",
    "RESIGN_MIN_VISITS",
    "WON_ABOVE",
    "pass_action",
    "pass_for",
    "play_on",
    "resign_value",
    "resigns",
    "result_resigns",
    "winning_pass",
]

#: Resign when the root's value for the side to move is below this ...
RESIGN_BELOW = -0.95
#: ... after a search that visited the root at least this many times.
RESIGN_MIN_VISITS = 100
#: A move whose mean return is at least this looks won (the mirror of RESIGN_BELOW).
WON_ABOVE = 0.95


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


def pass_action(state: State) -> int | None:
    """The move ``state``'s game names ``pass`` (Go's ``N * N``), ``None`` in a game
    without one."""
    try:
        return state.string_to_action("pass")
    except (ValueError, RuntimeError):  # IllegalActionError; OpenSpiel's SpielError
        return None


def winning_pass(state: State) -> int | None:
    """The pass to play at once in ``state``, or ``None``: when the opponent's last move
    was a pass and passing now ends the game won for the player to move (its return
    above every other player's). A pass that did not count toward ending the game (GTP's
    hand-over, :meth:`mctslab.games.go.Go.hand_over`) leaves the next pass non-final, so
    it is no such case.

    >>> from mctslab.core.registry import make
    >>> go = make("go", board_size=5, komi=0.5)
    >>> state = go.state_from_actions([12, 25])  # Black c3, White passes: 25 points to 0
    >>> winning_pass(state)
    25
    >>> winning_pass(go.state_from_actions([12]))  # White has not passed: play on
    >>> winning_pass(go.state_from_actions([12, 25, 7]))  # the last move was no pass
    """
    history = state.history()
    if not history or state.is_terminal() or state.current_player() < 0:
        return None
    action = pass_action(state)
    if action is None or history[-1] != action or action not in state.legal_actions():
        return None
    after = state.child(action)
    if not after.is_terminal():
        return None
    mover = state.current_player()
    returns = after.returns()
    others = [r for p, r in enumerate(returns) if p != mover]
    return action if returns[mover] > max(others, default=float("-inf")) else None


def pass_for(player: Any, state: State) -> int | None:
    """The pass that ``player`` plays in ``state`` at once, without a search
    (:func:`winning_pass`), if it is a player that searches (it keeps a ``last_result``:
    ``mcts``, ``puct``, ``az``, ...); ``None`` otherwise. ``random`` stays random,
    ``minimax`` finds the winning pass by its own search, and a ``gtp:`` program passes by
    its own rules."""
    if not hasattr(player, "last_result"):
        return None
    return winning_pass(state)


def play_on(action: int, result: Any, state: State) -> int:
    """The move to play when a search of ``state`` (its :class:`SearchResult`
    ``result``; ``None`` when no search was made) picked ``action``: the most visited
    other root move instead of a first pass (the opponent's last move no pass) when the
    pass's mean and that move's are both at least :data:`WON_ABOVE`; ``action`` otherwise.

    >>> from mctslab.search.result import ChildStats
    >>> from types import SimpleNamespace
    >>> from mctslab.core.registry import make
    >>> state = make("go", board_size=5).state_from_actions([12])
    >>> won = (ChildStats(25, 60, 0.99, None), ChildStats(7, 40, 0.97, None))
    >>> play_on(25, SimpleNamespace(action=25, children=won), state)  # both won: play on
    7
    >>> close = (ChildStats(25, 60, 0.99, None), ChildStats(7, 40, 0.5, None))
    >>> play_on(25, SimpleNamespace(action=25, children=close), state)  # the pass is best
    25
    """
    if result is None or getattr(result, "action", None) != action:
        return action  # no search, or one of an earlier move
    history = state.history()
    if action != pass_action(state) or (history and history[-1] == action):
        return action  # no pass, or an answer to the opponent's
    chosen = next((ch for ch in result.children if ch.action == action), None)
    others = [ch for ch in result.children if ch.action != action and ch.visits > 0]
    if chosen is None or chosen.value < WON_ABOVE or not others:
        return action
    best = max(others, key=lambda ch: (ch.visits, ch.value))
    return best.action if best.value >= WON_ABOVE else action
