"""Bohnenspiel, the bean game of a classic MCTS course project, as its game server plays it.

A mancala game: 12 pits in a ring, indices 0-11 (the server's fields 1-12).
Pits 0-5 belong to player 0, who moves first, pits 6-11 to player 1; every pit
starts with 6 beans (72 in all), and each player has a store, initially empty.

- A move: take all beans from a non-empty pit of your own side and sow them one
  by one into the following pits in increasing index order, wrapping from 11 to
  0 (counter-clockwise as the board is drawn). Stores are never sown into. With
  12 or more beans the sowing passes the chosen pit, which receives a bean too.
- Capture: if the last pit sown now holds 2, 4 or 6 beans, the mover takes them
  into their store; then the pit before it is checked, and so on backwards, for
  as long as the pit holds 2, 4 or 6 beans and was sown in this move. Pits on
  both sides count. (With 11 or fewer beans the chain would stop at the emptied
  chosen pit anyway; with 12 or more every pit was sown.)
- End: after a move, if the player to move next has no beans on their side, the
  player who just moved adds every bean left on their own side to their store
  and the game ends. The larger store wins (+1/-1); 36-36 is a draw (0).

**One rule the server does not have: a ply limit.** The rules above allow
endless games: with one bean a side, say in pits 0 and 6, the two beans chase
each other round the ring, and the player who would lose by ending the game
(with a move that leaves the opponent's side empty) need never do so. Such end games occur in play: the reference AI, ``minimax:depth=4``, keeps
the beans circling when it is behind, since ending the game scores -1 and
circling only the store difference; on the course's server such a game never
ends. A search engine needs a bound on the length of a game (the compiled
engine sizes its descent path by ``max_game_length``), so after
:data:`MAX_PLIES` plies the game ends as Oware ends an endless cycle: each
player adds the beans on their own side to their store. Other games are far
shorter (the longest of 1,000,000 random games took 310 plies, the mean 62),
so the limit decides only the circling end games.

Action ids 0-11 are pit indices; action names are the server's field numbers
``"1"``-``"12"``. The heuristic is the store difference scaled to ``[-1, 1]``,
``(own - other) / 72``: the evaluation of the course's reference AI, a
depth-4 minimax (``minimax:depth=4``).

Utility: ``utility="win_loss"`` (the default, the server's result) gives +1/-1/0;
``utility="score"`` gives the final store difference, ``store_0 - store_1`` for
player 0 and its negative for player 1, in ``[-72, 72]`` (set-up positions with
more than 72 beans saturate there): a game with scores, on which MCTS maximizes
the margin and MCTS-Solver is refused (its proofs are wins, draws and losses).

State layout (``int64``): ``[player, winner, plies, store_0, store_1, pit_0 .. pit_11]``;
``winner`` -1 while undecided or drawn. ``params``: ``[utility]`` (0 win/loss, 1 score).

Observation (the ``observation`` kernel; OpenSpiel has no Bohnenspiel): 15 values from
the observer's side, the 12 pits in sowing order from their first pit, their store, the
other's store (beans over 72), then 1 if the observer is to move.

Its own random ``playout`` (the kernel contract's optional sixth kernel) keeps the
position in local words: each side's six pits as the bytes of one word, seen from
the mover (so one move is the same bit operations for either player), the non-empty
pits gathered into a 6-bit mask whose ``k``-th set bit is one table load, the sowing
as two table-given additions, the stores and the generator's state in locals. A
set-up position with more than 255 beans on the board plays the generic rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, get_args

import numpy as np
from numba import njit

from mctslab.core.declarations import Rendering
from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import TERMINAL, GameInfo
from mctslab.core.text import is_ascii_digits
from mctslab.games.kernels import (
    KernelGame,
    KernelState,
    RuleKernels,
    draw_top31,
    rng_randint,
    winner_returns,
)

__all__ = ["MAX_PLIES", "Bohnenspiel", "Utility"]

PITS = 12
BEANS = 6
TOTAL = PITS * BEANS
#: Plies after which the game ends with each player storing their own side's
#: beans (not a rule of the server: see the module docstring).
MAX_PLIES = 1000
_PLIES, _STORE, _PIT = 2, 3, 5  # offsets in the state array
#: What a finished game returns: +1/-1/0, or the store difference (params[0]: 0 or 1).
Utility = Literal["win_loss", "score"]
_UTILITIES: tuple[str, ...] = get_args(Utility)


@njit(cache=True)
def init(params):  # type: ignore[no-untyped-def]
    s = np.zeros(_PIT + PITS, dtype=np.int64)
    s[1] = -1
    for i in range(PITS):
        s[_PIT + i] = BEANS
    return s


@njit(cache=True)
def legal_actions(s, params, out):  # type: ignore[no-untyped-def]
    p = s[0]
    if p < 0:
        return 0
    n = 0
    for a in range(6 * p, 6 * p + 6):
        if s[_PIT + a] > 0:
            out[n] = a
            n += 1
    return n


@njit(cache=True)
def _side(s, p):  # type: ignore[no-untyped-def]
    """The beans on player ``p``'s side."""
    n = 0
    for i in range(6 * p, 6 * p + 6):
        n += s[_PIT + i]
    return n


