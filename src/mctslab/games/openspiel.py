"""Any OpenSpiel game as an mctslab game: ``mctslab.make("openspiel:chess")``.

OpenSpiel (Lanctot et al. 2019, "OpenSpiel: A framework for reinforcement
learning in games") has some eighty games; mctslab's state API follows its
names, so the adapter is thin. What it adds is what mctslab promises and
``pyspiel`` does not:

* ``apply_action`` checks the action against the legal ones and raises
  :class:`~mctslab.core.errors.IllegalActionError`. A release build of ``pyspiel``
  checks little: a card dealt twice in ``kuhn_poker`` is silently accepted and
  leaves a corrupt state; other games raise ``pyspiel.SpielError``, a
  ``RuntimeError`` whose text is also written to stderr.
* Game names and parameters are checked against OpenSpiel's registry before a
  game is loaded, so that mistakes raise one-line
  :class:`~mctslab.core.errors.UnknownGameError` / ``InvalidConfigError`` and not
  OpenSpiel's list of every game. Values are converted to the type OpenSpiel
  declares (``komi=7`` becomes ``7.0``; the CLI's ``"9"`` becomes ``9``).
* :class:`~mctslab.core.game.GameInfo` counts what mctslab counts: ``history()``
  holds chance outcomes as well as moves, so ``max_game_length`` adds
  OpenSpiel's ``max_chance_nodes_in_history()``, and ``num_actions`` is large
  enough for the chance outcome ids too (pig rolls a die, six outcomes, but has
  two moves).

Names: ``openspiel:<name>`` or ``openspiel:<name>(key=value,...)`` in OpenSpiel's
own syntax; keyword parameters of :func:`mctslab.make` are merged in, so
``make("openspiel:go", board_size=9)`` is ``make("openspiel:go(board_size=9)")``.

Accepted: every game with sequential moves, chance nodes included. Refused:
simultaneous-move games (wrap them: ``openspiel:turn_based_simultaneous_game(
game=goofspiel(num_cards=4))``) and mean-field games. Imperfect-information
games load, but mctslab's engines search the full state: they see the hidden
cards; what a player may know comes from the state's
``information_state_string(player)``, ``observation_string(player)`` and
``resample_from_infostate(player, rng, model=None)``
(:class:`~mctslab.core.game.ImperfectInformationState`), delegated to ``pyspiel``
where the game provides them (``kuhn_poker`` and ``leduc_poker`` resample;
``liars_dice`` has information states but no resampling: it raises
:class:`~mctslab.core.errors.InvalidConfigError`). States have no ``key()``: ``str(state)`` does not always fix the future
(chess's FEN omits the positions seen before, which decide threefold
repetition), and a wrong transposition is worse than none; no ``heuristic()``
either.

``pyspiel`` is imported on first use: ``pip install 'mctslab[openspiel]'``.
"""

from __future__ import annotations

import contextlib
import difflib
import operator
import os
import sys
from collections.abc import Iterator, Sequence
from typing import Any, Self

from mctslab.core.errors import (
    IllegalActionError,
    InvalidConfigError,
    UnknownGameError,
    illegal_action_message,
)
from mctslab.core.game import TERMINAL, GameInfo, OpponentModel, draw_outcome
from mctslab.core.infoset import DEFAULT_MAX_TRIES, NoConsistentWorldError, sample_world
from mctslab.core.rng import Rng
from mctslab.core.text import ascii_int, is_ascii_digits

__all__ = [
    "PREFIX",
    "OpenSpielGame",
    "OpenSpielState",
    "game_parameters",
    "load",
    "openspiel_twin",
]

#: Registry names that start with this go to OpenSpiel.
PREFIX = "openspiel:"
#: An illegal-action message lists at most this many legal actions (Go has 362).
_SHOWN = 40
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")
_KIND_NAMES = {bool: "true or false", int: "an integer", float: "a number", str: "a string"}
_KIND_NAMES[dict] = "a game, e.g. goofspiel(num_cards=4)"


