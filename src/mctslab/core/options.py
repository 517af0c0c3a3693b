"""An option's metadata, written once on the field of the config dataclass that holds it.

A config (:class:`mctslab.search.config.SearchConfig`, :class:`~mctslab.search.puct.PuctConfig`,
:class:`mctslab.train.config.TrainConfig`, the single-player searches' configs) declares
each of its options with :func:`option`: the default, a one-line help, the bounds or
the choices, the other names a spec string takes for it, and whether the web lab offers
it. :func:`options_of` reads them back as :class:`Option` records, the type taken from
the field's annotation (``int``, ``float``, ``bool``, ``str``, a ``Literal`` of words,
each optionally ``| None``), and everything that offers the option derives from that
record: the player-spec parser (:func:`parse_value`), the config's own checks
(:func:`check_options`), the tuner's grids, the web's request model, the command line's
flags. Adding an option is the config field, the engines that use it, and a test.

The style is the one dataclasses' ``field(metadata=...)`` is for (as Gymnasium's spaces and
mctx's frozen configs keep a value's description beside the value); it keeps the field an
ordinary dataclass field, so ``dataclasses.replace``, ``asdict`` and pickling see no change.

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Demo:
...     depth: int = option(8, "plies searched", low=0, high=100, aliases=("d",))
>>> opt = options_of(Demo)["depth"]
>>> opt.kind, opt.default, opt.names, parse_value(opt, "12")
('int', 8, ('depth', 'd'), 12)
>>> check_value("demo", opt, 101)
Traceback (most recent call last):
    ...
mctslab.core.errors.InvalidConfigError: demo: depth must be an integer in [0, 100], got 101
"""

from __future__ import annotations

import dataclasses
import functools
import math
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from mctslab.core.errors import InvalidConfigError, InvalidSpecError
from mctslab.core.text import ascii_float, ascii_int, did_you_mean

__all__ = [
    "Option",
    "OptionKind",
    "check_options",
    "check_value",
    "option",
    "options_of",
    "parse_value",
    "read_options",
]

#: The types an option's value takes (``"object"``: anything, such as an evaluator;
#: a spec string gives it as text).
OptionKind = Literal["int", "float", "bool", "str", "choice", "object"]

_KEY = "mctslab.option"
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


@dataclass(frozen=True)
class _Declared:
    """What :func:`option` stores in the field's metadata (the field gives the rest)."""

    help: str
    low: float | None
    high: float | None
    low_open: bool
    high_open: bool
    choices: tuple[str, ...] | Callable[[], tuple[str, ...]] | None
    aliases: tuple[str, ...]
    lab: bool
    under_puct: bool
    spec: bool
    check: bool
    lab_help: str | None = None


@dataclass(frozen=True)
class Option:
    """One option of a config: its field's name, type and default, and the metadata
    :func:`option` declared.

    Attributes:
        name: the field's name (the spec key, the JSON key, ``--name`` on the command line
            with ``_`` as ``-``).
        kind: the value's type (:data:`OptionKind`); ``"choice"`` is one of ``choices``.
        optional: ``None`` is a value (no limit, not set).
        default: the field's default.
        help: one line on what it does.
        low, high: the bounds of a number (``None``: unbounded on that side), open where
            ``low_open``/``high_open``.
        aliases: the other names a spec string takes for it (``iterations``: ``n``,
            ``iters``, ``simulations``).
        lab: whether the web lab's form offers it.
        under_puct: whether it applies to a PUCT search too (a search option; the spec
            ``puct:`` takes it).
        spec: whether a player spec string sets it.
        check: whether the config's generic check (:func:`check_options`) checks it; an
            option whose rule needs other fields is checked by the config itself.
        lab_help: the web lab's description of it where the one line is not enough
            (the request schema's ``description``; ``None``: ``help``).
    """

    name: str
    kind: OptionKind
    optional: bool
    default: Any
    help: str
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    choices_given: tuple[str, ...] | Callable[[], tuple[str, ...]] | None = None
    aliases: tuple[str, ...] = ()
    lab: bool = False
    under_puct: bool = True
    spec: bool = True
    check: bool = True
    lab_help: str | None = None

    @property
    def choices(self) -> tuple[str, ...]:
        """The words a ``"choice"`` option takes (an open registry's are read now)."""
        given = self.choices_given
        return given() if callable(given) else (given or ())

    @property
    def names(self) -> tuple[str, ...]:
        """The name and then its aliases."""
        return (self.name, *self.aliases)

    @property
    def flag(self) -> str:
        """The command line's flag: ``--cutoff-depth``."""
        return "--" + self.name.replace("_", "-")

    def bounds_text(self) -> str:
        """The range in words as the errors say it: ``in [0, 10**9]``, ``>= 1``, ``in (0, 1]``."""
        low, high = self.low, self.high
        if low is not None and high is not None:
            left = "(" if self.low_open else "["
            right = ")" if self.high_open else "]"
            return f"in {left}{_number_text(low)}, {_number_text(high)}{right}"
        if low is not None:
            return f"{'>' if self.low_open else '>='} {_number_text(low)}"
        if high is not None:
            return f"{'<' if self.high_open else '<='} {_number_text(high)}"
        return ""

    def expected(self) -> str:
        """What a value must be, as an error ends: ``an integer in [0, 10**9]``."""
        if self.kind == "bool":
            text = "True or False"
        elif self.kind == "choice" or self.choices:
            text = "one of " + ", ".join(self.choices)
        elif self.kind == "int":
            text = " ".join(p for p in ("an integer", self.bounds_text()) if p)
        elif self.kind == "float":
            bounds = self.bounds_text()
            text = bounds if bounds.startswith("in ") else f"a finite number {bounds}".strip()
        else:
            text = "text" if self.kind == "str" else "a value"
        return f"{text} or None" if self.optional else text


