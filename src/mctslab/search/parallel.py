"""Root parallelism: ``workers=N`` independent seeded searches, root statistics merged.

Each worker holds its own searcher (so each keeps its own tree between moves, as
one searcher does), and each gets the whole budget (iterations, time or nodes).
Workers are threads of this process where the compiled engine searches (its
compiled code releases the GIL, so the threads use every core with no process to
start and one compiled cache) and processes where the reference engine does (it
holds the GIL); ``SearchConfig.parallel`` overrides the choice. Worker ``i`` searches with seed
``seed + i``: worker 0 alone would give exactly the single-process result. The
merged root sums every child's visits and value sums over the workers and takes
any proof a worker found (proofs are exact); the final-move rule then reads the
merged root (Chaslot, Winands and van den Herik 2008, "Parallel Monte-Carlo
tree search": root parallelization).

The workers' searchers come from the ``single`` factory the caller passes
(:func:`mctslab.search.engine.single_searcher`, which ``make_searcher`` passes): the
choice of engine stands above this module, which imports neither engine.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing as mp
import time
import traceback
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from multiprocessing.connection import Connection
from typing import Any

from mctslab.core.errors import InvalidConfigError, MctslabError
from mctslab.core.game import GameInfo, State, same_rules
from mctslab.search.budget import SLICE_SECONDS
from mctslab.search.config import SearchConfig
from mctslab.search.result import RootChild, SearchResult, Slices, make_result

__all__ = ["RootParallelSearcher", "SearchWorkerError", "SingleSearcher"]

_log = logging.getLogger(__name__)

#: A factory of one searcher with no workers of its own: ``single(config, state, engine)``
#: makes the searcher of the chosen engine (``"auto"``, ``"reference"`` or ``"compiled"``)
#: for ``state``'s game, as :func:`mctslab.search.engine.single_searcher` does.
SingleSearcher = Callable[[SearchConfig, State, str], Any]


class SearchWorkerError(RuntimeError):
    """A root-parallel worker crashed (a bug, not bad input): the message names the
    error, and the worker's traceback is logged on the ``mctslab.search.parallel`` logger."""


class _Worker:
    """One worker's searcher, made anew when the game changes (another game, or other
    rules: never a tree of the old one); a worker thread or process holds one."""

    def __init__(self, config: SearchConfig, engine: str, single: SingleSearcher) -> None:
        self.config, self.engine, self.single = config, engine, single
        self.searcher: Any = None
        self.game: object = None

    def search(
        self, state: State, info: GameInfo, config: SearchConfig | None = None
    ) -> tuple[str, Any, Any]:
        """One search (of ``config``, by default the worker's own): ``("ok", result, root
        children)``; ``("error", exception, None)`` for bad input (an
        :class:`~mctslab.core.errors.MctslabError`, raised again in the caller as it is);
        ``("crash", traceback text, None)`` for anything else."""
        try:
            this_game = getattr(state, "game", None)
            if self.searcher is None or not same_rules(this_game, self.game):
                self.searcher = self.single(self.config, state, self.engine)
                self.game = this_game
            result = self.searcher.search(state, info, config=config)
            return ("ok", result, self.searcher.root_children())
        except MctslabError as err:
            return ("error", err, None)
        except Exception:
            return ("crash", traceback.format_exc(), None)


def _worker(conn: Connection, config: SearchConfig, engine: str, single: SingleSearcher) -> None:
    """A worker process: search each state it is sent, reply with :meth:`_Worker.search`'s
    answer."""
    worker = _Worker(config, engine, single)
    while True:
        message = conn.recv()
        if message is None:
            return
        reply = worker.search(*message)
        try:
            conn.send(reply)
        except Exception:
            if reply[0] != "error":
                raise
            # An error that does not pickle: its message will do.
            conn.send(("error", InvalidConfigError(str(reply[1])), None))


