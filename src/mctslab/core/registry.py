"""The game registry: ``make(name, **params)`` and ``available_games()`` (pgx's ``make``).

Names that start with ``openspiel:`` are OpenSpiel's games, loaded through
:mod:`mctslab.games.openspiel` (``make("openspiel:go", board_size=9)``); they are
not listed by :func:`available_games`.

The registry is core: it imports no game. :mod:`mctslab.games` registers the built-in
games, and the loader of ``openspiel:`` names, when it is imported (``import mctslab``
does that).

What a registered game provides beyond the game API, its *capabilities*
(:data:`CAPABILITIES`), is read from the game object itself (:func:`capabilities`), so
that "which games have X" is answered here (:func:`games_with`) and listed nowhere:
``games_with("observation")`` are the games a network can play.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from mctslab.core.errors import InvalidConfigError, MctslabError, UnknownGameError
from mctslab.core.game import Game
from mctslab.core.text import ascii_float, ascii_int, did_you_mean

__all__ = [
    "CAPABILITIES",
    "available_games",
    "capabilities",
    "game_parameters",
    "games_with",
    "has_capability",
    "make",
    "parse_value",
    "register",
    "register_prefix",
]

_REGISTRY: dict[str, Callable[..., Game]] = {}
# name -> capability -> whether the game made with its defaults has it (games are fixed
# once registered: a name cannot be registered twice).
_CAPABLE: dict[str, dict[str, bool]] = {}
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
    parses itself). Numbers are ASCII digits without underscores
    (:mod:`mctslab.core.text`): ``"７"`` (fullwidth) or ``"1_0"`` stays a string, which
    the game refuses as not a number.

    >>> parse_value("3"), parse_value("0.5"), parse_value("True"), parse_value("1;3")
    (3, 0.5, True, '1;3')
    """
    low = raw.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    if low == "none":
        return None
    number = ascii_int(raw, signed=True)
    if number is not None:
        return number
    decimal = ascii_float(raw)
    return raw if decimal is None else decimal


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
            f"unknown game {name!r}{did_you_mean(name, available_games())}; "
            f"available games: {valid} "
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


#: What a game may provide beyond the game API, each read from the game object by
#: :func:`has_capability` (nothing is declared twice: a game has a capability when it
#: provides the thing itself).
CAPABILITIES: dict[str, str] = {
    "kernels": "compiled rule kernels (game.kernels): the compiled engine searches it",
    "observation": "observation tensors, a network's input (game.observation_shape())",
    "heuristic": "a value estimate of its positions (state.heuristic())",
    "symmetries": "board symmetries beyond the identity, for training (game.symmetries())",
}


def _check_capability(capability: str) -> None:
    if capability not in CAPABILITIES:
        raise InvalidConfigError(
            f"unknown capability {capability!r}; capabilities: {', '.join(CAPABILITIES)}"
        )


def has_capability(game: object, capability: str) -> bool:
    """Whether ``game`` provides ``capability`` (a key of :data:`CAPABILITIES`):

    - ``kernels``: a ``kernels`` attribute (:class:`~mctslab.games.kernels.RuleKernels`);
    - ``observation``: an ``observation_shape()`` that gives a shape (a kernel game
      without an ``observation`` kernel refuses it);
    - ``heuristic``: a ``heuristic()`` method on its initial state;
    - ``symmetries``: a ``symmetries()`` method that gives more than the identity.
    """
    _check_capability(capability)
    if capability == "kernels":
        return getattr(game, "kernels", None) is not None
    if capability == "observation":
        shape_of = getattr(game, "observation_shape", None)
        if not callable(shape_of):
            return False
        try:
            shape_of()
        except MctslabError:
            return False
        return True
    if capability == "heuristic":
        state = game.new_initial_state()  # type: ignore[attr-defined]
        return callable(getattr(state, "heuristic", None))
    declared = getattr(game, "symmetries", None)
    return callable(declared) and len(declared()) > 1


def capabilities(game: object) -> frozenset[str]:
    """The capabilities ``game`` provides (see :func:`has_capability`)."""
    return frozenset(c for c in CAPABILITIES if has_capability(game, c))


def games_with(capability: str) -> list[str]:
    """The registered games (made with their defaults) that provide ``capability``,
    sorted: e.g. ``games_with("observation")``, the games a network can play."""
    _check_capability(capability)
    found = []
    for name in available_games():
        known = _CAPABLE.setdefault(name, {})
        if capability not in known:
            known[capability] = has_capability(make(name), capability)
        if known[capability]:
            found.append(name)
    return found
