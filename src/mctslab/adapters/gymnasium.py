"""mctslab's single-player games as Gymnasium environments.

:func:`env` gives a one-player mctslab game (the TSP, SameGame, Morpion Solitaire, or a
user's) as a :class:`gymnasium.Env` (Gymnasium 1.4, the ``gymnasium`` extra)::

    from mctslab.adapters import gymnasium as mg

    env = mg.env("tsp")
    observation, info = env.reset(seed=0)
    terminated = False
    while not terminated:
        action = env.action_space.sample()          # a legal action, always
        observation, reward, terminated, truncated, info = env.step(action)
    print(reward)                                   # the tour's return, -(its length)

:func:`register_envs` registers them with Gymnasium (``gymnasium.make("mctslab/tsp-v1")``,
the id's version the game's ``info.version``).

What the environment is:

- action space ``Discrete(num_actions)`` (:class:`LegalActions`): the game's action ids;
  its ``sample()`` without a mask draws a *legal* action of the position the environment
  is in (``sample(mask)`` draws as Gymnasium's does), so a random agent and Gymnasium's
  ``check_env``, which steps ``action_space.sample()``, play legal moves;
- ``info["action_mask"]``: the ``int8`` mask of the legal actions, after every reset and
  step;
- observation: :mod:`mctslab.adapters.observations`' encoding for player 0 (these three
  games have no tensor: the actions played, padded with ``-1``);
- reward: the change of ``state.returns()[0]`` made by the step. The games' returns are
  zero until the end, so the last step's reward is the final score (the TSP: minus the
  tour's length; SameGame: the points; Morpion Solitaire: the lines drawn) and every
  other step's is 0: the episode's return is the game's score, as mctslab's searches
  count it. ``terminated`` at the end of the game; ``truncated`` never (every game ends
  within its ``max_game_length``);
- an illegal action ends the episode (``terminated``, as pgx's environments do) with
  ``illegal_reward``, by default the game's ``min_utility``, the worst return it has
  (the TSP's longest-tour bound, SameGame's and Morpion's 0): the episode's return is
  then the worst there is; ``info["illegal_action"]`` is true. ``on_illegal="raise"``
  raises :class:`~mctslab.core.errors.IllegalActionError` instead, naming the legal
  actions (PettingZoo's adapter raises by default: its agents always act from a mask).
  Ending rather than raising by default keeps an agent that does not read the mask
  (and Gymnasium's ``check_env``, which samples an action in one position and plays it
  after a reset, in another) inside the episode's rules;
- chance, in a game that has it, is drawn from ``reset(seed=...)``'s seed by mctslab's
  :class:`~mctslab.core.rng.Rng`; ``reset()`` without one draws on (the first from 0);
- ``render()``: ``"ansi"`` the text board, ``"human"`` prints it, ``"rgb_array"`` a
  picture for the games that draw one (the TSP's tour).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from mctslab.adapters import frames
from mctslab.adapters.observations import DEFAULT_OBSERVATION_BYTES, Encoding, action_mask
from mctslab.core.errors import IllegalActionError, InvalidConfigError, illegal_action_message
from mctslab.core.game import CHANCE, Game, State, draw_outcome
from mctslab.core.registry import available_games, make
from mctslab.core.rng import Rng

__all__ = ["LegalActions", "MctslabEnv", "env", "env_id", "register_envs"]

#: Gymnasium's namespace of the registered environments.
NAMESPACE = "mctslab"


class LegalActions(spaces.Discrete):
    """``Discrete(n)`` whose ``sample()`` without a mask draws among the legal actions of
    the environment's position (``legal()``'s mask); with a mask or probabilities it
    samples as :class:`gymnasium.spaces.Discrete` does. ``contains`` is Discrete's: every
    action id is in the space, legal or not (the environment judges legality)."""

    def __init__(self, n: int, legal: Any, seed: int | None = None) -> None:
        super().__init__(n, seed=seed)
        self._legal = legal

    def sample(
        self,
        mask: np.ndarray[Any, Any] | None = None,
        probability: np.ndarray[Any, Any] | None = None,
    ) -> np.int64:
        """A legal action of the current position (``mask``: one allowed by ``mask``)."""
        if mask is None and probability is None:
            mask = self._legal()
        return super().sample(mask=mask, probability=probability)


class MctslabEnv(gymnasium.Env[np.ndarray, np.int64]):
    """A single-player mctslab game as a Gymnasium environment (the module's docstring
    says what it observes and rewards).

    Args:
        game: a registered game's name, or a made game; it must have one player.
        render_mode: ``None``, ``"human"``, ``"ansi"`` or (games with a picture)
            ``"rgb_array"``.
        on_illegal: ``"end"``: an illegal action ends the episode with
            ``illegal_reward``; ``"raise"``: it raises
            :class:`~mctslab.core.errors.IllegalActionError`.
        illegal_reward: the reward of an illegal action under ``"end"`` (``None``: the
            game's ``min_utility``).
        observation_bytes: the length of an information-state observation (a game with
            hidden information and no tensor).
        **params: the game's parameters (``instance="berlin52"`` for the TSP).
    """

    # Every mode a game may offer (gymnasium.make reads the class's); each instance says its own.
    metadata: dict[str, Any] = {"render_modes": ["human", "ansi", "rgb_array"], "render_fps": 1}  # noqa: RUF012

    def __init__(
        self,
        game: str | Game = "tsp",
        render_mode: str | None = None,
        on_illegal: str = "end",
        illegal_reward: float | None = None,
        observation_bytes: int = DEFAULT_OBSERVATION_BYTES,
        **params: Any,
    ) -> None:
        self.game = make(game, **params) if isinstance(game, str) else game
        if not isinstance(game, str) and params:
            raise InvalidConfigError("game parameters go with a game's name, not a made game")
        info = self.game.info
        if info.num_players != 1:
            raise InvalidConfigError(
                f"{info.name} has {info.num_players} players; a Gymnasium environment "
                "plays a single-player game (mctslab.adapters.pettingzoo.env plays the others)"
            )
        modes = ["human", "ansi", "rgb_array"] if frames.can_draw(self.game) else ["human", "ansi"]
        if render_mode is not None and render_mode not in modes:
            raise InvalidConfigError(
                f"unknown render_mode {render_mode!r} for {info.name}; modes: {', '.join(modes)}"
            )
        self.metadata = {"render_modes": modes, "render_fps": 1}
        self.render_mode = render_mode
        if on_illegal not in ("end", "raise"):
            raise InvalidConfigError(f"on_illegal must be 'end' or 'raise', got {on_illegal!r}")
        if isinstance(illegal_reward, bool) or not isinstance(illegal_reward, int | float | None):
            raise InvalidConfigError(f"illegal_reward must be a number, got {illegal_reward!r}")
        self.on_illegal = on_illegal
        self.illegal_reward = float(info.min_utility if illegal_reward is None else illegal_reward)
        self.encoding = Encoding(self.game, observation_bytes)
        self.observation_space = self.encoding.space
        self.action_space = LegalActions(info.num_actions, self._mask)
        self._rng = Rng(0)
        self._state: State = self.game.new_initial_state()
        self._ended_by_illegal = False
        self._resolve_chance()

    @property
    def mctslab_state(self) -> State:
        """The mctslab state the environment is in (not a copy: clone it to change it)."""
        return self._state

    def _mask(self) -> np.ndarray[Any, Any]:
        """The legal actions' mask (all zeros once the episode is over)."""
        return action_mask(self._state, self.game.info.num_actions, not self._ended_by_illegal)

    def _resolve_chance(self) -> None:
        """Play chance's outcomes, each drawn by its probability, until the player moves."""
        while self._state.current_player() == CHANCE:
            outcomes = self._state.chance_outcomes()  # type: ignore[attr-defined]
            self._state.apply_action(draw_outcome(outcomes, self._rng))

    def _observation(self) -> np.ndarray[Any, Any]:
        return self.encoding.encode(self._state, 0)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray[Any, Any], dict[str, Any]]:
        """A new game: chance drawn from ``seed`` (``None``: the generator goes on)."""
        super().reset(seed=seed)
        if seed is not None:
            self._rng = Rng(int(seed))
        self._state = self.game.new_initial_state()
        self._ended_by_illegal = False
        self._resolve_chance()
        if self.render_mode == "human":
            self.render()
        return self._observation(), {"action_mask": self._mask()}

    def step(self, action: Any) -> tuple[np.ndarray[Any, Any], float, bool, bool, dict[str, Any]]:
        """Play ``action``: the observation, the reward (the change of the return), whether
        the game ended, ``False`` (never truncated) and the info with the action mask."""
        legal = [] if self._ended_by_illegal else self._state.legal_actions()
        valid = isinstance(action, int | np.integer) and not isinstance(action, bool)
        if not (valid and int(action) in legal):
            message = illegal_action_message(
                self.game.info.name, repr(action), legal, self._state.action_to_string, limit=20
            )
            if self.on_illegal == "raise" or not legal:
                raise IllegalActionError(message)
            # The game is left as it was; the episode is over (a step after it raises).
            self._ended_by_illegal = True
            mask = np.zeros(self.game.info.num_actions, dtype=np.int8)
            info = {"action_mask": mask, "illegal_action": True}
            return self._observation(), self.illegal_reward, True, False, info
        before = self._state.returns()[0]
        self._state.apply_action(int(action))
        self._resolve_chance()
        reward = float(self._state.returns()[0] - before)
        if self.render_mode == "human":
            self.render()
        terminated = self._state.is_terminal()
        return self._observation(), reward, terminated, False, {"action_mask": self._mask()}

    def render(self) -> str | np.ndarray[Any, Any] | None:  # type: ignore[override]
        """The position: text (``"ansi"``; ``"human"`` prints it and returns ``None``) or
        an RGB array (``"rgb_array"``); ``None`` without a render mode."""
        if self.render_mode is None:
            return None
        if self.render_mode == "rgb_array":
            return frames.draw(self.game, self._state)
        text = frames.state_text(self._state)
        if self.render_mode == "human":
            print(text)
            return None
        return text


