"""The network players ``az:`` and ``policy:`` (:mod:`mctslab.players.network`): whole
games with legal moves, the network really guiding the moves, clear errors for bad
specs and bad checkpoints (files left untouched), and the CLI's use of them."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner, Result

from conftest import require_extra

torch = require_extra("torch", "nn")

import mctslab  # noqa: E402
from mctslab.cli.main import app  # noqa: E402
from mctslab.core.errors import InvalidSpecError  # noqa: E402
from mctslab.nn.checkpoint import CheckpointError, save_checkpoint  # noqa: E402
from mctslab.nn.networks import make_network  # noqa: E402
from mctslab.players.network import NetworkPolicyPlayer  # noqa: E402
from mctslab.players.player import AzPlayer, make_player, play_game  # noqa: E402

GAMES = ("tic_tac_toe", "connect_four")
runner = CliRunner()


def write_net(path: Path, game: Any, seed: int = 1, scale: float = 0.1) -> Path:
    """A tiny network for ``game`` with weights nudged away from a fresh network's (so
    that its priors are far from uniform), saved at ``path``."""
    net = make_network(game, channels=4, blocks=1, hidden=8, seed=seed)
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in net.parameters():
            p.add_(torch.randn(p.shape, generator=gen) * scale)
    return save_checkpoint(path, net, game)


@pytest.fixture(scope="module")
def nets(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("nets")
    return {name: write_net(folder / f"{name}.pt", mctslab.make(name)) for name in GAMES}


def masked_softmax(path: Path, game: Any, state: Any) -> np.ndarray[Any, Any]:
    """The network's priors at ``state`` computed here: its module on the observation
    tensor, illegal logits masked, softmax."""
    from mctslab.nn.checkpoint import load_checkpoint

    net, _ = load_checkpoint(path, game)
    x = torch.from_numpy(np.asarray(state.observation_tensor(), dtype=np.float32)).unsqueeze(0)
    with torch.inference_mode():
        logits, _value = net.eval()(x)
    logits = logits[0].double().numpy()
    legal = state.legal_actions()
    out = np.zeros(game.info.num_actions)
    z = np.exp(logits[legal] - logits[legal].max())
    out[legal] = z / z.sum()
    return out


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


class Recorder:
    """Checks that every move ``play_game`` reports was legal where it was played."""

    def __init__(self, state: Any) -> None:
        self.shadow = state.clone()
        self.moves = 0

    def __call__(self, state: Any, player: int, action: int) -> None:
        assert action in self.shadow.legal_actions()
        self.shadow.apply_action(action)
        self.moves += 1


# Whole games ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize(
    "kind", ["az:model={},simulations=8", "policy:model={}"], ids=["az", "policy"]
)
def test_network_players_play_whole_games_against_random(
    nets: dict[str, Path], name: str, kind: str
) -> None:
    """az: and policy: finish games against random, both colours, with legal moves only."""
    game = mctslab.make(name)
    spec = kind.format(nets[name])
    for seat in (0, 1):
        specs = [spec, "random"] if seat == 0 else ["random", spec]
        players = [make_player(s, game.info, seed=3 + i) for i, s in enumerate(specs)]
        assert isinstance(players[seat], AzPlayer | NetworkPolicyPlayer)
        state = game.new_initial_state()
        recorder = Recorder(state)
        final = play_game(state, players, on_move=recorder)
        assert final.is_terminal()
        assert recorder.moves >= 5  # at least a win's worth of moves at either game
        assert recorder.shadow.returns() == final.returns()


@pytest.mark.parametrize("name", GAMES)
def test_policy_player_picks_the_argmax_of_the_masked_softmax(
    nets: dict[str, Path], name: str
) -> None:
    """policy: (temperature 0) plays the legal move of highest prior, the priors being the
    network's masked softmax on the observation tensor."""
    game = mctslab.make(name)
    player = make_player(f"policy:model={nets[name]}", game.info)
    assert isinstance(player, NetworkPolicyPlayer)
    rng = np.random.default_rng(7)
    for _ in range(6):
        state = game.new_initial_state()
        for _ in range(int(rng.integers(0, 5))):
            state.apply_action(int(rng.choice(state.legal_actions())))
        expected = masked_softmax(nets[name], game, state)
        action = player.choose(state.clone())
        assert action == int(np.argmax(expected))
        assert player.last_priors is not None
        np.testing.assert_allclose(player.last_priors, expected, atol=1e-5)
        illegal = np.setdiff1d(np.arange(game.info.num_actions), state.legal_actions())
        assert np.all(player.last_priors[illegal] == 0)


