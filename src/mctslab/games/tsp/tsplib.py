"""TSPLIB files, distances and tours: the data of a travelling salesman instance.

TSPLIB (Reinelt, "TSPLIB: a traveling salesman problem library", ORSA Journal on
Computing 3(4), 1991; the format in Reinelt's "TSPLIB 95" report) is the field's
benchmark set. A ``.tsp`` file is a header of ``KEY : VALUE`` lines, then sections::

    NAME : eil51
    COMMENT : 51-city problem (Christofides/Eilon)
    TYPE : TSP
    DIMENSION : 51
    EDGE_WEIGHT_TYPE : EUC_2D
    NODE_COORD_SECTION
    1 37 52
    2 49 49
    ...
    EOF

Read here: ``NAME``, ``TYPE`` (``TSP``), ``COMMENT`` (repeatable), ``DIMENSION``,
``EDGE_WEIGHT_TYPE``, ``NODE_COORD_TYPE`` (``TWOD_COORDS`` only), ``DISPLAY_DATA_TYPE``
(ignored), ``NODE_COORD_SECTION`` and ``EOF``. Any other key or section is refused by
name rather than skipped, so that a file is never half understood. A file is data: it
names no other file to open. Every error is a :class:`TsplibError` whose message starts
``file:line:``.

Distances are integers, as TSPLIB defines them for ``d = sqrt(dx² + dy²)``:

- ``EUC_2D``: ``nint(d) = int(d + 0.5)``;
- ``CEIL_2D``: ``ceil(d)``;
- ``ATT`` (pseudo-Euclidean): ``r = sqrt((dx² + dy²) / 10)``, ``t = nint(r)``,
  ``t + 1`` if ``t < r`` else ``t`` (that is ``ceil(r)``).

A ``.tour`` file lists a tour's cities, numbered from 1, after ``TOUR_SECTION``, ended by
``-1`` and ``EOF``. In Python every city is 0-based: city ``i`` is TSPLIB node ``i + 1``.

Four classic instances ship with the package (``eil51``, ``berlin52``, ``st70``,
``kroA100``, with their proven optima from ``optima.json``): :func:`load_known`,
:func:`known_optimum`; :func:`instance_from_spec` reads what a command line gives,
a known name, ``random:N:SEED`` or a path.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import numpy as np
import numpy.typing as npt

from mctslab.core.errors import InvalidConfigError
from mctslab.core.text import ascii_int

__all__ = [
    "EDGE_WEIGHT_TYPES",
    "MAX_CITIES",
    "MAX_DIMENSION",
    "InvalidTourError",
    "TsplibError",
    "TsplibInstance",
    "TsplibTour",
    "check_distances",
    "check_tour",
    "distance_matrix",
    "format_tour",
    "format_tsp",
    "instance_from_spec",
    "known_instances",
    "known_optimum",
    "load_known",
    "parse_tour",
    "parse_tsp",
    "random_instance",
    "read_tour",
    "read_tsp",
    "tour_length",
    "write_tour",
    "write_tsp",
]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

#: The edge weight types whose distances :func:`distance_matrix` computes.
EDGE_WEIGHT_TYPES = ("EUC_2D", "CEIL_2D", "ATT")

# A coordinate as TSPLIB files write them: a decimal number, optionally with an
# exponent. Python's float() would also take "nan", "inf" and "1_000".
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
# Large enough for every TSPLIB instance, small enough that dx² + dy² stays exact.
_MAX_COORD = 1e7
#: The most cities whose distance matrix this package builds (``n * n`` int64 words: 32 MB
#: at 2,000; the matrix of 20,000 would be 3.2 GB, and its float intermediates twice
#: that). :func:`distance_matrix` refuses more before it allocates anything.
MAX_CITIES = 2000
#: The most cities a ``.tsp`` file or a random instance may hold (their coordinates only,
#: 16 MB; TSPLIB's largest instance has 85,900).
MAX_DIMENSION = 1_000_000
_HEADER_KEYS = ("NAME", "TYPE", "COMMENT", "DIMENSION", "EDGE_WEIGHT_TYPE")
_IGNORED_KEYS = ("DISPLAY_DATA_TYPE",)
_INSTANCES = "instances"


class TsplibError(InvalidConfigError):
    """A TSPLIB file that cannot be read; the message names the file and the line."""


class InvalidTourError(InvalidConfigError):
    """A tour that is not a permutation of the instance's cities."""


