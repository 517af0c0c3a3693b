"""The web lab's server: a JSON API over sessions, and the page.

A *session* is a game in progress with a search configuration and the reference
engine's tree (:class:`mctslab.search.mcts.MCTS`): the tree the step mode traces
(:func:`mctslab.search.trace.traced_iteration`), that ``iterations`` grows and that the
tree view and the exports draw (:mod:`mctslab.analysis.treeview`). With ``engine``
``"compiled"`` (or ``"auto"`` on a game with rule kernels) the AI's moves are
searched by the compiled engine, on a tree of its own that the view does not
show; step mode and ``iterations`` always run on the reference tree.

Searches run in worker threads, never on the event loop, one at a time per
session (a second one is refused with 409). A session search runs as a series of
short searches on the kept tree (see :func:`run_chunks`), checking the session's
cancel flag between them. Idle sessions expire after ``Settings.session_ttl``.
Every request is bounded by the caps of :class:`Settings`; a request beyond one
gets a 4xx whose ``detail`` names the cap. User errors (unknown game or option,
illegal move, malformed JSON) are 4xx with a one-line ``detail``, never a 500.

The OpenAPI schema is exact (``tests/web/test_web_schema.py`` fuzzes the app against it
with schemathesis): every error is :class:`ErrorOut` (``{"detail": one line}``), each
route lists every status it can send, and what the schema accepts the server
accepts. 422 means the request does not match the schema (types, enums, patterns,
the game names of ``GET /api/games``, and the budget caps of :class:`Settings`,
which :func:`create_app` writes into the schema as maxima); 400 means it matches
but the game refuses it (a bad game parameter, an illegal move, a position after
the end, a node not in the tree), which no schema can tell in advance.

Endpoints (``/docs`` and ``/openapi.json`` describe them in full):

- ``GET /api/health``, ``GET /api/games``;
- ``POST /api/sessions`` (create), ``GET`` / ``DELETE /api/sessions/{id}``;
- ``POST /api/sessions/{id}/play|ai|iterations|step|reset|cancel``;
- ``GET /api/sessions/{id}/tree|node|export``;
- ``POST /api/move``: a stateless bot service (position and budget in, move out).
"""

from __future__ import annotations

import asyncio
import gc
import math
import re
import secrets
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

import anyio
import anyio.to_thread
from fastapi import FastAPI, HTTPException, Query, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field
from pydantic_core import PydanticCustomError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

import mctslab
from mctslab.analysis import treeview
from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import CHANCE, Game, State, player_label, sample_chance_outcome
from mctslab.core.infoset import is_perfect_information
from mctslab.core.registry import available_games, game_parameters, make, parse_value
from mctslab.core.rng import Rng
from mctslab.search.engine import Searcher, has_kernels, make_searcher
from mctslab.search.mcts import (
    MCTS,
    Node,
    RootChild,
    SearchConfig,
    SearchResult,
    max_child,
    robust_child,
)
from mctslab.search.trace import traced_iteration, tree_at, tree_size
from mctslab.web.render import render

__all__ = ["ErrorOut", "Settings", "create_app", "release", "run_chunks", "tune_process"]

STATIC = Path(__file__).parent / "static"

T = TypeVar("T")


@dataclass(frozen=True)
class Settings:
    """The server's limits. A request beyond a cap gets a 4xx naming it.

    Attributes:
        session_ttl: seconds a session may stay idle before it is dropped.
        max_sessions: sessions held at once (429 beyond).
        max_iterations: iterations one request may ask for (422 beyond).
        max_time: seconds of search one request may ask for (422 beyond).
        max_nodes: nodes a session's tree may hold (413 when a request could pass
            it; searches stop there).
        max_view_nodes: nodes one tree view or export may show (413 beyond).
        max_svg_nodes: nodes an SVG export may show (Graphviz's layout is slow).
        chunk_seconds: length of the short searches a session search is cut into:
            how quickly a cancel takes effect, and the turn of a search when several
            run at once.
        search_threads: searches (chunks) that run at once. Python's GIL lets one
            thread compute at a time, and neither engine releases it, so more threads
            would not search faster; one keeps the event loop's wait for the GIL short
            (the server answers while searches run) and makes concurrent searches take
            turns, chunk by chunk, in arrival order.
        sweep_seconds: how often expired sessions are swept (they are also swept
            on every request).
        clock: the clock that times idleness (a test can pass a fake one).
    """

    session_ttl: float = 1800.0
    max_sessions: int = 100
    max_iterations: int = 200_000
    max_time: float = 10.0
    max_nodes: int = 1_000_000
    max_view_nodes: int = 50_000
    max_svg_nodes: int = 2_000
    chunk_seconds: float = 0.05
    search_threads: int = 1
    sweep_seconds: float = 30.0
    clock: Callable[[], float] = time.monotonic


# Request and response models ----------------------------------------------------------------

#: A node id: the actions from the root, dot-separated ("4.0.8"); "" is the root.
NODE_ID = r"^([0-9]+(\.[0-9]+)*)?$"
#: An OpenSpiel game, optionally with parameters: openspiel:go(board_size=9).
OPENSPIEL_GAME = r"^openspiel:[a-z0-9_]+(\(.*\))?$"
#: Iterations per AI move unless the configuration says otherwise (or max_iterations is less).
DEFAULT_ITERATIONS = 1000


