"""Training steps: AlphaZero's loss on minibatches from the replay buffer.

For a position with observation ``s``, visit distribution ``pi`` and outcome ``z`` (for
the player to move), the network's policy logits ``o`` (illegal moves masked out) and
value ``v`` give (Silver et al. 2018)::

    l = (z - v)^2  -  pi . log softmax(o)  +  c ||theta||^2

averaged over the minibatch: squared error of the value, cross-entropy of the policy
against the search's visits, and an L2 penalty of weight ``c`` on the weights. The L2
term is applied as the optimizer's weight decay ``2c`` (the gradient of ``c||theta||^2``),
with SGD with momentum (AlphaZero's optimizer) or Adam (the default here: less
sensitive to its learning rate on small runs).

The learning rate of generation ``g`` of ``G`` follows a schedule
(:func:`learning_rate`): ``constant``, or ``cosine`` (Loshchilov and Hutter 2017, SGDR
without restarts), ``lr_g = lr_min + (lr - lr_min) (1 + cos(pi (g - 1) / (G - 1))) / 2``:
the full rate at the first generation, ``lr_min`` at the last. Large steps early, while
the self-play data changes fast, and small ones late, to settle on what it has learned.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from mctslab.core.errors import InvalidConfigError
from mctslab.train.buffer import ReplayBuffer
from mctslab.train.config import LR_SCHEDULES, OPTIMIZERS  # the options' words, declared there
from mctslab.train.symmetry import Symmetry

__all__ = [
    "LR_SCHEDULES",
    "OPTIMIZERS",
    "Losses",
    "learning_rate",
    "make_optimizer",
    "set_learning_rate",
    "train_steps",
]


def learning_rate(lr: float, schedule: str, lr_min: float, g: int, generations: int) -> float:
    """The learning rate of generation ``g`` (1 to ``generations``) under ``schedule``
    (see the module docstring); past the last generation, the last one's.

    >>> learning_rate(1e-3, "constant", 1e-5, 7, 10)
    0.001
    >>> [round(learning_rate(1.0, "cosine", 0.0, g, 3), 3) for g in (1, 2, 3, 4)]
    [1.0, 0.5, 0.0, 0.0]
    """
    if schedule not in LR_SCHEDULES:
        raise InvalidConfigError(
            f"unknown learning-rate schedule {schedule!r}; valid: {', '.join(LR_SCHEDULES)}"
        )
    if schedule == "constant" or generations <= 1:
        return lr
    t = min(max(g - 1, 0), generations - 1) / (generations - 1)
    return lr_min + (lr - lr_min) * (1.0 + math.cos(math.pi * t)) / 2.0


def set_learning_rate(optimizer: torch.optim.Optimizer, lr: float) -> None:
    """Every parameter group of ``optimizer`` at ``lr`` (its state, Adam's moments, kept)."""
    for group in optimizer.param_groups:
        group["lr"] = lr


@dataclass(frozen=True)
class Losses:
    """Mean losses over the steps: value (squared error), policy (cross-entropy), the L2
    term ``c ||theta||^2`` at the end, and the total."""

    value: float
    policy: float
    l2: float
    steps: int

    @property
    def total(self) -> float:
        return self.value + self.policy + self.l2


def make_optimizer(
    net: Any, kind: str, lr: float, l2: float, momentum: float = 0.9
) -> torch.optim.Optimizer:
    """``adam`` or ``sgd`` (with Nesterov-free momentum) over ``net``'s weights, with the
    L2 penalty ``l2 ||theta||^2`` as weight decay ``2 * l2``."""
    if kind not in OPTIMIZERS:
        raise InvalidConfigError(f"unknown optimizer {kind!r}; valid: {', '.join(OPTIMIZERS)}")
    if not lr > 0:
        raise InvalidConfigError(f"learning rate must be > 0, got {lr}")
    if not l2 >= 0:
        raise InvalidConfigError(f"l2 must be >= 0, got {l2}")
    if kind == "adam":
        return torch.optim.Adam(net.parameters(), lr=lr, weight_decay=2 * l2)
    return torch.optim.SGD(net.parameters(), lr=lr, momentum=momentum, weight_decay=2 * l2)


def _l2(net: Any) -> float:
    return float(sum(float((p.detach() ** 2).sum()) for p in net.parameters()))


def train_steps(
    net: Any,
    optimizer: torch.optim.Optimizer,
    buffer: ReplayBuffer,
    steps: int,
    batch_size: int,
    symmetries: list[Symmetry],
    rng: np.random.Generator,
    l2: float,
    device: str = "cpu",
) -> Losses:
    """``steps`` optimizer steps on minibatches of ``batch_size`` (see the module
    docstring); returns the mean losses. Leaves ``net`` in eval mode."""
    net.train()
    value_sum = policy_sum = 0.0
    for _ in range(steps):
        batch = buffer.sample(rng, batch_size, symmetries)
        obs = torch.from_numpy(batch["observation"]).to(device)
        mask = torch.from_numpy(batch["legal_mask"]).to(device)
        pi = torch.from_numpy(batch["policy"]).to(device)
        z = torch.from_numpy(batch["value"]).to(device)
        logits, v = net(obs)
        logits = logits.masked_fill(~mask, -1e9)
        policy_loss = -(pi * torch.log_softmax(logits, dim=1)).sum(dim=1).mean()
        value_loss = ((z - v.reshape(-1)) ** 2).mean()
        loss = value_loss + policy_loss
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        value_sum += value_loss.item()
        policy_sum += policy_loss.item()
    net.eval()
    n = max(steps, 1)
    return Losses(value_sum / n, policy_sum / n, l2 * _l2(net), steps)
