"""The web lab's single-player view through its API (mctslab.web.routes.optimize): the
catalog, runs in background threads (polled, stopped, capped), the best solution drawn as
data, the one-line 4xx errors, and SP-MCTS's traced step mode (mctslab.web.spmcts_step),
checked against the numbers it returns and against mctslab.search.single.spmcts itself.
"""

from __future__ import annotations

import importlib
import itertools
import math
import time
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("fastapi")

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*httpx2", category=Warning)
    from fastapi.testclient import TestClient

from mctslab.core.registry import make
from mctslab.core.rng import Rng
from mctslab.games.tsp import held_karp
from mctslab.players.optimizers import parse_optimizer
from mctslab.search.single.result import BestTracker, Budget
from mctslab.search.single.spmcts import SPMCTSConfig, SPNode, SPRun, sp_score, spmcts
from mctslab.web.app import create_app
from mctslab.web.settings import Settings
from mctslab.web.spmcts_step import StepTree

LOCAL = "http://localhost"
# The module (the package re-exports its function under the same name).
spmcts_module = importlib.import_module("mctslab.search.single.spmcts")
SETTINGS = Settings(max_optimize_time=30.0)


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(create_app(SETTINGS), base_url=LOCAL) as c:
        yield c


def wait_done(client: TestClient, rid: str, limit: float = 60.0) -> dict[str, Any]:
    deadline = time.monotonic() + limit
    while True:
        view: dict[str, Any] = client.get(f"/api/optimize/runs/{rid}").json()
        if view["status"] != "running":
            return view
        assert time.monotonic() < deadline, view
        time.sleep(0.05)


def start(client: TestClient, **body: Any) -> dict[str, Any]:
    r = client.post("/api/optimize/runs", json=body)
    assert r.status_code == 201, r.text
    out: dict[str, Any] = r.json()
    return out


def check_tour(view: dict[str, Any], n: int) -> list[int]:
    solution = view["solution"]
    order = solution["order"]
    assert solution["kind"] == "tour" and len(order) == n + 1 and order[0] == order[-1] == 0
    assert sorted(order[:-1]) == list(range(n))  # a permutation of the cities
    assert solution["tour"] == [solution["cities"][c] for c in order]
    assert solution["length"] == -view["score"] == -view["sequence_score"]
    return list(order)


def test_the_catalog_lists_the_single_player_games_and_the_searches(client: TestClient) -> None:
    data = client.get("/api/optimize/games").json()
    games = {g["name"]: g for g in data["games"]}
    assert list(games) == ["tsp", "samegame", "morpion_solitaire"]
    optima = {i["name"]: i["optimum"] for i in games["tsp"]["instances"]}
    assert optima == {"berlin52": 7542, "eil51": 426, "kroA100": 21282, "st70": 675}
    assert "random:N:SEED" in games["tsp"]["parameters"][0]["pattern"]
    assert games["samegame"]["parameters"][0]["name"] == "seed"
    assert "5D" in games["morpion_solitaire"]["parameters"][0]["choices"]
    searches = {s["kind"]: s for s in data["searches"]}
    assert {"nrpa", "nmcs", "sp-mcts", "random", "greedy", "sa", "exact"} <= set(searches)
    assert searches["exact"]["games"] == ["tsp"]
    sp = {o["name"]: o["default"] for o in searches["sp-mcts"]["options"]}
    assert {k: sp[k] for k in ("c", "d", "iterations")} == {"c": 0.5, "d": 0.01, "iterations": 1000}
    assert all(
        o["type"] in ("integer", "number", "flag") for s in searches.values() for o in s["options"]
    )
    assert data["max_time"] == SETTINGS.max_optimize_time


def test_exact_finds_held_karps_tour(client: TestClient) -> None:
    run = start(client, game="tsp", params={"instance": "random:10:1"}, search="exact", time=0.3)
    view = wait_done(client, run["id"])
    assert view["status"] == "done" and not view["compiling"]
    order = check_tour(view, 10)
    optimum, _ = held_karp(make("tsp", instance="random:10:1").distances)  # type: ignore[attr-defined]
    assert view["score"] == -optimum
    assert view["improvements"][-1][2] == -optimum and view["found_seconds"] is not None
    game = make("tsp", instance="random:10:1")
    assert game.tour(game.state_from_actions(order[1:-1])) == order[:-1]  # type: ignore[attr-defined]


