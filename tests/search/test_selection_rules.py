"""The selection rules' registry, and UCB1-Tuned, the rule added through it.

Every rule of :data:`mctslab.search.rules.RULES` has its reference pair and (UCT's
family) its compiled chooser; UCB1-Tuned (Auer, Cesa-Bianchi and Fischer 2002) scores by
its formula, and both engines build the same tree under it, node for node and float for
float, squared-reward sums included.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

import mctslab
from mctslab.core.errors import InvalidConfigError
from mctslab.players.player import parse_spec, search_config
from mctslab.search.compiled import CompiledMCTS
from mctslab.search.compiled.selection import COMPILED_RULES, RULE_CODES
from mctslab.search.compiled.tree import SQUARES
from mctslab.search.mcts import MCTS, Node, SearchConfig
from mctslab.search.reference.selection import SELECTION_RULES
from mctslab.search.rules import RULES, rule_info, selectable_rules, ucb1_tuned_score

Stats = dict[tuple[int, ...], tuple[int, float, float]]


def test_every_registered_rule_has_both_engines() -> None:
    assert set(SELECTION_RULES) == set(RULES)
    uct_family = {name for name, info in RULES.items() if info.family == "uct"}
    assert set(COMPILED_RULES) == uct_family
    assert sorted(RULE_CODES.values()) == list(range(len(COMPILED_RULES)))
    assert set(selectable_rules()) <= uct_family
    assert "ucb1-tuned" in selectable_rules() and "rave" not in selectable_rules()
    with pytest.raises(KeyError, match="registered: uct"):
        rule_info("ucb2")


def test_the_score_is_auer_et_al_s_formula() -> None:
    # 10 visits, mean 0.6, squared rewards 5.0 (rewards 0/1 and draws), N_parent = 100.
    log_n = math.log(100)
    v = 5.0 / 10 - 0.36 + math.sqrt(2 * log_n / 10)  # 0.14 + 0.9597 > 1/4: capped
    assert v > 0.25
    assert ucb1_tuned_score(6.0, 5.0, 10, log_n, 1.0) == pytest.approx(
        0.6 + math.sqrt(log_n / 10 * 0.25)
    )
    # Many visits of a steady child: V below 1/4, so the bound is tighter than UCB1's.
    n, mean = 10_000, 0.5
    sq = n * 0.26  # variance 0.01
    v = sq / n - mean * mean + math.sqrt(2 * log_n / n)
    assert v < 0.25
    got = ucb1_tuned_score(mean * n, sq, n, log_n, 1.0)
    assert got == pytest.approx(mean + math.sqrt(log_n / n * v))
    assert got < mean + math.sqrt(2 * log_n / n)  # UCB1
    # c scales the exploration term; c = 0 is the mean; unvisited comes first.
    assert ucb1_tuned_score(6.0, 5.0, 10, log_n, 0.0) == pytest.approx(0.6)
    assert ucb1_tuned_score(0.0, 0.0, 0, log_n, 1.0) == math.inf
    # N_parent = 1: ln 1 = 0, and S/N - (Q/N)^2 rounding below 0 is floored, not a NaN.
    assert ucb1_tuned_score(0.1, 0.1 * 0.1, 1, 0.0, 1.0) == pytest.approx(0.1)


def reference_stats(searcher: MCTS) -> Stats:
    out: Stats = {}
    assert searcher.root is not None
    stack: list[tuple[tuple[int, ...], Node]] = [((), searcher.root)]
    while stack:
        path, node = stack.pop()
        if path:
            out[path] = (node.visits, node.value_sum, node.squares)
        stack.extend(((*path, ch.action), ch) for ch in node.children)
    return out


def compiled_stats(searcher: CompiledMCTS) -> Stats:
    tree = searcher.tree
    assert tree is not None
    out: Stats = {}
    stack: list[tuple[tuple[int, ...], int]] = [((), 0)]
    while stack:
        path, i = stack.pop()
        if path:
            squares = float(tree.stats[SQUARES, i]) if tree.stats.shape[0] > SQUARES else 0.0
            out[path] = (int(tree.visits[i]), float(tree.value_sum[i]), squares)
        ch = int(tree.first_child[i])
        while ch >= 0:
            stack.append(((*path, int(tree.action[ch])), ch))
            ch = int(tree.next_sibling[ch])
    return out


def assert_identical(state: Any, config: SearchConfig) -> Stats:
    ref, comp = MCTS(config), CompiledMCTS(config)
    a, b = ref.search(state), comp.search(state)
    want, got = reference_stats(ref), compiled_stats(comp)
    assert set(want) == set(got)
    diff = [p for p in want if want[p] != got[p]]
    assert not diff, (config, diff[:3], [(want[p], got[p]) for p in diff[:3]])
    assert (a.action, a.children, a.nodes) == (b.action, b.children, b.nodes)
    return want


@pytest.mark.parametrize(
    "name,moves",
    [("tic_tac_toe", []), ("connect_four", [3, 3]), ("nim", []), ("bohnenspiel", [])],
)
@pytest.mark.parametrize(
    "c,expansion,simulation,solver",
    [
        (1.0, "one", "random", False),
        (math.sqrt(2.0), "all", "random", False),
        (0.5, "one", "cutoff", True),
    ],
)
def test_ucb1_tuned_is_node_identical(
    name: str, moves: list[int], c: float, expansion: str, simulation: str, solver: bool
) -> None:
    state = mctslab.make(name).state_from_actions(moves)  # type: ignore[attr-defined]
    config = SearchConfig(
        iterations=300 if name == "bohnenspiel" else 2_000,
        seed=11,
        c=c,
        selection="ucb1-tuned",
        expansion=expansion,  # type: ignore[arg-type]
        simulation=simulation,  # type: ignore[arg-type]
        solver=solver,
    )
    stats = assert_identical(state, config)
    # The squared rewards are kept (draws and wins: 0 < S <= Q), so the test compares them.
    assert any(s[2] > 0.0 for s in stats.values())
    assert all(s[2] <= s[1] + 1e-9 for s in stats.values())


def test_ucb1_tuned_steers_the_search_away_from_uct() -> None:
    # The same seed and budget under UCT and UCB1-Tuned grow different trees: the rule
    # is really in use (in both engines), not UCT under another name.
    state = mctslab.make("connect_four").new_initial_state()
    uct = SearchConfig(iterations=2_000, seed=5, c=1.0)
    tuned = SearchConfig(iterations=2_000, seed=5, c=1.0, selection="ucb1-tuned")
    for engine in (MCTS, CompiledMCTS):
        a, b = engine(uct).search(state), engine(tuned).search(state)
        assert [ch.visits for ch in a.children] != [ch.visits for ch in b.children]


def test_tree_reuse_keeps_the_squares_identical() -> None:
    config = SearchConfig(iterations=800, seed=3, selection="ucb1-tuned", c=1.0)
    ref, comp = MCTS(config), CompiledMCTS(config)
    state = mctslab.make("connect_four").new_initial_state()
    for _ in range(4):
        a, b = ref.search(state), comp.search(state)
        assert a.action == b.action
        assert reference_stats(ref) == compiled_stats(comp)
        state.apply_action(a.action)


def test_uct_keeps_no_squares() -> None:
    comp = CompiledMCTS(SearchConfig(iterations=50, seed=1))
    comp.search(mctslab.make("tic_tac_toe").new_initial_state())
    assert comp.tree is not None and comp.tree.stats.shape[0] == 0


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"selection": "ucb2"}, "selection must be one of uct, ucb1-tuned"),
        ({"selection": "rave"}, "selection must be one of"),
        ({"selection": "ucb1-tuned", "rave": 100.0}, "rave, progressive_bias and knowledge extend"),
        (
            {"selection": "ucb1-tuned", "progressive_bias": 1.0},
            "rave, progressive_bias and knowledge",
        ),
        ({"selection": "ucb1-tuned", "knowledge": 1.0}, "rave, progressive_bias and knowledge"),
    ],
)
def test_bad_selections_are_refused(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(InvalidConfigError, match=match):
        SearchConfig(**kwargs)


def test_the_player_spec_picks_the_rule() -> None:
    kind, options = parse_spec("mcts:selection=ucb1-tuned,c=1,iterations=200")
    config = search_config(options)
    assert kind == "mcts" and config.selection_rule == "ucb1-tuned" and config.c == 1.0
    with pytest.raises(ValueError, match="selection must be one of"):
        search_config(parse_spec("mcts:selection=nope")[1])
