"""Go's board as the web lab draws it (:meth:`Go.rendering
<mctslab.games.go.game.Go.rendering>`): read through the game's public methods, not
the kernel layout.

``{"size", "stones", "last", "to_play", "captures", "komi", "pass", "actions",
"territory", "score", "dead", "agreed_score", "undecided"}``: ``stones`` lists the
``size * size`` points in action order (0 empty, 1 black, 2 white); ``territory``,
``score`` and the judged fields once the game is over (:mod:`mctslab.web.render` has
the whole description). The dead stones are :func:`~mctslab.games.go.status.final_status`'s
Monte-Carlo judgement, :data:`WEB_PLAYOUTS` playouts with seed 0, cached per finished
game: a finished game is drawn again with every view of it.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from mctslab.games.go.status import agreed_score, area_owners, final_status
from mctslab.games.kernels import KernelState

if TYPE_CHECKING:
    from mctslab.games.go.game import Go

__all__ = ["WEB_PLAYOUTS", "go_drawing"]

#: Playouts behind the dead stones of a finished Go game (``final_status``'s judgement).
WEB_PLAYOUTS = 100


def go_drawing(game: Go, state: KernelState) -> dict[str, Any]:
    """The drawing fields of ``state`` (module docstring)."""
    n = game.board_size
    stones = [game.colour_at(state, a) for a in range(n * n)]
    history = state.history()
    over = state.is_terminal()
    return {
        "size": n,
        "stones": stones,
        "last": history[-1] if history else None,
        "to_play": None if over else state.current_player() + 1,
        "captures": list(game.captures(state)),
        "komi": game.komi,
        "pass": n * n,
        "actions": {str(a): a for a in state.legal_actions()},  # points and pass alike
        "territory": area_owners(stones, n) if over else None,
        "score": game.score(state) if over else None,
        **(
            _judged(game, tuple(history))
            if over
            else {"dead": None, "agreed_score": None, "undecided": None}
        ),
    }


@functools.lru_cache(maxsize=256)
def _judged(game: Go, history: tuple[int, ...]) -> dict[str, Any]:
    """A finished game's dead stones as :func:`~mctslab.games.go.status.final_status`
    judges them and the area count without them, komi in (the score by agreement that
    people and GTP controllers reach); on a board that is not settled nothing is judged."""
    state = game.state_from_actions(list(history))
    assert isinstance(state, KernelState)
    status = final_status(game, state, playouts=WEB_PLAYOUTS)
    if not status.settled:  # nothing to agree on: the playouts' dead stones are guesses
        return {"dead": [], "agreed_score": None, "undecided": len(status.undecided)}
    agreement = agreed_score(game, state, status=status)
    undecided = len(status.undecided)
    return {"dead": list(agreement.dead), "agreed_score": agreement.score, "undecided": undecided}
