"""SGF files as the reader takes them (:func:`mctslab.games.go.sgf.read_sgf_file`): a regular
file of at most :data:`~mctslab.games.go.sgf.MAX_SGF_BYTES`; numbers in ASCII digits."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from mctslab.games.go.sgf import (
    MAX_SGF_BYTES,
    SgfError,
    SgfRecord,
    read_sgf,
    read_sgf_file,
    read_sgf_text,
    write_sgf,
)


def test_a_file_reads_back(tmp_path: Path) -> None:
    record = SgfRecord(board_size=9, komi=7.5, actions=(40, 24, 81), black="me")
    path = tmp_path / "g.sgf"
    path.write_text(write_sgf(record), encoding="utf-8")
    assert read_sgf_file(path) == record


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "g.sgf"
    os.mkfifo(fifo)
    outcome: list[BaseException | None] = []

    def read() -> None:
        try:
            read_sgf_file(fifo)
            outcome.append(None)
        except BaseException as err:  # handed to the test's thread
            outcome.append(err)

    worker = threading.Thread(target=read, daemon=True)
    worker.start()
    worker.join(10)
    if worker.is_alive():
        with open(fifo, "wb"):  # unblock the reader, then fail
            pass
        pytest.fail("reading a FIFO as an SGF file blocked")
    [err] = outcome
    assert isinstance(err, SgfError) and "not a regular file" in str(err)


@pytest.mark.parametrize("path", ["/dev/zero", "/dev/null", "/"])
def test_devices_and_directories_are_refused(path: str) -> None:
    with pytest.raises(SgfError, match="not a regular file"):
        read_sgf_text(path)


def test_a_file_larger_than_the_cap_is_refused_unread(tmp_path: Path) -> None:
    big = tmp_path / "big.sgf"
    head = write_sgf(SgfRecord(board_size=9))
    big.write_text(head + " " * (MAX_SGF_BYTES - len(head) + 1))
    with pytest.raises(SgfError, match="larger than 1,048,576 bytes"):
        read_sgf_file(big)
    at_the_cap = tmp_path / "cap.sgf"
    at_the_cap.write_text(head + " " * (MAX_SGF_BYTES - len(head)))
    assert read_sgf_file(at_the_cap).board_size == 9


def test_a_missing_file_is_an_sgf_error(tmp_path: Path) -> None:
    with pytest.raises(SgfError, match=r"cannot read .*No such file"):
        read_sgf_file(tmp_path / "none.sgf")


@pytest.mark.parametrize("size", ["\uff19", "1\uff19", "\u0669", "\u00b2"])
def test_a_board_size_in_unicode_digits_is_refused(size: str) -> None:
    with pytest.raises(SgfError, match="only square boards"):
        read_sgf(f"(;GM[1]FF[4]SZ[{size}];B[aa])")
