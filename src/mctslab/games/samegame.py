"""SameGame (Clickomania, Jawbreaker), the single-player puzzle of SP-MCTS, as rule kernels.

Rules (the standard of Schadd, Winands, van den Herik, Chaslot and Uiterwijk,
"Single-Player Monte-Carlo Tree Search", Computers and Games 2008, and of its test
set): a board of ``rows`` x ``columns`` cells (15 x 15) filled with blocks of
``colors`` colours (5). A move removes a *group*, two or more orthogonally connected
blocks of one colour; the blocks above the gap fall down, and a column left empty is
closed up by moving the columns to its right one place left. Removing ``n`` blocks
scores ``(n - 2)**2``; the move that clears the board scores 1,000 more. The game ends
when no group of two or more is left; the blocks then left cost nothing. With
``penalty=True`` (the rule of some other versions) they do: at the end each colour
with ``r >= 1`` blocks left subtracts ``(r - 2)**2`` (so a colour with one block or
three left costs 1, with two left nothing: the formula as those versions write it).

Single player: ``state[0]`` is 0 (player 0 to move) while a group of two or more is
on the board, :data:`~mctslab.core.game.TERMINAL` when none is; ``returns`` writes the
score so far to ``out[0]`` (the final score at the end, penalty included), to be
maximised. :class:`GameInfo` bounds it by ``max_utility = (rows * columns - 2)**2 +
1000`` (removing the whole board in one group; a sum of ``(n_i - 2)**2`` with every
``n_i >= 2`` never exceeds ``(sum n_i - 2)**2``) and ``min_utility = 0``, or minus the
largest penalty any board of that size and number of colours could have with
``penalty=True`` (:func:`penalty_bound`). Both depend on the size and colours only, so
that every board of a size shares one :class:`GameInfo`.

Boards: ``seed`` draws one, each cell's colour uniform in ``1..colors`` from
``numpy.random.default_rng(seed)`` (``integers(1, colors + 1, (rows, columns))``, array
row ``r`` being board row ``r`` from the bottom); ``board`` gives one as text instead
(:func:`parse_board`): one line per row, top row first, a digit ``1..colors`` per
block and ``.`` per empty cell (spaces ignored), as :meth:`SameGame.board_text`
writes it; its blocks must lie on the bottom of their columns and its empty columns on
the right, as the rules leave them.

State layout (``int64``), with ``R`` rows, ``C`` columns and ``N = R * C`` cells:
``[status, score, moves, blocks_left, cell_0 .. cell_{N-1}]``; cell ``r * C + c`` (row
``r`` from the bottom, column ``c`` from the left) at ``4 + r * C + c``, holding 0
(empty) or a colour ``1..colors``. ``score`` is the points of the moves played, the
clearing bonus included, the penalty not. ``params = [R, C, colors, penalty,
min_utility, max_utility, cell_0 .. cell_{N-1} of the initial board]``.

Actions: a move is named by one cell of its group, the group's lowest cell index
(bottom row first, then leftmost), so that each group has exactly one action id;
``num_actions = N``, the legal actions come out ascending. Action names are
``c3 (red, 5 blocks)``: the cell's column letter and row number from the bottom, then
the group's colour and size. :meth:`SameGame.parse_action` reads that name, the bare
cell ``c3`` (of any block of the group: it answers with the group's action) and the
action id.

Move codes (the ``move_code`` kernel, what NRPA learns a weight for): the action names
a cell, and the cells shift with every move, so a weight per cell would learn little.
The code is the group's colour, its size in 12 buckets (2, 3, ... 9, then 10-14,
15-19, 20-29, 30 and more) and whether it holds every block of its colour left (its
removal ends that colour for good, what the tabu playout waits for): ``((colour - 1) *
2 + whole) * 12 + bucket``, ``colors * 24`` codes (:meth:`SameGame.num_move_codes`).

Heuristic: the score so far plus the points of every group on the board as it stands,
``sum (n - 2)**2`` over its groups of two or more (what removing them one by one would
score if no removal joined or split another: it does, so this is an estimate, not a
bound), mapped linearly from ``[min_utility, max_utility]`` onto ``[-1, 1]`` as the
search maps the returns, so that a cut-off playout and a finished one score alike.

Heavy playout (the ``heavy_action`` kernel): TabuColorRandom, the simulation strategy
of the SP-MCTS paper. The colour with the most blocks on the board is *tabu* (the
lowest colour on a tie): a move of the tabu colour is played only when its group holds
every block of that colour left (it has grown into one big group) or no move of
another colour is left. Among the allowed moves one is drawn uniformly, ``k =
rng_randint(rng, n)`` over them in ascending order. The paper fixes the tabu colour at
the start of a playout; the kernel has no memory between moves, so it recounts the
colours at each move. Until a move of the tabu colour is played the recount finds the
colour of the playout's start (only the other colours shrink, and ties go to the same
colour); after one, the kernel makes the colour then most frequent tabu.

Its own random ``playout`` (the kernel contract's optional sixth kernel) finds the
groups once a ply, removes the chosen one by its label and knows the end from the next
ply's count of groups, where the generic loop floods the group again and scans the
board for a move after each; it makes the generic loop's draws (``check_game``).
"""