@njit(cache=True)
def _store_side(s, p):  # type: ignore[no-untyped-def]
    """Player ``p`` adds the beans on their side to their store."""
    for i in range(6 * p, 6 * p + 6):
        s[_STORE + p] += s[_PIT + i]
        s[_PIT + i] = 0


@njit(cache=True)
def apply_action(s, params, a):  # type: ignore[no-untyped-def]
    p = s[0]
    beans = s[_PIT + a]
    s[_PIT + a] = 0
    pit = a
    for _ in range(beans):
        pit += 1
        if pit == PITS:
            pit = 0
        s[_PIT + pit] += 1
    # Capture backwards from the last pit sown, over pits sown in this move only:
    # the last ``beans`` pits reached, or all twelve when the sowing went round.
    sown = min(beans, PITS)
    k = 0
    while k < sown:
        v = s[_PIT + pit]
        if v != 2 and v != 4 and v != 6:
            break
        s[_STORE + p] += v
        s[_PIT + pit] = 0
        pit = pit - 1 if pit > 0 else PITS - 1
        k += 1
    s[_PLIES] += 1
    other = 1 - p
    if _side(s, other) == 0:
        _store_side(s, p)
    elif s[_PLIES] >= MAX_PLIES:
        _store_side(s, p)
        _store_side(s, other)
    else:
        s[0] = other
        return
    s[0] = TERMINAL
    if s[_STORE] > s[_STORE + 1]:
        s[1] = 0
    elif s[_STORE] < s[_STORE + 1]:
        s[1] = 1


@njit(cache=True)
def returns(s, params, out):  # type: ignore[no-untyped-def]
    """+1/-1/0 by the winner kept in ``s[1]``, or with ``params[0] == 1`` the store difference."""
    if params[0] == 1:
        v = min(TOTAL, max(-TOTAL, s[_STORE] - s[_STORE + 1]))
        out[0] = float(v)
        out[1] = float(-v)
    else:
        winner_returns(s, params, out)


# The playout's board: each side's six pits as the low six bytes of a word, from
# the mover's point of view (``mine``: the pits of the player to move, ``theirs``:
# the other's), so that one move is the same bit operations for either player.
_ONES = 0x010101010101  # one bean in each of the six pits of a side
_LOW7 = 0x7F7F7F7F7F7F
_HIGH = 0x808080808080
# x * _GATHER moves bit 8i of x to bit 35 + i, for i < 6 (and no two products collide).
_GATHER = (1 << 35) | (1 << 28) | (1 << 21) | (1 << 14) | (1 << 7) | 1


