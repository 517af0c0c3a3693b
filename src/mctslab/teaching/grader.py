"""The autograder of lesson 11: a student's ``mcts(state, iterations) -> move`` against
oracles, with the likely bug named when it fails (``mctslab grade FILE.py``).

The checks, on tic-tac-toe (its 4,520 positions with a move to play, each with its
minimax-optimal moves from :func:`~mctslab.teaching.graphs.game_graph`) and on one probe:

- **legal**: every answer is a legal move of the position asked;
- **wins**: where the player to move can win at once, it plays a winning move (at once,
  or another that cannot fail to win: a minimax-optimal one; at least 95%);
- **blocks**: where it cannot, but the opponent threatens to win at once, it plays an
  optimal move (at least 90%);
- **minimax**: a minimax-optimal move in the positions (all 4,520, or a seeded sample),
  at least 95% at the budget given;
- **fresh tree**: after a search of one game, a search of another position answers for
  that position (a win in one), in 10 of 10 pairs: no stale tree;
- **trap**: a two-move probe (:class:`TrapGame`): a safe move that draws, or a trap
  where the opponent has 8 replies, one of which wins for them. UCT with ``c = sqrt(2)``
  on rewards in ``[0, 1]`` avoids it after 160 iterations; with the exploration
  constant counted twice (``c * sqrt(2 ln N / n)``, ``c = sqrt(2)``) the refutation
  never gets enough visits and the trap still looks good (measured with
  :mod:`~mctslab.teaching.listing`: safe in 200 of 200 seeds against 0 of 200).

The likely bug: wins or blocks under half (the credit of backpropagation given to the
player to move instead of the one who moved into the node); a stale tree; the trap
taken while the rest passes (too much exploration). Before each call the grader seeds
Python's ``random`` (``seed`` + the call's number), so a function that draws from it is
graded the same way every time.

:func:`checks` yields each check as it finishes (wins and blocks after their positions,
then minimax, fresh tree, trap, and legal last, as it covers every call), so that
``mctslab grade`` prints one line at a time instead of all of them after the last
search; :func:`grade` collects them.
"""

from __future__ import annotations

import importlib.util
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import TERMINAL, GameInfo
from mctslab.core.python_state import PythonState
from mctslab.core.registry import make
from mctslab.teaching.graphs import game_graph

__all__ = ["Check", "Grade", "GradeError", "TrapGame", "checks", "grade", "load_student"]

MctsFunction = Callable[[Any, int], int]


class GradeError(InvalidConfigError):
    """A file the grader cannot use: missing, not Python, failing to import, or without
    an ``mcts(state, iterations)`` function."""


@dataclass(frozen=True)
class Check:
    """One check: its name, whether it passed, what was seen, and the count behind it
    (``hits`` of ``total``; the likely bug is read from them)."""

    name: str
    passed: bool
    detail: str
    hits: int = 0
    total: int = 0


@dataclass(frozen=True)
class Grade:
    """Every check, and the likely bug (``None`` when all passed)."""

    checks: tuple[Check, ...]
    bug: str | None

    @property
    def passed(self) -> bool:
        return all(c.passed for c in self.checks)

    @classmethod
    def of(cls, checks: Sequence[Check]) -> Grade:
        """The grade of ``checks`` (as :func:`checks` yields them), with the likely bug."""
        return cls(tuple(checks), _likely_bug(tuple(checks)))


class TrapGame:
    """The probe: player 0 plays ``safe`` (0: a draw, the game over) or ``trap`` (1);
    after the trap player 1 chooses one of ``replies`` moves: reply 0 wins for player 1,
    any other loses for player 1. Minimax plays safe."""

    def __init__(self, replies: int = 8) -> None:
        self.replies = replies
        self.info = GameInfo(
            name="trap",
            version=1,
            num_players=2,
            num_actions=max(2, replies),
            max_game_length=2,
            zero_sum=True,
            min_utility=-1.0,
            max_utility=1.0,
        )

    def new_initial_state(self) -> TrapState:
        return TrapState(self)

    def state_from_actions(self, actions: Sequence[int]) -> TrapState:
        """The state reached by playing ``actions`` from the start."""
        state = self.new_initial_state()
        for action in actions:
            state.apply_action(action)
        return state


