"""The game registry: ``make(name, **params)`` and ``available_games()`` (pgx's ``make``).

Names that start with ``openspiel:`` are OpenSpiel's games, loaded through
:mod:`mctslab.games.openspiel` (``make("openspiel:go", board_size=9)``); they are
not listed by :func:`available_games`.

The registry is core: it imports no game. :mod:`mctslab.games` registers the built-in
games, and the loader of ``openspiel:`` names, when it is imported (``import mctslab``
does that).

**Your own games** reach every command and the web lab by name in two ways, read here:

- an installed package's entry point in the group :data:`ENTRY_POINT_GROUP`
  (``mctslab.games``): ``name = "module:GameClass"`` (or a factory), loaded the first
  time the registry is asked for its games, once the built-in games are registered;
- :func:`load_game_module` (``--game-module module:GameClass`` on the command line, or
  a bare ``module`` that calls :func:`register` itself), which also names the module in
  the environment variable :data:`GAME_MODULES_ENV` so that worker processes started
  with ``spawn`` load it too.

Both are the operator's choice: the name of a module to import is never read from a
file a user hands over (a run directory, an SGF, a checkpoint): those carry a game's
name, which only this registry resolves.

What a registered game provides beyond the game API, its *capabilities*
(:data:`CAPABILITIES`), is read from the game object itself (:func:`capabilities`), so
that "which games have X" is answered here (:func:`games_with`) and listed nowhere:
``games_with("observation")`` are the games a network can play.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import inspect
import os
import sys
import typing
from collections.abc import Callable
from typing import Any

from mctslab.core.declarations import Parameter
from mctslab.core.errors import InvalidConfigError, MctslabError, UnknownGameError
from mctslab.core.game import Game
from mctslab.core.text import ascii_float, ascii_int, did_you_mean

__all__ = [
    "CAPABILITIES",
    "ENTRY_POINT_GROUP",
    "GAME_MODULES_ENV",
    "allow_plugins",
    "available_games",
    "capabilities",
    "declarations",
    "game_parameters",
    "games_with",
    "has_capability",
    "load_game_module",
    "make",
    "parameter_choices",
    "parameter_schema",
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
    """The registered game names, sorted (your packages' entry points included)."""
    _load_plugins()
    return sorted(_REGISTRY)


#: The entry-point group of games in installed packages: ``name = "module:GameClass"``.
ENTRY_POINT_GROUP = "mctslab.games"
#: Game modules to load in every mctslab process (comma-separated ``--game-module``
#: values): set by :func:`load_game_module` for the worker processes it starts.
GAME_MODULES_ENV = "MCTSLAB_GAME_MODULES"
# Plugins load once the built-in games are registered (allow_plugins), then once only;
# an entry point that failed says why when its name is asked for.
_PLUGINS = {"allowed": False, "loaded": False}
_PLUGIN_ERRORS: dict[str, str] = {}
_LOADED_MODULES: dict[str, list[str]] = {}


def allow_plugins() -> None:
    """Let the registry load games from entry points and :data:`GAME_MODULES_ENV`
    (``mctslab/__init__`` calls it last: the built-in names are taken, so that no plugin
    takes one, and a plugin that imports from ``mctslab`` finds it whole)."""
    _PLUGINS["allowed"] = True


def _load_plugins() -> None:
    if _PLUGINS["loaded"] or not _PLUGINS["allowed"]:
        return
    _PLUGINS["loaded"] = True
    for spec in filter(None, os.environ.get(GAME_MODULES_ENV, "").split(",")):
        try:
            load_game_module(spec.strip(), export=False)
        except MctslabError as err:
            _PLUGIN_ERRORS[spec] = str(err)
    for point in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        where = f"entry point {point.name} = {point.value!r} ({ENTRY_POINT_GROUP})"
        if point.name in _REGISTRY:
            continue  # a built-in name, or the game a --game-module registered: it stays
        try:
            factory = point.load()
        except Exception as err:  # the package's own error, kept for its name
            _PLUGIN_ERRORS[point.name] = f"{where} failed to load: {type(err).__name__}: {err}"
            continue
        try:  # a game made with its defaults somewhere (games_with, the lab's menu)
            _made_game_name(where, point.value, factory)
        except InvalidConfigError as err:
            _PLUGIN_ERRORS[point.name] = str(err)
            continue
        _REGISTRY[point.name] = factory


def load_game_module(spec: str, export: bool = True) -> list[str]:
    """Register the game of ``spec`` and return the names it added:
    ``"package.module:GameClass"`` (or a factory: called with no arguments it makes the
    game, registered under its ``info.name``), or ``"package.module"`` alone, a module
    that calls :func:`register` when imported. Loading the same spec twice adds nothing.
    ``export``: name it in :data:`GAME_MODULES_ENV` for the processes this one starts.

    Raises :class:`InvalidConfigError` saying what is wrong: no such module (on
    ``sys.path``: ``PYTHONPATH``, installed packages, then the current directory), no such
    attribute, not a game, a name already taken, or the module's own error.
    """
    if spec in _LOADED_MODULES:
        return list(_LOADED_MODULES[spec])
    module_name, _, attribute = spec.partition(":")
    if not module_name.strip() or not all(p.isidentifier() for p in module_name.split(".")):
        raise InvalidConfigError(
            f"game module {spec!r}: expected package.module:GameClass or package.module"
        )
    before = set(_REGISTRY)
    module = _import(spec, module_name)
    added = sorted(set(_REGISTRY) - before)
    if attribute:
        name = _register_attribute(spec, module, attribute)
        added = sorted({*added, name})
    elif not added:
        raise InvalidConfigError(
            f"game module {spec!r} registered no game: name its class "
            f"({module_name}:GameClass), or call mctslab.register(name, GameClass) in it"
        )
    _LOADED_MODULES[spec] = added
    if export:
        loaded = [s for s in os.environ.get(GAME_MODULES_ENV, "").split(",") if s]
        os.environ[GAME_MODULES_ENV] = ",".join(dict.fromkeys([*loaded, spec]))
    return added


def _import(spec: str, module_name: str) -> Any:
    # The current directory is searched too, last (as uvicorn's --app-dir): a console
    # script's sys.path starts at its own bin/, and the last place shadows no package.
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.append(os.getcwd())
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as err:
        if err.name is not None and module_name.startswith(err.name):
            raise InvalidConfigError(
                f"game module {spec!r}: no module named {err.name!r} (it must be importable: "
                "in the current directory, on PYTHONPATH or installed)"
            ) from None
        raise InvalidConfigError(f"game module {spec!r} failed to import: {err}") from None
    except Exception as err:  # the module's own error: said in one line, with its type
        raise InvalidConfigError(
            f"game module {spec!r} failed to import: {type(err).__name__}: {err}"
        ) from None


def _made_game_name(where: str, label: str, factory: Any) -> str:
    """The ``info.name`` of the game ``factory()`` makes (every registered game is made
    with its defaults somewhere: ``games_with``, the lab's menu), or InvalidConfigError
    saying why it makes none."""
    if not callable(factory):
        raise InvalidConfigError(f"{where}: {label} is not a game class or factory")
    try:
        game = factory()
    except Exception as err:
        raise InvalidConfigError(
            f"{where}: {label}() failed (every parameter needs a default): "
            f"{type(err).__name__}: {err}"
        ) from None
    name = getattr(getattr(game, "info", None), "name", None)
    if not isinstance(name, str) or not callable(getattr(game, "new_initial_state", None)):
        raise InvalidConfigError(
            f"{where}: {label}() is not a game (it needs info.name and new_initial_state(): "
            "docs/games.md, Adding your own game)"
        )
    return name


def _register_attribute(spec: str, module: Any, attribute: str) -> str:
    """Register ``module.attribute`` (dotted) under the name of the game it makes; the
    name it already has when the module registered it itself."""
    target: Any = module
    for part in attribute.split("."):
        if not part.isidentifier() or not hasattr(target, part):
            raise InvalidConfigError(
                f"game module {spec!r}: {module.__name__} has no {attribute!r}"
            )
        target = getattr(target, part)
    for name, factory in _REGISTRY.items():
        if factory is target:
            return name  # the module registered it
    game_name = _made_game_name(f"game module {spec!r}", attribute, target)
    register(game_name, target)
    return game_name


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


def parameter_choices(name: str) -> dict[str, tuple[str, ...]]:
    """The parameters of ``name`` that take one of a few words, and those words, as the
    factory's ``Literal`` annotations say (Go's ``ko``, Bohnenspiel's ``utility``): a form
    offers a menu for each instead of a text field. ``{}`` for OpenSpiel's games and for
    a factory whose annotations do not resolve.

    >>> parameter_choices("go")["ko"]
    ('superko', 'simple')
    """
    if _prefixed(name) is not None:
        return {}
    factory = _factory(name)
    target = factory.__init__ if inspect.isclass(factory) else factory
    try:
        hints = typing.get_type_hints(target)
    except Exception:  # a user's factory with an annotation that does not resolve
        return {}
    choices: dict[str, tuple[str, ...]] = {}
    for key, hint in hints.items():
        words = typing.get_args(hint) if typing.get_origin(hint) is typing.Literal else ()
        if words and all(isinstance(w, str) for w in words):
            choices[key] = tuple(words)
    return choices


def parameter_schema(name: str) -> tuple[Parameter, ...]:
    """The parameters of ``name`` as a form offers them
    (:class:`~mctslab.core.declarations.Parameter`: default, bounds, choices, a note).

    A game declares its own with a ``parameter_schema()`` on its class (or factory):
    the parameters a form offers, with the defaults, bounds and notes it gives (SameGame's
    sizes, Morpion's variants, the travelling salesman's shipped instances). Otherwise
    the schema is the constructor's: each parameter with its default, and the words of
    its ``Literal`` annotation as choices (:func:`parameter_choices`).

    >>> [p.describe() for p in parameter_schema("go")][:3]
    ['board_size=9', 'komi=7.5', "ko='superko' (superko | simple)"]
    """
    if _prefixed(name) is None:
        declared = getattr(_factory(name), "parameter_schema", None)
        if callable(declared):
            return tuple(declared())
    choices = parameter_choices(name)
    return tuple(
        Parameter(key, default, choices=choices.get(key, ()))
        for key, default in game_parameters(name).items()
    )


def declarations(attribute: str) -> list[tuple[str, Any]]:
    """``(game name, value)`` of each registered game whose factory (its class) declares
    ``attribute``, in name order, read without making a game: how a game's own player
    kinds (``player_kinds``, :mod:`mctslab.core.player_kinds`) reach the layers above."""
    found = []
    for name in available_games():
        value = getattr(_REGISTRY[name], attribute, None)
        if value is not None:
            found.append((name, value))
    return found


def _factory(name: str) -> Callable[..., Game]:
    if name not in _REGISTRY:  # a built-in game is made without reading the plugins
        _load_plugins()
    try:
        return _REGISTRY[name]
    except KeyError:
        if name in _PLUGIN_ERRORS:
            raise UnknownGameError(_PLUGIN_ERRORS[name]) from None
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
