"""Response models built from the game and the search: a position as the page shows it
(:func:`state_view`, :func:`legal_moves`) and a search's move with its root statistics
(:func:`move_fields`, shared by the AI's moves in a session and the bot service).
"""

from __future__ import annotations

from typing import Any

from mctslab.core.game import State
from mctslab.search.mcts import SearchResult
from mctslab.web.render import render
from mctslab.web.schemas import ChildView, LegalMove, StateView

__all__ = ["legal_moves", "move_fields", "state_view"]


def state_view(state: State) -> StateView:
    return StateView(
        text=str(state),
        actions=state.history(),
        current_player=state.current_player(),
        terminal=state.is_terminal(),
        returns=state.returns(),
        legal=legal_moves(state),
        render=render(state),
    )


def legal_moves(state: State) -> list[LegalMove]:
    return [LegalMove(action=a, label=state.action_to_string(a)) for a in state.legal_actions()]


def move_fields(result: SearchResult, state: State) -> dict[str, Any]:
    """The fields an AI move report shares with the bot service's answer."""
    return {
        "action": result.action,
        "label": state.action_to_string(result.action),
        "player": result.player,
        "value": result.value,
        "iterations": result.iterations,
        "seconds": result.seconds,
        "final_rule": result.final_rule,
        "stopped_by": result.stopped_by,
        "children": _children(result, state),
    }


def _children(result: SearchResult, state: State) -> list[ChildView]:
    return [
        ChildView(
            action=ch.action,
            label=state.action_to_string(ch.action),
            visits=ch.visits,
            value=ch.value,
            proven=ch.proven,
        )
        for ch in result.children
    ]