def option(
    default: Any,
    help: str,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
    choices: Iterable[str] | Callable[[], tuple[str, ...]] | None = None,
    aliases: Iterable[str] = (),
    lab: bool | str = False,
    under_puct: bool = True,
    spec: bool = True,
    check: bool = True,
) -> Any:
    """A dataclass field with its default and the option's metadata (see :class:`Option`
    for each argument). ``choices`` is for a ``str`` field whose words an open registry
    holds (a callable read when asked); a ``Literal`` annotation gives its own. ``lab``
    may be the lab's description of it (a text: the lab offers it, and the request
    schema describes it so where the one-line help is not enough)."""
    declared = _Declared(
        help=help,
        low=low,
        high=high,
        low_open=low_open,
        high_open=high_open,
        choices=choices if callable(choices) or choices is None else tuple(choices),
        aliases=tuple(aliases),
        lab=bool(lab),
        under_puct=under_puct,
        spec=spec,
        check=check,
        lab_help=lab if isinstance(lab, str) else None,
    )
    return dataclasses.field(default=default, metadata={_KEY: declared})


@functools.cache
def options_of(cls: type) -> Mapping[str, Option]:
    """The options a config dataclass declares with :func:`option`, by name, in field order."""
    hints = typing.get_type_hints(cls)
    found: dict[str, Option] = {}
    for field in dataclasses.fields(cls):
        declared = field.metadata.get(_KEY)
        if declared is None:
            continue
        kind, optional, words = _kind(hints[field.name])
        found[field.name] = Option(
            name=field.name,
            kind=kind,
            optional=optional,
            default=field.default,
            help=declared.help,
            low=declared.low,
            high=declared.high,
            low_open=declared.low_open,
            high_open=declared.high_open,
            choices_given=words or declared.choices,
            aliases=declared.aliases,
            lab=declared.lab,
            under_puct=declared.under_puct,
            spec=declared.spec,
            check=declared.check,
            lab_help=declared.lab_help,
        )
    return types.MappingProxyType(found)


def _kind(annotation: Any) -> tuple[OptionKind, bool, tuple[str, ...] | None]:
    """``(kind, optional, Literal words)`` of a field's annotation."""
    args = typing.get_args(annotation)
    optional = False
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        rest = [a for a in args if a is not type(None)]
        optional = len(rest) < len(args)
        annotation = rest[0] if len(rest) == 1 else Any
        args = typing.get_args(annotation)
    if typing.get_origin(annotation) is Literal:
        return "choice", optional, tuple(str(a) for a in args)
    simple: dict[Any, OptionKind] = {bool: "bool", int: "int", float: "float", str: "str"}
    return simple.get(annotation, "object"), optional, None


def _number_text(x: float) -> str:
    """A bound as the errors write it: ``1``, ``0.5``, ``10**9`` (an int), ``1e9`` (a float)."""
    if isinstance(x, int) and x >= 10**6 and str(x).rstrip("0") == "1":
        return f"10**{len(str(x)) - 1}"
    text = f"{x:g}"
    return text.replace("e+0", "e").replace("e+", "e")


