"""Nim and Bachet's game, with OpenSpiel's encodings.

Nim: piles of stones; a move takes 1 or more stones (at most ``max_take`` if
set) from one pile. In normal play whoever takes the last stone wins (the
player who cannot move loses); in misère play whoever takes the last stone
loses. Returns +1/-1. Bachet's game is Nim with one pile and ``max_take = 2``
(Bachet de Méziriac, 1612): the classic first game tree of every course.

Action encoding as OpenSpiel's ``nim``: ``pile + num_piles * (take - 1)``, with
``num_actions = num_piles * T + 1`` where ``T`` is the largest possible take
(OpenSpiel counts one id more than it ever uses; so do we, to keep ids equal).
Action names: ``"<pile>:<take>"`` with piles numbered from 1; in a one-pile
game the take alone (``"2"``) is accepted too.

Known theory (Bouton 1901): in normal play the player to move loses iff the xor
of the piles is 0; with a take limit ``m`` iff the xor of ``pile mod (m + 1)``
is 0. The heuristic uses exactly that (±0.5, not ±1: it is an estimate slot).

State layout: ``[player, winner, moves, pile_0 ..]``;
``params = [num_piles, T, misere, initial pile_0 ..]``.

Observation (the ``observation`` kernel): OpenSpiel's ``nim`` vector for every variant,
Bachet's game and take limits included (their positions are ``nim`` positions): the
player to move one-hot, game over, the number of piles one-hot, each pile one-hot.

Its own random ``playout`` (the kernel contract's optional sixth kernel), for every
variant (any piles, take limit, normal or misère play, Bachet's game), lists no
moves: it keeps their number up to date (each pile gives ``min(pile, T)``), finds
the ``k``-th by counting the piles that allow each take in turn, and keeps the
generator's state in a local word.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from numbers import Integral
from typing import Any

import numpy as np
from numba import njit

from mctslab.core.declarations import Rendering
from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import TERMINAL, GameInfo
from mctslab.core.text import ascii_int, is_ascii_digits
from mctslab.games.kernels import (
    KernelGame,
    KernelState,
    RuleKernels,
    draw_top31,
    winner_returns,
)

__all__ = ["Nim", "bachet"]


@njit(cache=True)
def init(params):  # type: ignore[no-untyped-def]
    k = params[0]
    s = np.zeros(3 + k, dtype=np.int64)
    s[1] = -1
    total = 0
    for i in range(k):
        s[3 + i] = params[3 + i]
        total += params[3 + i]
    if total == 0:
        # No move at all: the player to move has lost in normal play and won in misère.
        s[0] = TERMINAL
        s[1] = 0 if params[2] == 1 else 1
    return s


@njit(cache=True)
def legal_actions(s, params, out):  # type: ignore[no-untyped-def]
    if s[0] < 0:
        return 0
    k, limit = params[0], params[1]
    n = 0
    # Ascending ids: take-major, pile-minor.
    for take in range(1, limit + 1):
        for pile in range(k):
            if s[3 + pile] >= take:
                out[n] = pile + k * (take - 1)
                n += 1
    return n


@njit(cache=True)
def apply_action(s, params, a):  # type: ignore[no-untyped-def]
    k = params[0]
    pile = a % k
    take = a // k + 1
    s[3 + pile] -= take
    s[2] += 1
    p = s[0]
    left = 0
    for i in range(k):
        left += s[3 + i]
    if left == 0:
        s[1] = (1 - p) if params[2] == 1 else p
        s[0] = TERMINAL
    else:
        s[0] = 1 - p


returns = winner_returns  # the winner is kept in s[1]


def _reciprocals(size: int) -> tuple[np.ndarray, np.ndarray]:
    """``magic[n], shift[n]``: ``x // n == (x * magic[n]) >> shift[n]`` for every ``x <
    2**31`` and ``n < size`` (Granlund and Montgomery 1994: ``shift = 31 + ceil(log2 n)``,
    ``magic = ceil(2**shift / n) < 2**32``)."""
    magic = np.zeros(size, dtype=np.uint64)
    shift = np.zeros(size, dtype=np.uint64)
    for n in range(1, size):
        s = 31 + (n - 1).bit_length()
        magic[n], shift[n] = ((1 << s) + n - 1) // n, s
    return magic, shift


_RECIPROCALS = 1024  # more legal moves than this: the remainder by a division
_MAGIC, _SHIFT = _reciprocals(_RECIPROCALS)


@njit(cache=True)
def playout(s, params, rng, out):  # type: ignore[no-untyped-def]
    """Uniformly random moves to the end, in place, drawing as the generic loop: at
    each ply the ``k``-th legal action in ascending order (take-major, pile-minor),
    ``k = rng_randint(rng, n)``. Returns the plies played; writes the returns to ``out``."""
    plies = 0
    if s[0] != TERMINAL:
        k, limit = params[0], params[1]
        piles = s[3 : 3 + k]  # a view: the piles shrink in place
        # Why locals: the state array and the generator are memory the compiler must
        # assume may alias; words in registers cost nothing a ply. ``n``, the number of
        # legal moves, is kept up to date instead of listing them: each pile gives
        # ``min(pile, limit)`` of them.
        n = np.int64(0)
        left = np.int64(0)
        for i in range(k):
            n += min(piles[i], limit)
            left += piles[i]
        p = s[0]
        seed = rng[0]
        while True:
            # rng_randint on the local state, its remainder modulo n by a
            # multiplication where the table reaches (a division costs about as much
            # as the rest of the ply).
            seed, x31 = draw_top31(seed)
            if n < _RECIPROCALS:
                j = np.int64(x31 - ((x31 * _MAGIC[n]) >> _SHIFT[n]) * np.uint64(n))
            else:
                j = np.int64(x31 % np.uint64(n))
            # The j-th legal action: the ids of take t come before those of take t + 1,
            # one for each pile holding t or more, in pile order.
            take = np.int64(1)
            pile = 0
            if k == 1:  # one pile (Bachet's game): take j + 1
                take = j + 1
            else:
                while True:
                    pile = 0
                    while pile < k:
                        if piles[pile] >= take:
                            if j == 0:
                                break
                            j -= 1
                        pile += 1
                    if pile < k:
                        break
                    take += 1
            before = piles[pile]
            piles[pile] = before - take
            n -= min(before, limit) - min(before - take, limit)
            left -= take
            plies += 1
            if left == 0:
                break
            p = 1 - p
        s[2] += plies
        s[1] = (1 - p) if params[2] == 1 else p
        s[0] = TERMINAL
        rng[0] = seed
    winner_returns(s, params, out)
    return plies


@njit(cache=True)
def heuristic(s, params, out):  # type: ignore[no-untyped-def]
    k, limit, misere = params[0], params[1], params[2]
    x = 0
    big = 0
    ones = 0
    for i in range(k):
        x ^= s[3 + i] % (limit + 1)
        if s[3 + i] > 1:
            big += 1
        elif s[3 + i] == 1:
            ones += 1
    mover_wins = x != 0
    if misere == 1:
        if big == 0:
            mover_wins = ones % 2 == 0
        elif limit < 2 or limit < _max_pile(params):
            # Misère with a take limit has no simple closed form: no estimate.
            out[0] = 0.0
            out[1] = 0.0
            return
    p = s[0]
    v = 0.5 if mover_wins else -0.5
    out[p] = v
    out[1 - p] = -v


@njit(cache=True)
def _max_pile(params):  # type: ignore[no-untyped-def]
    m = 0
    for i in range(params[0]):
        m = max(m, params[3 + i])
    return m


@njit(cache=True)
def observation(s, params, player, out):  # type: ignore[no-untyped-def]
    """OpenSpiel's ``nim`` observation, one vector: the player to move one-hot (2), whether
    the game is over (1), the number of piles ``k`` one-hot (``k`` entries: the last set),
    then each pile's stones one-hot over ``0 .. M`` (``M + 1`` entries a pile, ``M`` the
    largest initial pile). The same for both players. Once the game is over the "to move"
    entry is the player who would move next, as OpenSpiel keeps it: player ``moves % 2``."""
    k = params[0]
    m = _max_pile(params)
    for i in range(3 + k + k * (m + 1)):
        out[i] = 0.0
    out[s[0] if s[0] >= 0 else s[2] % 2] = 1.0
    out[2] = 1.0 if s[0] == TERMINAL else 0.0
    out[3 + k - 1] = 1.0
    for i in range(k):
        out[3 + k + i * (m + 1) + s[3 + i]] = 1.0


_PILES_FORM = 'a ;-separated list of pile sizes, e.g. piles="3;4;5" (one pile: piles="7;")'


def _piles(piles: object, name: str) -> list[int]:
    """The pile sizes of ``piles``: integers (any iterable of them), or OpenSpiel's
    ``"1;3;5;7"`` form (also what the command line passes; ``,`` separates too). A bare
    number, such as the ``3`` that ``-p piles=3`` gives, is refused as the list it is
    not: three piles, or one pile of three, is the user's to say."""
    if isinstance(piles, str):
        items: list[object] = [p.strip() for p in piles.replace(",", ";").split(";") if p.strip()]
    elif isinstance(piles, Iterable):
        items = list(piles)
    else:
        raise InvalidConfigError(f"{name}: piles is {_PILES_FORM}, got {piles!r}")
    sizes = [_size(item) for item in items]
    if any(size is None for size in sizes):
        raise InvalidConfigError(
            f"{name}: piles must be whole numbers, {_PILES_FORM}, got {piles!r}"
        )
    return [size for size in sizes if size is not None]


