"""PUCT (AlphaGo's selection rule) with evaluators: options, errors, known positions.

The evaluators here have known outputs: uniform priors with a playout, a perfect
evaluator (exact minimax values, priors on the optimal moves), a misleading one.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
import pytest
from ttt_positions import reachable_positions

import mctslab
from mctslab.core.errors import InvalidConfigError
from mctslab.search.config import SearchConfig
from mctslab.search.engine import search
from mctslab.search.evaluators import EvaluatorError, LeafBatch, make_evaluator
from mctslab.search.mcts import MCTS
from mctslab.search.minimax import solve
from mctslab.search.puct import PuctConfig, puct_exploration, puct_score

TTT = mctslab.make("tic_tac_toe")


@cache
def _ttt_value(key: bytes, history: tuple[int, ...]) -> tuple[float, frozenset[int]]:
    result = solve(TTT.state_from_actions(list(history)))
    return float(result.outcome), frozenset(result.best_actions)


def perfect(batch: LeafBatch) -> tuple[np.ndarray, np.ndarray]:
    """Tic-tac-toe's exact minimax value for the player to move, and priors spread over
    the optimal moves only."""
    priors = np.zeros(batch.legal_mask.shape)
    values = np.zeros(len(batch))
    for i, state in enumerate(batch.states):
        value, best = _ttt_value(state.key(), tuple(state.history()))  # type: ignore[attr-defined]
        values[i] = value
        priors[i, list(best)] = 1.0
    return priors, values


def _config(**puct: Any) -> SearchConfig:
    iterations = puct.pop("iterations", 400)
    seed = puct.pop("seed", 0)
    return SearchConfig(iterations=iterations, seed=seed, puct=PuctConfig(**puct))


def test_the_score_is_alphagos_formula() -> None:
    # Q + c * P * sqrt(N_parent) / (1 + N): 3 visits worth 2.25, prior 0.5, parent 16 visits.
    explore = puct_exploration(1.25, None, 16)
    assert explore == 1.25 * 4.0
    assert puct_score(2.25, 3, 0.5, explore, 0.0) == pytest.approx(0.75 + 5.0 * 0.5 / 4)
    assert puct_score(0.0, 0, 0.5, explore, 0.3) == pytest.approx(0.3 + 5.0 * 0.5)
    # AlphaZero's growing constant: c + log((N + base + 1) / base).
    grown = puct_exploration(1.25, 19652.0, 16)
    assert grown == pytest.approx((1.25 + np.log((16 + 19652 + 1) / 19652)) * 4.0)


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("c", -1.0),
        ("c", float("nan")),
        ("c_base", 0.0),
        ("fpu", 1.5),
        ("mix", -0.1),
        ("noise_fraction", 2.0),
        ("noise_alpha", 0.0),
        ("temperature", -1.0),
        ("batch", 0),
        ("batch", 2.5),
        ("virtual_loss", -1),
        ("evaluator", "alphazero"),
    ],
)
def test_bad_options_are_refused_with_their_name(option: str, value: object) -> None:
    with pytest.raises(InvalidConfigError, match=option if option != "evaluator" else "unknown"):
        PuctConfig(**{option: value})


def test_an_unknown_evaluator_lists_the_valid_ones() -> None:
    with pytest.raises(EvaluatorError, match=r"uniform\+rollout, uniform, heuristic"):
        make_evaluator("nn")


@pytest.mark.parametrize(
    ("output", "message"),
    [
        (lambda b: (np.ones((len(b), 5)), np.zeros(len(b))), "priors have shape"),
        (lambda b: (np.ones(b.legal_mask.shape), np.zeros(len(b) + 1)), "values have shape"),
        (lambda b: (np.ones(b.legal_mask.shape), np.full(len(b), 2.0)), r"in \[-1, 1\]"),
        (lambda b: (-np.ones(b.legal_mask.shape), np.zeros(len(b))), ">= 0"),
        (lambda b: (np.where(b.legal_mask, 0.0, 1.0), np.zeros(len(b))), "no weight"),
        (lambda b: "x", "arrays of numbers"),
    ],
)
def test_a_bad_evaluator_output_gets_a_clear_error(output: Any, message: str) -> None:
    def fn(batch: LeafBatch) -> Any:
        out = output(batch)
        return out if isinstance(out, tuple) else (out, out)

    with pytest.raises(EvaluatorError, match=message):
        MCTS(_config(evaluator=fn)).search(TTT.new_initial_state())


def test_a_value_evaluator_needs_a_two_player_zero_sum_game() -> None:
    from test_nplayer import ThreeTake

    state = ThreeTake().new_initial_state()
    with pytest.raises(InvalidConfigError, match="two-player zero-sum"):
        MCTS(_config(evaluator="uniform")).search(state)
    # uniform+rollout backs up a playout's rewards for every player: any number of players.
    assert MCTS(_config(iterations=100)).search(state).iterations == 100


def test_batches_refuse_chance_nodes() -> None:
    state = mctslab.make("pig").new_initial_state()
    with pytest.raises(InvalidConfigError, match="chance nodes"):
        MCTS(_config(evaluator="uniform", batch=4)).search(state)


def test_the_children_carry_the_evaluators_priors() -> None:
    def skewed(batch: LeafBatch) -> tuple[np.ndarray, np.ndarray]:
        weights = np.arange(1, batch.legal_mask.shape[1] + 1, dtype=float)
        return np.tile(weights, (len(batch), 1)), np.zeros(len(batch))

    result = MCTS(_config(evaluator=skewed, iterations=50)).search(TTT.new_initial_state())
    priors = [ch.prior for ch in result.children]
    assert priors == pytest.approx(list(np.arange(1, 10) / 45))
    assert result.to_dict()["children"][0]["prior"] == pytest.approx(1 / 45)
    uct = MCTS(SearchConfig(iterations=50)).search(TTT.new_initial_state())
    assert all(ch.prior is None for ch in uct.children)


def test_a_perfect_evaluator_plays_optimally_with_four_simulations() -> None:
    """Every reachable tic-tac-toe position: root evaluation plus three descents."""
    misses = []
    for history, optimal in reachable_positions():
        state = TTT.state_from_actions(list(history))
        result = MCTS(_config(evaluator=perfect, iterations=4)).search(state)
        if result.action not in optimal:
            misses.append(history)
    assert not misses


def test_a_misleading_prior_is_overcome_by_enough_simulations() -> None:
    """x to move can win at once in column... square 2; the prior puts 97% on square 5,
    which loses. With few simulations PUCT follows the prior; with enough, the
    playouts' values win."""
    state = TTT.state_from_actions([0, 3, 1, 4])  # x: 0, 1; o: 3, 4; square 2 wins
    wrong = 8

    def misleading(batch: LeafBatch) -> tuple[np.ndarray, np.ndarray]:
        priors = np.where(batch.legal_mask, 0.03 / 4, 0.0)
        for i, s in enumerate(batch.states):
            if s.history() == state.history():
                priors[i] = np.where(batch.legal_mask[i], 0.03 / 4, 0.0)
                priors[i, wrong] = 0.97
        return priors, np.zeros(len(batch))

    def run(n: int) -> int:
        config = SearchConfig(
            iterations=n, seed=3, puct=PuctConfig(evaluator=misleading, mix=1.0, fpu=0.5)
        )
        return MCTS(config).search(state).action

    assert run(4) == wrong
    assert run(3000) == 2


