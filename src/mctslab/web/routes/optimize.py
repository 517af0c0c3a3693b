"""The single-player view's endpoints (the page's "Optimize" tab): ``GET /api/optimize/games``,
``POST /api/optimize/runs`` (a search started in a thread of its own), ``GET
/api/optimize/runs/{rid}`` (polled: status, best score, the best solution drawn as
data, the curve), ``POST /api/optimize/runs/{rid}/stop``, and ``POST /api/optimize/step``
(SP-MCTS one traced iteration at a time, :mod:`mctslab.web.spmcts_step`).

The runs and the step trees are the application's (:class:`OptimizeLab`, in
``app.state.optimize``); :mod:`mctslab.web.optimize` has the games, the checks and the
runs themselves. Errors as everywhere in the API: 400 a game parameter or search spec
refused (the ``detail`` names it), 404 no such run or step session, 409 a step session
busy, 413 a step tree at its node cap or a game too slow to set up, 422 not what the
schema accepts (``time`` over ``max_optimize_time``), 429 too many runs at once.
"""

from __future__ import annotations

import threading
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, cast

from fastapi import APIRouter, Depends, HTTPException, Request
from pydantic import BaseModel, BeforeValidator, Field

from mctslab.core.registry import has_capability
from mctslab.search.single.spmcts import SPMCTSConfig
from mctslab.web.limits import optimize_run_bytes, step_tree_bytes
from mctslab.web.optimize import (
    DEFAULT_RUN_SECONDS,
    OPTIMIZE_GAMES,
    RunStore,
    build_game,
    catalog,
    check_search,
)
from mctslab.web.routes.lab import LabDep, client_of, in_thread
from mctslab.web.schemas import REQUEST, JsonInt, error_responses, json_integer
from mctslab.web.settings import Settings
from mctslab.web.spmcts_step import StepTree

__all__ = ["OptimizeLab", "router"]

router = APIRouter()

GameName = Literal["tsp", "samegame", "morpion_solitaire"]
Seed = Annotated[int, Field(ge=0, le=2**31 - 1), BeforeValidator(json_integer)]
Param = str | JsonInt
# Bounds before the validator (mctslab.web.schemas: JSON Schema's "minimum"/"maximum").
StepIterations = Annotated[int, Field(ge=1, le=10**9), BeforeValidator(json_integer)]
Skip = Annotated[int, Field(ge=0, le=1000), BeforeValidator(json_integer)]
assert OPTIMIZE_GAMES == ("tsp", "samegame", "morpion_solitaire")


# The application's state. ------------------------------------------------------------------


@dataclass
class StepSession:
    """A step tree, its game, and whether a request is stepping it."""

    tree: StepTree
    game: str
    params: dict[str, Any]
    busy: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)


@dataclass
class OptimizeLab:
    """The single-player view's state: the runs, the step trees (the latest
    ``max_step_trees``, least recently used dropped first), the catalog."""

    settings: Settings
    runs: RunStore
    steps: OrderedDict[str, StepSession] = field(default_factory=OrderedDict)
    catalog: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, settings: Settings) -> OptimizeLab:
        return cls(settings=settings, runs=RunStore(settings.max_optimize_runs))


async def optimize_of(request: Request) -> OptimizeLab:
    return cast(OptimizeLab, request.app.state.optimize)


OptimizeDep = Annotated[OptimizeLab, Depends(optimize_of)]


# Models. ---------------------------------------------------------------------------------


class OptParameterOut(BaseModel):
    name: str
    kind: Literal["choice", "integer"]
    default: str | int
    choices: list[str] = Field(default_factory=list)
    minimum: int | None = None
    maximum: int | None = None
    pattern: str | None = Field(default=None, description="Other values it takes, in words.")
    note: str = ""


class OptInstanceOut(BaseModel):
    name: str
    cities: int
    optimum: int | None = Field(description="The proven optimal tour length, if known.")


class OptSuggestedOut(BaseModel):
    search: str = Field(description="A spec: the page's default, and a run's without search.")
    note: str = Field(description="Why: the documented figures it stands behind.")


class OptGameOut(BaseModel):
    name: str
    title: str
    score: str = Field(description="What the score (maximised) is.")
    parameters: list[OptParameterOut]
    instances: list[OptInstanceOut] = Field(description="tsp: the shipped TSPLIB instances.")
    suggested: OptSuggestedOut


class OptOptionOut(BaseModel):
    name: str
    type: Literal["integer", "number", "flag"] = Field(description="flag: 1 or 0.")
    default: float | int | None = Field(description="null: the search's own default.")


