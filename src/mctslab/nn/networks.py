"""Policy-value networks (AlphaGo's two functions in one network, as AlphaZero has them).

Silver et al. 2017 ("Mastering the game of Go without human knowledge") and 2018
(AlphaZero) use one network with two heads over the board: a tower of residual blocks
(He et al. 2016), a policy head of move logits and a value head ending in ``tanh``. The
networks here keep the evaluator contract of
:class:`~mctslab.search.evaluators.TorchEvaluator`::

    policy_logits, value = net(observations)   # [B, *shape] float32 -> [B, A], [B]

with ``value`` in ``[-1, 1]`` for the player to move. :class:`ResNet` takes observations
shaped ``(planes, rows, columns)`` (tic-tac-toe, Connect Four: OpenSpiel's layouts);
:class:`MLP` flat ones (Nim, Bohnenspiel). :func:`make_network` picks by the game's
observation shape. Sizes are options: a 2-core CPU trains a few residual blocks of 32
to 64 channels; AlphaZero's Go network had 20 to 40 blocks of 256.
"""

from __future__ import annotations

import math
from typing import Any, Literal

import torch
from torch import nn

from mctslab.core.errors import InvalidConfigError

__all__ = ["MLP", "NETWORK_KINDS", "ResNet", "ResidualBlock", "make_network", "parameter_count"]

#: The network kinds :func:`make_network` knows (``"auto"``: by the observation's shape).
NETWORK_KINDS = ("auto", "resnet", "mlp")


class ResidualBlock(nn.Module):  # type: ignore[misc]
    """Two 3x3 convolutions with batch normalisation and a skip connection (He et al. 2016)."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x: Any) -> Any:
        y = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(x + self.bn2(self.conv2(y)))


class ResNet(nn.Module):  # type: ignore[misc]
    """AlphaZero's network, small: a 3x3 stem, ``blocks`` residual blocks of ``channels``,
    a policy head (1x1 convolution to 2 planes, a linear layer to the move logits) and a
    value head (1x1 convolution to 1 plane, a hidden layer of ``hidden``, ``tanh``)."""

    def __init__(
        self,
        observation_shape: tuple[int, ...],
        num_actions: int,
        channels: int = 32,
        blocks: int = 3,
        hidden: int = 64,
    ) -> None:
        super().__init__()
        planes, rows, columns = observation_shape
        self.observation_shape = (planes, rows, columns)
        cells = rows * columns
        self.stem = nn.Sequential(
            nn.Conv2d(planes, channels, 3, padding=1, bias=False),
            nn.BatchNorm2d(channels),
            nn.ReLU(),
        )
        self.tower = nn.Sequential(*(ResidualBlock(channels) for _ in range(blocks)))
        self.policy = nn.Sequential(
            nn.Conv2d(channels, 2, 1, bias=False),
            nn.BatchNorm2d(2),
            nn.ReLU(),
            nn.Flatten(),
            nn.Linear(2 * cells, num_actions),
        )
        self.value = nn.Sequential(
            nn.Conv2d(channels, 1, 1, bias=False),
            nn.BatchNorm2d(1),
            nn.ReLU(),
            nn.Flatten(),
            nn.Linear(cells, hidden),
            nn.ReLU(),
            nn.Linear(hidden, 1),
            nn.Tanh(),
        )

    def forward(self, x: Any) -> tuple[Any, Any]:
        h = self.tower(self.stem(x))
        return self.policy(h), self.value(h).squeeze(1)


class MLP(nn.Module):  # type: ignore[misc]
    """For flat observations: ``layers`` hidden layers of ``hidden`` units (ReLU), then a
    policy head (move logits) and a value head (``tanh``)."""

    def __init__(
        self,
        observation_shape: tuple[int, ...],
        num_actions: int,
        hidden: int = 128,
        layers: int = 2,
    ) -> None:
        super().__init__()
        width = math.prod(observation_shape)
        body: list[nn.Module] = [nn.Flatten()]
        for i in range(layers):
            body += [nn.Linear(width if i == 0 else hidden, hidden), nn.ReLU()]
        self.body = nn.Sequential(*body)
        self.policy = nn.Linear(hidden if layers else width, num_actions)
        self.value = nn.Sequential(nn.Linear(hidden if layers else width, 1), nn.Tanh())

    def forward(self, x: Any) -> tuple[Any, Any]:
        h = self.body(x)
        return self.policy(h), self.value(h).squeeze(1)


def _size(name: str, value: object, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise InvalidConfigError(
            f"network: {name} must be an integer in [{low}, {high}], got {value!r}"
        )
    return value


def make_network(
    game: Any,
    kind: Literal["auto", "resnet", "mlp"] = "auto",
    *,
    channels: int = 32,
    blocks: int = 3,
    hidden: int = 64,
    layers: int = 2,
    seed: int = 0,
) -> nn.Module:
    """A policy-value network for ``game``'s observation tensor and moves, its weights
    drawn from ``seed`` (``torch.Generator``-free: the global seed is set and restored).

    ``kind="auto"``: :class:`ResNet` for observations shaped ``(planes, rows, columns)``,
    :class:`MLP` otherwise. Raises :class:`InvalidConfigError` for an unknown kind, sizes
    out of range, or a game without observation tensors."""
    if kind not in NETWORK_KINDS:
        raise InvalidConfigError(
            f"unknown network kind {kind!r}; valid kinds: {', '.join(NETWORK_KINDS)}"
        )
    shape_of = getattr(game, "observation_shape", None)
    if shape_of is None:
        raise InvalidConfigError(f"{game!r} has no observation tensor to feed a network")
    shape = tuple(shape_of())
    num_actions = game.info.num_actions
    if kind == "auto":
        kind = "resnet" if len(shape) == 3 else "mlp"
    if kind == "resnet" and len(shape) != 3:
        raise InvalidConfigError(
            f"a resnet needs observations shaped (planes, rows, columns); {game.info.name}'s "
            f"are {shape}"
        )
    if kind == "resnet":
        sizes = {
            "channels": _size("channels", channels, 1, 1024),
            "blocks": _size("blocks", blocks, 0, 64),
            "hidden": _size("hidden", hidden, 1, 4096),
        }
    else:
        sizes = {
            "hidden": _size("hidden", hidden, 1, 4096),
            "layers": _size("layers", layers, 0, 16),
        }
    state = torch.random.get_rng_state()
    torch.manual_seed(seed)
    try:
        cls = ResNet if kind == "resnet" else MLP
        net: nn.Module = cls(shape, num_actions, **sizes)
    finally:
        torch.random.set_rng_state(state)
    # What rebuilds it (mctslab.nn.checkpoint saves it beside the weights).
    object.__setattr__(net, "mctslab_spec", {"kind": kind, **sizes, "seed": seed})
    return net


def parameter_count(net: nn.Module) -> int:
    """The number of trainable parameters."""
    return sum(p.numel() for p in net.parameters() if p.requires_grad)