def env(game: str | Game = "tsp", render_mode: str | None = None, **kwargs: Any) -> MctslabEnv:
    """The single-player ``game`` as a Gymnasium environment (:class:`MctslabEnv`;
    ``kwargs``: its ``on_illegal``, ``illegal_reward``, ``observation_bytes`` and the game's parameters)."""
    return MctslabEnv(game, render_mode, **kwargs)


def env_id(game: str | Game) -> str:
    """The Gymnasium id of ``game``'s environment: ``"mctslab/<name>-v<version>"``."""
    info = (make(game) if isinstance(game, str) else game).info
    return f"{NAMESPACE}/{info.name}-v{info.version}"


def register_envs(games: Sequence[str] | None = None) -> list[str]:
    """Register ``games`` (default: every registered game with one player) with
    Gymnasium and return their ids; registering one again changes nothing.

    >>> import gymnasium
    >>> register_envs(["tsp"])
    ['mctslab/tsp-v1']
    >>> gymnasium.make("mctslab/tsp-v1").unwrapped.game.info.name
    'tsp'
    """
    names = list(games) if games is not None else available_games()
    ids = []
    for name in names:
        game = make(name)
        if games is None and game.info.num_players != 1:
            continue
        if game.info.num_players != 1:
            raise InvalidConfigError(f"{name} has {game.info.num_players} players, not one")
        gid = env_id(game)
        if gid not in gymnasium.registry:
            gymnasium.register(
                id=gid,
                entry_point=f"{__name__}:MctslabEnv",
                kwargs={"game": name},
                disable_env_checker=False,
            )
        ids.append(gid)
    return ids
