"""The lecture's cut-off rule in full (``simulation="verdict"``): a playout judged by
the heuristic every ``verdict_every`` plies, a clear verdict ending it as a win."""

from __future__ import annotations

import pytest

import mctslab
from mctslab.core.errors import InvalidConfigError
from mctslab.core.rng import Rng
from mctslab.search.config import SearchConfig
from mctslab.search.engine import search
from mctslab.search.mcts import MCTS
from mctslab.search.puct import PuctConfig
from mctslab.search.reference.phases import simulate
from mctslab.search.reference.tree import SearchTree

C4 = mctslab.make("connect_four")


def _tree(state: mctslab.State, config: SearchConfig) -> SearchTree:
    return MCTS(config).prepare(state)


def test_a_clear_verdict_ends_the_playout_as_a_win() -> None:
    # x has three in a row on the bottom with both ends open: the heuristic favours x.
    state = C4.state_from_actions([2, 2, 3, 3, 4])
    h = state.heuristic()  # type: ignore[attr-defined]
    assert h[0] > 0.1 and h[1] == -h[0]
    config = SearchConfig(simulation="verdict", verdict_every=1, verdict_threshold=h[0] / 2)
    played = state.clone()
    assert simulate(played, _tree(state, config)) == [1.0, 0.0]
    assert played.history() == state.history()  # judged at once, no move played


def test_without_a_clear_verdict_the_playout_is_the_random_one() -> None:
    """A threshold the heuristic never reaches: the same moves, to the end, as a random
    playout from the same generator state (judging draws no random number)."""
    state = C4.state_from_actions([3])
    for seed in range(20):
        verdict = SearchConfig(simulation="verdict", verdict_threshold=1.0, seed=seed)
        plain = SearchConfig(simulation="random", seed=seed)
        a, b = state.clone(), state.clone()
        ta, tb = _tree(state, verdict), _tree(state, plain)
        ta.rng, tb.rng = Rng(seed), Rng(seed)
        assert simulate(a, ta) == simulate(b, tb)
        assert a.history() == b.history() and a.is_terminal()


@pytest.mark.parametrize(
    ("game", "moves", "every", "threshold", "puct"),
    [
        ("connect_four", [3, 3], 1, 0.5, False),
        ("connect_four", [3, 3], 4, 0.9, True),
        ("connect_four", [], 2, 0.3, False),
        ("bohnenspiel", [], 1, 0.5, False),
        ("bohnenspiel", [], 4, 0.9, True),
        ("tic_tac_toe", [], 2, 0.3, False),
    ],
)
def test_both_engines_build_the_same_tree(
    game: str, moves: list[int], every: int, threshold: float, puct: bool
) -> None:
    state = mctslab.make(game).state_from_actions(moves)
    config = SearchConfig(
        iterations=800,
        seed=2,
        simulation="verdict",
        verdict_every=every,
        verdict_threshold=threshold,
        puct=PuctConfig() if puct else None,
    )
    ref = search(state, config, engine="reference")
    comp = search(state, config, engine="compiled")
    assert comp.children == ref.children and comp.nodes == ref.nodes


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("verdict_every", 0),
        ("verdict_every", 1.5),
        ("verdict_threshold", 0.0),
        ("verdict_threshold", 1.5),
    ],
)
def test_bad_verdict_options_are_refused(option: str, value: object) -> None:
    with pytest.raises(InvalidConfigError, match=option):
        SearchConfig(**{option: value})  # type: ignore[arg-type]


def test_a_verdict_needs_the_games_heuristic() -> None:
    kuhn = mctslab.make("kuhn_poker").state_from_actions([0, 1])
    with pytest.raises(InvalidConfigError, match="heuristic"):
        MCTS(SearchConfig(simulation="verdict")).search(kuhn)
