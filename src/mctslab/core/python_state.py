"""``PythonState``: a base class for a game state written in plain Python.

A state only has to have the methods of :class:`mctslab.core.game.State` (a
protocol: nothing has to inherit), but most of them are the same in every game:
the history, ``child``, ``clone``, the legal-action mask, the message of an
illegal action. Subclass :class:`PythonState` and write the rules alone; Pig,
Kuhn poker and Knockout Whist (:mod:`mctslab.games`) are written this way. The
shape follows OpenSpiel's Python games, which subclass ``pyspiel.State`` and
write ``_apply_action``, ``_legal_actions`` and ``returns``; here
``_apply_action`` also checks the move, where the rules can do it cheaply.
"""

from __future__ import annotations

import operator
from abc import ABC, abstractmethod
from typing import Any, ClassVar, Generic, Self, TypeVar

from mctslab.core.errors import IllegalActionError, InvalidConfigError, illegal_action_message
from mctslab.core.game import TERMINAL, Game

__all__ = ["PythonState"]

G = TypeVar("G", bound=Game)


class PythonState(ABC, Generic[G]):
    """A state of a game written in plain Python: the subclass writes the rules.

    What a subclass writes:

    - ``__init__(game)``: calls ``super().__init__(game)``, then sets up the initial
      position in its own attributes (declare them in ``__slots__``: smaller
      states and faster clones);
    - ``current_player()``: the player to move, :data:`~mctslab.core.game.TERMINAL`
      once the game is over, :data:`~mctslab.core.game.CHANCE` at a chance node;
    - ``legal_actions()``: sorted action ids, a new list each call, empty iff terminal;
    - ``_apply_action(action)``: the rules of one move (``action`` is an ``int``):
      ``raise self.illegal_action(action)`` if it is not legal, before changing
      anything, else update the position. The base then appends ``action`` to
      ``self._history`` (the actions so far, which the rules may read: it does not
      hold ``action`` yet while ``_apply_action`` runs);
    - ``returns()``: one value per player (zeros before the end);
    - ``copied``: the names of the attributes that hold lists, dicts or sets which
      ``_apply_action`` changes in place, for ``clone()`` to copy (the others are
      shared: numbers, strings, tuples, the game);
    - where the game has them: ``chance_outcomes()`` (``[(outcome, probability),
      ...]`` at a chance node), ``information_state_string(player)`` and the rest of
      :class:`~mctslab.core.game.ImperfectInformationState`, ``heuristic()``, ``key()``;
    - usually ``action_to_string(action)`` (default: the id) and ``__str__`` (a
      drawing of the position).

    What it gets: ``apply_action`` (turns a numpy integer into an ``int``, refuses
    what is not an integer with :class:`~mctslab.core.errors.IllegalActionError`,
    calls ``_apply_action`` and appends to the history), ``history()``, ``child()``,
    ``clone()``, ``is_terminal()`` (``current_player() == TERMINAL``; write a faster
    one if you like), ``legal_actions_mask()``, ``string_to_action`` (matches the
    names of the legal actions, case aside), the ``game`` it belongs to, a
    ``repr`` with the history, and three helpers that build the errors with the
    messages every game uses: :meth:`illegal_action`, :meth:`unknown_action` and
    :meth:`check_player`.

    Any of these may be overridden with a faster or richer one (Pig parses
    ``"Roll 6"``; Kuhn poker writes its ``clone()`` attribute by attribute: the
    base's sets the attributes by name, about three times as long, and a Kuhn
    poker playout is a few microseconds).
    Check the result with :func:`mctslab.core.testing.check_game`.
    """

    __slots__ = ("_game", "_history")

    #: The attributes that ``clone()`` copies (``value.copy()``) instead of sharing.
    copied: ClassVar[tuple[str, ...]] = ()

    # Set per subclass by __init_subclass__: what clone() shares, and whether the
    # instances also have a __dict__ (a subclass without __slots__).
    _shared: ClassVar[tuple[str, ...]] = ()
    _has_dict: ClassVar[bool] = False

    def __init__(self, game: G) -> None:
        self._game = game
        self._history: list[int] = []

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # The names clone() sets, worked out once per class rather than per clone (the
        # engines clone a state twice an iteration); a misspelt `copied` fails here.
        names: list[str] = []
        has_dict = False
        for klass in cls.__mro__[:-1]:  # object has no slots to copy
            slots = klass.__dict__.get("__slots__")
            if slots is None:
                has_dict = True
                continue
            names += [slots] if isinstance(slots, str) else list(slots)
        if not has_dict and (unknown := sorted(set(cls.copied) - set(names))):
            raise TypeError(f"{cls.__name__}.copied names attributes not in __slots__: {unknown}")
        skip = {"__dict__", "__weakref__", "_history", *cls.copied}
        cls._shared = tuple(name for name in names if name not in skip)
        cls._has_dict = has_dict

    # -- what the subclass writes -----------------------------------------------

    @abstractmethod
    def current_player(self) -> int:
        """The player to move, :data:`~mctslab.core.game.TERMINAL` or ``CHANCE``."""

    @abstractmethod
    def legal_actions(self) -> list[int]:
        """The legal action ids, sorted, in a new list; empty iff terminal."""

    @abstractmethod
    def _apply_action(self, action: int) -> None:
        """Play ``action`` (an ``int``; ``self._history`` does not hold it yet): raise
        :meth:`illegal_action` before changing anything if it is not legal."""

    @abstractmethod
    def returns(self) -> list[float]:
        """One return per player (zeros before the end of the game)."""

    # -- what it gets -------------------------------------------------------------

    @property
    def game(self) -> G:
        """The game this state belongs to (the engines read ``game.info``)."""
        return self._game

    def apply_action(self, action: int) -> None:
        """Play ``action`` in place; an illegal one raises ``IllegalActionError`` and
        changes nothing."""
        if type(action) is not int:  # numpy integers, bools: rare, so off the fast path
            action = self.action_index(action)
        self._apply_action(action)
        self._history.append(action)

    def action_index(self, action: object) -> int:
        """``action`` as an ``int`` (a numpy integer or a bool is one); anything else
        raises :meth:`illegal_action`."""
        try:
            return operator.index(action)  # type: ignore[arg-type]
        except TypeError:
            raise self.illegal_action(action) from None

    def history(self) -> list[int]:
        """The actions applied since the initial state (a copy)."""
        return self._history.copy()

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self.current_player() == TERMINAL

    def legal_actions_mask(self) -> list[bool]:
        """A ``num_actions`` long mask of the legal actions."""
        mask = [False] * self._game.info.num_actions
        for action in self.legal_actions():
            mask[action] = True
        return mask

    def child(self, action: int) -> Self:
        """A new state: this one with ``action`` applied."""
        new = self.clone()
        new.apply_action(action)
        return new

    def clone(self) -> Self:
        """An independent copy: the attributes named in ``copied`` and the history are
        copied, every other attribute is shared."""
        cls = type(self)
        new = cls.__new__(cls)
        if cls._has_dict:
            new.__dict__.update(self.__dict__)
        for name in cls._shared:
            setattr(new, name, getattr(self, name))
        for name in cls.copied:
            setattr(new, name, getattr(self, name).copy())
        new._history = self._history.copy()
        return new

    def action_to_string(self, action: int) -> str:
        """The name of ``action``; by default its id."""
        return str(action)

    def string_to_action(self, text: str) -> int:
        """The legal action named ``text`` by :meth:`action_to_string` (case and spaces
        around it aside); raises :meth:`unknown_action` for any other text."""
        wanted = text.strip().lower()
        for action in self.legal_actions():
            if self.action_to_string(action).lower() == wanted:
                return action
        raise self.unknown_action(text)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self._game!r} history={self._history}>"

    # -- errors with the messages every game uses ----------------------------------

    def illegal_action(self, action: object) -> IllegalActionError:
        """The error for ``action``, not legal here: the message names the legal actions
        (or says that the game is over)."""
        return IllegalActionError(
            illegal_action_message(
                self._game.info.name, f"{action!r}", self.legal_actions(), self.action_to_string
            )
        )

    def unknown_action(self, text: str) -> IllegalActionError:
        """The error for ``text``, which names no action here (for ``string_to_action``)."""
        names = ", ".join(self.action_to_string(a) for a in self.legal_actions())
        return IllegalActionError(
            f"unknown action {text!r} in {self._game.info.name}; legal actions: {names or 'none'}"
        )

    def check_player(self, player: int) -> None:
        """Raise :class:`~mctslab.core.errors.InvalidConfigError` unless ``player`` is a
        player of the game (for ``information_state_string(player)`` and the like)."""
        n = self._game.info.num_players
        if not 0 <= player < n:
            raise InvalidConfigError(
                f"{self._game.info.name}: player must be in [0, {n - 1}], got {player}"
            )
