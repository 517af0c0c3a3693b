"""Board symmetries as data augmentation (AlphaGo Zero's eight dihedral reflections and
rotations of the Go board; Silver et al. 2017).

A symmetry maps a training example to another one that is as true: the observation
tensor ``[..., planes, rows, columns]`` and the policy target ``[..., A]`` are transformed
together, the value target is unchanged. Known here:

- ``tic_tac_toe``: the eight symmetries of the square (the identity, three rotations,
  four reflections); an action is a cell ``row * 3 + column``, so the policy is
  transformed as a 3x3 plane with the same map as the observation;
- ``connect_four``: the mirror image left to right (gravity rules out the others); an
  action is a column, so the policy is reversed.

Any other game gets the identity alone. Each symmetry is a pair of functions over
batches (numpy arrays), ``(observation_map, policy_map)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["Symmetry", "symmetries"]

Array = npt.NDArray[Any]
Symmetry = tuple[Callable[[Array], Array], Callable[[Array], Array]]


def _identity(x: Array) -> Array:
    return x


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


def symmetries(game: Any) -> list[Symmetry]:
    """The symmetries of ``game`` (the identity first)."""
    name = game.info.name
    shape = tuple(game.observation_shape()) if hasattr(game, "observation_shape") else ()
    if name == "tic_tac_toe" and len(shape) == 3 and shape[1] == shape[2]:
        n = shape[1]
        out: list[Symmetry] = []
        for flip in (False, True):
            for k in range(4):
                square = _dihedral(k, flip)
                out.append((square, _on_cells(square, n, n)))
        return out
    if name == "connect_four" and len(shape) == 3:
        return [(_identity, _identity), (_mirror, _mirror)]
    return [(_identity, _identity)]