def import_pyspiel() -> Any:
    """``pyspiel``, or :class:`UnknownGameError` saying how to install it."""
    try:
        import pyspiel
    except ImportError:
        raise UnknownGameError(
            "OpenSpiel games need the openspiel extra: pip install 'mctslab[openspiel]'"
        ) from None
    return pyspiel


class OpenSpielGame:
    """An OpenSpiel game (``spiel_game``, a ``pyspiel.Game``) under mctslab's Game protocol."""

    def __init__(self, spiel_game: Any) -> None:
        pyspiel = import_pyspiel()
        game_type = spiel_game.get_type()
        name = _display_name(spiel_game)
        if game_type.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
            hint = ""
            if game_type.dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS:
                hint = (
                    "; play it move by move as "
                    f"{PREFIX}turn_based_simultaneous_game(game={name.removeprefix(PREFIX)})"
                )
            raise InvalidConfigError(
                f"{name}: mctslab plays games with sequential moves only, this one's moves are "
                f"{game_type.dynamics.name.lower()}{hint}"
            )
        chance = game_type.chance_mode != pyspiel.GameType.ChanceMode.DETERMINISTIC
        try:
            min_utility, max_utility = (
                float(spiel_game.min_utility()),
                float(spiel_game.max_utility()),
            )
            num_actions = spiel_game.num_distinct_actions()
            length = spiel_game.max_game_length()
            if chance:
                num_actions = max(num_actions, spiel_game.max_chance_outcomes())
                length += spiel_game.max_chance_nodes_in_history()
            # Some games check their parameters only here (go's board_size, for one).
            spiel_game.new_initial_state()
        except RuntimeError as err:  # pyspiel.SpielError
            raise InvalidConfigError(f"{name}: {_first_line(err)}") from None
        if not min_utility < max_utility:
            raise InvalidConfigError(
                f"{name}: min_utility {min_utility} must be below max_utility {max_utility}"
            )
        self.spiel_game = spiel_game
        #: Dice or deals (mctslab.core.game.has_chance_nodes): the compiled engine refuses them.
        self.chance_nodes = chance
        self.perfect_information = (
            game_type.information == pyspiel.GameType.Information.PERFECT_INFORMATION
        )
        self.provides_information_state_string = bool(game_type.provides_information_state_string)
        self.provides_observation_string = bool(game_type.provides_observation_string)
        # Whether pyspiel's ResampleFromInfostate works here: None until first tried
        # (pyspiel has no flag for it; the games that lack it raise SpielError).
        self.resamples: bool | None = True if self.perfect_information else None
        self._info = GameInfo(
            name=name,
            version=1,
            num_players=spiel_game.num_players(),
            num_actions=num_actions,
            max_game_length=length,
            zero_sum=game_type.utility == pyspiel.GameType.Utility.ZERO_SUM,
            min_utility=min_utility,
            max_utility=max_utility,
        )

    @property
    def info(self) -> GameInfo:
        return self._info

    def rules_key(self) -> str:
        """OpenSpiel's name of the game with its parameters (``nim(pile_sizes=1;3)``): what
        identifies its rules (:func:`mctslab.core.game.rules_fingerprint`)."""
        return str(self.spiel_game)

    def new_initial_state(self) -> OpenSpielState:
        return OpenSpielState(self, self.spiel_game.new_initial_state())

    def state_from_actions(self, actions: Sequence[int]) -> OpenSpielState:
        """The state reached by playing ``actions`` (each checked) from the start."""
        state = self.new_initial_state()
        for action in actions:
            state.apply_action(action)
        return state

    def __repr__(self) -> str:
        return f"<game {self._info.name}>"


