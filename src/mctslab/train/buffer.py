"""The replay buffer: the last ``capacity`` self-play positions (AlphaZero trained on the
positions of its most recent games), sampled uniformly with a random symmetry of the
game applied to each (:mod:`mctslab.train.symmetry`).

Saved as one ``.npz`` file written to a temporary file and renamed over the target, so
that a crash leaves the previous buffer or the new one, never half of one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from mctslab.core.errors import InvalidConfigError
from mctslab.core.files import atomic_file
from mctslab.train.symmetry import Symmetry

__all__ = ["KEYS", "ReplayBuffer", "atomic_savez"]

#: The arrays of an example (see :func:`mctslab.train.selfplay.play_games`).
KEYS = ("observation", "legal_mask", "policy", "value")

Array = npt.NDArray[Any]


def atomic_savez(path: Path, arrays: dict[str, Array]) -> None:
    """``numpy.savez`` to a temporary file beside ``path``, renamed over it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_file(path) as f:
        np.savez(f, **arrays)  # type: ignore[arg-type]


class ReplayBuffer:
    """The last ``capacity`` examples, oldest dropped first."""

    def __init__(self, capacity: int) -> None:
        if capacity < 1:
            raise InvalidConfigError(f"buffer capacity must be >= 1, got {capacity}")
        self.capacity = capacity
        self.arrays: dict[str, Array] = {}

    def __len__(self) -> int:
        return len(self.arrays["value"]) if self.arrays else 0

    def add(self, examples: dict[str, Array]) -> None:
        """Append ``examples`` (the :data:`KEYS` arrays), keeping the newest ``capacity``."""
        new = {k: np.asarray(examples[k]) for k in KEYS}
        if self.arrays:
            new = {k: np.concatenate([self.arrays[k], new[k]]) for k in KEYS}
        self.arrays = {k: v[-self.capacity :] for k, v in new.items()}

    def sample(
        self, rng: np.random.Generator, size: int, symmetries: list[Symmetry]
    ) -> dict[str, Array]:
        """``size`` examples drawn uniformly (with replacement), each under a symmetry
        drawn uniformly from ``symmetries``."""
        n = len(self)
        if n == 0:
            raise InvalidConfigError("the replay buffer is empty")
        idx = rng.integers(0, n, size=size)
        which = rng.integers(0, len(symmetries), size=size)
        obs = self.arrays["observation"][idx].copy()
        mask = self.arrays["legal_mask"][idx].copy()
        pol = self.arrays["policy"][idx].copy()
        for s, (on_obs, on_policy) in enumerate(symmetries):
            rows = np.nonzero(which == s)[0]
            if s == 0 or not len(rows):
                continue
            obs[rows] = on_obs(obs[rows])
            mask[rows] = on_policy(mask[rows])
            pol[rows] = on_policy(pol[rows])
        return {
            "observation": obs,
            "legal_mask": mask,
            "policy": pol,
            "value": self.arrays["value"][idx].copy(),
        }

    def save(self, path: Path) -> None:
        """Write the buffer to ``path`` atomically."""
        atomic_savez(path, {"capacity": np.array(self.capacity), **self.arrays})

    @classmethod
    def load(cls, path: Path, capacity: int) -> ReplayBuffer:
        """The buffer saved at ``path`` (kept to its newest ``capacity`` examples)."""
        buf = cls(capacity)
        with np.load(path, allow_pickle=False) as data:
            if all(k in data for k in KEYS):
                buf.add({k: data[k] for k in KEYS})
        return buf
