"""Files written whole or not at all (mctslab.core.files), with the permissions the
umask gives as for any new file: the self-play dataset, the SGF export, the training
run's files and checkpoints all go through it."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from mctslab.analysis.dataset import write_dataset
from mctslab.core.files import atomic_file, atomic_write


@pytest.fixture
def umask() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_new_files_get_the_umasks_permissions(tmp_path: Path, umask: None) -> None:
    atomic_write(tmp_path / "a.txt", "hello")
    assert (tmp_path / "a.txt").read_text() == "hello" and mode(tmp_path / "a.txt") == 0o644
    os.umask(0o077)
    atomic_write(tmp_path / "b.bin", b"\x00\x01")
    assert mode(tmp_path / "b.bin") == 0o600
    os.umask(0o002)
    write_dataset(tmp_path / "sp.npz", {"x": np.zeros(3)}, {"game": "nim"})
    assert mode(tmp_path / "sp.npz") == 0o664
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "b.bin", "sp.npz"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path, umask: None) -> None:
    target = tmp_path / "keep.json"
    target.write_text("old")
    with pytest.raises(RuntimeError), atomic_file(target, "w") as f:
        f.write("half of the new")
        raise RuntimeError("killed")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["keep.json"]


def test_a_link_planted_at_the_target_is_replaced_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("not yours")
    target = tmp_path / "out.sgf"
    target.symlink_to(outside)
    atomic_write(target, "(;GM[1])")
    assert outside.read_text() == "not yours"
    assert not target.is_symlink() and target.read_text() == "(;GM[1])"


def test_only_write_modes() -> None:
    with pytest.raises(ValueError, match="mode"), atomic_file("x", "a"):
        pass