def test_a_run_is_mctslab_optimize_with_its_seed_and_keeps_its_curve(
    client: TestClient,
) -> None:
    run = start(
        client,
        game="tsp",
        params={"instance": "random:12:3"},
        search="random:engine=reference",
        seed=4,
        time=0.3,
    )
    view = wait_done(client, run["id"])
    assert view["status"] == "done" and view["elapsed"] < 5
    assert view["compile_seconds"] is not None and not view["compiling"]
    check_tour(view, 12)
    curve = view["improvements"]
    assert [p[2] for p in curve] == sorted(p[2] for p in curve)  # each a new best
    assert all(a[0] <= b[0] + 1e-9 for a, b in itertools.pairwise(curve))
    assert curve[-1][2] == view["score"] and view["playouts"] >= curve[-1][1]
    optimum, _ = held_karp(make("tsp", instance="random:12:3").distances)  # type: ignore[attr-defined]
    assert view["score"] <= -optimum
    # The same search for the same playouts, outside the lab: the same first improvements.
    game = make("tsp", instance="random:12:3")
    alone = parse_optimizer("random:engine=reference").run(
        game.new_initial_state(), seed=4, playouts=int(curve[-1][1])
    )
    assert [(i.playouts, i.score) for i in alone.improvements] == [(p, v) for _, p, v in curve]


def test_a_compiled_run_shows_its_best_tour_while_it_runs(client: TestClient) -> None:
    run = start(client, game="tsp", params={"instance": "eil51"}, search="nrpa:level=3",
                seed=1, time=30)  # fmt: skip
    deadline = time.monotonic() + 60
    while True:  # until the search has published a tour, before its 30 s are over
        view = client.get(f"/api/optimize/runs/{run['id']}").json()
        assert view["status"] == "running" and time.monotonic() < deadline, view
        if view["solution"] is not None:
            break
        time.sleep(0.05)
    assert not view["compiling"] and view["compile_seconds"] is not None
    order = check_tour_running(view, 51)
    assert view["improvements"] and view["sequence_score"] <= view["score"]
    r = client.post(f"/api/optimize/runs/{run['id']}/stop")
    assert r.status_code == 200
    done = wait_done(client, run["id"], limit=10)
    # Stopped before its 30 s of search (compiling, on a loaded machine, may take longer).
    assert done["status"] == "stopped" and done["search_seconds"] < 25
    assert done["search_seconds"] + done["compile_seconds"] == pytest.approx(done["elapsed"])
    check_tour(done, 51)
    assert done["score"] >= -length_of(order)


def check_tour_running(view: dict[str, Any], n: int) -> list[int]:
    """A running view's tour: a closed permutation whose length is the published score."""
    solution = view["solution"]
    order = solution["order"]
    assert len(order) == n + 1 and sorted(order[:-1]) == list(range(n))
    assert solution["length"] == -view["sequence_score"]
    return list(order)


def length_of(order: list[int]) -> int:
    game = make("tsp", instance="eil51")
    return int(game.length(game.state_from_actions(order[1:-1])))  # type: ignore[attr-defined]


def test_a_stopped_run_ends_at_once(client: TestClient) -> None:
    run = start(client, game="tsp", params={"instance": "eil51"}, search="random:engine=reference",
                time=30)  # fmt: skip
    time.sleep(0.3)
    r = client.post(f"/api/optimize/runs/{run['id']}/stop")
    assert r.status_code == 200
    view = wait_done(client, run["id"], limit=10)
    assert view["status"] == "stopped" and view["elapsed"] < 10
    check_tour(view, 51)
    assert view["optimum"] == -426 and view["gap"] == pytest.approx((view["score"] + 426) / -426)
    # A finished run stays as it is.
    again = client.post(f"/api/optimize/runs/{run['id']}/stop").json()
    assert again["status"] == "stopped" and again["score"] == view["score"]


def test_boards_are_drawn_as_text_and_svg(client: TestClient) -> None:
    for game, params in (("samegame", {"seed": 3, "rows": 6, "columns": 6}),
                         ("morpion_solitaire", {"variant": "5D"})):  # fmt: skip
        run = start(client, game=game, params=params, search="greedy", time=1)
        view = wait_done(client, run["id"])
        assert view["status"] == "done", view
        solution = view["solution"]
        assert solution["kind"] == "board" and solution["svg"].lstrip().startswith("<")
        assert "<svg" in solution["svg"] and solution["text"]
        assert view["params"] == {**params, **view["params"]}


