"""The results store: every game an arena plays, in SQLite (the standard library's).

One file (``mctslab.db`` by default) holds any number of *runs* (a tournament, an
SPRT, a tuning grid point, a self-play analysis). A run is identified by the
hash of everything that decides its games (game, parameters and rules version,
players and specs, seed, number of games, openings, time control); its games are numbered
*slots*, and the pair ``(run, slot)`` is unique. Each finished game is written
and committed in its own transaction, so a run killed at any moment (SIGKILL
included) keeps every game it finished, and ``resume`` replays only the slots
that are missing: no game is lost and none is counted twice.

SQLite runs in WAL mode with ``synchronous=FULL``: a committed game survives the
death of the process and of the machine. The file is checked before anything is
written: a file that is not an mctslab store (another SQLite database, a text
file) is refused with :class:`NotAStoreError` and left untouched.

Tables: ``meta`` (schema name and version), ``runs`` (kind, game, game version,
parameters, configuration as JSON, its hash, seed, timestamps, and ``cheating``:
the names of the players allowed to read hidden information, as a JSON list),
``players`` (name and spec per run) and ``games`` (slot, seats, seed, opening,
moves, returns, score of seat 0, termination, error, move times, time overruns,
timestamps).

A run's ``status`` says whether it finished: ``"running"`` from its start (a run
whose process was killed, ``kill -9`` or a crash of the machine, stays so: *unfinished*),
``"finished"`` once every planned game is in (``finished`` holds the time), ``"stopped"``
when the process playing it stopped it on an error (``stop_reason`` says which: a full
disk, Ctrl-C). ``mctslab ratings`` names the unfinished runs it pools.

A failed write (a full disk, a read-only file: SQLite's ``database or disk is full``, an
``OSError``) is rolled back whole and raised as :class:`StoreWriteError`, a user error:
no half-written game is ever stored or counted.

Every value read back is checked (:class:`CorruptStoreError`): a store edited by hand,
whose ``moves`` hold text or whose ``seats`` are not names, is refused with the run and
the slot named rather than handed on to crash a command further down.

The path of a store must be a regular file or a new one: a FIFO, a device or a socket
is refused before it is opened (reading one would block, or never end).

Schema versions: 2 added ``runs.cheating``; 3 added ``runs.status`` and
``runs.stop_reason``. An older store is migrated when it is opened (version 1 gains the
cheating column, empty for its runs; version 2 the status, ``"finished"`` for its runs
with a ``finished`` time and ``"running"``, i.e. unfinished, for the others); a store of
a newer version than this mctslab knows is refused.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import math
import os
import sqlite3
import stat
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mctslab.core.errors import MctslabError

__all__ = [
    "RUN_STATUSES",
    "CorruptStoreError",
    "GameRecord",
    "NotAStoreError",
    "ResultStore",
    "RunInfo",
    "StoreWriteError",
    "check_store_path",
    "config_hash",
    "now",
]

SCHEMA_NAME = "mctslab-results"
SCHEMA_VERSION = 3
#: A run's status (see the module docstring).
RUN_STATUSES = ("running", "finished", "stopped")
_SQLITE_HEADER = b"SQLite format 3\x00"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    game TEXT NOT NULL,
    game_version INTEGER NOT NULL,
    config TEXT NOT NULL,
    config_hash TEXT NOT NULL,
    seed INTEGER NOT NULL,
    planned INTEGER,
    created TEXT NOT NULL,
    finished TEXT,
    cheating TEXT NOT NULL DEFAULT '[]',
    status TEXT NOT NULL DEFAULT 'running',
    stop_reason TEXT
);
CREATE INDEX IF NOT EXISTS runs_hash ON runs (config_hash);
CREATE TABLE IF NOT EXISTS players (
    run_id INTEGER NOT NULL REFERENCES runs (id),
    name TEXT NOT NULL,
    spec TEXT NOT NULL,
    PRIMARY KEY (run_id, name)
);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs (id),
    slot INTEGER NOT NULL,
    seats TEXT NOT NULL,
    seed INTEGER NOT NULL,
    opening TEXT NOT NULL,
    moves TEXT NOT NULL,
    returns TEXT NOT NULL,
    score REAL,
    termination TEXT NOT NULL,
    error TEXT,
    move_times TEXT NOT NULL,
    movers TEXT NOT NULL,
    overruns TEXT NOT NULL,
    started TEXT NOT NULL,
    finished TEXT NOT NULL,
    UNIQUE (run_id, slot)
);
"""


