"""Live analysis: Leela Zero's ``lz-analyze`` and ``lz-genmove_analyze``, which Sabaki
and Lizzie send, as a search that writes what it sees while it thinks.

Apart from the engine's commands (:mod:`mctslab.cli.gtp.engine`): this module reads the
commands' arguments (:func:`parse_analyze`), writes the info lines (:func:`info_line`)
and runs the sliced search (:class:`Analysis`); the engine chooses the position, the
colour and the budget, and commits the move.

``lz-analyze [COLOR] [INTERVAL]`` (also ``interval N``, ``minmoves N``; the interval in
centiseconds) answers ``=`` at once, then searches from the current position (for
``COLOR``, a pass inserted as for ``genmove``) in a background thread and writes every
interval one line::

    info move D4 visits 120 winrate 5234 prior 1000 order 0 pv D4 E5 C3 info move ...

(the root's moves by visits; ``winrate`` the move's mean return for the side to move on
0 .. 10000; ``prior`` the PUCT prior, uniform under UCT; ``pv`` the most visited line of
the tree), until the next command arrives: the analysis stops, a blank line ends its
answer (as Leela Zero) and the command is answered. The search is the player's own (its
tree is then reused by the next ``genmove``), one search without an iteration or time
budget run by the engine in slices of at most :data:`ANALYSIS_SLICE` seconds
(:meth:`~mctslab.search.engine.Searcher.search_slices`), its tree capped at
:data:`ANALYSIS_MAX_NODES`.
``lz-genmove_analyze [COLOR] [INTERVAL]`` is ``genmove`` with the same lines during its
search, then ``play VERTEX`` (or ``play resign``) and the blank line. Both need an
``mcts`` or ``puct`` player with one worker (``? lz-analyze needs an MCTS player``).

The KataGo analysis engine (:mod:`mctslab.cli.katago`) reports the same numbers in its
JSON: a move's winrate (:func:`mean_winrate`), its prior (:func:`root_prior`) and its
line (:func:`principal_variation`) are read here for both.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from mctslab.cli.gtp.protocol import GtpFailure, parse_colour
from mctslab.core.text import is_ascii_digits
from mctslab.games.go import Go
from mctslab.games.kernels import KernelState
from mctslab.players.gtp import action_to_vertex
from mctslab.search.budget import SLICE
from mctslab.search.config import SearchConfig
from mctslab.search.engine import Searcher
from mctslab.search.result import ChildStats, SearchResult

__all__ = [
    "ANALYSIS_MAX_NODES",
    "ANALYSIS_SLICE",
    "MAX_ANALYZE_COUNT",
    "MIN_ANALYSIS_SLICE",
    "Analysis",
    "AnalyzeRequest",
    "info_line",
    "mean_winrate",
    "parse_analyze",
    "principal_variation",
    "root_prior",
]

#: The longest search between two looks at an analysis's stop flag and clock (seconds).
ANALYSIS_SLICE = 0.1
#: The shortest such search (a short interval asks for many).
MIN_ANALYSIS_SLICE = 0.01
#: An analysis runs until the next command, for as long as a GUI stays open: its tree
#: is capped (about 60 MB for the compiled engine's 31-byte nodes; a reference node of
#: Python objects costs far more), after which the analysis only repeats its info line.
ANALYSIS_MAX_NODES = {"compiled": 2_000_000, "reference": 200_000}


# The commands' arguments ------------------------------------------------------------------------


@dataclass(frozen=True)
class AnalyzeRequest:
    """The arguments of ``lz-analyze`` and ``lz-genmove_analyze``: the colour to analyse
    for (``None``: the side to move), ``interval`` seconds between two info lines (0: no
    info lines, as Leela Zero) and ``min_moves``, the least number of moves an info line
    lists (moves without visits fill it up)."""

    colour: str | None = None
    interval: float = 0.0
    min_moves: int = 0


#: The largest interval (centiseconds: a day) and minmoves an analysis takes: a number of
#: thousands of digits cannot even be converted (Python's int limit, a float's range).
MAX_ANALYZE_COUNT = 8_640_000


def _count(text: str, what: str, command: str) -> int:
    """``text`` (ASCII digits) as a whole number at most :data:`MAX_ANALYZE_COUNT`;
    ``syntax error`` for a larger one."""
    if len(text.lstrip("0")) > len(str(MAX_ANALYZE_COUNT)) or int(text) > MAX_ANALYZE_COUNT:
        raise GtpFailure(
            f"syntax error: {command}: {what} must be at most {MAX_ANALYZE_COUNT} "
            f"(centiseconds for an interval: a day), got {text[:20]}{'...' if len(text) > 20 else ''}"
        )
    return int(text)


def parse_analyze(args: Sequence[str], command: str = "lz-analyze") -> AnalyzeRequest:
    """``[COLOR] [INTERVAL]``, ``interval N`` and ``minmoves N`` in any order, as Leela
    Zero reads them (an interval in centiseconds: ``lz-analyze b 50``); ``avoid`` and
    ``allow`` are not supported. :class:`GtpFailure` (``syntax error: ...``) otherwise.

    >>> parse_analyze(["w", "interval", "25"])
    AnalyzeRequest(colour='w', interval=0.25, min_moves=0)
    """
    colour: str | None = None
    interval, min_moves = 0.0, 0
    i = 0
    while i < len(args):
        tag = args[i].lower()
        if is_ascii_digits(tag):
            interval = _count(tag, "interval", command) / 100
            i += 1
            continue
        if tag in ("interval", "minmoves"):
            if i + 1 >= len(args) or not is_ascii_digits(args[i + 1]):
                raise GtpFailure(f"syntax error: {command}: {tag} needs a whole number >= 0")
            if tag == "interval":
                interval = _count(args[i + 1], tag, command) / 100
            else:
                min_moves = _count(args[i + 1], tag, command)
            i += 2
            continue
        if tag in ("b", "black", "w", "white"):
            colour = parse_colour(tag)
        elif tag in ("avoid", "allow"):
            raise GtpFailure(f"syntax error: {command}: {tag} is not supported")
        else:
            raise GtpFailure(f"syntax error: {command}: unexpected argument {args[i]!r}")
        i += 1
    return AnalyzeRequest(colour, interval, min_moves)


# The info lines ---------------------------------------------------------------------------------


def principal_variation(searcher: object, action: int, limit: int) -> list[int]:
    """``action``, then the line below it that the searcher's kept tree expects (both
    engines' ``principal_variation``: the most visited child at each node), at most
    ``limit`` moves; only ``[action]`` for a searcher without one (root parallelism's)."""
    line = getattr(searcher, "principal_variation", None)
    return list(line(action, limit)) if line is not None else [action]


def mean_winrate(child: ChildStats, min_utility: float, max_utility: float) -> float:
    """A root child's mean return for the player to move, mapped from ``min_utility ..
    max_utility`` to ``0 .. 1`` and clamped there (0 for a child without visits): the
    winrate that Leela Zero's ``info`` lines and KataGo's analysis engine report."""
    span = max_utility - min_utility
    if not child.visits or span <= 0:
        return 0.0
    return min(1.0, max(0.0, (child.value - min_utility) / span))


def root_prior(child: ChildStats, count: int) -> float:
    """A root child's prior: the evaluator's under PUCT, uniform over the root's
    ``count`` children under UCT, which has none."""
    if child.prior is not None:
        return child.prior
    return 1.0 / count if count else 0.0


def info_line(
    children: Sequence[ChildStats],
    size: int,
    min_utility: float,
    max_utility: float,
    pv: Callable[[int], list[int]] | None = None,
    min_moves: int = 0,
) -> str:
    """One Leela Zero analysis line: ``info move D4 visits 120 winrate 5234 prior 1000
    order 0 pv D4 E5 C3 info move ...``, the root's children by visits (then winrate)
    down to the last one with a visit (or ``min_moves`` of them). ``winrate`` is the
    move's mean return for the player to move mapped from ``min_utility .. max_utility``
    to ``0 .. 10000`` (truncated, as Leela Zero prints it), ``prior`` its prior in
    ten-thousandths (UCT has none: uniform over the root's children), ``pv`` the
    principal variation ``pv(action)`` (default: the move alone)."""

    def winrate(child: ChildStats) -> int:
        return int(mean_winrate(child, min_utility, max_utility) * 10000)

    # sorted() is stable, reverse=True too: equal visits and winrate keep action order.
    rows = sorted(children, key=lambda ch: (ch.visits, winrate(ch)), reverse=True)
    visited = sum(1 for ch in rows if ch.visits > 0)
    parts = []
    for order, child in enumerate(rows[: max(visited, min_moves)]):
        prior = root_prior(child, len(rows))
        line = pv(child.action) if pv is not None else [child.action]
        moves = " ".join(action_to_vertex(a, size) for a in line)
        parts.append(
            f"info move {action_to_vertex(child.action, size)} visits {child.visits} "
            f"winrate {winrate(child)} prior {int(prior * 10000)} order {order} pv {moves}"
        )
    return " ".join(parts)


# The search -------------------------------------------------------------------------------------


class Analysis:
    """``lz-analyze``'s search: from one position, in a background thread, one search of
    the player's own searcher with no budget but the node cap, in the engine's slices of
    at most :data:`ANALYSIS_SLICE` seconds (:meth:`~mctslab.search.engine.Searcher.search_slices`),
    writing an info line every ``interval`` seconds until :meth:`stop`.
    ``lz-genmove_analyze``'s search is :meth:`search_move`, the same slices of one search
    under a move's budget, in the caller's thread.

    The compiled engine's search leaves Python's GIL free, so the thread that reads the
    next command is not slowed; the reference engine's shares it (and still stops within
    a slice).
    """

    def __init__(
        self,
        searcher: Searcher,
        state: KernelState,
        config: SearchConfig,
        request: AnalyzeRequest,
        emit: Callable[[str], None],
    ) -> None:
        self.searcher = searcher
        self.state = state
        self.request = request
        self.emit = emit
        game = state.game
        assert isinstance(game, Go)
        self.game = game
        slice_s = ANALYSIS_SLICE
        if request.interval > 0:
            slice_s = min(slice_s, max(MIN_ANALYSIS_SLICE, request.interval / 2))
        self.slice = slice_s
        cap = ANALYSIS_MAX_NODES.get(searcher.node_kind, ANALYSIS_MAX_NODES["reference"])
        nodes = cap if config.max_nodes is None else min(cap, config.max_nodes)
        #: lz-analyze's search: until stopped, or the tree is full (or the root proven).
        self.config = replace(config, time=None, iterations=None, max_nodes=nodes)
        self.lines = 0  # info lines written
        self.error: BaseException | None = None  # what ended the search early, if anything
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="lz-analyze", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Stop the search (within a slice) and write its last line if none came yet."""
        self._stop.set()
        self._thread.join()

    def line(self, result: SearchResult) -> str:
        info = self.game.info
        n = self.game.board_size
        return info_line(
            result.children,
            n,
            info.min_utility,
            info.max_utility,
            lambda a: principal_variation(self.searcher, a, n * n),
            self.request.min_moves,
        )

    def _run(self) -> None:
        try:
            self._loop()
        except Exception as err:  # the analysis ends; the engine answers the next command
            self.error = err

    def _loop(self) -> None:
        interval = self.request.interval
        result: SearchResult | None = None
        last = time.monotonic()
        slices = self.searcher.search_slices(
            self.state.clone(), self.game.info, config=self.config, slice_seconds=self.slice
        )
        try:
            while not self._stop.is_set():
                if result is not None and result.stopped_by != SLICE:
                    self._stop.wait(self.slice)  # the tree is full or the root proven
                else:
                    result = next(slices)
                now = time.monotonic()
                if interval > 0 and result is not None and now - last >= interval:
                    self.emit(self.line(result) + "\n")
                    self.lines += 1
                    last = now
        finally:
            slices.close()  # the tree is kept as the last slice left it
        if interval > 0 and self.lines == 0 and result is not None:
            self.emit(self.line(result) + "\n")  # at least one line, as Leela Zero
            self.lines += 1

    def search_move(self, config: SearchConfig) -> tuple[SearchResult, int]:
        """``lz-genmove_analyze``'s search: one search of ``config`` (its budget judged by
        the engine, early stop and robust-max included), in slices, an info line every
        interval, until the budget is spent, the tree is full or the root proven. The
        result and its iterations. The caller writes the at-least-one line
        (:attr:`lines` is still 0) once it has stopped its clock."""
        request = self.request
        last = time.monotonic()
        slices = self.searcher.search_slices(
            self.state.clone(), self.game.info, config=config, slice_seconds=self.slice
        )
        for result in slices:
            if result.stopped_by != SLICE:
                return result, result.iterations
            if request.interval > 0 and time.monotonic() - last >= request.interval:
                self.emit(self.line(result) + "\n")
                self.lines, last = self.lines + 1, time.monotonic()
        raise AssertionError("a search in slices ends with its final result")
