"""Worker processes that do not outlive the process that started them.

A pool's workers wait on a queue their parent feeds. When the parent is killed
(``kill -9``, the out-of-memory killer) nothing closes that queue for them, and they
wait forever, each holding its players' memory (200 to 500 MB for a network player;
round 4's outside attack found them still there after ``kill -9`` of ``arena`` and
``train``). :func:`die_with_parent`, a pool's ``initializer``, ends a worker when its
parent goes, two ways:

- on Linux, ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` (through ``ctypes``): the kernel kills
  the worker the moment its parent dies. The signal follows the *thread* that started
  the worker, which is why a pool is started, used and shut down by one thread here
  (a ``with`` block in one call);
- everywhere, a daemon thread that checks every :data:`WATCH_SECONDS` whether the
  worker's parent is still the process that started the pool (``os.getppid()`` changes
  when the parent dies and the worker is adopted by init or a subreaper) and ends the
  worker if not. It also covers a parent that died before ``prctl`` ran.

A worker killed so leaves nothing behind that its parent would have kept: the arena
commits each game in the parent and a run resumes from its store; training commits
each generation in the parent.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import signal
import sys
import threading

__all__ = ["WATCH_SECONDS", "die_with_parent", "parent_death_signal"]

#: How often a worker checks that its parent is alive (the portable fallback).
WATCH_SECONDS = 0.5
#: ``PR_SET_PDEATHSIG`` of ``<linux/prctl.h>``.
_PR_SET_PDEATHSIG = 1


def parent_death_signal() -> bool:
    """Ask the Linux kernel to kill this process (``SIGKILL``) when its parent dies;
    ``False`` where that cannot be asked (another system, no libc)."""
    if not sys.platform.startswith("linux"):
        return False
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        return bool(libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0)
    return False


def _watch(parent: int) -> None:
    event = threading.Event()
    while not event.wait(WATCH_SECONDS):
        if os.getppid() != parent:
            os._exit(1)  # no cleanup: the parent that would use it is gone


def die_with_parent(parent: int) -> None:
    """Make this worker process end when the process ``parent`` (the pid of the process
    that made the pool, ``os.getpid()`` there) is no longer its parent: a pool's
    ``initializer`` (see the module docstring)."""
    parent_death_signal()
    if os.getppid() != parent:  # the parent died before the signal was asked for
        os._exit(1)
    threading.Thread(target=_watch, args=(parent,), name="watch-parent", daemon=True).start()
