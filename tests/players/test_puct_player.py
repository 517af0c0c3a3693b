"""The ``puct:...`` player: an :class:`MCTSPlayer` searching with PUCT (spec parsing, errors,
whole games, seeded reproducibility)."""

from __future__ import annotations

import pytest

import mctslab
from mctslab.core.errors import InvalidSpecError
from mctslab.players.player import (
    KINDS,
    MCTSPlayer,
    Player,
    make_player,
    play_game,
    puct_config,
    reads_hidden_information,
)
from mctslab.search.puct import PuctConfig

INFO = mctslab.make("tic_tac_toe").info


def puct_player(spec: str, seed: int = 0) -> MCTSPlayer:
    player = make_player(spec, INFO, seed)
    assert isinstance(player, MCTSPlayer)
    return player


def test_defaults_are_uniform_rollout_and_800_simulations() -> None:
    player = puct_player("puct")
    assert player.name == "puct"
    assert player.config.iterations == 800
    assert player.config.puct == PuctConfig()
    assert player.config.puct.evaluator == "uniform+rollout"


def test_every_key_reaches_its_config() -> None:
    spec = (
        "puct:simulations=64,c=2,c_base=19652,evaluator=heuristic,fpu=0.5,noise=0.25,"
        "alpha=0.5,temperature=1,batch=4,virtual_loss=2,seed=9,solver=1,final=max,"
        "reuse_tree=0,max_nodes=5000,engine=reference"
    )
    player = puct_player(spec)
    config = player.config
    assert (config.iterations, config.seed, config.solver, config.final) == (64, 9, True, "max")
    assert (config.reuse_tree, config.max_nodes, player.engine) == (False, 5000, "reference")
    assert config.puct == PuctConfig(
        c=2.0,
        c_base=19652.0,
        evaluator="heuristic",
        fpu=0.5,
        noise_fraction=0.25,
        noise_alpha=0.5,
        temperature=1.0,
        batch=4,
        virtual_loss=2,
    )


def test_iterations_and_time_budgets() -> None:
    assert puct_config({"iterations": "50"}).iterations == 50
    timed = puct_config({"time": "0.1"})
    assert (timed.iterations, timed.time) == (None, 0.1)
    assert puct_config({"mix": "0.5", "evaluator": "uniform"}).puct.mix == 0.5  # type: ignore[union-attr]


def test_an_unknown_key_lists_the_valid_ones() -> None:
    with pytest.raises(InvalidSpecError) as err:
        make_player("puct:expansion=all", INFO)
    message = str(err.value)
    assert "unknown puct option 'expansion'" in message
    for key in ("simulations", "evaluator", "fpu", "noise", "alpha", "temperature", "batch"):
        assert key in message


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ("puct:c=-1", "c must be a finite number >= 0"),
        ("puct:fpu=2", "fpu must be in [0, 1]"),
        ("puct:batch=0", "batch must be an integer in [1, 4096]"),
        ("puct:evaluator=network", "unknown evaluator 'network'"),
        ("puct:mix=0.5", "mix mixes an evaluator's value with a playout"),
        ("puct:simulations=lots", "bad value 'lots' for 'iterations'"),
        ("puct:alpha=0", "noise_alpha must be a finite number > 0"),
    ],
)
def test_bad_values_are_one_line_spec_errors(spec: str, fragment: str) -> None:
    with pytest.raises(InvalidSpecError) as err:
        make_player(spec, INFO)
    assert fragment in str(err.value)
    assert "\n" not in str(err.value)


def test_puct_is_a_kind_that_reads_the_full_state() -> None:
    assert "puct" in KINDS
    assert reads_hidden_information("puct:simulations=10")
    assert reads_hidden_information(puct_player("puct:simulations=10"))


@pytest.mark.parametrize("evaluator", ["uniform+rollout", "uniform", "heuristic"])
def test_plays_legal_moves_to_the_end_of_a_game(evaluator: str) -> None:
    spec = f"puct:simulations=40,evaluator={evaluator}"
    players: list[Player] = [puct_player(spec, 1), puct_player(spec, 2)]
    played: list[int] = []

    def on_move(state: object, player: int, action: int) -> None:
        played.append(action)

    final = play_game(mctslab.make("tic_tac_toe").new_initial_state(), players, on_move)
    assert final.is_terminal()
    assert len(set(played)) == len(played)  # legal: no square played twice
    assert sum(final.returns()) == 0


def test_the_same_seed_plays_the_same_game() -> None:
    def game(seed: int) -> list[int]:
        spec = "puct:simulations=30,temperature=1,noise=0.25"
        players: list[Player] = [puct_player(spec, seed), puct_player(spec, seed + 1)]
        moves: list[int] = []
        play_game(
            mctslab.make("tic_tac_toe").new_initial_state(),
            players,
            lambda _s, _p, a: moves.append(a),
        )
        return moves

    assert game(5) == game(5)
    assert any(game(5) != game(s) for s in range(6, 12))


def test_gumbel_spec_is_a_gumbel_search_with_its_own_budget() -> None:
    from mctslab.players.player import GUMBEL_SIMULATIONS, make_player

    info = mctslab.make("tic_tac_toe").info
    player = make_player("gumbel:considered=4,scale=0", info, seed=3)
    config = player.config  # type: ignore[attr-defined]
    assert config.puct.gumbel and config.puct.considered == 4 and config.puct.gumbel_scale == 0.0
    assert config.iterations == GUMBEL_SIMULATIONS
    assert make_player("gumbel:simulations=8", info).config.iterations == 8  # type: ignore[attr-defined]
    with pytest.raises(InvalidSpecError, match="iteration budget"):
        make_player("gumbel:time=0.1", info)
    with pytest.raises(InvalidSpecError, match="batch must be 1"):
        make_player("gumbel:batch=4", info)
