"""Determinizations: drawing full states consistent with what one player knows.

Imperfect-information searches (PIMC, IS-MCTS; :mod:`mctslab.search.ismcts`) work on
*determinizations*: full states that the searching player cannot tell from the
true one. A game provides them through ``resample_from_infostate(player, rng,
model=None)`` (:class:`mctslab.core.game.ImperfectInformationState`); this module
gives the pieces a game builds that method from, and the perfect-information
fallback.

Uniform sampling draws each consistent world with equal chance; an opponent
model (:class:`mctslab.core.game.OpponentModel`) reweights them by rejection: a world
drawn uniformly is kept with probability ``model(world, player)``, which makes a
world's chance proportional to its weight (exact, however the weights are
spread; the cost is ``1 / mean weight`` draws a sample).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TypeVar

from mctslab.core.errors import MctslabError
from mctslab.core.game import CHANCE, OpponentModel, State
from mctslab.core.rng import Rng

__all__ = [
    "DEFAULT_MAX_TRIES",
    "NoConsistentWorldError",
    "determinize",
    "has_hidden_information",
    "information_key",
    "is_perfect_information",
    "policy_model",
    "sample_world",
]

S = TypeVar("S", bound=State)

#: Rejections :func:`sample_world` tries before it gives up.
DEFAULT_MAX_TRIES = 10_000


class NoConsistentWorldError(MctslabError):
    """No world consistent with a player's information was found (the opponent model
    ruled out every world it was shown)."""


def sample_world(
    uniform: Callable[[], S],
    player: int,
    rng: Rng,
    model: OpponentModel | None = None,
    max_tries: int = DEFAULT_MAX_TRIES,
) -> S:
    """A world from ``uniform()`` (a uniform draw of a consistent world), reweighted by
    ``model`` through rejection sampling: a draw is kept with probability
    ``model(world, player)`` (clipped to ``[0, 1]``).

    Raises :class:`NoConsistentWorldError` after ``max_tries`` rejections.
    """
    if model is None:
        return uniform()
    for _ in range(max_tries):
        world = uniform()
        weight = float(model(world, player))
        if weight >= 1.0 or (weight > 0.0 and rng.random() < weight):
            return world
    raise NoConsistentWorldError(
        f"the opponent model rejected {max_tries} consistent worlds in a row "
        "(does it give every world a weight of 0?)"
    )


def is_perfect_information(game: object) -> bool:
    """Whether every player sees the whole state: the game's optional
    ``perfect_information`` attribute (``True`` when absent; ``False`` for
    ``kuhn_poker``, ``knockout_whist`` and OpenSpiel's imperfect-information games)."""
    return bool(getattr(game, "perfect_information", True))


def has_hidden_information(state: State) -> bool:
    """Whether ``state`` offers determinizations (``resample_from_infostate``)."""
    return callable(getattr(state, "resample_from_infostate", None))


def determinize(state: S, player: int, rng: Rng, model: OpponentModel | None = None) -> S:
    """A determinization of ``state`` for ``player``: the game's own
    ``resample_from_infostate``, or a copy of a perfect-information state."""
    fn = getattr(state, "resample_from_infostate", None)
    if fn is None:
        return state.clone()
    return fn(player, rng, model)  # type: ignore[no-any-return]


def information_key(state: State, player: int) -> str | tuple[int, ...]:
    """What ``player`` knows at ``state``: its information state string, or for a
    perfect-information state the history (which names the position)."""
    fn = getattr(state, "information_state_string", None)
    if fn is None:
        return tuple(state.history())
    return fn(player)  # type: ignore[no-any-return]


def policy_model(
    policy: Mapping[str, Mapping[int, float]], game: object | None = None
) -> OpponentModel:
    """An opponent model from the others' (assumed) tabular policy: a world's weight is
    the probability that the other players, holding that world's cards, take the
    actions they were seen to take (Bayes' rule over deals; the observer's own actions
    and chance weigh the same in every world). ``policy`` maps an information state
    string (of the player to move) to action probabilities, as
    :mod:`mctslab.analysis.exploitability`'s policies do; an information state missing from it
    weighs 1 (no evidence).

    The world's history is replayed from ``game.new_initial_state()`` (``game``: the
    world's own ``.game`` when not given).
    """

    def weight(world: State, player: int) -> float:
        source = game if game is not None else getattr(world, "game", None)
        if source is None:
            raise MctslabError("policy_model needs the game: pass game= or give states .game")
        state: State = source.new_initial_state()  # type: ignore[union-attr]
        w = 1.0
        for action in world.history():
            actor = state.current_player()
            if actor != CHANCE and actor != player:
                probs = policy.get(str(information_key(state, actor)))
                if probs is not None:
                    w *= float(probs.get(action, 0.0))
                    if w == 0.0:
                        return 0.0
            state.apply_action(action)
        return w

    return weight