def check_value(where: str, opt: Option, value: Any) -> None:
    """Refuse a ``value`` of the wrong type, outside the bounds or not among the choices,
    with :class:`InvalidConfigError` ``"{where}: {name} must be {expected}, got {value!r}"``."""
    if value is None and opt.optional:
        return
    if not _fits(opt, value):
        raise InvalidConfigError(f"{where}: {opt.name} must be {opt.expected()}, got {value!r}")


def _fits(opt: Option, value: Any) -> bool:
    if opt.kind == "bool":
        return isinstance(value, bool)
    if opt.kind == "choice":
        return value in opt.choices
    if opt.kind == "str":
        return isinstance(value, str) and (not opt.choices or value in opt.choices)
    if opt.kind == "object":
        return value is not None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    if opt.kind == "int" and not isinstance(value, int):
        return False
    if not math.isfinite(value):
        return False
    if opt.low is not None and (value <= opt.low if opt.low_open else value < opt.low):
        return False
    return not (opt.high is not None and (value >= opt.high if opt.high_open else value > opt.high))


def check_options(config: object, where: str) -> None:
    """:func:`check_value` on every option of ``config`` that the generic check covers."""
    kind: type = type(config)
    for opt in options_of(kind).values():
        if opt.check:
            check_value(where, opt, getattr(config, opt.name))


def parse_value(opt: Option, raw: str) -> Any:
    """``raw`` (a spec string's or a form's text) as the option's type, or
    :class:`InvalidSpecError` naming the type expected. Numbers are ASCII digits as typed
    (:mod:`mctslab.core.text`: Python's ``int`` would also read ``"１２"`` and ``"1_000"``);
    ``none`` (or nothing) is ``None`` for an optional option; booleans are ``1``/``0``,
    ``true``/``false``, ``yes``/``no``, ``on``/``off``. The range is the config's to check."""
    if opt.optional and raw.strip().lower() in ("none", ""):
        return None
    if opt.kind == "bool":
        if raw.lower() in _TRUE or raw.lower() in _FALSE:
            return raw.lower() in _TRUE
        expected = "1 or 0 (true/false, yes/no, on/off)"
    elif opt.kind == "int":
        number = ascii_int(raw, signed=True)
        if number is not None:
            return number
        expected = "an integer in ASCII digits, without _ (e.g. 400)"
    elif opt.kind == "float":
        decimal = ascii_float(raw)
        if decimal is not None:
            return decimal
        expected = "a number in ASCII digits, without _ (e.g. 1.4)"
    else:
        return raw
    raise InvalidSpecError(f"bad value {raw!r} for {opt.name!r}: expected {expected}")


def read_options(
    options: Iterable[Option], raw: Mapping[str, str], kind: str, listed: Iterable[str] = ()
) -> dict[str, Any]:
    """``key=value`` text (``raw``: a command line's or a spec's) as typed values by field
    name, each key an option's name or alias (:func:`parse_value`; a later key of the same
    option wins). An unknown key is :class:`InvalidSpecError` ``"unknown {kind} option
    ...; valid options: ..."``, listing the options' names and ``listed`` (names the
    caller takes itself; a close name or alias is suggested). The values are the
    config's to check.

    >>> @dataclass(frozen=True)
    ... class Demo:
    ...     depth: int = option(8, "plies searched", aliases=("d",))
    >>> read_options(options_of(Demo).values(), {"d": "3"}, "demo")
    {'depth': 3}
    >>> read_options(options_of(Demo).values(), {"dpth": "3"}, "demo")
    Traceback (most recent call last):
        ...
    mctslab.core.errors.InvalidSpecError: unknown demo option 'dpth' (did you mean depth?); valid options: depth
    """
    by_name = {name: opt for opt in options for name in opt.names}
    values: dict[str, Any] = {}
    for key, text in raw.items():
        opt = by_name.get(key)
        if opt is None:
            valid = sorted({*(o.name for o in by_name.values()), *listed})
            raise InvalidSpecError(
                f"unknown {kind} option {key!r}{did_you_mean(key, sorted({*valid, *by_name}))}; "
                f"valid options: {', '.join(valid)}"
            )
        values[opt.name] = parse_value(opt, text)
    return values
