"""numba's cache guard (mctslab.core.compiled_cache): the cache files of a package tree
are removed when its sources change, and only then."""

from __future__ import annotations

from pathlib import Path

import mctslab
from mctslab.core import compiled_cache
from mctslab.core.compiled_cache import MARKER, fingerprint, refresh


def _tree(root: Path) -> Path:
    (root / "games" / "__pycache__").mkdir(parents=True)
    (root / "search" / "compiled" / "__pycache__").mkdir(parents=True)
    (root / "web").mkdir()
    (root / "games" / "board.py").write_text("X = 1\n")
    (root / "search" / "compiled" / "chunk.py").write_text("Y = 2\n")
    (root / "web" / "app.py").write_text("Z = 3\n")
    for cache in (root / "games" / "__pycache__", root / "search" / "compiled" / "__pycache__"):
        (cache / "f.py311.nbi").write_bytes(b"index")
        (cache / "f.py311.1.nbc").write_bytes(b"code")
        (cache / "f.cpython-311.pyc").write_bytes(b"pyc")
    return root


def _caches(root: Path) -> list[str]:
    return sorted(p.name for p in root.rglob("*.nb[ic]"))


def test_unrecorded_sources_clear_the_cache_and_record_the_fingerprint(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    assert refresh(root, ("games", "search")) is True
    assert _caches(root) == []
    assert len(list(root.rglob("*.pyc"))) == 2  # Python's own cache is not numba's
    assert (root / "__pycache__" / MARKER).read_text().strip() == fingerprint(
        root, ("games", "search")
    )


def test_unchanged_sources_keep_the_cache(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    refresh(root, ("games", "search"))
    (root / "games" / "__pycache__" / "g.py311.nbi").write_bytes(b"index")
    assert refresh(root, ("games", "search")) is False
    assert _caches(root) == ["g.py311.nbi"]


def test_a_changed_callee_clears_its_callers_cache(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    refresh(root, ("games", "search"))
    (root / "games" / "__pycache__" / "g.py311.nbi").write_bytes(b"index")
    (root / "search" / "compiled" / "chunk.py").write_text("Y = 3\n")  # same size, new bytes
    assert refresh(root, ("games", "search")) is True
    assert _caches(root) == []


def test_a_file_outside_the_packages_changes_nothing(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    before = fingerprint(root, ("games", "search"))
    (root / "web" / "app.py").write_text("Z = 4\n")
    assert fingerprint(root, ("games", "search")) == before
    (root / "games" / "new.py").write_text("")  # a new file is a change
    assert fingerprint(root, ("games", "search")) != before


def test_the_package_records_its_own_fingerprint_on_import() -> None:
    root = Path(mctslab.__file__).resolve().parent
    marker = root / "__pycache__" / MARKER
    assert marker.read_text().strip() == fingerprint(root, compiled_cache.PACKAGES)