def test_mixing_a_zero_value_fully_with_a_playout_is_the_rollout_evaluator() -> None:
    """mix=1 with the 'uniform' evaluator: the leaf's value is the playout's, draw for
    draw the same tree as 'uniform+rollout'."""
    state = TTT.state_from_actions([4])
    a = MCTS(_config(evaluator="uniform", mix=1.0, iterations=600, seed=5)).search(state)
    b = MCTS(_config(evaluator="uniform+rollout", iterations=600, seed=5)).search(state)
    assert a.children == b.children and a.nodes == b.nodes


def test_heuristic_evaluator_uses_the_games_heuristic() -> None:
    c4 = mctslab.make("connect_four")
    result = MCTS(_config(evaluator="heuristic", iterations=300)).search(c4.new_initial_state())
    assert result.action in range(7) and result.nodes > 300
    kuhn = mctslab.make("kuhn_poker").state_from_actions([0, 1])  # the cards dealt
    with pytest.raises(InvalidConfigError, match="heuristic"):
        MCTS(_config(evaluator="heuristic")).search(kuhn)


@pytest.mark.parametrize("batch", [2, 8, 64])
def test_batched_evaluation_calls_the_evaluator_once_per_batch(batch: int) -> None:
    calls: list[int] = []

    def counting(b: LeafBatch) -> tuple[np.ndarray, np.ndarray]:
        calls.append(len(b))
        return np.where(b.legal_mask, 1.0, 0.0), np.zeros(len(b))

    state = mctslab.make("connect_four").new_initial_state()
    result = MCTS(_config(evaluator=counting, batch=batch, iterations=500)).search(state)
    assert result.iterations == 500
    assert max(calls) <= batch and sum(calls) <= 500
    assert len(calls) < 500 / batch * 2  # collisions end a batch early, rarely
    # Every root visit is a backed-up leaf: no virtual loss is left behind.
    assert sum(ch.visits for ch in result.children) == 500 - 1