def test_bad_requests_are_4xx_with_one_line(client: TestClient) -> None:
    cases: list[tuple[dict[str, Any], int, str]] = [
        ({"game": "chess"}, 422, "game:"),
        ({"game": "tic_tac_toe"}, 422, "game:"),
        ({"game": "tsp", "search": "nope"}, 400, "unknown search 'nope'"),
        ({"game": "tsp", "search": "nrpa:level=x"}, 400, "bad value"),
        ({"game": "tsp", "search": "nrpa:depth=2"}, 400, "unknown nrpa option"),
        ({"game": "tsp", "time": 31}, 422, "max_optimize_time"),
        ({"game": "tsp", "time": 0}, 422, "time:"),
        ({"game": "tsp", "params": {"instance": "/etc/passwd"}}, 400, "no file is read"),
        ({"game": "tsp", "params": {"instance": "random:5000:1"}}, 400, "random:N:SEED"),
        ({"game": "tsp", "params": {"cities": 5}}, 400, "no parameter 'cities'"),
        ({"game": "tsp", "search": "exact"}, 400, "up to 16 cities"),
        ({"game": "samegame", "search": "2opt"}, 400, "travelling-salesman"),
        ({"game": "samegame", "params": {"rows": 0}}, 400, "params.rows"),
        ({"game": "morpion_solitaire", "params": {"variant": "6X"}}, 400, "params.variant"),
        ({"game": "tsp", "seed": -1}, 422, "seed:"),
        ({"game": "tsp", "extra": 1}, 422, "unknown field"),
    ]
    for body, status, words in cases:
        r = client.post("/api/optimize/runs", json=body)
        assert r.status_code == status, (body, r.text)
        detail = r.json()["detail"]
        assert words in detail and "\n" not in detail, (body, detail)
    for method, path in (("GET", "/api/optimize/runs/nope"),
                         ("POST", "/api/optimize/runs/nope/stop")):  # fmt: skip
        r = client.request(method, path)
        assert r.status_code == 404 and "no run 'nope'" in r.json()["detail"]


def test_runs_at_once_are_capped() -> None:
    with TestClient(create_app(Settings(max_optimize_runs=1)), base_url=LOCAL) as client:
        body = {"game": "tsp", "params": {"instance": "random:30:1"},
                "search": "random:engine=reference", "time": 20}  # fmt: skip
        first = start(client, **body)
        r = client.post("/api/optimize/runs", json=body)
        assert r.status_code == 429 and "max_optimize_runs" in r.json()["detail"]
        client.post(f"/api/optimize/runs/{first['id']}/stop")
        assert wait_done(client, first["id"], limit=10)["status"] == "stopped"
        start(client, **{**body, "time": 0.1})  # room again


# SP-MCTS's step mode. -------------------------------------------------------------------


def check_trace(trace: dict[str, Any]) -> None:
    """Every number of a trace recomputed from the statistics it returns."""
    c, d, lo, width = trace["c"], trace["d"], trace["lo"], trace["width"]
    for level in trace["selection"]:
        log_parent = math.log(level["visits"])
        assert level["log_parent"] == pytest.approx(log_parent)
        assert sum(ch["visits"] for ch in level["children"]) <= level["visits"]
        scores = []
        for ch in level["children"]:
            v = sp_score(ch["value_sum"], ch["squares"], ch["visits"], log_parent, lo, width, c, d)
            assert ch["score"] == pytest.approx(v)
            assert ch["exploitation"] + ch["exploration"] + ch["deviation"] == pytest.approx(v)
            assert ch["mean"] == pytest.approx(ch["value_sum"] / ch["visits"])
            scores.append(v)
        first_best = level["children"][scores.index(max(scores))]["action"]
        assert level["chosen"] == first_best
    path = [""] + [lvl["node"] for lvl in trace["selection"][1:]]
    backed = [b["node"] for b in trace["backup"]]
    assert backed[: len(path)] == path
    score = trace["playout"]["score"]
    if trace["expansion"] is not None:
        assert backed[-1].split(".")[-1] == str(trace["expansion"]["action"])
        leaf = trace["backup"][-1]
        assert leaf["visits"] == 1 and leaf["value_sum"] == score
        assert leaf["squares"] == score * score


