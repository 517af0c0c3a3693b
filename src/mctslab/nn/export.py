"""A network exported to ONNX, for ONNX Runtime
(:class:`~mctslab.search.evaluators.OnnxEvaluator`).

:func:`onnx_bytes` writes a policy-value network as an ONNX graph with a dynamic batch
size: one input, ``observations`` ``[B, *shape]`` float32; two outputs,
``policy_logits`` ``[B, A]`` and ``value`` ``[B]``: the evaluator contract of
:class:`~mctslab.search.evaluators.TorchEvaluator`. Exporting needs the ``onnx`` package
(PyTorch's exporter builds the graph with it); running the exported file needs only
``onnxruntime``, which is why the shipped networks come with their ``.onnx`` beside the
``.pt`` (``mctslab.players.network``).
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Sequence
from typing import Any

import torch

from mctslab.core.errors import InvalidConfigError

__all__ = ["ExportError", "onnx_bytes"]


class ExportError(InvalidConfigError):
    """A network that cannot be exported here (the ``onnx`` package missing)."""


def onnx_bytes(net: Any, observation_shape: Sequence[int]) -> bytes:
    """``net`` (in eval mode) as an ONNX graph, batch size dynamic (opset 17)."""
    try:
        import onnx  # type: ignore[import-not-found, import-untyped, unused-ignore] # noqa: F401
    except ImportError as err:
        raise ExportError(
            "exporting a network to ONNX needs the onnx package: pip install 'mctslab[nn]'"
        ) from err
    example = torch.zeros(1, *observation_shape, dtype=torch.float32)
    blob = io.BytesIO()
    net.eval()
    with warnings.catch_warnings():  # the TorchScript-based exporter's deprecation notices
        warnings.simplefilter("ignore")
        torch.onnx.export(
            net,
            (example,),
            blob,  # type: ignore[arg-type]
            input_names=["observations"],
            output_names=["policy_logits", "value"],
            dynamic_axes={
                "observations": {0: "batch"},
                "policy_logits": {0: "batch"},
                "value": {0: "batch"},
            },
            opset_version=17,
            dynamo=False,
        )
    return blob.getvalue()
