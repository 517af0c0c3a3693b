"""The sessions the server holds, and keeping their trees from stalling the server.

A :class:`Session` is a game in progress with a search configuration and the reference
engine's tree (:class:`mctslab.search.mcts.MCTS`), plus a compiled searcher when its AI
moves are searched by the compiled engine, and the tree of an earlier search kept for
the tree view (:class:`KeptSearch`). The :class:`SessionStore` holds them by id and drops
those idle for longer than ``Settings.session_ttl``.

A dropped tree is freed at once (:func:`release_later`; what a move leaves behind by
:func:`mctslab.search.trace.move_root`: a tree is a reference cycle that only a full
garbage collection would free otherwise), and :func:`tune_process` sets the interpreter
up for a server whose threads search.
"""

from __future__ import annotations

import gc
import sys
import threading
from dataclasses import dataclass, replace
from typing import Any

from mctslab.core.game import CHANCE, Game, State, sample_chance_outcome
from mctslab.core.rng import Rng
from mctslab.search.config import SearchConfig
from mctslab.search.engine import Searcher, make_searcher
from mctslab.search.mcts import MCTS
from mctslab.search.trace import tree_at, tree_size
from mctslab.search.warm import is_ready, path_of
from mctslab.web.limits import MemoryBudget
from mctslab.web.schemas import AiReport, KeptTree, SessionIn, SessionView, TreeCounts
from mctslab.web.settings import Settings
from mctslab.web.views import state_view

__all__ = [
    "KeptSearch",
    "Session",
    "SessionStore",
    "release_later",
    "tune_process",
]


@dataclass(frozen=True)
class KeptSearch:
    """An earlier search's tree, kept for the tree view once the session has moved on:
    the searcher that holds it, the position it searched from, and its engine.

    The reference tree follows the game (it is re-rooted at each move, and emptied at
    the end), so without this the view would lose the last search exactly when it is
    most worth looking at: after a compiled AI move (the compiled engine's tree is not
    the reference one) and once the game is over.
    """

    searcher: Searcher
    state: State
    engine: str

    def counts(self) -> tuple[int, int]:
        """``(nodes, root visits)`` of the kept tree."""
        return self.searcher.tree_size()


class Session:
    """A game in progress: its state (changed on the event loop only), the reference tree
    and, for compiled AI moves, a compiled searcher (both changed in worker threads,
    under ``lock``)."""

    def __init__(
        self,
        sid: str,
        spec: SessionIn,
        game: Game,
        config: SearchConfig,
        engine: str,
        settings: Settings,
        *,
        client: str = "",
        node_bytes: int = 0,
        fast_nodes: int | None = None,
        fast_bytes: int = 0,
    ) -> None:
        self.id = sid
        self.spec = spec
        self.game = game
        self.config = config  # with the reference tree's node cap as max_nodes
        self.engine = engine
        self.settings = settings
        #: The client (an IP address) that made it: sessions per client are capped.
        self.client = client
        #: Estimated bytes of one node of the reference tree (mctslab.web.limits).
        self.node_bytes = node_bytes
        #: The compiled tree's node cap, and its bytes (allocated at its first search).
        self.fast_config = replace(config, max_nodes=fast_nodes or config.max_nodes)
        self.fast_bytes = fast_bytes
        self.busy = False
        self.cancel = threading.Event()
        self.lock = threading.Lock()
        self.last_used = settings.clock()
        self.kept: KeptSearch | None = None
        self.restart()

    def restart(self) -> None:
        """The starting position and fresh searchers (the same seed: the same games)."""
        old = getattr(self, "mcts", None)
        if old is not None:
            release_later(old, self.lock)
        self.keep(None)
        self.state = self.game.state_from_actions(self.spec.actions)
        # The dice of a chance game are rolled by the server, from the session's seed.
        self.chance = Rng(self.config.seed ^ 0xD1CE)
        self.settle()
        self.mcts = MCTS(self.config)
        self.fast: Searcher | None = (
            make_searcher(self.fast_config, self.state, "compiled")
            if self.engine == "compiled"
            else None
        )
        self.last_ai: AiReport | None = None
        if not self.state.is_terminal():
            tree_at(self.mcts, self.state.clone())  # checks the config against the game

    def keep(self, search: KeptSearch | None) -> None:
        """Keep ``search``'s tree for the view (``None``: none), freeing the one kept before
        unless its searcher still searches: the session's compiled searcher, whose tree
        the next AI move reuses (and whose bytes :attr:`fast_bytes` holds)."""
        old = self.kept
        self.kept = search
        dropped = old is not None and (search is None or old.searcher is not search.searcher)
        if dropped and old is not None and old.searcher is not self.fast:
            release_later(old.searcher, self.lock)

    def shown_search(self) -> KeptSearch | None:
        """The kept search whose tree the view shows, or ``None`` for the reference tree at
        the current position: that one wins as soon as it has a search (a step, a run of
        iterations, the reference engine's move), since it is the more recent."""
        if self.kept is None:
            return None
        _, visits = tree_size(self.mcts)
        return self.kept if visits == 0 or self.state.is_terminal() else None

    def settle(self) -> None:
        """Draw chance outcomes (dice) until a player is to move or the game is over."""
        while self.state.current_player() == CHANCE:
            self.state.apply_action(sample_chance_outcome(self.state, self.chance))

    def touch(self) -> None:
        self.last_used = self.settings.clock()

    def tree_bytes(self, nodes: int | None = None) -> int:
        """The estimated bytes of the session's trees, the reference tree counted at
        ``nodes`` (default: its size now), a kept reference tree with it."""
        if nodes is None:
            nodes = tree_size(self.mcts)[0]
        kept = self.kept
        if kept is not None and kept.searcher is not self.fast:  # fast_bytes holds that one
            nodes += kept.searcher.tree_size()[0]
        return self.fast_bytes + max(1, nodes) * self.node_bytes

    def close(self) -> None:
        """Stop its search and free its tree (the session is being dropped)."""
        self.cancel.set()
        release_later(self.mcts, self.lock)
        self.keep(None)

    def view(self) -> SessionView:
        nodes, visits = tree_size(self.mcts)
        shown = self.shown_search()
        kept = None
        if shown is not None:
            kept_nodes, kept_visits = shown.counts()
            kept = KeptTree(
                engine=shown.engine,
                actions=shown.state.history(),
                nodes=kept_nodes,
                root_visits=kept_visits,
            )
        config = self.spec.config.model_copy(
            update={
                "engine": self.engine,
                "iterations": self.config.iterations,
                "time": self.config.time,
            }
        )
        return SessionView(
            id=self.id,
            game=self.spec.game,
            params=self.spec.params,
            config=config,
            engine=self.engine,
            engine_ready=self.engine != "compiled"
            or is_ready(self.game.info.name, path_of(self.config)),
            inference=getattr(self.config.puct and self.config.puct.evaluator, "backend", None),
            human_player=self.spec.human_player,
            busy=self.busy,
            state=state_view(self.state, self.game),
            tree=TreeCounts(nodes=nodes, root_visits=visits),
            kept_tree=kept,
            last_ai=self.last_ai,
        )


