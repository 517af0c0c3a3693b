"""What the single-player searches ask of a position beyond the game API: a move's code
(NRPA's policy is a weight per code), a move's prior (the game's knowledge), a local
search that polishes a finished sequence, and the playouts they all end with.

The playouts of NMCS and SP-MCTS (:func:`playout`) are uniformly random unless told
otherwise: with ``bias = (beta, b)`` each move is drawn with probability proportional
to ``exp(beta * b(move))`` (the same softmax as Generalized NRPA's, Cazenave 2020, with
no learned weights), and with a polisher the finished sequence is then improved by the
game's local search (the travelling salesman's 2-opt and Or-opt), its score the
polished one. Both are knowledge of the game; a search with neither knows only the
rules."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import State
from mctslab.core.rng import Rng

__all__ = [
    "Biases",
    "MoveBias",
    "MoveCoder",
    "Polisher",
    "check_knowledge",
    "knowledge",
    "move_biaser",
    "move_coder",
    "move_polisher",
    "playout",
    "random_playout",
    "softmax_choice",
]

#: ``code(state, action)``: the code NRPA learns a weight for.
MoveCoder = Callable[[State, int], int]


def move_coder(state: State) -> MoveCoder:
    """The code of a move in its position: a kernel game's ``move_code`` kernel
    (:attr:`mctslab.games.kernels.RuleKernels.move_code`), a Python state's
    ``move_code(action)`` method, else the action itself."""
    game = getattr(state, "game", None)
    kernels = getattr(game, "kernels", None)
    kernel = getattr(kernels, "move_code", None)
    if kernel is not None:
        params = game.params  # type: ignore[union-attr]

        def kernel_code(s: State, a: int) -> int:
            return int(kernel(s.array, params, a))  # type: ignore[attr-defined]

        return kernel_code
    if hasattr(state, "move_code"):
        return lambda s, a: int(s.move_code(a))  # type: ignore[attr-defined]
    return lambda s, a: a


#: ``bias(state, action)``: a game's prior knowledge of a move (Generalized NRPA).
MoveBias = Callable[[State, int], float]


def move_biaser(state: State) -> MoveBias | None:
    """A kernel game's ``move_bias`` kernel
    (:attr:`mctslab.games.kernels.RuleKernels.move_bias`), a Python state's
    ``move_bias(action)`` method, else ``None`` (no knowledge)."""
    game = getattr(state, "game", None)
    kernel = getattr(getattr(game, "kernels", None), "move_bias", None)
    if kernel is not None:
        params = game.params  # type: ignore[union-attr]

        def kernel_bias(s: State, a: int) -> float:
            return float(kernel(s.array, params, a))  # type: ignore[attr-defined]

        return kernel_bias
    if hasattr(state, "move_bias"):
        return lambda s, a: float(s.move_bias(a))  # type: ignore[attr-defined]
    return None


#: ``(beta, b)``: the weight of a game's move prior and the prior (or ``None``: none).
Biases = tuple[float, MoveBias] | None

#: ``polish(start, moves) -> score``: a game's local search over a finished sequence.
Polisher = Callable[[State, list[int]], float]


def move_polisher(state: State) -> Polisher | None:
    """A kernel game's ``polish`` kernel (:attr:`mctslab.games.kernels.RuleKernels.polish`)
    or a Python state's ``polish(moves) -> score`` method, as ``polish(start, moves) ->
    score``: ``moves`` (a sequence from ``start`` to the end) reordered in place into one
    at least as good, and its score; else ``None`` (the game has no local search)."""
    game = getattr(state, "game", None)
    kernel = getattr(getattr(game, "kernels", None), "polish", None)
    if kernel is not None:
        params = game.params  # type: ignore[union-attr]

        def kernel_polish(start: State, moves: list[int]) -> float:
            seq = np.array(moves, dtype=np.int64)
            score = float(kernel(start.array, params, seq, len(moves)))  # type: ignore[attr-defined]
            moves[:] = [int(a) for a in seq]
            return score

        return kernel_polish
    if hasattr(state, "polish"):
        return lambda start, moves: float(start.polish(moves))  # type: ignore[attr-defined]
    return None


def check_knowledge(where: str, bias: object, polish: object) -> None:
    """Refuse a bias weight outside ``[0, 1000]`` or a ``polish`` that is not a bool."""
    if not isinstance(bias, int | float) or isinstance(bias, bool) or not 0 <= bias <= 1000:
        raise InvalidConfigError(f"{where}: bias must be in [0, 1000], got {bias!r}")
    if not isinstance(polish, bool):
        raise InvalidConfigError(f"{where}: polish must be true or false, got {polish!r}")


def knowledge(
    state: State, where: str, beta: float, polish: bool
) -> tuple[Biases, Polisher | None]:
    """The playouts' knowledge for a search from ``state``: ``(beta, the game's move
    prior)`` if ``beta > 0`` and the game has a prior (else ``None``), and the game's
    polisher if ``polish`` (a game without one is refused)."""
    polisher = move_polisher(state) if polish else None
    if polish and polisher is None:
        name = getattr(getattr(state, "game", None), "info", None)
        name = getattr(name, "name", "this game")
        raise InvalidConfigError(f"polish: {name} has no local search (no polish kernel)")
    b = move_biaser(state) if beta else None
    return (None if b is None else (float(beta), b)), polisher


def random_playout(state: State, rng: Rng, moves: list[int], bias: Biases = None) -> float:
    """Play random moves from ``state`` (in place) to the end, appending them to ``moves``;
    the score. Uniform: the ``k``-th legal move, ``k = rng.randint(n)``; with ``bias =
    (beta, b)``: drawn by :func:`softmax_choice` over ``beta * b(move)``. The draws of the
    compiled engine's playouts."""
    while not state.is_terminal():
        legal = state.legal_actions()
        if bias is None:
            a = legal[rng.randint(len(legal))]
        else:
            beta, b = bias
            a = legal[softmax_choice([beta * b(state, m) for m in legal], rng)]
        state.apply_action(a)
        moves.append(a)
    return float(state.returns()[0])


def playout(
    state: State, rng: Rng, moves: list[int], bias: Biases = None, polish: Polisher | None = None
) -> float:
    """:func:`random_playout` from ``state`` (in place), then, with ``polish``, the game's
    local search over the moves it made (``moves`` must be empty: it receives them): the
    score of the sequence ``moves`` ends up holding."""
    start = state.clone() if polish is not None else None
    score = random_playout(state, rng, moves, bias)
    if polish is not None and start is not None and moves:
        score = polish(start, moves)
    return score


def softmax_choice(weights: list[float], rng: Rng) -> int:
    """An index drawn with probability ``exp(w_i) / sum_j exp(w_j)`` (computed as
    ``exp(w_i - max w)``, which cannot overflow): the first ``i`` whose running sum
    passes ``u * z``, ``u = rng.random()``."""
    top = max(weights)
    exps = [math.exp(w - top) for w in weights]
    z = 0.0
    for e in exps:
        z += e
    u = rng.random() * z
    acc = 0.0
    for i, e in enumerate(exps):
        acc += e
        if u < acc:
            return i
    return len(exps) - 1
