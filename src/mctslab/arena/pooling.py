"""Pooling the games of several arena runs for ratings (``mctslab arena ratings``, the
Elo of pooled runs): which stored players are the same player, and which stored games
the same game.

Games count for the same player only when its name, its spec as played (a time control
can give ``mcts`` its budget: :func:`mctslab.arena.game_task.effective_spec`; under a
game clock the spec is marked with the clock) and the rules (the game's parameters and
version) agree; a name that stands for several players is shown with what tells them
apart. A game stored by two runs (a run played again without ``resume`` replays its
games move for move where budgets are iteration counts) counts once (:func:`game_key`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from mctslab.arena.game_task import effective_spec
from mctslab.arena.store import GameRecord, ResultStore, RunInfo
from mctslab.core.errors import InvalidSpecError

__all__ = ["PooledGames", "PooledPlayer", "canonical", "game_key", "played_spec", "pool_runs"]


def canonical(value: Any) -> Any:
    """``value`` as it reads back from the store's JSON (tuples become lists, ...)."""
    return json.loads(json.dumps(value, sort_keys=True, default=str))


@dataclass(frozen=True)
class PooledPlayer:
    """A player of pooled runs: games count for the same player only when its name, its
    spec as played (:func:`effective_spec`: a time control can give ``mcts`` its budget)
    and the rules (the game's parameters and version) are all the same.

    ``label`` is unique in the pool: the name, or where a name stands for several
    players the name with what tells them apart, e.g. ``mcts [mcts:iterations=50000]``.
    ``runs`` are the ids of the runs it played in.
    """

    label: str
    name: str
    spec: str
    game_params: tuple[tuple[str, Any], ...]
    game_version: int
    runs: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "spec": self.spec,
            "game_params": dict(self.game_params),
            "game_version": self.game_version,
            "runs": list(self.runs),
        }


@dataclass(frozen=True)
class PooledGames:
    """The games of several runs, their seats renamed to the players' labels.

    ``shared_names`` maps each name that stands for several players to their labels
    (rated apart, never merged); ``cheating`` holds the labels of the players that
    were allowed to read hidden information. ``duplicates`` maps the id of each run that
    held games already counted from an earlier run (the same game: :func:`game_key`) to
    how many: they are left out of ``records`` unless pooled with ``keep_duplicates``.
    """

    runs: tuple[RunInfo, ...]
    records: tuple[GameRecord, ...]
    players: tuple[PooledPlayer, ...]
    shared_names: dict[str, tuple[str, ...]]
    cheating: tuple[str, ...]
    duplicates: dict[int, int] = field(default_factory=dict)

    @property
    def unfinished(self) -> tuple[RunInfo, ...]:
        """The pooled runs that did not finish (killed, stopped, or still playing)."""
        return tuple(r for r in self.runs if r.unfinished)


def game_key(run: RunInfo, record: GameRecord) -> tuple[Any, ...]:
    """What makes two stored games the same game: the rules (the game, its parameters and
    version), the seats (as pooled: name, spec as played and rules), the seed, the moves
    (the opening included) and how it ended. A run played again without ``resume``
    replays its games move for move where the budgets are iteration counts (a killed
    training evaluation played again, an arena run twice): counted once, not twice."""
    return (
        run.game,
        json.dumps(canonical(run.game_params), sort_keys=True),
        run.game_version,
        record.seats,
        record.seed,
        record.moves,
        record.score,
        record.termination,
    )


# A pooled player: name, spec as played, the game's parameters (canonical JSON), version.
_PlayerKey = tuple[str, str, str, int]