def _integer(value: Any) -> Any:
    """An integer as JSON Schema has it: 3, or 3.0 (a number without a fraction); not `true`
    or "3", which pydantic's lax mode would take."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise PydanticCustomError("int_type", "Input should be a valid integer")
    return value


#: The integers of request bodies (with the models' ``strict``, which refuses floats).
JsonInt = Annotated[int, BeforeValidator(_integer)]
# Bounds before the validator, on the int itself: elsewhere pydantic checks them apart and
# writes "ge" into the schema, which is no JSON Schema keyword, instead of "minimum".
PositiveInt = Annotated[int, Field(ge=1), BeforeValidator(_integer)]
NaturalInt = Annotated[int, Field(ge=0), BeforeValidator(_integer)]

# Request bodies take exactly what their schema says: no unknown field, no `true` for 1
# or "3" for 3 (strict), no NaN or infinity (not JSON, though Python's parser reads them).
REQUEST = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)


class ErrorOut(BaseModel):
    """Every error the API sends: one line that names the problem (the field, the cap,
    the legal moves)."""

    detail: str = Field(description="What was wrong, in one line.")


# What each error status means, for the schema's per-route `responses`.
_ERRORS: dict[int, str] = {
    400: "Well formed, but refused by the game: a bad game parameter or configuration for "
    "this game, an illegal move, a position after the end, a node not in the tree.",
    404: "No such session: it never existed, was deleted, or expired.",
    409: "A search is running on the session (or the AI's search was cancelled: no move).",
    413: "Over a size cap: the session's tree (max_nodes) or the view (max_view_nodes, "
    "max_svg_nodes).",
    422: "The request does not match this schema (a type, a range, an unknown field or "
    "game, malformed JSON) or a budget is over its cap (max_iterations, max_time).",
    429: "Too many sessions (max_sessions).",
    503: "SVG export needs Graphviz.",
}


def _errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    """The ``responses`` of a route that sends the error statuses ``codes``."""
    return {code: {"model": ErrorOut, "description": _ERRORS[code]} for code in codes}


class EngineConfig(BaseModel):
    """A search configuration (the fields of :class:`mctslab.SearchConfig` the lab offers)."""

    model_config = REQUEST

    engine: Literal["reference", "compiled", "auto"] | None = Field(
        default=None,
        description="Engine of the AI's moves. Default: 'reference' for a session (its tree "
        "is the one the lab shows), 'auto' for /api/move (compiled where the game has "
        "rule kernels).",
    )
    c: float = Field(
        default=math.sqrt(2.0), ge=0, description="UCT exploration constant on rewards in [0, 1]."
    )
    expansion: Literal["one", "all"] = "one"
    simulation: Literal["random", "heavy", "cutoff"] = "random"
    final: Literal["robust", "max", "robust-max"] = Field(
        default="robust", description="Final-move rule."
    )
    solver: bool = Field(default=False, description="MCTS-Solver (two-player zero-sum games).")
    cutoff_depth: NaturalInt = Field(default=8, description="Plies of a 'cutoff' playout.")
    seed: JsonInt = 0
    iterations: PositiveInt | None = Field(
        default=DEFAULT_ITERATIONS,
        description="Iterations per AI move (null: none; a time alone replaces it). The "
        "default is the server's max_iterations where that is smaller.",
    )
    time: float | None = Field(
        default=None, gt=0, description="Seconds per AI move (null: no time budget)."
    )


class SessionIn(BaseModel):
    model_config = REQUEST

    # The schema's enum of names is written by create_app (the names of GET /api/games).
    game: str = Field(description="A name from GET /api/games, or openspiel:NAME.")
    params: dict[str, Any] = Field(default_factory=dict, description="Game parameters.")
    config: EngineConfig = Field(default_factory=lambda: EngineConfig())
    human_player: NaturalInt | None = Field(
        default=None, description="The player the human plays (0 moves first); null: none."
    )
    actions: list[JsonInt] = Field(default_factory=list, description="Moves played from the start.")


class LegalMove(BaseModel):
    action: int
    label: str


class StateView(BaseModel):
    text: str = Field(description="str(state): the board as text.")
    actions: list[int] = Field(description="The moves played from the start (action ids).")
    current_player: int = Field(description="Player to move; -4 once the game is over.")
    terminal: bool
    returns: list[float]
    legal: list[LegalMove]
    render: dict[str, Any] = Field(description="What the page draws (mctslab.web.render).")


class TreeCounts(BaseModel):
    nodes: int = Field(description="Nodes of the session's (reference) tree.")
    root_visits: int


class ChildView(BaseModel):
    action: int
    label: str
    visits: int
    value: float = Field(description="Mean return of the move for the player to move.")
    proven: int | None = Field(description="1 / 0 / -1: proven win / draw / loss; null.")


class AiReport(BaseModel):
    action: int
    label: str
    player: int
    final_rule: str = Field(description="The rule that picked the move ('solver' for a proof).")
    value: float
    iterations: int
    seconds: float
    stopped_by: str
    engine: str
    children: list[ChildView]


class SessionView(BaseModel):
    id: str
    game: str
    params: dict[str, Any]
    config: EngineConfig
    engine: str = Field(description="The engine of the AI's moves: reference or compiled.")
    human_player: int | None
    busy: bool = Field(description="Whether a search is running on the session.")
    state: StateView
    tree: TreeCounts
    last_ai: AiReport | None


class PlayIn(BaseModel):
    model_config = REQUEST

    action: JsonInt | str = Field(description="An action id, or a move's name (e.g. 'b2').")


class BudgetIn(BaseModel):
    model_config = REQUEST

    iterations: PositiveInt | None = None
    time: float | None = Field(default=None, gt=0)


class IterationsIn(BaseModel):
    model_config = REQUEST

    k: PositiveInt = Field(description="Iterations to run at the current position.")


class IterationsOut(BaseModel):
    iterations: int = Field(description="Iterations run by this request.")
    nodes: int
    root_visits: int
    seconds: float
    stopped_by: str


class MoveIn(BaseModel):
    model_config = REQUEST

    game: str = Field(description="A name from GET /api/games, or openspiel:NAME.")
    params: dict[str, Any] = Field(default_factory=dict)
    actions: list[JsonInt] = Field(default_factory=list, description="Moves played from the start.")
    config: EngineConfig = Field(default_factory=lambda: EngineConfig())
    iterations: PositiveInt | None = Field(default=None, description="Overrides config.iterations.")
    time: float | None = Field(default=None, gt=0, description="Overrides config.time.")


class MoveOut(BaseModel):
    action: int
    label: str
    player: int
    value: float
    iterations: int
    seconds: float
    final_rule: str
    stopped_by: str
    proven: int | None
    engine: str
    children: list[ChildView]


class GameOut(BaseModel):
    name: str
    version: int
    parameters: dict[str, Any] = Field(description="Parameters and their defaults.")
    num_players: int
    num_actions: int
    board: str = Field(description="Kind of drawing: grid, piles or text.")


class HealthOut(BaseModel):
    status: str
    sessions: int
    version: str


class ChildScoreOut(BaseModel):
    action: int
    label: str
    visits: int
    mean: float = Field(description="Q/N in [0, 1] of the player who moves into the child.")
    uct: float | None = Field(description="UCT value; null when unvisited (infinite).")
    proven: int | None
    eligible: bool = Field(description="False for a proven child that MCTS-Solver skips.")
    chosen: bool


class SelectionStepOut(BaseModel):
    node: str
    to_play: int
    visits: int
    children: list[ChildScoreOut]
    chosen: int


class ExpansionOut(BaseModel):
    parent: str
    node: str
    action: int
    label: str
    added: int
    untried_left: int


class SimulationOut(BaseModel):
    start: str
    kind: Literal["playout", "terminal", "proven"]
    actions: list[int]
    labels: list[str]
    cutoff: bool
    rewards: list[float]


class UpdateOut(BaseModel):
    node: str
    action: int
    player: int
    reward: float | None
    visits_before: int
    visits_after: int
    value_sum_before: float
    value_sum_after: float
    mean_before: float
    mean_after: float
    proven_before: int | None
    proven_after: int | None


class TraceOut(BaseModel):
    """One iteration, phase by phase (:class:`mctslab.search.trace.IterationTrace`)."""

    selection: list[SelectionStepOut]
    expansion: ExpansionOut | None
    simulation: SimulationOut
    backpropagation: list[UpdateOut] = Field(description="Leaf to root.")
    path: list[str] = Field(description="Node ids of the path, root first.")
    root_visits: int
    nodes: int
    c: float


class TreeNodeOut(BaseModel):
    """A node of the tree view (:func:`mctslab.analysis.treeview.to_json`)."""

    id: str
    action: int | None
    label: str | None
    player: int | None
    to_play: int
    visits: int
    value: float | None = Field(description="Q/N in [0, 1] of the player who moved in.")
    uct: float | None
    proven: int | None
    terminal: bool
    untried: int
    num_children: int
    hidden: int = Field(description="Children left out (beyond depth, or outside top).")
    hidden_visits: int
    children: list[TreeNodeOut]


class NodeOut(BaseModel):
    id: str
    actions: list[int] = Field(description="The moves from the start of the game to the node.")
    text: str
    render: dict[str, Any]
    to_play: int
    terminal: bool
    legal: list[LegalMove]


class CancelOut(BaseModel):
    cancelled: bool = Field(description="Whether a search was running.")


# Sessions -----------------------------------------------------------------------------------


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
    ) -> None:
        self.id = sid
        self.spec = spec
        self.game = game
        self.config = config  # with the per-session node cap as max_nodes
        self.engine = engine
        self.settings = settings
        self.busy = False
        self.cancel = threading.Event()
        self.lock = threading.Lock()
        self.last_used = settings.clock()
        self.restart()

    def restart(self) -> None:
        """The starting position and fresh searchers (the same seed: the same games)."""
        old = getattr(self, "mcts", None)
        if old is not None:
            release_later(old.root, self.lock)
        self.state = self.game.state_from_actions(self.spec.actions)
        # The dice of a chance game are rolled by the server, from the session's seed.
        self.chance = Rng(self.config.seed ^ 0xD1CE)
        self.settle()
        self.mcts = MCTS(self.config)
        self.fast: Searcher | None = (
            make_searcher(self.config, self.state, "compiled")
            if self.engine == "compiled"
            else None
        )
        self.last_ai: AiReport | None = None
        if not self.state.is_terminal():
            tree_at(self.mcts, self.state.clone())  # checks the config against the game

    def settle(self) -> None:
        """Draw chance outcomes (dice) until a player is to move or the game is over."""
        while self.state.current_player() == CHANCE:
            self.state.apply_action(sample_chance_outcome(self.state, self.chance))

    def touch(self) -> None:
        self.last_used = self.settings.clock()

    def close(self) -> None:
        """Stop its search and free its tree (the session is being dropped)."""
        self.cancel.set()
        release_later(self.mcts.root, self.lock)

    def view(self) -> SessionView:
        nodes, visits = tree_size(self.mcts)
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
            human_player=self.spec.human_player,
            busy=self.busy,
            state=state_view(self.state),
            tree=TreeCounts(nodes=nodes, root_visits=visits),
            last_ai=self.last_ai,
        )


def state_view(state: State) -> StateView:
    return StateView(
        text=str(state),
        actions=state.history(),
        current_player=state.current_player(),
        terminal=state.is_terminal(),
        returns=state.returns(),
        legal=_legal(state),
        render=render(state),
    )


def _legal(state: State) -> list[LegalMove]:
    return [LegalMove(action=a, label=state.action_to_string(a)) for a in state.legal_actions()]


def _move_fields(result: SearchResult, state: State) -> dict[str, Any]:
    """The fields an AI move report shares with the bot service's answer."""
    return {
        "action": result.action,
        "label": state.action_to_string(result.action),
        "player": result.player,
        "value": result.value,
        "iterations": result.iterations,
        "seconds": result.seconds,
        "final_rule": result.final_rule,
        "stopped_by": result.stopped_by,
        "children": _children(result, state),
    }


