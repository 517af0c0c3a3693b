"""mctslab's games as PettingZoo AEC environments (``mctslab.adapters.pettingzoo``):
PettingZoo's own API and seed tests on every two-player game, what an agent observes
and is rewarded, chance drawn from the seed, illegal actions, rendering, and MCTSPolicy
(the same move as mctslab's search; it beats a random policy)."""

from __future__ import annotations

import itertools
import subprocess
import sys
import warnings
from typing import Any

import numpy as np
import pytest

from conftest import require_extra

require_extra("pettingzoo", "pettingzoo")

from pettingzoo.test import api_test, seed_test  # noqa: E402

import mctslab  # noqa: E402
from mctslab.adapters import pettingzoo as mz  # noqa: E402
from mctslab.arena.ratings import wilson_interval  # noqa: E402
from mctslab.core.errors import IllegalActionError, InvalidConfigError  # noqa: E402
from mctslab.core.game import CHANCE  # noqa: E402
from mctslab.search.config import SearchConfig  # noqa: E402

# Small versions of the games whose defaults are slow to play at random.
SMALL = {"go": {"board_size": 5}}
TWO_PLAYER = [g for g in mctslab.available_games() if mctslab.make(g).info.num_players == 2]

# What api_test says of every dict observation whose env name is not on its own list of
# PettingZoo's classic games (it says the same of PettingZoo's games under other names).
DICT_OBSERVATION_WARNINGS = {
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box or "
    "gymnasium.spaces.discrete",
}


def test_the_two_player_games_are_the_built_in_ones() -> None:
    """The parametrization below covers the nine two-player games the registry holds."""
    assert set(TWO_PLAYER) >= {
        "bachet",
        "bohnenspiel",
        "connect_four",
        "go",
        "knockout_whist",
        "kuhn_poker",
        "nim",
        "pig",
        "tic_tac_toe",
    }


@pytest.mark.parametrize("game", TWO_PLAYER)
def test_api_test_passes_with_only_the_dict_observation_warnings(game: str) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(mz.env(game, **SMALL.get(game, {})), num_cycles=300)
    assert {str(w.message) for w in caught} <= DICT_OBSERVATION_WARNINGS


@pytest.mark.parametrize("game", TWO_PLAYER)
def test_seed_test_passes(game: str) -> None:
    seed_test(lambda: mz.env(game, **SMALL.get(game, {})), num_cycles=100)


def random_game(env: Any, seed: int) -> dict[str, float]:
    """Play one game of masked random moves through the AEC loop; each agent's final
    cumulative reward."""
    env.reset(seed=seed)
    for i, agent in enumerate(env.possible_agents):
        env.action_space(agent).seed(seed + i)
    final: dict[str, float] = {}
    for agent in env.agent_iter():
        obs, reward, termination, truncation, _ = env.last()
        if termination or truncation:
            final[agent] = float(reward)
            env.step(None)
        else:
            env.step(env.action_space(agent).sample(obs["action_mask"]))
    return final


@pytest.mark.parametrize("game", ["tic_tac_toe", "pig", "kuhn_poker", "bohnenspiel"])
def test_final_rewards_are_the_states_returns(game: str) -> None:
    env = mz.env(game)
    for seed in range(5):
        final = random_game(env, seed)
        returns = env.unwrapped.mctslab_state.returns()
        assert final == {mz.agent_name(p): r for p, r in enumerate(returns)}
        assert sum(final.values()) == pytest.approx(0.0)  # zero-sum games


def test_a_won_tic_tac_toe_game_rewards_the_winner_on_the_last_step() -> None:
    env = mz.env("tic_tac_toe")
    env.reset(seed=0)
    for action in (0, 3, 1, 4):  # x takes 0 and 1, o 3 and 4
        env.step(action)
        assert all(r == 0 for r in env.rewards.values())
        assert not any(env.terminations.values())
    env.step(2)  # x completes the top row
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}
    assert all(env.terminations.values()) and not any(env.truncations.values())


def deal(env: Any, seed: int) -> list[int]:
    env.reset(seed=seed)
    return env.unwrapped.mctslab_state.history()


