"""mctslab's games as PettingZoo AEC environments, and its search as a PettingZoo policy.

:func:`env` gives any mctslab game (``mctslab.make(name, **params)``) as a
:class:`pettingzoo.AECEnv` (PettingZoo 1.27, the ``pettingzoo`` extra)::

    from mctslab.adapters import pettingzoo as mz

    env = mz.env("connect_four", render_mode="ansi")
    env.reset(seed=1)
    policy = mz.MCTSPolicy(env, budget=500, seed=0)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else policy.act(observation, agent)
        env.step(action)

What the environment is:

- agents ``"player_0"``, ``"player_1"``, ... (player ``i`` of the game), acting in the
  order the game says (``state.current_player()``: not always alternating, as in Pig);
- action space ``Discrete(num_actions)``, the game's action ids;
- observation ``{"observation": ..., "action_mask": ...}``, the mask ``int8`` over the
  actions (zeros for an agent who is not to move), the observation what the agent sees
  (:mod:`mctslab.adapters.observations`: the game's tensor for the agent, else the
  history, else the agent's information state as bytes);
- rewards: after each step every agent gets the change of its ``state.returns()``; a
  game's returns are zero until its end, so each agent's reward is its final return,
  given on the last step (a game whose returns moved during play would give them as
  they move). ``terminations`` all become true at the end; ``truncations`` stay false
  (every game ends within its ``max_game_length``);
- chance (the deal of Kuhn poker and Knockout Whist, Pig's die) is resolved inside the
  environment, from ``reset(seed=...)``'s seed through mctslab's
  :class:`~mctslab.core.rng.Rng` (:func:`~mctslab.core.game.draw_outcome`): agents only
  ever see their own turns. ``reset()`` without a seed draws on from where the previous
  episode stopped (the first one from seed 0), so every run replays from its seeds;
- an illegal action raises :class:`~mctslab.core.errors.IllegalActionError` naming the
  agent and the legal actions; ``env(..., illegal_reward=-1)`` instead ends the game
  with that reward to the offender (PettingZoo's ``TerminateIllegalWrapper``, as its
  classic games do);
- ``render()``: ``"ansi"`` returns the position's text, ``"human"`` prints it,
  ``"rgb_array"`` (tic-tac-toe, Connect Four, Go) returns a picture
  (:mod:`mctslab.adapters.frames`).

:class:`MCTSPolicy` plays an agent's moves with mctslab's search
(:func:`mctslab.search`) from the environment's own state.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv  # type: ignore[import-untyped]
from pettingzoo.utils import wrappers  # type: ignore[import-untyped]

from mctslab.adapters import frames
from mctslab.adapters.observations import (
    DEFAULT_OBSERVATION_BYTES,
    Encoding,
    action_mask,
    mask_space,
)
from mctslab.core.errors import IllegalActionError, InvalidConfigError, illegal_action_message
from mctslab.core.game import CHANCE, Game, State, draw_outcome
from mctslab.core.infoset import is_perfect_information
from mctslab.core.registry import make
from mctslab.core.rng import Rng
from mctslab.search.config import SearchConfig
from mctslab.search.engine import search
from mctslab.search.result import SearchResult

__all__ = ["MCTSPolicy", "MctslabAECEnv", "agent_name", "env", "raw_env"]


def agent_name(player: int) -> str:
    """The agent of the game's player ``player``: ``"player_0"``, ``"player_1"``, ..."""
    return f"player_{player}"


def render_modes(game: object) -> list[str]:
    """The render modes of ``game``'s environment: ``"human"`` and ``"ansi"`` for every
    game, ``"rgb_array"`` for those :func:`mctslab.adapters.frames.can_draw` draws."""
    return ["human", "ansi", "rgb_array"] if frames.can_draw(game) else ["human", "ansi"]


def make_game(game: str | Game, params: dict[str, Any]) -> Game:
    """``game`` made with ``params`` (a registered name) or taken as it is (a game)."""
    if isinstance(game, str):
        return make(game, **params)
    if params:
        raise InvalidConfigError("game parameters go with a game's name, not a made game")
    return game


def check_render_mode(game: object, render_mode: str | None) -> None:
    """Refuse a ``render_mode`` that ``game``'s environment does not offer."""
    modes = render_modes(game)
    if render_mode is not None and render_mode not in modes:
        name = getattr(getattr(game, "info", None), "name", "the game")
        raise InvalidConfigError(
            f"unknown render_mode {render_mode!r} for {name}; modes: {', '.join(modes)}"
        )