@dataclass(frozen=True, eq=False)
class TsplibInstance:
    """A symmetric TSP instance given by coordinates, as a ``.tsp`` file holds it.

    ``coords`` is a read-only ``(n, 2)`` float array, row ``i`` city ``i`` (TSPLIB node
    ``i + 1``); ``edge_weight_type`` one of :data:`EDGE_WEIGHT_TYPES`.
    """

    name: str
    comment: str
    edge_weight_type: str
    coords: FloatArray

    @property
    def dimension(self) -> int:
        """The number of cities."""
        return int(self.coords.shape[0])

    def distances(self) -> IntArray:
        """The ``(n, n)`` integer distance matrix (:func:`distance_matrix`)."""
        return distance_matrix(self.coords, self.edge_weight_type)


@dataclass(frozen=True)
class TsplibTour:
    """A tour as a ``.tour`` file holds it: 0-based cities in visiting order."""

    name: str
    comment: str
    tour: tuple[int, ...]


# --------------------------------------------------------------------------- distances


def distance_matrix(coords: Any, edge_weight_type: str = "EUC_2D") -> IntArray:
    """TSPLIB's integer distances between the rows of ``coords`` (``(n, 2)``), as an
    ``(n, n)`` ``int64`` matrix (the formulas in the module docstring)."""
    if edge_weight_type not in EDGE_WEIGHT_TYPES:
        raise InvalidConfigError(
            f"unknown EDGE_WEIGHT_TYPE {edge_weight_type!r}; supported: {', '.join(EDGE_WEIGHT_TYPES)}"
        )
    xy = np.asarray(coords, dtype=np.float64)
    if xy.ndim != 2 or xy.shape[1] != 2 or not np.all(np.isfinite(xy)):
        raise InvalidConfigError(f"coordinates must be a finite (n, 2) array, got shape {xy.shape}")
    if xy.shape[0] > MAX_CITIES:
        raise InvalidConfigError(too_many_cities(xy.shape[0]))
    dx = xy[:, None, 0] - xy[None, :, 0]
    dy = xy[:, None, 1] - xy[None, :, 1]
    squares = dx * dx + dy * dy
    if edge_weight_type == "EUC_2D":
        d = np.floor(np.sqrt(squares) + 0.5)
    elif edge_weight_type == "CEIL_2D":
        d = np.ceil(np.sqrt(squares))
    else:  # ATT
        r = np.sqrt(squares / 10.0)
        t = np.floor(r + 0.5)
        d = np.where(t < r, t + 1.0, t)
    return d.astype(np.int64)


def too_many_cities(n: int, what: str = "an instance") -> str:
    """The message for ``n`` cities over :data:`MAX_CITIES`, what it would cost."""
    gigabytes = n * n * 8 / 1e9
    return (
        f"{what} of {n:,} cities: this package builds distance matrices of at most "
        f"{MAX_CITIES:,} cities (the matrix of {n:,} would take {gigabytes:,.1f} GB)"
    )