def test_virtual_loss_spreads_a_batch() -> None:
    """A batch of 8 from the start of Connect Four: with virtual loss the descents reach
    distinct leaves; without (0), each batch collides at once."""
    calls: list[int] = []

    def counting(b: LeafBatch) -> tuple[np.ndarray, np.ndarray]:
        calls.append(len(b))
        return np.where(b.legal_mask, 1.0, 0.0), np.zeros(len(b))

    state = mctslab.make("connect_four").new_initial_state()
    MCTS(_config(evaluator=counting, batch=8, iterations=200)).search(state)
    assert max(calls) == 8
    calls.clear()
    MCTS(_config(evaluator=counting, batch=8, virtual_loss=0, iterations=200)).search(state)
    assert max(calls) == 1


def test_root_noise_is_seeded_and_leaves_the_stored_priors_alone() -> None:
    state = TTT.new_initial_state()
    noisy = _config(noise_fraction=0.25, noise_alpha=0.3, iterations=300, seed=9)
    a, b = MCTS(noisy).search(state), MCTS(noisy).search(state)
    assert a.children == b.children and a.action == b.action
    plain = MCTS(_config(iterations=300, seed=9)).search(state)
    assert [ch.visits for ch in a.children] != [ch.visits for ch in plain.children]
    assert all(ch.prior == pytest.approx(1 / 9) for ch in a.children)


def test_temperature_samples_the_move_by_visits() -> None:
    state = TTT.new_initial_state()
    picks = {
        MCTS(_config(temperature=1.0, iterations=200, seed=s)).search(state).action
        for s in range(40)
    }
    assert len(picks) > 2  # T = 1 spreads the moves
    result = MCTS(_config(temperature=1.0, iterations=200, seed=1)).search(state)
    assert result.final_rule == "sampled"
    cold = {
        MCTS(_config(temperature=0.01, iterations=200, seed=s)).search(state).action
        for s in range(5)
    }
    greedy = {MCTS(_config(iterations=200, seed=s)).search(state).action for s in range(5)}
    assert cold == greedy


def test_puct_is_reproducible_and_reuses_its_tree() -> None:
    state = mctslab.make("connect_four").new_initial_state()
    config = _config(iterations=300, seed=4)
    assert MCTS(config).search(state).children == MCTS(config).search(state).children
    searcher = MCTS(config)
    first = searcher.search(state)
    after = state.child(first.action)
    reply = searcher.search(after.child(3))
    assert reply.nodes > 300  # the kept subtree's nodes came along


def test_public_search_runs_puct() -> None:
    result = search(TTT.new_initial_state(), _config(iterations=200), engine="auto")
    assert result.action in range(9) and all(ch.prior is not None for ch in result.children)


# --- The compiled engine: the same trees as the reference engine ---------------------


