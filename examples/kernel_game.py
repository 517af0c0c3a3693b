"""Hex as rule kernels: a user's own game on mctslab's compiled engine.

The built-in games (``mctslab.games.tic_tac_toe``, ``connect_four``, ``nim``)
are written as *rule kernels*: five numba functions over two flat ``int64``
arrays, ``state`` and ``params`` (the contract is in
:mod:`mctslab.games.kernels`):

==========================================  ====================================================
``init(params) -> state``                   a new initial state
``legal_actions(state, params, out) -> n``  writes the legal actions, ascending, to ``out[:n]``
``apply_action(state, params, action)``     plays a legal action in place
``returns(state, params, out)``             writes one float per player to ``out``
``heuristic(state, params, out)``           a value estimate per player in ``[-1, 1]``
==========================================  ====================================================

``state[0]`` is always the player to move, or ``mctslab.TERMINAL`` once the game
is over. A :class:`~mctslab.games.kernels.KernelGame` subclass bundles the
kernels in a :class:`~mctslab.games.kernels.RuleKernels` and adds what is
presentation, not rules (action names, the board drawing); the compiled engine
(:mod:`mctslab.search.compiled`) then runs whole MCTS iterations in numba, and builds
the same tree as the reference engine from the same seed. This file lives
outside the package and plugs in exactly as the built-in games do, including the
``search_chunk`` wrapper that lets numba's on-disk cache serve the compiled
engine to a fresh process.

The game is Hex with OpenSpiel's encodings (``pyspiel.load_game("hex")``, no
swap rule): on a board of ``rows`` x ``columns`` hexagonal cells, player 0
(``x``) moves first and joins the top and bottom edges; player 1 (``o``) joins
the left and right edges. Whoever connects their edges wins (+1/-1); a full
board always holds exactly one connection, so there are no draws. Action
``row * columns + column`` (row 0 on top); cell ``(r, c)`` touches ``(r - 1, c)``,
``(r - 1, c + 1)``, ``(r, c - 1)``, ``(r, c + 1)``, ``(r + 1, c - 1)`` and
``(r + 1, c)``. Action names are ``a1`` .. : column letter, row number from the
top, as OpenSpiel writes them. (On a board one cell wide a single stone touches
both of one player's edges and wins; OpenSpiel's ``hex`` never ends there.)

State layout (``int64``), with ``N = rows * columns`` cells:
``[player, winner, moves, stone_0 .. stone_{N-1}, edges_0 .. edges_{N-1}]``;
``stone`` is 0 empty, 1 ``x``, 2 ``o``; ``edges`` is, for a stone, a bit mask of
its owner's edges that the stone's group touches (1: top or left, 2: bottom or
right), so a move wins when the masks it joins cover both edges (mask 3). The masks
are a function of the stones alone: equal positions are equal arrays.
``params = [rows, columns]``.

Run it::

    python examples/kernel_game.py

It checks the rules with ``mctslab.check_game``, searches the opening with both
engines from the same seed (the root statistics are identical), reports the
compiled engine's simulations per second and registers the game, so that
``mctslab.make("hex", rows=4)`` works once this module is imported.

A caveat of numba's on-disk cache, not of mctslab: a cached function records the
name of the module it was compiled in, and a later process imports the module
by that name to load it (numba issue #7075). So import this file under one name,
its own: run it as a script, or ``import kernel_game`` with ``examples/`` on the
path (the tests load it by path under that name); a cache written under another
name fails to load with ``ModuleNotFoundError`` until ``__pycache__`` is cleared.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

import mctslab
from mctslab import TERMINAL, GameInfo, InvalidConfigError, SearchConfig
from mctslab.core.testing import check_game
from mctslab.games.kernels import KernelGame, KernelState, RuleKernels
from mctslab.search.compiled import run_chunk
from mctslab.search.mcts import MCTS

__all__ = ["Hex"]

LETTERS = "abcdefghijklmnopqrstuvwxyz"
MAX_SIZE = len(LETTERS)  # columns are named by letters

# The six neighbours of a cell, as (row, column) steps.
_DR = np.array([-1, -1, 0, 0, 1, 1], dtype=np.int64)
_DC = np.array([0, 1, -1, 1, -1, 0], dtype=np.int64)
_FAR = 1 << 30  # "unreachable" for the heuristic's distances


@njit(cache=True)
def init(params):  # type: ignore[no-untyped-def]
    n = params[0] * params[1]
    s = np.zeros(3 + 2 * n, dtype=np.int64)
    s[1] = -1
    return s


@njit(cache=True)
def legal_actions(s, params, out):  # type: ignore[no-untyped-def]
    if s[0] < 0:
        return 0
    k = 0
    for a in range(params[0] * params[1]):
        if s[3 + a] == 0:
            out[k] = a
            k += 1
    return k


@njit(cache=True)
def _own_edges(p, r, c, rows, cols):  # type: ignore[no-untyped-def]
    """The edges of player ``p`` that cell (r, c) lies on, as a bit mask."""
    if p == 0:
        return (1 if r == 0 else 0) | (2 if r == rows - 1 else 0)
    return (1 if c == 0 else 0) | (2 if c == cols - 1 else 0)


@njit(cache=True)
def _spread(stones, edges, rows, cols, start, mark, mask):  # type: ignore[no-untyped-def]
    """Give the group of ``start`` the edge mask ``mask`` (a flood fill: a stone that
    already has ``mask`` is done, which also marks it visited)."""
    stack = np.empty(rows * cols, dtype=np.int64)
    edges[start] = mask
    stack[0] = start
    top = 1
    while top > 0:
        top -= 1
        x = stack[top]
        xr, xc = x // cols, x % cols
        for d in range(6):
            rr, cc = xr + _DR[d], xc + _DC[d]
            if 0 <= rr < rows and 0 <= cc < cols:
                y = rr * cols + cc
                if stones[y] == mark and edges[y] != mask:
                    edges[y] = mask
                    stack[top] = y
                    top += 1


@njit(cache=True)
def apply_action(s, params, a):  # type: ignore[no-untyped-def]
    rows, cols = params[0], params[1]
    n = rows * cols
    stones = s[3 : 3 + n]
    edges = s[3 + n : 3 + 2 * n]
    p = s[0]
    mark = p + 1
    r, c = a // cols, a % cols
    # The new stone's group: itself and every adjacent group of its colour.
    mask = _own_edges(p, r, c, rows, cols)
    for d in range(6):
        rr, cc = r + _DR[d], c + _DC[d]
        if 0 <= rr < rows and 0 <= cc < cols and stones[rr * cols + cc] == mark:
            mask |= edges[rr * cols + cc]
    stones[a] = mark
    edges[a] = mask
    s[2] += 1
    # Joined groups whose mask grew take the new one (only then a flood fill).
    for d in range(6):
        rr, cc = r + _DR[d], c + _DC[d]
        y = rr * cols + cc
        if 0 <= rr < rows and 0 <= cc < cols and stones[y] == mark and edges[y] != mask:
            _spread(stones, edges, rows, cols, y, mark, mask)
    if mask == 3:
        s[1] = p
        s[0] = TERMINAL
    else:
        # No draws: a full board always holds a connection (the Hex theorem).
        s[0] = 1 - p


@njit(cache=True)
def returns(s, params, out):  # type: ignore[no-untyped-def]
    out[0] = 0.0
    out[1] = 0.0
    if s[1] >= 0:
        out[s[1]] = 1.0
        out[1 - s[1]] = -1.0


@njit(cache=True)
def _distance(s, params, p):  # type: ignore[no-untyped-def]
    """How many more stones player ``p`` needs to join their edges (shortest path
    where an own stone costs 0, an empty cell 1 and an enemy stone blocks)."""
    rows, cols = params[0], params[1]
    n = rows * cols
    mark = p + 1
    dist = np.full(n, _FAR, dtype=np.int64)
    for x in range(n):
        if s[3 + x] != 0 and s[3 + x] != mark:
            continue
        if _own_edges(p, x // cols, x % cols, rows, cols) & 1:
            dist[x] = 0 if s[3 + x] == mark else 1
    changed = True
    while changed:  # Bellman-Ford sweeps: a few on a small board
        changed = False
        for x in range(n):
            if s[3 + x] != 0 and s[3 + x] != mark:
                continue
            cost = 0 if s[3 + x] == mark else 1
            xr, xc = x // cols, x % cols
            for d in range(6):
                rr, cc = xr + _DR[d], xc + _DC[d]
                if 0 <= rr < rows and 0 <= cc < cols:
                    via = dist[rr * cols + cc] + cost
                    if via < dist[x]:
                        dist[x] = via
                        changed = True
    best = _FAR
    for x in range(n):
        if _own_edges(p, x // cols, x % cols, rows, cols) & 2 and dist[x] < best:
            best = dist[x]
    return best


@njit(cache=True)
def heuristic(s, params, out):  # type: ignore[no-untyped-def]
    """The classic Hex evaluation: who is fewer stones away from connecting."""
    d0 = _distance(s, params, 0)
    d1 = _distance(s, params, 1)
    v = (d1 - d0) / (d0 + d1) if d0 + d1 > 0 else 0.0
    out[0] = v
    out[1] = -v


@njit(cache=True, nogil=True)
def search_chunk(tree, root, params, ci, cf, ctl, rng, bufs, fbufs, path, cap, n):  # type: ignore[no-untyped-def]
    """The compiled engine on these kernels, cached on disk (see ``mctslab.search.compiled``);
    ``nogil=True`` lets searches in several threads (root parallelism, the web lab) run at once.

    A game with its own random playout kernel (``RuleKernels.playout``, optional: see
    :mod:`mctslab.games.kernels`) passes it last: ``..., cap, n, playout)``."""
    return run_chunk(
        legal_actions, apply_action, returns, heuristic,
        tree, root, params, ci, cf, ctl, rng, bufs, fbufs, path, cap, n,
    )  # fmt: skip


class Hex(KernelGame):
    """Hex on ``rows`` x ``columns`` cells (OpenSpiel ``hex``, no swap rule)."""

    kernels = RuleKernels(init, legal_actions, apply_action, returns, heuristic, search_chunk)

    def __init__(self, rows: int = 5, columns: int | None = None) -> None:
        if columns is None:
            columns = rows
        for name, value in (("rows", rows), ("columns", columns)):
            if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= MAX_SIZE:
                raise InvalidConfigError(
                    f"hex: {name} must be an integer in [1, {MAX_SIZE}], got {value!r}"
                )
        self.rows, self.columns = rows, columns
        cells = rows * columns
        info = GameInfo(
            name="hex",
            version=1,
            num_players=2,
            num_actions=cells,
            max_game_length=cells,
            zero_sum=True,
            min_utility=-1.0,
            max_utility=1.0,
        )
        super().__init__(info, np.array([rows, columns], dtype=np.int64))

    def action_name(self, state: KernelState, action: int) -> str:
        row, column = divmod(action, self.columns)
        return f"{LETTERS[column]}{row + 1}"

    def parse_action(self, state: KernelState, text: str) -> int | None:
        t = text.strip().lower()
        if len(t) >= 2 and t[0] in LETTERS and t[1:].isascii() and t[1:].isdigit():
            column, row = LETTERS.index(t[0]), int(t[1:]) - 1
            if column < self.columns and 0 <= row < self.rows:
                return row * self.columns + column
            return None
        return super().parse_action(state, text)

    def render(self, state: KernelState) -> str:
        """The rhombus, each row shifted half a cell right of the one above."""
        marks = ".xo"
        cells = state.array[3 : 3 + self.rows * self.columns]
        lines = ["    " + " ".join(LETTERS[: self.columns]) + "    (x: top-bottom, o: left-right)"]
        for r in range(self.rows):
            row = " ".join(marks[int(v)] for v in cells[r * self.columns : (r + 1) * self.columns])
            lines.append(f"{' ' * r}{r + 1:>2}  {row}")
        return "\n".join(lines)


def _register() -> None:
    # Importing this file twice (say, by path and by name) must not register twice.
    if "hex" not in mctslab.available_games():
        mctslab.register("hex", Hex)


_register()


def main() -> None:
    game = Hex(5)
    t0 = time.perf_counter()
    checked = check_game(game, n_games=200, seed=0)
    seconds = time.perf_counter() - t0
    print(f"check_game: {checked} states of 200 random games conform ({seconds:.1f} s)")

    state = game.state_from_actions([12])  # x takes the centre
    print(f"\n{state}\n\no to move; both engines search 5,000 iterations from seed 1.")
    config = SearchConfig(iterations=5_000, seed=1)
    compiled = mctslab.CompiledMCTS(config).search(state)
    reference = MCTS(config).search(state)
    print("        compiled           reference")
    print("  move  visits  value      visits  value")
    rows = sorted(
        zip(compiled.children, reference.children, strict=True), key=lambda x: -x[0].visits
    )
    for ours, theirs in rows[:6]:
        print(
            f"  {state.action_to_string(ours.action):>4}  {ours.visits:6}  {ours.value:+.4f}"
            f"    {theirs.visits:6}  {theirs.value:+.4f}"
        )
    same = compiled.children == reference.children and compiled.action == reference.action
    print(f"  all {len(compiled.children)} root children identical: {same}")
    print(
        f"  reference engine {reference.sims_per_s:,.0f} sims/s, compiled engine"
        f" {compiled.sims_per_s:,.0f} sims/s (compiled or loaded from the cache in"
        f" {compiled.compile_seconds:.2f} s)"
    )

    empty = game.new_initial_state()
    timed = mctslab.search(empty, SearchConfig(iterations=None, time=2.0), engine="compiled")
    print(
        f"\ncompiled engine, 2 s from the empty board: {timed.iterations:,} iterations,"
        f" {timed.sims_per_s:,.0f} sims/s; it plays {empty.action_to_string(timed.action)}"
    )

    small = mctslab.make("hex", rows=4).new_initial_state()
    print(f"\nmctslab.make('hex', rows=4) works once this module is imported:\n{small}")
    if not same:
        raise SystemExit("the engines disagree")


if __name__ == "__main__":
    main()