from __future__ import annotations

import re

import numpy as np
import numpy.typing as npt
from numba import njit

from mctslab.core.declarations import Parameter
from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import TERMINAL, GameInfo
from mctslab.core.text import ascii_int
from mctslab.games.kernels import KernelGame, KernelState, RuleKernels, rng_randint

__all__ = ["COLOR_NAMES", "SameGame", "parse_board", "penalty_bound"]

IntArray = npt.NDArray[np.int64]

#: The points for clearing the board.
CLEAR_BONUS = 1000
#: Colour ``i`` (``1..9``) is ``COLOR_NAMES[i - 1]`` in action names and drawings.
COLOR_NAMES = ("red", "green", "blue", "yellow", "purple", "orange", "cyan", "pink", "grey")
_SVG_FILLS = (
    "#d62728",
    "#2ca02c",
    "#1f77b4",
    "#f2c12e",
    "#9467bd",
    "#ff7f0e",
    "#17becf",
    "#e377c2",
    "#7f7f7f",
)
MAX_SIZE = 26  # columns are named by one letter
MAX_COLORS = len(COLOR_NAMES)  # one digit a block in the board's text
#: Group sizes 2..9 have a bucket each, then 10-14, 15-19, 20-29 and 30 up: move codes.
SIZE_BUCKETS = 12

# State and params layout (module docstring).
S_STATUS, S_SCORE, S_MOVES, S_BLOCKS, S_CELLS = 0, 1, 2, 3, 4
P_ROWS, P_COLS, P_COLORS, P_PENALTY, P_MIN, P_MAX, P_BOARD = 0, 1, 2, 3, 4, 5, 6


@njit(cache=True)
def _find_groups(s, params, rep, size):  # type: ignore[no-untyped-def]
    """Label every block with its group: ``rep[i]`` the group's lowest cell index (-1
    for an empty cell) and ``size[rep]`` the group's size. The scan goes up the cell
    indices, so the first cell met of a group is its lowest; each group is then
    flooded breadth first."""
    rows, cols = params[P_ROWS], params[P_COLS]
    n = rows * cols
    for i in range(n):
        rep[i] = -1
    queue = np.empty(n, dtype=np.int64)
    for i in range(n):
        colour = s[S_CELLS + i]
        if colour == 0 or rep[i] >= 0:
            continue
        rep[i] = i
        queue[0] = i
        head, tail = 0, 1
        while head < tail:
            j = queue[head]
            head += 1
            c = j % cols
            # the four neighbours: left, right, below, above
            for d in range(4):
                if d == 0:
                    k = j - 1 if c > 0 else -1
                elif d == 1:
                    k = j + 1 if c + 1 < cols else -1
                elif d == 2:
                    k = j - cols
                else:
                    k = j + cols if j + cols < n else -1
                if k >= 0 and rep[k] < 0 and s[S_CELLS + k] == colour:
                    rep[k] = i
                    queue[tail] = k
                    tail += 1
        size[i] = tail


