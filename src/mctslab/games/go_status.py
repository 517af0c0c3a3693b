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
- **seki**: a string not dead that shares a liberty with a not-dead string of the other
  colour, both strings with at most two liberties (with the dead strings taken off the
  board): whichever side fills the shared liberty puts its own string in atari, so
  neither does, and both live without eyes (the classic seki of two strings);
- **alive**: every other string.

A position whose game is over by two passes is first resumed (its closing passes
taken back) so that the playouts can play; a position at the game's length limit is
judged by its final area alone. The same seed gives the same judgement.

Checked against GNU Go's ``final_status_list dead`` on the 22 finished games of
``tests/data/go/gnugo_games.json``: the same dead stones in 20. The two others show the
method's known limit: the playouts do not know seki (a side with no other move fills a
shared liberty, and its string is captured), so the hand-made seki's white string is
called dead, and in one random game 4 of GNU Go's 16 dead stones are taken for alive.

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

from mctslab.core.rng import Rng
from mctslab.games.go import Go
from mctslab.games.kernels import KernelState

__all__ = ["DEFAULT_PLAYOUTS", "FinalStatus", "area_owners", "final_status", "strings"]

#: Playouts behind a judgement: about 0.1 s on 9x9 in this module's Python loop.
DEFAULT_PLAYOUTS = 200


@dataclass(frozen=True)
class FinalStatus:
    """The judgement of a position: each point's ``ownership`` (index = action;
    ``+1`` Black's in every playout, ``-1`` White's) and its strings (each a sorted
    tuple of actions, strings in order of their first point) by status."""

    ownership: tuple[float, ...]
    dead: tuple[tuple[int, ...], ...]
    alive: tuple[tuple[int, ...], ...]
    seki: tuple[tuple[int, ...], ...]


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
    ``playouts`` light playouts drawn from ``seed`` (see the module's docstring)."""
    if playouts < 1:
        raise ValueError(f"final_status: playouts must be >= 1, got {playouts}")
    n = game.board_size
    stones = [game.colour_at(state, a) for a in range(n * n)]
    start = _resumed(game, state)
    black = [0] * (n * n)
    white = [0] * (n * n)
    rng = Rng(seed)
    runs = playouts if start is not None else 1
    for _ in range(runs):
        end = _played_out(start, rng) if start is not None else state
        owners = area_owners([game.colour_at(end, a) for a in range(n * n)], n)
        for p, o in enumerate(owners):
            if o == 1:
                black[p] += 1
            elif o == 2:
                white[p] += 1
    ownership = tuple((b - w) / runs for b, w in zip(black, white, strict=True))
    groups = strings(stones, n)
    dead: list[tuple[int, ...]] = []
    living: list[tuple[int, ...]] = []
    for group in groups:
        against = white if stones[group[0]] == 1 else black
        (dead if sum(against[p] for p in group) / (len(group) * runs) > 0.5 else living).append(
            group
        )
    board = list(stones)
    for group in dead:
        for p in group:
            board[p] = 0
    liberties = _liberties(board, n)
    seki: list[tuple[int, ...]] = []
    alive: list[tuple[int, ...]] = []
    for group in living:
        colour = stones[group[0]]
        mine = liberties[group[0]]
        shared = len(mine) <= 2 and any(
            board[r] == 3 - colour and len(liberties[r]) <= 2
            for q in mine
            for r in _neighbours(q, n)
        )
        (seki if shared else alive).append(group)
    return FinalStatus(ownership, tuple(dead), tuple(alive), tuple(seki))


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


def _liberties(board: list[int], n: int) -> dict[int, set[int]]:
    """Each stone's string's liberties (one set shared by the stones of a string)."""
    found: dict[int, set[int]] = {}
    for group in strings(board, n):
        libs = {q for p in group for q in _neighbours(p, n) if board[q] == 0}
        for p in group:
            found[p] = libs
    return found


def _resumed(game: Go, state: KernelState) -> KernelState | None:
    """A state of the same board that can be played on: ``state`` itself, or with the
    closing passes of a finished game taken back; ``None`` at the length limit."""
    if not state.is_terminal():
        return state
    history = state.history()
    k = len(history)
    while k > 0 and history[k - 1] == game.board_size**2:
        k -= 1
    if k == len(history):
        return None  # over by the length limit: nothing to resume
    return game.state_from_actions(history[:k])


def _played_out(start: KernelState, rng: Rng) -> KernelState:
    """A heavy playout of ``start`` (a copy) to the end of the game."""
    state = start.clone()
    while not state.is_terminal():
        action = state.heavy_action(rng)
        assert action is not None  # Go has a heavy_action kernel
        state.apply_action(action)
    return state