def _playout_tables() -> tuple[np.ndarray, ...]:
    """``kth[mask << 3 | j]``: the ``j``-th set bit of a 6-bit ``mask``;
    ``popcount[mask]``: its set bits; ``magic[n], shift[n]``: ``x // n == (x * magic[n])
    >> shift[n]`` for every ``x < 2**31`` (Granlund and Montgomery 1994: ``shift = 31 +
    ceil(log2 n)``, ``magic = ceil(2**shift / n) < 2**32``); ``sow_mine[a * 12 + r]``,
    ``sow_theirs[..]``: the beans that sowing ``r < 12`` beans from the mover's pit ``a``
    adds to each side's word, and ``last[..]``: the pit it ends on (0-5 the mover's)."""
    kth = np.zeros(64 << 3, dtype=np.int64)
    popcount = np.zeros(64, dtype=np.int64)
    for mask in range(64):
        for j, bit in enumerate(b for b in range(6) if mask >> b & 1):
            kth[mask << 3 | j] = bit
        popcount[mask] = bin(mask).count("1")
    magic = np.zeros(7, dtype=np.uint64)
    shift = np.zeros(7, dtype=np.uint64)
    for n in range(1, 7):
        s = 31 + (n - 1).bit_length()
        magic[n], shift[n] = ((1 << s) + n - 1) // n, s
    sow = np.zeros((2, 6 * PITS), dtype=np.int64)
    last = np.zeros(6 * PITS, dtype=np.int64)
    for a in range(6):
        for r in range(PITS):
            for i in range(1, r + 1):
                pit = (a + i) % PITS
                sow[pit // 6, a * PITS + r] += 1 << (8 * (pit % 6))
            last[a * PITS + r] = (a + r) % PITS
    return kth, popcount, magic, shift, sow[0].copy(), sow[1].copy(), last


_KTH, _POPCOUNT, _MAGIC, _SHIFT, _SOW_MINE, _SOW_THEIRS, _LAST = _playout_tables()


@njit(cache=True)
def _pack(s, first):  # type: ignore[no-untyped-def]
    """The six pits from ``first`` as the low six bytes of a word."""
    w = np.int64(0)
    for i in range(6):
        w |= s[_PIT + first + i] << (8 * i)
    return w


@njit(cache=True)
def playout(s, params, rng, out):  # type: ignore[no-untyped-def]
    """Uniformly random moves to the end, in place, drawing as the generic loop: at
    each ply the ``k``-th non-empty pit of the mover's side, ``k = rng_randint(rng, n)``.
    Returns the plies played; writes the returns to ``out``."""
    plies = 0
    board = 0
    for i in range(PITS):
        board += s[_PIT + i]
    if s[0] != TERMINAL and board > 255:  # a set-up position too full for bytes
        legal = np.empty(6, dtype=np.int64)
        while s[0] != TERMINAL:
            apply_action(s, params, legal[rng_randint(rng, legal_actions(s, params, legal))])
            plies += 1
    elif s[0] != TERMINAL:
        # Why locals: the state array and the generator are memory the compiler must
        # assume may alias; words in registers cost nothing a ply. No pit ever holds
        # more than the board's beans, at most 255: a byte never carries into the next.
        p = s[0]
        mine, theirs = _pack(s, 6 * p), _pack(s, 6 - 6 * p)
        store_mine, store_theirs = s[_STORE + p], s[_STORE + 1 - p]
        done = s[_PLIES]
        seed = rng[0]
        while True:
            # The mover's non-empty pits: each byte's top bit set iff the byte is not 0,
            # then the six top bits gathered into a 6-bit mask by one multiplication.
            full = (((mine & _LOW7) + _LOW7) | mine) & _HIGH
            mask = ((full >> 7) * _GATHER >> 35) & 63
            n = _POPCOUNT[mask]
            # rng_randint on the local state, its remainder modulo n by a multiplication.
            seed, x31 = draw_top31(seed)
            j = np.int64(x31 - ((x31 * _MAGIC[n]) >> _SHIFT[n]) * np.uint64(n))
            a = _KTH[mask << 3 | j]
            beans = (mine >> (8 * a)) & 255
            mine ^= beans << (8 * a)
            rest = beans
            if beans >= PITS:  # a bean to every pit per whole round, the chosen one too
                rounds = beans // PITS
                rest = beans - rounds * PITS
                mine += rounds * _ONES
                theirs += rounds * _ONES
            at = a * PITS + rest
            mine += _SOW_MINE[at]
            theirs += _SOW_THEIRS[at]
            # Capture backwards from the last pit sown while it holds 2, 4 or 6 beans,
            # over the pits sown in this move only.
            pit = _LAST[at]
            for _ in range(min(beans, PITS)):
                if pit < 6:
                    v = (mine >> (8 * pit)) & 255
                    if v != 2 and v != 4 and v != 6:
                        break
                    mine ^= v << (8 * pit)
                else:
                    v = (theirs >> (8 * (pit - 6))) & 255
                    if v != 2 and v != 4 and v != 6:
                        break
                    theirs ^= v << (8 * (pit - 6))
                store_mine += v
                pit = pit - 1 if pit > 0 else PITS - 1
            done += 1
            plies += 1
            if theirs == 0 or done >= MAX_PLIES:
                # The end: the mover stores their side (and at the ply limit the other too;
                # when the other side is empty, storing it adds nothing).
                store_mine += (mine * _ONES >> 40) & 255
                store_theirs += (theirs * _ONES >> 40) & 255
                mine = theirs = 0
                break
            mine, theirs, p = theirs, mine, 1 - p
            store_mine, store_theirs = store_theirs, store_mine
        for i in range(6):
            s[_PIT + 6 * p + i] = (mine >> (8 * i)) & 255
            s[_PIT + 6 - 6 * p + i] = (theirs >> (8 * i)) & 255
        s[_STORE + p], s[_STORE + 1 - p] = store_mine, store_theirs
        s[0], s[_PLIES] = TERMINAL, done
        rng[0] = seed
        if s[_STORE] > s[_STORE + 1]:  # a draw leaves s[1] as it was, as apply_action does
            s[1] = 0
        elif s[_STORE] < s[_STORE + 1]:
            s[1] = 1
    returns(s, params, out)
    return plies


@njit(cache=True)
def heuristic(s, params, out):  # type: ignore[no-untyped-def]
    """The store difference over the 72 beans (the course's reference evaluation)."""
    v = (s[_STORE] - s[_STORE + 1]) / TOTAL
    v = min(1.0, max(-1.0, v))  # set-up positions may hold more beans than 72
    out[0] = v
    out[1] = -v


#: The observation's length: 12 pits, 2 stores, whether the observer is to move.
_OBSERVATION_SIZE = PITS + 3


@njit(cache=True)
def observation(s, params, player, out):  # type: ignore[no-untyped-def]
    """What ``player`` sees, from their side of the board (OpenSpiel has no Bohnenspiel):
    15 values, the 12 pits in sowing order starting at the player's first pit (their own
    six, then the other's six), the player's store, the other's store, all as beans over
    72 (more than 1 only in set-up positions with more beans), then 1 if ``player`` is to
    move (0 otherwise, and once the game is over)."""
    first = 6 * player
    for i in range(PITS):
        at = first + i
        if at >= PITS:
            at -= PITS
        out[i] = s[_PIT + at] / TOTAL
    out[PITS] = s[_STORE + player] / TOTAL
    out[PITS + 1] = s[_STORE + 1 - player] / TOTAL
    out[PITS + 2] = 1.0 if s[0] == player else 0.0


class Bohnenspiel(KernelGame):
    """Bohnenspiel as the course's game server plays it (see the module docstring)."""

    kernels = RuleKernels(
        init,
        legal_actions,
        apply_action,
        returns,
        heuristic,
        playout=playout,
        observation=observation,
    )

    def __init__(self, utility: Utility = "win_loss") -> None:
        if utility not in _UTILITIES:
            raise InvalidConfigError(
                f"bohnenspiel: utility must be one of {', '.join(_UTILITIES)}, got {utility!r}"
            )
        bound = 1.0 if utility == "win_loss" else float(TOTAL)
        info = GameInfo(
            name="bohnenspiel",
            version=1,
            num_players=2,
            num_actions=PITS,
            max_game_length=MAX_PLIES,
            zero_sum=True,
            min_utility=-bound,
            max_utility=bound,
        )
        super().__init__(info, np.array([_UTILITIES.index(utility)], dtype=np.int64))
        self.utility = utility

    def state_from_pits(
        self, pits: Sequence[int], stores: Sequence[int] = (0, 0), player: int = 0
    ) -> KernelState:
        """A set-up position: the 12 pits (index order), the two stores, the player to move.

        The position has no history (``history()`` is empty) and its ply count
        starts at 0. Raises :class:`InvalidConfigError` for a bad position,
        including one where ``player`` has no bean to move.
        """
        if len(pits) != PITS or len(stores) != 2:
            raise InvalidConfigError("bohnenspiel: give 12 pits and 2 stores")
        values = [*pits, *stores]
        if not all(isinstance(v, int | np.integer) and v >= 0 for v in values):
            raise InvalidConfigError("bohnenspiel: pits and stores hold non-negative integers")
        if player not in (0, 1):
            raise InvalidConfigError(f"bohnenspiel: player must be 0 or 1, got {player!r}")
        if not any(pits[6 * player : 6 * player + 6]):
            raise InvalidConfigError(f"bohnenspiel: player {player} has no bean to move")
        s = init(self.params)
        s[0] = player
        s[_STORE : _STORE + 2] = stores
        s[_PIT : _PIT + PITS] = pits
        return KernelState(self, s, [])

    def observation_shape(self) -> tuple[int, ...]:
        """15 values: 12 pits from the observer's first, 2 stores (theirs first), to move."""
        return (_OBSERVATION_SIZE,)

    def pits(self, state: KernelState) -> list[int]:
        """The beans in pits 0-11."""
        return [int(v) for v in state.array[_PIT : _PIT + PITS]]

    def stores(self, state: KernelState) -> list[int]:
        """The beans in the stores of players 0 and 1."""
        return [int(v) for v in state.array[_STORE : _STORE + 2]]

    def rendering(self) -> Rendering:
        """The web lab's two rows of pits and the stores, as the course draws them."""
        return Rendering(kind="pits", draw=self._pits)

    def _pits(self, state: KernelState) -> dict[str, Any]:
        # top: pits 11..6 (player 1's row, left to right as drawn); bottom: pits 0..5
        pits = self.pits(state)
        return {
            "top": pits[11:5:-1],
            "bottom": pits[0:6],
            "stores": self.stores(state),
            "actions": {str(a): a for a in state.legal_actions()},  # pit index = action id
        }

    def action_name(self, state: KernelState, action: int) -> str:
        return str(action + 1)

    def parse_action(self, state: KernelState, text: str) -> int | None:
        t = text.strip()
        return int(t) - 1 if is_ascii_digits(t) else None

    def render(self, state: KernelState) -> str:
        """The board as the course draws it: player 1's pits 12..7 on top, player 0's
        1..6 below, sowing counter-clockwise; player 1's store left, player 0's right."""
        pits = self.pits(state)
        s0, s1 = self.stores(state)

        def row(values: Sequence[int | str]) -> str:
            return "".join(f"{v:>4}" for v in values)

        width = 4 * 6
        lines = [
            "     " + row(range(12, 6, -1)) + "   fields",
            "     " + row(pits[11:5:-1]) + "   player 1",
            f"{s1:>4} " + " " * width + f" {s0:>4}   stores (player 1 | player 0)",
            "     " + row(pits[0:6]) + "   player 0",
            "     " + row(range(1, 7)) + "   fields",
        ]
        a = state.array
        if int(a[0]) == TERMINAL:
            winner = int(a[1])
            result = "a draw" if winner < 0 else f"player {winner} wins"
            lines.append(f"game over after {int(a[_PLIES])} plies: {result} {s0}-{s1}")
        else:
            lines.append(f"player {int(a[0])} to move (ply {int(a[_PLIES])})")
        return "\n".join(lines)