@pytest.mark.parametrize("name", GAMES)
def test_policy_player_with_temperature_is_reproducible_by_seed(
    nets: dict[str, Path], name: str
) -> None:
    """policy:...,temperature=1 draws its moves from a seeded generator: the same seed
    gives the same game, and the draws are not all the argmax."""
    game = mctslab.make(name)
    spec = f"policy:model={nets[name]},temperature=1"

    def moves(seed: int) -> list[int]:
        played: list[int] = []
        players = [make_player(spec, game.info, seed), make_player(spec, game.info, seed + 1)]
        play_game(game.new_initial_state(), players, on_move=lambda s, p, a: played.append(a))
        return played

    assert moves(5) == moves(5)
    # Drawn, not the argmax: from the first position, many draws give more than one move.
    player = make_player(spec, game.info, 11)
    first = {player.choose(game.new_initial_state()) for _ in range(40)}
    assert len(first) > 1


@pytest.mark.parametrize("name", GAMES)
def test_az_player_root_priors_are_the_networks(nets: dict[str, Path], name: str) -> None:
    """az:'s evaluator is the network: the root priors of its search are the network's
    masked softmax on the root's observation."""
    game = mctslab.make(name)
    player = make_player(f"az:model={nets[name]},simulations=8", game.info)
    assert isinstance(player, AzPlayer)
    state = game.new_initial_state()
    for action in [4, 0] if name == "tic_tac_toe" else [3, 3, 2]:
        state.apply_action(action)
    expected = masked_softmax(nets[name], game, state)
    player.choose(state.clone())
    result = player.last_result
    assert result is not None
    assert sorted(c.action for c in result.children) == sorted(state.legal_actions())
    priors = {c.action: c.prior for c in result.children}
    for action in state.legal_actions():
        assert priors[action] == pytest.approx(expected[action], abs=1e-5)
    legal = expected[state.legal_actions()]
    assert legal.max() - legal.min() > 0.02  # far from uniform priors: a real check


# Bad specs and files ---------------------------------------------------------------------------


def test_an_unknown_model_is_an_invalid_spec_naming_it() -> None:
    """az:model=nope: InvalidSpecError (a ValueError) naming the model."""
    info = mctslab.make("tic_tac_toe").info
    with pytest.raises(InvalidSpecError, match="nope") as err:
        make_player("az:model=nope", info)
    assert isinstance(err.value, ValueError)


@pytest.mark.parametrize("spec", ["az", "az:simulations=8", "policy", "policy:temperature=1"])
def test_a_network_player_needs_a_model(spec: str) -> None:
    """az / policy without model=: InvalidSpecError saying model= is needed."""
    info = mctslab.make("tic_tac_toe").info
    with pytest.raises(InvalidSpecError, match="model="):
        make_player(spec, info)


def test_az_refuses_an_evaluator_and_policy_unknown_options(nets: dict[str, Path]) -> None:
    """az:...,evaluator=uniform and policy:...,foo=1 are refused, naming the option."""
    info = mctslab.make("tic_tac_toe").info
    path = nets["tic_tac_toe"]
    with pytest.raises(InvalidSpecError, match="evaluator"):
        make_player(f"az:model={path},evaluator=uniform", info)
    with pytest.raises(InvalidSpecError, match="foo"):
        make_player(f"policy:model={path},foo=1", info)


@pytest.mark.parametrize("kind", ["az", "policy"])
def test_a_network_of_another_game_is_refused_when_the_player_is_made(
    nets: dict[str, Path], kind: str
) -> None:
    """A connect_four checkpoint for tic_tac_toe: CheckpointError at make_player, naming
    both games; the file is left as it was."""
    path = nets["connect_four"]
    before = path.read_bytes()
    with pytest.raises(CheckpointError, match="connect_four") as err:
        make_player(f"{kind}:model={path}", mctslab.make("tic_tac_toe").info)
    assert "tic_tac_toe" in str(err.value)
    assert path.read_bytes() == before


