"""OpenSpiel's own bots as mctslab players: ``openspiel-mcts`` and ``openspiel-random``.

The reverse of :mod:`mctslab.games.openspiel`: there mctslab's engines play
OpenSpiel's games, here OpenSpiel's bots play mctslab's games, so that an arena
can set mctslab's engines against a well-known outside reference. Spec strings::

    openspiel-mcts:uct_c=2,simulations=1000,solve=1,seed=3
    openspiel-mcts:backend=python,rollouts=4
    openspiel-random:seed=7

``openspiel-mcts`` picks OpenSpiel's MCTS by what the game is:

* an OpenSpiel game (``openspiel:...``) or an mctslab game with an OpenSpiel twin
  of the same rules and action ids (``tic_tac_toe``, ``connect_four``, ``nim``
  without a take limit; see :func:`mctslab.games.openspiel.openspiel_twin`):
  the C++ ``pyspiel.MCTSBot`` with ``pyspiel.RandomRolloutEvaluator``, on a
  ``pyspiel`` state rebuilt from ``state.history()`` at every move;
* any other game (``examples/hexapawn.py``, a user's game): the Python
  ``open_spiel.python.algorithms.mcts.MCTSBot`` with its
  ``RandomRolloutEvaluator``, run directly on the mctslab state through
  :class:`SpielStateView`, which gives it ``pyspiel.State``'s method names.

``backend=cpp`` or ``backend=python`` forces one (``auto`` is the default).
The search starts afresh at every move (OpenSpiel's bots keep no tree between
moves), so ``inform`` has nothing to do and a player can join a game midway.

Options, as OpenSpiel names them: ``uct_c`` (2.0; on rewards in ``[-1, 1]``:
mctslab's ``c`` is ``uct_c / 2``), ``simulations`` (alias ``max_simulations``;
1000), ``rollouts`` (random rollouts per leaf; 1), ``solve`` (MCTS-Solver; 1),
``max_memory_mb`` (the C++ tree's limit; 1000; the Python bot has none) and
``seed``. There is no time budget: the Python bot has none, so neither has the
player, whichever bot runs.

Seeds: every random choice flows from the seed (the spec's ``seed``, else the
one given to :func:`~mctslab.players.player.make_player`), taken modulo ``2**31``
because the C++ bot takes a 32-bit ``int``. The C++ bot and its evaluator get
that seed, as ``pyspiel`` takes them; the Python bot and its evaluator share
one ``numpy.random.RandomState``, as OpenSpiel's ``examples/mcts.py`` does.
``openspiel-random`` is OpenSpiel's Python ``UniformRandomBot`` with a seeded
``RandomState``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

from mctslab.core.errors import InvalidConfigError, InvalidSpecError, UnknownGameError
from mctslab.core.game import CHANCE, TERMINAL, GameInfo, State
from mctslab.core.options import option
from mctslab.core.player_kinds import PlayerKind, spec_config

__all__ = [
    "KINDS",
    "PLAYER_KINDS",
    "OpenSpielMCTSConfig",
    "OpenSpielMCTSPlayer",
    "OpenSpielRandomPlayer",
    "SpielGameView",
    "SpielStateView",
    "make_openspiel_player",
]

#: The player kinds of this module, as spec strings name them.
KINDS = ("openspiel-mcts", "openspiel-random")
Backend = Literal["auto", "cpp", "python"]
_BACKENDS = ("auto", "cpp", "python")
_SEED_MODULUS = 2**31  # the C++ MCTSBot's seed is a C++ int


def _pyspiel() -> Any:
    """``pyspiel``, or :class:`InvalidSpecError` saying how to install it."""
    try:
        import pyspiel
    except ImportError:
        raise InvalidSpecError(
            "OpenSpiel players need the openspiel extra: pip install 'mctslab[openspiel]'"
        ) from None
    return pyspiel


def _twin(state: State) -> Any | None:
    """The OpenSpiel game with ``state``'s rules and action ids, or ``None``."""
    from mctslab.games.openspiel import openspiel_twin

    return openspiel_twin(getattr(state, "game", None))


