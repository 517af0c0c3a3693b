"""The reference MCTS engine: phases, options, budgets, solver, reuse, errors."""

from __future__ import annotations

import math

import pytest

import mctslab
from mctslab.core.rng import Rng
from mctslab.search.config import SearchConfig
from mctslab.search.mcts import MCTS, search
from mctslab.search.minimax import solve
from mctslab.search.reference.phases import heavy_action
from mctslab.search.reference.selection import uct_value

TTT = mctslab.make("tic_tac_toe")
C4 = mctslab.make("connect_four")


def ttt(*moves: int) -> mctslab.State:
    return TTT.state_from_actions(list(moves))


@pytest.mark.parametrize("expansion", ["one", "all"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bachet_from_four_stones_takes_one(expansion: str, seed: int) -> None:
    game = mctslab.make("bachet")
    result = search(
        game.new_initial_state(), SearchConfig(iterations=600, seed=seed, expansion=expansion)
    )  # type: ignore[arg-type]
    assert game.new_initial_state().action_to_string(result.action) == "1:1"
    assert result.value > 0  # the player to move wins Bachet's game from 4


def test_same_seed_same_tree_and_other_seed_other_tree() -> None:
    cfg = SearchConfig(iterations=2000, seed=5)
    a, b = search(C4.new_initial_state(), cfg), search(C4.new_initial_state(), cfg)
    assert a.children == b.children and a.action == b.action and a.nodes == b.nodes
    c = search(C4.new_initial_state(), SearchConfig(iterations=2000, seed=6))
    assert [ch.visits for ch in c.children] != [ch.visits for ch in a.children]


def test_root_statistics_add_up() -> None:
    result = search(C4.new_initial_state(), SearchConfig(iterations=1500, seed=1))
    assert sum(ch.visits for ch in result.children) == 1500 == result.iterations
    assert result.nodes == 1501  # expansion="one": one node per iteration, plus the root
    assert [ch.action for ch in result.children] == list(range(7))
    assert result.stopped_by == "iterations" and result.player == 0
    mean = sum(ch.value * ch.visits for ch in result.children) / 1500
    assert math.isclose(result.value, mean)
    assert set(result.to_dict()) >= {"action", "value", "children", "iterations", "nodes"}


def test_expansion_all_adds_every_child_at_once() -> None:
    result = search(ttt(), SearchConfig(iterations=1, expansion="all"))
    assert result.nodes == 10 and [ch.visits for ch in result.children] == [1] + [0] * 8
    result = search(ttt(), SearchConfig(iterations=9, expansion="all"))
    assert [ch.visits for ch in result.children] == [1] * 9  # unvisited first, in action order


def test_uct_formula() -> None:
    from mctslab.search.reference.tree import Node

    parent, child = Node(-1, -1, None), Node(0, 0, None)
    parent.visits, child.visits, child.value_sum = 100, 10, 7.0
    assert uct_value(parent, child, 1.5) == pytest.approx(0.7 + 1.5 * math.sqrt(math.log(100) / 10))
    assert uct_value(parent, Node(1, 0, None), 1.5) == math.inf


def test_values_are_for_the_player_who_moves() -> None:
    # o (player 1) to move can win at once with a3 (6): the values say so for o.
    state = ttt(0, 3, 1, 4, 8)
    result = search(state, SearchConfig(iterations=3000, seed=0))
    assert result.player == 1 and result.action == 5  # c2 completes o's middle row
    best = next(ch for ch in result.children if ch.action == 5)
    assert best.value == 1.0  # every visit of the winning move is a win for o


@pytest.mark.parametrize("expansion", ["one", "all"])
def test_solver_plays_a_win_in_one_and_stops(expansion: str) -> None:
    state = ttt(0, 3, 1, 4)  # x to move wins with c1 (2)
    result = search(state, SearchConfig(iterations=5000, solver=True, expansion=expansion))  # type: ignore[arg-type]
    assert result.action == 2 and result.proven == 1
    assert result.final_rule == "solver" and result.stopped_by == "proven"
    assert result.iterations < 5000


def test_solver_proves_a_lost_position_and_avoids_proven_losses() -> None:
    state = ttt(0, 1, 4, 8, 6)  # x: a1 b2 a3; o: b1 c3; o to move, x threatens a2 and c1
    assert solve(state).outcome == -1
    result = search(state, SearchConfig(iterations=20000, solver=True, seed=3))
    assert result.proven == -1 and result.stopped_by == "proven"
    assert all(ch.proven == -1 for ch in result.children)


def test_solver_never_picks_a_proven_loss_while_a_draw_exists() -> None:
    for seed in range(5):
        state = ttt(4, 0)  # a draw with best play
        result = search(state, SearchConfig(iterations=20000, solver=True, seed=seed))
        assert result.action in solve(state).best_actions
        chosen = next(ch for ch in result.children if ch.action == result.action)
        assert chosen.proven != -1


def test_solver_needs_two_player_zero_sum() -> None:
    info = mctslab.GameInfo("x", 1, 3, 9, 9, True, -1, 1)
    with pytest.raises(mctslab.InvalidConfigError, match="two-player"):
        search(ttt(), SearchConfig(solver=True), game_info=info)


def test_node_budget_is_never_exceeded() -> None:
    for expansion in ("one", "all"):
        result = search(
            C4.new_initial_state(),
            SearchConfig(iterations=None, max_nodes=300, expansion=expansion),
        )  # type: ignore[arg-type]
        assert result.nodes <= 300 and result.stopped_by == "nodes"
    with pytest.raises(mctslab.InvalidConfigError, match="too small"):
        search(C4.new_initial_state(), SearchConfig(max_nodes=5, expansion="all"))


def test_time_budget_stops_the_search() -> None:
    result = search(C4.new_initial_state(), SearchConfig(iterations=None, time=0.05))
    assert result.stopped_by == "time" and result.iterations > 0


def test_final_rules_pick_what_they_say() -> None:
    state = C4.new_initial_state()
    robust = search(state, SearchConfig(iterations=400, seed=2, final="robust"))
    top = max(robust.children, key=lambda ch: ch.visits)
    assert robust.action == top.action and robust.final_rule == "robust"
    best = search(state, SearchConfig(iterations=400, seed=2, final="max"))
    assert best.action == max(best.children, key=lambda ch: ch.value).action

    # robust-max, in each of its three endings (seeds found by trying; the searches are
    # deterministic). Its two rules, as the engine breaks their ties:
    def most_visited(result: mctslab.SearchResult) -> int:
        return max(result.children, key=lambda ch: (ch.visits, ch.value, -ch.action)).action

    def best_valued(result: mctslab.SearchResult) -> int:
        visited = [ch for ch in result.children if ch.visits]
        return max(visited, key=lambda ch: (ch.value, ch.visits, -ch.action)).action

    # 1. The rules agree once the budget is spent: no extension.
    rm = search(state, SearchConfig(iterations=400, seed=2, final="robust-max"))
    assert (rm.iterations, rm.stopped_by, rm.final_rule) == (400, "iterations", "robust-max")
    assert rm.action == most_visited(rm) == best_valued(rm)
    # 2. They disagree at 400 and the extension (up to 600) runs until they agree.
    rm = search(state, SearchConfig(iterations=400, seed=8, final="robust-max"))
    assert 400 < rm.iterations < 600 and rm.stopped_by == "agreement"
    assert rm.action == most_visited(rm) == best_valued(rm)
    # 3. They still disagree when the extension (2% here) is spent: it plays robust.
    rm = search(
        state, SearchConfig(iterations=200, seed=32, final="robust-max", robust_max_extra=0.02)
    )
    assert (rm.iterations, rm.stopped_by) == (204, "iterations")
    assert rm.action == most_visited(rm) != best_valued(rm)


def test_robust_max_searches_on_while_its_rules_disagree() -> None:
    # Find a seed whose plain search ends with disagreeing rules, then check robust-max
    # used more iterations than the budget.
    for seed in range(30):
        plain = search(C4.new_initial_state(), SearchConfig(iterations=200, seed=seed))
        by_visits = max(plain.children, key=lambda ch: (ch.visits, ch.value, -ch.action))
        by_value = max(
            (ch for ch in plain.children if ch.visits),
            key=lambda ch: (ch.value, ch.visits, -ch.action),
        )
        if by_visits.action != by_value.action:
            rm = search(
                C4.new_initial_state(), SearchConfig(iterations=200, seed=seed, final="robust-max")
            )
            assert rm.iterations > 200
            return
    pytest.fail("no seed made the two rules disagree")


def test_tree_reuse_keeps_the_subtree_of_played_moves() -> None:
    searcher = MCTS(SearchConfig(iterations=2000, seed=4))
    state = C4.new_initial_state()
    first = searcher.search(state)
    state.apply_action(first.action)
    reply = 3
    assert searcher.root is not None
    kept = searcher.root.child(first.action)
    kept_visits = kept.child(reply).visits if kept and kept.child(reply) else 0
    state.apply_action(reply)
    second = searcher.search(state)
    assert kept_visits > 0
    assert sum(ch.visits for ch in second.children) == kept_visits - 1 + 2000
    fresh = MCTS(SearchConfig(iterations=2000, seed=4, reuse_tree=False))
    fresh.search(C4.new_initial_state())
    assert sum(ch.visits for ch in fresh.search(state).children) == 2000


def test_heavy_playout_wins_at_once_then_blocks() -> None:
    rng = Rng(0)
    win = C4.state_from_actions([0, 6, 1, 6, 2])  # o to move; x threatens column 4 (3)
    assert all(heavy_action(win, rng) == 3 for _ in range(20))  # block
    win.apply_action(5)
    assert all(heavy_action(win, rng) == 3 for _ in range(20))  # x wins at once


def test_heavy_and_cutoff_simulations_run_and_differ() -> None:
    state = C4.state_from_actions([3, 3])
    runs = {
        sim: search(state, SearchConfig(iterations=300, seed=1, simulation=sim, cutoff_depth=2))  # type: ignore[arg-type]
        for sim in ("random", "heavy", "cutoff")
    }
    visits = {sim: tuple(ch.visits for ch in r.children) for sim, r in runs.items()}
    assert len(set(visits.values())) == 3


def test_cutoff_at_depth_zero_is_the_heuristic() -> None:
    # Bachet's heuristic is exact (Bouton): with no playout at all MCTS still takes 1.
    game = mctslab.make("bachet", stones=7)
    result = search(
        game.new_initial_state(), SearchConfig(iterations=200, simulation="cutoff", cutoff_depth=0)
    )
    assert result.action == 0


def test_cutoff_without_heuristic_is_a_clear_error() -> None:
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location(
        "hexapawn_no_h", Path(__file__).resolve().parents[2] / "examples" / "hexapawn.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)

    class Plain(module.HexapawnState):  # type: ignore[name-defined,misc]
        heuristic = None

    game = module.Hexapawn()
    state = game.new_initial_state()
    state.__class__ = Plain
    with pytest.raises(mctslab.InvalidConfigError, match="heuristic"):
        search(state, SearchConfig(simulation="cutoff"))


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"c": -1.0}, "c must be"),
        ({"c": math.nan}, "c must be"),
        ({"expansion": "some"}, "expansion"),
        ({"simulation": "smart"}, "simulation"),
        ({"final": "best"}, "final"),
        ({"iterations": 0}, "iterations"),
        ({"iterations": 2.5}, "iterations"),
        ({"time": -1.0}, "time"),
        ({"max_nodes": 1}, "max_nodes"),
        ({"iterations": None}, "at least one budget"),
        ({"cutoff_depth": -1}, "cutoff_depth"),
        ({"seed": "x"}, "seed"),
    ],
)
def test_bad_config_raises_a_typed_error(kwargs: dict[str, object], match: str) -> None:
    with pytest.raises(mctslab.InvalidConfigError, match=match):
        SearchConfig(**kwargs)  # type: ignore[arg-type]


def test_searching_a_finished_game_is_an_error() -> None:
    with pytest.raises(ValueError, match="over"):
        search(ttt(0, 3, 1, 4, 2), SearchConfig())


def test_the_callers_state_is_untouched() -> None:
    state = C4.state_from_actions([3, 2])
    before = (state.history(), state.legal_actions(), str(state))
    search(state, SearchConfig(iterations=300))
    assert (state.history(), state.legal_actions(), str(state)) == before
