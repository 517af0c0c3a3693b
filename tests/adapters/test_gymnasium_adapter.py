"""mctslab's single-player games as Gymnasium environments
(``mctslab.adapters.gymnasium``): Gymnasium's ``check_env`` on each, the episode's
return as the game's score, legal sampling, illegal actions, rendering, registration."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from conftest import require_extra

gymnasium = require_extra("gymnasium", "gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402

import mctslab  # noqa: E402
from mctslab.adapters import gymnasium as mg  # noqa: E402
from mctslab.core.errors import IllegalActionError, InvalidConfigError  # noqa: E402

SINGLE_PLAYER = [g for g in mctslab.available_games() if mctslab.make(g).info.num_players == 1]


def test_the_single_player_games_are_the_built_in_ones() -> None:
    assert set(SINGLE_PLAYER) >= {"morpion_solitaire", "samegame", "tsp"}


@pytest.mark.parametrize("game", SINGLE_PLAYER)
def test_check_env_passes_on_the_registered_environment_without_warnings(game: str) -> None:
    """Through ``gymnasium.make`` (a spec: check_env also renders every declared mode)."""
    (gid,) = mg.register_envs([game])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(gymnasium.make(gid).unwrapped)
    assert [str(w.message) for w in caught] == []


@pytest.mark.parametrize("game", SINGLE_PLAYER)
def test_check_env_passes_on_the_plain_environment(game: str) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(mg.env(game))
    # Without a spec check_env cannot make the environment in its other render modes.
    assert all("Not able to test alternative render modes" in str(w.message) for w in caught)


@pytest.mark.parametrize("game", SINGLE_PLAYER)
def test_the_episodes_return_is_the_games_score_given_on_the_last_step(game: str) -> None:
    env = mg.env(game)
    _, info = env.reset(seed=4)
    env.action_space.seed(4)
    rewards = []
    terminated = False
    while not terminated:
        state = env.mctslab_state
        np.testing.assert_array_equal(
            info["action_mask"], np.asarray(state.legal_actions_mask(), np.int8)
        )
        action = env.action_space.sample()  # no mask: a legal action of this position
        assert int(action) in state.legal_actions()
        obs, reward, terminated, truncated, info = env.step(action)
        assert not truncated
        rewards.append(reward)
    assert rewards[-1] == env.mctslab_state.returns()[0]
    assert all(r == 0 for r in rewards[:-1])
    played = env.mctslab_state.history()
    assert list(obs[: len(played)]) == played and all(obs[len(played) :] == -1)


def test_same_seed_same_episode() -> None:
    def episode(seed: int) -> list[int]:
        env = mg.env("samegame")
        env.reset(seed=seed)
        env.action_space.seed(seed)
        terminated = False
        while not terminated:
            *_, terminated, _, _ = env.step(env.action_space.sample())
        return env.mctslab_state.history()

    assert episode(1) == episode(1)
    assert episode(1) != episode(2)


def test_an_illegal_action_ends_the_episode_with_the_worst_return() -> None:
    env = mg.env("tsp")
    env.reset(seed=0)
    visited = env.mctslab_state.legal_actions()[0]
    env.step(visited)
    _, reward, terminated, truncated, info = env.step(visited)  # visited already
    assert reward == env.game.info.min_utility and terminated and not truncated
    assert info["illegal_action"] and not info["action_mask"].any()
    with pytest.raises(IllegalActionError, match="the game is over"):
        env.step(visited)
    assert mg.env("tsp", illegal_reward=-5000).illegal_reward == -5000.0


def test_on_illegal_raise_raises_naming_the_legal_actions() -> None:
    env = mg.env("tsp", on_illegal="raise")
    env.reset(seed=0)
    visited = env.mctslab_state.legal_actions()[0]
    env.step(visited)
    with pytest.raises(
        IllegalActionError, match=rf"illegal action np.int64\({visited}\) in tsp; legal"
    ):
        env.step(np.int64(visited))
    with pytest.raises(IllegalActionError):
        env.step(True)
    with pytest.raises(InvalidConfigError, match="on_illegal"):
        mg.env("tsp", on_illegal="ignore")


def test_sample_with_a_mask_samples_as_discrete_does() -> None:
    env = mg.env("tsp")
    env.reset(seed=0)
    mask = np.zeros(env.action_space.n, dtype=np.int8)
    mask[7] = 1
    assert env.action_space.sample(mask) == 7
    assert env.action_space.contains(0)  # every id is in the space; legality is the game's


def test_render_modes(capsys: pytest.CaptureFixture[str]) -> None:
    env = mg.env("tsp", render_mode="rgb_array")
    env.reset(seed=0)
    env.step(env.action_space.sample())
    frame = env.render()
    assert isinstance(frame, np.ndarray) and frame.shape == (400, 400, 3)
    text = mg.env("samegame", render_mode="ansi")
    text.reset(seed=0)
    assert text.render() == str(text.mctslab_state)
    human = mg.env("morpion_solitaire", render_mode="human")
    human.reset(seed=0)
    assert str(human.mctslab_state) in capsys.readouterr().out
    with pytest.raises(InvalidConfigError, match="unknown render_mode 'rgb_array' for samegame"):
        mg.env("samegame", render_mode="rgb_array")


def test_two_player_games_are_refused() -> None:
    with pytest.raises(InvalidConfigError, match="tic_tac_toe has 2 players"):
        mg.env("tic_tac_toe")
    with pytest.raises(InvalidConfigError, match="tic_tac_toe has 2 players, not one"):
        mg.register_envs(["tic_tac_toe"])


def test_register_envs_ids_and_game_parameters() -> None:
    ids = mg.register_envs(["tsp", "samegame"])
    assert ids == ["mctslab/tsp-v1", "mctslab/samegame-v1"]
    assert mg.register_envs(["tsp"]) == ["mctslab/tsp-v1"]  # again: nothing changes
    made = gymnasium.make("mctslab/tsp-v1", instance="berlin52")
    assert (
        made.unwrapped.game.info.num_actions
        == mctslab.make("tsp", instance="berlin52").info.num_actions
    )
    assert made.spec is not None and made.spec.id == "mctslab/tsp-v1"