def test_the_step_trace_numbers_are_sp_scores_of_its_statistics(client: TestClient) -> None:
    body = {"game": "tsp", "params": {"instance": "random:7:2"}, "seed": 5, "c": 0.7,
            "d": 0.02, "iterations": 30}  # fmt: skip
    r = client.post("/api/optimize/step", json=body)
    assert r.status_code == 200, r.text
    first = r.json()
    sid = first["session"]
    assert first["iteration"] == 1 and first["selection"] == [] and first["expansion"]
    assert first["width"] == 1 and first["lo"] == 0  # one score seen: the raw scale
    check_trace(first)
    traces = [first]
    for _ in range(40):
        r = client.post("/api/optimize/step", json={"session": sid})
        assert r.status_code == 200, r.text
        traces.append(r.json())
        check_trace(traces[-1])
    assert [t["iteration"] for t in traces] == list(range(1, 42))
    deep = [t for t in traces if len(t["selection"]) >= 2]
    assert deep, "some iterations select below the root"
    # After 30 iterations at the root the top-score rule plays the best sequence's move.
    played = traces[30]["played"]
    assert played is not None and traces[30]["prefix"] == [played["action"]]
    # skip: iterations run before the traced one.
    r = client.post("/api/optimize/step", json={"session": sid, "skip": 9})
    assert r.json()["iteration"] == 51
    # The same configuration, a new session: the same first trace.
    again = client.post("/api/optimize/step", json=body).json()
    assert again["session"] != sid
    assert {k: v for k, v in again.items() if k != "session"} == {
        k: v for k, v in first.items() if k != "session"
    }


def test_step_errors() -> None:
    with TestClient(create_app(Settings(max_step_nodes=30)), base_url=LOCAL) as client:
        r = client.post("/api/optimize/step", json={"session": "nope"})
        assert r.status_code == 404 and "no step session" in r.json()["detail"]
        sid = client.post("/api/optimize/step", json={"game": "tsp", "params": {
            "instance": "random:6:1"}}).json()["session"]  # fmt: skip
        r = client.post("/api/optimize/step", json={"session": sid, "c": 1})
        assert r.status_code == 400 and r.json()["detail"].startswith("c: a step session")
        r = client.post("/api/optimize/step", json={"session": sid, "skip": 40})
        assert r.status_code == 413 and "max_step_nodes" in r.json()["detail"]
        r = client.post("/api/optimize/step", json={"game": "tsp", "c": -1})
        assert r.status_code == 422
        r = client.post("/api/optimize/step", json={"game": "tsp", "params": {"instance": "x"}})
        assert r.status_code == 400


def _tree(node: SPNode) -> tuple[Any, ...]:
    """A tree as nested tuples: each node's move, statistics, untried moves, children."""
    return (
        node.action,
        node.visits,
        node.value_sum,
        node.squares,
        tuple(node.untried),
        tuple(_tree(ch) for ch in node.children),
    )


@pytest.mark.parametrize("n", [1, 10, 60])
def test_stepping_grows_the_tree_spmcts_grows(n: int) -> None:
    """N steps and N of the reference search's own iterations (spmcts.iterate on an
    SPRun) from the same seed: the same tree (every node's visits, sums, untried moves),
    the same best sequence; and spmcts itself with iterations=N for one move: N playouts,
    the same best."""
    game = make("tsp", instance="random:9:4")
    state = game.new_initial_state()
    config = SPMCTSConfig(c=0.5, d=0.01, iterations=n, seed=11)
    stepper = StepTree(state, config)
    for _ in range(n):
        stepper.step()
    run = SPRun(state)
    tracker = BestTracker(Budget())
    rng = Rng(config.seed)
    for _ in range(n):
        spmcts_module.iterate(run, config, rng, tracker)
    assert _tree(stepper.run.root) == _tree(run.root)
    ours = {
        c["action"]: (c["visits"], c["value_sum"], c["squares"]) for c in stepper.root_children()
    }
    theirs = {ch.action: (ch.visits, ch.value_sum, ch.squares) for ch in run.root.children}
    assert ours == theirs
    assert stepper.best == tracker.score and tuple(stepper.best_seq) == tracker.sequence
    result = spmcts(state, SPMCTSConfig(c=0.5, d=0.01, iterations=n, seed=11, playouts=n))
    assert result.playouts == n and result.score == stepper.best
    assert result.sequence == tuple(stepper.best_seq)