@njit(cache=True)
def _group(s, params, start, members):  # type: ignore[no-untyped-def]
    """The cells of the group of the block at ``start``, written to ``members[:n]`` in
    breadth-first order (``start`` first); returns ``n`` (0 for an empty cell)."""
    rows, cols = params[P_ROWS], params[P_COLS]
    n = rows * cols
    colour = s[S_CELLS + start]
    if colour == 0:
        return 0
    seen = np.zeros(n, dtype=np.bool_)
    seen[start] = True
    members[0] = start
    head, tail = 0, 1
    while head < tail:
        j = members[head]
        head += 1
        c = j % cols
        for d in range(4):
            if d == 0:
                k = j - 1 if c > 0 else -1
            elif d == 1:
                k = j + 1 if c + 1 < cols else -1
            elif d == 2:
                k = j - cols
            else:
                k = j + cols if j + cols < n else -1
            if k >= 0 and not seen[k] and s[S_CELLS + k] == colour:
                seen[k] = True
                members[tail] = k
                tail += 1
    return tail


@njit(cache=True)
def group_info(s, params, cell):  # type: ignore[no-untyped-def]
    """``(lowest cell, size)`` of the group of the block at ``cell``; ``(cell, 0)`` for
    an empty cell. What action names and the parser read."""
    members = np.empty(params[P_ROWS] * params[P_COLS], dtype=np.int64)
    n = _group(s, params, cell, members)
    low = cell
    for i in range(n):
        low = min(low, members[i])
    return low, n


@njit(cache=True)
def _collapse(s, params):  # type: ignore[no-untyped-def]
    """Gravity, then the closing of empty columns, in one pass: column ``c``'s blocks,
    bottom up, are written to column ``dst`` (``dst <= c``: the columns left of ``c``
    that still hold blocks), and whatever they leave above them is cleared."""
    rows, cols = params[P_ROWS], params[P_COLS]
    dst = 0
    for c in range(cols):
        h = 0
        for r in range(rows):
            v = s[S_CELLS + r * cols + c]
            if v != 0:
                s[S_CELLS + h * cols + dst] = v
                h += 1
        for r in range(h, rows):
            s[S_CELLS + r * cols + dst] = 0
        if dst != c:
            for r in range(rows):
                s[S_CELLS + r * cols + c] = 0
        if h > 0:
            dst += 1


@njit(cache=True)
def _has_move(s, params):  # type: ignore[no-untyped-def]
    """Whether two orthogonally adjacent blocks share a colour (a group of two or more)."""
    rows, cols = params[P_ROWS], params[P_COLS]
    for r in range(rows):
        for c in range(cols):
            v = s[S_CELLS + r * cols + c]
            if v == 0:
                continue
            if c + 1 < cols and s[S_CELLS + r * cols + c + 1] == v:
                return True
            if r + 1 < rows and s[S_CELLS + (r + 1) * cols + c] == v:
                return True
    return False


@njit(cache=True)
def init(params):  # type: ignore[no-untyped-def]
    n = params[P_ROWS] * params[P_COLS]
    s = np.zeros(S_CELLS + n, dtype=np.int64)
    blocks = 0
    for i in range(n):
        s[S_CELLS + i] = params[P_BOARD + i]
        blocks += params[P_BOARD + i] != 0
    s[S_BLOCKS] = blocks
    s[S_STATUS] = 0 if _has_move(s, params) else TERMINAL
    return s


@njit(cache=True)
def legal_actions(s, params, out):  # type: ignore[no-untyped-def]
    """The lowest cell of every group of two or more blocks, ascending."""
    if s[S_STATUS] == TERMINAL:
        return 0
    n = params[P_ROWS] * params[P_COLS]
    rep = np.empty(n, dtype=np.int64)
    size = np.empty(n, dtype=np.int64)
    _find_groups(s, params, rep, size)
    k = 0
    for i in range(n):
        if rep[i] == i and size[i] >= 2:
            out[k] = i
            k += 1
    return k


@njit(cache=True)
def _after_removal(s, params, removed):  # type: ignore[no-untyped-def]
    """The score, counts and collapse of a move that emptied ``removed`` cells (the
    end of the game is the caller's: a scan, or the next ply's groups)."""
    s[S_SCORE] += (removed - 2) * (removed - 2)
    s[S_MOVES] += 1
    s[S_BLOCKS] -= removed
    _collapse(s, params)
    if s[S_BLOCKS] == 0:
        s[S_SCORE] += CLEAR_BONUS
        s[S_STATUS] = TERMINAL