def _children(result: SearchResult, state: State) -> list[ChildView]:
    return [
        ChildView(
            action=ch.action,
            label=state.action_to_string(ch.action),
            visits=ch.visits,
            value=ch.value,
            proven=ch.proven,
        )
        for ch in result.children
    ]


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


def release(root: Node | None, keep: Node | None = None) -> None:
    """Unlink a discarded tree (all of it but ``keep``'s subtree) so that reference
    counting frees it at once.

    A node points to its parent and the parent to its children, so a dropped tree is a
    reference cycle. Left to Python's cyclic garbage collector, it would be freed by a
    full collection, which stops every thread, the event loop included, for as long as
    it takes to walk every object of the process: up to 0.4 s with 20 busy sessions.
    """
    stack = [] if root is None else [root]
    while stack:
        node = stack.pop()
        if node is keep:
            continue
        stack.extend(node.children)
        node.children = []
        node.parent = None


def release_later(root: Node | None, lock: threading.Lock) -> None:
    """:func:`release` in a thread of its own, under the tree's lock (a reader, or the
    last chunk of a cancelled search, may still be walking the tree)."""
    if root is None:
        return

    def work() -> None:
        with lock:
            release(root)

    threading.Thread(target=work, name="mctslab-release", daemon=True).start()


# Chunked searches ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ChunkedRun:
    """What :func:`run_chunks` did: the last search's result with the run's totals
    (``None`` if cancelled before any search), the seconds spent searching, and why
    it stopped."""

    result: SearchResult | None
    iterations: int
    seconds: float
    stopped_by: str