def test_stepping_is_the_reference_search_through_moves_and_restarts() -> None:
    """200 steps on a 6-city tour with 4 iterations a position (several runs, the top-score
    move each 4): after each, the step tree is the tree of a reference SPRun driven by
    spmcts.iterate and spmcts.play_top_move from the same seed, node for node; the trace's
    backup is that tree's path, its playout the reference's best when it says new_best."""
    game = make("tsp", instance="random:6:2")
    state = game.new_initial_state()
    config = SPMCTSConfig(iterations=4, seed=5)
    stepper = StepTree(state, config)
    rng, tracker = Rng(config.seed), BestTracker(Budget())
    run, here, restarts = SPRun(state), 0, 0
    for _ in range(200):
        trace = stepper.step()
        if here == config.iterations:
            spmcts_module.play_top_move(run)
            here = 0
            if run.state.is_terminal():
                run, restarts = SPRun(state), restarts + 1
        spmcts_module.iterate(run, config, rng, tracker)
        here += 1
        assert _tree(stepper.run.root) == _tree(run.root)
        assert stepper.run.prefix == run.prefix and trace["prefix"] == run.prefix
        assert trace["backup"][0]["visits"] == run.root.visits
        if trace["new_best"]:
            assert trace["playout"]["score"] == tracker.score
    assert restarts >= 3 and stepper.runs == restarts
    assert stepper.best_seq == list(tracker.sequence)


def test_stepping_follows_spmcts_through_moves_and_restarts() -> None:
    """A 5-city tour has 4 moves: with 3 iterations a position a run ends after 12
    iterations and a new one starts. 40 steps make the improvements spmcts makes in 40
    playouts, at the same playouts."""
    game = make("tsp", instance="random:5:1")
    state = game.new_initial_state()
    stepper = StepTree(state, SPMCTSConfig(iterations=3, seed=2))
    found = []
    restarts = 0
    for _ in range(40):
        trace = stepper.step()
        if trace["new_best"]:
            found.append((trace["iteration"], trace["playout"]["score"]))
        restarts += bool(trace["played"] and trace["played"]["restart"])
    assert restarts >= 2
    result = spmcts(state, SPMCTSConfig(iterations=3, seed=2, playouts=40))
    assert [(i.playouts, i.score) for i in result.improvements] == found
    assert result.sequence == tuple(stepper.best_seq)


# Round 4: what the Optimize tab and its API say and refuse. ------------------------------


def test_a_run_that_can_never_search_is_refused_at_creation_as_the_step_is(
    client: TestClient,
) -> None:
    """A run of a finished position, or with ``polish=1`` on a game without a local
    search, used to be accepted (201) and fail in its thread; now it is the 400 the step
    endpoint gives for the same game, at once."""
    over = {"game": "samegame", "params": {"rows": 1, "columns": 1, "colors": 1}}
    for search in ("nrpa", "sp-mcts", "greedy"):
        r = client.post("/api/optimize/runs", json={**over, "search": search, "time": 1})
        assert r.status_code == 400, r.text
        step = client.post("/api/optimize/step", json=over)
        assert step.status_code == 400
        assert r.json()["detail"] == step.json()["detail"]
        assert "nothing to search" in r.json()["detail"]
    r = client.post("/api/optimize/runs", json={"game": "samegame", "search": "nmcs:polish=1"})
    assert r.status_code == 400 and "samegame has no local search" in r.json()["detail"]


def test_the_suggested_search_is_the_documented_one_and_a_runs_default(
    client: TestClient,
) -> None:
    data = client.get("/api/optimize/games").json()
    games = {g["name"]: g for g in data["games"]}
    tsp = games["tsp"]["suggested"]
    assert tsp["search"] == "nrpa:level=2,bias=4,polish=1"
    assert "every run" in tsp["note"] and "bias=0" in tsp["note"]
    assert games["morpion_solitaire"]["suggested"]["search"] == "nrpa:level=3"
    searches = {s["kind"]: s for s in data["searches"]}
    assert searches["exact"]["max_cities"] == 16 and searches["nrpa"]["max_cities"] is None
    assert (searches["sa"]["counts"], searches["ga"]["counts"]) == ("moves", "generations")
    assert searches["nrpa"]["counts"] == "playouts" and searches["exact"]["counts"] is None
    # A run without a search is the game's suggested search: the optimum of 12 cities.
    run = start(client, game="tsp", params={"instance": "random:12:3"}, time=1)
    assert run["search"] == "nrpa:level=2,bias=4,polish=1"
    view = wait_done(client, run["id"])
    optimum, _ = held_karp(make("tsp", instance="random:12:3").distances)  # type: ignore[attr-defined]
    assert view["score"] == -optimum