@pytest.mark.parametrize("game", ["kuhn_poker", "knockout_whist"])
def test_chance_is_drawn_from_the_seed_and_never_to_move(game: str) -> None:
    env = mz.env(game)
    assert deal(env, 7) == deal(env, 7)
    assert len({tuple(deal(env, s)) for s in range(10)}) > 1
    # reset() without a seed draws on: two unseeded resets after a seed replay alike.
    env.reset(seed=3)
    follow = [deal(env, None) for _ in range(3)]  # type: ignore[arg-type]
    env.reset(seed=3)
    assert [deal(env, None) for _ in range(3)] == follow  # type: ignore[arg-type]
    for _agent in env.agent_iter(200):
        assert env.unwrapped.mctslab_state.current_player() != CHANCE
        obs, _, termination, truncation, _ = env.last()
        env.step(None if termination or truncation else int(np.flatnonzero(obs["action_mask"])[0]))


def test_pig_keeps_the_roller_to_move_after_a_roll() -> None:
    """Turns follow the game's current player, not a fixed alternation: Pig's roller
    rolls again until a 1 or a hold."""
    env = mz.env("pig")
    env.reset(seed=0)
    movers = []
    for _ in range(30):
        agent = env.agent_selection
        movers.append(agent)
        state = env.unwrapped.mctslab_state
        assert agent == mz.agent_name(state.current_player())
        legal = state.legal_actions()
        roll = state.string_to_action("roll")
        env.step(roll if state.turn_total < 10 and roll in legal else legal[-1])
    assert any(a == b for a, b in itertools.pairwise(movers))


@pytest.mark.parametrize("game", ["tic_tac_toe", "connect_four", "kuhn_poker", "pig"])
def test_the_observation_is_the_agents_tensor_and_the_mask_its_legal_actions(game: str) -> None:
    env = mz.env(game)
    env.reset(seed=5)
    state = env.unwrapped.mctslab_state
    for player, agent in enumerate(env.possible_agents):
        obs = env.observe(agent)
        tensor = np.asarray(state.observation_tensor(player), dtype=np.float32)
        np.testing.assert_array_equal(obs["observation"], tensor.reshape(obs["observation"].shape))
        assert obs["observation"].dtype == np.float32
        mask = np.zeros(env.unwrapped.game.info.num_actions, np.int8)
        if agent == env.agent_selection:
            mask[state.legal_actions()] = 1
        np.testing.assert_array_equal(obs["action_mask"], mask)
        assert obs["action_mask"].dtype == np.int8


def test_knockout_whist_observes_its_information_state_as_bytes() -> None:
    env = mz.env("knockout_whist")
    env.reset(seed=2)
    state = env.unwrapped.mctslab_state
    assert env.unwrapped.encoding.kind == "infostate"
    for player, agent in enumerate(env.possible_agents):
        data = env.observe(agent)["observation"]
        assert data.dtype == np.uint8
        assert bytes(data).rstrip(b"\0").decode() == state.information_state_string(player)
    assert bytes(env.observe("player_0")["observation"]) != bytes(
        env.observe("player_1")["observation"]
    )
    too_small = mz.env("knockout_whist", observation_bytes=8)
    with pytest.raises(InvalidConfigError, match="observation_bytes"):
        too_small.reset(seed=2)
        too_small.observe("player_0")


def test_an_illegal_action_raises_naming_the_agent_and_the_legal_moves() -> None:
    env = mz.env("tic_tac_toe")
    env.reset(seed=0)
    env.step(4)
    with pytest.raises(
        IllegalActionError, match=r"player_1: illegal action 4 in tic_tac_toe; legal"
    ):
        env.step(4)
    assert env.unwrapped.mctslab_state.history() == [4]  # nothing was played


