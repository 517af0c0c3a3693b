"""Tournament games on a Ray cluster: the ``ray`` backend of :func:`mctslab.arena.tournament.run_tasks`.

Ray only plays games. Each :class:`~mctslab.arena.game_task.GameTask` goes to a Ray worker,
which runs :func:`~mctslab.arena.game_task.play_task` and sends the :class:`~mctslab.arena.store.GameRecord`
back; the process that called :func:`run_tasks_ray` writes every record to its
own results store. So the store lives on the machine running the command, the
workers need no access to it, and a game counts once however Ray schedules it.

Where Ray runs:

- Ray already initialised in this process (``ray.init(...)`` called by the user
  before :func:`mctslab.arena.tournament.run_arena`, e.g. with a ``runtime_env``): used as is
  and left running.
- ``address`` given (``"auto"``, ``"head:6379"``, ``"ray://head:10001"``):
  connect to that cluster; disconnect at the end (the cluster keeps running).
- neither: start a local instance with ``workers`` CPUs (no dashboard, quiet
  logs, usage statistics off, nothing fetched from the internet) and shut it
  down at the end.

"At the end" includes an exception and a consumer that stops early (the
generator's ``close()``): in-flight games are cancelled first.

Workers import :mod:`mctslab` and build the game by name, so every node needs
mctslab installed (``pip install 'mctslab[ray]'``, the same version as the
driver) or a ``runtime_env`` that installs it. A local instance runs its workers
with this interpreter, so this is automatic there. The game must be known to the
workers' registry: built-in games and ``openspiel:`` games are; a game
registered at run time by the driver's code is not (register it in a module the
workers import, e.g. through the ``runtime_env``).

Failures: a game whose worker dies (killed, out of memory, node lost) is retried
by Ray up to :data:`MAX_RETRIES` times. Retrying is safe because a task's game is
a pure function of the task (with iteration budgets the retry plays the very same
game) and only the record that comes back is stored. A game that still fails, or
that raises inside :func:`~mctslab.arena.game_task.play_task` (which only happens for
faults outside the players, e.g. a game unknown to the workers), stops the run
with :class:`RayGameError`; the games finished before it are already stored, and
``--resume`` plays the rest.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
from collections.abc import Generator, Sequence
from typing import Any

from mctslab.arena.game_task import GameTask, play_task
from mctslab.arena.store import GameRecord
from mctslab.core.errors import InvalidConfigError, MctslabError

__all__ = ["MAX_RETRIES", "RayGameError", "run_tasks_ray"]

#: How many times Ray re-runs a game whose worker process died.
MAX_RETRIES = 3

#: Seconds to wait for a cluster's head to accept a connection before giving up.
CONNECT_TIMEOUT = 5.0

#: Games in flight per CPU of the cluster: enough to keep every worker busy while the
#: driver stores the last record, few enough that an early stop wastes little work.
IN_FLIGHT_PER_CPU = 2


class RayGameError(MctslabError):
    """A game that failed on Ray: its worker died more than :data:`MAX_RETRIES` times,
    or the game could not be played there (the message says which game and why)."""


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise InvalidConfigError(
            "the ray backend needs Ray: install the ray extra, pip install 'mctslab[ray]'"
        ) from None
    return ray


def _check_reachable(ray: Any, address: str) -> None:
    """Fail fast when nothing listens at a cluster address: ``ray.init`` would retry forever.

    Ray Client addresses (``ray://``) time out by themselves. The address is resolved
    as ``ray.init`` does (``auto``: ``RAY_ADDRESS`` or the last ``ray start`` on this
    machine) through a private helper; if that helper is missing, no check is made.
    """
    if address.startswith("ray://"):
        return
    try:
        resolved = ray._private.services.canonicalize_bootstrap_address(address)
    except Exception:  # a private API that moved, or a malformed address: ray.init decides
        return
    if not resolved:
        return
    host, _, port = resolved.rpartition(":")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_TIMEOUT).close()
    except (OSError, ValueError) as err:
        raise InvalidConfigError(
            f"cannot connect to Ray at {address!r} ({resolved}: {err}); "
            "is the cluster running (ray start --head)?"
        ) from None


def _start(ray: Any, workers: int, address: str | None) -> bool:
    """Initialise Ray unless it already is; True when this call did (and must shut it down)."""
    if ray.is_initialized():
        return False
    # Errors only: Ray's start-up notices (token authentication, /dev/shm size) would
    # break into the progress bar; a failure still raises. Workers' output stays there.
    quiet = {"logging_level": logging.ERROR, "log_to_driver": False}
    if address:
        _check_reachable(ray, address)
        try:
            ray.init(address=address, **quiet)
        except (ConnectionError, RuntimeError, TimeoutError, ValueError) as err:
            # Ray's text here is a traceback-sized story; one line is enough to act on.
            detail = (str(err).strip().splitlines() or [type(err).__name__])[0]
            raise InvalidConfigError(f"cannot connect to Ray at {address!r}: {detail}") from None
        return True
    # Usage statistics would be sent over the network; a user's own setting wins.
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    # "local": a new instance even when `ray start` left one on this machine (its
    # address is remembered in /tmp/ray), so num_cpus is ours and the run is isolated.
    ray.init(address="local", num_cpus=workers, include_dashboard=False, **quiet)
    return True


def _failure(ray: Any, task: GameTask, err: Exception) -> RayGameError:
    """One readable line for a game that failed remotely (Ray's own text holds a traceback)."""
    cause = err.cause if isinstance(err, ray.exceptions.RayTaskError) else err
    detail = (str(cause).strip().splitlines() or [""])[0]
    seats = " vs ".join(e.name for e in task.seats)
    hint = ""
    if isinstance(cause, MctslabError):
        hint = " (is the game registered on the Ray workers, and mctslab the same version?)"
    elif not isinstance(err, ray.exceptions.RayTaskError):
        hint = f" (after {MAX_RETRIES} retries)"
    return RayGameError(
        f"game slot {task.slot} ({task.game}, {seats}) failed on Ray: "
        f"{type(cause).__name__}: {detail}{hint}"
    )


def run_tasks_ray(
    tasks: Sequence[GameTask], workers: int, address: str | None
) -> Generator[GameRecord, None, None]:
    """Play ``tasks`` on Ray and yield each record as it finishes (in completion order).

    ``workers`` is the number of CPUs of a local instance; on an existing cluster
    every CPU is used. At most :data:`IN_FLIGHT_PER_CPU` games per cluster CPU are
    submitted at a time. Raises :class:`RayGameError` for a game that failed (see
    the module docstring) and :class:`~mctslab.core.errors.InvalidConfigError` when Ray
    is not installed or nothing answers at ``address``.
    """
    if not tasks:
        return
    ray = _import_ray()
    started = _start(ray, workers, address)
    pending: dict[Any, GameTask] = {}
    try:
        remote_play = ray.remote(max_retries=MAX_RETRIES)(play_task)
        cpus = int(ray.cluster_resources().get("CPU", workers))
        limit = IN_FLIGHT_PER_CPU * max(1, cpus)
        queue = iter(tasks)
        for task in queue:
            pending[remote_play.remote(task)] = task
            if len(pending) >= limit:
                break
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                task = pending.pop(ref)
                try:
                    record: GameRecord = ray.get(ref)
                except ray.exceptions.RayError as err:
                    raise _failure(ray, task, err) from None
                nxt = next(queue, None)
                if nxt is not None:
                    pending[remote_play.remote(nxt)] = nxt
                yield record
    finally:
        # An early stop or an error: games still queued or running are not wanted.
        for ref in pending:
            # A game that already finished, or a connection already gone, is fine.
            with contextlib.suppress(Exception):
                ray.cancel(ref)
        if started:
            ray.shutdown()