def _size(item: object) -> int | None:
    if isinstance(item, str):
        return ascii_int(item.strip())
    if isinstance(item, Integral) and not isinstance(item, bool):
        return int(item)
    return None


class Nim(KernelGame):
    """Nim with any piles, an optional take limit, normal or misère play."""

    kernels = RuleKernels(
        init,
        legal_actions,
        apply_action,
        returns,
        heuristic,
        playout=playout,
        observation=observation,
    )

    def __init__(
        self,
        piles: Sequence[int] | str = (1, 3, 5, 7),
        max_take: int | None = None,
        misere: bool = False,
        name: str = "nim",
    ) -> None:
        piles = _piles(piles, name)
        if not 1 <= len(piles) <= 64 or any(p < 0 or p > 1000 for p in piles):
            raise InvalidConfigError(f"{name}: need 1 to 64 piles of 0 to 1000 stones, got {piles}")
        if sum(piles) == 0:
            raise InvalidConfigError(f"{name}: need at least one stone")
        if max_take is not None and (not isinstance(max_take, int) or max_take < 1):
            raise InvalidConfigError(f"{name}: max_take must be a positive integer or None")
        self.piles = tuple(piles)
        self.max_take = max_take
        self.misere = bool(misere)
        biggest = max(max(piles), 1)
        limit = biggest if max_take is None else min(max_take, biggest)
        info = GameInfo(
            name=name,
            version=1,
            num_players=2,
            num_actions=len(piles) * limit + 1,
            max_game_length=max(1, sum(piles)),
            zero_sum=True,
            min_utility=-1.0,
            max_utility=1.0,
        )
        params = np.array([len(piles), limit, int(self.misere), *piles], dtype=np.int64)
        super().__init__(info, params)

    def observation_shape(self) -> tuple[int, ...]:
        """OpenSpiel's: ``2 + 1 + k + k * (M + 1)`` for ``k`` piles, the largest ``M``."""
        k = len(self.piles)
        return (3 + k + k * (max(self.piles) + 1),)

    def action_name(self, state: KernelState, action: int) -> str:
        k = len(self.piles)
        return f"{action % k + 1}:{action // k + 1}"

    def parse_action(self, state: KernelState, text: str) -> int | None:
        t = text.strip().lower().replace(" ", "").rstrip(";")
        k = len(self.piles)
        if t.startswith("pile:"):  # OpenSpiel's "pile:2, take:3;"
            t = t[5:].replace(",take", "")
        parts = t.split(":")
        if len(parts) == 1 and k == 1 and is_ascii_digits(parts[0]):
            parts = ["1", parts[0]]
        if len(parts) != 2 or not all(is_ascii_digits(p) for p in parts):
            return None
        pile, take = int(parts[0]), int(parts[1])
        if not (1 <= pile <= k and 1 <= take <= int(self.params[1])):
            return None
        return pile - 1 + k * (take - 1)

    def rendering(self) -> Rendering:
        """The web lab's piles, each legal take a button."""
        return Rendering(kind="piles", draw=self._piles)

    def _piles(self, state: KernelState) -> dict[str, Any]:
        # piles from 0; max_take the largest take the rules allow
        k = len(self.piles)
        return {
            "piles": [int(v) for v in state.array[3 : 3 + k]],
            "max_take": int(self.params[1]),
            "misere": self.misere,
            "moves": [
                {"pile": a % k, "take": a // k + 1, "action": a} for a in state.legal_actions()
            ],
        }

    def render(self, state: KernelState) -> str:
        lines = []
        for i in range(len(self.piles)):
            n = int(state.array[3 + i])
            lines.append(f"pile {i + 1}: {'|' * n} ({n})")
        rule = "misère" if self.misere else "normal play"
        limit = f", take at most {self.max_take}" if self.max_take else ""
        lines.append(f"[{rule}{limit}]")
        return "\n".join(lines)


def bachet(stones: int = 4, max_take: int = 2, misere: bool = False) -> Nim:
    """Bachet's game: one pile (4 stones), take 1 or 2; whoever cannot move loses."""
    return Nim([stones], max_take=max_take, misere=misere, name="bachet")