class OpenSpielState:
    """A ``pyspiel.State`` under mctslab's State protocol; every action is checked.

    The legal actions are cached between moves: the engines ask for them and then
    apply one of them, and each ``pyspiel`` call costs a trip through pybind11.
    ``spiel_state`` is the wrapped state: change it only through this object.
    """

    __slots__ = ("_game", "_legal", "spiel_state")

    def __init__(self, game: OpenSpielGame, spiel_state: Any) -> None:
        self._game = game
        self.spiel_state = spiel_state
        self._legal: list[int] | None = None

    @property
    def game(self) -> OpenSpielGame:
        return self._game

    def current_player(self) -> int:
        # OpenSpiel's kTerminalPlayerId (-4) and kChancePlayerId (-1) are
        # mctslab's TERMINAL and CHANCE; simultaneous games (-2) were refused.
        return int(self.spiel_state.current_player())

    def is_terminal(self) -> bool:
        return bool(self.spiel_state.is_terminal())

    def legal_actions(self) -> list[int]:
        """Legal actions, ascending; at a chance node, the possible outcomes."""
        if self._legal is None:
            self._legal = list(self.spiel_state.legal_actions())
        return list(self._legal)

    def legal_actions_mask(self) -> list[bool]:
        mask = [False] * self._game.info.num_actions
        for a in self.legal_actions():
            mask[a] = True
        return mask

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``(outcome, probability)`` pairs at a chance node; empty elsewhere."""
        if not self.spiel_state.is_chance_node():
            return []
        return [(int(a), float(p)) for a, p in self.spiel_state.chance_outcomes()]

    def apply_action(self, action: int) -> None:
        legal = self.legal_actions() if self._legal is None else self._legal
        try:
            index = operator.index(action)  # an int or numpy integer, not 1.0 or "3"
        except TypeError:
            raise IllegalActionError(self._illegal_message(action, legal)) from None
        if index not in legal:
            raise IllegalActionError(self._illegal_message(action, legal))
        self.spiel_state.apply_action(index)
        self._legal = None

    def _illegal_message(self, action: object, legal: list[int]) -> str:
        name = self._game.info.name
        return illegal_action_message(name, f"{action!r}", legal, self.action_to_string, _SHOWN)

    def child(self, action: int) -> Self:
        new = self.clone()
        new.apply_action(action)
        return new

    def clone(self) -> Self:
        new = type(self)(self._game, self.spiel_state.clone())
        new._legal = self._legal  # never changed in place, so it can be shared
        return new

    def returns(self) -> list[float]:
        return [float(r) for r in self.spiel_state.returns()]

    def history(self) -> list[int]:
        return [int(a) for a in self.spiel_state.history()]

    def action_to_string(self, action: int) -> str:
        """OpenSpiel's name of ``action`` for the player to move (the id once the game is over)."""
        player = self.spiel_state.current_player()
        if player == TERMINAL:
            return str(action)  # pyspiel raises "Invalid player id -4"
        return str(self.spiel_state.action_to_string(player, action))

    def string_to_action(self, text: str) -> int:
        """The legal action named ``text`` (exactly, then ignoring case and spaces), or an id."""
        legal = self.legal_actions()
        names = {a: self.action_to_string(a) for a in legal}
        for a, name in names.items():
            if name == text:
                return a
        folded = _fold(text)
        for a, name in names.items():
            if _fold(name) == folded:
                return a
        stripped = text.strip()
        if is_ascii_digits(stripped):
            return int(stripped)
        shown = ", ".join(list(names.values())[:_SHOWN])
        raise IllegalActionError(
            f"unknown action {text!r} in {self._game.info.name}; legal actions: {shown or 'none'}"
        )

    # -- imperfect information (mctslab.core.game.ImperfectInformationState) -----------------

    def _check_player(self, player: int, what: str) -> int:
        n = self._game.info.num_players
        try:
            index = operator.index(player)
        except TypeError:
            index = -1
        if not 0 <= index < n:
            raise InvalidConfigError(
                f"{what}: player must be an integer in [0, {n}) in {self._game.info.name}, "
                f"got {player!r}"
            )
        return index

    def information_state_string(self, player: int) -> str:
        """What ``player`` knows (OpenSpiel's ``InformationStateString``: private cards
        and every public action, in order); equal for states ``player`` cannot tell apart.

        A perfect-information game without them (``pig``) gets OpenSpiel's
        ``history_str()``, what its perfect-information games use. Raises
        :class:`InvalidConfigError` if an imperfect-information game provides none.
        """
        index = self._check_player(player, "information_state_string")
        if not self._game.provides_information_state_string and self._game.perfect_information:
            return str(self.spiel_state.history_str())
        if not self._game.provides_information_state_string:
            raise InvalidConfigError(
                f"{self._game.info.name} provides no information state strings "
                "(OpenSpiel's game type says provides_information_state_string=False)"
            )
        try:
            return str(self.spiel_state.information_state_string(index))
        except RuntimeError as err:  # pyspiel.SpielError
            raise InvalidConfigError(f"{self._game.info.name}: {_first_line(err)}") from None

    def observation_string(self, player: int) -> str:
        """What ``player`` sees now (OpenSpiel's ``ObservationString``, without memory).

        Raises :class:`InvalidConfigError` if the game provides no observations.
        """
        index = self._check_player(player, "observation_string")
        if not self._game.provides_observation_string:
            raise InvalidConfigError(
                f"{self._game.info.name} provides no observation strings "
                "(OpenSpiel's game type says provides_observation_string=False)"
            )
        try:
            return str(self.spiel_state.observation_string(index))
        except RuntimeError as err:  # pyspiel.SpielError
            raise InvalidConfigError(f"{self._game.info.name}: {_first_line(err)}") from None

    def resample_from_infostate(
        self, player: int, rng: Rng, model: OpponentModel | None = None
    ) -> Self:
        """A full state ``player`` cannot tell from this one, drawn with ``rng``.

        Uniform draws are pyspiel's ``ResampleFromInfostate(player, sampler)`` with
        ``sampler`` = ``rng.random`` (so the same seed gives the same world); with a
        ``model`` they are reweighted by :func:`mctslab.core.infoset.sample_world`
        (rejection sampling). A perfect-information game returns a clone.

        pyspiel's draw is checked: where it fails or returns a world with another
        information state (``kuhn_poker`` before ``player``'s card is dealt, a
        ``leduc_poker`` showdown, whose information state holds the chips won), the
        world is drawn instead by replaying this history with fresh chance outcomes
        until ``player``'s information state is the same (exact for games whose
        hidden information is dealt by chance, as in these two). Raises
        :class:`InvalidConfigError` for a game whose pyspiel state cannot resample,
        :class:`~mctslab.core.infoset.NoConsistentWorldError` if no world is found.
        """
        index = self._check_player(player, "resample_from_infostate")
        if self._game.perfect_information:
            return sample_world(self.clone, index, rng, model)
        if self._game.resamples is False:
            raise self._no_resampling()
        return sample_world(lambda: self._resample_uniform(index, rng), index, rng, model)

    def _resample_uniform(self, player: int, rng: Rng) -> Self:
        """One uniform draw of a world ``player`` cannot tell from this one."""
        try:
            if self._game.resamples is None:
                # The first try on a game may fail: keep pyspiel's complaint off stderr.
                with _quiet_stderr():
                    spiel_state = self.spiel_state.resample_from_infostate(player, rng.random)
            else:
                spiel_state = self.spiel_state.resample_from_infostate(player, rng.random)
        except RuntimeError as err:  # pyspiel.SpielError
            if "not implemented" in str(err):  # "ResampleFromInfostate() not implemented."
                self._game.resamples = False
                raise self._no_resampling() from None
            spiel_state = None
        except (IndexError, ValueError):  # kuhn_poker before the player's card is dealt
            spiel_state = None
        else:
            self._game.resamples = True
        if spiel_state is None or not self._same_information(spiel_state, player):
            spiel_state = self._replay_chance(player, rng)
        return type(self)(self._game, spiel_state)

    def _same_information(self, spiel_state: Any, player: int) -> bool:
        if len(spiel_state.history()) != len(self.spiel_state.history()):
            return False
        if not self._game.provides_information_state_string:
            return True
        mine = self.spiel_state.information_state_string(player)
        return bool(spiel_state.information_state_string(player) == mine)

    def _replay_chance(self, player: int, rng: Rng) -> Any:
        """This history with fresh chance outcomes, redrawn until ``player`` sees the same."""
        if not self._game.provides_information_state_string:
            raise self._no_resampling()
        history = [int(a) for a in self.spiel_state.history()]
        for _ in range(DEFAULT_MAX_TRIES):
            state = self._game.spiel_game.new_initial_state()
            for action in history:
                if state.is_chance_node():
                    state.apply_action(draw_outcome(state.chance_outcomes(), rng))
                elif action in state.legal_actions():
                    state.apply_action(action)
                else:
                    break
            else:
                if self._same_information(state, player):
                    return state
        raise NoConsistentWorldError(
            f"{self._game.info.name}: no world consistent with player {player}'s information "
            f"state found in {DEFAULT_MAX_TRIES} draws"
        )

    def _no_resampling(self) -> InvalidConfigError:
        return InvalidConfigError(
            f"{self._game.info.name}: OpenSpiel cannot resample this game's states from an "
            "information state (its ResampleFromInfostate is not implemented); "
            "kuhn_poker and leduc_poker can"
        )

    def __str__(self) -> str:
        return str(self.spiel_state)

    def __repr__(self) -> str:
        return f"<{self._game.info.name} state after {self.history()}>"


