"""A player under a time control: one rule, in one place, for what a player spec searches
when a clock gives it seconds for a move.

Used by every caller that has a clock: the arena (``--time-per-move``, a constant clock),
``mctslab play --time-per-move``, ``mctslab gtp`` (a clock that changes each move:
``time_settings``, ``time_left``) and the Bohnenspiel client.

The rule, for the kinds whose search a clock can budget (their row's ``timed``:
:class:`~mctslab.core.player_kinds.PlayerKind`):

1. **A spec with no budget of its own searches the clock's seconds, with no iteration
   cap.** The kinds' default budgets (``SearchConfig``'s 1,000 iterations, ``puct``'s 800
   simulations, ``az``'s 200) are defaults for a search *without* a clock; under one they
   would stop the search after a fraction of the time it was given.
2. **A spec's own budget wins** (``iterations``, ``time``, ``max_nodes`` and their
   aliases): fixed work stays fixed work, measured by the clock but not cut by it. The one
   exception is a time of its own longer than the clock allows: it is cut to the clock's
   seconds (a search never plans a move past its clock).
3. **Gumbel search keeps its simulations** (``gumbel:``, ``gumbel=1``): Sequential Halving
   plans the visits of every round from an iteration budget, so a time budget cannot
   replace it.

Every other kind (``minimax``, ``random``, ``human``, a ``gtp:`` program, a ``policy:``
network) is left as it is; the arena tells a ``gtp:`` program the clock as byo-yomi.

>>> timed_spec("mcts:rave=3000", 1.0)
'mcts:rave=3000,time=1.0'
>>> timed_spec("mcts:iterations=500", 1.0)
'mcts:iterations=500'
>>> timed_spec("mcts:time=5", 1.0)  # a later key wins when the spec is read
'mcts:time=5,time=1.0'
>>> timed_spec("minimax:depth=3", 1.0)
'minimax:depth=3'
"""

from __future__ import annotations

import dataclasses
from typing import Any, Protocol, TypeVar, cast, runtime_checkable

from mctslab.core.errors import InvalidSpecError
from mctslab.core.options import options_of
from mctslab.players.player import Player, parse_spec, player_kinds
from mctslab.search.config import SearchConfig

__all__ = [
    "BUDGET_KEYS",
    "Rebudgetable",
    "base_config",
    "clock_time",
    "own_budget",
    "set_move_time",
    "timed_config",
    "timed_spec",
]

#: The spec keys that name a budget: the search config's budget options, their aliases
#: included (``time``, ``iterations``, ``iters``, ``n``, ``simulations``, ``max_nodes``, ...).
BUDGET_KEYS = frozenset(
    name
    for field in ("time", "iterations", "max_nodes")
    for name in options_of(SearchConfig)[field].names
)

_TRUE = ("1", "true", "yes", "on")

C = TypeVar("C")


def clock_time(own: bool, own_time: float | None, seconds: float | None) -> float | None:
    """The rule itself: the time budget a search gets under a clock of ``seconds`` a move,
    or ``None`` where the clock changes nothing.

    ``own`` says whether the spec names a budget of its own and ``own_time`` its time
    budget, if any. Without a budget of its own the clock's seconds replace the default
    (and with them goes the default iteration cap); with one, only a longer own time is cut.

    >>> clock_time(False, None, 1.0), clock_time(True, None, 1.0)
    (1.0, None)
    >>> clock_time(True, 5.0, 1.0), clock_time(True, 0.5, 1.0), clock_time(False, None, None)
    (1.0, None, None)
    """
    if seconds is None:
        return None
    if not own:
        return seconds
    if own_time is not None and own_time > seconds:
        return seconds
    return None


def own_budget(spec: str) -> bool:
    """Whether ``spec`` names a search budget of its own (see :data:`BUDGET_KEYS`)."""
    _, options = parse_spec(spec)
    return bool(BUDGET_KEYS & set(options))


def _gumbel(kind: str, options: dict[str, str]) -> bool:
    return kind == "gumbel" or options.get("gumbel", "0").strip().lower() in _TRUE


def timed_spec(spec: str, seconds: float | None) -> str:
    """``spec`` as played under a clock of ``seconds`` a move (``None``: no clock), by the
    rule of this module. The result is a spec string: the arena makes the player from it
    and stores it as the spec played."""
    kind, options = parse_spec(spec)
    row = player_kinds().get(kind)
    if seconds is None or row is None or not row.timed or _gumbel(kind, options):
        return spec
    own_time = None
    if "time" in options:
        try:
            own_time = float(options["time"])
        except ValueError:
            raise InvalidSpecError(f"bad value {options['time']!r} for 'time'") from None
    time = clock_time(bool(BUDGET_KEYS & set(options)), own_time, seconds)
    if time is None:
        return spec
    extra = f"time={time!r}"
    return f"{spec.rstrip().rstrip(',')},{extra}" if options else f"{kind}:{extra}"


def timed_config(config: C, *, own: bool, seconds: float | None) -> C:
    """A search config (``SearchConfig``, ``ISMCTSConfig``, ``PIMCConfig``) under a clock
    of ``seconds`` for this move, by the same rule as :func:`timed_spec`: ``own`` says
    whether the player's spec named a budget of its own (:func:`own_budget`).

    Without one, the clock's seconds replace the budget (``iterations=None``); with one,
    an own time longer than the clock is cut to it. A Gumbel search is left as it is.
    """
    cfg: Any = config
    rule = getattr(cfg, "rule", None)  # a SearchConfig's; ISMCTS and PIMC have none
    if rule is not None and rule.root_halving:
        return config
    time = clock_time(own, cfg.time, seconds)
    if time is None:
        return config
    if own:
        return cast(C, dataclasses.replace(cfg, time=time))
    return cast(C, dataclasses.replace(cfg, time=time, iterations=None))


@runtime_checkable
class Rebudgetable(Protocol):
    """A player whose search a clock can re-budget move by move: it searches with
    ``config`` and takes another with ``rebudget`` (the MCTS-based players,
    :class:`~mctslab.players.player.MCTSPlayer` and its kinds)."""

    config: SearchConfig

    def rebudget(self, config: SearchConfig) -> None: ...


def base_config(player: Player) -> SearchConfig | None:
    """The search config that a clock cuts ``player``'s budgets from (the one it was made
    with), or ``None`` for a player a clock does not re-budget (see :class:`Rebudgetable`)."""
    return player.config if isinstance(player, Rebudgetable) else None


def set_move_time(player: Player, base: Any, *, own: bool, seconds: float | None) -> Any:
    """Give ``player`` its budget for one move under a clock that allows ``seconds`` (a
    clock whose allowance changes from move to move: ``mctslab gtp``'s, the arena's main
    time): ``base``, the search config it was made with, under :func:`timed_config`,
    handed to the player (:meth:`Rebudgetable.rebudget`: its next search runs with it);
    returns that config. A player a clock does not re-budget (or without a ``base``) is
    left as it is and ``None`` returned."""
    if not isinstance(player, Rebudgetable) or base is None:
        return None
    config = timed_config(base, own=own, seconds=seconds)
    player.rebudget(config)
    return config