def check_distances(dist: Any, symmetric: bool = True, what: str = "distances") -> IntArray:
    """A C-contiguous ``(n, n)`` ``int64`` copy of ``dist``, checked: ``n >= 1``,
    non-negative integers, a zero diagonal, and (``symmetric``) equal to its transpose.
    Raises :class:`~mctslab.core.errors.InvalidConfigError`."""
    try:
        raw = np.asarray(dist)
    except (TypeError, ValueError) as exc:
        raise InvalidConfigError(f"{what}: not a matrix of integers ({exc})") from None
    if raw.ndim != 2 or raw.shape[0] != raw.shape[1] or raw.shape[0] < 1:
        raise InvalidConfigError(f"{what}: need a square (n, n) matrix, got shape {raw.shape}")
    if raw.dtype.kind == "f":
        if not np.all(np.isfinite(raw)) or not np.all(raw == np.round(raw)):
            raise InvalidConfigError(f"{what}: distances must be integers")
    elif raw.dtype.kind not in "iu":
        raise InvalidConfigError(f"{what}: distances must be integers, got dtype {raw.dtype}")
    if raw.size and (raw.min() < 0 or raw.max() > 2**40):
        raise InvalidConfigError(f"{what}: distances must lie in [0, 2**40]")
    d = np.array(raw, dtype=np.int64, order="C")  # a copy: the caller's array stays theirs
    if np.any(np.diagonal(d) != 0):
        raise InvalidConfigError(f"{what}: a city's distance to itself must be 0")
    if symmetric and not np.array_equal(d, d.T):
        raise InvalidConfigError(f"{what}: the matrix must be symmetric")
    return d


def check_tour(tour: Sequence[int], n: int, what: str = "tour") -> list[int]:
    """``tour`` as a list of ints, checked to be a permutation of ``0 .. n-1``;
    raises :class:`InvalidTourError`."""
    try:
        cities = [int(c) for c in tour]
    except (TypeError, ValueError):
        raise InvalidTourError(f"{what}: cities must be integers, got {tour!r}") from None
    if len(cities) != n or sorted(cities) != list(range(n)):
        raise InvalidTourError(
            f"{what}: not a permutation of the {n} cities 0 .. {n - 1}: {cities[:20]}"
            + (" ..." if len(cities) > 20 else "")
        )
    return cities


def tour_length(dist: Any, tour: Sequence[int]) -> int:
    """The length of the closed tour: ``sum d(t[k], t[k+1])`` with ``t[n] = t[0]``."""
    d = np.asarray(dist)
    cities = check_tour(tour, d.shape[0])
    return int(sum(int(d[a, b]) for a, b in zip(cities, cities[1:] + cities[:1], strict=True)))


# ------------------------------------------------------------------------- .tsp files


class _Lines:
    """The lines of one file, each with its 1-based number, for errors that point at it."""

    def __init__(self, text: str, source: str) -> None:
        self.lines = text.splitlines()
        self.source = source
        self.at = 0  # index of the next line

    def error(self, what: str, line: int | None = None) -> TsplibError:
        where = f"{self.source}:{line if line is not None else self.at}"
        return TsplibError(f"{where}: {what}")

    def next(self) -> tuple[int, str] | None:
        """The next non-blank line, stripped, with its number; ``None`` at the end."""
        while self.at < len(self.lines):
            self.at += 1
            text = self.lines[self.at - 1].strip()
            if text:
                return self.at, text
        return None


def _keyword(text: str) -> tuple[str, str]:
    """``(KEY, value)`` of a header line ``KEY : value`` (or a bare ``KEY``)."""
    key, sep, value = text.partition(":")
    if not sep:
        key, _, value = text.partition(" ")
    return key.strip().upper(), value.strip()


def _read_header(lines: _Lines, section: str) -> tuple[dict[str, tuple[str, int]], int]:
    """The header's keys (value, line) up to ``section``; returns them and the section's
    line. Raises for unknown keys, repeated keys and a missing section."""
    header: dict[str, tuple[str, int]] = {}
    comments: list[str] = []
    allowed = (*_HEADER_KEYS, *_IGNORED_KEYS, "NODE_COORD_TYPE")
    while (item := lines.next()) is not None:
        number, text = item
        key, value = _keyword(text)
        if key == section:
            if value:
                raise lines.error(f"unexpected text after {section}: {value!r}", number)
            if comments:
                header["COMMENT"] = ("\n".join(comments), number)
            return header, number
        if key == "EOF":
            break
        if key.endswith("_SECTION"):
            raise lines.error(f"unsupported section {key} (this reader knows {section})", number)
        if key not in allowed:
            raise lines.error(f"unknown header key {key!r}; known: {', '.join(allowed)}", number)
        if key == "COMMENT":
            comments.append(value)
            continue
        if key in header:
            raise lines.error(f"{key} given twice", number)
        header[key] = (value, number)
    raise lines.error(f"no {section}: the file ends before it")


