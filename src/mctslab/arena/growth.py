"""A run that grows: ``mctslab arena --resume`` with more ``--games`` than the run holds.

A tournament's games are numbered by *slot* (:func:`mctslab.arena.tournament.schedule`):
with ``P`` pairings of ``g0`` games each, game ``g`` of pairing ``p`` is slot
``p * g0 + g``, and a resumed run plays the slots it has not stored. Its seed depends on
the pairing and the game's pair (``g // 2``) only, never on ``g0``, so the first ``g0``
games of a run asked for ``g1 > g0`` games are the games already played. Growing the run
keeps their slots and puts the new games after all of them: the run's *blocks* are its
successive game counts ``(g0, g1, ...)``, and the games ``g`` with ``g_{b-1} <= g < g_b``
of pairing ``p`` take the slots

    start_b + p * (g_b - g_{b-1}) + (g - g_{b-1}),   start_b = P * g_{b-1}

(:func:`slot_of`). One block is the plain numbering. The blocks are stored with the run's
configuration (``game_blocks``), outside its identity: ``--resume`` with the grown
``--games`` finds the run by its identity, as any run.

Only ``games`` may change, and only upwards; a run whose players' specs changed, or one
asked for fewer games, is another configuration that the same players' names would
silently split across two runs: :func:`changes` says what differs, and ``arena``
refuses it with one line instead of starting a new run.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from mctslab.arena.store import ResultStore
from mctslab.core.errors import InvalidConfigError

__all__ = [
    "BLOCKS_KEY",
    "RunChangedError",
    "blocks_of",
    "changes",
    "grow_or_refuse",
    "grown_config",
    "slot_of",
]

#: Where a grown run's configuration keeps its blocks (not part of its identity).
BLOCKS_KEY = "game_blocks"


class RunChangedError(InvalidConfigError):
    """``resume`` found the run with these players' names under other specs, or asked
    for fewer games than it holds: one line says what changed, instead of a new run
    beside the old one."""


def blocks_of(stored: Mapping[str, Any] | None, games: int) -> tuple[int, ...]:
    """A run's blocks: the stored ones, or one block of ``games`` for a run that never grew."""
    blocks = (stored or {}).get(BLOCKS_KEY)
    return tuple(int(b) for b in blocks) if blocks else (games,)


def slot_of(pairing: int, game: int, blocks: Sequence[int], pairings: int) -> int:
    """The slot of game ``game`` of pairing ``pairing`` (module docstring).

    >>> [slot_of(p, g, (2,), 3) for p in range(3) for g in range(2)]
    [0, 1, 2, 3, 4, 5]
    >>> [slot_of(p, g, (2, 4), 3) for p in range(3) for g in range(4)]
    [0, 1, 6, 7, 2, 3, 8, 9, 4, 5, 10, 11]
    """
    start, before = 0, 0
    for count in blocks:
        if game < count:
            return start + pairing * (count - before) + (game - before)
        start += pairings * (count - before)
        before = count
    raise ValueError(f"game {game} is beyond the run's {before} games a pairing")


def changes(stored: Mapping[str, Any], wanted: Mapping[str, Any]) -> list[str]:
    """What ``wanted`` (an identity) changes of a stored run's configuration, in words:
    ``["games 4 -> 2", "a: mcts:iterations=10 -> mcts:iterations=20"]``; ``[]`` when they
    are the same run. Players are compared by name and spec."""
    out = []
    keys = sorted((set(stored) | set(wanted)) - {BLOCKS_KEY, "players"})
    for key in keys:
        if stored.get(key) != wanted.get(key):
            out.append(f"{key} {stored.get(key)!r} -> {wanted.get(key)!r}")
    old = {name: spec for name, spec in stored.get("players", [])}
    new = {name: spec for name, spec in wanted.get("players", [])}
    if list(old) != list(new):
        out.append(f"players {', '.join(old)} -> {', '.join(new)}")
    else:
        out += [f"{n}: {old[n]} -> {new[n]}" for n in old if old[n] != new[n]]
    return out


def grown_config(stored: Mapping[str, Any], wanted: Mapping[str, Any]) -> dict[str, Any]:
    """The configuration to store for a run grown from ``stored`` to ``wanted`` games:
    ``wanted`` with the blocks, the new count appended."""
    blocks = blocks_of(stored, int(stored["games"]))
    return {**wanted, BLOCKS_KEY: [*blocks, int(wanted["games"])]}


def grow_or_refuse(
    store: ResultStore, kind: str, wanted: Mapping[str, Any], planned: int | None
) -> int | None:
    """``resume`` found no run of the identity ``wanted`` (as the store's JSON reads it
    back): the latest run of ``kind`` under the same rules with the same players' names
    grows when only ``games`` grew (its id is returned), and raises
    :class:`RunChangedError` when its specs changed or its games shrank; ``None`` when
    there is no such run (a new one starts)."""

    def rules(game: str, params: Any, version: Any) -> tuple[Any, ...]:
        return game, json.loads(json.dumps(params, sort_keys=True, default=str)), version

    names = [name for name, _ in wanted["players"]]
    kin = [
        run
        for run in store.runs(wanted["game"])
        if run.kind == kind
        and rules(run.game, run.game_params, run.game_version)
        == rules(wanted["game"], wanted["game_params"], wanted["game_version"])
        and [name for name, _ in run.config.get("players", [])] == names
    ]
    if not kin:
        return None
    old = kin[-1]
    said = changes(old.config, wanted)
    grows = said == [f"games {old.config.get('games')!r} -> {wanted['games']!r}"]
    if grows and planned is not None and int(wanted["games"]) > int(old.config["games"]):
        store.grow_run(old.id, wanted, grown_config(old.config, wanted), planned)
        return old.id
    raise RunChangedError(
        f"cannot resume run {old.id} of {str(store.path)!r} (the same players, {old.played} "
        f"games stored): this command changes {'; '.join(said)}; a run may only grow its "
        "games: repeat its players' specs with at least its games, or leave out --resume "
        "for a new run"
    )
