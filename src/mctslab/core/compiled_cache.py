"""numba's on-disk cache of mctslab's compiled functions, kept in step with the sources.

numba caches a function compiled with ``cache=True`` in the ``__pycache__`` folder beside
its source file, and keys the cache on that one file's time stamp and size. A cached
function that calls compiled functions of *other* files carries their code inside its
own, and numba does not see those files change: the engine's wrappers in
:mod:`mctslab.search.kernel_chunks` hold the compiled engine (:mod:`mctslab.search.compiled`)
and each game's kernels; Go's playouts hold its board; the compiled selection holds the
score functions of :mod:`mctslab.search.rules`. Edit one of those files in a checkout and
the next run would load the old code from the cache, silently.

So when this module is imported (:mod:`mctslab` imports it first of all, and it calls
:func:`refresh` on the package), a fingerprint of the
sources of the packages that hold compiled code (:data:`PACKAGES`: the SHA-256 of every
``.py`` file's path and bytes) is compared with the one recorded under the package's
``__pycache__`` (:data:`MARKER`). When they differ (or none is recorded) the packages'
cache files (``*.nbi``, ``*.nbc`` in their ``__pycache__`` folders) are removed, and the
new fingerprint recorded: the next call of each function compiles it afresh, once.

An installed wheel is not edited in place (an upgrade rewrites every file, and numba's
own time stamps then see each one change); where the package folder is read-only, numba
keeps its cache elsewhere and nothing is done here. With ``NUMBA_CACHE_DIR`` set, numba's
cache lies under that folder, which this guard does not clear.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

__all__ = ["MARKER", "PACKAGES", "fingerprint", "refresh"]

#: The subpackages whose files hold compiled functions or the plain functions numba
#: compiles into them (:mod:`mctslab.search.rules`' scores).
PACKAGES = ("core", "games", "search", "nn")
#: The file, under the package's ``__pycache__``, that records the fingerprint.
MARKER = "numba-sources.sha256"
_CACHE_SUFFIXES = (".nbi", ".nbc")


def _sources(root: Path, packages: tuple[str, ...]) -> list[Path]:
    return sorted(p for name in packages for p in (root / name).rglob("*.py"))


def fingerprint(root: Path, packages: tuple[str, ...] = PACKAGES) -> str:
    """The SHA-256 of the relative path and the bytes of every ``.py`` file under
    ``root``'s ``packages``, in sorted order."""
    digest = hashlib.sha256()
    for path in _sources(root, packages):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def refresh(root: Path, packages: tuple[str, ...] = PACKAGES) -> bool:
    """Remove ``root``'s numba cache files under ``packages`` if the sources changed since
    they were recorded (:func:`fingerprint`); return whether it did.

    Nothing is done (``False``) where ``root`` cannot be written. Several processes may
    call it at once (the test suite's workers): each clears before compiling anything,
    and the fingerprint is written to a temporary file and renamed.
    """
    marker = root / "__pycache__" / MARKER
    if not os.access(root, os.W_OK):
        return False
    try:
        current = fingerprint(root, packages)
        if marker.is_file() and marker.read_text().strip() == current:
            return False
        for name in packages:
            for cache in (root / name).rglob("__pycache__"):
                for path in cache.iterdir():
                    if path.suffix in _CACHE_SUFFIXES:
                        path.unlink(missing_ok=True)
        marker.parent.mkdir(exist_ok=True)
        partial = marker.with_name(f"{MARKER}.{os.getpid()}")
        partial.write_text(current + "\n")
        partial.replace(marker)
    except OSError:
        return False  # a cache that cannot be cleared or recorded is numba's to rebuild
    return True


# On import, before any compiled function of the package loads from the cache.
refresh(Path(__file__).resolve().parents[1])
