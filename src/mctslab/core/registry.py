"""The game registry: ``make(name, **params)`` and ``available_games()`` (pgx's ``make``).

Names that start with ``openspiel:`` are OpenSpiel's games, loaded through
:mod:`mctslab.games.openspiel` (``make("openspiel:go", board_size=9)``); they are
not listed by :func:`available_games`.

The registry is core: it imports no game. :mod:`mctslab.games` registers the built-in
games, and the loader of ``openspiel:`` names, when it is imported (``import mctslab``
does that).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from mctslab.core.errors import InvalidConfigError, UnknownGameError
from mctslab.core.game import Game

__all__ = [
    "available_games",
    "game_parameters",
    "make",
    "parse_value",
    "register",
    "register_prefix",
]

_REGISTRY: dict[str, Callable[..., Game]] = {}
_OPENSPIEL = "openspiel:"  # mctslab.games.openspiel.PREFIX
# prefix -> (load(rest, **params) -> Game, parameters(rest) -> {name: default})
_PREFIXES: dict[str, tuple[Callable[..., Game], Callable[[str], dict[str, Any]]]] = {}


def register_prefix(
    prefix: str, load: Callable[..., Game], parameters: Callable[[str], dict[str, Any]]
) -> None:
    """Route every name that starts with ``prefix`` to ``load(rest, **params)`` (and
    ``parameters(rest)``): how ``openspiel:NAME`` reaches OpenSpiel's games."""
    _PREFIXES[prefix] = (load, parameters)


def _prefixed(name: str) -> tuple[str, Callable[..., Game], Callable[[str], dict[str, Any]]] | None:
    for prefix, (load, parameters) in _PREFIXES.items():
        if name.startswith(prefix):
            return name.removeprefix(prefix), load, parameters
    return None


def parse_value(raw: str) -> Any:
    """A game parameter's value as written on a command line or in a form: an int, a
    float, true/false, none, or else the string (Nim's piles ``"1;3;5"``, which the game
    parses itself). Numbers are ASCII (:mod:`mctslab.core.text`): ``"７"`` (fullwidth)
    stays a string, which the game refuses as not a number.

    >>> parse_value("3"), parse_value("0.5"), parse_value("True"), parse_value("1;3")
    (3, 0.5, True, '1;3')
    """
    low = raw.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    if low == "none":
        return None
    if not raw.isascii():
        return raw
    for convert in (int, float):
        try:
            return convert(raw)
        except ValueError:
            pass
    return raw


def register(name: str, factory: Callable[..., Game]) -> None:
    """Register a game factory under ``name`` (keyword parameters become game parameters)."""
    if name in _REGISTRY:
        raise InvalidConfigError(f"game {name!r} is already registered")
    if name.startswith(_OPENSPIEL):
        raise InvalidConfigError(f"game names starting {_OPENSPIEL!r} are OpenSpiel's: {name!r}")
    _REGISTRY[name] = factory


def available_games() -> list[str]:
    """The registered game names, sorted."""
    return sorted(_REGISTRY)


def game_parameters(name: str) -> dict[str, Any]:
    """The parameters ``name`` accepts, with their defaults."""
    routed = _prefixed(name)
    if routed is not None:
        rest, _, parameters = routed
        return parameters(rest)
    sig = inspect.signature(_factory(name))
    return {
        p.name: p.default
        for p in sig.parameters.values()
        if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD) and p.name != "name"
    }


def _factory(name: str) -> Callable[..., Game]:
    try:
        return _REGISTRY[name]
    except KeyError:
        valid = ", ".join(available_games())
        raise UnknownGameError(
            f"unknown game {name!r}; available games: {valid} "
            f"(and any OpenSpiel game as {_OPENSPIEL}<name>)"
        ) from None


def make(name: str, **params: Any) -> Game:
    """A game by registered name, e.g. ``make("connect_four", rows=5)``, or ``"openspiel:<name>"``.

    Raises :class:`UnknownGameError` listing the valid names, and
    :class:`InvalidConfigError` for an unknown or bad parameter.
    """
    routed = _prefixed(name)
    if routed is not None:
        rest, load, _ = routed
        return load(rest, **params)
    factory = _factory(name)
    valid = game_parameters(name)
    unknown = sorted(set(params) - set(valid))
    if unknown:
        names = ", ".join(valid) or "none"
        raise InvalidConfigError(
            f"unknown parameter {unknown[0]!r} for game {name!r}; valid parameters: {names}"
        )
    try:
        return factory(**params)
    except (TypeError, ValueError) as err:
        if isinstance(err, InvalidConfigError):
            raise
        raise InvalidConfigError(f"bad parameters for game {name!r}: {err}") from None
