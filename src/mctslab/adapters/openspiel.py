"""mctslab's games as OpenSpiel games: :func:`register` makes one a ``pyspiel`` Python game.

    >>> from mctslab.adapters.openspiel import register
    >>> import pyspiel
    >>> name = register("kuhn_poker")
    >>> name
    'mctslab_kuhn_poker'
    >>> game = pyspiel.load_game(name)
    >>> game.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    True

OpenSpiel's algorithms (CFR, exploitability, its MCTSBot, ``pyspiel.random_sim_test``)
then run on mctslab's rules: every ``pyspiel`` state holds an mctslab state and asks it
(OpenSpiel's Python-game API, as ``open_spiel/python/games/kuhn_poker.py`` writes it);
no rule is copied here.

What maps to what (:class:`~mctslab.core.game.GameInfo` and the game's attributes to
``pyspiel.GameType`` and ``pyspiel.GameInfo``):

* dynamics: sequential; chance mode: explicit stochastic where the game says it has
  chance nodes (``chance_nodes``: Kuhn poker's deal, Pig's die), deterministic
  otherwise; a chance node is ``current_player() == CHANCE`` (-1, OpenSpiel's) and its
  ``chance_outcomes()``; ``max_chance_outcomes`` is ``num_actions`` (mctslab's outcomes
  are action ids);
* information: imperfect for a game whose ``perfect_information`` is false (Kuhn poker,
  Knockout Whist), perfect otherwise; utility: zero-sum (``utility_sum`` 0) or general
  sum, as ``zero_sum`` says; reward model: terminal (``returns()`` at the end);
* ``num_distinct_actions``, ``num_players``, ``min_utility``, ``max_utility``,
  ``max_game_length``: the game's :class:`~mctslab.core.game.GameInfo` (mctslab's
  length bound counts chance moves too, so it bounds OpenSpiel's);
* information state strings: the state's ``information_state_string(player)``, or, for
  a perfect-information game without one, the history (OpenSpiel's convention);
  observation strings: ``observation_string(player)``, or the drawing ``str(state)``;
* tensors: the observation tensor where the game has one (a kernel game's
  ``observation_shape()``, a Python game's ``observation_tensor_shape()``), the
  information state tensor where it has ``information_state_tensor_shape()`` (Kuhn
  poker's, OpenSpiel's layout).

Parameters: the game's own (``register("connect_four", rows=5)``) are OpenSpiel game
parameters of the one registered name, with mctslab's defaults:
``"mctslab_connect_four(rows=5)"`` is what :func:`register` returns then, and
``pyspiel.load_game("mctslab_connect_four", {"rows": 5})`` loads the same game. A
parameter whose default is a number, a truth value or a word is carried as such; a tuple
of numbers (Nim's ``piles``) as its ``"1;3;5"`` string, which the game reads; one whose
default is ``None`` (Go's ``max_game_length``) has no OpenSpiel type and is not carried.

Errors: an unknown game is mctslab's :class:`~mctslab.core.errors.UnknownGameError`, a
bad parameter its :class:`~mctslab.core.errors.InvalidConfigError`; an illegal action
raises :class:`~mctslab.core.errors.IllegalActionError` from ``state.apply_action``,
naming the legal ones. States clone by ``clone()`` (``copy.deepcopy`` of the wrapped
state, as ``pyspiel``'s ``Clone`` does it) and pickle (``state.serialize()``) as the
game and its history, replayed when read back.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from mctslab.core.errors import InvalidConfigError, MctslabError
from mctslab.core.game import CHANCE, Game, State, has_chance_nodes
from mctslab.core.infoset import is_perfect_information
from mctslab.core.registry import game_parameters, make

try:
    import pyspiel
except ImportError as err:  # pragma: no cover - the openspiel extra is installed by make test
    raise ImportError(
        f"mctslab.adapters.openspiel needs OpenSpiel: pip install 'mctslab[openspiel]' ({err})"
    ) from err

__all__ = [
    "PREFIX",
    "SpielGame",
    "SpielState",
    "parameter_specification",
    "register",
    "spiel_name",
]

#: What the OpenSpiel name of an mctslab game starts with: ``"mctslab_" + name``.
PREFIX = "mctslab_"
# OpenSpiel's game strings ("name(key=value,...)") leave no room for these in a name or value.
_NAME = re.compile(r"[a-z][a-z0-9_]*")
_RESERVED = re.compile(r"[(),=\s]")
# The mctslab names registered so far -> their OpenSpiel parameter specification.
_REGISTERED: dict[str, dict[str, Any]] = {}
_GT = pyspiel.GameType


def spiel_name(game_name: str) -> str:
    """The OpenSpiel short name of mctslab's ``game_name``: ``"mctslab_" + game_name``."""
    return PREFIX + game_name


