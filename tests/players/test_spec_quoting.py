"""Quoted option values in player specs (:func:`mctslab.players.player.parse_spec`): a
value with a comma (a checkpoint's path, ``az:model="runs/a,b/gen-0001.pt"``) is written
in double quotes and read back whole; :func:`quote_spec_value` writes it."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import require_extra
from mctslab.core.errors import InvalidSpecError
from mctslab.core.registry import make
from mctslab.players.player import make_player, parse_spec, quote_spec_value


@pytest.mark.parametrize(
    "value", ["runs/a,b/gen-0001.pt", "plain.pt", 'say "hi", twice', " padded ", '"', ""]
)
def test_a_quoted_value_reads_back_whole(value: str) -> None:
    spec = f"az:model={quote_spec_value(value)},simulations=8"
    assert parse_spec(spec) == ("az", {"model": value, "simulations": "8"})


def test_unquoted_specs_read_as_before() -> None:
    assert quote_spec_value("connect_four") == "connect_four"
    assert parse_spec("mcts:iterations=5, c=1.4") == ("mcts", {"iterations": "5", "c": "1.4"})
    assert parse_spec("gtp:gnugo --mode gtp, x") == ("gtp", {"command": "gnugo --mode gtp, x"})


@pytest.mark.parametrize(
    "spec", ['az:model="runs/a,b', 'az:model=runs"a,b', 'az:model="a"b', 'mcts:"c=1"x']
)
def test_bad_quotes_are_named(spec: str) -> None:
    with pytest.raises(InvalidSpecError, match="quote"):
        parse_spec(spec)


def test_a_model_path_with_a_comma_makes_an_az_player(tmp_path: Path) -> None:
    """az:model= with a quoted path holding a comma loads that checkpoint."""
    require_extra("torch", "nn")
    from mctslab.nn.checkpoint import save_checkpoint
    from mctslab.nn.networks import make_network

    game = make("tic_tac_toe")
    net = make_network(game, channels=4, blocks=1)
    path = save_checkpoint(tmp_path / "a,b" / "net.pt", net, game)
    player = make_player(f"az:model={quote_spec_value(str(path))},simulations=4", game.info, seed=1)
    assert player.choose(game.new_initial_state()) in range(9)
