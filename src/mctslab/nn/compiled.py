"""The residual network's forward pass in numba: the same numbers as PyTorch, no PyTorch
call per batch.

A small network asked about one or a few positions at a time spends most of its time
outside the arithmetic: PyTorch dispatches some 25 modules a call, each with its own
checks and allocations. The shipped Connect Four network is ~2.4 M multiply-adds a
position (3 residual blocks of 32 channels on 6 x 7 cells); at batch 1 the dispatch
costs more than the convolutions. Here the whole forward pass is one compiled function
(:func:`resnet_forward`), callable from Python or from other compiled code:

- batch normalisation (eval mode) is folded into the convolution before it: a weight
  ``w * g / sqrt(v + eps)`` and a bias ``b - m * g / sqrt(v + eps)`` per output
  channel (Ioffe and Szegedy 2015; the usual inference-time fusion);
- a 3x3 convolution with padding 1 is *im2col* then one matrix product: each cell's
  3 x 3 x ``C`` neighbourhood becomes a row, multiplied by the ``9 C x C'`` weights
  (``np.dot`` on float32, BLAS's ``sgemm``), over all cells of all positions at once;
- activations are kept cells-major (``[B, rows, columns, channels]``); the heads'
  flattening follows PyTorch's ``(channel, row, column)`` order, so the linear layers'
  weights are used as they are.

:class:`CompiledResNet` holds the folded weights of a :class:`~mctslab.nn.networks.ResNet`
and is an evaluator's function: ``logits, values = CompiledResNet.from_module(net)(x)``.
It agrees with PyTorch's outputs to float32 rounding (tests: 1e-5 on random positions
and on the shipped networks).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

from mctslab.core.errors import InvalidConfigError
from mctslab.nn.networks import ResNet

__all__ = ["CompiledResNet", "resnet_forward"]

F32 = npt.NDArray[np.float32]


@njit(cache=True)
def _im2col3(h, out):  # type: ignore[no-untyped-def]
    """Rows of the 3 x 3 neighbourhoods (zero outside the board) of ``h`` [B, R, C, K]:
    ``out[(b * R + r) * C + c, (kr * 3 + kc) * K + k]``."""
    n, rows, cols, k = h.shape
    out[:] = 0.0
    for b in range(n):
        for r in range(rows):
            for c in range(cols):
                row = (b * rows + r) * cols + c
                for kr in range(3):
                    rr = r + kr - 1
                    if rr < 0 or rr >= rows:
                        continue
                    for kc in range(3):
                        cc = c + kc - 1
                        if cc < 0 or cc >= cols:
                            continue
                        base = (kr * 3 + kc) * k
                        for i in range(k):
                            out[row, base + i] = h[b, rr, cc, i]


@njit(cache=True)
def _conv3(h, w, bias, cols):  # type: ignore[no-untyped-def]
    """A 3x3 convolution (padding 1) of ``h`` [B, R, C, K] with folded weights ``w``
    [9 K, K'] and ``bias`` [K']: [B * R * C, K'] before the activation."""
    _im2col3(h, cols)
    return np.dot(cols, w) + bias


@njit(cache=True)
def _relu(x):  # type: ignore[no-untyped-def]
    return np.maximum(x, np.float32(0.0))


@njit(cache=True)
def resnet_forward(x, weights):  # type: ignore[no-untyped-def]
    """The forward pass of :class:`~mctslab.nn.networks.ResNet` on observations ``x``
    [B, planes, rows, columns] (float32): ``(policy logits [B, A], values [B])``.

    ``weights`` is :attr:`CompiledResNet.weights`: the stem's and the tower's folded 3x3
    convolutions (``[9 K, K']`` and ``[2 blocks, 9 C, C]``), the heads' folded 1x1
    convolutions and their linear layers (``[out, in]`` as PyTorch stores them).
    """
    stem_w, stem_b, tower_w, tower_b, pw, pb, plw, plb, vw, vb, v1w, v1b, v2w, v2b = weights
    n, planes, rows, cols = x.shape
    cells = rows * cols
    channels = stem_w.shape[1]
    h0 = np.empty((n, rows, cols, planes), dtype=np.float32)
    for b in range(n):
        for p in range(planes):
            for r in range(rows):
                for c in range(cols):
                    h0[b, r, c, p] = x[b, p, r, c]
    scratch = np.empty((n * cells, 9 * planes), dtype=np.float32)
    h = _relu(_conv3(h0, stem_w, stem_b, scratch)).reshape(n, rows, cols, channels)
    cols9 = np.empty((n * cells, 9 * channels), dtype=np.float32)
    for i in range(tower_w.shape[0] // 2):
        y = _relu(_conv3(h, tower_w[2 * i], tower_b[2 * i], cols9)).reshape(n, rows, cols, channels)
        z = _conv3(y, tower_w[2 * i + 1], tower_b[2 * i + 1], cols9)
        h = _relu(h.reshape(n * cells, channels) + z).reshape(n, rows, cols, channels)
    flat = h.reshape(n * cells, channels)
    p = _relu(np.dot(flat, pw) + pb)  # [B * cells, 2]
    pflat = np.empty((n, pw.shape[1] * cells), dtype=np.float32)
    for b in range(n):
        for k in range(pw.shape[1]):
            for cell in range(cells):
                pflat[b, k * cells + cell] = p[b * cells + cell, k]
    logits = np.dot(pflat, plw.T) + plb
    v = _relu(np.dot(flat, vw) + vb).reshape(n, cells)
    v1 = _relu(np.dot(v, v1w.T) + v1b)
    values = np.tanh(np.dot(v1, v2w.T) + v2b)[:, 0]
    return logits, values


def _fold(conv: Any, bn: Any) -> tuple[F32, F32]:
    """A bias-free convolution followed by eval-mode batch normalisation, as one
    convolution: weights ``[kh * kw * in, out]`` (row order kh, kw, in) and a bias."""
    import torch

    with torch.no_grad():
        scale = bn.weight / torch.sqrt(bn.running_var + bn.eps)
        w = conv.weight * scale[:, None, None, None]  # [out, in, kh, kw]
        bias = bn.bias - bn.running_mean * scale
        mat = w.permute(2, 3, 1, 0).reshape(-1, w.shape[0])
    return (
        np.ascontiguousarray(mat.numpy(), dtype=np.float32),
        np.ascontiguousarray(bias.numpy(), dtype=np.float32),
    )


def _linear(layer: Any) -> tuple[F32, F32]:
    weight = layer.weight.detach().numpy()
    return (
        np.ascontiguousarray(weight, dtype=np.float32),
        np.ascontiguousarray(layer.bias.detach().numpy(), dtype=np.float32),
    )


@dataclass(frozen=True, eq=False)
class CompiledResNet:
    """A :class:`~mctslab.nn.networks.ResNet`'s folded weights for :func:`resnet_forward`.

    ``net(x)`` with ``x`` [B, planes, rows, columns] float32 gives ``(logits [B, A],
    values [B])`` as numpy float32 arrays, PyTorch's numbers to float32 rounding.
    """

    weights: tuple[F32, ...]
    observation_shape: tuple[int, int, int]

    @classmethod
    def from_module(cls, net: Any) -> CompiledResNet:
        """Fold the weights of ``net`` (a ``ResNet``; its batch normalisation as in eval mode)."""
        if not isinstance(net, ResNet):
            raise InvalidConfigError(
                f"the compiled forward pass takes a ResNet, got {type(net).__name__}"
            )
        stem_w, stem_b = _fold(net.stem[0], net.stem[1])
        tower = [
            pair
            for blk in net.tower
            for pair in (_fold(blk.conv1, blk.bn1), _fold(blk.conv2, blk.bn2))
        ]
        channels = stem_w.shape[1]
        tower_w = (
            np.stack([w for w, _ in tower])
            if tower
            else np.zeros((0, 9 * channels, channels), np.float32)
        )
        tower_b = np.stack([b for _, b in tower]) if tower else np.zeros((0, channels), np.float32)
        pw, pb = _fold(net.policy[0], net.policy[1])
        plw, plb = _linear(net.policy[4])
        vw, vb = _fold(net.value[0], net.value[1])
        v1w, v1b = _linear(net.value[4])
        v2w, v2b = _linear(net.value[6])
        weights = (stem_w, stem_b, tower_w, tower_b, pw, pb, plw, plb, vw, vb, v1w, v1b, v2w, v2b)
        return cls(tuple(np.ascontiguousarray(w) for w in weights), net.observation_shape)

    def __call__(self, x: npt.ArrayLike) -> tuple[F32, F32]:
        obs = np.ascontiguousarray(x, dtype=np.float32)
        if obs.ndim != 4 or tuple(obs.shape[1:]) != self.observation_shape:
            raise InvalidConfigError(
                f"observations must be [batch, {', '.join(map(str, self.observation_shape))}], "
                f"got {list(obs.shape)}"
            )
        return resnet_forward(obs, self.weights)  # type: ignore[no-any-return]
