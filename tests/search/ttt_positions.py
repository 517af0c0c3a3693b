"""Every reachable non-terminal tic-tac-toe position, with its minimax-optimal moves."""

from __future__ import annotations

from functools import cache

import mctslab
from mctslab.search.minimax import solve


@cache
def reachable_positions() -> list[tuple[tuple[int, ...], frozenset[int]]]:
    """(history reaching it, optimal actions) for each of the 4,520 positions, in DFS order.

    Positions are told apart by their board (transpositions merged), so each is
    listed once, reached by the first history found.
    """
    game = mctslab.make("tic_tac_toe")
    seen: dict[bytes, tuple[int, ...]] = {}

    def walk(state: mctslab.State) -> None:
        key = state.key()  # type: ignore[attr-defined]
        if key in seen or state.is_terminal():
            return
        seen[key] = tuple(state.history())
        for a in state.legal_actions():
            walk(state.child(a))

    walk(game.new_initial_state())
    return [
        (h, frozenset(solve(game.state_from_actions(list(h))).best_actions)) for h in seen.values()
    ]