class OptSearchOut(BaseModel):
    kind: str = Field(description="The spec's name: KIND[:option=value,...].")
    title: str
    games: list[str] = Field(description="The games it searches.")
    max_cities: int | None = Field(
        default=None, description="exact: the most cities it solves (more are refused)."
    )
    counts: str | None = Field(
        default="playouts",
        description="What a run's playouts count: playouts, sa's moves, ga's generations "
        "(null: one tour built, nothing counted).",
    )
    options: list[OptOptionOut]


class OptCatalogOut(BaseModel):
    games: list[OptGameOut]
    searches: list[OptSearchOut]
    max_time: float = Field(description="The cap on a run's seconds (max_optimize_time).")
    max_runs: int = Field(description="Runs at once (max_optimize_runs).")


class OptimizeRunIn(BaseModel):
    model_config = REQUEST

    game: GameName
    params: dict[str, Param] = Field(
        default_factory=dict,
        description="tsp: instance (a name of GET /api/optimize/games or random:N:SEED); "
        "samegame: seed, rows, columns, colors; morpion_solitaire: variant.",
    )
    search: str | None = Field(
        default=None,
        max_length=200,
        description="A search spec, as mctslab optimize --search takes it; by default "
        "the game's suggested search (GET /api/optimize/games: suggested).",
    )
    seed: Seed = 0
    time: float = Field(
        default=DEFAULT_RUN_SECONDS,
        gt=0,
        description="Seconds (at most max_optimize_time; by default 5, or the cap if less).",
    )


class SolutionOut(BaseModel):
    kind: Literal["tour", "board"]
    order: list[int] = Field(description="tsp: the cities in order, closed (n + 1 of them).")
    cities: list[list[float]] = Field(description="tsp: every city's (x, y).")
    tour: list[list[float]] = Field(description="tsp: the tour's points in order, closed.")
    length: int | None = Field(description="tsp: the tour's length.")
    text: str | None = Field(description="samegame, morpion: the final position as text.")
    svg: str | None = Field(description="samegame, morpion: the final position drawn.")


class OptimizeRunOut(BaseModel):
    id: str
    game: str
    params: dict[str, Any]
    search: str
    seed: int
    time: float
    status: Literal["running", "done", "stopped", "error"]
    error: str | None = Field(description="Why the search failed (status 'error').")
    elapsed: float = Field(description="Wall seconds since the start (to the end once over).")
    compiling: bool = Field(
        description="The compiled search is compiling its code (first use; its clock has "
        "not started)."
    )
    compile_seconds: float | None = Field(
        description="Seconds before the search's clock started (compiling the search for "
        "this game and these options, the first run of the combination in the server's "
        "process; about 0 for a reference search); null while compiling."
    )
    search_seconds: float = Field(
        description="Seconds on the search's clock (0 while compiling): elapsed = "
        "compile_seconds + search_seconds."
    )
    playouts: int
    score: float | None = Field(description="The best score so far (null before the first).")
    sequence: list[int] = Field(
        description="The best sequence so far (a compiled search's at its last chunk)."
    )
    sequence_score: float | None = Field(description="Its score.")
    improvements: list[list[float]] = Field(
        description="Every new best: [seconds on the search's clock, playouts, score]."
    )
    optimum: float | None = Field(description="A proven optimum's score, where known.")
    gap: float | None = Field(description="(optimum - score) / |optimum|.")
    found_seconds: float | None = Field(description="When the best was found, search clock.")
    solution: SolutionOut | None = Field(description="The best sequence's final position.")


class OptimizeStepIn(BaseModel):
    model_config = REQUEST

    session: str | None = Field(
        default=None,
        max_length=64,
        description="A step session of an earlier answer: continue it (give no other "
        "field but skip). Without it, a new session of the configuration below.",
    )
    game: GameName = "tsp"
    params: dict[str, Param] = Field(default_factory=dict)
    seed: Seed = 0
    c: float = Field(default=0.5, ge=0, le=1e6)
    d: float = Field(default=0.01, ge=0, le=1e6)
    iterations: StepIterations = Field(
        default=1000, description="Iterations at a position before a move."
    )
    skip: Skip = Field(default=0, description="Iterations run (untraced) before the traced one.")


class StepChildOut(BaseModel):
    action: int
    label: str
    visits: int
    value_sum: float
    squares: float
    mean: float = Field(description="value_sum / visits, on the raw scale.")
    exploitation: float = Field(description="(mean - lo) / width.")
    exploration: float = Field(description="c * sqrt(log_parent / visits).")
    deviation: float = Field(description="sqrt(max(0, variance / width^2) + d / visits).")
    score: float = Field(description="sp_score: the three terms' sum.")


class StepSelectionOut(BaseModel):
    node: str = Field(description="Dot-separated moves from the current root; '' the root.")
    visits: int
    log_parent: float
    children: list[StepChildOut]
    chosen: int