class TrapState(PythonState[TrapGame]):
    """A position of :class:`TrapGame`."""

    __slots__ = ()

    def current_player(self) -> int:
        moves = self._history
        if (moves and moves[0] == 0) or len(moves) == 2:
            return TERMINAL
        return len(moves)

    def legal_actions(self) -> list[int]:
        player = self.current_player()
        if player == TERMINAL:
            return []
        return [0, 1] if player == 0 else list(range(self.game.replies))

    def _apply_action(self, action: int) -> None:
        if action not in self.legal_actions():
            raise self.illegal_action(action)

    def returns(self) -> list[float]:
        moves = self._history
        if not self.is_terminal() or moves[0] == 0:
            return [0.0, 0.0]
        return [-1.0, 1.0] if moves[1] == 0 else [1.0, -1.0]

    def __str__(self) -> str:
        return f"trap game after {list(self._history)}"


def load_student(path: str | Path) -> MctsFunction:
    """The ``mcts`` function of the Python file at ``path`` (imported as a module of its
    own; it runs the file's code, as running the file would)."""
    file = Path(path)
    if not file.exists():
        raise GradeError(f"no such file: {str(file)!r}")
    if not file.is_file() or file.suffix != ".py":
        raise GradeError(f"{str(file)!r} is not a Python file (FILE.py)")
    spec = importlib.util.spec_from_file_location(f"student_{abs(hash(file))}", file)
    if spec is None or spec.loader is None:
        raise GradeError(f"{str(file)!r} cannot be imported")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except SystemExit as err:  # sys.exit() in the file would end the grading as a success
        raise GradeError(
            f"{str(file)!r} called sys.exit({err.code!r}) while being imported: not graded "
            "(put the script part under if __name__ == '__main__':)"
        ) from None
    except Exception as err:  # the student's code: any error is theirs, said in one line
        raise GradeError(f"{str(file)!r} failed to import: {type(err).__name__}: {err}") from None
    fn = getattr(module, "mcts", None)
    if not callable(fn):
        raise GradeError(f"{str(file)!r} has no function mcts(state, iterations)")
    return fn  # type: ignore[no-any-return]


def _positions() -> list[tuple[tuple[int, ...], frozenset[int]]]:
    start = make("tic_tac_toe").new_initial_state()
    graph = game_graph(start, merge=True, max_nodes=6_000)
    return [(n.history, frozenset(n.best_actions)) for n in graph.nodes if n.player >= 0]


def _wins_now(state: Any, player: int) -> set[int]:
    found = set()
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(action)
        if child.is_terminal() and child.returns()[player] > 0:
            found.add(action)
    return found


def grade(
    mcts: MctsFunction,
    positions: int | None = 300,
    iterations: int = 400,
    seed: int = 0,
) -> Grade:
    """Grade ``mcts`` (see the module's docstring): ``positions`` of the 4,520 for the
    minimax check (``None``: all), ``iterations`` the budget of every tic-tac-toe call."""
    return Grade.of(list(checks(mcts, positions, iterations, seed)))