class RootParallelSearcher:
    """``config.workers`` searchers in threads or processes, behind the one-searcher
    interface (see the module docstring).

    Its :meth:`search_slices` is coarse: one slice, the whole search (the workers search
    apart, in other processes or in compiled code, and are asked once for their trees).
    It keeps no single tree: :meth:`tree_size` is ``(0, 0)`` and :meth:`release` stops
    the workers, whose trees go with them. ``single`` makes each worker's searcher (see
    :data:`SingleSearcher`; a module-level function, so that a spawned worker process
    can be sent it)."""

    #: Its workers' nodes are the compiled engine's or the reference one's; a cap on
    #: nodes (``max_nodes``) binds each worker's tree.
    node_kind = "parallel"

    def __init__(
        self, config: SearchConfig, engine: str = "auto", *, single: SingleSearcher
    ) -> None:
        if config.workers < 2:
            raise InvalidConfigError("RootParallelSearcher needs workers >= 2")
        self.config = config
        self.engine = engine
        self.single = single
        self._conns: list[Connection] = []
        self._procs: list[Any] = []
        self._threads: list[_Worker] = []
        self._pool: ThreadPoolExecutor | None = None
        #: ``"threads"`` or ``"processes"`` once the first search has started them.
        self.mode: str | None = None

    def uses_threads(self, state: State) -> bool:
        """Whether the workers for ``state``'s game run in threads: ``parallel="threads"``,
        or ``"auto"`` and the compiled engine searches the game (the searcher ``single``
        makes for it is a compiled one: a searcher is cheap to make, its tree comes with
        its first search)."""
        if self.config.parallel != "auto":
            return self.config.parallel == "threads"
        return bool(self.single(self.config, state, self.engine).node_kind == "compiled")

    def _start_threads(self) -> None:
        for i in range(self.config.workers):
            cfg = replace(self.config, workers=1, seed=self.config.seed + i)
            self._threads.append(_Worker(cfg, self.engine, self.single))
        self._pool = ThreadPoolExecutor(self.config.workers, thread_name_prefix="mctslab-root")
        self.mode = "threads"

    def _start(self) -> None:
        # fork: the workers inherit the loaded game and compiled code, and no script has
        # to guard its main module; spawn where fork does not exist.
        method = "fork" if "fork" in mp.get_all_start_methods() else "spawn"
        ctx = mp.get_context(method)
        for i in range(self.config.workers):
            cfg = replace(self.config, workers=1, seed=self.config.seed + i)
            parent, child = ctx.Pipe()
            proc = ctx.Process(  # type: ignore[attr-defined]
                target=_worker, args=(child, cfg, self.engine, self.single), daemon=True
            )
            proc.start()
            child.close()  # the worker's end: a worker that dies then reads as EOF here
            self._conns.append(parent)
            self._procs.append(proc)
        self.mode = "processes"

    def search(
        self,
        state: State,
        game_info: GameInfo | None = None,
        *,
        config: SearchConfig | None = None,
    ) -> SearchResult:
        """One search by every worker (of ``config``, by default the searcher's own: worker
        ``i`` searches it with seed ``seed + i``), their root statistics merged."""
        config = config or self.config
        if config.workers != self.config.workers:
            raise InvalidConfigError(
                f"this searcher has {self.config.workers} workers; a search's config cannot "
                f"ask for {config.workers}"
            )
        info = game_info or getattr(getattr(state, "game", None), "info", None)
        if not isinstance(info, GameInfo):
            raise InvalidConfigError("pass game_info=game.info: the state has no .game")
        threads = self.uses_threads(state)
        if self.mode is not None and self.mode != ("threads" if threads else "processes"):
            self.close()  # another game, searched by the other engine
        if self.mode is None and threads:
            self._start_threads()
        elif self.mode is None:
            self._start()
        start = time.perf_counter()
        own = None if config is self.config else config
        ask = self._ask_threads if self._pool else self._ask
        replies = ask(state, info, own)
        seconds = time.perf_counter() - start
        results: list[SearchResult] = [r[1] for r in replies]
        merged: dict[int, RootChild] = {}
        for _, _, children in replies:
            for action, visits, value_sum, proven in children:
                ch = merged.setdefault(action, RootChild(action, 0, 0.0, None))
                ch.visits += visits
                ch.value_sum += value_sum
                if proven is not None:
                    ch.proven = proven
        proofs = [r.proven for r in results if r.proven is not None]
        to_play = results[0].player
        root_proven = None
        if proofs:  # back to player 0's point of view, as the engines keep proofs
            root_proven = proofs[0] if to_play == 0 else -proofs[0]
        stopped = {r.stopped_by for r in results}
        iterations = sum(r.iterations for r in results)
        merged_children = [merged[a] for a in sorted(merged)]
        result = make_result(
            merged_children,
            to_play,
            root_proven,
            config,
            info,
            iterations=iterations,
            nodes=sum(r.nodes for r in results),
            seconds=seconds,
            stopped_by=stopped.pop() if len(stopped) == 1 else "mixed",
            compile_seconds=max(r.compile_seconds for r in results),
        )
        return result

    def search_slices(
        self,
        state: State,
        game_info: GameInfo | None = None,
        *,
        config: SearchConfig | None = None,
        slice_seconds: float = SLICE_SECONDS,
    ) -> Slices:
        """:meth:`search` as one slice (see the class docstring): ``slice_seconds`` is
        not heard, and a cancel is heard once the whole search is done."""
        yield self.search(state, game_info, config=config)

    def _worker_configs(self, config: SearchConfig | None) -> list[SearchConfig | None]:
        """Each worker's config for a search of ``config`` (``None``: their own)."""
        if config is None:
            return [None] * self.config.workers
        return [replace(config, workers=1, seed=config.seed + i) for i in range(config.workers)]

    def _ask_threads(
        self, state: State, info: GameInfo, config: SearchConfig | None
    ) -> list[tuple[str, Any, Any]]:
        """As :meth:`_ask`, the workers being threads, each with its own copy of ``state``."""
        assert self._pool is not None
        configs = self._worker_configs(config)
        futures = [
            self._pool.submit(w.search, state.clone(), info, c)
            for w, c in zip(self._threads, configs, strict=True)
        ]
        return self._check([f.result() for f in futures])

    def _ask(
        self, state: State, info: GameInfo, config: SearchConfig | None
    ) -> list[tuple[str, Any, Any]]:
        """Send ``state`` to every worker and collect their replies; raise the first user
        error as it was raised, and a crash as :class:`SearchWorkerError` (its traceback
        logged), stopping the workers: their trees are not to be trusted after that."""
        sent = []
        for conn, c in zip(self._conns, self._worker_configs(config), strict=True):
            try:
                conn.send((state, info, c))
                sent.append(True)
            except (BrokenPipeError, OSError):
                sent.append(False)
        replies: list[tuple[str, Any, Any]] = []
        for i, conn in enumerate(self._conns):
            try:
                if not sent[i]:
                    raise EOFError
                replies.append(conn.recv())
            except (EOFError, OSError):
                replies.append(("crash", f"worker {i} died ({self._exit(i)})", None))
        return self._check(replies)

    def _check(self, replies: list[tuple[str, Any, Any]]) -> list[tuple[str, Any, Any]]:
        """The replies if all are answers; else stop the workers and raise."""
        crashes = [(i, r[1]) for i, r in enumerate(replies) if r[0] == "crash"]
        errors = [r[1] for r in replies if r[0] == "error"]
        if crashes or errors:
            self.close()
        if crashes:
            for i, text in crashes:
                _log.error("root-parallel worker %d crashed:\n%s", i, text)
            i, text = crashes[0]
            last = text.strip().splitlines()[-1] if text.strip() else "no message"
            raise SearchWorkerError(
                f"root-parallel worker {i} crashed: {last} (traceback in the log)"
            )
        if errors:
            err = errors[0]
            raise err if isinstance(err, BaseException) else InvalidConfigError(str(err))
        return replies

    def _exit(self, i: int) -> str:
        proc = self._procs[i]
        proc.join(timeout=1)
        return f"exit code {proc.exitcode}"

    def reset(self) -> None:
        self.close()

    def release(self) -> None:
        """Stop the workers: their trees go with them."""
        self.close()

    def tree_size(self) -> tuple[int, int]:
        """``(0, 0)``: the trees are the workers', one each."""
        return 0, 0

    def tree_reader(self) -> None:
        """No reader: there is no single tree to read."""
        raise InvalidConfigError(
            "no tree to show in a RootParallelSearcher: root parallelism (workers > 1) "
            "keeps one tree per worker; search with workers=1"
        )

    def close(self) -> None:
        """Stop the workers (a later search starts new ones)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
        self._pool, self._threads, self.mode = None, [], None
        for conn in self._conns:
            with contextlib.suppress(BrokenPipeError, OSError):
                conn.send(None)
        for proc in self._procs:
            proc.join(timeout=5)
            if proc.is_alive():
                proc.kill()
        self._conns, self._procs = [], []

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.close()

    def root_children(self) -> list[tuple[int, int, float, int | None]]:
        raise InvalidConfigError("a root-parallel searcher has no single tree")
