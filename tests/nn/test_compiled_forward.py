"""The residual network's forward pass in numba (``mctslab.nn.compiled``) against PyTorch's:
the same logits and values to 1e-5 on random positions, on real positions of the game,
for random networks of several sizes (batch normalisation with non-trivial statistics)
and for the shipped networks; bad inputs refused."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import require_extra

torch = require_extra("torch", "nn")

import mctslab  # noqa: E402
from mctslab.core.errors import InvalidConfigError  # noqa: E402
from mctslab.nn.compiled import CompiledResNet  # noqa: E402
from mctslab.nn.networks import make_network  # noqa: E402
from mctslab.players.network import load_model, resolve_model  # noqa: E402


def _torch_outputs(net: object, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    with torch.inference_mode():
        logits, values = net(torch.from_numpy(x))  # type: ignore[operator]
    return logits.numpy(), values.numpy()


def _with_statistics(net: object, seed: int) -> object:
    """Batch normalisation with running statistics and affine weights away from 0 and 1,
    as a trained network has them (a fresh one's are 0 and 1, which hides a bad fold)."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for module in net.modules():  # type: ignore[attr-defined]
            if isinstance(module, torch.nn.BatchNorm2d):
                size = module.num_features
                module.running_mean.copy_(torch.randn(size, generator=gen) * 0.3)
                module.running_var.copy_(torch.rand(size, generator=gen) + 0.5)
                module.weight.copy_(torch.rand(size, generator=gen) + 0.5)
                module.bias.copy_(torch.randn(size, generator=gen) * 0.2)
    return net.eval()  # type: ignore[attr-defined, no-any-return]


def _positions(game_name: str, count: int, seed: int) -> np.ndarray:
    """Observation tensors of positions from random games (the player to move's view)."""
    game = mctslab.make(game_name)
    rng = mctslab.core.rng.Rng(seed)
    seen = []
    while len(seen) < count:
        state = game.new_initial_state()
        while not state.is_terminal() and len(seen) < count:
            seen.append(np.asarray(state.observation_tensor(state.current_player()), np.float32))
            legal = state.legal_actions()
            state.apply_action(legal[rng.randint(len(legal))])
    return np.stack(seen).reshape(count, *game.observation_shape())


@pytest.mark.parametrize(
    ("game_name", "channels", "blocks", "hidden"),
    [("connect_four", 32, 3, 64), ("connect_four", 8, 0, 16), ("tic_tac_toe", 16, 2, 32)],
)
def test_the_compiled_forward_pass_is_pytorchs(
    game_name: str, channels: int, blocks: int, hidden: int
) -> None:
    game = mctslab.make(game_name)
    net = _with_statistics(
        make_network(game, channels=channels, blocks=blocks, hidden=hidden, seed=3), seed=4
    )
    compiled = CompiledResNet.from_module(net)
    random_x = np.random.default_rng(5).random((17, *game.observation_shape())).astype(np.float32)
    for x in (random_x, _positions(game_name, 40, seed=6), random_x[:1]):
        logits, values = compiled(x)
        want_logits, want_values = _torch_outputs(net, x)
        assert logits.shape == want_logits.shape and values.shape == want_values.shape
        np.testing.assert_allclose(logits, want_logits, atol=1e-5, rtol=0)
        np.testing.assert_allclose(values, want_values, atol=1e-5, rtol=0)


@pytest.mark.parametrize("name", ["connect_four", "tic_tac_toe"])
def test_the_shipped_networks_compiled(name: str) -> None:
    game = mctslab.make(name)
    net = load_model(resolve_model(name), game)
    compiled = CompiledResNet.from_module(net)
    x = _positions(name, 64, seed=7)
    logits, values = compiled(x)
    want_logits, want_values = _torch_outputs(net, x)
    np.testing.assert_allclose(logits, want_logits, atol=1e-5, rtol=0)
    np.testing.assert_allclose(values, want_values, atol=1e-5, rtol=0)
    # The same moves preferred: the compiled pass is the network, not an approximation.
    assert (logits.argmax(axis=1) == want_logits.argmax(axis=1)).all()


def test_the_compiled_forward_pass_refuses_what_it_cannot_run() -> None:
    game = mctslab.make("connect_four")
    compiled = CompiledResNet.from_module(make_network(game, channels=8, blocks=1))
    with pytest.raises(InvalidConfigError, match=r"observations must be \[batch, 3, 6, 7\]"):
        compiled(np.zeros((2, 3, 7, 6), np.float32))
    with pytest.raises(InvalidConfigError, match="observations must be"):
        compiled(np.zeros((3, 6, 7), np.float32))
    with pytest.raises(InvalidConfigError, match="takes a ResNet"):
        CompiledResNet.from_module(make_network(mctslab.make("nim")))