@pytest.mark.parametrize("kind", ["az", "policy"])
def test_a_corrupt_file_is_a_checkpoint_error_and_left_alone(tmp_path: Path, kind: str) -> None:
    """Random bytes as a model: CheckpointError at make_player; the bytes are unchanged."""
    path = tmp_path / "junk.pt"
    data = np.random.default_rng(0).bytes(4096)
    path.write_bytes(data)
    with pytest.raises(CheckpointError, match="not a mctslab network checkpoint"):
        make_player(f"{kind}:model={path}", mctslab.make("tic_tac_toe").info)
    assert path.read_bytes() == data
    assert sorted(os.listdir(tmp_path)) == ["junk.pt"]


@pytest.mark.parametrize(
    "kind", ["az:model={},simulations=4", "policy:model={}"], ids=["az", "policy"]
)
def test_a_network_for_other_game_parameters_fails_at_the_first_move(
    nets: dict[str, Path], kind: str
) -> None:
    """A 6x7 Connect Four network on a 5-row board: made (same game), then CheckpointError
    at the first move, the file untouched."""
    path = nets["connect_four"]
    before = path.read_bytes()
    game = mctslab.make("connect_four", rows=5)
    player = make_player(kind.format(path), game.info)
    with pytest.raises(CheckpointError, match="connect_four"):
        player.choose(game.new_initial_state())
    assert path.read_bytes() == before


# The CLI --------------------------------------------------------------------------------------


def invoke(*args: str) -> Result:
    return runner.invoke(app, list(args))


def assert_user_error(result: Result) -> str:
    """Exit 2, one ``error:`` line on stderr, no traceback."""
    assert result.exit_code == 2, (result.stdout, result.stderr, result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    assert "Traceback" not in result.output
    return lines[0]


def test_cli_play_with_an_az_player(nets: dict[str, Path]) -> None:
    """mctslab play tic_tac_toe with az:model=PATH,simulations=4 against random finishes."""
    spec = f"az:model={nets['tic_tac_toe']},simulations=4"
    result = invoke("play", "tic_tac_toe", "--player1", spec, "--player2", "random")
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    assert "(az) plays" in result.stdout
    assert "(random) plays" in result.stdout


def test_cli_arena_with_an_az_player(nets: dict[str, Path], tmp_path: Path) -> None:
    """mctslab arena with an az: entrant plays its games and reports them."""
    spec = f"az:model={nets['tic_tac_toe']},simulations=4"
    db = tmp_path / "a.db"
    result = invoke(
        "arena", "tic_tac_toe", "--player", f"net={spec}", "--player", "rnd=random",
        "--games", "2", "--workers", "1", "--db", str(db), "--no-progress",
    )  # fmt: skip
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    # rich wraps the summary line at the terminal width, which a long tmp_path reaches
    assert "2/2 games" in " ".join(result.stdout.split())
    assert "net" in result.stdout


def test_cli_bad_models_are_one_line_errors(nets: dict[str, Path], tmp_path: Path) -> None:
    """A missing model, a corrupt file or another game's network: exit 2 with one
    error: line naming the problem, no traceback, the files unchanged."""
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"\x00not a checkpoint" * 10)
    before = snapshot(tmp_path)
    c4 = nets["connect_four"]
    c4_bytes = c4.read_bytes()
    line = assert_user_error(
        invoke("play", "tic_tac_toe", "--player1", "az:model=nope", "--player2", "random")
    )
    assert "nope" in line
    line = assert_user_error(
        invoke("play", "tic_tac_toe", "--player1", f"az:model={junk}", "--player2", "random")
    )
    assert "not a mctslab network checkpoint" in line
    line = assert_user_error(
        invoke("play", "tic_tac_toe", "--player1", f"policy:model={c4}", "--player2", "random")
    )
    assert "connect_four" in line
    arena_args = ["arena", "tic_tac_toe", "--player", "a=az:model=nope", "--player", "b=random"]
    line = assert_user_error(invoke(*arena_args, "--db", str(tmp_path / "x.db"), "--no-progress"))
    assert "nope" in line
    after = snapshot(tmp_path)
    after.pop("x.db", None)  # the store may or may not be made before the check
    assert after == before
    assert c4.read_bytes() == c4_bytes
