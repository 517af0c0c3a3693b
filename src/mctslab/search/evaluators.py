"""Evaluators: what PUCT asks of a position in place of (or beside) a random playout.

AlphaGo (Silver et al. 2016, "Mastering the game of Go with deep neural networks and
tree search") guided MCTS with two learned functions of a position: a *policy*, the
prior probability ``P(s, a)`` of each move, which weights the exploration term of
the selection rule, and a *value*, the expected outcome for the player to move,
which replaces (or, with AlphaGo's ``lambda``, is mixed with) the random playout.
An evaluator is that pair of functions, asked for a batch of positions at once::

    priors, values = evaluator.evaluate(batch)     # priors [B, A], values [B]

``batch`` is a :class:`LeafBatch`: the positions (``states``), their observation
tensors (``observations``, ``[B, *game.observation_shape()]`` float32, built on first
use), the legal moves (``legal_mask``, ``[B, A]`` bool) and the player to move
(``to_play``, ``[B]``). ``priors`` are non-negative weights over the game's ``A``
actions: the engine keeps the legal ones and divides by their sum (a network's raw
softmax is fine; illegal entries are ignored). ``values`` are in ``[-1, 1]``, for the
player to move (``+1``: a sure win); with rewards in ``[0, 1]`` the engine backs up
``(v + 1) / 2`` for the player to move and ``(1 - v) / 2`` for the other player, so a
learned value needs a two-player zero-sum game.

Built in (by name, ``make_evaluator("...")``):

- ``"uniform+rollout"``: uniform priors, value from one random playout (phase 3 as in
  plain MCTS): PUCT's counterpart of UCT, for any number of players;
- ``"uniform"``: uniform priors, value 0 (a draw): the trivial evaluator that measures
  the search's own overhead;
- ``"heuristic"``: uniform priors, value from the game's ``heuristic()`` (any number of
  players).

and around user code: :class:`FunctionEvaluator` (any ``fn(batch) -> (priors,
values)``), :class:`TorchEvaluator` (a ``torch.nn.Module`` mapping observations
``[B, *shape]`` to ``(policy_logits [B, A], value [B] or [B, 1])``; the ``nn`` extra) and
:class:`OnnxEvaluator` (the same network exported to ONNX, run by ONNX Runtime: several
times PyTorch's evaluations a second at the small batches a search asks for, see
``benchmarks/bench_inference.py``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import GameInfo, State, heuristic_or_none

__all__ = [
    "BUILTIN_EVALUATORS",
    "Evaluator",
    "EvaluatorError",
    "FunctionEvaluator",
    "HeuristicEvaluator",
    "LeafBatch",
    "OnnxEvaluator",
    "TorchEvaluator",
    "UniformEvaluator",
    "UniformRolloutEvaluator",
    "check_output",
    "make_evaluator",
]

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]


class EvaluatorError(InvalidConfigError):
    """An evaluator that cannot be used: unknown name, wrong output shape, values out of
    range, priors that give no weight to any legal move."""


class LeafBatch:
    """The positions an evaluator is asked about, in one call.

    ``states`` and ``observations`` are built on first use (the compiled engine hands
    over observation tensors it computed in compiled code, and builds :class:`State`
    objects only for an evaluator that reads them).
    """

    def __init__(
        self,
        legal_mask: BoolArray,
        to_play: npt.NDArray[np.int64],
        *,
        states: Sequence[State] | None = None,
        observations: npt.NDArray[np.float32] | None = None,
        make_states: Callable[[], Sequence[State]] | None = None,
    ) -> None:
        self.legal_mask = legal_mask
        self.to_play = to_play
        self._states = states
        self._observations = observations
        self._make_states = make_states

    def __len__(self) -> int:
        return int(self.legal_mask.shape[0])

    @classmethod
    def concat(cls, batches: Sequence[LeafBatch]) -> LeafBatch:
        """One batch of the leaves of ``batches``, in order (many searches, one call)."""
        have_obs = all(b._observations is not None for b in batches)

        def states() -> list[State]:
            return [s for b in batches for s in b.states]

        return cls(
            np.concatenate([b.legal_mask for b in batches]),
            np.concatenate([b.to_play for b in batches]),
            observations=np.concatenate([b.observations for b in batches]) if have_obs else None,
            make_states=states,
        )

    @property
    def states(self) -> Sequence[State]:
        """The positions (:class:`~mctslab.core.game.State`)."""
        if self._states is None:
            if self._make_states is None:
                raise EvaluatorError("this batch carries observations only, no states")
            self._states = self._make_states()
        return self._states

    @property
    def observations(self) -> npt.NDArray[np.float32]:
        """Observation tensors of the player to move, ``[B, *observation_shape]`` float32."""
        if self._observations is None:
            tensors = []
            for state in self.states:
                tensor = getattr(state, "observation_tensor", None)
                if tensor is None:
                    raise EvaluatorError(
                        "this evaluator reads observation tensors, and the game's states "
                        "have no observation_tensor()"
                    )
                tensors.append(np.asarray(tensor(), dtype=np.float32))
            self._observations = np.stack(tensors)
        return self._observations


@runtime_checkable
class Evaluator(Protocol):
    """Priors and values for a batch of positions (see the module docstring)."""

    def evaluate(self, batch: LeafBatch) -> tuple[Any, Any]: ...


class UniformRolloutEvaluator:
    """Uniform priors; the value comes from one random playout, which the engine plays
    in phase 3 (so the playout draws from the search's generator, in both engines)."""

    name = "uniform+rollout"
    rollout = True
    #: Built in: both engines compute it themselves (``1 / n`` priors, the value of
    #: :meth:`leaf_value`), in compiled code where the compiled engine runs.
    builtin = True

    def leaf_value(self, state: State, to_play: int) -> float | None:
        """The value for ``to_play``, or ``None``: a playout decides."""
        return None

    def evaluate(self, batch: LeafBatch) -> tuple[FloatArray, FloatArray]:
        # Only the priors matter: the engine replaces the value by its playout's.
        return _uniform(batch), np.zeros(len(batch))


class UniformEvaluator:
    """Uniform priors and value 0: no knowledge, the search's own cost alone."""

    name = "uniform"
    rollout = False
    builtin = True

    def leaf_value(self, state: State, to_play: int) -> float | None:
        return 0.0

    def evaluate(self, batch: LeafBatch) -> tuple[FloatArray, FloatArray]:
        return _uniform(batch), np.zeros(len(batch))


class HeuristicEvaluator:
    """Uniform priors; the value is the game's ``heuristic()`` for the player to move."""

    name = "heuristic"
    rollout = False
    builtin = True

    def leaf_value(self, state: State, to_play: int) -> float | None:
        h = heuristic_or_none(state)
        if h is None:
            raise EvaluatorError("evaluator='heuristic' needs the game's heuristic()")
        return min(1.0, max(-1.0, h[to_play]))

    def evaluate(self, batch: LeafBatch) -> tuple[FloatArray, FloatArray]:
        values = np.zeros(len(batch))
        for i, state in enumerate(batch.states):
            h = heuristic_or_none(state)
            if h is None:
                raise EvaluatorError("evaluator='heuristic' needs the game's heuristic()")
            values[i] = h[int(batch.to_play[i])]
        return _uniform(batch), values


def _uniform(batch: LeafBatch) -> FloatArray:
    mask = batch.legal_mask.astype(np.float64)
    uniform: FloatArray = mask / np.maximum(mask.sum(axis=1, keepdims=True), 1.0)
    return uniform


class FunctionEvaluator:
    """A user's function ``fn(batch: LeafBatch) -> (priors [B, A], values [B])``."""

    rollout = False

    def __init__(self, fn: Callable[[LeafBatch], tuple[Any, Any]], name: str = "function"):
        if not callable(fn):
            raise EvaluatorError(f"FunctionEvaluator needs a callable, got {fn!r}")
        self.fn = fn
        self.name = name

    def evaluate(self, batch: LeafBatch) -> tuple[Any, Any]:
        return self.fn(batch)


class TorchEvaluator:
    """A PyTorch network as an evaluator (the ``nn`` extra).

    ``module(observations)`` takes ``[B, *observation_shape]`` float32 and returns
    ``(policy_logits [B, A], value [B] or [B, 1])``, the value in ``[-1, 1]`` for the
    player to move (``tanh``). Illegal moves' logits are masked before the softmax.
    Runs in ``torch.inference_mode()`` on ``device``, in eval mode.
    """

    rollout = False

    def __init__(self, module: Any, device: str = "cpu", name: str = "torch") -> None:
        try:
            import torch  # type: ignore[import-not-found, unused-ignore]
        except ImportError as err:  # pragma: no cover - the nn extra is installed in tests
            raise EvaluatorError("TorchEvaluator needs PyTorch: pip install 'mctslab[nn]'") from err
        if not isinstance(module, torch.nn.Module):
            raise EvaluatorError(f"TorchEvaluator needs a torch.nn.Module, got {module!r}")
        self.torch = torch
        self.module = module.to(device).eval()
        self.device = device
        self.name = name

    def evaluate(self, batch: LeafBatch) -> tuple[FloatArray, FloatArray]:
        torch = self.torch
        with torch.inference_mode():
            x = torch.from_numpy(np.ascontiguousarray(batch.observations)).to(self.device)
            out = self.module(x)
            if not isinstance(out, tuple | list) or len(out) != 2:
                raise EvaluatorError(
                    "a network evaluator must return (policy_logits, value), got "
                    f"{type(out).__name__}"
                )
            logits, value = out
            mask = torch.from_numpy(batch.legal_mask).to(self.device)
            if tuple(logits.shape) != tuple(mask.shape):
                raise EvaluatorError(
                    f"the network's policy has shape {tuple(logits.shape)}; expected "
                    f"{tuple(mask.shape)} (batch, number of actions)"
                )
            logits = logits.float().masked_fill(~mask, -math.inf)
            priors = torch.softmax(logits, dim=1)
            value = value.float().reshape(-1) if value.dim() == 2 else value.float()
        return priors.cpu().double().numpy(), value.cpu().double().numpy()


def masked_softmax(logits: Any, legal_mask: BoolArray) -> FloatArray:
    """The softmax of ``logits`` [B, A] over the legal moves (illegal ones get 0)."""
    z = np.where(legal_mask, np.asarray(logits, dtype=np.float64), -np.inf)
    z = np.exp(z - z.max(axis=1, keepdims=True))
    return z / z.sum(axis=1, keepdims=True)  # type: ignore[no-any-return]


class OnnxEvaluator:
    """A policy-value network exported to ONNX (``model``: the file's bytes or its path),
    run by ONNX Runtime's CPU provider on ``threads`` threads.

    The network's contract is :class:`TorchEvaluator`'s: one input, the observations
    ``[B, *shape]`` float32, and two outputs, the policy logits ``[B, A]`` and the value
    ``[B]`` (``tanh``, for the player to move). Illegal moves' logits are masked before
    the softmax. ``onnxruntime`` is imported here: :class:`EvaluatorError` if absent.
    """

    rollout = False

    def __init__(self, model: bytes | str | Any, threads: int = 1, name: str = "onnx") -> None:
        try:
            import onnxruntime as ort  # type: ignore[import-untyped, import-not-found, unused-ignore]
        except ImportError as err:
            raise EvaluatorError(
                "OnnxEvaluator needs ONNX Runtime: pip install 'mctslab[nn]'"
            ) from err
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        source = model if isinstance(model, bytes) else str(model)
        try:
            self.session = ort.InferenceSession(source, options, providers=["CPUExecutionProvider"])
        except Exception as err:  # onnxruntime's own errors: a file that is not a network
            raise EvaluatorError(f"ONNX Runtime cannot load the network: {err}") from None
        inputs, outputs = self.session.get_inputs(), self.session.get_outputs()
        if len(inputs) != 1 or len(outputs) != 2:
            raise EvaluatorError(
                "an ONNX network evaluator needs one input (observations) and two outputs "
                f"(policy logits, value); this one has {len(inputs)} and {len(outputs)}"
            )
        self.input_name = inputs[0].name
        self.name = name

    def evaluate(self, batch: LeafBatch) -> tuple[FloatArray, FloatArray]:
        x = np.ascontiguousarray(batch.observations, dtype=np.float32)
        logits, value = self.session.run(None, {self.input_name: x})
        if tuple(logits.shape) != tuple(batch.legal_mask.shape):
            raise EvaluatorError(
                f"the network's policy has shape {tuple(logits.shape)}; expected "
                f"{tuple(batch.legal_mask.shape)} (batch, number of actions)"
            )
        return masked_softmax(logits, batch.legal_mask), np.asarray(value, np.float64).reshape(-1)


#: The evaluators ``make_evaluator`` knows by name.
BUILTIN_EVALUATORS: dict[str, Callable[[], Evaluator]] = {
    "uniform+rollout": UniformRolloutEvaluator,
    "uniform": UniformEvaluator,
    "heuristic": HeuristicEvaluator,
}


def make_evaluator(spec: str | Evaluator | Callable[[LeafBatch], tuple[Any, Any]]) -> Evaluator:
    """An evaluator from a built-in name, an :class:`Evaluator`, a function of a
    :class:`LeafBatch`, or a ``torch.nn.Module``."""
    if isinstance(spec, str):
        factory = BUILTIN_EVALUATORS.get(spec)
        if factory is None:
            raise EvaluatorError(
                f"unknown evaluator {spec!r}; valid evaluators: {', '.join(BUILTIN_EVALUATORS)}"
            )
        return factory()
    if isinstance(spec, Evaluator):
        return spec
    if type(spec).__module__.startswith("torch") or _is_torch_module(spec):
        # One wrapper per module: many searchers of one network (self-play's, search_many's)
        # share it instead of each moving the module to its device again.
        # (Kept on the module: a cycle the garbage collector frees with the module.)
        cached = getattr(spec, "_mctslab_evaluator", None)
        if not isinstance(cached, TorchEvaluator):
            cached = TorchEvaluator(spec)
            setattr(spec, "_mctslab_evaluator", cached)  # noqa: B010
        return cached
    if callable(spec):
        return FunctionEvaluator(spec)
    raise EvaluatorError(f"not an evaluator: {spec!r}")


def _is_torch_module(obj: object) -> bool:
    return any(cls.__module__.startswith("torch.nn") for cls in type(obj).__mro__)


def check_output(priors: Any, values: Any, legal_mask: BoolArray) -> tuple[FloatArray, FloatArray]:
    """An evaluator's output checked and normalised: ``priors`` ``[B, A]`` with the
    illegal entries zeroed and each row summing to 1 over the legal moves, ``values``
    ``[B]`` in ``[-1, 1]``. Raises :class:`EvaluatorError` naming what is wrong."""
    b, a = legal_mask.shape
    try:
        p = np.array(priors, dtype=np.float64)
        v = np.array(values, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError) as err:
        raise EvaluatorError(f"an evaluator must return arrays of numbers: {err}") from None
    if p.shape != (b, a):
        raise EvaluatorError(
            f"the evaluator's priors have shape {p.shape}; expected {(b, a)} "
            "(batch, number of actions)"
        )
    if v.shape != (b,):
        raise EvaluatorError(f"the evaluator's values have shape {v.shape}; expected {(b,)}")
    if not np.all(np.isfinite(v)) or np.any(np.abs(v) > 1.0 + 1e-6):
        raise EvaluatorError("the evaluator's values must be finite and in [-1, 1]")
    p = np.where(legal_mask, p, 0.0)
    if not np.all(np.isfinite(p)) or np.any(p < 0):
        raise EvaluatorError("the evaluator's priors must be finite and >= 0")
    sums = p.sum(axis=1)
    if np.any(sums <= 0):
        raise EvaluatorError("the evaluator's priors give no weight to any legal move")
    return p / sums[:, None], np.clip(v, -1.0, 1.0)


def value_rewards(value: float, to_play: int, info: GameInfo) -> list[float]:
    """A value in ``[-1, 1]`` for ``to_play`` as rewards in ``[0, 1]`` for both players."""
    r = (value + 1.0) / 2.0
    rewards = [1.0 - r] * info.num_players
    rewards[to_play] = r
    return rewards