@njit(cache=True)
def apply_action(s, params, a):  # type: ignore[no-untyped-def]
    members = np.empty(params[P_ROWS] * params[P_COLS], dtype=np.int64)
    removed = _group(s, params, a, members)
    for i in range(removed):
        s[S_CELLS + members[i]] = 0
    _after_removal(s, params, removed)
    if s[S_STATUS] != TERMINAL and not _has_move(s, params):
        s[S_STATUS] = TERMINAL


@njit(cache=True)
def _color_counts(s, params, counts):  # type: ignore[no-untyped-def]
    """``counts[colour]``: the blocks of each colour on the board (``counts[0]`` unused)."""
    for k in range(counts.shape[0]):
        counts[k] = 0
    for i in range(params[P_ROWS] * params[P_COLS]):
        counts[s[S_CELLS + i]] += 1


@njit(cache=True)
def _final_score(s, params):  # type: ignore[no-untyped-def]
    """The score, less the penalty for the blocks left when the game is over with it."""
    score = s[S_SCORE]
    if params[P_PENALTY] and s[S_STATUS] == TERMINAL:
        counts = np.empty(params[P_COLORS] + 1, dtype=np.int64)
        _color_counts(s, params, counts)
        for colour in range(1, params[P_COLORS] + 1):
            r = counts[colour]
            if r > 0:
                score -= (r - 2) * (r - 2)
    return score


@njit(cache=True)
def returns(s, params, out):  # type: ignore[no-untyped-def]
    """The score so far, the final score (penalty included) once the game is over."""
    out[0] = float(_final_score(s, params))


@njit(cache=True)
def heuristic(s, params, out):  # type: ignore[no-untyped-def]
    """The score so far plus ``(n - 2)**2`` for every group on the board, mapped from
    ``[min_utility, max_utility]`` onto ``[-1, 1]`` (the module docstring says why)."""
    estimate = _final_score(s, params)
    if s[S_STATUS] != TERMINAL:
        n = params[P_ROWS] * params[P_COLS]
        rep = np.empty(n, dtype=np.int64)
        size = np.empty(n, dtype=np.int64)
        _find_groups(s, params, rep, size)
        for i in range(n):
            if rep[i] == i and size[i] >= 2:
                estimate += (size[i] - 2) * (size[i] - 2)
    lo, hi = params[P_MIN], params[P_MAX]
    v = 2.0 * (estimate - lo) / (hi - lo) - 1.0
    out[0] = min(1.0, max(-1.0, v))


@njit(cache=True)
def playout(s, params, rng, out):  # type: ignore[no-untyped-def]
    """Uniformly random moves to the end, in place, drawing as the generic loop: the
    ``k``-th group in ascending order of action, ``k = rng_randint(rng, n)``. Returns
    the plies played; writes the returns to ``out``."""
    n = params[P_ROWS] * params[P_COLS]
    rep = np.empty(n, dtype=np.int64)
    size = np.empty(n, dtype=np.int64)
    moves = np.empty(n, dtype=np.int64)
    plies = 0
    while s[S_STATUS] != TERMINAL:
        _find_groups(s, params, rep, size)
        k = 0
        for i in range(n):
            if rep[i] == i and size[i] >= 2:
                moves[k] = i
                k += 1
        if k == 0:  # the last move left no group: found here instead of by a scan
            s[S_STATUS] = TERMINAL
            break
        a = moves[rng_randint(rng, k)]
        for i in range(n):
            if rep[i] == a:
                s[S_CELLS + i] = 0
        _after_removal(s, params, size[a])
        plies += 1
    returns(s, params, out)
    return plies


@njit(cache=True)
def heavy_action(s, params, rng, buf):  # type: ignore[no-untyped-def]
    """One move of TabuColorRandom (module docstring): uniformly among the groups not
    of the most frequent colour, and that colour's group if it holds all its blocks;
    among all groups if that leaves none. ``-1`` at the end (never called there)."""
    n = params[P_ROWS] * params[P_COLS]
    rep = np.empty(n, dtype=np.int64)
    size = np.empty(n, dtype=np.int64)
    _find_groups(s, params, rep, size)
    counts = np.empty(params[P_COLORS] + 1, dtype=np.int64)
    _color_counts(s, params, counts)
    tabu = 1
    for colour in range(2, params[P_COLORS] + 1):
        if counts[colour] > counts[tabu]:
            tabu = colour
    k = 0
    for i in range(n):
        allowed = s[S_CELLS + i] != tabu or size[i] == counts[tabu]
        if rep[i] == i and size[i] >= 2 and allowed:
            buf[k] = i
            k += 1
    if k == 0:  # only tabu moves: any of them
        for i in range(n):
            if rep[i] == i and size[i] >= 2:
                buf[k] = i
                k += 1
    if k == 0:
        return -1
    return buf[rng_randint(rng, k)]