def _dimension(
    lines: _Lines,
    header: dict[str, tuple[str, int]],
    limit: int = MAX_DIMENSION,
    one_a_line: bool = False,
) -> int:
    """The header's ``DIMENSION``, checked before anything is sized by it: at most
    ``limit``, and (``one_a_line``: a ``.tsp`` file, each city's line its own) at most
    the lines left in the file, so that a short file cannot claim a billion cities."""
    if "DIMENSION" not in header:
        raise lines.error("missing DIMENSION (the number of cities) before the data")
    value, number = header["DIMENSION"]
    # At most 18 digits: int() of thousands of digits is slow, and past 4,300 a ValueError.
    n = ascii_int(value) if len(value) <= 18 else None
    if n is None or n < 1:
        if value.isascii() and value.isdigit():
            raise lines.error(
                f"DIMENSION {value[:20]}...: more than the {limit:,} cities allowed", number
            )
        raise lines.error(f"DIMENSION must be a positive integer, got {value[:40]!r}", number)
    if n > limit:
        raise lines.error(f"DIMENSION = {n:,}: more than the {limit:,} cities allowed", number)
    left = len(lines.lines) - lines.at
    if one_a_line and n > left:
        raise lines.error(
            f"DIMENSION = {n:,}, but the file has only {left:,} lines after its header "
            "(each city takes one)",
            number,
        )
    return n


def parse_tsp(text: str, source: str = "<string>", max_cities: int | None = None) -> TsplibInstance:
    """The instance a ``.tsp`` file's ``text`` holds; ``source`` names it in errors.
    ``max_cities``: refuse a ``DIMENSION`` over it (as over :data:`MAX_DIMENSION`)
    before any node is read."""
    lines = _Lines(text, source)
    header, section_line = _read_header(lines, "NODE_COORD_SECTION")
    kind, number = header.get("TYPE", ("TSP", 0))
    if kind.upper() != "TSP":
        raise lines.error(f"TYPE must be TSP (a symmetric instance), got {kind!r}", number)
    coord_type, number = header.get("NODE_COORD_TYPE", ("TWOD_COORDS", 0))
    if coord_type.upper() != "TWOD_COORDS":
        raise lines.error(f"NODE_COORD_TYPE must be TWOD_COORDS, got {coord_type!r}", number)
    limit = MAX_DIMENSION if max_cities is None else min(max_cities, MAX_DIMENSION)
    n = _dimension(lines, header, limit, one_a_line=True)
    if "EDGE_WEIGHT_TYPE" not in header:
        raise lines.error("missing EDGE_WEIGHT_TYPE", section_line)
    weight, number = header["EDGE_WEIGHT_TYPE"]
    if weight.upper() not in EDGE_WEIGHT_TYPES:
        raise lines.error(
            f"unknown EDGE_WEIGHT_TYPE {weight!r}; supported: {', '.join(EDGE_WEIGHT_TYPES)}",
            number,
        )
    coords: list[tuple[float, float] | None] = [None] * n
    seen = 0
    while (item := lines.next()) is not None:
        number, line = item
        fields = line.split()
        if fields[0].upper() == "EOF":
            break
        if fields[0].upper().endswith("_SECTION"):
            raise lines.error(
                f"unsupported section {fields[0]} (this reader knows coordinates)", number
            )
        if seen == n:
            raise lines.error(f"more nodes than DIMENSION = {n} (expected EOF)", number)
        if len(fields) != 3:
            raise lines.error(
                f"a node line is 'number x y' (3 fields), got {len(fields)}: {line!r}", number
            )
        node = ascii_int(fields[0])
        if node is None:
            raise lines.error(f"node number {fields[0]!r} is not a positive integer", number)
        if not 1 <= node <= n:
            raise lines.error(f"node number {node} outside 1 .. DIMENSION = {n}", number)
        if coords[node - 1] is not None:
            raise lines.error(f"node {node} given twice", number)
        xy = []
        for field in fields[1:]:
            if not _NUMBER.fullmatch(field):
                raise lines.error(f"coordinate {field!r} is not a number", number)
            v = float(field)
            if abs(v) > _MAX_COORD:
                raise lines.error(f"coordinate {field} larger than {_MAX_COORD:g}", number)
            xy.append(v)
        coords[node - 1] = (xy[0], xy[1])
        seen += 1
    if seen < n:
        raise lines.error(f"NODE_COORD_SECTION has {seen} nodes, DIMENSION says {n}")
    extra = lines.next()
    if extra is not None:
        raise lines.error(f"text after EOF: {extra[1]!r}", extra[0])
    array = np.array(coords, dtype=np.float64).reshape(n, 2)
    array.setflags(write=False)
    name = header.get("NAME", ("", 0))[0] or os.path.splitext(os.path.basename(source))[0]
    return TsplibInstance(name, header.get("COMMENT", ("", 0))[0], weight.upper(), array)