def _carried(value: Any) -> Any:
    """``value`` as an OpenSpiel parameter (a bool, int, float or str, which ``pyspiel``
    types strictly), a tuple of numbers as its ``;``-joined string, or ``None``: none."""
    if isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, tuple | list) and value and all(isinstance(v, int) for v in value):
        return ";".join(str(v) for v in value)
    return None


def parameter_specification(game_name: str) -> dict[str, Any]:
    """The OpenSpiel parameters of mctslab's ``game_name``: each of its parameters whose
    default OpenSpiel can carry (see :func:`_carried`), with that default.

    >>> parameter_specification("nim")
    {'piles': '1;3;5;7', 'misere': False}
    """
    spec = {}
    for key, default in game_parameters(game_name).items():
        carried = _carried(default)
        if carried is not None:
            spec[key] = carried
    return spec


def _as_text(value: Any) -> str:
    """A parameter's value as OpenSpiel's game strings write it (a float with its point,
    so that ``pyspiel`` reads it back as a float)."""
    if isinstance(value, float):
        return repr(value)
    return str(value)


def register(game_name: str, **params: Any) -> str:
    """Register mctslab's ``game_name`` as a ``pyspiel`` game; return the string that
    ``pyspiel.load_game`` loads it by.

    ``"mctslab_<game_name>"`` without ``params``, else the game string with them,
    ``"mctslab_connect_four(rows=5)"``; registering again returns the same string (the
    game is registered once, its parameters OpenSpiel's). ``params`` are checked by
    making the game (``mctslab.make(game_name, **params)``).

    Raises :class:`~mctslab.core.errors.UnknownGameError` for a name mctslab does not
    know, :class:`~mctslab.core.errors.InvalidConfigError` for a bad parameter, one that
    OpenSpiel cannot carry (a default of ``None``, a value with ``(),=`` in it) or a name
    that an OpenSpiel game string cannot hold (``openspiel:...``).
    """
    if not _NAME.fullmatch(game_name):
        if game_name.startswith("openspiel:"):
            raise InvalidConfigError(
                f"{game_name!r} is OpenSpiel's own game: load it with pyspiel.load_game"
            )
        raise InvalidConfigError(
            f"game {game_name!r} cannot be an OpenSpiel name (lowercase letters, digits, _)"
        )
    game_parameters(game_name)  # an unknown game: UnknownGameError, listing the known ones
    spec = parameter_specification(game_name)
    values = {}
    for key, value in params.items():
        if key in game_parameters(game_name) and key not in spec:
            raise InvalidConfigError(
                f"parameter {key!r} of {game_name!r} is not an OpenSpiel parameter (its "
                f"default is {game_parameters(game_name)[key]!r}); OpenSpiel parameters: "
                f"{', '.join(spec) or 'none'}"
            )
        carried = _carried(value)
        if carried is None or (isinstance(carried, str) and _RESERVED.search(carried)):
            raise InvalidConfigError(
                f"parameter {key}={value!r} of {game_name!r} cannot be an OpenSpiel "
                "parameter (a number, true/false or a word without ( ) , = or spaces)"
            )
        values[key] = carried
    _mctslab_game(game_name, _frozen(values))  # UnknownGameError / InvalidConfigError
    name = spiel_name(game_name)
    if game_name not in _REGISTERED:
        default = _mctslab_game(game_name, ())
        game_type = _game_type(name, default, spec)
        # The creator is a class of its own, not a functools.partial: pyspiel keeps it in
        # a C++ static freed after Python has shut down, and a class (which refers to
        # itself) is never deallocated then, where a partial would abort the process.
        creator = type(f"SpielGame_{game_name}", (SpielGame,), {"game_name": game_name})
        pyspiel.register_game(game_type, creator)
        _REGISTERED[game_name] = spec
    if not values:
        return name
    text = ",".join(f"{key}={_as_text(value)}" for key, value in sorted(values.items()))
    return f"{name}({text})"