class SessionStore:
    """The sessions the server holds, by id (changed on the event loop only)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._sessions: dict[str, Session] = {}
        #: What every tree takes, by session id (and running stateless search).
        self.memory = MemoryBudget(settings.max_memory)

    def __len__(self) -> int:
        return len(self._sessions)

    def get(self, sid: str) -> Session | None:
        return self._sessions.get(sid)

    def of_client(self, client: str) -> int:
        """How many sessions ``client`` holds."""
        return sum(1 for s in self._sessions.values() if s.client == client)

    def oldest_idle(self, client: str) -> Session | None:
        """``client``'s session used least recently among those not searching, or ``None``
        (a session with a search running is in use, whatever its clock says)."""
        idle = [s for s in self._sessions.values() if s.client == client and not s.busy]
        return min(idle, key=lambda s: s.last_used, default=None)

    def add(self, session: Session) -> None:
        self._sessions[session.id] = session
        self.memory.hold(session.id, session.tree_bytes())

    def drop(self, sid: str) -> None:
        """Drop the session ``sid`` (its search is cancelled, its tree freed)."""
        self._sessions.pop(sid).close()
        self.memory.drop(sid)

    def sweep(self) -> None:
        """Drop the sessions idle for longer than ``session_ttl`` (a running search counts)."""
        now = self.settings.clock()
        for sid, s in list(self._sessions.items()):
            if not s.busy and now - s.last_used > self.settings.session_ttl:
                del self._sessions[sid]
                s.close()
                self.memory.drop(sid)

    def cancel_all(self) -> None:
        """Ask every running search to stop (the server is shutting down)."""
        for s in self._sessions.values():
            s.cancel.set()


# Keeping the event loop responsive ------------------------------------------------------------


def tune_process() -> None:
    """Process-wide settings for a server whose threads search (``mctslab serve`` calls
    this; a test process should not: they change the whole interpreter).

    - GIL switch interval 1 ms instead of 5 ms: a search thread holds the GIL, and the
      event loop waits up to one interval for it each time it wakes (health answers in
      about 7 ms instead of 14 ms at p50 under load).
    - After each full garbage collection its survivors are frozen (``gc.freeze``): the
      next full collections walk only what was made since, not every node of every
      session's tree again (under 20 busy sessions they took up to 0.4 s each, and the
      whole process stops for them). Trees are freed by reference counting
      (:func:`release` breaks their cycles), so freezing them loses nothing.
    """
    sys.setswitchinterval(0.001)
    if _freeze_after_full_collection not in gc.callbacks:
        gc.callbacks.append(_freeze_after_full_collection)


def _freeze_after_full_collection(phase: str, info: dict[str, Any]) -> None:
    if phase == "stop" and info.get("generation") == 2:
        gc.freeze()


# Freeing trees ------------------------------------------------------------------------------


def release_later(searcher: Searcher, lock: threading.Lock) -> None:
    """``searcher.release()`` (its tree forgotten and freed) in a thread of its own, under
    the tree's lock (a reader, or the last slice of a cancelled search, may still be
    walking the tree)."""
    if searcher.tree_size() == (0, 0):
        return

    def work() -> None:
        with lock:
            searcher.release()

    threading.Thread(target=work, name="mctslab-release", daemon=True).start()
