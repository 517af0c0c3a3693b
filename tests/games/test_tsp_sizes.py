"""Oversized travelling-salesman inputs are refused before anything is sized by them.

A 100-byte ``.tsp`` file whose ``DIMENSION`` lies used to allocate a list of that many
cities (950 MB for 10^8) or end in an ``OverflowError``; ``random:100000`` or a valid
20,000-city file built its distance matrix (3.2 GB and more) before the game's 2,000-city
limit was checked. Each case here is a clear ``ValueError`` subclass, found with little
memory (``tracemalloc`` sees numpy's allocations too), and one ``error:`` line from the CLI.
"""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from mctslab.cli.main import app
from mctslab.core.errors import InvalidConfigError
from mctslab.games.tsp import TSP, TsplibError, read_tsp
from mctslab.games.tsp.game import MAX_CITIES
from mctslab.games.tsp.tsplib import distance_matrix, instance_from_spec, parse_tsp, random_instance

#: More than any check here needs; far less than what the old code allocated.
PEAK_BYTES = 8 << 20


def tsp_text(dimension: str, nodes: int = 1) -> str:
    body = "".join(f"{i + 1} {i} {2 * i}\n" for i in range(nodes))
    return (
        f"NAME : x\nTYPE : TSP\nDIMENSION : {dimension}\nEDGE_WEIGHT_TYPE : EUC_2D\n"
        f"NODE_COORD_SECTION\n{body}EOF\n"
    )


def refused_cheaply(call: Callable[[], Any], error: type[Exception], *words: str) -> str:
    """``call()`` raises ``error`` whose message has ``words``, peaking under PEAK_BYTES."""
    tracemalloc.start()
    try:
        with pytest.raises(error) as info:
            call()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    message = str(info.value)
    assert peak < PEAK_BYTES, (peak, message)
    for word in words:
        assert word in message, message
    assert isinstance(info.value, ValueError)
    return message


@pytest.mark.parametrize(
    ("dimension", "words"),
    [
        ("1000", ["DIMENSION = 1,000", "only 2 lines after its header"]),
        ("100000000", ["DIMENSION = 100,000,000", "more than the 1,000,000 cities allowed"]),
        ("100000000000000000000", ["more than the 1,000,000 cities allowed"]),
        ("9" * 5000, ["more than the 1,000,000 cities allowed"]),  # int() refuses 4,300+ digits
    ],
)
def test_a_short_file_whose_dimension_lies_is_refused_before_allocating(
    tmp_path: Path, dimension: str, words: list[str]
) -> None:
    path = tmp_path / "lie.tsp"
    path.write_text(tsp_text(dimension))
    assert path.stat().st_size < 5200
    message = refused_cheaply(lambda: read_tsp(path), TsplibError, *words)
    assert message.startswith(f"{path}:3:")  # the DIMENSION line
    refused_cheaply(lambda: TSP(str(path)), TsplibError, "DIMENSION")


def test_a_valid_file_over_the_game_limit_is_refused_before_its_distances(
    tmp_path: Path,
) -> None:
    n = 20_000
    path = tmp_path / "big.tsp"
    path.write_text(tsp_text(str(n), nodes=n))
    assert read_tsp(path).dimension == n  # a valid file: its coordinates read fine
    refused_cheaply(
        lambda: TSP(str(path)), TsplibError, "DIMENSION = 20,000", f"{MAX_CITIES:,} cities"
    )
    refused_cheaply(lambda: TSP(read_tsp(path)), InvalidConfigError, "need 2 to 2,000 cities")


@pytest.mark.parametrize(
    "make",
    [
        lambda: TSP("random:100000"),
        lambda: TSP("random:1000000000000:3"),
        lambda: TSP("random:" + "9" * 5000),
        lambda: TSP(coords=np.zeros((20_000, 2))),
        lambda: TSP(distances=np.broadcast_to(np.int64(0), (3000, 3000))),  # no memory of its own
        lambda: distance_matrix(np.zeros((MAX_CITIES + 1, 2))),
        lambda: random_instance(10**12, 0),
        lambda: instance_from_spec("random:2001:1", max_cities=2000),
        lambda: parse_tsp(tsp_text("2001", nodes=2001), max_cities=2000),
    ],
)
def test_more_cities_than_the_limit_are_refused_before_the_matrix(make: Any) -> None:
    refused_cheaply(make, InvalidConfigError)


def test_the_limit_itself_still_builds() -> None:
    assert instance_from_spec("random:2000:1", max_cities=2000).dimension == 2000
    assert parse_tsp(tsp_text("3", nodes=3)).dimension == 3
    assert TSP("random:40:1").n == 40


@pytest.mark.parametrize("spec", ["random:100000", "lie.tsp", "big.tsp"])
def test_the_cli_says_one_error_line(tmp_path: Path, spec: str) -> None:
    (tmp_path / "lie.tsp").write_text(tsp_text("100000000"))
    (tmp_path / "big.tsp").write_text(tsp_text("20000", nodes=20_000))
    instance = spec if spec.startswith("random") else str(tmp_path / spec)
    result = CliRunner().invoke(
        app, ["optimize", "tsp", "-p", f"instance={instance}", "--search", "nn", "--quiet"]
    )
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and "cities" in lines[0], lines
