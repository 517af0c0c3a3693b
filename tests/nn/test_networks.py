"""The policy-value networks (``mctslab.nn.networks``): shapes, the evaluator contract
in both engines, seeded weights, bad sizes."""

from __future__ import annotations

import pytest

from conftest import require_extra

torch = require_extra("torch", "nn")

import mctslab  # noqa: E402
from mctslab.core.errors import InvalidConfigError  # noqa: E402
from mctslab.nn.networks import MLP, ResNet, make_network, parameter_count  # noqa: E402
from mctslab.search.config import SearchConfig  # noqa: E402
from mctslab.search.engine import search  # noqa: E402
from mctslab.search.puct import PuctConfig  # noqa: E402


@pytest.mark.parametrize(
    ("game", "kind"),
    [
        ("tic_tac_toe", ResNet),
        ("connect_four", ResNet),
        ("nim", MLP),
        ("bachet", MLP),
        ("bohnenspiel", MLP),
    ],
)
def test_a_network_for_every_kernel_game_keeps_the_evaluator_contract(
    game: str, kind: type
) -> None:
    g = mctslab.make(game)
    net = make_network(g).eval()
    assert isinstance(net, kind)
    state = g.new_initial_state()
    x = (
        torch.from_numpy(state.observation_tensor())
        .unsqueeze(0)
        .repeat(5, *[1] * len(g.observation_shape()))
    )  # type: ignore[attr-defined]
    with torch.inference_mode():
        logits, value = net(x)
    assert tuple(logits.shape) == (5, g.info.num_actions)
    assert tuple(value.shape) == (5,)
    assert bool(((value >= -1) & (value <= 1)).all())


def test_weights_come_from_the_seed_and_leave_torchs_generator_alone() -> None:
    c4 = mctslab.make("connect_four")
    torch.manual_seed(123)
    before = torch.rand(1)
    torch.manual_seed(123)
    a = make_network(c4, seed=7)
    after = torch.rand(1)
    b = make_network(c4, seed=7)
    c = make_network(c4, seed=8)
    assert torch.equal(before, after)  # the global generator's stream is unchanged
    for pa, pb in zip(a.parameters(), b.parameters(), strict=True):
        assert torch.equal(pa, pb)
    assert any(
        not torch.equal(pa, pc) for pa, pc in zip(a.parameters(), c.parameters(), strict=True)
    )
    assert parameter_count(make_network(c4, channels=64, blocks=4)) > parameter_count(a)


@pytest.mark.parametrize("game", ["tic_tac_toe", "nim"])
def test_a_network_guides_puct_identically_in_both_engines(game: str) -> None:
    g = mctslab.make(game)
    net = make_network(g, seed=3)
    config = SearchConfig(iterations=200, seed=1, puct=PuctConfig(evaluator=net, batch=4))
    state = g.new_initial_state()
    ref = search(state, config, engine="reference")
    comp = search(state, config, engine="compiled")
    assert comp.children == ref.children and comp.nodes == ref.nodes


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"kind": "transformer"}, "unknown network kind"),
        ({"channels": 0}, "channels"),
        ({"blocks": -1}, "blocks"),
        ({"hidden": 2.5}, "hidden"),
        ({"kind": "resnet", "_game": "nim"}, "planes, rows, columns"),
    ],
)
def test_bad_network_options_are_refused(options: dict[str, object], message: str) -> None:
    game = mctslab.make(str(options.pop("_game", "connect_four")))
    with pytest.raises(InvalidConfigError, match=message):
        make_network(game, **options)  # type: ignore[arg-type]
    with pytest.raises(InvalidConfigError, match="no observation tensor"):
        make_network(mctslab.make("kuhn_poker"))