def _spiel_state(twin: Any, state: State) -> Any:
    """``state`` as a ``pyspiel.State`` of ``twin``: the wrapped one, or replayed from history."""
    from mctslab.games.openspiel import OpenSpielState

    if isinstance(state, OpenSpielState) and state.game.spiel_game is twin:
        return state.spiel_state.clone()
    spiel_state = twin.new_initial_state()
    for action in state.history():
        spiel_state.apply_action(action)
    return spiel_state


def _check_turn(state: State, who: str) -> None:
    player = state.current_player()
    if player == TERMINAL:
        raise InvalidConfigError(f"{who}: the game is over, there is no move to choose")
    if player == CHANCE:
        raise InvalidConfigError(f"{who}: a chance node is not a player's turn")


class SpielStateView:
    """An mctslab :class:`~mctslab.core.game.State` under ``pyspiel.State``'s method names.

    What OpenSpiel's Python bots call: ``current_player``, ``is_terminal``,
    ``is_chance_node``, ``legal_actions(player)`` (empty for a player not to
    move, as in ``pyspiel``), ``chance_outcomes``, ``apply_action`` (numpy
    integers accepted), ``clone``, ``returns``, ``history`` and
    ``action_to_string(player, action)``. Applying an action changes the
    wrapped state.
    """

    __slots__ = ("state",)

    def __init__(self, state: State) -> None:
        self.state = state

    def current_player(self) -> int:
        return self.state.current_player()

    def is_terminal(self) -> bool:
        return self.state.is_terminal()

    def is_chance_node(self) -> bool:
        return self.state.current_player() == CHANCE

    def is_simultaneous_node(self) -> bool:
        return False

    def is_player_node(self) -> bool:
        return self.state.current_player() >= 0

    def legal_actions(self, player: int | None = None) -> list[int]:
        if player is not None and player != self.state.current_player():
            return []
        return self.state.legal_actions()

    def legal_actions_mask(self, player: int | None = None) -> list[int]:
        if player is not None and player != self.state.current_player():
            return [0] * len(self.state.legal_actions_mask())
        return [int(m) for m in self.state.legal_actions_mask()]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return list(self.state.chance_outcomes())  # type: ignore[attr-defined]

    def apply_action(self, action: int) -> None:
        self.state.apply_action(int(action))  # the bots draw numpy integers

    def clone(self) -> SpielStateView:
        return SpielStateView(self.state.clone())

    def child(self, action: int) -> SpielStateView:
        return SpielStateView(self.state.child(int(action)))

    def returns(self) -> list[float]:
        return self.state.returns()

    def history(self) -> list[int]:
        return self.state.history()

    def action_to_string(self, *args: int) -> str:
        """``action_to_string(action)`` or ``action_to_string(player, action)``."""
        return self.state.action_to_string(int(args[-1]))

    def __str__(self) -> str:
        return str(self.state)


@dataclass(frozen=True)
class _GameTypeView:
    """The fields of ``pyspiel.GameType`` that OpenSpiel's Python MCTSBot checks."""

    short_name: str
    dynamics: Any
    reward_model: Any
    utility: Any
    chance_mode: Any


class SpielGameView:
    """An mctslab :class:`~mctslab.core.game.GameInfo` under ``pyspiel.Game``'s method names.

    OpenSpiel's Python ``MCTSBot`` reads ``get_type().reward_model`` and
    ``.dynamics`` (it takes terminal rewards and sequential moves, what every
    mctslab game has) and ``max_utility()`` (a proven win reaches it).
    """

    def __init__(self, info: GameInfo) -> None:
        pyspiel = _pyspiel()
        gt = pyspiel.GameType
        self.info = info
        self._type = _GameTypeView(
            short_name=info.name,
            dynamics=gt.Dynamics.SEQUENTIAL,
            reward_model=gt.RewardModel.TERMINAL,
            utility=gt.Utility.ZERO_SUM if info.zero_sum else gt.Utility.GENERAL_SUM,
            chance_mode=gt.ChanceMode.EXPLICIT_STOCHASTIC,  # the view cannot know: allow it
        )

    def get_type(self) -> _GameTypeView:
        return self._type

    def num_players(self) -> int:
        return self.info.num_players

    def num_distinct_actions(self) -> int:
        return self.info.num_actions

    def max_game_length(self) -> int:
        return self.info.max_game_length

    def min_utility(self) -> float:
        return self.info.min_utility

    def max_utility(self) -> float:
        return self.info.max_utility

    def __str__(self) -> str:
        return self.info.name


