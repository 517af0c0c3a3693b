"""Board symmetries, which a game declares with a ``symmetries()`` method (AlphaGo
Zero's eight dihedral reflections and rotations of the Go board; Silver et al. 2017).

A symmetry maps a training example to another one that is as true: the observation
tensor ``[..., planes, rows, columns]`` and the policy target ``[..., A]`` are transformed
together, the value target is unchanged. Each symmetry is a pair of functions over
batches (numpy arrays), ``(observation_map, policy_map)``; a game's ``symmetries()``
returns them with the identity first. The built-in ones:

- :func:`square_symmetries`: the eight symmetries of an ``n x n`` board whose actions are
  its cells ``row * n + column`` (tic-tac-toe), the policy transformed as an ``n x n``
  plane with the same map as the observation;
- :func:`mirror_symmetries`: the mirror image left to right of a board whose actions are
  its columns (Connect Four: gravity rules out the others), the policy reversed.

A game without ``symmetries()`` has the identity alone (:data:`IDENTITY`); training reads
them through :func:`mctslab.train.symmetry.symmetries`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["IDENTITY", "Symmetry", "identity", "mirror_symmetries", "square_symmetries"]

Array = npt.NDArray[Any]
Symmetry = tuple[Callable[[Array], Array], Callable[[Array], Array]]


def identity(x: Array) -> Array:
    """The identity map (of observations and of policies alike)."""
    return x


#: The identity symmetry: every game has it, first.
IDENTITY: Symmetry = (identity, identity)


def _dihedral(k: int, flip: bool) -> Callable[[Array], Array]:
    """Rotate the last two axes by ``k`` quarter turns, then mirror them if ``flip``."""

    def apply(x: Array) -> Array:
        y = np.rot90(x, k, axes=(-2, -1))
        if flip:
            y = y[..., ::-1]
        return np.ascontiguousarray(y)

    return apply


def _on_cells(
    square: Callable[[Array], Array], rows: int, columns: int
) -> Callable[[Array], Array]:
    """A map of ``[..., rows * columns]`` policies through a map of ``[..., rows, columns]``."""

    def apply(p: Array) -> Array:
        shaped = p.reshape(*p.shape[:-1], rows, columns)
        return np.ascontiguousarray(square(shaped)).reshape(p.shape)

    return apply


def _mirror(x: Array) -> Array:
    return np.ascontiguousarray(x[..., ::-1])


def square_symmetries(n: int) -> list[Symmetry]:
    """The eight symmetries of an ``n x n`` board whose action ``row * n + column`` is a
    cell: the identity, three rotations, four reflections."""
    out: list[Symmetry] = []
    for flip in (False, True):
        for k in range(4):
            square = _dihedral(k, flip)
            out.append((square, _on_cells(square, n, n)))
    return out


def mirror_symmetries() -> list[Symmetry]:
    """The identity and the mirror image left to right, of a board whose action is a
    column (observation ``[..., rows, columns]``, policy ``[..., columns]``)."""
    return [IDENTITY, (_mirror, _mirror)]