class StepExpansionOut(BaseModel):
    node: str
    action: int
    label: str
    untried: int = Field(description="Untried moves before this one was drawn.")


class StepPlayoutOut(BaseModel):
    moves: list[int]
    score: float


class StepBackupOut(BaseModel):
    node: str
    action: int
    visits: int
    value_sum: float
    squares: float


class StepPlayedOut(BaseModel):
    action: int
    label: str
    restart: bool = Field(description="The game ended: a new run from a fresh tree.")


class StepRootChildOut(BaseModel):
    action: int
    label: str
    visits: int
    value_sum: float
    squares: float


class StepRootOut(BaseModel):
    visits: int
    children: list[StepRootChildOut]


class OptimizeStepOut(BaseModel):
    session: str
    game: str
    params: dict[str, Any]
    iteration: int = Field(description="Iterations in all, this one included.")
    run: int
    at_root: int = Field(description="Iterations at the current root, this one included.")
    prefix: list[int] = Field(description="Moves played by the top-score rule in this run.")
    played: StepPlayedOut | None = Field(description="The move played before this iteration.")
    c: float
    d: float
    lo: float = Field(description="The lowest score seen in this run (0 before two differ).")
    width: float = Field(description="hi - lo (1 before two scores differ).")
    selection: list[StepSelectionOut]
    expansion: StepExpansionOut | None
    leaf_terminal: bool
    playout: StepPlayoutOut
    backup: list[StepBackupOut] = Field(description="Root first.")
    best: float
    new_best: bool
    root: StepRootOut
    nodes: int


# Routes. ---------------------------------------------------------------------------------


@router.get("/api/optimize/games", response_model=OptCatalogOut, tags=["optimize"])
async def games(opt: OptimizeDep) -> dict[str, Any]:
    """The single-player games (with their parameters and, for tsp, the shipped TSPLIB
    instances and their proven optima) and the searches (with their options' defaults)."""
    if not opt.catalog:
        opt.catalog.update(await in_thread(catalog))
    settings = opt.settings
    return {
        **opt.catalog,
        "max_time": settings.max_optimize_time,
        "max_runs": settings.max_optimize_runs,
    }


@router.post(
    "/api/optimize/runs",
    response_model=OptimizeRunOut,
    status_code=201,
    tags=["optimize"],
    responses=error_responses(400, 413, 422, 429),
)
async def start_run(
    body: OptimizeRunIn, request: Request, lab: LabDep, opt: OptimizeDep
) -> dict[str, Any]:
    """Start a search of a single-player game in a background thread: ``search`` (a spec
    of ``GET /api/optimize/games``) from the first position with ``seed`` for ``time``
    seconds (no ``search``: the game's suggested one). 400: a bad game parameter or spec
    (a tsp-only search on another game, ``exact`` over 16 cities, ``polish=1`` on a game
    with no local search), or a position with nothing to search: refused here, as the
    step endpoint refuses it, rather than failing once started; 413: the game took over
    ``max_build_time`` to set up, or the search could take more than
    ``max_session_memory``; 422: ``time`` over ``max_optimize_time``; 429:
    ``max_optimize_runs`` already run, or the client's (or the server's) searches at once
    or the memory budget spent: a run counts as a search, and holds its price in the
    memory budget, for as long as it searches."""
    settings = opt.settings
    seconds = body.time
    if "time" not in body.model_fields_set:
        seconds = min(seconds, settings.max_optimize_time)
    if seconds > settings.max_optimize_time:
        raise HTTPException(
            422,
            f"time={body.time:g} s is over the cap of {settings.max_optimize_time:g} s per "
            "run (max_optimize_time)",
        )
    game, state, used = await lab.build(lambda: build_game(body.game, dict(body.params)))
    optimizer = check_search(body.search, game, state)
    if opt.runs.running() >= settings.max_optimize_runs:
        raise HTTPException(
            429,
            f"too many runs: the server runs at most {settings.max_optimize_runs} at once "
            "(max_optimize_runs); stop one or wait for it to end",
        )
    client = client_of(request)
    lab.check_searches(client)
    compiled = has_capability(game, "kernels") and optimizer.engine != "reference"
    nbytes = optimize_run_bytes(optimizer.kind, dict(optimizer.options), compiled, game)
    lab.check_memory(nbytes, "this run")
    run = opt.runs.start(body.game, used, optimizer, body.seed, seconds, game, state)
    # Counted and priced until its thread ends (the run outlives this request).
    lab.searches.start(client, alive=lambda: run.running)
    lab.sessions.memory.hold(("run", run.id), nbytes, alive=lambda: run.running)
    return await in_thread(run.view)


def _run_of(opt: OptimizeLab, rid: str) -> Any:
    run = opt.runs.get(rid)
    if run is None:
        raise HTTPException(
            404,
            f"no run {rid!r}: it never existed, or finished long enough ago to be dropped "
            f"(the latest {opt.runs.kept} finished runs are kept)",
        )
    return run