@njit(cache=True)
def _size_bucket(size):  # type: ignore[no-untyped-def]
    """The move code's size bucket: 2..9 one each (0..7), 10-14, 15-19, 20-29, 30 up."""
    if size < 10:
        return max(size, 2) - 2
    if size < 15:
        return 8
    if size < 20:
        return 9
    if size < 30:
        return 10
    return 11


@njit(cache=True)
def move_code(s, params, a):  # type: ignore[no-untyped-def]
    """``((colour - 1) * 2 + whole) * 12 + bucket`` for the group of legal action ``a``
    (module docstring)."""
    members = np.empty(params[P_ROWS] * params[P_COLS], dtype=np.int64)
    size = _group(s, params, a, members)
    colour = max(s[S_CELLS + a], 1)
    left = 0
    for i in range(params[P_ROWS] * params[P_COLS]):
        left += s[S_CELLS + i] == colour
    whole = 1 if size == left else 0
    return ((colour - 1) * 2 + whole) * SIZE_BUCKETS + _size_bucket(size)


def penalty_bound(cells: int, colors: int) -> int:
    """The largest penalty a board of ``cells`` cells and ``colors`` colours can cost:
    the most ``sum (r_c - 2)**2`` over the colours with ``r_c >= 1`` blocks left, ``sum
    r_c <= cells``. With ``m`` colours left the sum is convex over ``r_c >= 1``, so it
    is largest at a corner: one block each, or one colour holding all but ``m - 1``."""
    best = 0
    for m in range(1, min(colors, cells) + 1):
        best = max(best, m, (cells - m - 1) ** 2 + m - 1)
    return best


def parse_board(text: str, colors: int = MAX_COLORS) -> npt.NDArray[np.int64]:
    """The board written in ``text`` as an ``(rows, columns)`` array, row 0 at the
    **bottom**: one line per row, top row first, a digit ``1..colors`` per block, ``.``
    per empty cell; spaces and blank lines are ignored. Raises
    :class:`~mctslab.core.errors.InvalidConfigError` for another character, rows of
    unequal length, a block above an empty cell, an empty column left of a column with
    blocks, or a board without blocks."""
    lines = [line.replace(" ", "").replace("\t", "") for line in text.splitlines()]
    lines = [line for line in lines if line]
    if not lines:
        raise InvalidConfigError("samegame: the board is empty: give one line per row")
    width = len(lines[0])
    if any(len(line) != width for line in lines):
        raise InvalidConfigError(
            f"samegame: the board's rows differ in length: {[len(x) for x in lines]}"
        )
    if not 1 <= len(lines) <= MAX_SIZE or not 1 <= width <= MAX_SIZE:
        raise InvalidConfigError(
            f"samegame: the board is {len(lines)} x {width}; rows and columns must be "
            f"in [1, {MAX_SIZE}]"
        )
    allowed = "." + "".join(str(k) for k in range(1, colors + 1))
    grid = np.zeros((len(lines), width), dtype=np.int64)
    for i, line in enumerate(lines):
        for c, ch in enumerate(line):
            if ch not in allowed:
                raise InvalidConfigError(
                    f"samegame: {ch!r} in row {i + 1} of the board (from the top): "
                    f"a cell is a colour 1..{colors} or '.'"
                )
            grid[len(lines) - 1 - i, c] = 0 if ch == "." else int(ch)
    filled = grid != 0
    for c in range(width):
        column = filled[:, c]
        height = int(column.sum())
        if not column[:height].all():
            raise InvalidConfigError(
                f"samegame: column {_letter(c)} has a block above an empty cell "
                "(blocks fall: write them at the bottom)"
            )
    heights = filled.sum(axis=0)
    empty = np.flatnonzero(heights == 0)
    if empty.size and heights[empty[0] :].any():
        raise InvalidConfigError(
            f"samegame: column {_letter(int(empty[0]))} is empty but a column right of it "
            "is not (empty columns close up to the left)"
        )
    if not filled.any():
        raise InvalidConfigError("samegame: the board has no blocks")
    return grid


