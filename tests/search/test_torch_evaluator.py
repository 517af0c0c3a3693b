"""PUCT with a PyTorch network as its evaluator (the ``nn`` extra): both engines, and a
network of the wrong shape."""

from __future__ import annotations

from typing import Any

import pytest

from conftest import require_extra

torch = require_extra("torch", "nn")

import mctslab  # noqa: E402
from mctslab.search.config import SearchConfig  # noqa: E402
from mctslab.search.engine import search  # noqa: E402
from mctslab.search.evaluators import EvaluatorError  # noqa: E402
from mctslab.search.puct import PuctConfig  # noqa: E402


class TinyNet(torch.nn.Module):  # type: ignore[misc]
    """A seeded linear policy and value over Connect Four's observation."""

    def __init__(self, actions: int = 7, wrong: bool = False) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.body = torch.nn.Linear(3 * 6 * 7, actions + (3 if wrong else 0) + 1)
        self.actions = actions + (3 if wrong else 0)

    def forward(self, x: Any) -> tuple[Any, Any]:
        out = self.body(x.flatten(1))
        return out[:, : self.actions], torch.tanh(out[:, self.actions])


def test_a_torch_network_is_an_evaluator_in_both_engines() -> None:
    state = mctslab.make("connect_four").state_from_actions([3, 3])
    config = SearchConfig(iterations=300, seed=2, puct=PuctConfig(evaluator=TinyNet(), batch=8))
    ref = search(state, config, engine="reference")
    comp = search(state, config, engine="compiled")
    assert comp.children == ref.children and comp.nodes == ref.nodes
    assert sum(ch.prior or 0.0 for ch in comp.children) == pytest.approx(1.0)


def test_a_network_with_the_wrong_output_shape_gets_a_clear_error() -> None:
    state = mctslab.make("connect_four").new_initial_state()
    config = SearchConfig(iterations=50, puct=PuctConfig(evaluator=TinyNet(wrong=True)))
    for engine in ("reference", "compiled"):
        with pytest.raises(EvaluatorError, match=r"policy has shape \(1, 10\); expected \(1, 7\)"):
            search(state, config, engine=engine)
