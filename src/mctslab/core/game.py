"""The game API: what a game must provide for mctslab to play it.

The shape follows OpenSpiel's state API (``current_player``, ``legal_actions``,
``apply_action``, ``returns``) so that states can be compared move by move with
OpenSpiel's implementation of the same game; the typing follows python-chess.

A game is any object with an ``info`` attribute and a ``new_initial_state()``
method; a state is any object with the methods of :class:`State`. Nothing has to
inherit from these classes: they are :class:`typing.Protocol` s. The built-in
games wrap compiled rule kernels (:mod:`mctslab.games`), a user's game can be a
plain Python class (see ``examples/``), most simply a subclass of
:class:`mctslab.core.python_state.PythonState`, which writes the rules and
inherits the rest.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, Self, runtime_checkable

from mctslab.core.declarations import rendering

if TYPE_CHECKING:
    from mctslab.core.rng import Rng

__all__ = [
    "CHANCE",
    "TERMINAL",
    "Game",
    "GameInfo",
    "ImperfectInformationState",
    "OpponentModel",
    "State",
    "has_chance_nodes",
    "player_label",
    "rules_fingerprint",
    "same_rules",
]

TERMINAL = -4
"""``current_player()`` of a terminal state (OpenSpiel's ``kTerminalPlayerId``)."""
CHANCE = -1
"""``current_player()`` of a chance node (OpenSpiel's ``kChancePlayerId``)."""


@dataclass(frozen=True)
class GameInfo:
    """Static facts about a game (one instance per parameter set).

    ``version`` changes whenever the rules or encodings of the game change, and
    is stored with every result so that results of different rules never mix.
    ``min_utility``/``max_utility`` bound the values of ``returns()``; the search
    maps returns linearly onto rewards in ``[0, 1]`` with them.
    """

    name: str
    version: int
    num_players: int
    num_actions: int
    max_game_length: int
    zero_sum: bool
    min_utility: float
    max_utility: float


@runtime_checkable
class State(Protocol):
    """A game position together with the actions that led to it.

    Mutating methods work in place (``apply_action``); ``child`` returns a copy,
    following python-chess's ``push``/``copy`` naming rule.

    Optional, used where present: ``heuristic() -> list[float]`` (a value per
    player in ``[-1, 1]``, for cut-off playouts and depth-limited minimax),
    ``key() -> Hashable`` (equal for equal positions, for transposition tables),
    ``ordered_actions() -> list[int]`` (a move-ordering hint for alpha-beta),
    ``chance_outcomes()`` at chance nodes, and a ``game`` attribute from which
    the engines read ``game.info`` when none is passed to them.
    ``legal_actions()`` must return a list the caller may keep and change.

    Chance: at a chance node ``current_player()`` is :data:`CHANCE`,
    ``legal_actions()`` lists the outcomes and ``chance_outcomes()`` gives
    ``[(outcome, probability), ...]`` (probabilities sum to 1). A game with chance
    nodes says so with a ``chance_nodes = True`` attribute on the game object
    (:func:`has_chance_nodes`; ``check_game`` checks it).

    Imperfect information (see :class:`ImperfectInformationState`): a game whose
    players do not see everything adds ``information_state_string(player)``,
    ``observation_string(player)`` and ``resample_from_infostate(player, rng,
    model=None)``. A state without them is taken to be of perfect information.
    """

    def current_player(self) -> int:
        """Index of the player to move, :data:`TERMINAL` or :data:`CHANCE`."""
        ...

    def legal_actions(self) -> list[int]:
        """Legal action ids, sorted ascending, in ``[0, num_actions)``; empty iff terminal."""
        ...

    def legal_actions_mask(self) -> list[bool]:
        """A ``num_actions`` long mask of the legal actions."""
        ...

    def apply_action(self, action: int) -> None:
        """Play ``action`` in place; raise :class:`~mctslab.core.errors.IllegalActionError` if illegal."""
        ...

    def child(self, action: int) -> Self:
        """A new state: this one with ``action`` applied."""
        ...

    def clone(self) -> Self:
        """An independent copy."""
        ...

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        ...

    def returns(self) -> list[float]:
        """One return per player (zero before the end of the game)."""
        ...

    def action_to_string(self, action: int) -> str:
        """A short human-readable name of ``action`` (what a human types to play it)."""
        ...

    def string_to_action(self, text: str) -> int:
        """The inverse of :meth:`action_to_string`; raises ``IllegalActionError`` if unknown."""
        ...

    def history(self) -> list[int]:
        """The actions applied since the initial state."""
        ...

    def __str__(self) -> str:
        """A readable drawing of the position."""
        ...


class OpponentModel(Protocol):
    """An opponent model for :meth:`ImperfectInformationState.resample_from_infostate`.

    Called with a candidate world (a full state consistent with what ``player``
    has seen) and the observing ``player``; returns a weight in ``[0, 1]``: the
    likelihood of that world under the model, for instance the probability that
    the opponents' policies take the actions they were seen to take holding the
    cards of that world. ``0`` rules a world out (a constraint); a model that
    always returns ``1`` is the uniform sampling of no model.
    """

    def __call__(self, world: State, player: int) -> float: ...


@runtime_checkable
class ImperfectInformationState(State, Protocol):
    """A state of a game with hidden information or chance (OpenSpiel's names).

    ``information_state_string(player)`` is everything ``player`` knows (perfect
    recall: its own private information and every public action, in order);
    two states with the same string are indistinguishable to that player.
    ``observation_string(player)`` is what the player sees now (no memory).
    """

    def information_state_string(self, player: int) -> str:
        """What ``player`` knows: equal for the states ``player`` cannot tell apart."""
        ...

    def observation_string(self, player: int) -> str:
        """What ``player`` observes in this state (without the past)."""
        ...

    def resample_from_infostate(
        self, player: int, rng: Rng, model: OpponentModel | None = None
    ) -> Self:
        """A determinization: a full state that ``player`` cannot tell from this one.

        Its ``information_state_string(player)`` equals this state's, it respects
        what the rules revealed (a player who did not follow suit holds no card of
        that suit), and its history is a legal game. Without a ``model`` the world
        is drawn uniformly from the consistent ones; with one, a world's chance is
        proportional to ``model(world, player)`` (rejection sampling in
        :func:`mctslab.core.infoset.sample_world`). Every draw comes from ``rng``.
        """
        ...


@runtime_checkable
class Game(Protocol):
    """A game: static facts and a factory of initial states."""

    @property
    def info(self) -> GameInfo: ...

    def new_initial_state(self) -> State: ...

    def state_from_actions(self, actions: Sequence[int]) -> State:
        """The state reached by playing ``actions`` (each checked) from the start."""
        ...


def state_from_actions(game: Game, actions: Sequence[int]) -> State:
    """The state reached by playing ``actions`` from the initial state (each checked)."""
    state = game.new_initial_state()
    for action in actions:
        state.apply_action(int(action))
    return state


def heuristic_or_none(state: State) -> list[float] | None:
    """The state's ``heuristic()`` if it defines one (it is optional), else ``None``."""
    fn = getattr(state, "heuristic", None)
    return None if fn is None else list(fn())


def state_key(state: State) -> Hashable:
    """A hashable key identifying the position, for transposition tables.

    Uses the state's optional ``key()`` method; falls back to the history, which
    is always correct but finds no transpositions.
    """
    fn = getattr(state, "key", None)
    if fn is not None:
        return fn()  # type: ignore[no-any-return]
    return tuple(state.history())


def sample_chance_outcome(state: State, rng: Rng) -> int:
    """An outcome of chance node ``state`` drawn by its probability (one ``rng.random()``)."""
    return draw_outcome(state.chance_outcomes(), rng)  # type: ignore[attr-defined]


def draw_outcome(outcomes: Sequence[tuple[int, float]], rng: Rng) -> int:
    """An outcome drawn from ``[(outcome, probability), ...]`` (one ``rng.random()``)."""
    return outcome_at(outcomes, rng.random())


def outcome_at(outcomes: Sequence[tuple[int, float]], x: float) -> int:
    """The outcome at ``x`` in ``[0, 1)`` of ``[(outcome, probability), ...]`` (the inverse of
    its cumulative distribution, in the listed order): a uniform ``x`` draws an outcome by
    its probability; the same ``x`` always gives the same outcome.

    >>> [outcome_at([(0, 0.5), (1, 0.25), (2, 0.25)], x) for x in (0.0, 0.6, 0.8)]
    [0, 1, 2]
    """
    for action, prob in outcomes:
        x -= prob
        if x < 0:
            return int(action)
    return int(outcomes[-1][0])


# The attribute values that identify a game's parameters (see rules_fingerprint).
_SCALARS = (bool, int, float, str, type(None))


def _plain(value: Any) -> Hashable | None:
    """``value`` as a hashable plain value if it is a scalar or a (nested) sequence of
    scalars or a numpy array, else ``None`` (caches, tables, objects: not parameters)."""
    if isinstance(value, _SCALARS):
        return value
    if isinstance(value, GameInfo):
        return value
    tobytes = getattr(value, "tobytes", None)
    if tobytes is not None and hasattr(value, "dtype"):  # a numpy array, e.g. kernel params
        return ("array", str(value.dtype), tuple(value.shape), tobytes())
    if isinstance(value, tuple | list):
        items = [_plain(v) for v in value]
        return (
            None
            if any(i is None and v is not None for i, v in zip(items, value, strict=True))
            else tuple(items)
        )
    return None


def rules_fingerprint(game: object) -> Hashable:
    """What identifies a game's rules: its class, its :class:`GameInfo` (name and
    ``version`` included) and its parameters.

    The parameters are read from the game object itself: the values of its instance
    attributes that are plain data (numbers, strings, tuples of them, numpy arrays
    such as a kernel game's ``params``), so two games built with other parameters
    (Nim's piles, Connect Four's size, Pig's target) differ even where their
    ``GameInfo`` agree. A game may define ``rules_key()`` to say it exactly.
    Equal for a game and a copy of it sent to another process.
    """
    explicit = getattr(game, "rules_key", None)
    if callable(explicit):
        params: Hashable = ("rules_key", explicit())
    else:
        attrs = getattr(game, "__dict__", {})
        params = tuple(
            sorted(
                (name, plain)
                for name, value in attrs.items()
                if (plain := _plain(value)) is not None
                and not (name.startswith("_") and hasattr(value, "dtype"))  # scratch buffers
            )
        )
    kind = type(game)
    return (kind.__module__, kind.__qualname__, getattr(game, "info", None), params)


def same_rules(a: object, b: object) -> bool:
    """Whether games ``a`` and ``b`` play by the same rules: the same object, or equal
    :func:`rules_fingerprint` s. A searcher that keeps a tree reuses it only then."""
    return a is b or rules_fingerprint(a) == rules_fingerprint(b)


def has_chance_nodes(game: object) -> bool:
    """Whether ``game`` says it has chance nodes (dice, deals): its optional
    ``chance_nodes`` attribute, ``False`` when absent. The reference engine handles
    chance whatever a game says; the compiled engine refuses games that have it."""
    return bool(getattr(game, "chance_nodes", False))


def player_label(game: object, player: int) -> str:
    """``player``'s name in text: the one ``game`` declares
    (:attr:`Rendering.labels <mctslab.core.declarations.Rendering.labels>`: tic-tac-toe's
    ``"x"``/``"o"``, Go's ``"Black"``/``"White"``), else ``"player 1"``, ``"player 2"``, ..."""
    labels = rendering(game).labels
    if 0 <= player < len(labels):
        return labels[player]
    return f"player {player + 1}"