def _agree(searcher: Searcher) -> bool:
    """robust-max's test: the most visited root child is also the best valued."""
    children = [RootChild(*c) for c in searcher.root_children()]
    return not children or robust_child(children) is max_child(children)


async def run_chunks(
    searcher: Searcher,
    state: State,
    config: SearchConfig,
    *,
    cancel: threading.Event,
    lock: threading.Lock,
    chunk_seconds: float = 0.05,
    limiter: anyio.CapacityLimiter | None = None,
) -> ChunkedRun:
    """Spend ``config``'s budget as a series of short searches of ``searcher``'s kept tree,
    each in a worker thread, checking ``cancel`` between them: the engines cannot be
    interrupted inside a search.

    From one position, searches of ``n1``, ``n2``, ... iterations on a kept tree build
    the tree that one search of ``n1 + n2 + ...`` iterations builds (the same root, the
    same generator), so an iteration budget gives exactly the one-search result. A
    time budget counts time spent searching (not time waiting for ``limiter``), in
    slices of ``chunk_seconds``. robust-max's extension is run here, its agreement test
    made between chunks rather than between iterations. Each search holds ``lock``
    (readers of the tree take it too) and a token of ``limiter``: the server's searches
    take turns chunk by chunk.
    """
    budget = math.inf if config.iterations is None else float(config.iterations)
    allowed = math.inf if config.time is None else config.time  # seconds of search
    robust_max = config.final == "robust-max"
    base = replace(config, final="robust" if robust_max else config.final, reuse_tree=True)
    extended = False
    done, spent = 0, 0.0
    chunk = 64  # iterations of the first chunk under an iteration budget; then adapted
    result: SearchResult | None = None
    while True:
        if cancel.is_set():
            stopped_by = "cancelled"
            break
        out_of_time = spent >= allowed
        if done >= budget or out_of_time:
            if robust_max and not extended and not _agree(searcher):
                extended = True
                budget *= 1.0 + config.robust_max_extra
                allowed *= 1.0 + config.robust_max_extra
                continue
            stopped_by = "time" if out_of_time else "iterations"
            break
        if extended and _agree(searcher):
            stopped_by = "agreement"
            break
        if config.time is None:
            iterations: int | None = int(min(chunk, budget - done))
            slice_: float | None = None
        else:
            iterations = None if math.isinf(budget) else int(budget - done)
            slice_ = max(1e-3, min(allowed - spent, chunk_seconds))
        chunk_config = replace(base, iterations=iterations, time=slice_)

        def search_chunk(chunk_config: SearchConfig = chunk_config) -> tuple[SearchResult, float]:
            with lock:
                t0 = time.perf_counter()
                original, searcher.config = searcher.config, chunk_config
                try:
                    return searcher.search(state), time.perf_counter() - t0
                finally:
                    searcher.config = original

        last, seconds = await anyio.to_thread.run_sync(search_chunk, limiter=limiter)
        result = last
        done += last.iterations
        spent += seconds
        if last.stopped_by in ("proven", "nodes"):
            stopped_by = last.stopped_by
            break
        if config.time is None:  # aim for chunks of about chunk_seconds
            per = seconds / max(1, last.iterations)
            chunk = max(16, min(1 << 20, int(chunk_seconds / max(per, 1e-9))))
    if result is not None:
        rule = result.final_rule
        result = replace(
            result,
            iterations=done,
            seconds=spent,
            sims_per_s=done / spent if spent > 0 else 0.0,
            stopped_by=stopped_by,
            final_rule="robust-max" if robust_max and rule == "robust" else rule,
        )
    return ChunkedRun(result, done, spent, stopped_by)


# Helpers ------------------------------------------------------------------------------------


def _game_params(params: dict[str, Any]) -> dict[str, Any]:
    """Game parameters from JSON: strings are read as on the command line ("3" -> 3)."""
    return {k: parse_value(v) if isinstance(v, str) else v for k, v in params.items()}


def _lab_games() -> list[str]:
    """The registered games the lab plays: those of perfect information."""
    return [name for name in available_games() if is_perfect_information(make(name))]


def _hides_information(name: str) -> str:
    return (
        f"{name} hides information (cards), which the lab's tree would show: play it in the "
        f"terminal, e.g. mctslab play {name} --player human --player ismcts:iterations=1000"
    )


def _position(name: str, params: dict[str, Any], actions: list[int]) -> tuple[Game, State]:
    game = make(name, **_game_params(params))
    if not is_perfect_information(game):  # an OpenSpiel game (the schema names the others)
        raise InvalidConfigError(_hides_information(name))
    state = game.new_initial_state()
    for i, action in enumerate(actions):
        try:
            state.apply_action(action)
        except ValueError as err:
            raise InvalidConfigError(f"actions, move {i + 1}: {err}") from None
    return game, state


def _search_config(
    config: EngineConfig, iterations: int | None, time_: float | None, max_iterations: int
) -> SearchConfig:
    """The :class:`SearchConfig` of ``config``, with a request's budget if it gives one.

    The default iterations are capped by ``max_iterations`` (the schema says so)."""
    its, secs = config.iterations, config.time
    if "iterations" not in config.model_fields_set:
        its = None if "time" in config.model_fields_set else min(DEFAULT_ITERATIONS, max_iterations)
    if iterations is not None or time_ is not None:
        its, secs = iterations, time_
    return SearchConfig(
        c=config.c,
        expansion=config.expansion,
        simulation=config.simulation,
        final=config.final,
        solver=config.solver,
        cutoff_depth=config.cutoff_depth,
        seed=config.seed,
        iterations=its,
        time=secs,
    )


def _one_line(text: str) -> str:
    return " ".join(text.split())


# The request fields the caps of Settings bound: (schema component, field) -> cap.
_CAPPED_FIELDS = {
    ("EngineConfig", "iterations"): "max_iterations",
    ("EngineConfig", "time"): "max_time",
    ("MoveIn", "iterations"): "max_iterations",
    ("MoveIn", "time"): "max_time",
    ("BudgetIn", "iterations"): "max_iterations",
    ("BudgetIn", "time"): "max_time",
    ("IterationsIn", "k"): "max_iterations",
}