@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
    """Silence file descriptor 2 (pyspiel writes SpielError's text there, from C++)."""
    fd = 2
    sys.stderr.flush()
    try:
        saved = os.dup(fd)
    except OSError:  # no stderr at all: nothing to silence
        yield
        return
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), fd)
            try:
                yield
            finally:
                os.dup2(saved, fd)
    finally:
        os.close(saved)


def _fold(text: str) -> str:
    return "".join(text.split()).lower()


def _first_line(err: BaseException) -> str:
    lines = str(err).strip().splitlines()
    return lines[0] if lines else type(err).__name__


def _display_name(spiel_game: Any) -> str:
    # str(game) is OpenSpiel's own game string: "go(board_size=9)", "tic_tac_toe()".
    return PREFIX + str(spiel_game).removesuffix("()")


def _parse(spec: str) -> tuple[str, dict[str, Any]]:
    """``"go(board_size=9)"`` -> ``("go", {"board_size": 9})`` in OpenSpiel's syntax."""
    pyspiel = import_pyspiel()
    spec = spec.strip()
    if not spec:
        raise UnknownGameError(f"give an OpenSpiel game after {PREFIX!r}, e.g. {PREFIX}tic_tac_toe")
    if "(" not in spec and ")" not in spec:
        return spec, {}
    # Checked here because pyspiel's parser writes its complaints to stderr.
    if spec.count("(") != spec.count(")") or not spec.endswith(")") or spec.startswith("("):
        raise InvalidConfigError(
            f"bad OpenSpiel game string {spec!r}: write name(key=value,...), e.g. go(board_size=9)"
        )
    params = dict(pyspiel.game_parameters_from_string(spec))
    return str(params.pop("name")), params


