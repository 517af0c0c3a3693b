"""Go's end of game: area owners, strings, and which strings are dead, alive or in seki.

Under Tromp-Taylor area scoring (:class:`~mctslab.games.go.Go`'s rules) every stone on the
board counts as alive: a game is scored after it is played out, the dead stones captured.
People and many programs stop earlier and agree which stones are dead; GTP's
``final_status_list dead|alive|seki`` asks an engine for that judgement (GoGui and the
KGS bridge send it after two passes). This module makes the judgement the way Monte-Carlo
Go programs do (Fuego, Pachi): from ``playouts`` heavy playouts of the position
(:meth:`~mctslab.games.kernels.KernelState.heavy_action`, MoGo's policy: captures, atari
escapes and 3x3 patterns before random moves that fill no own one-point eye, played to
the end), each point's **ownership** is the fraction of playouts whose final area
(:func:`area_owners`) gives it to Black minus the fraction that gives it to White, in
``[-1, 1]``. Then, string by string:

- **dead**: a string whose stones the opponent owns at the end of more than half of the
  playouts (the mean over its stones of the opponent's fraction above 0.5);
- **seki**: a string with exactly two liberties, both of them the two liberties of a
  string of the other colour: whichever side fills one puts its own string in atari, so
  neither does, and both live without eyes (the classic seki; also the rule of a
  group's several strings with the same two liberties). This rule overrides the
  playouts, which fill a shared liberty once nothing else is left to play (the strings'
  surroundings are not judged: a seki inside a dead group stays a seki here);
- **alive**: every other string.

A judgement needs a board whose outcome the playouts agree on: the board is **settled**
when the mean over its points of ``|ownership|`` is at least :data:`SETTLED` (0.5: the
playouts give the average point to the same colour three times in four). Measured on
``tests/data/go/gnugo_games.json``: the 21 games played to the end have means of 0.91
(the seki, whose shared liberties the playouts fill) to 1.0; the one stopped by two
passes at move 28 has 0.37; twelve boards of nine random moves and a pass 0.18 to 0.40,
of twenty random moves 0.28 to 0.51; the 5x5 example below 0.60 to 0.64. On a board that
is not settled the strings the playouts call dead are guesses: the web lab shows no dead
stones there (:attr:`FinalStatus.settled`), while a game stopped at its length limit is
still scored by the estimate (:meth:`Go.adjudicate <mctslab.games.go.Go.adjudicate>`),
the best there is.

The playouts start from the position's moves replayed in a game with room to play the
board out (``2 * N * N`` moves beyond them: a game that stopped near its length limit
would otherwise be cut off with its captures unplayed), the closing passes of a game
over by two passes taken back. The same seed gives the same judgement.

Checked against GNU Go's ``final_status_list dead`` on the 22 finished games of
``tests/data/go/gnugo_games.json``: the same dead stones in all 22 (with the
default seed; 21 or 22 with seeds 1 to 5, the 28-move unfinished game varying).

>>> from mctslab.games.go import Go
>>> game = Go(5, komi=0.5)
>>> # Black's wall on column b, White's on c; then a lone black stone at e3 (action
>>> # 14) in White's area, and two passes: Tromp-Taylor would count it alive.
>>> walls = [a for r in range(5) for a in (5 * r + 1, 5 * r + 2)]
>>> status = final_status(game, game.state_from_actions([*walls, 14, 25, 25]))
>>> status.dead
((14,),)
>>> len(status.alive), status.seki
(2, ())
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from mctslab.core.rng import Rng
from mctslab.games.kernels import KernelState

if TYPE_CHECKING:  # Go's adjudication calls this module: no import of go at run time
    from mctslab.games.go import Go

__all__ = [
    "DEFAULT_PLAYOUTS",
    "SETTLED",
    "Agreement",
    "FinalStatus",
    "agreed_score",
    "area_owners",
    "final_status",
    "strings",
]

#: Playouts behind a judgement: about 0.1 s on 9x9 in this module's Python loop.
DEFAULT_PLAYOUTS = 200

#: The smallest mean ``|ownership|`` of a settled board (see the module's docstring).
SETTLED = 0.5


@dataclass(frozen=True)
class FinalStatus:
    """The judgement of a position: each point's ``ownership`` (index = action;
    ``+1`` Black's in every playout, ``-1`` White's) and its strings (each a sorted
    tuple of actions, strings in order of their first point) by status."""

    ownership: tuple[float, ...]
    dead: tuple[tuple[int, ...], ...]
    alive: tuple[tuple[int, ...], ...]
    seki: tuple[tuple[int, ...], ...]

    @property
    def undecided(self) -> tuple[int, ...]:
        """The points that neither colour owns in three playouts of four (``|o| < 0.5``)."""
        return tuple(p for p, o in enumerate(self.ownership) if abs(o) < 0.5)

    @property
    def settled(self) -> bool:
        """Whether the playouts agree on the board enough to judge it: the mean of
        ``|ownership|`` over its points at least :data:`SETTLED`."""
        return sum(abs(o) for o in self.ownership) >= SETTLED * len(self.ownership)


def area_owners(stones: list[int], n: int) -> list[int]:
    """Each point's owner under Tromp-Taylor area scoring: its stone's colour, or for an
    empty point the one colour that its empty region (4-connected) reaches, 0 where the
    region reaches both colours or none. Go's kernels count these areas (``area_score2``)
    but keep the owners to themselves, so they are found again here by a flood fill over
    ``stones`` (0 empty, 1 black, 2 white; index ``r * n + c``); Black's count minus
    White's minus komi is :meth:`Go.score <mctslab.games.go.Go.score>`.

    >>> area_owners([0, 0, 0, 2, 1, 0, 0, 0, 0], 3)  # the empty points reach both
    [0, 0, 0, 2, 1, 0, 0, 0, 0]
    """
    owner = list(stones)
    seen = [False] * (n * n)
    for start in range(n * n):
        if stones[start] != 0 or seen[start]:
            continue
        region: list[int] = []
        reach, stack = 0, [start]
        seen[start] = True
        while stack:
            p = stack.pop()
            region.append(p)
            for q in _neighbours(p, n):
                if stones[q] == 0:
                    if not seen[q]:
                        seen[q] = True
                        stack.append(q)
                else:
                    reach |= stones[q]  # bit 1: black, bit 2: white
        colour = reach if reach in (1, 2) else 0
        for p in region:
            owner[p] = colour
    return owner


def strings(stones: list[int], n: int) -> list[tuple[int, ...]]:
    """The strings (4-connected stones of one colour) of ``stones`` (as
    :func:`area_owners`'), each sorted, in order of their first point.

    >>> strings([1, 1, 0, 2, 0, 0, 2, 0, 1], 3)
    [(0, 1), (3, 6), (8,)]
    """
    seen = [False] * (n * n)
    found = []
    for start in range(n * n):
        colour = stones[start]
        if colour == 0 or seen[start]:
            continue
        seen[start] = True
        stack, members = [start], []
        while stack:
            p = stack.pop()
            members.append(p)
            for q in _neighbours(p, n):
                if stones[q] == colour and not seen[q]:
                    seen[q] = True
                    stack.append(q)
        found.append(tuple(sorted(members)))
    return found


def final_status(
    game: Go, state: KernelState, playouts: int = DEFAULT_PLAYOUTS, seed: int = 0
) -> FinalStatus:
    """Which strings of ``state``'s board are dead, alive or in seki, judged by
    ``playouts`` heavy playouts drawn from ``seed`` (see the module's docstring)."""
    if playouts < 1:
        raise ValueError(f"final_status: playouts must be >= 1, got {playouts}")
    n = game.board_size
    stones = [game.colour_at(state, a) for a in range(n * n)]
    start = _resumed(game, state)
    black = [0] * (n * n)
    white = [0] * (n * n)
    rng = Rng(seed)
    for _ in range(playouts):
        end = _played_out(start, rng)
        owners = area_owners([game.colour_at(end, a) for a in range(n * n)], n)
        for p, o in enumerate(owners):
            if o == 1:
                black[p] += 1
            elif o == 2:
                white[p] += 1
    ownership = tuple((b - w) / playouts for b, w in zip(black, white, strict=True))
    groups = strings(stones, n)
    liberties = _liberties(stones, groups, n)
    # Seki overrides the playouts, which fill a shared liberty when nothing else is left.
    in_seki = {
        group
        for group in groups
        if len(liberties[group[0]]) == 2
        and any(
            stones[r] == 3 - stones[group[0]] and liberties[r] == liberties[group[0]]
            for q in liberties[group[0]]
            for r in _neighbours(q, n)
        )
    }
    dead: list[tuple[int, ...]] = []
    alive: list[tuple[int, ...]] = []
    seki: list[tuple[int, ...]] = []
    for group in groups:
        against = white if stones[group[0]] == 1 else black
        if group in in_seki:
            seki.append(group)
        elif sum(against[p] for p in group) > 0.5 * len(group) * playouts:
            dead.append(group)
        else:
            alive.append(group)
    return FinalStatus(ownership, tuple(dead), tuple(alive), tuple(seki))


@dataclass(frozen=True)
class Agreement:
    """The score by agreement of a position: the ``dead`` points (the stones of the
    strings :func:`final_status` judges dead) taken off, then the area count, komi in
    (``score``: Black's area minus White's minus komi, as :meth:`Go.score
    <mctslab.games.go.Go.score>`); ``settled``: whether the board was settled enough to
    judge (:attr:`FinalStatus.settled`)."""

    dead: tuple[int, ...]
    score: float
    settled: bool


def agreed_score(
    game: Go,
    state: KernelState,
    playouts: int = DEFAULT_PLAYOUTS,
    seed: int = 0,
    status: FinalStatus | None = None,
) -> Agreement:
    """The score people and GTP controllers agree on for ``state``'s board: the stones
    :func:`final_status` judges dead removed, then Tromp-Taylor's area count (``status``:
    that judgement of ``state`` if it has been made already; ``playouts`` and ``seed``
    are then unused).

    The web lab shows it beside a finished game's result; the arena scores a Go game that
    stopped at its length limit by it (:meth:`Go.adjudicate <mctslab.games.go.Go.adjudicate>`).

    >>> from mctslab.games.go import Go
    >>> game = Go(5, komi=0.5)
    >>> walls = [a for r in range(5) for a in (5 * r + 1, 5 * r + 2)]
    >>> state = game.state_from_actions([*walls, 14, 25, 25])
    >>> game.score(state), agreed_score(game, state)
    (5.5, Agreement(dead=(14,), score=-5.5, settled=True))
    """
    n = game.board_size
    if status is None:
        status = final_status(game, state, playouts=playouts, seed=seed)
    dead = tuple(sorted(p for string in status.dead for p in string))
    board = [game.colour_at(state, p) for p in range(n * n)]
    for p in dead:
        board[p] = 0
    owners = area_owners(board, n)
    return Agreement(dead, owners.count(1) - owners.count(2) - game.komi, status.settled)


def _neighbours(p: int, n: int) -> list[int]:
    r, c = divmod(p, n)
    out = []
    if r > 0:
        out.append(p - n)
    if r < n - 1:
        out.append(p + n)
    if c > 0:
        out.append(p - 1)
    if c < n - 1:
        out.append(p + 1)
    return out


def _liberties(board: list[int], groups: list[tuple[int, ...]], n: int) -> dict[int, set[int]]:
    """Each stone's string's liberties (one set shared by the stones of a string;
    ``groups``: the board's :func:`strings`)."""
    found: dict[int, set[int]] = {}
    for group in groups:
        libs = {q for p in group for q in _neighbours(p, n) if board[q] == 0}
        for p in group:
            found[p] = libs
    return found


def _resumed(game: Go, state: KernelState) -> KernelState:
    """The position of ``state`` where the playouts start: its moves replayed in a game
    whose length limit leaves room to play the board out (``2 * N * N`` more moves), the
    closing passes of a finished game taken back."""
    area = game.board_size**2
    history = state.history()
    k = len(history)
    if state.is_terminal():
        while k > 0 and history[k - 1] == area:  # the pass
            k -= 1
    room = type(game)(
        game.board_size, game.komi, ko=game.ko, max_game_length=min(k + 2 * area, 100 * area)
    )
    return room.state_from_actions(history[:k])


def _played_out(start: KernelState, rng: Rng) -> KernelState:
    """A heavy playout of ``start`` (a copy) to the end of the game."""
    state = start.clone()
    while not state.is_terminal():
        action = state.heavy_action(rng)
        assert action is not None  # Go has a heavy_action kernel
        state.apply_action(action)
    return state