def played_spec(
    spec: str, time_per_move: Any, main_time: Any = None, resign_below: Any = None
) -> str:
    """``spec`` as a run with these time controls played it: under a constant clock the
    spec the clock made of it (:func:`effective_spec`); under a game clock (``main_time``
    seconds, then ``time_per_move`` a move) the spec marked with the clock, whose budget
    changed from move to move. A run's resignation threshold marks it too (a player that
    gives lost games up is not the one that plays them out).

    >>> played_spec("mcts:rave=3000", 2.0), played_spec("mcts", 2.0, 90)
    ('mcts:rave=3000,time=2.0', 'mcts [clock 90 s + 2 s a move]')
    >>> played_spec("mcts", None, None, -0.95)
    'mcts [resigns below -0.95]'
    """
    resign = "" if resign_below is None else f" [resigns below {float(resign_below):g}]"
    if main_time is not None:
        byo = f" + {float(time_per_move):g} s a move" if time_per_move else ""
        return f"{spec} [clock {float(main_time):g} s{byo}]{resign}"
    try:
        return effective_spec(spec, time_per_move) + resign
    except InvalidSpecError:  # a kind this mctslab does not know: the spec as stored
        return spec + resign


def pool_runs(
    store: ResultStore, runs: Sequence[RunInfo], keep_duplicates: bool = False
) -> PooledGames:
    """Pool the games of ``runs`` (of one game) for ratings, keeping players apart by
    name, spec as played and rules (see :class:`PooledPlayer`), and each game once: a game
    that an earlier run of ``runs`` already holds (:func:`game_key`) is left out and
    counted in ``duplicates``, unless ``keep_duplicates``."""
    key_of: dict[tuple[int, str], _PlayerKey] = {}
    params_of: dict[_PlayerKey, tuple[tuple[str, Any], ...]] = {}
    runs_of: dict[_PlayerKey, list[int]] = {}
    for run in runs:
        params = tuple(sorted(run.game_params.items()))
        for name, spec in run.players.items():
            config = run.config
            played = played_spec(
                spec,
                config.get("time_per_move"),
                config.get("main_time"),
                config.get("resign_below"),
            )
            key = (name, played, json.dumps(canonical(dict(params))), run.game_version)
            key_of[(run.id, name)] = key
            params_of[key] = params
            runs_of.setdefault(key, []).append(run.id)
    by_name: dict[str, list[_PlayerKey]] = {}
    for key in runs_of:
        by_name.setdefault(key[0], []).append(key)
    label: dict[_PlayerKey, str] = {}
    for name, keys in by_name.items():
        if len(keys) == 1:
            label[keys[0]] = name
            continue
        # Show only what tells the players of this name apart.
        differs = [len({k[i] for k in keys}) > 1 for i in (1, 2, 3)]
        for k in keys:
            parts = []
            if differs[0]:
                parts.append(k[1])
            if differs[1]:
                parts.append(", ".join(f"{p}={v}" for p, v in params_of[k]) or "default rules")
            if differs[2]:
                parts.append(f"version {k[3]}")
            label[k] = f"{name} [{'; '.join(parts)}]"
    records: list[GameRecord] = []
    cheating: list[str] = []
    seen: set[tuple[Any, ...]] = set()
    duplicates: dict[int, int] = {}
    for run in runs:

        def rename(name: str, run_id: int = run.id) -> str:
            key = key_of.get((run_id, name))
            return name if key is None else label[key]

        for stored in store.games([run.id]):
            record = replace(stored, seats=tuple(map(rename, stored.seats)))
            same = game_key(run, record)
            if same in seen:
                duplicates[run.id] = duplicates.get(run.id, 0) + 1
                if not keep_duplicates:
                    continue
            seen.add(same)
            records.append(record)
        cheating += [rename(n) for n in run.cheating if rename(n) not in cheating]
    players = tuple(
        PooledPlayer(label[k], k[0], k[1], params_of[k], k[3], tuple(runs_of[k])) for k in runs_of
    )
    shared = {n: tuple(label[k] for k in keys) for n, keys in by_name.items() if len(keys) > 1}
    return PooledGames(tuple(runs), tuple(records), players, shared, tuple(cheating), duplicates)