def _frozen(params: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    return tuple(sorted(params.items()))


@functools.lru_cache(maxsize=64)
def _mctslab_game(game_name: str, params: tuple[tuple[str, Any], ...]) -> Game:
    """mctslab's game of ``game_name`` with ``params`` (made once: a state read back
    from its pickle replays its history on it)."""
    return make(game_name, **dict(params))


def _shape(game: Game, method: str) -> tuple[int, ...] | None:
    """The shape ``game.<method>()`` gives, or ``None`` where the game has none (a kernel
    game without an observation kernel refuses with an mctslab error)."""
    shape_of = getattr(game, method, None)
    if not callable(shape_of):
        return None
    try:
        return tuple(int(n) for n in shape_of())
    except MctslabError:
        return None


def observation_shape(game: Game) -> tuple[int, ...] | None:
    """The observation tensor's shape of mctslab's ``game``, ``None`` without one: a
    kernel game's ``observation_shape()``, a Python game's ``observation_tensor_shape()``."""
    return _shape(game, "observation_shape") or _shape(game, "observation_tensor_shape")


def _info_state_shape(game: Game) -> tuple[int, ...] | None:
    return _shape(game, "information_state_tensor_shape")


def _game_type(name: str, game: Game, spec: Mapping[str, Any]) -> Any:
    """The ``pyspiel.GameType`` of mctslab's ``game`` (see the module's table)."""
    info = game.info
    perfect = is_perfect_information(game)
    state = game.new_initial_state()
    return _GT(
        short_name=name,
        long_name=f"mctslab {info.name}",
        dynamics=_GT.Dynamics.SEQUENTIAL,
        chance_mode=(
            _GT.ChanceMode.EXPLICIT_STOCHASTIC
            if has_chance_nodes(game)
            else _GT.ChanceMode.DETERMINISTIC
        ),
        information=(
            _GT.Information.PERFECT_INFORMATION
            if perfect
            else _GT.Information.IMPERFECT_INFORMATION
        ),
        utility=_GT.Utility.ZERO_SUM if info.zero_sum else _GT.Utility.GENERAL_SUM,
        reward_model=_GT.RewardModel.TERMINAL,
        max_num_players=info.num_players,
        min_num_players=info.num_players,
        provides_information_state_string=perfect or hasattr(state, "information_state_string"),
        provides_information_state_tensor=_info_state_shape(game) is not None
        and hasattr(state, "information_state_tensor"),
        provides_observation_string=True,
        provides_observation_tensor=observation_shape(game) is not None
        and hasattr(state, "observation_tensor"),
        parameter_specification=dict(spec),
    )


class SpielGame(pyspiel.Game):  # type: ignore[misc]  # pyspiel ships no types
    """mctslab's game :attr:`game_name` as a ``pyspiel.Game`` (what ``pyspiel.load_game``
    makes of a name :func:`register` registered, through the subclass it made for the
    game). ``mctslab_game`` is the wrapped game.

    Args:
        params: OpenSpiel's parameters, every one of the registered specification
            (``pyspiel`` fills in the defaults); those that differ from the defaults are
            passed to ``mctslab.make``.
    """

    #: mctslab's name of the game (set by the subclass :func:`register` makes).
    game_name: ClassVar[str]

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        game_name = self.game_name
        spec = parameter_specification(game_name)
        given = {k: v for k, v in (params or {}).items() if spec.get(k) != v}
        key = _frozen(given)
        game = _mctslab_game(game_name, key)
        info = game.info
        spiel_info = pyspiel.GameInfo(
            num_distinct_actions=info.num_actions,
            max_chance_outcomes=info.num_actions if has_chance_nodes(game) else 0,
            num_players=info.num_players,
            min_utility=float(info.min_utility),
            max_utility=float(info.max_utility),
            utility_sum=0.0 if info.zero_sum else None,
            max_game_length=info.max_game_length,
        )
        # The type of this game's own parameters (a player count changes the players).
        super().__init__(
            _game_type(spiel_name(game_name), game, spec), spiel_info, dict(params or {})
        )
        self.mctslab_game = game
        self.source = (game_name, key)

    def new_initial_state(self) -> SpielState:
        """A ``pyspiel`` state over a new initial state of the mctslab game."""
        return SpielState(self, self.mctslab_game.new_initial_state())

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Observer:
        """The observer ``pyspiel`` asks for strings and tensors: the information state's
        where ``iig_obs_type`` asks for perfect recall, the observation's otherwise."""
        if params:
            raise InvalidConfigError(f"observation parameters are not supported: {params}")
        recall = iig_obs_type is not None and bool(iig_obs_type.perfect_recall)
        return Observer(self.mctslab_game, perfect_recall=recall)


class _Wrapped:
    """The mctslab state in a ``pyspiel`` state's ``__dict__``: copied by ``clone()``
    where ``pyspiel``'s ``Clone`` deep-copies it (the game it refers to is not copied),
    pickled as its game and history where ``serialize()`` pickles it."""

    __slots__ = ("source", "state")

    def __init__(self, state: State, source: tuple[str, tuple[tuple[str, Any], ...]]) -> None:
        self.state = state
        self.source = source

    def __deepcopy__(self, memo: dict[int, Any]) -> _Wrapped:
        return _Wrapped(self.state.clone(), self.source)

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return (_replay, (self.source, tuple(self.state.history())))


def _replay(source: tuple[str, tuple[tuple[str, Any], ...]], history: tuple[int, ...]) -> _Wrapped:
    """A :class:`_Wrapped` state read back from its pickle: ``history`` replayed."""
    game = _mctslab_game(*source)
    return _Wrapped(game.state_from_actions(history), source)


class SpielState(pyspiel.State):  # type: ignore[misc]  # pyspiel ships no types
    """An mctslab state as a ``pyspiel.State``: OpenSpiel's Python-game methods, each
    asking the wrapped state (``mctslab_state``)."""

    def __init__(self, game: SpielGame, state: State) -> None:
        super().__init__(game)
        self._wrapped = _Wrapped(state, game.source)

    @property
    def mctslab_state(self) -> State:
        """The wrapped mctslab state (this state's own: changes to it change this one)."""
        return self._wrapped.state

    def current_player(self) -> int:
        """The player to move, ``CHANCE`` (-1) or ``TERMINAL`` (-4): OpenSpiel's codes too."""
        return int(self._wrapped.state.current_player())

    def _legal_actions(self, player: int) -> list[int]:
        """The legal actions of ``player``, the player to move (``pyspiel`` answers for
        chance, the other players and terminal states itself)."""
        return [int(a) for a in self._wrapped.state.legal_actions()]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``[(outcome, probability), ...]`` at a chance node."""
        outcomes = self._wrapped.state.chance_outcomes()  # type: ignore[attr-defined]
        return [(int(a), float(p)) for a, p in outcomes]

    def _apply_action(self, action: int) -> None:
        """Play ``action``: the wrapped state's ``apply_action``, which raises
        :class:`~mctslab.core.errors.IllegalActionError` for an illegal one."""
        self._wrapped.state.apply_action(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        """The wrapped state's name of ``action``; OpenSpiel also asks for the names of
        actions where they are not legal (a history printed after the end), and gets
        ``player:action`` where the game has no name for it there."""
        try:
            return str(self._wrapped.state.action_to_string(int(action)))
        except MctslabError:
            return f"{'chance' if player == CHANCE else player}:{action}"

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return bool(self._wrapped.state.is_terminal())

    def returns(self) -> list[float]:
        """Each player's return (zero before the end)."""
        return [float(r) for r in self._wrapped.state.returns()]

    def __str__(self) -> str:
        return str(self._wrapped.state)


class Observer:
    """OpenSpiel's Python observer (``open_spiel/python/observation.py``'s interface) of
    an mctslab game: ``tensor`` (flat, ``float32``) and ``dict`` (its one named view of
    the game's shape; empty, and ``tensor`` ``None``, where the game has no tensor),
    ``set_from(state, player)`` and ``string_from(state, player)``.

    With ``perfect_recall`` it observes the information state
    (``information_state_string``, ``information_state_tensor``), else the observation.
    """

    def __init__(self, game: Game, perfect_recall: bool) -> None:
        self.perfect_recall = perfect_recall
        shape = _info_state_shape(game) if perfect_recall else observation_shape(game)
        self.tensor: np.ndarray[Any, np.dtype[np.float32]] | None = None
        self.dict: dict[str, np.ndarray[Any, np.dtype[np.float32]]] = {}
        if shape is not None:
            self.tensor = np.zeros(int(np.prod(shape)), np.float32)
            name = "info_state" if perfect_recall else "observation"
            self.dict[name] = self.tensor.reshape(shape)

    def set_from(self, state: SpielState, player: int) -> None:
        """Write what ``player`` observes (or knows) in ``state`` into :attr:`tensor`."""
        if self.tensor is None:
            raise InvalidConfigError("this game has no such tensor")
        inner = state.mctslab_state
        method = "information_state_tensor" if self.perfect_recall else "observation_tensor"
        values = getattr(inner, method)(int(player))
        self.tensor[:] = np.asarray(values, dtype=np.float32).reshape(-1)

    def string_from(self, state: SpielState, player: int) -> str:
        """What ``player`` knows (perfect recall) or observes in ``state``, as text."""
        inner = state.mctslab_state
        if self.perfect_recall:
            fn = getattr(inner, "information_state_string", None)
            if fn is None:  # perfect information: the history names the state
                return ", ".join(str(a) for a in inner.history())
            return str(fn(int(player)))
        fn = getattr(inner, "observation_string", None)
        return str(inner) if fn is None else str(fn(int(player)))
