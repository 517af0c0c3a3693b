"""The one rule for a player under a clock (mctslab.players.time_control), and its users:
the arena's games, ``mctslab play --time-per-move`` and the Bohnenspiel client."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from mctslab.arena.game_task import Entrant, GameTask, effective_spec, play_task
from mctslab.cli.main import app
from mctslab.core.errors import InvalidSpecError
from mctslab.core.registry import make
from mctslab.players.player import ISMCTSPlayer, MCTSPlayer, make_player
from mctslab.players.time_control import (
    base_config,
    clock_time,
    own_budget,
    set_move_time,
    timed_config,
    timed_spec,
)
from mctslab.search.config import SearchConfig


def _config(spec: str, seconds: float | None, game: str = "tic_tac_toe") -> object:
    player = make_player(timed_spec(spec, seconds), make(game).info, 0)
    assert isinstance(player, MCTSPlayer | ISMCTSPlayer)
    return player.config


@pytest.mark.parametrize("spec", ["mcts", "mcts:c=0.5,rave=300", "puct:c=1.5", "ismcts", "pimc"])
def test_no_budget_of_its_own_searches_the_clock_without_an_iteration_cap(spec: str) -> None:
    game = "kuhn_poker" if spec.startswith(("ismcts", "pimc")) else "tic_tac_toe"
    config = _config(spec, 0.25, game)
    assert config.iterations is None and config.time == 0.25  # type: ignore[attr-defined]
    # Without a clock the kind's default budget applies, as before.
    assert _config(spec, None, game).iterations is not None  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("spec", "iterations", "time"),
    [
        ("mcts:iterations=500", 500, None),
        ("mcts:n=50,c=1", 50, None),
        ("puct:simulations=64", 64, None),
        ("mcts:time=0.1", None, 0.1),
        ("mcts:time=5", None, 0.25),  # an own time longer than the clock is cut to it
        ("mcts:iterations=100,time=5", 100, 0.25),
    ],
)
def test_a_budget_of_its_own_wins(spec: str, iterations: int | None, time: float | None) -> None:
    config = _config(spec, 0.25)
    assert config.iterations == iterations and config.time == time  # type: ignore[attr-defined]


def test_gumbel_and_players_without_a_search_are_left_alone() -> None:
    for spec in ("gumbel", "puct:gumbel=1", "minimax:depth=2", "random", "human"):
        assert timed_spec(spec, 1.0) == spec
    from mctslab.search.puct import PuctConfig

    planned = SearchConfig(iterations=64, puct=PuctConfig(gumbel=True))
    assert timed_config(planned, own=False, seconds=1.0) is planned


def test_a_clock_rebudgets_a_player_without_writing_its_searchers_config() -> None:
    game = make("tic_tac_toe")
    player = make_player("mcts:seed=3", game.info, 0)
    assert isinstance(player, MCTSPlayer)
    base = base_config(player)
    assert base is player.config
    player.choose(game.new_initial_state())
    searcher = player.searcher
    assert searcher is not None and searcher.config == base
    config = set_move_time(player, base, own=False, seconds=0.05)
    assert config == timed_config(base, own=False, seconds=0.05) and player.config == config
    player.choose(game.state_from_actions([4, 0]))
    assert player.last_result is not None and player.last_result.stopped_by == "time"
    assert searcher.config == base  # each search is handed the move's budget instead
    for other in ("random", "minimax:depth=2", "ismcts"):
        opponent = make_player(other, game.info, 0)
        assert base_config(opponent) is None
        assert set_move_time(opponent, SearchConfig(), own=False, seconds=1.0) is None


def test_timed_config_is_the_same_rule_as_timed_spec() -> None:
    base = SearchConfig()
    assert timed_config(base, own=False, seconds=None) is base
    clocked = timed_config(base, own=False, seconds=0.3)
    assert (clocked.iterations, clocked.time) == (None, 0.3)
    fixed = SearchConfig(iterations=200)
    assert timed_config(fixed, own=True, seconds=0.3) is fixed
    long = SearchConfig(iterations=None, time=2.0)
    assert timed_config(long, own=True, seconds=0.3).time == 0.3
    assert clock_time(True, None, 0.3) is None and clock_time(False, None, 0.3) == 0.3
    assert own_budget("mcts:simulations=3") and not own_budget("mcts:c=2")
    with pytest.raises(InvalidSpecError, match="time"):
        timed_spec("mcts:time=soon", 1.0)


def test_the_arena_plays_what_the_rule_says() -> None:
    """Under the arena's clock a budget-less spec is recorded (and played) with the clock's
    time; its moves are timed; a spec with iterations keeps them."""
    assert effective_spec("mcts:c=1", 0.05) == "mcts:c=1,time=0.05"
    assert effective_spec("mcts:iterations=10", 0.05) == "mcts:iterations=10"
    task = GameTask(
        slot=0,
        game="tic_tac_toe",
        game_params=(),
        seats=(Entrant("clock", "mcts:engine=reference"), Entrant("fixed", "mcts:iterations=20")),
        seed=3,
        time_per_move=0.05,
    )
    record = play_task(task)
    assert record.termination == "normal"
    assert all(t is not None for t in record.move_times)


def test_play_time_per_move() -> None:
    runner = CliRunner()
    result = runner.invoke(
        app,
        ["play", "tic_tac_toe", "--player1", "mcts:engine=reference", "--player2", "minimax",
         "--time-per-move", "0.02"],
    )  # fmt: skip
    assert result.exit_code == 0, (result.stdout, result.stderr)
    assert "x (mcts) plays" in result.stdout
    for bad in ("0", "-1", "nan", "inf"):
        result = runner.invoke(app, ["play", "tic_tac_toe", "--time-per-move", bad])
        assert result.exit_code == 2
        assert result.stderr.strip().splitlines()[-1].startswith("error: --time-per-move")
