"""The Ray backend: a tournament on Ray stores exactly the games of a local run.

Ray takes several seconds to start, so the in-process checks share one local
instance (started by the module's fixture, shut down at its end) and sit in few
tests: under ``pytest -n 2 --dist worksteal`` each xdist worker that runs one of
them starts its own instance. Instances started with ``address="local"`` do not
clash: each has its own session directory and ports.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import require_extra

ray = require_extra("ray", "ray")

from mctslab.arena.ray_backend import RayGameError, run_tasks_ray  # noqa: E402
from mctslab.arena.store import GameRecord, ResultStore  # noqa: E402
from mctslab.arena.tournament import ArenaConfig, Entrant, run_arena, schedule  # noqa: E402
from mctslab.core import registry  # noqa: E402
from mctslab.core.errors import InvalidConfigError  # noqa: E402
from mctslab.core.registry import make  # noqa: E402

PLAYERS = (
    Entrant("a", "mcts:iterations=50"),
    Entrant("b", "random"),
    Entrant("c", "minimax:depth=2"),
)


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    """One local Ray instance for the module (2 CPUs, no dashboard)."""
    ray.init(
        address="local",
        num_cpus=2,
        include_dashboard=False,
        logging_level="ERROR",
        log_to_driver=False,
    )
    try:
        yield
    finally:
        ray.shutdown()


def _games(records: tuple[GameRecord, ...]) -> list[tuple[Any, ...]]:
    """What decides a game's result (timestamps and move times depend on the machine)."""
    return sorted(
        (r.slot, r.seats, r.seed, r.opening, r.moves, r.returns, r.score, r.termination)
        for r in records
    )


def test_ray_tournament_equals_the_local_one(
    local_ray: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = ArenaConfig(
        game="tic_tac_toe", players=PLAYERS, games=4, seed=11, openings=1, workers=1
    )
    on_ray = ArenaConfig(**{**config.__dict__, "backend": "ray", "workers": 2})
    with ResultStore(tmp_path / "local.db") as store:
        local = run_arena(config, store)
    with ResultStore(tmp_path / "ray.db") as store:
        remote = run_arena(on_ray, store)
        stored = tuple(store.games([remote.run_id]))
    assert remote.planned == remote.played_now == len(stored) == 12
    assert _games(stored) == _games(local.records)
    assert {r.slot for r in stored} == set(range(12))
    # an instance the backend did not start is left running
    assert ray.is_initialized()

    # Early close: the consumer stops after one game; the rest are cancelled.
    gen = run_tasks_ray(schedule(on_ray), 2, None)
    first = next(gen)
    gen.close()
    assert first.slot in range(12) and ray.is_initialized()

    # A game registered at run time in this process only: the workers do not know it.
    monkeypatch.setitem(registry._REGISTRY, "driver_only", lambda: make("tic_tac_toe"))
    unknown = ArenaConfig(**{**on_ray.__dict__, "game": "driver_only", "games": 1})
    with pytest.raises(RayGameError, match=r"slot \d+ \(driver_only, .*UnknownGameError"):
        list(run_tasks_ray(schedule(unknown), 2, None))


def test_missing_ray_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    with pytest.raises(InvalidConfigError, match=r"pip install 'mctslab\[ray\]'"):
        list(run_tasks_ray(schedule(ArenaConfig(game="tic_tac_toe", players=PLAYERS)), 2, None))


def test_an_address_where_nothing_listens_fails_fast(monkeypatch: pytest.MonkeyPatch) -> None:
    # Ray's own ray.init would retry for ever; the backend checks the port first.
    monkeypatch.setattr(ray, "is_initialized", lambda: False)  # even beside the fixture's
    tasks = schedule(ArenaConfig(game="tic_tac_toe", players=PLAYERS))
    with pytest.raises(InvalidConfigError, match=r"cannot connect to Ray at '127.0.0.1:1'"):
        list(run_tasks_ray(tasks, 2, "127.0.0.1:1"))


def test_cli_arena_on_a_local_ray_instance(tmp_path: Path) -> None:
    """The command starts its own instance (nothing initialised in that process) and stops it."""
    db = tmp_path / "cli.db"
    done = subprocess.run(
        [
            sys.executable, "-m", "mctslab", "arena", "tic_tac_toe",
            "--player", "a=mcts:iterations=30", "--player", "b=random", "--games", "2",
            "--backend", "ray", "--workers", "2", "--db", str(db), "--no-progress", "--json",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["games"] == data["planned"] == data["played_now"] == 2
    with ResultStore(db) as store:
        assert len(list(store.games())) == 2


def test_a_worker_that_keeps_dying_is_named_in_one_line() -> None:
    from mctslab.arena.ray_backend import MAX_RETRIES, _failure

    task = schedule(ArenaConfig(game="tic_tac_toe", players=PLAYERS))[3]
    err = _failure(ray, task, ray.exceptions.WorkerCrashedError())
    assert isinstance(err, RayGameError) and "\n" not in str(err)
    assert str(err).startswith(
        "game slot 3 (tic_tac_toe, c vs a) failed on Ray: WorkerCrashedError"
    )
    assert f"after {MAX_RETRIES} retries" in str(err)
