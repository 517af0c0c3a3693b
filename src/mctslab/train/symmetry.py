"""Board symmetries as data augmentation (AlphaGo Zero's eight dihedral reflections and
rotations of the Go board; Silver et al. 2017).

A symmetry maps a training example to another one that is as true: the observation
tensor ``[..., planes, rows, columns]`` and the policy target ``[..., A]`` are transformed
together, the value target is unchanged. Each game declares its own with a
``symmetries()`` method (:mod:`mctslab.games.symmetry`: tic-tac-toe's eight of the
square, Connect Four's mirror image); any other game gets the identity alone. Each
symmetry is a pair of functions over batches (numpy arrays), ``(observation_map,
policy_map)``.
"""

from __future__ import annotations

from typing import Any

from mctslab.games.symmetry import IDENTITY, Symmetry

__all__ = ["Symmetry", "symmetries"]


def symmetries(game: Any) -> list[Symmetry]:
    """The symmetries of ``game`` (the identity first): its ``symmetries()``, else the
    identity alone."""
    declared = getattr(game, "symmetries", None)
    if declared is None:
        return [IDENTITY]
    found = list(declared())
    return found or [IDENTITY]