def _letter(column: int) -> str:
    return chr(ord("a") + column)


def _check_int(name: str, value: object, lo: int, hi: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise InvalidConfigError(f"samegame: {name} must be an integer in [{lo}, {hi}]")
    return value


# The name of an action as action_name writes it: a cell, then the group in brackets.
_NAME = re.compile(r"^([a-z])([0-9]+)(?:\s*(\(.*\)))?$")


class SameGame(KernelGame):
    """SameGame on ``rows`` x ``columns`` with ``colors`` colours (see the module docstring).

    ``rows`` and ``columns`` (1 to 26, default 15) are the board's size; ``colors`` (1 to
    9, default 5) bounds the colours. The board is drawn from ``seed`` (default 0;
    ``None`` reads as 0), or given as text in ``board`` (:func:`parse_board`): then the
    size is the text's (``rows`` and ``columns``, if given, must agree), the seed is
    ignored (recorded as ``None``) and every digit must be at most ``colors``.
    ``penalty=True`` charges the blocks left at the end. Bad values raise
    :class:`~mctslab.core.errors.InvalidConfigError`."""

    kernels = RuleKernels(
        init,
        legal_actions,
        apply_action,
        returns,
        heuristic,
        playout=playout,
        heavy_action=heavy_action,
        move_code=move_code,
    )

    @classmethod
    def parameter_schema(cls) -> tuple[Parameter, ...]:
        """What a form offers (the web lab's Optimize tab, ``mctslab games``): a board
        drawn from a seed, its size and colours; a board given as text is the command
        line's (``--param board=...``)."""
        return (
            Parameter("seed", 0, "the board's random colours", minimum=0, maximum=2**31 - 1),
            Parameter("rows", 15, "rows", minimum=1, maximum=MAX_SIZE),
            Parameter("columns", 15, "columns", minimum=1, maximum=MAX_SIZE),
            Parameter("colors", 5, "colours", minimum=1, maximum=MAX_COLORS),
        )

    def __init__(
        self,
        rows: int | None = None,
        columns: int | None = None,
        colors: int = 5,
        seed: int | None = 0,
        board: str | None = None,
        penalty: bool = False,
    ) -> None:
        colors = _check_int("colors", colors, 1, MAX_COLORS)
        if not isinstance(penalty, bool):
            raise InvalidConfigError("samegame: penalty must be True or False")
        if board is not None:
            if not isinstance(board, str):
                raise InvalidConfigError("samegame: board must be text, one line per row")
            grid = parse_board(board, colors)
            for name, given, size in (
                ("rows", rows, grid.shape[0]),
                ("columns", columns, grid.shape[1]),
            ):
                if given is not None and given != size:
                    raise InvalidConfigError(
                        f"samegame: {name}={given} but the board has {size} {name}"
                    )
            seed = None  # the board fixes the game: no seed to record
        else:
            rows = _check_int("rows", 15 if rows is None else rows, 1, MAX_SIZE)
            columns = _check_int("columns", 15 if columns is None else columns, 1, MAX_SIZE)
            seed = _check_int("seed", 0 if seed is None else seed, 0, 2**63 - 1)
            grid = np.random.default_rng(seed).integers(1, colors + 1, size=(rows, columns))
        self.rows, self.columns = int(grid.shape[0]), int(grid.shape[1])
        self.colors, self.seed, self.penalty = colors, seed, penalty
        cells = self.rows * self.columns
        max_utility = (cells - 2) ** 2 + CLEAR_BONUS
        min_utility = -penalty_bound(cells, colors) if penalty else 0
        info = GameInfo(
            name="samegame",
            version=1,
            num_players=1,
            num_actions=cells,
            max_game_length=cells // 2,  # a move removes two blocks or more
            zero_sum=False,
            min_utility=float(min_utility),
            max_utility=float(max_utility),
        )
        head = [self.rows, self.columns, colors, int(penalty), min_utility, max_utility]
        params = np.array(head + grid.astype(np.int64).ravel().tolist(), dtype=np.int64)
        super().__init__(info, params)

    def num_move_codes(self) -> int:
        """Colour x whole-colour flag x 12 size buckets (module docstring)."""
        return self.colors * 2 * SIZE_BUCKETS

    # Reading the board.
    def cell(self, state: KernelState, row: int, column: int) -> int:
        """The colour at ``row`` (from the bottom) and ``column`` (from the left), 0 if empty."""
        return int(state.array[S_CELLS + row * self.columns + column])

    def score(self, state: KernelState) -> int:
        """The score so far (once the game is over, the final one, penalty included)."""
        return int(_final_score(state.array, self.params))

    def blocks_left(self, state: KernelState) -> int:
        return int(state.array[S_BLOCKS])

    def group(self, state: KernelState, action: int) -> tuple[int, int, int]:
        """``(lowest cell, colour, size)`` of the group of the block at cell ``action``
        (``(action, 0, 0)`` for an empty cell)."""
        low, size = group_info(state.array, self.params, action)
        return int(low), int(state.array[S_CELLS + action]), int(size)

    # Presentation.
    def _cell_name(self, cell: int) -> str:
        row, column = divmod(cell, self.columns)
        return f"{_letter(column)}{row + 1}"

    def _group_words(self, state: KernelState, cell: int) -> str:
        _, colour, size = self.group(state, cell)
        if size == 0:
            return "(empty)"
        blocks = "block" if size == 1 else "blocks"
        return f"({COLOR_NAMES[colour - 1]}, {size} {blocks})"

    def action_name(self, state: KernelState, action: int) -> str:
        """``c3 (red, 5 blocks)``: the cell, column letter and row from the bottom, then
        its group."""
        if not 0 <= action < self.info.num_actions:
            return str(action)
        return f"{self._cell_name(action)} {self._group_words(state, action)}"

    def parse_action(self, state: KernelState, text: str) -> int | None:
        """The action of a cell named ``c3`` (any block of the group: the group's action
        is its lowest cell), of a whole name as :meth:`action_name` writes it, or an
        action id; ``None`` for anything else."""
        text = text.strip()
        number = ascii_int(text)
        if number is not None:
            return number
        match = _NAME.match(text.lower()) if text.isascii() else None
        if match is None:
            return None
        column, row = ord(match.group(1)) - ord("a"), int(match.group(2)) - 1
        if not (0 <= column < self.columns and 0 <= row < self.rows):
            return None
        cell = row * self.columns + column
        words = match.group(3)
        if words is not None and words != self._group_words(state, cell):
            return None
        low, _, size = self.group(state, cell)
        return low if size else cell

    def board_text(self, state: KernelState) -> str:
        """The board as :func:`parse_board` reads it: top row first, ``.`` empty."""
        lines = []
        for r in reversed(range(self.rows)):
            row = state.array[S_CELLS + r * self.columns : S_CELLS + (r + 1) * self.columns]
            lines.append("".join("." if v == 0 else str(int(v)) for v in row))
        return "\n".join(lines)

    def render(self, state: KernelState) -> str:
        """The board (:meth:`board_text`), the column letters, then the score."""
        letters = "".join(_letter(c) for c in range(self.columns))
        over = ", game over" if state.is_terminal() else ""
        status = (
            f"score {self.score(state)}, {self.blocks_left(state)} blocks left, "
            f"{int(state.array[S_MOVES])} moves{over}"
        )
        return f"{self.board_text(state)}\n{letters}\n{status}"

    def to_svg(self, state: KernelState, cell_px: int = 24) -> str:
        """The board as an SVG image: a square a block in its colour, row 1 at the bottom."""
        width, height = self.columns * cell_px, self.rows * cell_px
        parts = [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}">',
            f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
        ]
        for r in range(self.rows):
            for c in range(self.columns):
                colour = self.cell(state, r, c)
                if colour:
                    x, y = c * cell_px, (self.rows - 1 - r) * cell_px
                    parts.append(
                        f'<rect x="{x + 1}" y="{y + 1}" width="{cell_px - 2}" '
                        f'height="{cell_px - 2}" rx="3" fill="{_SVG_FILLS[colour - 1]}">'
                        f"<title>{self._cell_name(r * self.columns + c)} "
                        f"{COLOR_NAMES[colour - 1]}</title></rect>"
                    )
        parts.append("</svg>")
        return "\n".join(parts)