@dataclass(frozen=True)
class OpenSpielMCTSConfig:
    """The options of ``openspiel-mcts`` (see the module docstring); checked on construction."""

    uct_c: float = option(
        2.0, "the exploration constant, on rewards in [-1, 1]", low=0, high=math.inf,
        high_open=True, check=False,
    )  # fmt: skip
    simulations: int = option(
        1000, "simulations a move", low=1, aliases=("max_simulations",), check=False
    )
    rollouts: int = option(1, "random rollouts a leaf", low=1, aliases=("n_rollouts",), check=False)
    solve: bool = option(True, "MCTS-Solver: back proven values up", check=False)
    max_memory_mb: int = option(1000, "the C++ tree's memory limit (MB)", low=1, check=False)
    seed: int = option(0, "the bot's seed (else the one make_player is given)", check=False)
    backend: Backend = option("auto", "cpp, python or auto (cpp where it can)", check=False)

    def __post_init__(self) -> None:
        def bad(msg: str) -> InvalidConfigError:
            return InvalidConfigError(f"openspiel-mcts: {msg}")

        if not isinstance(self.uct_c, int | float) or not 0 <= self.uct_c < float("inf"):
            raise bad(f"uct_c must be a finite number >= 0, got {self.uct_c!r}")
        for name in ("simulations", "rollouts", "max_memory_mb"):
            value = getattr(self, name)
            if not _is_int(value) or value < 1:
                raise bad(f"{name} must be a positive integer, got {value!r}")
        if not _is_int(self.seed):
            raise bad(f"seed must be an integer, got {self.seed!r}")
        if self.backend not in _BACKENDS:
            raise bad(f"backend must be one of {', '.join(_BACKENDS)}, got {self.backend!r}")


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


class OpenSpielMCTSPlayer:
    """OpenSpiel's MCTS (the C++ bot on games with an OpenSpiel twin, else the Python one).

    The bot is made at the first move, when the game is known, and kept while
    the game stays the same, so its random stream runs on from move to move.
    """

    def __init__(self, info: GameInfo, config: OpenSpielMCTSConfig | None = None) -> None:
        _pyspiel()
        self.name = "openspiel-mcts"
        self.info = info
        self.config = config or OpenSpielMCTSConfig()
        self.backend: str | None = None  # "cpp" or "python" once the first move is chosen
        self._game: object = None
        self._twin: Any = None
        self._bot: Any = None
        self._evaluator: Any = None  # kept alive beside the C++ bot that points to it

    def choose(self, state: State) -> int:
        _check_turn(state, self.name)
        self._prepare(state)
        if self._twin is not None:  # either bot, on pyspiel's own state
            action = self._bot.step(_spiel_state(self._twin, state))
        else:
            action = self._bot.step(SpielStateView(state.clone()))
        return int(action)

    def _prepare(self, state: State) -> None:
        """Make the bot for ``state``'s game unless the one made before still fits."""
        game = getattr(state, "game", None)
        if self._bot is not None and (game is None or game is self._game):
            return
        config, pyspiel = self.config, _pyspiel()
        try:
            twin = _twin(state)
        except UnknownGameError as err:  # pyspiel missing: already checked, but be precise
            raise InvalidSpecError(str(err)) from None
        if config.backend == "cpp" and twin is None:
            raise InvalidConfigError(
                f"openspiel-mcts backend=cpp needs an OpenSpiel game or an mctslab game with an "
                f"OpenSpiel twin (tic_tac_toe, connect_four, nim); {self.info.name} has none: "
                "use backend=python"
            )
        seed = config.seed % _SEED_MODULUS
        self._game = game
        if twin is not None and config.backend != "python":
            self.backend = "cpp"
            self._twin = twin
            self._evaluator = pyspiel.RandomRolloutEvaluator(config.rollouts, seed)
            self._bot = pyspiel.MCTSBot(
                twin,
                self._evaluator,
                float(config.uct_c),
                config.simulations,
                config.max_memory_mb,
                config.solve,
                seed,
                False,  # verbose
            )
            return
        import numpy as np
        from open_spiel.python.algorithms import mcts

        self.backend = "python"
        self._twin = twin  # the Python bot is faster on pyspiel's own states where it can
        rng = np.random.RandomState(seed)
        self._evaluator = mcts.RandomRolloutEvaluator(config.rollouts, random_state=rng)
        bot_game = twin if twin is not None else SpielGameView(self.info)
        self._bot = mcts.MCTSBot(
            bot_game,
            float(config.uct_c),
            config.simulations,
            self._evaluator,
            solve=config.solve,
            random_state=rng,
        )

    def inform(self, action: int) -> None:
        pass  # every search starts afresh from state.history()