def checks(
    mcts: MctsFunction,
    positions: int | None = 300,
    iterations: int = 400,
    seed: int = 0,
) -> Iterator[Check]:
    """The checks of :func:`grade`, each yielded as soon as it is decided (the arguments
    are checked at the first ``next``). The calls, and so the seeds, are the same
    whether the checks are read one at a time or all at once."""
    if iterations < 1 or (positions is not None and positions < 1):
        raise GradeError(f"grade: iterations and positions >= 1, got {iterations}, {positions}")
    game = make("tic_tac_toe")
    calls = iter(range(10**9))

    def ask(state: Any, budget: int) -> int:
        random.seed(seed + next(calls))
        try:
            return int(mcts(state.clone(), budget))
        except SystemExit as err:  # sys.exit() in mcts would end the grading as a success
            raise GradeError(
                f"mcts(state, {budget}) called sys.exit({err.code!r}): not graded "
                f"(the position after {list(state.history())})"
            ) from None
        except Exception as err:  # the student's code: its error, said in one line
            raise GradeError(
                f"mcts(state, {budget}) raised {type(err).__name__}: {err} "
                f"(the position after {list(state.history())})"
            ) from None

    every = _positions()
    rng = random.Random(seed)
    sample = every if positions is None else rng.sample(every, min(positions, len(every)))
    illegal: list[str] = []
    asked = 0

    def answer(history: tuple[int, ...], budget: int = iterations) -> tuple[Any, int]:
        nonlocal asked
        asked += 1
        state = game.state_from_actions(list(history))
        move = ask(state, budget)
        if move not in state.legal_actions():
            illegal.append(f"{move} after {list(history)}")
        return state, move

    wins = blocks = wins_ok = blocks_ok = 0
    tactical = [(h, b) for h, b in every if len(h) >= 3]
    for history, best in rng.sample(tactical, min(len(tactical), 200)):
        state = game.state_from_actions(list(history))
        me = state.current_player()
        mine = _wins_now(state, me)
        if mine:  # a move that wins (at once, or by another road that cannot fail)
            wins += 1
            wins_ok += answer(history)[1] in best
        elif _threat(state, 1 - me):
            blocks += 1
            blocks_ok += answer(history)[1] in best
    # The tactical positions are drawn in one sample (the seeds of the calls follow its
    # order), so wins and blocks finish together.
    yield Check(
        "wins",
        wins_ok >= 0.95 * wins,
        f"played a winning move in {wins_ok} of {wins}",
        wins_ok,
        wins,
    )
    yield Check(
        "blocks",
        blocks_ok >= 0.9 * blocks,
        f"blocked in {blocks_ok} of {blocks}",
        blocks_ok,
        blocks,
    )
    optimal = sum(answer(history)[1] in best for history, best in sample)
    yield Check(
        "minimax",
        optimal >= 0.95 * len(sample),
        f"an optimal move in {optimal} of {len(sample)} positions at {iterations} iterations",
        optimal,
        len(sample),
    )
    fresh = _fresh(game, ask, iterations)
    yield Check(
        "fresh tree", fresh == 10, f"answered the new position in {fresh} of 10 pairs", fresh, 10
    )
    trap_safe = sum(ask(TrapGame().new_initial_state(), 160) == 0 for _ in range(5))
    yield Check(
        "trap", trap_safe >= 4, f"avoided the trap in {trap_safe} of 5 searches", trap_safe, 5
    )
    detail = f"every move legal ({asked} positions)" if not illegal else f"illegal: {illegal[0]}"
    yield Check("legal", not illegal, detail, asked - len(illegal), asked)


def _threat(state: Any, opponent: int) -> bool:
    """Whether ``opponent`` would win at once if it were to move (tic-tac-toe: a line of
    two of theirs and an empty cell)."""
    lines = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
    moves = state.history()
    theirs = {a for i, a in enumerate(moves) if i % 2 == opponent}
    free = set(state.legal_actions())
    return any(len(theirs & set(line)) == 2 and free & set(line) for line in lines)


def _fresh(game: Any, ask: Callable[[Any, int], int], iterations: int) -> int:
    """Pairs of searches: a position of one game, then a win in one of another; how
    often the second answer wins."""
    pairs = [
        ([4, 0, 8], [0, 3, 1, 4]),
        ([0, 4], [2, 1, 7, 5, 6, 3]),
        ([8, 6, 2], [0, 4, 1, 8]),
        ([1], [6, 0, 7, 1]),
        ([4, 8, 5], [0, 1, 3, 2]),
    ] * 2
    won = 0
    for first, second in pairs:
        ask(game.state_from_actions(first), iterations)
        state = game.state_from_actions(second)
        move = ask(state, iterations)
        won += move in _wins_now(state, state.current_player())
    return won


def _likely_bug(checks: tuple[Check, ...]) -> str | None:
    if all(c.passed for c in checks):
        return None
    named = {c.name: c for c in checks}
    wins, blocks = named["wins"], named["blocks"]
    if wins.hits < 0.5 * wins.total or blocks.hits < 0.5 * blocks.total:
        return (
            "perspective: backpropagation credits each node with the reward of the player "
            "to move there; it must be the reward of the player who moved into it"
        )
    if named["fresh tree"].hits < 10:
        return "stale tree: a search answered from a tree grown for another position"
    failed = {c.name for c in checks if not c.passed}
    if failed == {"trap"}:
        return (
            "exploration: the constant counted twice (c * sqrt(2 ln N / n) with c = sqrt(2)); "
            "UCT's term is c * sqrt(ln N / n)"
        )
    return "weak search: more iterations, or check selection and the final move (most visits)"