#: The largest ``.tsp`` or ``.tour`` file read (bytes): 2,000 cities take a few tens of KB.
MAX_FILE_BYTES = 16 << 20


def _read_text(path: str | os.PathLike[str]) -> str:
    """A file's text: a regular file of at most :data:`MAX_FILE_BYTES` (a FIFO, a device
    or a huge file is refused before it is opened for reading)."""
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            raise TsplibError(f"{os.fspath(path)}: not a regular file")
        if info.st_size > MAX_FILE_BYTES:
            raise TsplibError(
                f"{os.fspath(path)}: {info.st_size:,} bytes, more than the {MAX_FILE_BYTES:,} read"
            )
        with open(path, encoding="ascii") as f:
            # Sized by the file, not the cap: read(n) makes a buffer of n bytes first.
            text = f.read(min(info.st_size + 4096, MAX_FILE_BYTES + 1))
        if len(text) > MAX_FILE_BYTES:  # it grew since
            raise TsplibError(f"{os.fspath(path)}: more than the {MAX_FILE_BYTES:,} bytes read")
        return text
    except UnicodeDecodeError as exc:
        raise TsplibError(f"{os.fspath(path)}: not an ASCII text file ({exc.reason})") from None
    except OSError as exc:
        raise TsplibError(f"{os.fspath(path)}: cannot read: {exc.strerror}") from None


def read_tsp(path: str | os.PathLike[str], max_cities: int | None = None) -> TsplibInstance:
    """The instance in the ``.tsp`` file at ``path`` (``max_cities``: :func:`parse_tsp`)."""
    return parse_tsp(_read_text(path), os.fspath(path), max_cities)


