"""Typed errors. Every user error is a ``ValueError`` so callers can catch them together."""

from __future__ import annotations

from collections.abc import Callable, Sequence

__all__ = [
    "IllegalActionError",
    "InvalidConfigError",
    "InvalidSpecError",
    "MctslabError",
    "UnknownGameError",
    "illegal_action_message",
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


def illegal_action_message(
    game: str,
    action: str,
    legal: Sequence[int],
    name: Callable[[int], str],
    limit: int | None = None,
) -> str:
    """The one-line message of an :class:`IllegalActionError`: ``action`` (as the caller
    writes it) is not legal in ``game``; ``legal`` are the legal action ids (empty once
    the game is over), shown with their ``name``; ``limit`` shows at most that many."""
    if not legal:
        return f"illegal action {action} in {game}: the game is over"
    shown = legal if limit is None else legal[:limit]
    text = ", ".join(f"{a} ({name(a)})" for a in shown)
    more = f" and {len(legal) - len(shown)} more" if len(shown) < len(legal) else ""
    return f"illegal action {action} in {game}; legal actions: {text}{more}"
