"""What the single-player searches ask of a position beyond the game API: a move's code
(NRPA's policy is a weight per code) and the random playouts they all end with."""

from __future__ import annotations

import math
from collections.abc import Callable

from mctslab.core.game import State
from mctslab.core.rng import Rng

__all__ = ["MoveBias", "MoveCoder", "move_biaser", "move_coder", "random_playout", "softmax_choice"]

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


def random_playout(state: State, rng: Rng, moves: list[int]) -> float:
    """Play uniformly random moves from ``state`` (in place) to the end, appending them to
    ``moves``; the score. The ``k``-th legal move, ``k = rng.randint(n)``: the draws of the
    compiled engine's playouts."""
    while not state.is_terminal():
        legal = state.legal_actions()
        a = legal[rng.randint(len(legal))]
        state.apply_action(a)
        moves.append(a)
    return float(state.returns()[0])


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
