"""Network evaluations per second: the ways to run the shipped Connect Four network, side by side.

Run ``python benchmarks/bench_inference.py [--model connect_four] [--threads 1] [--seconds 1]``.

The same network (``az:model=connect_four``'s: 3 residual blocks of 32 channels, ~2.4 M
multiply-adds a position) on the same positions (from random games, the player to move's
observation), at batch 1, 8, 32 and 64, through each inference path this machine has:

- ``torch``: PyTorch eager in ``inference_mode`` (what ``TorchEvaluator`` runs today);
- ``torchscript``: traced, frozen and ``optimize_for_inference`` (oneDNN's fused kernels);
- ``onnxruntime``: exported with ``torch.onnx.export`` (``onnx`` needed to export) and run
  by ONNX Runtime's CPU provider, when ``onnxruntime`` is installed;
- ``numba``: ``mctslab.nn.compiled.CompiledResNet``, the forward pass compiled with batch
  normalisation folded into the convolutions (im2col and ``sgemm``).

Every path runs on ``--threads`` threads (1 by default: the players set PyTorch to one
thread, see ``mctslab.players.network``); BLAS (numba's ``np.dot``) on one unless
``OPENBLAS_NUM_THREADS`` says otherwise (its threads spinning on a busy machine made the
numba path 60 times slower at batch 8). For each path and batch size: the evaluations
per second (positions, not calls), the best of 5 timed rounds of about ``--seconds`` /
5 each, after a warm-up call; and the largest difference from PyTorch's logits and values
on the same 64 positions (each path must agree to 1e-5). The ratios to ``torch`` at the
same batch size are in the same run, on the same work.

Writes ``benchmarks/results/inference.json`` (date, machine, versions). Exits 0 whatever it
measures.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy loads BLAS

import numpy as np
from common import save_part

import mctslab

RESULTS = Path(__file__).resolve().parent / "results"
OUT = RESULTS / "inference.json"
BATCHES = (1, 8, 32, 64)

Forward = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]


def positions(game: Any, count: int, seed: int) -> np.ndarray:
    """Observations of positions from random games."""
    rng = mctslab.core.rng.Rng(seed)
    seen: list[np.ndarray] = []
    while len(seen) < count:
        state = game.new_initial_state()
        while not state.is_terminal() and len(seen) < count:
            seen.append(np.asarray(state.observation_tensor(state.current_player()), np.float32))
            legal = state.legal_actions()
            state.apply_action(legal[rng.randint(len(legal))])
    return np.stack(seen).reshape(count, *game.observation_shape())


def paths(net: Any, x: np.ndarray, threads: int) -> dict[str, Forward | str]:
    """Each inference path's forward function (numpy in, numpy out), or why it is absent."""
    import torch

    from mctslab.nn.compiled import CompiledResNet

    def eager(batch: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        with torch.inference_mode():
            logits, values = net(torch.from_numpy(batch))
        return logits.numpy(), values.numpy()

    example = torch.from_numpy(x[:1])
    with torch.inference_mode():
        scripted = torch.jit.optimize_for_inference(torch.jit.freeze(torch.jit.trace(net, example)))

    def script(batch: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        with torch.inference_mode():
            logits, values = scripted(torch.from_numpy(batch))
        return logits.numpy(), values.numpy()

    found: dict[str, Forward | str] = {"torch": eager, "torchscript": script}
    try:
        import onnxruntime as ort

        blob = io.BytesIO()
        torch.onnx.export(
            net, (example,), blob, input_names=["obs"], output_names=["logits", "value"],
            dynamic_axes={"obs": {0: "b"}, "logits": {0: "b"}, "value": {0: "b"}}, dynamo=False,
        )  # fmt: skip
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        session = ort.InferenceSession(blob.getvalue(), options, providers=["CPUExecutionProvider"])

        def onnx(batch: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            logits, values = session.run(None, {"obs": batch})
            return logits, values

        found["onnxruntime"] = onnx
    except ImportError as err:
        found["onnxruntime"] = f"not installed ({err.name})"
    compiled = CompiledResNet.from_module(net)
    found["numba"] = lambda batch: compiled(batch)
    return found


def rate(forward: Forward, batch: np.ndarray, seconds: float) -> float:
    """Evaluations a second: the best of 5 rounds of about ``seconds / 5`` each."""
    forward(batch)
    start = time.perf_counter()
    forward(batch)
    once = max(time.perf_counter() - start, 1e-6)
    calls = max(3, int(seconds / 5 / once))
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(calls):
            forward(batch)
        best = min(best, (time.perf_counter() - start) / calls)
    return len(batch) / best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="connect_four", help="a shipped network")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=1.0, help="timing per path and batch")
    args = parser.parse_args(argv)
    import torch

    from mctslab.players.network import load_model, resolve_model

    game = mctslab.make(args.model)
    net = load_model(resolve_model(args.model), game)
    torch.set_num_threads(args.threads)
    x = positions(game, max(BATCHES), seed=0)
    with torch.inference_mode():
        want_logits, want_values = (t.numpy() for t in net(torch.from_numpy(x)))
    rows: dict[str, Any] = {}
    for name, forward in paths(net, x, args.threads).items():
        if isinstance(forward, str):
            rows[name] = {"absent": forward}
            print(f"{name:>12}: {forward}")
            continue
        logits, values = forward(x)
        diff = max(
            float(np.abs(logits - want_logits).max()), float(np.abs(values - want_values).max())
        )
        rates = {str(b): rate(forward, np.ascontiguousarray(x[:b]), args.seconds) for b in BATCHES}
        rows[name] = {"evals_per_s": rates, "max_abs_diff": diff}
        print(
            f"{name:>12}: "
            + ", ".join(f"batch {b} {r:,.0f}/s" for b, r in rates.items())
            + f"  (max |diff| {diff:.1e})",
            flush=True,
        )
    base = rows["torch"]["evals_per_s"]
    for row in rows.values():
        if "evals_per_s" in row:
            row["x_torch"] = {b: r / base[b] for b, r in row["evals_per_s"].items()}
    data = {
        "command": "python benchmarks/bench_inference.py " + " ".join(argv or sys.argv[1:]),
        "model": args.model,
        "threads": args.threads,
        "positions": "64 from random games (seed 0), the player to move's observation",
        "paths": rows,
    }
    save_part(OUT, f"{args.model}_threads{args.threads}", data, ["torch", "onnxruntime", "numba"])
    print(f"written {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