def _make_exact(schema: dict[str, Any], settings: Settings, games: list[str]) -> None:
    """Complete FastAPI's schema (in place) with what only the app knows.

    - FastAPI adds a 422 of its own model (an array of errors) to every route that has
      a parameter. The server sends :class:`ErrorOut` instead, and the routes that can
      send a 422 say so themselves: the added ones are dropped (a path parameter alone
      cannot be invalid).
    - The caps of ``settings`` become the maxima of the budget fields (the server
      checks them itself, with a ``detail`` that names the cap).
    - A game is a name of ``games`` (``GET /api/games``) or ``openspiel:NAME``.
    """
    components = schema["components"]["schemas"]
    for operations in schema["paths"].values():
        for operation in operations.values():
            added = operation["responses"].get("422", {})
            ref = added.get("content", {}).get("application/json", {}).get("schema", {})
            if ref.get("$ref", "").endswith("/HTTPValidationError"):
                del operation["responses"]["422"]
    components.pop("HTTPValidationError", None)
    components.pop("ValidationError", None)
    iterations = components["EngineConfig"]["properties"]["iterations"]
    iterations["default"] = min(DEFAULT_ITERATIONS, settings.max_iterations)
    for (model, field), cap in _CAPPED_FIELDS.items():
        prop = components[model]["properties"][field]
        for branch in prop.get("anyOf", [prop]):
            if branch.get("type") in ("integer", "number"):
                branch["maximum"] = getattr(settings, cap)
    for model in ("SessionIn", "MoveIn"):
        prop = components[model]["properties"]["game"]
        del prop["type"]
        prop["anyOf"] = [
            {"type": "string", "enum": games},
            {"type": "string", "pattern": OPENSPIEL_GAME},
        ]


# The application ----------------------------------------------------------------------------