def _game_type(name: str) -> Any:
    """OpenSpiel's registered ``GameType`` of ``name``, or :class:`UnknownGameError`."""
    pyspiel = import_pyspiel()
    types = {t.short_name: t for t in pyspiel.registered_games()}
    if name not in types:
        close = difflib.get_close_matches(name, list(types), n=3)
        hint = f"did you mean {', '.join(close)}? " if close else ""
        raise UnknownGameError(
            f"unknown OpenSpiel game {name!r}; {hint}pyspiel.registered_names() lists all of them"
        )
    return types[name]


def game_parameters(spec: str) -> dict[str, Any]:
    """The parameters OpenSpiel game ``spec`` (``"go"``, without the prefix) takes, with defaults."""
    name, _ = _parse(spec)
    return dict(_game_type(name).parameter_specification)


def _coerce(game: str, key: str, value: Any, default: Any) -> Any:
    """``value`` as the type of OpenSpiel's ``default`` (OpenSpiel itself checks types strictly)."""

    def bad() -> InvalidConfigError:
        kind = _KIND_NAMES.get(type(default), "value")
        return InvalidConfigError(
            f"parameter {key!r} of OpenSpiel game {game!r} takes {kind}, got {value!r}"
        )

    if isinstance(default, bool):
        if isinstance(value, bool):
            return value
        if isinstance(value, int) and value in (0, 1):
            return bool(value)
        if isinstance(value, str) and value.strip().lower() in _TRUE + _FALSE:
            return value.strip().lower() in _TRUE
        raise bad()
    if isinstance(default, int):
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, str):
            number = ascii_int(value.strip(), signed=True)
            if number is None:
                raise bad()
            return number
        raise bad()
    if isinstance(default, float):
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
        if isinstance(value, str):
            try:
                return float(value.strip())
            except ValueError:
                raise bad() from None
        raise bad()
    if isinstance(default, str):
        if isinstance(value, str):
            return value
        if isinstance(value, int | float) and not isinstance(value, bool):
            return str(value)  # e.g. nim's pile_sizes=5 read as a number by the CLI
        raise bad()
    if isinstance(default, dict):  # a game inside a game, e.g. turn_based_simultaneous_game
        if isinstance(value, dict):
            return value
        if isinstance(value, str):
            inner, params = _parse(value)
            _game_type(inner)
            return {"name": inner, **params}
        raise bad()
    return value


