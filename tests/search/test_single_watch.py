"""Watching a single-player search from another thread (mctslab.search.single.result.Watch,
what the web lab's runs use): a stop ends the search at its next budget check with its
best kept, and the best it publishes while it runs is the sequence it returns, in both
engines and for the travelling salesman's anytime baselines."""

from __future__ import annotations

import threading
import time

import pytest

from mctslab.core.registry import make
from mctslab.players.optimizers import parse_optimizer
from mctslab.search.single.result import OptimizeResult, Watch

SPECS = [
    "nrpa:level=3,engine=reference",
    "nrpa:level=3,engine=compiled",
    "nmcs:level=2,engine=reference",
    "nmcs:level=2,engine=compiled",
    "sp-mcts:engine=reference",
    "sp-mcts:engine=compiled",
    "sa",
    "ga",
]


def run_in_thread(spec: str, watch: Watch, seconds: float) -> tuple[threading.Thread, dict]:  # type: ignore[type-arg]
    game = make("tsp", instance="random:40:2")
    out: dict[str, OptimizeResult] = {}

    def body() -> None:
        out["result"] = parse_optimizer(spec).run(
            game.new_initial_state(), seed=3, time=seconds, watch=watch
        )

    thread = threading.Thread(target=body, daemon=True)
    thread.start()
    return thread, out


@pytest.mark.parametrize("spec", SPECS)
def test_a_stop_ends_the_search_with_the_best_it_published(spec: str) -> None:
    watch = Watch()
    thread, out = run_in_thread(spec, watch, seconds=120.0)
    deadline = time.monotonic() + 900  # compiling on a loaded machine can take minutes
    while watch.started is None:  # a compiled search compiles first
        assert time.monotonic() < deadline and thread.is_alive()
        time.sleep(0.01)
    time.sleep(0.3)
    stopped_at = time.monotonic()
    watch.stop()
    thread.join(timeout=30)
    assert not thread.is_alive(), "the search went on after the stop"
    assert time.monotonic() - stopped_at < 5
    result = out["result"]
    assert watch.stopped and result.seconds < 60
    score, sequence = watch.best()
    assert (score, sequence) == (result.score, result.sequence)
    assert sorted(sequence) == list(range(1, 40))  # a whole tour from city 0
    assert result.improvements[-1].score == result.score


def test_a_watch_stopped_before_the_start_still_gets_an_answer() -> None:
    watch = Watch()
    watch.stop()
    game = make("tsp", instance="random:12:5")
    result = parse_optimizer("nrpa:level=2,engine=reference").run(
        game.new_initial_state(), seed=1, time=60, watch=watch
    )
    assert result.playouts == 1 and len(result.sequence) == 11
    assert watch.best() == (result.score, result.sequence)


def test_without_a_stop_the_watch_changes_nothing() -> None:
    game = make("tsp", instance="random:15:4")
    for spec in ("nrpa:level=2", "nmcs:level=1", "sp-mcts"):
        for engine in ("reference", "compiled"):
            optimizer = parse_optimizer(f"{spec},engine={engine}" if ":" in spec
                                        else f"{spec}:engine={engine}")  # fmt: skip
            alone = optimizer.run(game.new_initial_state(), seed=2, playouts=3000)
            watch = Watch()
            watched = optimizer.run(game.new_initial_state(), seed=2, playouts=3000, watch=watch)
            assert (watched.score, watched.sequence) == (alone.score, alone.sequence)
            assert watched.improvements == tuple(
                type(i)(w.seconds, i.playouts, i.score)
                for i, w in zip(alone.improvements, watched.improvements, strict=True)
            )
            assert watch.best() == (alone.score, alone.sequence)