def create_app(settings: Settings | None = None) -> FastAPI:
    """The web lab's FastAPI application (serve it with uvicorn: ``mctslab serve``)."""
    settings = settings or Settings()
    sessions: dict[str, Session] = {}
    lab_games = _lab_games()  # the games the schema names, and GET /api/games lists
    games_cache: list[GameOut] = []

    def sweep() -> None:
        """Drop the sessions idle for longer than ``session_ttl`` (a running search counts)."""
        now = settings.clock()
        for sid, s in list(sessions.items()):
            if not s.busy and now - s.last_used > settings.session_ttl:
                del sessions[sid]
                s.close()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async def sweeper() -> None:
            while True:
                await asyncio.sleep(settings.sweep_seconds)
                sweep()

        task = asyncio.create_task(sweeper())
        try:
            yield
        finally:
            task.cancel()
            for s in sessions.values():
                s.cancel.set()

    app = FastAPI(
        title="mctslab web lab",
        version=mctslab.__version__,
        description="Play against MCTS and watch its tree grow: sessions, step-by-step "
        "iterations, tree views and exports, and a stateless bot endpoint (POST /api/move). "
        "Errors are JSON {'detail': one line} (ErrorOut); each route lists the statuses it "
        "sends: 400 refused by the game, 404 no such session, 409 busy, 413 over a size cap, "
        "422 not what this schema accepts (or over a budget cap), 429 too many sessions.",
        lifespan=lifespan,
    )
    default_openapi = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            _make_exact(default_openapi(), settings, lab_games)  # caches it in app.openapi_schema
        return app.openapi_schema or {}

    app.openapi = openapi  # type: ignore[method-assign]

    # Errors: one line, 4xx for anything the user did. ----------------------------------

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = exc.errors()
        first = errors[0] if errors else {}
        loc = [str(x) for x in first.get("loc", ()) if x != "body"]
        if first.get("type") == "json_invalid":
            reason = first.get("ctx", {}).get("error", "not JSON")
            message = f"malformed JSON body: {reason}"
        else:
            where = ".".join(loc) or "body"
            message = f"{where}: {first.get('msg', 'invalid input')}"
            if first.get("type") == "extra_forbidden":
                message = f"{where}: unknown field"
        if len(errors) > 1:
            message += f" (and {len(errors) - 1} more)"
        return JSONResponse({"detail": _one_line(message)}, status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code == 405:
            # Starlette's Allow names the methods of the first route on the path; a path
            # with two routes (GET and DELETE /api/sessions/{sid}) has the methods of both.
            # Asked with no method, every route on the path matches in part (not NONE).
            methods: set[str] = set()
            for route in app.router.routes:
                match, _ = route.matches({**request.scope, "method": ""})
                if match is not Match.NONE:
                    methods |= getattr(route, "methods", None) or set()
            headers = {**(exc.headers or {}), "Allow": ", ".join(sorted(methods))}
            exc = StarletteHTTPException(405, exc.detail, headers=headers)
        return await http_exception_handler(request, exc)

    @app.exception_handler(treeview.GraphvizNotFoundError)
    async def no_graphviz(request: Request, exc: treeview.GraphvizNotFoundError) -> JSONResponse:
        return JSONResponse({"detail": _one_line(str(exc))}, status_code=503)

    @app.exception_handler(ValueError)
    async def user_error(request: Request, exc: ValueError) -> JSONResponse:
        # Every mctslab user error is a ValueError (MctslabError): unknown game or
        # option, bad parameter, illegal move. Their messages name the problem.
        message = _one_line(str(exc)) or type(exc).__name__
        return JSONResponse({"detail": message}, status_code=400)

    # Helpers that raise the documented HTTP errors. -------------------------------------

    def get(sid: str) -> Session:
        sweep()
        session = sessions.get(sid)
        if session is None:
            raise HTTPException(
                404,
                f"no session {sid!r}: it never existed, was deleted, or expired after "
                f"{settings.session_ttl:g} s idle",
            )
        session.touch()
        return session

    def check_game(name: str) -> None:
        """422 for a game the schema does not name (neither in GET /api/games nor
        openspiel:NAME)."""
        if name in lab_games or re.fullmatch(OPENSPIEL_GAME, name):
            return
        if name in available_games():
            raise HTTPException(422, f"game: {_hides_information(name)}")
        raise HTTPException(
            422,
            f"game: unknown game {name!r}; the lab's games: {', '.join(lab_games)} "
            "(and OpenSpiel's as openspiel:NAME)",
        )

    def explicit_budget(config: EngineConfig) -> tuple[int | None, float | None]:
        """The budget ``config`` asks for (its default iterations are within the cap)."""
        given = config.model_fields_set
        return config.iterations if "iterations" in given else None, config.time

    def check_budget(iterations: int | None, seconds: float | None) -> None:
        if iterations is not None and iterations > settings.max_iterations:
            raise HTTPException(
                422,
                f"iterations={iterations} is over the cap of {settings.max_iterations} "
                "iterations per request (max_iterations)",
            )
        if seconds is not None and seconds > settings.max_time:
            raise HTTPException(
                422,
                f"time={seconds:g} s is over the cap of {settings.max_time:g} s per request "
                "(max_time)",
            )

    def node_cap_reached(session: Session) -> None:
        nodes, _ = tree_size(session.mcts)
        if nodes >= settings.max_nodes:
            raise HTTPException(
                413,
                f"the session's tree has {nodes} nodes, at the cap of {settings.max_nodes} "
                "nodes per session (max_nodes): play a move or reset the session",
            )

    def not_over(session: Session) -> None:
        state = session.state
        if state.is_terminal():
            shown = ", ".join(f"{r:g}" for r in state.returns())
            raise HTTPException(
                400, f"the game is over (returns {shown}): reset the session to play again"
            )

    @contextmanager
    def exclusive(session: Session) -> Iterator[None]:
        """One search (or move) at a time per session; the event loop runs one handler
        step at a time, so the test-and-set of ``busy`` needs no lock."""
        if session.busy:
            raise HTTPException(
                409,
                "a search is running on this session: wait for it, or cancel it "
                f"(POST /api/sessions/{session.id}/cancel)",
            )
        session.busy = True
        session.cancel.clear()
        try:
            yield
        finally:
            session.busy = False
            session.touch()

    async def in_thread(fn: Callable[[], T]) -> T:
        return await anyio.to_thread.run_sync(fn)

    limiters: list[anyio.CapacityLimiter] = []

    def search_limiter() -> anyio.CapacityLimiter:
        """The tokens searches take, chunk by chunk (made in the event loop, on first use)."""
        if not limiters:
            limiters.append(anyio.CapacityLimiter(settings.search_threads))
        return limiters[0]

    async def reroot(session: Session) -> None:
        """Re-root the reference tree at the session's position (counting a large
        subtree takes a while: in a worker). A chance node reached is rolled first."""
        session.settle()
        state = session.state.clone()
        mcts, lock = session.mcts, session.lock

        def work() -> None:
            with lock:
                old = mcts.root
                if state.is_terminal():
                    mcts.reset()
                else:
                    tree_at(mcts, state)
                if mcts.root is not old:
                    release(old, keep=mcts.root)  # what the move left behind

        await in_thread(work)

    def view_size(mcts: MCTS, node: str, depth: int | None, top: int | None) -> int:
        """Nodes a view would show (stops counting past the cap); 0 if ``node`` is unknown."""
        here = mcts.root
        if here is None:
            return 1
        for action in treeview.parse_node_id(node):
            found = here.child(action)
            if found is None:
                return 0  # treeview says which child is missing
            here = found
        cap = max(settings.max_view_nodes, settings.max_svg_nodes)
        count, stack = 0, [(here, depth)]
        while stack and count <= cap:
            n, d = stack.pop()
            count += 1
            if d == 0:
                continue
            kids = sorted(n.children, key=lambda ch: (-ch.visits, ch.action))
            below = None if d is None else d - 1
            stack.extend((ch, below) for ch in kids[:top])
        return count

    def build_view(
        session: Session, node: str, depth: int | None, top: int | None, cap: int
    ) -> Callable[[], treeview.TreeNode]:
        """A function that builds the tree view in a worker, under the session's lock
        (what it reads is taken now, on the event loop, where moves are played)."""
        state, mcts, lock = session.state.clone(), session.mcts, session.lock
        return lambda: _build_view(mcts, lock, state, node, depth, top, cap)

    def _build_view(
        mcts: MCTS,
        lock: threading.Lock,
        state: State,
        node: str,
        depth: int | None,
        top: int | None,
        cap: int,
    ) -> treeview.TreeNode:
        with lock:
            if mcts.root is None or state.is_terminal():
                if treeview.parse_node_id(node):
                    raise InvalidConfigError(f"node {node!r} is not in the tree: it is empty")
                return treeview.TreeNode(
                    id="",
                    action=None,
                    label=None,
                    player=None,
                    to_play=state.current_player(),
                    visits=0,
                    value=None,
                    uct=None,
                    proven=None,
                    terminal=state.is_terminal(),
                    untried=len(state.legal_actions()),
                    children=(),
                    hidden=0,
                    hidden_visits=0,
                )
            size = view_size(mcts, node, depth, top)
            if size > cap:
                raise HTTPException(
                    413,
                    f"the view would show more than {cap} nodes (the cap "
                    f"{'max_svg_nodes' if cap == settings.max_svg_nodes else 'max_view_nodes'}"
                    "): ask for a smaller depth or top",
                )
            return treeview.from_reference(mcts, state, node=node, depth=depth, top=top)

    # Pages and service endpoints. -------------------------------------------------------

    @app.get("/", include_in_schema=False, response_model=None)
    async def index() -> Response:
        page = STATIC / "index.html"
        if page.exists():
            return FileResponse(page, headers={"Cache-Control": "no-cache"})
        return HTMLResponse("<!doctype html><title>mctslab</title><p>The page is missing.")

    if STATIC.is_dir():
        app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/api/health", response_model=HealthOut, tags=["service"])
    async def health() -> HealthOut:
        """Liveness: answers at once, even while searches run."""
        return HealthOut(status="ok", sessions=len(sessions), version=mctslab.__version__)

    @app.get("/api/games", response_model=list[GameOut], tags=["service"])
    async def games() -> list[GameOut]:
        """The registered games the lab shows (those of perfect information), their
        parameters (with defaults) and board kind."""
        if not games_cache:
            for name in lab_games:  # card games are played in the terminal (mctslab play)
                game = make(name)
                params = {
                    k: list(v) if isinstance(v, tuple) else v
                    for k, v in game_parameters(name).items()
                }
                info = game.info
                games_cache.append(
                    GameOut(
                        name=name,
                        version=info.version,
                        parameters=params,
                        num_players=info.num_players,
                        num_actions=info.num_actions,
                        board=str(render(game.new_initial_state())["kind"]),
                    )
                )
        return games_cache

    @app.post("/api/move", response_model=MoveOut, tags=["service"], responses=_errors(400, 422))
    async def move(body: MoveIn) -> MoveOut:
        """A bot service: the position (game, parameters, moves so far), a configuration
        and a budget in; the chosen move and the root statistics out. Stateless: each
        call searches a fresh tree; with an iteration budget the result is that of
        ``mctslab.search(state, config, engine=...)`` with the same seed (the search
        runs in chunks, taking turns with the sessions' searches)."""
        check_game(body.game)
        check_budget(*explicit_budget(body.config))  # even where overridden
        check_budget(body.iterations, body.time)
        _, state = _position(body.game, body.params, body.actions)
        if state.is_terminal():
            raise HTTPException(400, "the game is over at this position: no move to choose")
        config = _search_config(body.config, body.iterations, body.time, settings.max_iterations)
        config = replace(config, max_nodes=settings.max_nodes)
        engine = body.config.engine or "auto"
        searcher = make_searcher(config, state, engine)
        run = await run_chunks(
            searcher,
            state,
            config,
            cancel=threading.Event(),  # nobody can cancel a stateless search
            lock=threading.Lock(),
            chunk_seconds=settings.chunk_seconds,
            limiter=search_limiter(),
        )
        assert run.result is not None
        result = run.result
        if isinstance(searcher, MCTS):
            release_later(searcher.root, threading.Lock())
        return MoveOut(
            **_move_fields(result, state),
            proven=result.proven,
            engine="compiled" if engine != "reference" and has_kernels(state) else "reference",
        )

    # Sessions. ---------------------------------------------------------------------------

    @app.post(
        "/api/sessions",
        response_model=SessionView,
        status_code=201,
        tags=["sessions"],
        responses=_errors(400, 422, 429),
    )
    async def create_session(body: SessionIn) -> SessionView:
        """A new session: a game from its start (or after ``actions``), the configuration
        of the AI's moves, and which player the human plays."""
        check_game(body.game)
        check_budget(*explicit_budget(body.config))
        sweep()
        if len(sessions) >= settings.max_sessions:
            raise HTTPException(
                429,
                f"too many sessions: the server holds at most {settings.max_sessions} "
                f"(max_sessions); delete one, or wait for idle ones to expire after "
                f"{settings.session_ttl:g} s",
            )
        game, state = _position(body.game, body.params, body.actions)
        if body.human_player is not None and body.human_player >= game.info.num_players:
            raise HTTPException(
                400,
                f"human_player must be a player of {body.game} (0 to "
                f"{game.info.num_players - 1}) or null, got {body.human_player}",
            )
        config = _search_config(body.config, None, None, settings.max_iterations)
        config = replace(config, max_nodes=settings.max_nodes)
        wanted = body.config.engine or "reference"
        engine = (
            "compiled"
            if wanted == "compiled" or (wanted == "auto" and has_kernels(state))
            else "reference"
        )
        if engine == "compiled" and not has_kernels(state):
            raise InvalidConfigError(
                "engine='compiled' needs a game with rule kernels; use engine='reference'"
            )
        sid = secrets.token_urlsafe(9)
        session = Session(sid, body, game, config, engine, settings)  # no search: quick
        sessions[sid] = session
        return session.view()

    @app.get(
        "/api/sessions/{sid}", response_model=SessionView, tags=["sessions"], responses=_errors(404)
    )
    async def session_view(sid: str) -> SessionView:
        """The session: position, legal moves, drawing, tree size, last AI move, busy."""
        return get(sid).view()

    @app.delete("/api/sessions/{sid}", status_code=204, tags=["sessions"], responses=_errors(404))
    async def delete_session(sid: str) -> Response:
        """Drop the session (a running search is cancelled)."""
        session = get(sid)
        del sessions[sid]
        session.close()
        return Response(status_code=204)

    @app.post(
        "/api/sessions/{sid}/play",
        response_model=SessionView,
        tags=["sessions"],
        responses=_errors(400, 404, 409, 422),
    )
    async def play(sid: str, body: PlayIn) -> SessionView:
        """Play a move (an action id or its name); 400 naming the legal moves if illegal."""
        session = get(sid)
        with exclusive(session):
            not_over(session)
            state = session.state
            action = body.action
            if isinstance(action, str):  # a move's name, as the board shows it
                action = state.string_to_action(action)
            state.apply_action(action)  # IllegalActionError (400) names the legal moves
            await reroot(session)
        return session.view()

    @app.post(
        "/api/sessions/{sid}/ai",
        response_model=SessionView,
        tags=["sessions"],
        responses=_errors(400, 404, 409, 422),
    )
    async def ai(sid: str, body: BudgetIn | None = None) -> SessionView:
        """The AI moves: a search with the session's configuration (or this request's
        budget) on the kept tree, then its move is played. Cancelled: 409, no move."""
        session = get(sid)
        budget = body or BudgetIn()
        check_budget(budget.iterations, budget.time)  # the session's own were checked
        with exclusive(session):
            not_over(session)
            config = session.config
            if budget.iterations is not None or budget.time is not None:
                config = replace(config, iterations=budget.iterations, time=budget.time)
            searcher: Searcher = session.mcts if session.fast is None else session.fast
            state = session.state.clone()
            run = await run_chunks(
                searcher,
                state,
                config,
                cancel=session.cancel,
                lock=session.lock,
                chunk_seconds=settings.chunk_seconds,
                limiter=search_limiter(),
            )
            if run.stopped_by == "cancelled" or run.result is None:
                raise HTTPException(
                    409, f"the search was cancelled after {run.iterations} iterations: no move"
                )
            result = run.result
            session.last_ai = AiReport(**_move_fields(result, state), engine=session.engine)
            session.state.apply_action(result.action)
            await reroot(session)
        return session.view()

    @app.post(
        "/api/sessions/{sid}/iterations",
        response_model=IterationsOut,
        tags=["sessions"],
        responses=_errors(400, 404, 409, 413, 422),
    )
    async def iterations(sid: str, body: IterationsIn) -> IterationsOut:
        """Run ``k`` iterations on the session's tree at the current position (no move)."""
        session = get(sid)
        check_budget(body.k, None)
        with exclusive(session):
            not_over(session)
            node_cap_reached(session)
            nodes, _ = tree_size(session.mcts)
            if session.config.expansion == "one" and nodes + body.k > settings.max_nodes:
                raise HTTPException(
                    413,
                    f"{body.k} iterations could grow the tree to {nodes + body.k} nodes, over "
                    f"the cap of {settings.max_nodes} nodes per session (max_nodes)",
                )
            config = replace(session.config, iterations=body.k, time=None, final="robust")
            state = session.state.clone()
            run = await run_chunks(
                session.mcts,
                state,
                config,
                cancel=session.cancel,
                lock=session.lock,
                chunk_seconds=settings.chunk_seconds,
                limiter=search_limiter(),
            )
        nodes, visits = tree_size(session.mcts)
        return IterationsOut(
            iterations=run.iterations,
            nodes=nodes,
            root_visits=visits,
            seconds=run.seconds,
            stopped_by=run.stopped_by,
        )

    @app.post(
        "/api/sessions/{sid}/step",
        response_model=TraceOut,
        tags=["sessions"],
        responses=_errors(400, 404, 409, 413),
    )
    async def step(sid: str) -> dict[str, Any]:
        """Run one iteration on the session's tree and report its four phases."""
        session = get(sid)
        with exclusive(session):
            not_over(session)
            node_cap_reached(session)
            state = session.state.clone()

            def work() -> dict[str, Any]:
                with session.lock:
                    return traced_iteration(session.mcts, state).to_dict()

            return await in_thread(work)

    @app.post(
        "/api/sessions/{sid}/reset",
        response_model=SessionView,
        tags=["sessions"],
        responses=_errors(404, 409),
    )
    async def reset(sid: str) -> SessionView:
        """Back to the starting position with a fresh tree and generator (same seed)."""
        session = get(sid)
        with exclusive(session):
            session.restart()  # a fresh tree: quick
        return session.view()

    @app.post(
        "/api/sessions/{sid}/cancel",
        response_model=CancelOut,
        tags=["sessions"],
        responses=_errors(404),
    )
    async def cancel(sid: str) -> CancelOut:
        """Cancel the session's running search (it stops within ``chunk_seconds``)."""
        session = get(sid)
        running = session.busy
        if running:
            session.cancel.set()
        return CancelOut(cancelled=running)

    @app.get(
        "/api/sessions/{sid}/tree",
        response_model=TreeNodeOut,
        tags=["sessions"],
        responses=_errors(400, 404, 413, 422),
    )
    async def tree(
        sid: str,
        node: str = Query(
            "", pattern=NODE_ID, description="Start at this node id (e.g. 4.0); '' the root."
        ),
        depth: int | None = Query(None, ge=0, description="Levels below the node (default: all)."),
        top: int | None = Query(None, ge=1, description="Most visited children kept per node."),
    ) -> dict[str, Any]:
        """The session's tree (or a subtree, to a depth, the top-k children of each node)."""
        session = get(sid)
        view = await in_thread(build_view(session, node, depth, top, settings.max_view_nodes))
        return treeview.to_json(view)

    @app.get(
        "/api/sessions/{sid}/node",
        response_model=NodeOut,
        tags=["sessions"],
        responses=_errors(400, 404, 422),
    )
    async def node_position(
        sid: str,
        node: str = Query("", pattern=NODE_ID, description="A node id: moves from the root, 4.0.8"),
    ) -> NodeOut:
        """The position of a node of the tree (any legal path of moves from the root)."""
        session = get(sid)
        state = session.state.clone()
        for i, action in enumerate(treeview.parse_node_id(node)):
            try:
                state.apply_action(action)
            except ValueError as err:
                raise InvalidConfigError(f"node {node!r}, move {i + 1}: {err}") from None
        return NodeOut(
            id=node.strip(),
            actions=state.history(),
            text=str(state),
            render=render(state),
            to_play=state.current_player(),
            terminal=state.is_terminal(),
            legal=_legal(state),
        )

    @app.get(
        "/api/sessions/{sid}/export",
        tags=["sessions"],
        response_class=Response,
        responses={
            200: {
                "description": "The tree in the format asked for, as an attachment.",
                "content": {
                    "application/json": {"schema": {"$ref": "#/components/schemas/TreeNodeOut"}},
                    "text/vnd.graphviz": {"schema": {"type": "string"}},
                    "image/svg+xml": {"schema": {"type": "string"}},
                    "text/plain": {"schema": {"type": "string"}},
                },
                "headers": {
                    "Content-Disposition": {
                        "description": 'attachment; filename="mcts-tree.<json|dot|svg|txt>"',
                        "schema": {"type": "string"},
                    }
                },
            },
            **_errors(400, 404, 413, 422, 503),
        },
    )
    async def export(
        sid: str,
        format: Literal["json", "dot", "svg", "text"] = Query("json"),
        node: str = Query("", pattern=NODE_ID),
        depth: int | None = Query(None, ge=0),
        top: int | None = Query(None, ge=1),
    ) -> Response:
        """The tree as JSON, Graphviz DOT, SVG (needs Graphviz's ``dot``) or text."""
        session = get(sid)
        cap = settings.max_svg_nodes if format == "svg" else settings.max_view_nodes
        info = session.game.info
        players = [player_label(info, p) for p in range(info.num_players)]

        build = build_view(session, node, depth, top, cap)

        def work() -> str:
            view = build()
            try:
                return treeview.export(view, format, players)
            except ImportError:  # the graphviz Python package
                raise treeview.GraphvizNotFoundError(
                    "SVG export needs the graphviz Python package: pip install graphviz"
                ) from None

        text = await in_thread(work)
        media = {
            "json": "application/json",
            "dot": "text/vnd.graphviz",
            "svg": "image/svg+xml",
            "text": "text/plain; charset=utf-8",
        }[format]
        extension = "txt" if format == "text" else format
        return Response(
            text,
            media_type=media,
            headers={"Content-Disposition": f'attachment; filename="mcts-tree.{extension}"'},
        )

    return app
