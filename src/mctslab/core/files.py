"""Files written whole or not at all, with the permissions the user's umask gives.

A run killed mid-write must leave the old file or the new one, never half of one: the
data goes to a temporary file beside the target, is flushed to disk, then renamed over
it (``os.replace`` is atomic on POSIX). ``tempfile.mkstemp`` would make that file 0600
whatever the umask (a dataset or an SGF file that the user's group cannot read, where
``open(path, "w")`` gives 0644 under the usual umask 022); :func:`atomic_file` creates
its temporary file with ``os.open(..., 0o666)`` and ``O_EXCL``, so the kernel applies
the umask as it does to any new file, and an existing name (a link planted there) is
never followed.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

__all__ = ["atomic_file", "atomic_write"]


def _create_beside(path: Path) -> tuple[int, Path]:
    """A new file beside ``path`` (``.NAME.XXXXXXXX.tmp``), open for writing."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    while True:
        tmp = path.parent / f".{path.name}.{secrets.token_hex(4)}.tmp"
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:  # pragma: no cover - 32 random bits taken
            continue


@contextmanager
def atomic_file(path: str | os.PathLike[str], mode: str = "wb") -> Iterator[IO[Any]]:
    """Write ``path`` through the file this yields (``mode`` ``"wb"`` or ``"w"``, UTF-8):
    when the block ends normally the file is flushed, synced and renamed over ``path``;
    when it raises, ``path`` is left as it was and the temporary file removed. The
    directory must exist."""
    if mode not in ("wb", "w"):
        raise ValueError(f"atomic_file writes with mode 'wb' or 'w', not {mode!r}")
    target = Path(path)
    fd, tmp = _create_beside(target)
    try:
        f: IO[Any] = os.fdopen(fd, "wb") if mode == "wb" else os.fdopen(fd, "w", encoding="utf-8")
        with f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def atomic_write(path: str | os.PathLike[str], data: bytes | str) -> None:
    """:func:`atomic_file` for data in hand (``str``: UTF-8)."""
    with atomic_file(path, "w" if isinstance(data, str) else "wb") as f:
        f.write(data)