@router.get(
    "/api/optimize/runs/{rid}",
    response_model=OptimizeRunOut,
    tags=["optimize"],
    responses=error_responses(404),
)
async def get_run(rid: str, opt: OptimizeDep) -> dict[str, Any]:
    """A run: its status, elapsed seconds, best score and its gap to a known optimum, the
    best solution drawn as data (tsp: the tour's points in order; samegame, morpion: the
    final position as text and SVG) and every improvement. 404: no such run."""
    run = _run_of(opt, rid)
    return cast(dict[str, Any], await in_thread(run.view))


@router.post(
    "/api/optimize/runs/{rid}/stop",
    response_model=OptimizeRunOut,
    tags=["optimize"],
    responses=error_responses(404),
)
async def stop_run(rid: str, opt: OptimizeDep) -> dict[str, Any]:
    """Stop a run: it ends at the search's next budget check (within about 20 ms; a
    compiled search still compiling stops once compiled), its best kept. A finished run
    is left as it is. 404: no such run."""
    run = _run_of(opt, rid)
    run.stop()
    return cast(dict[str, Any], await in_thread(run.view))


@router.post(
    "/api/optimize/step",
    response_model=OptimizeStepOut,
    tags=["optimize"],
    responses=error_responses(400, 404, 409, 413, 422, 429),
)
async def step(
    body: OptimizeStepIn, request: Request, lab: LabDep, opt: OptimizeDep
) -> dict[str, Any]:
    """SP-MCTS one iteration at a time, traced: for each node of the selection path its
    children's statistics and score terms, the expanded move, the playout's moves and
    score, the nodes backed up. Without ``session``, a new step session (``game``,
    ``params``, ``seed``, ``c``, ``d``, ``iterations``); with it, the next iteration of
    that session. ``skip`` iterations run untraced first. 400: a bad game parameter, or
    configuration fields beside ``session``; 404: no such step session; 409: the session
    is stepping; 413: the session's tree would pass ``max_step_nodes``; 429: the
    client's (or the server's) searches at once, or the memory budget spent: a step is a
    search, and a kept step tree holds its price in the memory budget."""
    with lab.searching(client_of(request)):
        return await _step(body, lab, opt)


async def _step(body: OptimizeStepIn, lab: LabDep, opt: OptimizeDep) -> dict[str, Any]:
    settings, memory = opt.settings, lab.sessions.memory
    if body.session is not None:
        extra = sorted(body.model_fields_set - {"session", "skip"})
        if extra:
            raise HTTPException(
                400,
                f"{', '.join(extra)}: a step session keeps the configuration it was made "
                "with; send session (and skip) alone, or no session for a new one",
            )
        session = opt.steps.get(body.session)
        if session is None:
            raise HTTPException(
                404,
                f"no step session {body.session!r}: it never existed or was dropped (the "
                f"latest {settings.max_step_trees} are kept); start a new one without session",
            )
        opt.steps.move_to_end(body.session)
        sid = body.session
    else:
        config = SPMCTSConfig(c=body.c, d=body.d, iterations=body.iterations, seed=body.seed)
        _, state, used = await lab.build(lambda: build_game(body.game, dict(body.params)))
        tree = await lab.build(lambda: StepTree(state, config))
        sid = uuid.uuid4().hex[:12]
        session = StepSession(tree=tree, game=body.game, params=used)
        opt.steps[sid] = session
        while len(opt.steps) > settings.max_step_trees:
            memory.drop(("step", opt.steps.popitem(last=False)[0]))
    tree = session.tree
    if tree.nodes + body.skip + 1 > settings.max_step_nodes:
        raise HTTPException(
            413,
            f"the step tree has {tree.nodes} nodes; {body.skip + 1} more iterations could "
            f"pass the cap of {settings.max_step_nodes} (max_step_nodes): start a new session",
        )
    if session.busy:
        raise HTTPException(409, "this step session is stepping: wait for its answer")
    key = ("step", sid)
    lab.check_memory(step_tree_bytes(tree.start, tree.nodes + body.skip + 1), "the step", key)
    memory.hold(key, step_tree_bytes(tree.start, tree.nodes + body.skip + 1))
    session.busy = True
    try:

        def work() -> dict[str, Any]:
            with session.lock:
                for _ in range(body.skip):
                    tree.step()
                return tree.step()

        trace = await in_thread(work)
    finally:
        session.busy = False
        if opt.steps.get(sid) is session:  # what the kept tree takes now
            memory.hold(key, step_tree_bytes(tree.start, tree.nodes))
    return {"session": sid, "game": session.game, "params": session.params, **trace}
