"""The game registry: ``make(name, **params)`` and ``available_games()`` (pgx's ``make``).

Names that start with ``openspiel:`` are OpenSpiel's games, loaded through
:mod:`mctslab.games.openspiel` (``make("openspiel:go", board_size=9)``); they are
not listed by :func:`available_games`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from mctslab.errors import InvalidConfigError, UnknownGameError
from mctslab.game import Game

__all__ = ["available_games", "game_parameters", "make", "register"]

_REGISTRY: dict[str, Callable[..., Game]] = {}
_OPENSPIEL = "openspiel:"  # mctslab.games.openspiel.PREFIX, not imported: it is optional


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
    if name.startswith(_OPENSPIEL):
        from mctslab.games import openspiel

        return openspiel.game_parameters(name.removeprefix(_OPENSPIEL))
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
    if name.startswith(_OPENSPIEL):
        from mctslab.games import openspiel  # imports pyspiel, only now

        return openspiel.load(name.removeprefix(_OPENSPIEL), **params)
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


def _register_builtins() -> None:
    from mctslab.games.bohnenspiel import Bohnenspiel
    from mctslab.games.connect_four import ConnectFour
    from mctslab.games.knockout_whist import KnockoutWhist
    from mctslab.games.kuhn_poker import KuhnPoker
    from mctslab.games.nim import Nim, bachet
    from mctslab.games.pig import Pig
    from mctslab.games.tic_tac_toe import TicTacToe

    def nim(piles: Any = (1, 3, 5, 7), max_take: int | None = None, misere: bool = False) -> Game:
        return Nim(piles, max_take=max_take, misere=misere)

    register("tic_tac_toe", TicTacToe)
    register("connect_four", ConnectFour)
    register("nim", nim)
    register("bachet", bachet)
    register("bohnenspiel", Bohnenspiel)
    register("pig", Pig)
    register("kuhn_poker", KuhnPoker)
    register("knockout_whist", KnockoutWhist)


_register_builtins()
