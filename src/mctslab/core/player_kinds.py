"""A player kind, as a spec string names it (``mcts:iterations=500``), declared once.

A :class:`PlayerKind` is one row of the table :func:`mctslab.players.player.make_player`
reads: the kind's name, the factory that makes the player from the spec's raw
``key=value`` options, whether the player reads the hidden information of a game that
has some, the config dataclasses whose :func:`~mctslab.core.options.option` fields the
spec's keys set, and a line of help. The players layer registers the built-in kinds; a
game adds its own by declaring them on its class (the registered factory) as
``player_kinds``, a tuple of :class:`PlayerKind`, which the players layer reads from
every registered game (:func:`mctslab.core.registry.declarations`) without making it::

    class Pig:
        player_kinds = (PlayerKind("pig-hold", hold_player, reads_hidden_information=True,
                                   options=(PigHoldOptions,), help="hold at N"),)

The type lives in core because a game (a lower layer than the players) declares it.
:func:`spec_config` and :func:`spec_values` turn a spec's raw options into config values
by the configs' option schema (names, aliases, types: :mod:`mctslab.core.options`), so
a game's kind parses its options as the built-in kinds do.

>>> from dataclasses import dataclass
>>> from mctslab.core.options import option
>>> @dataclass(frozen=True)
... class Hold:
...     at: int = option(20, "hold at this turn total", low=1, aliases=("n",))
>>> spec_config("hold", Hold, {"n": "15"})
Hold(at=15)
>>> spec_config("hold", Hold, {"att": "15"})
Traceback (most recent call last):
    ...
mctslab.core.errors.InvalidSpecError: unknown hold option 'att' (did you mean at?); valid options: at
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from mctslab.core.errors import InvalidConfigError, InvalidSpecError
from mctslab.core.game import GameInfo
from mctslab.core.options import Option, options_of, parse_value
from mctslab.core.text import did_you_mean

__all__ = [
    "PlayerFactory",
    "PlayerKind",
    "build",
    "spec_config",
    "spec_values",
    "unknown_option",
]

#: ``factory(options, info, seed) -> player``: the player of a spec from its raw
#: ``key=value`` options, the game's info and the seed given to ``make_player`` (a
#: spec's own ``seed=`` is the kind's to read). It returns an object with ``name``,
#: ``choose(state)`` and ``inform(action)`` (:class:`mctslab.players.player.Player`).
PlayerFactory = Callable[[dict[str, str], GameInfo, int], Any]

T = TypeVar("T")


@dataclass(frozen=True)
class PlayerKind:
    """One player kind of the spec strings.

    Attributes:
        name: the kind, the spec's part before ``:`` (``"pig-hold"``).
        make: the :data:`PlayerFactory`.
        reads_hidden_information: whether the player reads the full state it is handed,
            the other players' hidden cards included (``mcts`` does; ``ismcts`` chooses
            from its own information set): the arena refuses such a player in a game with
            hidden information unless cheating is allowed.
        options: the config dataclasses whose :func:`~mctslab.core.options.option` fields
            the spec's keys set (``()``: none declared, as for ``random``).
        help: one line on what the player does.
        takes_command: everything after ``kind:`` is one option, ``command`` (``gtp:``),
            not ``key=value`` pairs.
        timed: a clock can give its search the budget
            (:func:`mctslab.players.time_control.timed_spec`): the kind's search reads
            ``time=`` (``mcts``, ``puct``, ``ismcts``, ...).
    """

    name: str
    make: PlayerFactory
    reads_hidden_information: bool
    options: tuple[type, ...] = ()
    help: str = ""
    takes_command: bool = False
    timed: bool = False


def unknown_option(kind: str, key: str, valid: Iterable[str]) -> InvalidSpecError:
    """The error of a key ``kind`` does not take: the closest valid keys, then all."""
    names = sorted(set(valid))
    return InvalidSpecError(
        f"unknown {kind} option {key!r}{did_you_mean(key, names)}; "
        f"valid options: {', '.join(names)}"
    )


def _by_name(table: Mapping[str, Option]) -> dict[str, Option]:
    """A config's spec options under their names and aliases."""
    return {name: opt for opt in table.values() if opt.spec for name in opt.names}


def spec_values(
    kind: str,
    raw: Mapping[str, str],
    tables: Sequence[Mapping[str, Option]],
    valid: Iterable[str] | None = None,
) -> list[dict[str, Any]]:
    """Each of a spec's ``key=value`` options parsed as the option it names (by name or
    alias) in the first of ``tables`` that has it, one ``{field: value}`` per table.

    Keys are read in the spec's order, so the first bad one is the one reported: a key no
    table has (:func:`unknown_option` listing ``valid``, by default every option's name)
    or a value of the wrong type (:func:`~mctslab.core.options.parse_value`). Ranges are
    the configs' to check.
    """
    named = [_by_name(table) for table in tables]
    values: list[dict[str, Any]] = [{} for _ in tables]
    for key, text in raw.items():
        index = next((i for i, table in enumerate(named) if key in table), None)
        if index is None:
            shown = valid if valid is not None else [n for t in tables for n in t]
            raise unknown_option(kind, key, shown)
        opt = named[index][key]
        values[index][opt.name] = parse_value(opt, text)
    return values


def spec_config(kind: str, cls: Callable[..., T], raw: Mapping[str, str], **given: Any) -> T:
    """``cls`` (a config dataclass declared with :func:`~mctslab.core.options.option`)
    from a spec's raw options (:func:`spec_values`), ``given`` filling the fields the
    spec does not set; the config's own check failing is an :class:`InvalidSpecError`
    with its message."""
    (values,) = spec_values(kind, raw, [options_of(cls)])  # type: ignore[arg-type]
    return build(cls, {**given, **values})


def build(cls: Callable[..., T], values: Mapping[str, Any]) -> T:
    """``cls(**values)``, its :class:`InvalidConfigError` re-raised as the spec's error."""
    try:
        return cls(**values)
    except InvalidConfigError as err:
        raise InvalidSpecError(str(err)) from None
