"""Typed errors. Every user error is a ``ValueError`` so callers can catch them together."""

from __future__ import annotations

__all__ = [
    "IllegalActionError",
    "InvalidConfigError",
    "InvalidSpecError",
    "MctslabError",
    "UnknownGameError",
]


class MctslabError(ValueError):
    """Base class of every error mctslab raises for bad user input."""


class IllegalActionError(MctslabError):
    """An action that is not legal in the current state (the message names the legal ones)."""


class UnknownGameError(MctslabError):
    """A game name that is not registered (the message lists the valid names)."""


class InvalidConfigError(MctslabError):
    """A search, solver or game parameter that is out of range or unknown."""


class InvalidSpecError(MctslabError):
    """A malformed player specification string such as ``mcts:iterations=x``."""