def observation_evaluator(batch: LeafBatch) -> tuple[np.ndarray, np.ndarray]:
    """A deterministic evaluator of observation tensors: priors rising with the action
    id, a value from the first plane's stone count (any game with observations)."""
    priors = np.where(batch.legal_mask, 1.0 + np.arange(batch.legal_mask.shape[1]), 0.0)
    flat = batch.observations.reshape(len(batch), -1)
    values = np.tanh(flat[:, : flat.shape[1] // 3].sum(axis=1) / 7.0 - 0.2)
    return priors, values


IDENTITY_CASES = [
    ("tic_tac_toe", [], {"evaluator": "uniform+rollout"}),
    ("tic_tac_toe", [4], {"evaluator": "uniform", "fpu": 0.5}),
    ("tic_tac_toe", [], {"evaluator": observation_evaluator, "temperature": 1.0}),
    ("connect_four", [3], {"evaluator": "heuristic"}),
    ("connect_four", [], {"evaluator": "uniform+rollout", "noise_fraction": 0.25}),
    ("connect_four", [], {"evaluator": "uniform", "mix": 0.5, "c_base": 19652.0}),
    ("connect_four", [], {"evaluator": "uniform+rollout", "batch": 8}),
    ("connect_four", [2, 3], {"evaluator": observation_evaluator, "batch": 16}),
    ("connect_four", [], {"evaluator": observation_evaluator, "noise_fraction": 0.5, "c": 3.0}),
    ("bohnenspiel", [], {"evaluator": "heuristic", "mix": 0.25}),
    ("nim", [], {"evaluator": observation_evaluator}),
    ("bachet", [], {"evaluator": "uniform+rollout", "fpu": 1.0}),
]


@pytest.mark.parametrize(("game", "moves", "options"), IDENTITY_CASES)
def test_compiled_puct_builds_the_reference_tree(
    game: str, moves: list[int], options: dict[str, Any]
) -> None:
    """Same seed, same options: the same root statistics, node count and move."""
    state = mctslab.make(game).state_from_actions(moves)
    config = SearchConfig(iterations=700, seed=11, puct=PuctConfig(**options))
    ref = search(state, config, engine="reference")
    comp = search(state, config, engine="compiled")
    assert comp.children == ref.children
    assert (comp.nodes, comp.action, comp.value) == (ref.nodes, ref.action, ref.value)


def test_compiled_puct_with_solver_and_tree_reuse_matches_the_reference() -> None:
    from mctslab.search.compiled import CompiledMCTS

    c4 = mctslab.make("connect_four")
    config = SearchConfig(iterations=400, seed=2, solver=True, puct=PuctConfig(noise_fraction=0.25))
    ref, comp = MCTS(config), CompiledMCTS(config)
    state = c4.state_from_actions([3, 3, 2])
    for _ in range(3):
        a, b = ref.search(state), comp.search(state)
        assert a.children == b.children and a.nodes == b.nodes
        state = state.child(a.action).child(b.children[0].action)


def test_compiled_puct_grows_its_tree_and_keeps_the_node_budget() -> None:
    c4 = mctslab.make("connect_four").new_initial_state()
    big = search(c4, _config(evaluator="uniform", iterations=12_000), engine="compiled")
    assert big.nodes > 1 << 16  # past the first allocation: the arrays doubled
    config = SearchConfig(iterations=5000, max_nodes=300, puct=PuctConfig(evaluator="uniform"))
    capped = search(c4, config, engine="compiled")
    assert capped.stopped_by == "nodes" and capped.nodes <= 300


@pytest.mark.parametrize("chunk", range(2))
def test_puct_picks_a_minimax_optimal_move_in_99_percent(chunk: int) -> None:
    """PUCT with the uniform+rollout evaluator, 5,000 simulations, compiled engine: at
    least 99% of the reachable tic-tac-toe positions (the oracle of the UCT test)."""
    positions = list(enumerate(reachable_positions()))[chunk::2]
    misses = []
    for seed, (history, optimal) in positions:
        config = SearchConfig(iterations=5000, seed=seed, puct=PuctConfig())
        result = search(TTT.state_from_actions(list(history)), config, engine="compiled")
        if result.action not in optimal:
            misses.append((history, result.action))
    assert len(positions) == 2260 and len(misses) <= len(positions) // 100, misses


def test_many_searches_share_one_evaluator_call_a_round() -> None:
    from mctslab.search.compiled import CompiledMCTS, search_many

    calls: list[int] = []

    def counting(batch: LeafBatch) -> tuple[np.ndarray, np.ndarray]:
        calls.append(len(batch))
        return observation_evaluator(batch)

    c4 = mctslab.make("connect_four")
    states = [c4.state_from_actions([a]) for a in range(6)]
    config = SearchConfig(iterations=120, seed=1, puct=PuctConfig(evaluator=counting, batch=4))
    together = search_many([CompiledMCTS(config) for _ in states], states)
    rounds = len(calls)
    alone = [CompiledMCTS(config).search(s) for s in states]
    assert [r.children for r in together] == [r.children for r in alone]
    assert max(calls[:rounds]) > 4 and rounds < len(calls) - rounds  # batches merged


# --- Gumbel root search ---------------------------------------------------------------


def values_only(batch: LeafBatch) -> tuple[np.ndarray, np.ndarray]:
    """Exact tic-tac-toe values, no knowledge in the priors (uniform)."""
    _, values = perfect(batch)
    return np.where(batch.legal_mask, 1.0, 0.0), values


def test_gumbel_improves_on_its_prior_with_four_simulations() -> None:
    """Every 5th reachable tic-tac-toe position, 4 simulations, uniform priors and exact
    values: the prior alone (uniform) finds an optimal move about as often as a random
    legal move; Gumbel search's move is optimal in >= 95% (measured: 97.6%), above
    PUCT's with the same simulations (measured: 90%), and its improved policy puts more
    weight on the optimal moves than the prior does, everywhere."""
    positions = reachable_positions()[::5]
    scores = {"gumbel": 0, "puct": 0}
    prior_mass = policy_mass = 0.0
    for seed, (history, optimal) in enumerate(positions):
        state = TTT.state_from_actions(list(history))
        for name, gumbel in (("gumbel", True), ("puct", False)):
            puct = PuctConfig(evaluator=values_only, gumbel=gumbel, gumbel_scale=0.0)
            result = MCTS(SearchConfig(iterations=5, seed=seed, puct=puct)).search(state)
            scores[name] += result.action in optimal
            if gumbel:
                prior_mass += sum(ch.prior or 0.0 for ch in result.children if ch.action in optimal)
                mass = sum(ch.policy or 0.0 for ch in result.children if ch.action in optimal)
                policy_mass += mass
                assert sum(ch.policy or 0.0 for ch in result.children) == pytest.approx(1.0)
    n = len(positions)
    assert scores["gumbel"] >= 0.95 * n
    assert scores["gumbel"] > scores["puct"]
    assert policy_mass > prior_mass + 0.2 * n


def test_gumbel_options_are_checked() -> None:
    with pytest.raises(InvalidConfigError, match="batch must be 1"):
        PuctConfig(gumbel=True, batch=4)
    with pytest.raises(InvalidConfigError, match="considered"):
        PuctConfig(considered=0)
    with pytest.raises(InvalidConfigError, match="value_scale"):
        PuctConfig(value_scale=-1.0)
    with pytest.raises(InvalidConfigError, match="iteration budget"):
        SearchConfig(iterations=None, time=0.05, puct=PuctConfig(gumbel=True))


GUMBEL_CASES = [
    ("tic_tac_toe", [], {"evaluator": "uniform+rollout"}),
    ("tic_tac_toe", [4], {"evaluator": "uniform", "considered": 4, "gumbel_scale": 0.0}),
    ("connect_four", [3], {"evaluator": "heuristic"}),
    ("connect_four", [], {"evaluator": "uniform+rollout", "considered": 4}),
    ("connect_four", [], {"evaluator": observation_evaluator}),
    ("bohnenspiel", [], {"evaluator": "heuristic", "mix": 0.5}),
]


@pytest.mark.parametrize(("game", "moves", "options"), GUMBEL_CASES)
@pytest.mark.parametrize("iterations", [5, 17, 200])
def test_compiled_gumbel_builds_the_reference_tree(
    game: str, moves: list[int], options: dict[str, Any], iterations: int
) -> None:
    state = mctslab.make(game).state_from_actions(moves)
    config = SearchConfig(iterations=iterations, seed=4, puct=PuctConfig(gumbel=True, **options))
    ref = search(state, config, engine="reference")
    comp = search(state, config, engine="compiled")
    assert comp.children == ref.children
    assert (comp.nodes, comp.action, comp.final_rule) == (ref.nodes, ref.action, "gumbel")


@cache
def _c4_solution(key: bytes, history: tuple[int, ...]) -> tuple[float, frozenset[int]]:
    from mctslab.search.minimax import solve as solve_c4

    result = solve_c4(mctslab.make("connect_four").state_from_actions(list(history)))
    return float(result.outcome), frozenset(result.best_actions)


def perfect_connect_four(batch: LeafBatch) -> tuple[np.ndarray, np.ndarray]:
    """Connect Four's exact value (the project's solver) and priors on the optimal moves."""
    priors = np.zeros(batch.legal_mask.shape)
    values = np.zeros(len(batch))
    for i, state in enumerate(batch.states):
        value, best = _c4_solution(state.key(), tuple(state.history()))  # type: ignore[attr-defined]
        values[i] = value
        priors[i, list(best)] = 1.0
    return priors, values


def test_a_perfect_evaluator_plays_connect_four_end_games_optimally() -> None:
    """Every 10th position of Pons's Test_L3_R1 (100 end-games), 4 simulations, both
    engines: the move played keeps the position's exact outcome."""
    from test_minimax import connect4_positions

    c4 = mctslab.make("connect_four")
    wrong = []
    for i, (moves, outcome) in list(enumerate(connect4_positions()))[::10]:
        state = c4.state_from_actions(moves)
        config = SearchConfig(iterations=4, seed=i, puct=PuctConfig(evaluator=perfect_connect_four))
        for engine in ("reference", "compiled"):
            action = search(state, config, engine=engine).action
            after = state.child(action)
            if after.is_terminal():
                kept = after.returns()[state.current_player()]
            else:  # the reply's value is the opponent's
                kept = -_c4_solution(b"", tuple(after.history()))[0]
            if kept != outcome:
                wrong.append((i, engine, action))
    assert not wrong


@pytest.mark.parametrize(
    "options",
    [
        {"noise_fraction": 0.25},
        {"gumbel": True, "considered": 4},
        {"temperature": 1.0, "c_base": 19652.0},
        {"batch": 3, "solver": True},
    ],
)
def test_many_searches_in_one_compiled_call_a_round_equal_searches_alone(
    options: dict[str, Any],
) -> None:
    """search_many's compiled rounds (one call a round for every search) make each
    search's choices as it makes them alone, whatever it waits for (noise, evaluation)."""
    from mctslab.search.compiled import CompiledMCTS, search_many
    from mctslab.search.compiled.batch import rounds_apply

    c4 = mctslab.make("connect_four")
    states = [c4.state_from_actions(m) for m in ([], [3], [3, 3], [0, 6, 1, 5], [2, 2, 2])]
    solver = options.pop("solver", False)
    puct = PuctConfig(evaluator=observation_evaluator, **options)
    config = SearchConfig(iterations=90, seed=5, solver=solver, puct=puct)
    searchers = [CompiledMCTS(config) for _ in states]
    assert rounds_apply(searchers, states)
    together = search_many(searchers, states)
    alone = [CompiledMCTS(config).search(s) for s in states]
    assert [r.children for r in together] == [r.children for r in alone]
    assert [(r.action, r.nodes, r.iterations) for r in together] == [
        (r.action, r.nodes, r.iterations) for r in alone
    ]
    # The searchers keep their generators' state: a second search goes on from it.
    again = [s.search(x) for s, x in zip(searchers, states, strict=True)]
    following = [CompiledMCTS(config) for _ in states]
    for f, s in zip(following, states, strict=True):
        f.search(s)
    assert [r.children for r in again] == [
        f.search(x).children for f, x in zip(following, states, strict=True)
    ]


@pytest.mark.parametrize("batch", [1, 4])
def test_a_time_budget_ends_a_compiled_search_with_a_python_evaluator(batch: int) -> None:
    """A compiled PUCT search whose evaluator runs in Python, with a time budget, stops by
    time after some simulations. (A chunk resumed after each evaluation used to count its
    iterations from 0 again, so under a time budget it never ended: the search ran on.)
    It runs in a thread so that a regression fails here instead of hanging the suite."""
    import threading

    from mctslab.search.compiled import CompiledMCTS

    def uniform(leaves: LeafBatch) -> tuple[Any, Any]:
        return leaves.legal_mask.astype(float), np.zeros(len(leaves.to_play))

    game = mctslab.make("connect_four")
    config = SearchConfig(
        iterations=None,
        time=0.05,
        seed=1,
        puct=PuctConfig(evaluator=uniform, batch=batch, virtual_loss=1 if batch > 1 else 0),
    )
    results: list[Any] = []
    worker = threading.Thread(
        target=lambda: results.append(CompiledMCTS(config).search(game.new_initial_state())),
        daemon=True,
    )
    worker.start()
    worker.join(timeout=120)
    assert results, "the search did not stop"
    assert results[0].stopped_by == "time"
    assert results[0].iterations > 0