class OpenSpielRandomPlayer:
    """OpenSpiel's Python ``UniformRandomBot``: a uniformly random legal move, seeded."""

    def __init__(self, seed: int = 0) -> None:
        _pyspiel()
        import numpy as np

        self.name = "openspiel-random"
        self.rng = np.random.RandomState(seed % _SEED_MODULUS)

    def choose(self, state: State) -> int:
        from open_spiel.python.bots.uniform_random import UniformRandomBot

        _check_turn(state, self.name)
        # The bot is bound to a player id; the generator, shared, carries the randomness.
        bot = UniformRandomBot(state.current_player(), self.rng)
        return int(bot.step(SpielStateView(state)))

    def inform(self, action: int) -> None:
        pass


@dataclass(frozen=True)
class OpenSpielRandomOptions:
    """The options of ``openspiel-random``."""

    seed: int = option(0, "the bot's seed (else the one make_player is given)")


def openspiel_mcts_config(options: dict[str, str], seed: int = 0) -> OpenSpielMCTSConfig:
    """An :class:`OpenSpielMCTSConfig` from raw ``key=value`` options, read by its option
    schema (:func:`~mctslab.core.player_kinds.spec_config`: unknown keys and bad values are
    :class:`InvalidSpecError`)."""
    if "time" in options:
        raise InvalidSpecError(
            "unknown openspiel-mcts option 'time' (OpenSpiel's MCTS has no time budget: "
            "give simulations)"
        )
    return spec_config("openspiel-mcts", OpenSpielMCTSConfig, options, seed=seed)


def make_openspiel_player(
    kind: str, options: dict[str, str], info: GameInfo, seed: int = 0
) -> OpenSpielMCTSPlayer | OpenSpielRandomPlayer:
    """The player of ``kind`` (one of :data:`KINDS`) from a parsed spec string.

    ``seed`` seeds the player unless the options set their own.
    """
    if kind == "openspiel-mcts":
        return OpenSpielMCTSPlayer(info, openspiel_mcts_config(options, seed))
    if kind == "openspiel-random":
        return OpenSpielRandomPlayer(
            spec_config("openspiel-random", OpenSpielRandomOptions, options, seed=seed).seed
        )
    raise InvalidSpecError(f"unknown OpenSpiel player {kind!r}; valid: {', '.join(KINDS)}")


def _mcts_player(options: dict[str, str], info: GameInfo, seed: int) -> OpenSpielMCTSPlayer:
    return OpenSpielMCTSPlayer(info, openspiel_mcts_config(options, seed))


def _random_player(options: dict[str, str], info: GameInfo, seed: int) -> OpenSpielRandomPlayer:
    made = make_openspiel_player("openspiel-random", options, info, seed)
    assert isinstance(made, OpenSpielRandomPlayer)
    return made


#: This module's player kinds (:data:`KINDS`; pyspiel is imported only when one is made).
#: OpenSpiel's MCTSBot searches the full state it is given: it reads hidden information.
PLAYER_KINDS = (
    PlayerKind(
        "openspiel-mcts",
        _mcts_player,
        reads_hidden_information=True,
        options=(OpenSpielMCTSConfig,),
        help="OpenSpiel's MCTSBot (C++ where the game has an OpenSpiel twin, else Python)",
    ),
    PlayerKind(
        "openspiel-random",
        _random_player,
        reads_hidden_information=False,
        options=(OpenSpielRandomOptions,),
        help="OpenSpiel's UniformRandomBot, seeded",
    ),
)