def load(spec: str, **params: Any) -> OpenSpielGame:
    """The OpenSpiel game ``spec`` (without the ``openspiel:`` prefix), parameters merged in.

    Raises :class:`UnknownGameError` for a name OpenSpiel does not know (or when
    ``pyspiel`` is missing) and :class:`InvalidConfigError` for a bad parameter or a
    game mctslab cannot play.
    """
    name, parsed = _parse(spec)
    game_type = _game_type(name)
    merged = {**parsed, **params}
    valid = dict(game_type.parameter_specification)
    for key in merged:
        if key not in valid:
            names = ", ".join(sorted(valid)) or "none"
            raise InvalidConfigError(
                f"unknown parameter {key!r} for OpenSpiel game {name!r}; valid parameters: {names}"
            )
    typed = {k: _coerce(name, k, v, valid[k]) for k, v in merged.items()}
    pyspiel = import_pyspiel()
    try:
        spiel_game = pyspiel.load_game(name, typed)
    except RuntimeError as err:  # pyspiel.SpielError
        raise InvalidConfigError(
            f"bad parameters for OpenSpiel game {name!r}: {_first_line(err)}"
        ) from None
    return OpenSpielGame(spiel_game)


def openspiel_twin(game: object) -> Any | None:
    """The ``pyspiel.Game`` with the same rules and action ids as ``game``, or ``None``.

    An :class:`OpenSpielGame` is its own twin; mctslab's ``tic_tac_toe``,
    ``connect_four`` (any ``rows``, ``columns``, ``x_in_row``) and ``nim``
    (without a take limit, or one no pile reaches) have OpenSpiel twins, checked move by move in
    ``tests/games/test_openspiel_differential.py``. Bachet's game (a take limit) and
    games from elsewhere have none.
    """
    if isinstance(game, OpenSpielGame):
        return game.spiel_game
    from mctslab.games.connect_four import ConnectFour
    from mctslab.games.nim import Nim
    from mctslab.games.tic_tac_toe import TicTacToe

    params: dict[str, Any]
    if isinstance(game, TicTacToe):
        return import_pyspiel().load_game("tic_tac_toe")
    if isinstance(game, ConnectFour):
        params = {"rows": game.rows, "columns": game.columns, "x_in_row": game.x_in_row}
        return import_pyspiel().load_game("connect_four", params)
    if isinstance(game, Nim) and game.info.name == "nim" and _no_take_limit(game):
        # OpenSpiel's nim defaults to misère: pass is_misere always.
        params = {"pile_sizes": ";".join(map(str, game.piles)), "is_misere": game.misere}
        return import_pyspiel().load_game("nim", params)
    return None


def _no_take_limit(game: Any) -> bool:
    return game.max_take is None or game.max_take >= max(game.piles)
