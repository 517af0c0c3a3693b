"""Dice determinization: a game whose chance nodes a fixed stream of numbers decides.

PIMC (:mod:`mctslab.search.ismcts`) determinizes what a player does not know about
the *present*: the other players' cards. A die's future rolls can be determinized
the same way (the approach of the Mannheim MCTS lecture for dice games: draw ``n``
sequences of dice, search each resulting deterministic game, merge the first level of
the trees; Cowling, Powley and Whitehouse 2012, "Information set Monte Carlo tree
search", IEEE TCIAIG 4(2), discuss determinization and its flaws).

Here, for any game with chance nodes: a *world* is a fixed stream of uniform numbers
``u_1, u_2, ...`` (:class:`ChanceStream`, drawn from a seed on demand and kept), and
the ``k``-th chance node met below the position the world starts from, counted along
the path of play, takes the outcome at ``u_k`` of its distribution (the inverse of the
cumulative distribution over ``chance_outcomes()``, :func:`~mctslab.core.game.outcome_at`).
:class:`FixedChanceState` wraps a state and resolves its chance nodes from the stream
as soon as they come up, so the wrapped game has no chance node left: any search of
perfect information (the reference engine :class:`mctslab.search.mcts.MCTS`) plays
it as a deterministic game. Every path meets the same numbers in the same order:
the second die thrown after the root shows the face of ``u_2`` whoever throws it,
whatever was played before; over many worlds each outcome comes up with its
probability.

What this gets wrong is what makes it cheap: each world's search knows the future.
It rolls on when "it knows" no 1 is coming and stops just before one, so it
overvalues risk: as the lecture says, nobody can know how the dice will fall.

>>> import mctslab
>>> from mctslab.core.game import CHANCE
>>> world = fix_chance(mctslab.make("pig").new_initial_state(), seed=3)
>>> world.apply_action(0)  # roll: the die is thrown at once, from the stream
>>> world.current_player() != CHANCE, world.chance_count
(True, 1)
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any, Self

from mctslab.core.game import CHANCE, State, outcome_at, state_key
from mctslab.core.rng import Rng

__all__ = ["ChanceStream", "FixedChanceState", "fix_chance"]

#: The optional methods of the wrapped state that the wrapper passes on as they are.
_PASSED_ON = frozenset({"heuristic"})


class ChanceStream:
    """A world of chance: the uniform numbers ``u_1, u_2, ...`` of ``Rng(seed)``, drawn
    when first asked for and kept, so the ``k``-th number is the same on every path.

    >>> stream = ChanceStream(7)
    >>> stream.number(2) == ChanceStream(7).number(2)
    True
    >>> stream.outcome(0, [(0, 0.5), (1, 0.5)]) == stream.outcome(0, [(0, 0.5), (1, 0.5)])
    True
    """

    __slots__ = ("_numbers", "_rng", "seed")

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._rng = Rng(seed)
        self._numbers: list[float] = []

    def number(self, k: int) -> float:
        """``u_(k+1)``: the stream's ``k``-th number, counted from 0, in ``[0, 1)``."""
        numbers = self._numbers
        while len(numbers) <= k:
            numbers.append(self._rng.random())
        return numbers[k]

    def outcome(self, k: int, outcomes: Sequence[tuple[int, float]]) -> int:
        """The outcome of ``[(outcome, probability), ...]`` at the ``k``-th number."""
        return outcome_at(outcomes, self.number(k))

    def __repr__(self) -> str:
        return f"ChanceStream(seed={self.seed}, drawn={len(self._numbers)})"


class FixedChanceState:
    """A state whose chance nodes the world ``stream`` resolves: never a chance node.

    Wraps ``state`` (not copied: the wrapper owns it from now on) and plays the
    outcome of the stream's ``k``-th number at the ``k``-th chance node it meets,
    counted from ``chance_count`` (0 for a new world). Offers the methods of
    :class:`~mctslab.core.game.State`; ``history()`` is the wrapped state's, chance
    outcomes included (it names the position); ``key()`` is the wrapped state's key
    with ``chance_count`` (the same position with another future is another state);
    ``heuristic()`` is passed on where the wrapped state has one; ``game`` is its game.
    A clone shares the stream: both meet the same future.
    """

    __slots__ = ("_count", "_state", "stream")

    def __init__(self, state: State, stream: ChanceStream, chance_count: int = 0) -> None:
        self._state = state
        self.stream = stream
        self._count = chance_count
        self._resolve()

    def _resolve(self) -> None:
        state, stream = self._state, self.stream
        while state.current_player() == CHANCE:
            outcomes = state.chance_outcomes()  # type: ignore[attr-defined]
            state.apply_action(stream.outcome(self._count, outcomes))
            self._count += 1

    @property
    def state(self) -> State:
        """The wrapped state (do not change it: the wrapper's count would be wrong)."""
        return self._state

    @property
    def chance_count(self) -> int:
        """How many chance nodes the stream has resolved on the way to this state."""
        return self._count

    @property
    def game(self) -> Any:
        """The wrapped state's game (``None`` if it has none): the engines read its ``info``."""
        return getattr(self._state, "game", None)

    def __getattr__(self, name: str) -> Any:
        if name in _PASSED_ON:
            return getattr(self._state, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    # -- the State protocol ------------------------------------------------------

    def current_player(self) -> int:
        return self._state.current_player()

    def legal_actions(self) -> list[int]:
        return self._state.legal_actions()

    def legal_actions_mask(self) -> list[bool]:
        return self._state.legal_actions_mask()

    def apply_action(self, action: int) -> None:
        """Play ``action``, then every chance node that follows, from the stream."""
        self._state.apply_action(action)
        self._resolve()

    def clone(self) -> Self:
        new = type(self).__new__(type(self))
        new._state = self._state.clone()
        new.stream = self.stream
        new._count = self._count
        return new

    def child(self, action: int) -> Self:
        new = self.clone()
        new.apply_action(action)
        return new

    def is_terminal(self) -> bool:
        return self._state.is_terminal()

    def returns(self) -> list[float]:
        return self._state.returns()

    def action_to_string(self, action: int) -> str:
        return self._state.action_to_string(action)

    def string_to_action(self, text: str) -> int:
        return self._state.string_to_action(text)

    def history(self) -> list[int]:
        return self._state.history()

    def key(self) -> Hashable:
        return (state_key(self._state), self._count)

    def __str__(self) -> str:
        return str(self._state)

    def __repr__(self) -> str:
        return f"FixedChanceState({self._state!r}, {self.stream!r}, chance_count={self._count})"


def fix_chance(state: State, seed: int) -> FixedChanceState:
    """A copy of ``state`` in the world of ``ChanceStream(seed)``: its chance nodes from
    here on are decided by the stream (see the module's docstring)."""
    return FixedChanceState(state.clone(), ChanceStream(seed))