class MctslabAECEnv(AECEnv):  # type: ignore[misc]
    """An mctslab game as a PettingZoo AEC environment (the module's docstring says what
    it observes, rewards and renders).

    Args:
        game: a registered game's name, or a made game.
        render_mode: ``None``, ``"human"``, ``"ansi"`` or (games with a board picture)
            ``"rgb_array"``.
        observation_bytes: the length of an information-state observation (games with
            hidden information and no tensor: Knockout Whist).
        **params: the game's parameters (``board_size=5`` for Go).
    """

    def __init__(
        self,
        game: str | Game,
        render_mode: str | None = None,
        observation_bytes: int = DEFAULT_OBSERVATION_BYTES,
        **params: Any,
    ) -> None:
        super().__init__()
        self.game = make_game(game, params)
        check_render_mode(self.game, render_mode)
        info = self.game.info
        self.render_mode = render_mode
        self.metadata = {
            "render_modes": render_modes(self.game),
            "name": f"mctslab_{info.name}_v{info.version}",
            "is_parallelizable": False,
            "render_fps": 1,
        }
        self.encoding = Encoding(self.game, observation_bytes)
        self.possible_agents = [agent_name(p) for p in range(info.num_players)]
        self.agents = list(self.possible_agents)
        space = spaces.Dict(
            {"observation": self.encoding.space, "action_mask": mask_space(info.num_actions)}
        )
        # One space object per agent, kept: PettingZoo seeds and compares them by identity.
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(info.num_actions) for a in self.possible_agents}
        self._rng = Rng(0)
        self._state: State = self.game.new_initial_state()
        self._start_episode()

    # The game's state, live: what MCTSPolicy searches from (clone it before changing it).
    @property
    def mctslab_state(self) -> State:
        """The mctslab state the environment is in (not a copy: clone it to change it)."""
        return self._state

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """``agent``'s observation space (the same object every call)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """``agent``'s action space, ``Discrete(num_actions)`` (the same object every call)."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game: chance drawn from ``seed`` (``None``: the generator goes on)."""
        if seed is not None:
            self._rng = Rng(int(seed))
        self._state = self.game.new_initial_state()
        self._start_episode()
        if self.render_mode == "human":
            self.render()

    def _start_episode(self) -> None:
        """The bookkeeping of a new game, its first chance nodes resolved."""
        self._resolve_chance()
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = agent_name(max(0, self._state.current_player()))

    def _resolve_chance(self) -> None:
        """Play chance's outcomes, each drawn by its probability, until a player moves."""
        while self._state.current_player() == CHANCE:
            outcomes = self._state.chance_outcomes()  # type: ignore[attr-defined]
            self._state.apply_action(draw_outcome(outcomes, self._rng))

    def observe(self, agent: str) -> dict[str, np.ndarray[Any, Any]]:
        """What ``agent`` sees: its observation and its action mask."""
        player = self.possible_agents.index(agent)
        to_move = agent == self.agent_selection and not self._state.is_terminal()
        return {
            "observation": self.encoding.encode(self._state, player),
            "action_mask": action_mask(self._state, self.game.info.num_actions, to_move),
        }

    def step(self, action: Any) -> None:
        """The agent to move plays ``action`` (``None`` for an agent whose game is over)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        move = self._checked(agent, action)
        before = self._state.returns()
        self._state.apply_action(move)
        self._resolve_chance()
        after = self._state.returns()
        self._cumulative_rewards[agent] = 0.0
        for player, name in enumerate(self.possible_agents):
            self.rewards[name] = float(after[player] - before[player])
        if self._state.is_terminal():
            self.terminations = dict.fromkeys(self.agents, True)
            mover = self.possible_agents.index(agent)
            self.agent_selection = self.possible_agents[(mover + 1) % len(self.possible_agents)]
        else:
            self.agent_selection = agent_name(self._state.current_player())
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _checked(self, agent: str, action: Any) -> int:
        """``action`` as a legal action id of the state, or IllegalActionError."""
        legal = self._state.legal_actions()
        valid = isinstance(action, int | np.integer) and not isinstance(action, bool)
        if valid and int(action) in legal:
            return int(action)
        message = illegal_action_message(
            self.game.info.name, repr(action), legal, self._state.action_to_string, limit=20
        )
        raise IllegalActionError(f"{agent}: {message}")

    def render(self) -> str | np.ndarray[Any, Any] | None:
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

    def close(self) -> None:
        """Nothing to release (the pictures are drawn off-screen)."""


def raw_env(
    game: str | Game,
    render_mode: str | None = None,
    observation_bytes: int = DEFAULT_OBSERVATION_BYTES,
    **params: Any,
) -> MctslabAECEnv:
    """The environment without wrappers (:class:`MctslabAECEnv`)."""
    return MctslabAECEnv(game, render_mode, observation_bytes, **params)


def env(
    game: str | Game,
    render_mode: str | None = None,
    illegal_reward: float | None = None,
    observation_bytes: int = DEFAULT_OBSERVATION_BYTES,
    **params: Any,
) -> Any:
    """``game`` as a PettingZoo AEC environment, in PettingZoo's usual wrappers: the
    order of calls enforced (``OrderEnforcingWrapper``), actions outside the action
    space refused (``AssertOutOfBoundsWrapper``) and, with ``illegal_reward``, an
    illegal action ending the game with that reward to its agent
    (``TerminateIllegalWrapper``; without it an illegal action raises
    :class:`~mctslab.core.errors.IllegalActionError`). ``env.unwrapped`` is the
    :class:`MctslabAECEnv`."""
    wrapped: Any = raw_env(game, render_mode, observation_bytes, **params)
    if illegal_reward is not None:
        wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=float(illegal_reward))
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


class MCTSPolicy:
    """mctslab's MCTS as a PettingZoo policy: :meth:`act` searches the environment's
    state and returns the move.

    Each move is one :func:`mctslab.search` from a clone of the environment's mctslab
    state (:attr:`MctslabAECEnv.mctslab_state`) with ``config`` (UCT's defaults unless
    given), ``budget`` iterations and ``seed``: the move is the one
    ``mctslab.search(state, SearchConfig(iterations=budget, seed=seed), engine=engine)``
    finds, the same for the same position. The search reads the full state, so in a
    game with hidden information (Kuhn poker, Knockout Whist) it sees the other
    players' cards: refused there unless ``allow_cheating``.

    Args:
        env: the environment (wrapped or not) whose moves the policy plays.
        budget: iterations per move.
        seed: the seed of every search.
        engine: ``"auto"`` (the compiled engine where the game allows it),
            ``"compiled"`` or ``"reference"``.
        config: the search's other settings (its ``iterations`` and ``seed`` are
            replaced by ``budget`` and ``seed``).
        allow_cheating: search games with hidden information anyway.
    """

    def __init__(
        self,
        env: Any,
        budget: int = 1000,
        seed: int = 0,
        engine: str = "auto",
        config: SearchConfig | None = None,
        allow_cheating: bool = False,
    ) -> None:
        inner = getattr(env, "unwrapped", env)
        if not isinstance(inner, MctslabAECEnv):
            raise InvalidConfigError(
                f"MCTSPolicy plays an mctslab environment (mctslab.adapters.pettingzoo.env), "
                f"not {type(inner).__name__}"
            )
        if not is_perfect_information(inner.game) and not allow_cheating:
            raise InvalidConfigError(
                f"{inner.game.info.name} hides information and MCTSPolicy reads the full "
                "state, the other players' cards included; pass allow_cheating=True to "
                "search it anyway"
            )
        self.env = inner
        self.engine = engine
        self.config = dataclasses.replace(config or SearchConfig(), iterations=budget, seed=seed)
        self.last_result: SearchResult | None = None

    def act(self, observation: Any, agent: str) -> int:
        """The move of ``agent``, who must be the agent to move (``observation`` is not
        read: the search starts from the environment's state, which it names)."""
        inner = self.env
        if agent != inner.agent_selection:
            raise InvalidConfigError(f"{agent} is not to move; {inner.agent_selection} is")
        state = inner.mctslab_state
        if state.is_terminal():
            raise InvalidConfigError(f"the game is over: {agent} has no move (step None)")
        result = search(state.clone(), self.config, inner.game.info, self.engine)
        self.last_result = result
        return int(result.action)

    def __call__(self, observation: Any, agent: str) -> int:
        """:meth:`act`."""
        return self.act(observation, agent)