class _SlowToCompile:
    """An optimizer that 'compiles' (sleeps) before its clock starts, then finds one
    tour 0.1 s into its search, as a compiled search reports it."""

    spec = kind = "stub"
    engine = "reference"
    options = ()

    def run(self, state: Any, *, seed: int, time: float, on_improve: Any, watch: Any) -> Any:
        from time import perf_counter, sleep

        from mctslab.search.single.result import Improvement, OptimizeResult

        sleep(0.3)  # compiling
        watch.started = perf_counter()
        moves = list(range(1, 6))
        score = float(state.game.state_from_actions(moves).returns()[0])
        on_improve(Improvement(0.1, 7, score))
        sleep(0.2)
        return OptimizeResult(score, tuple(moves), 0.2, 9, 0.1, 7, (), 1, "stub", 0.3)


def test_the_compile_time_is_counted_once_apart_from_the_search() -> None:
    """The status used to read "8.2 s of 5 s (+ 3.1 s compiling)" with the 3.1 inside
    the 8.2, and "found at" counted the compilation too: the search's seconds and the
    compile seconds are now apart and add up to the wall time."""
    from mctslab.web.optimize import OptimizeRun

    game = make("tsp", instance="random:6:1")
    run = OptimizeRun("r1", "tsp", {"instance": "random:6:1"}, _SlowToCompile(), 0, 5.0,  # type: ignore[arg-type]
                      game, game.new_initial_state())  # fmt: skip
    run.work()
    view = run.view()
    assert view["status"] == "done", view
    assert view["compile_seconds"] >= 0.3  # the sleep before the clock started
    assert view["search_seconds"] + view["compile_seconds"] == pytest.approx(view["elapsed"])
    assert view["search_seconds"] < view["elapsed"] - 0.25
    # Found 0.1 s into the search, on the search's clock (not 0.1 s + the compilation).
    assert view["found_seconds"] == pytest.approx(0.1)
    assert view["improvements"][0][0] == pytest.approx(0.1)


def test_the_catalog_says_each_options_type(client: TestClient) -> None:
    """The form's inputs are built from these types (a flag's input takes 0 or 1): nrpa's
    level read as a flag made the suggested level=2 an invalid field and Start a no-op."""
    searches = {s["kind"]: s for s in client.get("/api/optimize/games").json()["searches"]}
    types = {o["name"]: o["type"] for o in searches["nrpa"]["options"]}
    assert types == {
        "level": "integer",
        "iterations": "integer",
        "alpha": "number",
        "bias": "number",
        "polish": "flag",
    }
    assert {o["name"]: o["type"] for o in searches["sp-mcts"]["options"]}["c"] == "number"


def test_the_catalog_and_the_checks_read_the_games_declared_schema(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The web writes out no game's parameters: SameGame declaring other bounds (and a
    parameter fewer) changes the catalog and what a run accepts, with web/ unchanged."""
    from mctslab.core.declarations import Parameter
    from mctslab.games.samegame import SameGame
    from mctslab.web.optimize import catalog, checked_params

    def smaller(cls: type) -> tuple[Parameter, ...]:
        return (Parameter("rows", 5, "rows", minimum=2, maximum=8),)

    monkeypatch.setattr(SameGame, "parameter_schema", classmethod(smaller))
    games = {g["name"]: g for g in catalog()["games"]}
    assert games["samegame"]["parameters"] == [
        {"name": "rows", "kind": "integer", "default": 5, "minimum": 2, "maximum": 8,
         "note": "rows"}
    ]  # fmt: skip
    assert checked_params("samegame", {}) == {"rows": 5}
    assert checked_params("samegame", {"rows": "8"}) == {"rows": 8}
    with pytest.raises(ValueError, match=r"params.rows: samegame's rows is an integer in \[2, 8\]"):
        checked_params("samegame", {"rows": 9})
    with pytest.raises(ValueError, match="samegame has no parameter 'seed'"):
        checked_params("samegame", {"seed": 1})