def _number(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else repr(float(v))


def _one_line(text: str) -> str:
    return " ".join(text.split())


def format_tsp(instance: TsplibInstance) -> str:
    """``instance`` as the text of a ``.tsp`` file (:func:`parse_tsp` reads it back)."""
    lines = [f"NAME : {_one_line(instance.name) or 'unnamed'}"]
    lines += [f"COMMENT : {_one_line(c)}" for c in instance.comment.splitlines() if c.strip()]
    lines += [
        "TYPE : TSP",
        f"DIMENSION : {instance.dimension}",
        f"EDGE_WEIGHT_TYPE : {instance.edge_weight_type}",
        "NODE_COORD_SECTION",
    ]
    lines += [
        f"{i + 1} {_number(x)} {_number(y)}" for i, (x, y) in enumerate(instance.coords.tolist())
    ]
    lines.append("EOF")
    return "\n".join(lines) + "\n"


def write_tsp(path: str | os.PathLike[str], instance: TsplibInstance) -> None:
    """Write ``instance`` to ``path`` as a ``.tsp`` file."""
    with open(path, "w", encoding="ascii") as f:
        f.write(format_tsp(instance))


# ------------------------------------------------------------------------ .tour files


def parse_tour(text: str, source: str = "<string>", dimension: int | None = None) -> TsplibTour:
    """The tour a ``.tour`` file's ``text`` holds, 0-based; checked to be a permutation
    of its ``DIMENSION`` cities (and of ``dimension`` cities if given)."""
    lines = _Lines(text, source)
    header, _ = _read_header(lines, "TOUR_SECTION")
    kind, number = header.get("TYPE", ("TOUR", 0))
    if kind.upper() != "TOUR":
        raise lines.error(f"TYPE must be TOUR, got {kind!r}", number)
    n = _dimension(lines, header) if "DIMENSION" in header else None
    if dimension is not None and n is not None and n != dimension:
        raise lines.error(f"DIMENSION = {n}, the instance has {dimension} cities")
    n = n if n is not None else dimension
    nodes: list[int] = []
    ended = False
    while not ended and (item := lines.next()) is not None:
        number, line = item
        for field in line.split():
            if field == "-1":
                ended = True
                break
            if field.upper() == "EOF":
                raise lines.error("TOUR_SECTION does not end with -1 before EOF", number)
            node = ascii_int(field)
            if node is None or node < 1:
                raise lines.error(f"tour entry {field!r} is not a node number", number)
            if n is not None and node > n:
                raise lines.error(f"node {node} outside 1 .. DIMENSION = {n}", number)
            nodes.append(node - 1)
    if not ended:
        raise lines.error("TOUR_SECTION does not end with -1")
    tail = lines.next()
    if tail is not None and tail[1].upper() != "EOF":
        raise lines.error(f"expected EOF after -1, got {tail[1]!r}", tail[0])
    try:
        tour = check_tour(nodes, n if n is not None else len(nodes), what=source)
    except InvalidTourError as exc:
        raise lines.error(f"TOUR_SECTION is not a tour: {exc}") from None
    name = header.get("NAME", ("", 0))[0]
    return TsplibTour(name, header.get("COMMENT", ("", 0))[0], tuple(tour))


def read_tour(path: str | os.PathLike[str], dimension: int | None = None) -> TsplibTour:
    """The tour in the ``.tour`` file at ``path`` (see :func:`parse_tour`)."""
    return parse_tour(_read_text(path), os.fspath(path), dimension)


def format_tour(tour: Sequence[int], name: str, comment: str = "") -> str:
    """The text of a ``.tour`` file for the 0-based ``tour`` (written 1-based)."""
    cities = check_tour(tour, len(tour))
    lines = [f"NAME : {_one_line(name) or 'tour'}"]
    if comment.strip():
        lines.append(f"COMMENT : {_one_line(comment)}")
    lines += ["TYPE : TOUR", f"DIMENSION : {len(cities)}", "TOUR_SECTION"]
    lines += [str(c + 1) for c in cities]
    lines += ["-1", "EOF"]
    return "\n".join(lines) + "\n"


def write_tour(
    path: str | os.PathLike[str], tour: Sequence[int], name: str, comment: str = ""
) -> None:
    """Write ``tour`` (0-based cities) to ``path`` as a TSPLIB ``.tour`` file."""
    text = format_tour(tour, name, comment)
    with open(path, "w", encoding="ascii") as f:
        f.write(text)


# ------------------------------------------------------------------ instances by name


def random_instance(n: int, seed: int) -> TsplibInstance:
    """``n`` cities with integer coordinates uniform in ``[0, 1000)``, drawn as
    ``numpy.random.default_rng(seed).integers(0, 1000, size=(n, 2))``; ``EUC_2D``.
    Its name is its spec, ``random:N:SEED`` (:func:`instance_from_spec`)."""
    for what, v, lo in (("n", n, 1), ("seed", seed, 0)):
        if not isinstance(v, int | np.integer) or isinstance(v, bool) or v < lo:
            raise InvalidConfigError(f"random_instance: {what} must be an integer >= {lo}")
    if n > MAX_DIMENSION:
        raise InvalidConfigError(f"random_instance: n = {n:,}, more than {MAX_DIMENSION:,} cities")
    coords = np.random.default_rng(seed).integers(0, 1000, size=(n, 2)).astype(np.float64)
    coords.setflags(write=False)
    return TsplibInstance(f"random:{n}:{seed}", f"{n} uniform random cities", "EUC_2D", coords)


def _instances_dir() -> Any:
    return resources.files(__package__ or "mctslab.games.tsp").joinpath(_INSTANCES)


def known_instances() -> list[str]:
    """The names of the instances shipped with the package, sorted."""
    return sorted(
        entry.name[: -len(".tsp")]
        for entry in _instances_dir().iterdir()
        if entry.name.endswith(".tsp")
    )


def _known_name(name: str) -> str | None:
    lowered = {k.lower(): k for k in known_instances()}
    return lowered.get(name.lower())


def load_known(name: str) -> TsplibInstance:
    """A shipped instance by name (case-insensitive: ``"kroa100"`` is ``kroA100``)."""
    known = _known_name(name)
    if known is None:
        raise InvalidConfigError(
            f"unknown TSPLIB instance {name!r}; shipped: {', '.join(known_instances())}"
        )
    entry = _instances_dir().joinpath(f"{known}.tsp")
    return parse_tsp(entry.read_text(encoding="ascii"), f"{known}.tsp")


@cache
def _optima() -> dict[str, int]:
    data = json.loads(_instances_dir().joinpath("optima.json").read_text(encoding="ascii"))
    return {str(k): int(v) for k, v in data.items()}


def known_optimum(name: str) -> int | None:
    """The proven optimal tour length of a shipped instance, or ``None``."""
    known = _known_name(name)
    return None if known is None else _optima().get(known)


def instance_from_spec(spec: str, max_cities: int | None = None) -> TsplibInstance:
    """The instance a command line names: a shipped instance's name (``eil51``),
    ``random:N`` or ``random:N:SEED`` (:func:`random_instance`, seed 0 by default), or
    the path of a ``.tsp`` file. ``max_cities``: refuse more cities, checked before the
    instance is drawn or the file's nodes read."""
    if not isinstance(spec, str) or not spec.strip():
        raise InvalidConfigError(f"instance must be a name, random:N:SEED or a path, got {spec!r}")
    spec = spec.strip()
    if spec.lower().startswith("random:"):
        parts = spec.split(":")[1:]
        if any(len(p) > 18 and p.isascii() and p.isdigit() for p in parts):
            raise InvalidConfigError(
                f"{spec[:40]}...: more cities or a larger seed than this takes"
            )
        values = [ascii_int(p) for p in parts]
        if not 1 <= len(parts) <= 2 or any(v is None for v in values):
            raise InvalidConfigError(
                f"a random instance is random:N or random:N:SEED (integers), got {spec!r}"
            )
        n, seed = values[0], values[1] if len(values) == 2 else 0
        assert n is not None and seed is not None
        if max_cities is not None and n > max_cities:
            raise InvalidConfigError(f"{spec}: {n:,} cities, more than the {max_cities:,} allowed")
        return random_instance(n, seed)
    if _known_name(spec) is not None:
        return load_known(spec)
    if not os.path.exists(spec):
        raise InvalidConfigError(
            f"no TSPLIB instance {spec!r}: not a file, not random:N:SEED, and not one of "
            f"the shipped instances ({', '.join(known_instances())})"
        )
    return read_tsp(spec, max_cities)
