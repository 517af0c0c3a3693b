"""Players turned into tabular policies, their exact exploitability, and the CLI command.

Oracles: the uniform policy's exploitability at Kuhn poker is 11/24 (OpenSpiel's
value; mctslab.analysis.exploitability is checked against OpenSpiel's in
test_exploitability.py); a search that reads only the player's information gives
one entry per information state; Smooth UCT's self-play average strategy
approaches equilibrium (its exploitability falls with iterations).
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import mctslab
from mctslab.analysis.exploitability import GameTree, exploitability
from mctslab.analysis.player_policy import player_policy, self_play_policy
from mctslab.cli.main import app
from mctslab.core.errors import InvalidConfigError
from mctslab.search.ismcts import ISMCTSConfig, self_play

runner = CliRunner()


@pytest.fixture(scope="module")
def kuhn() -> GameTree:
    return GameTree(mctslab.make("kuhn_poker"))


def test_random_player_reads_as_the_uniform_policy(kuhn: GameTree) -> None:
    policy = player_policy(kuhn, "random")
    assert exploitability(kuhn, policy) == pytest.approx(11 / 24)


def test_search_policies_cover_every_information_state(kuhn: GameTree) -> None:
    visits = player_policy(kuhn, "ismcts:iterations=200", seed=1)
    played = player_policy(kuhn, "ismcts:iterations=200", seed=1, reading="played")
    assert set(visits) == set(played) == set(kuhn.infoset_keys)
    assert all(sorted(p.values()) in ([0.0, 1.0], [1.0]) for p in played.values())
    assert any(0 < x < 1 for p in visits.values() for x in p.values())
    # Both beat uniform random play by far, neither is an equilibrium.
    assert 0.05 < exploitability(kuhn, visits) < 0.3
    assert 0.05 < exploitability(kuhn, played) < 0.3


def test_same_seed_same_policy(kuhn: GameTree) -> None:
    spec = "pimc:iterations=200,determinizations=4"
    assert player_policy(kuhn, spec, seed=3) == player_policy(kuhn, spec, seed=3)


def test_smooth_uct_self_play_exploitability_falls_with_iterations(kuhn: GameTree) -> None:
    def value(n: int) -> float:
        config = ISMCTSConfig(iterations=n, variant="mo", smooth=True, seed=0)
        return exploitability(kuhn, self_play_policy(kuhn, config))

    few, many = value(100), value(5000)
    assert many < few and many < 0.1


def test_self_play_keys_every_players_information_states(kuhn: GameTree) -> None:
    table = self_play(kuhn.game.new_initial_state(), ISMCTSConfig(iterations=2000, variant="mo"))
    keys = {key for _, key in table}
    assert keys == set(kuhn.infoset_keys)  # all 12 information states of both players
    with pytest.raises(InvalidConfigError, match="variant='mo'"):
        self_play(kuhn.game.new_initial_state(), ISMCTSConfig(iterations=10))


def test_bad_reading_is_refused(kuhn: GameTree) -> None:
    with pytest.raises(InvalidConfigError, match="reading"):
        player_policy(kuhn, "random", reading="best")  # type: ignore[arg-type]


def test_cli_exploitability() -> None:
    result = runner.invoke(app, ["exploitability", "kuhn_poker", "--player", "random", "--json"])
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["exploitability"] == pytest.approx(11 / 24)
    assert out["information_states"] == 12
    assert len(out["best_response_values"]) == 2
    text = runner.invoke(
        app, ["exploitability", "kuhn_poker", "--self-play", "ismcts:iterations=500,smooth=1"]
    )
    assert text.exit_code == 0 and "exploitability" in text.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--player", "random", "--self-play", "ismcts"], "one of --player"),
        ([], "one of --player"),
        (["--self-play", "mcts:iterations=10"], "ismcts spec"),
        (["--player", "random", "--reading", "best"], "reading must be"),
        (["--player", "ismcts:depth=2"], "unknown ismcts option"),
    ],
)
def test_cli_exploitability_user_errors(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["exploitability", "kuhn_poker", *args])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert message in result.stderr and "Traceback" not in result.stderr
