"""The analysis engine: queries read from a stream, their positions searched by a pool
of worker threads, each answered as it finishes.

Apart from the requests (:mod:`mctslab.cli.katago.query`) and the answers
(:mod:`mctslab.cli.katago.answer`), as KataGo's ``analysis.cpp`` is apart from its
search: :class:`AnalysisEngine` reads a line, answers a refused one at once (an
``error``, and the engine reads on), writes a query's ``warning`` s, and queues each of
its positions by priority (highest first, then in the order they came). ``threads``
workers take them: a position searches with a fresh tree of the engine's player
(``--player`` for Go, ``--game-player`` for the other games), under the query's
``maxVisits`` and the engine's time cap, in the engine's slices of at most
:data:`~mctslab.cli.gtp.analysis.ANALYSIS_SLICE` seconds
(:meth:`~mctslab.search.engine.Searcher.search_slices`, as ``lz-analyze`` runs), so that
between two slices it can write an interim answer (``reportDuringSearchEvery``) and see
a ``terminate``. Every position ends with exactly one answer whose ``isDuringSearch`` is
false, as KataGo promises: its final one, the one a terminate cut short, or
``noResults`` for a position terminated before it began.

The compiled engine leaves Python's GIL free while it searches, so positions searched
by the workers run in parallel on as many cores; the reference engine (games without
rule kernels) shares the GIL and takes turns, slice by slice.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import itertools
import json
import math
import queue
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from mctslab.cli.app import CliError
from mctslab.cli.gtp.analysis import ANALYSIS_SLICE, MIN_ANALYSIS_SLICE
from mctslab.cli.katago.answer import GoScores, answer, no_results, terminal_answer
from mctslab.cli.katago.query import (
    Action,
    Limits,
    Position,
    Query,
    QueryError,
    read_request,
)
from mctslab.core.game import GameInfo
from mctslab.core.registry import make
from mctslab.games.go import Go
from mctslab.players.player import MCTSPlayer, make_player, parse_spec
from mctslab.search.budget import SLICE
from mctslab.search.config import SearchConfig
from mctslab.search.engine import make_searcher
from mctslab.web.settings import Settings

__all__ = ["GO_PLAYER", "OTHER_PLAYER", "AnalysisEngine"]

#: Go's player: the strongest UCT player of docs/go.md's measurements (RAVE, heavy
#: playouts), whose spec ``mctslab gtp`` is recommended with.
GO_PLAYER = "mcts:rave=30000,c=0,simulation=heavy"
#: The other games' player: plain UCT.
OTHER_PLAYER = "mcts"
#: The most nodes one position's tree may hold (the web lab's cap for a session's tree).
MAX_NODES = Settings().max_nodes


@dataclass(eq=False)
class _Task:
    """One position of a query in the engine: queued, running, done or terminated."""

    query: Query
    position: Position
    config: SearchConfig
    engine: str
    status: str = "queued"
    stop: threading.Event = field(default_factory=threading.Event)


def _version() -> str:
    try:
        return importlib.metadata.version("mctslab")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def check_spec(spec: str, info: GameInfo, seed: int, what: str) -> MCTSPlayer:
    """The MCTS player of ``spec`` (``mcts:...`` or ``puct:...``, one worker, not
    Gumbel's fixed plan), or :class:`CliError`: the engine reads its tree."""
    kind, _ = parse_spec(spec)
    if kind not in ("mcts", "puct"):
        raise CliError(f"mctslab analysis: {what} must be an mcts: or puct: spec, got {spec!r}")
    player = make_player(spec, info, seed)
    if type(player) is not MCTSPlayer:
        raise CliError(f"mctslab analysis: {what} must be an MCTS player, got {spec!r}")
    if player.config.rule.root_halving:
        raise CliError(f"mctslab analysis: {what}: gumbel plans a fixed budget; use mcts or puct")
    if player.config.workers > 1:
        raise CliError(f"mctslab analysis: {what} must search with one worker")
    return player


class AnalysisEngine:
    """KataGo's analysis protocol (see :mod:`mctslab.cli.katago`): :meth:`handle` takes
    one input line, :meth:`run` serves a stream, :meth:`close` ends the workers.

    ``write`` takes each output line (default: standard output). ``score_playouts`` and
    ``ownership_playouts`` size Go's score and ownership estimates
    (:class:`~mctslab.cli.katago.answer.GoScores`; 0: none). ``warm_up`` compiles the
    compiled engine's Go search (or loads it from numba's cache) before the first query.
    """

    def __init__(
        self,
        player: str = GO_PLAYER,
        other_player: str = OTHER_PLAYER,
        limits: Limits | None = None,
        threads: int = 2,
        seed: int = 0,
        score_playouts: int = 64,
        ownership_playouts: int = 100,
        write: Callable[[str], None] | None = None,
        warm_up: bool = True,
    ) -> None:
        self.limits = limits or Limits()
        self.seed = seed
        self.specs = (player, other_player)
        self.score_playouts = score_playouts
        self.ownership_playouts = ownership_playouts
        go = check_spec(player, Go(9).info, seed, "--player")
        check_spec(other_player, make("connect_four").info, seed, "--game-player")
        self._write = write or _write_stdout
        self._out = threading.Lock()  # one line at a time on the output
        self._lock = threading.Lock()  # the tasks' statuses
        self._open: list[_Task] = []
        self._queue: queue.PriorityQueue[tuple[float, int, _Task | None]] = queue.PriorityQueue()
        self._order = itertools.count()
        if warm_up:
            self._warm_up(go)
        self._workers = [
            threading.Thread(target=self._work, name=f"analysis-{i}", daemon=True)
            for i in range(threads)
        ]
        for worker in self._workers:
            worker.start()

    def _warm_up(self, player: MCTSPlayer) -> None:
        """One iteration of Go's search and one scoring playout: numba compiles (or loads)
        their code now rather than in the first query."""
        game = Go(9)
        state = game.new_initial_state()
        config = replace(player.config, iterations=1, time=None)
        make_searcher(config, state, player.engine).search(state, game.info)
        GoScores(game, state, 1, 0, self.seed).score()

    # Output ------------------------------------------------------------------------------------

    def emit(self, reply: dict[str, Any]) -> None:
        """Write one answer as a line of JSON (one writer at a time; a closed output is
        ignored: its reader has gone)."""
        text = json.dumps(reply, separators=(",", ":")) + "\n"
        with self._out, contextlib.suppress(OSError):
            self._write(text)

    def _error(self, err: QueryError) -> None:
        reply: dict[str, Any] = {"error": str(err)}
        if err.field is not None:
            reply["field"] = err.field
        if err.ident is not None:
            reply["id"] = err.ident
        self.emit(reply)

    # Requests ----------------------------------------------------------------------------------

    def handle(self, line: str) -> None:
        """Read one input line and act on it: an error answered at once, an action
        done, a query's positions queued (its warnings written first)."""
        line = line.strip()
        if not line:
            return
        try:
            request = read_request(line, self.limits)
            if isinstance(request, Action):
                self._act(request)
                return
            config, engine = self._config(request)
        except QueryError as err:
            self._error(err)
            return
        except Exception as err:  # never a crash: the client keeps its engine
            message = " ".join(str(err).split())
            self.emit({"error": f"internal error: {type(err).__name__}: {message}"})
            return
        for note in request.warnings:
            self.emit({"warning": note.message, "field": note.field, "id": request.ident})
        with self._lock:
            for position in request.positions:
                task = _Task(request, position, config, engine)
                self._open.append(task)
                self._queue.put((-position.priority, next(self._order), task))

    def _config(self, query: Query) -> tuple[SearchConfig, str]:
        """The search of each of ``query``'s positions: the engine's player for the
        game, with the query's visits, under the time and node caps."""
        spec = self.specs[0] if query.is_go else self.specs[1]
        try:
            player = check_spec(spec, query.game.info, self.seed, "the player")
        except ValueError as err:
            raise QueryError(f"the engine's player cannot play this game: {err}", "game") from None
        config = player.config
        seconds = query.max_time if config.time is None else min(config.time, query.max_time)
        nodes = MAX_NODES if config.max_nodes is None else min(config.max_nodes, MAX_NODES)
        config = replace(
            config, iterations=query.max_visits, time=seconds, max_nodes=nodes, reuse_tree=False
        )
        return config, player.engine

    def _act(self, action: Action) -> None:
        reply = dict(action.raw)
        if action.action == "query_version":
            reply.update(version=_version(), git_hash="<omitted>")
        elif action.action == "query_models":
            reply["models"] = [
                {
                    "name": spec,
                    "internalName": f"mctslab {spec}",
                    "maxBatchSize": 1,
                    "usesHumanSLProfile": False,
                    "version": 0,
                    "usingFP16": "false",
                }
                for spec in self.specs
            ]
        elif action.action in ("terminate", "terminate_all"):
            self._terminate(action)
        self.emit(reply)  # clear_cache: nothing is cached between positions

    def _terminate(self, action: Action) -> None:
        """Stop the positions ``action`` names: a queued one is answered ``noResults``
        now, a running one stops after its slice and answers what it found."""
        with self._lock:
            for task in list(self._open):
                if action.action == "terminate" and task.query.ident != action.terminate_id:
                    continue
                if action.turns is not None and task.position.turn not in action.turns:
                    continue
                if task.status == "queued":
                    task.status = "terminated"
                    self._open.remove(task)
                    self.emit(no_results(task.query.ident, task.position.turn))
                elif task.status == "running":
                    task.stop.set()

    # Workers -----------------------------------------------------------------------------------

    def _work(self) -> None:
        while True:
            _, _, task = self._queue.get()
            if task is None:
                return
            with self._lock:
                if task.status != "queued":
                    continue
                task.status = "running"
            try:
                self._analyse(task)
            except Exception as err:  # the position ends; the engine answers the next ones
                message = " ".join(str(err).split())
                self.emit(
                    {
                        "error": f"internal error: {type(err).__name__}: {message}",
                        "id": task.query.ident,
                        "turnNumber": task.position.turn,
                    }
                )
                self.emit(no_results(task.query.ident, task.position.turn))
            finally:
                with self._lock:
                    task.status = "done"
                    if task in self._open:
                        self._open.remove(task)

    def _analyse(self, task: _Task) -> None:
        """One position's search in slices: interim answers every
        ``reportDuringSearchEvery`` seconds, the final one at the end of its budget or
        at a terminate."""
        query, position = task.query, task.position
        state = position.state
        if state.is_terminal():
            self.emit(terminal_answer(query, position))
            return
        game = query.game
        scores = (
            GoScores(game, state, self.score_playouts, self.ownership_playouts, self.seed)  # type: ignore[arg-type]
            if isinstance(game, Go)
            else None
        )
        every = query.report_every
        slice_s = ANALYSIS_SLICE
        if every is not None:
            slice_s = min(slice_s, max(MIN_ANALYSIS_SLICE, every / 2))
        first = query.first_report
        next_report = time.monotonic() + first if first is not None else math.inf
        searcher = make_searcher(task.config, state, task.engine)
        slices = searcher.search_slices(
            state.clone(), game.info, config=task.config, slice_seconds=slice_s
        )
        try:
            for result in slices:
                if result.stopped_by != SLICE or task.stop.is_set():
                    self.emit(answer(query, position, result, searcher, False, scores))
                    return
                now = time.monotonic()
                if now >= next_report:
                    self.emit(answer(query, position, result, searcher, True, scores))
                    next_report = now + (every if every is not None else math.inf)
        finally:
            slices.close()
            searcher.release()

    # Serving -----------------------------------------------------------------------------------

    def close(self, wait: bool = True) -> None:
        """End the workers: after every queued position is answered (``wait``), or at
        once, the running searches stopped within a slice and the queued ones dropped
        (KataGo's ``-quit-without-waiting``)."""
        if not wait:
            with self._lock:
                for task in self._open:
                    task.stop.set()
                    if task.status == "queued":
                        task.status = "terminated"
        for _ in self._workers:
            self._queue.put((math.inf, next(self._order), None))
        for worker in self._workers:
            worker.join()

    def run(self, lines: Iterable[str], write: Callable[[str], None], wait: bool = True) -> None:
        """Answer every line of ``lines`` through ``write``; at their end, :meth:`close`
        (KataGo finishes the queued queries before it exits)."""
        self._write = write
        try:
            for line in lines:
                self.handle(line)
        finally:
            self.close(wait)


def _write_stdout(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()
