"""The selection rules' registry, and UCB1-Tuned, the rule added through it.

Every rule of :data:`mctslab.search.rules.RULES` has its reference pair and (UCT's
family) its compiled chooser, both derived from its one entry and calling its one score
function; a rule registered with nothing but an entry and its score function is picked
by both engines, node for node; UCB1-Tuned (Auer, Cesa-Bianchi and Fischer 2002) scores
by its formula, and both engines build the same tree under it, node for node and float
for float, squared-reward sums included.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import mctslab
from mctslab.core.errors import InvalidConfigError
from mctslab.core.rng import Rng
from mctslab.players.player import parse_spec, search_config
from mctslab.search.compiled import CompiledMCTS
from mctslab.search.compiled.selection import COMPILED_RULES, RULE_CODES, compiled_twin
from mctslab.search.compiled.tree import SQUARES
from mctslab.search.config import SearchConfig
from mctslab.search.gumbel import root_score
from mctslab.search.mcts import MCTS
from mctslab.search.puct import puct_score
from mctslab.search.reference.selection import SELECTION_RULES
from mctslab.search.reference.tree import Node, SearchTree
from mctslab.search.rules import (
    RULES,
    exploration,
    rave_beta,
    rave_score,
    rule_info,
    selectable_rules,
    ucb1_tuned_score,
    uct_score,
)

Stats = dict[tuple[int, ...], tuple[int, float, float]]


def test_every_registered_rule_has_both_engines() -> None:
    assert set(SELECTION_RULES) == set(RULES)
    uct_family = {name for name, info in RULES.items() if info.family == "uct"}
    assert set(COMPILED_RULES) == uct_family
    assert sorted(RULE_CODES.values()) == list(range(len(COMPILED_RULES)))
    assert all(RULES[name].code == code for name, code in RULE_CODES.items())
    # The codes are the compiled engine's ABI (cached code has them built in): fixed.
    assert RULE_CODES == {"uct": 0, "rave": 1, "ucb1-tuned": 2}
    for info in RULES.values():  # a rule has terms for the argmax choosers or its own
        assert (info.terms is None) == (info.chooser is not None), info.name
        assert info.evaluated == (info.family == "puct"), info.name
        assert info.root_halving == (info.name == "gumbel"), info.name
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


def test_each_rule_registers_its_score_function_once() -> None:
    # The registry holds the one function per rule that both engines choose by.
    assert RULES["uct"].score is uct_score
    assert RULES["ucb1-tuned"].score is ucb1_tuned_score
    assert RULES["rave"].score is rave_score
    assert RULES["puct"].score is puct_score
    assert RULES["gumbel"].score is root_score


@pytest.mark.parametrize("name", ["uct", "ucb1-tuned", "rave"])
def test_the_reference_chooser_calls_the_registered_score(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The reference chooser's scores are the entry's score function of each child's
    # statistics and the entry's per-node terms, float for float.
    state = mctslab.make("connect_four").new_initial_state()
    config = SearchConfig(
        iterations=300, seed=2, **({"rave": 50.0} if name == "rave" else {"selection": name})
    )
    searcher = MCTS(config)
    searcher.search(state)
    root = searcher.root
    assert root is not None and config.selection_rule == name
    info = RULES[name]
    tree = SearchTree(root, mctslab.make("connect_four").info, config, Rng(0))
    got = SELECTION_RULES[name].scores(root, tree)
    want = [info.view_score(ch, root.visits, config) for ch in root.children]
    assert got == want
    terms = info.terms
    assert terms is not None
    t = terms(config.c, config.rave, root.visits)
    if name == "uct":
        assert t == (exploration(config.c, root.visits),)
        assert got == [uct_score(ch.value_sum, ch.visits, t[0]) for ch in root.children]
    if name == "rave":
        assert t == (exploration(config.c, root.visits), rave_beta(50.0, root.visits))


def test_a_compiled_score_is_the_same_function_compiled() -> None:
    # compiled_twin compiles the registry's code object itself (its tables as arrays):
    # the same doubles as the Python function, for small and large counts.
    from numba import njit

    uct, ex = compiled_twin(uct_score), compiled_twin(exploration)

    @njit  # type: ignore[misc]
    def both(value_sum: float, visits: int, c: float, parent: int) -> float:
        return uct(value_sum, visits, ex(c, parent))  # type: ignore[no-any-return]

    for value_sum, visits, parent in [(3.0, 7, 100), (1500.5, 5000, 20_000), (0.0, 0, 3)]:
        assert both(value_sum, visits, 1.4, parent) == uct_score(
            value_sum, visits, exploration(1.4, parent)
        )
    assert compiled_twin(uct_score) is uct  # one twin per function
    assert uct.py_func.__code__ is uct_score.__code__


# A rule added as docs/layout.md says, with one registry entry and its score function
# appended to a copy of search/rules.py and nothing else: UCT with half the exploration
# term. Both engines must pick by it (their trees differ from UCT's) and build the same
# tree. In a process of its own on the copied tree with its own numba cache (the compiled
# engine writes its dispatch on the rule codes from the registry at import).
NEW_RULE = """

def half_score(value_sum: float, visits: int, explore: float) -> float:
    if visits == 0:
        return math.inf
    return value_sum / visits + 0.5 * explore / math.sqrt(visits)


RULES["uct-half"] = RuleInfo(
    "uct-half", "UCT with half its exploration", "UCT/2", "Q/N + c/2 sqrt(ln N_parent / N)",
    "a test", "uct", (), "mcts:selection=uct-half", half_score, uct_terms, code=3,
    selectable=True,
)
"""

SEARCH_BOTH = """
import json, sys
import mctslab
from mctslab.search.compiled import CompiledMCTS
from mctslab.search.config import SearchConfig
from mctslab.search.mcts import MCTS

def tree_of(result):
    return [(ch.action, ch.visits, ch.value) for ch in result.children]

state = mctslab.make(sys.argv[1]).new_initial_state()
out = {"file": mctslab.__file__}
for selection in ("uct", "uct-half"):
    config = SearchConfig(iterations=1500, seed=4, c=1.4, selection=selection)
    ref, comp = MCTS(config).search(state), CompiledMCTS(config).search(state)
    out[selection] = [tree_of(ref), tree_of(comp), ref.nodes, comp.nodes]
print(json.dumps(out))
"""


def test_a_rule_is_one_entry_and_its_score_function(tmp_path: Path) -> None:
    package = Path(mctslab.__file__).resolve().parent
    copy = tmp_path / "src" / "mctslab"
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__"))
    with (copy / "search" / "rules.py").open("a") as f:
        f.write(NEW_RULE)
    env = {
        **os.environ,
        "PYTHONPATH": str(tmp_path / "src"),
        "NUMBA_CACHE_DIR": str(tmp_path / "numba"),
    }
    done = subprocess.run(
        [sys.executable, "-c", SEARCH_BOTH, "tic_tac_toe"],
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert Path(out["file"]).resolve() == (copy / "__init__.py").resolve()
    uct, half = out["uct"], out["uct-half"]
    assert half[0] == half[1] and half[2] == half[3]  # node identity under the new rule
    assert uct[0] == uct[1]
    assert half[0] != uct[0]  # the new rule is really in use, in both engines


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