class NotAStoreError(MctslabError):
    """A ``--db`` file that exists but is not an mctslab results store."""


class CorruptStoreError(NotAStoreError):
    """A store whose contents are not what mctslab writes (edited by hand, damaged): the
    message names the run, the slot and the column."""


class StoreWriteError(MctslabError):
    """A write to the store failed (a full disk, a read-only file); nothing of it was kept."""


def check_store_path(path: Path) -> None:
    """Refuse a path that is neither a regular file nor a new one (a FIFO would block the
    open, a device never end), without opening it."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    except OSError as err:
        raise NotAStoreError(f"cannot use {str(path)!r}: {err.strerror or err}") from None
    if stat.S_ISDIR(mode):
        raise NotAStoreError(f"{str(path)!r} is a directory, not a results store")
    if not stat.S_ISREG(mode):
        raise NotAStoreError(
            f"{str(path)!r} is not a regular file (a FIFO, a device or a socket): "
            "a results store is a regular file, or a path that does not exist yet"
        )


def now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds")


def config_hash(config: Mapping[str, Any]) -> str:
    """A stable hash of a run's deciding configuration (canonical JSON, SHA-256)."""
    text = json.dumps(config, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class GameRecord:
    """One finished game.

    ``seats`` are the player names in seat order (seat 0 moves first); ``returns``
    the final returns per seat; ``score`` the score of seat 0 (1, 0.5 or 0) in a
    two-player game, else ``None``. ``termination`` is ``"normal"``, ``"error"``
    (a player raised or chose an illegal move: it loses, ``error`` says what
    happened) or ``"time"`` (a strict time forfeit). ``move_times`` has one entry
    per move in ``moves`` (``None`` for the opening and chance moves), and
    ``movers`` the seat that made each move (-1 for the opening and chance moves);
    ``overruns`` lists ``[ply, seat, seconds over the limit]``.
    """

    slot: int
    seats: tuple[str, ...]
    seed: int
    opening: tuple[int, ...]
    moves: tuple[int, ...]
    returns: tuple[float, ...]
    score: float | None
    termination: str = "normal"
    error: str | None = None
    move_times: tuple[float | None, ...] = ()
    movers: tuple[int, ...] = ()
    overruns: tuple[tuple[int, int, float], ...] = ()
    started: str = field(default_factory=now)
    finished: str = field(default_factory=now)

    def score_of(self, name: str) -> float | None:
        """The score of the player ``name`` in this two-player game."""
        if self.score is None or name not in self.seats:
            return None
        return self.score if self.seats[0] == name else 1.0 - self.score


@dataclass(frozen=True)
class RunInfo:
    """A run as stored: its id, kind, game and configuration.

    ``config`` is the run's identity as it was stored (:meth:`ResultStore.start_run`);
    ``game_version`` the version of the game's rules its games were played by;
    ``cheating`` the names of the players allowed to read hidden information;
    ``status`` one of :data:`RUN_STATUSES` (``stop_reason`` says why a run stopped).
    """

    id: int
    kind: str
    game: str
    game_version: int
    config: dict[str, Any]
    config_hash: str
    seed: int
    planned: int | None
    created: str
    finished: str | None
    players: dict[str, str]
    played: int
    cheating: tuple[str, ...] = ()
    status: str = "running"
    stop_reason: str | None = None

    @property
    def unfinished(self) -> bool:
        """Not every planned game is in: the run was killed, stopped, or is still playing."""
        return self.status != "finished"

    @property
    def game_params(self) -> dict[str, Any]:
        """The game's parameters, as the run's configuration gives them."""
        params = self.config.get("game_params") or {}
        return dict(params) if isinstance(params, dict) else {}


class ResultStore:
    """An open results store; use as a context manager or call :meth:`close`.

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "r.db")
    >>> with ResultStore(path) as store:
    ...     run = store.start_run("arena", "tic_tac_toe", 1, {"seed": 0}, 0, {"a": "random"}, 2)
    ...     store.add_game(run, GameRecord(0, ("a", "a"), 0, (), (4,), (0.0, 0.0), 0.5))
    ...     store.played_slots(run)
    True
    {0}
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        check_store_path(self.path)
        self._check_existing()
        try:
            self.conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
        except sqlite3.Error as err:
            raise NotAStoreError(f"cannot open results store {str(self.path)!r}: {err}") from None
        try:
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=FULL")
            self.conn.execute("PRAGMA foreign_keys=ON")
            # One script, one transaction: the tables and the schema mark appear together.
            self.conn.executescript(
                "BEGIN IMMEDIATE;"
                + _SCHEMA
                + "INSERT OR IGNORE INTO meta (key, value) VALUES"
                + f" ('schema', '{SCHEMA_NAME}'), ('version', '{SCHEMA_VERSION}');"
                + "COMMIT;"
            )
            self._migrate()
        except sqlite3.Error as err:
            self.conn.close()
            raise NotAStoreError(f"cannot use results store {str(self.path)!r}: {err}") from None

    def _migrate(self) -> None:
        """Bring a store of an older schema to :data:`SCHEMA_VERSION` (see the module
        docstring), in one transaction; the version is read inside it, so two processes
        opening the same old store migrate it once."""
        with self._transaction():
            row = self.conn.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
            version = int(row[0])
            if version < 2:
                self.conn.execute("ALTER TABLE runs ADD COLUMN cheating TEXT NOT NULL DEFAULT '[]'")
            if version < 3:
                self.conn.execute(
                    "ALTER TABLE runs ADD COLUMN status TEXT NOT NULL DEFAULT 'running'"
                )
                self.conn.execute("ALTER TABLE runs ADD COLUMN stop_reason TEXT")
                self.conn.execute("UPDATE runs SET status = 'finished' WHERE finished IS NOT NULL")
            if version < SCHEMA_VERSION:
                self.conn.execute(
                    "UPDATE meta SET value = ? WHERE key = 'version'", (str(SCHEMA_VERSION),)
                )

    def _check_existing(self) -> None:
        """Refuse, without writing anything, a file that is not an mctslab store."""
        if not self.path.exists():
            if not self.path.parent.exists():
                raise NotAStoreError(f"no such directory for the results store: {self.path}")
            return
        try:
            with self.path.open("rb") as f:
                header = f.read(len(_SQLITE_HEADER))
        except OSError as err:
            raise NotAStoreError(f"cannot read {str(self.path)!r}: {err.strerror or err}") from None
        if header == b"":
            return  # an empty file: a new store
        if header != _SQLITE_HEADER:
            raise NotAStoreError(f"{str(self.path)!r} is not an mctslab results store")
        try:
            ro = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True)
            try:
                row = ro.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
                version = ro.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
            finally:
                ro.close()
        except sqlite3.Error:
            row = version = None
        if row is None or row[0] != SCHEMA_NAME:
            raise NotAStoreError(
                f"{str(self.path)!r} is an SQLite database but not an mctslab results store"
            )
        if version is None or not str(version[0]).isascii() or not str(version[0]).isdigit():
            raise NotAStoreError(f"{str(self.path)!r} has no valid schema version ({version})")
        if int(version[0]) > SCHEMA_VERSION:
            raise NotAStoreError(
                f"{str(self.path)!r} was written by a newer mctslab (schema {version})"
            )

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.conn.close()

    class _Tx:
        """One transaction: committed whole, or rolled back whole. A write that fails
        (SQLite's ``database or disk is full``, an ``OSError``) raises
        :class:`StoreWriteError` once the transaction is rolled back."""

        def __init__(self, store: ResultStore) -> None:
            self.store = store
            self.conn = store.conn

        def __enter__(self) -> None:
            try:
                self.conn.execute("BEGIN IMMEDIATE")
            except (sqlite3.Error, OSError) as err:
                raise self.store._write_error(err) from None

        def __exit__(self, exc_type: object, exc: BaseException | None, tb: object) -> None:
            if exc is None:
                try:
                    self.conn.execute("COMMIT")
                    return
                except (sqlite3.Error, OSError) as err:
                    self._rollback()
                    raise self.store._write_error(err) from None
            self._rollback()
            if isinstance(exc, sqlite3.Error | OSError):
                raise self.store._write_error(exc) from None

        def _rollback(self) -> None:
            # SQLite may have rolled back already (some errors end the transaction).
            if self.conn.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    self.conn.execute("ROLLBACK")

    def _transaction(self) -> ResultStore._Tx:
        return ResultStore._Tx(self)

    def _write_error(self, err: BaseException) -> StoreWriteError:
        why = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        return StoreWriteError(
            f"cannot write to the results store {str(self.path)!r}: {why}; nothing of the "
            "failed write was kept"
        )

    # Runs --------------------------------------------------------------------------------

    def start_run(
        self,
        kind: str,
        game: str,
        game_version: int,
        config: Mapping[str, Any],
        seed: int,
        players: Mapping[str, str],
        planned: int | None,
        cheating: Sequence[str] = (),
    ) -> int:
        """Create a run and return its id; ``cheating`` names the players allowed to read
        hidden information."""
        with self._transaction():
            cur = self.conn.execute(
                "INSERT INTO runs (kind, game, game_version, config, config_hash, seed, planned,"
                " created, cheating, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'running')",
                (
                    kind,
                    game,
                    game_version,
                    json.dumps(dict(config), sort_keys=True, default=str),
                    config_hash(config),
                    seed,
                    planned,
                    now(),
                    json.dumps(list(cheating)),
                ),
            )
            run_id = int(cur.lastrowid or 0)
            self.conn.executemany(
                "INSERT INTO players (run_id, name, spec) VALUES (?, ?, ?)",
                [(run_id, name, spec) for name, spec in players.items()],
            )
        return run_id

    def find_run(self, kind: str, config: Mapping[str, Any]) -> int | None:
        """The latest run of this kind with exactly this configuration, if any."""
        row = self.conn.execute(
            "SELECT id FROM runs WHERE kind = ? AND config_hash = ? ORDER BY id DESC LIMIT 1",
            (kind, config_hash(config)),
        ).fetchone()
        return None if row is None else int(row[0])

    def grow_run(
        self, run_id: int, identity: Mapping[str, Any], config: Mapping[str, Any], planned: int
    ) -> None:
        """A run asked for more games (:mod:`mctslab.arena.growth`): its stored
        configuration becomes ``config`` (the grown ``identity`` with its blocks), found
        by ``identity``'s hash, ``planned`` games, running again until they are in."""
        with self._transaction():
            self.conn.execute(
                "UPDATE runs SET config = ?, config_hash = ?, planned = ?, status = 'running',"
                " finished = NULL, stop_reason = NULL WHERE id = ?",
                (
                    json.dumps(dict(config), sort_keys=True, default=str),
                    config_hash(identity),
                    planned,
                    run_id,
                ),
            )

    def add_cheating(self, run_id: int, names: Sequence[str]) -> None:
        """Record that the players ``names`` were also allowed to read hidden information
        (a resumed run whose new games allow what its first did not)."""
        row = self.conn.execute("SELECT cheating FROM runs WHERE id = ?", (run_id,)).fetchone()
        known = json.loads(row[0]) if row is not None else []
        more = [n for n in names if n not in known]
        if more:
            with self._transaction():
                self.conn.execute(
                    "UPDATE runs SET cheating = ? WHERE id = ?", (json.dumps(known + more), run_id)
                )

    def finish_run(self, run_id: int) -> None:
        """Mark the run finished: every planned game is in."""
        with self._transaction():
            self.conn.execute(
                "UPDATE runs SET finished = ?, status = 'finished', stop_reason = NULL"
                " WHERE id = ?",
                (now(), run_id),
            )

    def resume_run(self, run_id: int) -> None:
        """Mark a run that is played again (``resume``) as running, until it finishes."""
        with self._transaction():
            self.conn.execute(
                "UPDATE runs SET status = 'running', stop_reason = NULL"
                " WHERE id = ? AND status != 'finished'",
                (run_id,),
            )

    def stop_run(self, run_id: int, reason: str) -> None:
        """Mark an unfinished run stopped by an error (``reason``); a finished run stays so."""
        with self._transaction():
            self.conn.execute(
                "UPDATE runs SET status = 'stopped', stop_reason = ?"
                " WHERE id = ? AND status != 'finished'",
                (reason, run_id),
            )

    def runs(self, game: str | None = None) -> list[RunInfo]:
        """Every run (of ``game`` if given), oldest first."""
        sql = (
            "SELECT r.id, r.kind, r.game, r.game_version, r.config, r.config_hash, r.seed,"
            " r.planned, r.created, r.finished, (SELECT COUNT(*) FROM games g"
            " WHERE g.run_id = r.id), r.cheating, r.status, r.stop_reason FROM runs r"
        )
        args: tuple[Any, ...] = ()
        if game is not None:
            sql += " WHERE r.game = ?"
            args = (game,)
        out = []
        for row in self.conn.execute(sql + " ORDER BY r.id", args).fetchall():
            players = self.conn.execute(
                "SELECT name, spec FROM players WHERE run_id = ? ORDER BY rowid", (row[0],)
            ).fetchall()
            out.append(self._run_info(row, players))
        return out

    def _run_info(self, row: Sequence[Any], players: Sequence[Sequence[Any]]) -> RunInfo:
        """A ``runs`` row as a :class:`RunInfo`, each value checked (:class:`CorruptStoreError`)."""
        check = _Checker(self.path, f"run {row[0]}")
        config = check.json(row[4], "config", dict)
        cheating = check.json(row[11], "cheating", list)
        for name, spec in players:
            check.that(isinstance(name, str) and isinstance(spec, str), "players", (name, spec))
        check.that(row[12] in RUN_STATUSES, "status", row[12])
        return RunInfo(
            id=check.integer(row[0], "id"),
            kind=check.text(row[1], "kind"),
            game=check.text(row[2], "game"),
            game_version=check.integer(row[3], "game_version"),
            config=config,
            config_hash=check.text(row[5], "config_hash"),
            seed=check.integer(row[6], "seed"),
            planned=None if row[7] is None else check.integer(row[7], "planned"),
            created=check.text(row[8], "created"),
            finished=None if row[9] is None else check.text(row[9], "finished"),
            players={str(name): str(spec) for name, spec in players},
            played=row[10],
            cheating=tuple(check.text(n, "cheating") for n in cheating),
            status=row[12],
            stop_reason=row[13],
        )

    def games_in_store(self) -> list[str]:
        """The names of the games that have runs in this store."""
        return [r[0] for r in self.conn.execute("SELECT DISTINCT game FROM runs ORDER BY game")]

    # Games -------------------------------------------------------------------------------

    def add_game(self, run_id: int, record: GameRecord) -> bool:
        """Commit one finished game; False (and nothing written) if its slot is already in."""
        with self._transaction():
            cur = self.conn.execute(
                "INSERT OR IGNORE INTO games (run_id, slot, seats, seed, opening, moves, returns,"
                " score, termination, error, move_times, movers, overruns, started, finished)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    run_id,
                    record.slot,
                    json.dumps(list(record.seats)),
                    record.seed,
                    json.dumps(list(record.opening)),
                    json.dumps(list(record.moves)),
                    json.dumps(list(record.returns)),
                    record.score,
                    record.termination,
                    record.error,
                    json.dumps(list(record.move_times)),
                    json.dumps(list(record.movers)),
                    json.dumps([list(o) for o in record.overruns]),
                    record.started,
                    record.finished,
                ),
            )
            return cur.rowcount == 1

    def played_slots(self, run_id: int) -> set[int]:
        return {
            r[0] for r in self.conn.execute("SELECT slot FROM games WHERE run_id = ?", (run_id,))
        }

    def games(
        self, run_ids: Sequence[int] | None = None, game: str | None = None
    ) -> Iterator[GameRecord]:
        """Stored games, by run and slot: of the given runs, or of every run of ``game``."""
        sql = (
            "SELECT g.slot, g.seats, g.seed, g.opening, g.moves, g.returns, g.score,"
            " g.termination, g.error, g.move_times, g.movers, g.overruns, g.started, g.finished,"
            " g.run_id FROM games g JOIN runs r ON r.id = g.run_id"
        )
        where: list[str] = []
        args: list[Any] = []
        if run_ids is not None:
            where.append(f"g.run_id IN ({','.join('?' * len(run_ids))})")
            args.extend(run_ids)
        if game is not None:
            where.append("r.game = ?")
            args.append(game)
        if where:
            sql += " WHERE " + " AND ".join(where)
        for row in self.conn.execute(sql + " ORDER BY g.run_id, g.slot", args):
            yield self._game_record(row)

    def _game_record(self, row: Sequence[Any]) -> GameRecord:
        """A ``games`` row as a :class:`GameRecord`, each value checked
        (:class:`CorruptStoreError`)."""
        check = _Checker(self.path, f"run {row[14]}, slot {row[0]}")
        seats = check.json(row[1], "seats", list)
        opening = check.json(row[3], "opening", list)
        moves = check.json(row[4], "moves", list)
        returns = check.json(row[5], "returns", list)
        times = check.json(row[9], "move_times", list)
        movers = check.json(row[10], "movers", list)
        overruns = check.json(row[11], "overruns", list)
        check.that(len(seats) >= 1 and all(isinstance(n, str) for n in seats), "seats", seats)
        check.that(all(_is_int(a) for a in opening + moves), "moves", row[4])
        check.that(all(_is_number(x) for x in returns), "returns", returns)
        check.that(row[6] is None or _is_number(row[6]), "score", row[6])
        check.that(all(t is None or _is_number(t) for t in times), "move_times", times)
        check.that(all(_is_int(m) and -1 <= m < len(seats) for m in movers), "movers", movers)
        check.that(
            all(
                isinstance(o, list) and len(o) == 3 and all(_is_number(x) for x in o)
                and _is_int(o[1]) and 0 <= o[1] < len(seats)
                for o in overruns
            ),
            "overruns",
            overruns,
        )  # fmt: skip
        return GameRecord(
            slot=check.integer(row[0], "slot"),
            seats=tuple(seats),
            seed=check.integer(row[2], "seed"),
            opening=tuple(opening),
            moves=tuple(moves),
            returns=tuple(float(x) for x in returns),
            score=None if row[6] is None else float(row[6]),
            termination=check.text(row[7], "termination"),
            error=None if row[8] is None else check.text(row[8], "error"),
            move_times=tuple(times),
            movers=tuple(movers),
            overruns=tuple((int(o[0]), int(o[1]), float(o[2])) for o in overruns),
            started=check.text(row[12], "started"),
            finished=check.text(row[13], "finished"),
        )


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _is_number(x: object) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


class _Checker:
    """Checks the values of one row read back; the first bad one raises
    :class:`CorruptStoreError` naming the store, the row (``where``) and the column."""

    def __init__(self, path: Path, where: str) -> None:
        self.path = path
        self.where = where

    def that(self, ok: bool, column: str, value: object) -> None:
        if not ok:
            shown = repr(value)
            shown = shown if len(shown) <= 60 else shown[:57] + "..."
            raise CorruptStoreError(
                f"results store {str(self.path)!r} is damaged or was edited: {self.where}: "
                f"bad {column} {shown}"
            )

    def json(self, text: object, column: str, kind: type) -> Any:
        try:
            value = json.loads(text) if isinstance(text, str) else None
        except ValueError:
            value = None
        self.that(isinstance(value, kind), column, text)
        return value

    def integer(self, value: object, column: str) -> int:
        self.that(_is_int(value), column, value)
        assert isinstance(value, int)
        return value

    def text(self, value: object, column: str) -> str:
        self.that(isinstance(value, str), column, value)
        assert isinstance(value, str)
        return value
