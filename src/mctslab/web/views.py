"""Response models built from the game and the search: a position as the page shows it
(:func:`state_view`, :func:`legal_moves`) and a search's move with its root statistics
(:func:`move_fields`, shared by the AI's moves in a session and the bot service).
"""

from __future__ import annotations

from typing import Any

from mctslab.core.game import Game, State
from mctslab.search.result import SearchResult
from mctslab.web.render import player_names, render, state_text
from mctslab.web.schemas import ChildView, LegalMove, PlayedMove, StateView

__all__ = ["legal_moves", "move_fields", "played_moves", "state_view"]


def state_view(state: State, game: Game) -> StateView:
    """``state`` as the page shows it; ``game`` is the game it was played in. What people
    read counts players from 1 (``text``, ``player_names``); ids stay 0-based."""
    return StateView(
        text=state_text(state),
        actions=state.history(),
        moves=played_moves(game, state.history()),
        current_player=state.current_player(),
        terminal=state.is_terminal(),
        returns=state.returns(),
        legal=legal_moves(state),
        render=render(game, state),
        player_names=player_names(game),
        value_scale=[game.info.min_utility, game.info.max_utility],
        ending=ending(state, game),
    )


def ending(state: State, game: Game) -> str | None:
    """How a finished game ended, where its rules tell endings apart: a game with
    ``ended_by_length`` (Go) that reached its move limit says so."""
    by_length = getattr(game, "ended_by_length", None)
    if not state.is_terminal() or by_length is None or not by_length(state):
        return None
    return f"at the move limit ({game.info.max_game_length} moves), counted as the board stands"


def played_moves(game: Game, actions: list[int]) -> list[PlayedMove]:
    """``actions`` named and attributed, replayed from the start of ``game``: a move's
    name depends on its position (Pig's action 0 is "roll" for a player, "Roll 1" for
    the die), which the history alone does not keep."""
    state = game.new_initial_state()
    moves = []
    for action in actions:
        player = state.current_player()
        moves.append(PlayedMove(action=action, label=state.action_to_string(action), player=player))
        state.apply_action(action)
    return moves


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
        "compile_seconds": result.compile_seconds,
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
            prior=ch.prior,
        )
        for ch in result.children
    ]