def test_illegal_reward_ends_the_game_with_that_reward() -> None:
    env = mz.env("tic_tac_toe", illegal_reward=-1)
    env.reset(seed=0)
    env.step(4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo's "illegal move made" warning
        env.step(4)
    assert env.rewards["player_1"] == -1
    assert all(env.terminations.values())


def test_render_modes() -> None:
    env = mz.env("tic_tac_toe", render_mode="ansi")
    env.reset(seed=0)
    env.step(0)
    assert env.render() == str(env.unwrapped.mctslab_state)
    picture = mz.env("go", render_mode="rgb_array", board_size=5)
    picture.reset(seed=0)
    frame = picture.render()
    assert frame.shape == (400, 400, 3) and frame.dtype == np.uint8
    assert len(np.unique(frame.reshape(-1, 3), axis=0)) > 1  # something is drawn
    poker = mz.env("kuhn_poker", render_mode="ansi")
    poker.reset(seed=0)
    assert "Cards:" in poker.render()  # the game's human view, every card shown
    assert mz.env("kuhn_poker").unwrapped.metadata["render_modes"] == ["human", "ansi"]
    with pytest.raises(InvalidConfigError, match="unknown render_mode 'rgb_array' for kuhn_poker"):
        mz.env("kuhn_poker", render_mode="rgb_array")


def test_human_rendering_prints_the_board(capsys: pytest.CaptureFixture[str]) -> None:
    env = mz.env("nim", render_mode="human")
    env.reset(seed=0)
    assert str(env.unwrapped.mctslab_state) in capsys.readouterr().out


@pytest.mark.parametrize("engine", ["reference", "auto"])
@pytest.mark.parametrize("game", ["tic_tac_toe", "connect_four"])
def test_mcts_policy_plays_mctslabs_own_search(game: str, engine: str) -> None:
    env = mz.env(game)
    env.reset(seed=0)
    for action in (0, 1):  # a position other than the first
        env.step(action)
    policy = mz.MCTSPolicy(env, budget=300, seed=11, engine=engine)
    state = env.unwrapped.mctslab_state.clone()
    move = policy.act(env.last()[0], env.agent_selection)
    expected = mctslab.search(state, SearchConfig(iterations=300, seed=11), engine=engine)
    assert move == expected.action
    assert policy.last_result is not None and policy.last_result.children == expected.children
    assert env.unwrapped.mctslab_state.history() == [0, 1]  # the search left the game alone


def mcts_score_against_random(game: str, games: int, budget: int) -> float:
    """MCTS's points (a draw half) against a seeded random policy, seats alternating."""
    points = 0.0
    for g in range(games):
        env = mz.env(game)
        policy = mz.MCTSPolicy(env, budget=budget, seed=g, engine="reference")
        mcts_agent = mz.agent_name(g % 2)
        env.reset(seed=g)
        for i, agent in enumerate(env.possible_agents):
            env.action_space(agent).seed(100 * g + i)
        for agent in env.agent_iter():
            obs, reward, termination, truncation, _ = env.last()
            if termination or truncation:
                if agent == mcts_agent:
                    points += (reward + 1) / 2
                env.step(None)
            elif agent == mcts_agent:
                env.step(policy(obs, agent))
            else:
                env.step(env.action_space(agent).sample(obs["action_mask"]))
    return points


@pytest.mark.parametrize(("game", "games"), [("tic_tac_toe", 20), ("connect_four", 10)])
def test_mcts_policy_beats_a_random_policy(game: str, games: int) -> None:
    """At 200 iterations MCTS scores far above random's half: the lower end of Wilson's
    95% interval of its score clears 0.7 (measured: 19.5/20 and 10/10)."""
    points = mcts_score_against_random(game, games, budget=200)
    _, low, _ = wilson_interval(points, games)
    assert low > 0.7, f"MCTS scored {points}/{games} against random"


def test_mcts_policy_refusals() -> None:
    with pytest.raises(InvalidConfigError, match="kuhn_poker hides information"):
        mz.MCTSPolicy(mz.env("kuhn_poker"))
    cheat = mz.MCTSPolicy(mz.env("kuhn_poker"), budget=50, allow_cheating=True)
    cheat.env.reset(seed=0)
    assert cheat.act(None, cheat.env.agent_selection) in cheat.env.mctslab_state.legal_actions()
    with pytest.raises(InvalidConfigError, match="an mctslab environment"):
        mz.MCTSPolicy(object())
    env = mz.env("tic_tac_toe")
    env.reset(seed=0)
    policy = mz.MCTSPolicy(env, budget=10)
    with pytest.raises(InvalidConfigError, match="player_1 is not to move; player_0 is"):
        policy.act(None, "player_1")


def test_game_parameters_and_made_games() -> None:
    assert (
        mz.env("nim", piles=(1, 2)).unwrapped.game.info.num_actions
        == mctslab.make("nim", piles=(1, 2)).info.num_actions
    )
    game = mctslab.make("tic_tac_toe")
    assert mz.raw_env(game).game is game
    with pytest.raises(InvalidConfigError, match="game parameters go with a game's name"):
        mz.raw_env(game, piles=(1,))
    with pytest.raises(mctslab.UnknownGameError):
        mz.env("no_such_game")


def test_importing_the_adapters_package_imports_neither_project() -> None:
    code = (
        "import sys, mctslab.adapters; "
        "print(sorted(m for m in ('pettingzoo', 'gymnasium', 'pyspiel') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
