"""The tree view and its exports (text, DOT, SVG, JSON), and ``mctslab tree``.

Both engines build the same tree node for node, so their views must be equal;
the options (``node``, ``depth``, ``top``) must cut the same tree consistently.
"""

from __future__ import annotations

import json
import math
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import graphviz
import pytest
from typer.testing import CliRunner, Result

import mctslab
from mctslab.analysis import treeview
from mctslab.analysis.treeview import TreeNode
from mctslab.cli.main import app
from mctslab.core.errors import InvalidConfigError, MctslabError
from mctslab.core.game import State
from mctslab.search.compiled import CompiledMCTS
from mctslab.search.config import SearchConfig
from mctslab.search.engine import single_searcher
from mctslab.search.mcts import MCTS
from mctslab.search.parallel import RootParallelSearcher
from mctslab.search.puct import PuctConfig

runner = CliRunner()


def position(game: str, moves: list[int]) -> State:
    return mctslab.make(game).state_from_actions(moves)


def config(**options: Any) -> SearchConfig:
    return SearchConfig(**{"iterations": 300, "seed": 3, **options})


def searched(game: str, moves: list[int], **options: Any) -> tuple[MCTS, State]:
    """A reference engine's searcher after one search of the position, and the position."""
    state = position(game, moves)
    searcher = MCTS(config(**options))
    searcher.search(state)
    return searcher, state


def find(view: TreeNode, node_id: str) -> TreeNode:
    return next(n for n in treeview.walk(view) if n.id == node_id)


# Both engines ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("game", "moves", "options"),
    [
        ("tic_tac_toe", [], {}),
        ("tic_tac_toe", [4], {"solver": True, "expansion": "all", "iterations": 400}),
        ("connect_four", [3], {"iterations": 500}),
        ("connect_four", [3, 3], {"solver": True, "c": 0.7, "iterations": 300}),
        ("tic_tac_toe", [], {"puct": PuctConfig()}),
        ("connect_four", [3], {"puct": PuctConfig(evaluator="heuristic", fpu=0.5, c=2.0)}),
    ],
)
def test_both_engines_give_the_same_view(
    game: str, moves: list[int], options: dict[str, Any]
) -> None:
    ref, state = searched(game, moves, **options)
    comp = CompiledMCTS(config(**options))
    comp.search(state)
    a = treeview.from_reference(ref, state)
    b = treeview.from_compiled(comp, state)
    assert treeview.to_json(a) == treeview.to_json(b)
    assert a == b
    nodes = sum(1 for _ in treeview.walk(a))
    assert nodes == comp.nodes  # the whole tree, when no option cuts it
    # and through the generic entry point, with options
    for searcher in (ref, comp):
        cut = treeview.from_searcher(searcher, state, depth=2, top=3)
        assert cut == treeview.from_searcher(ref, state, depth=2, top=3)


def test_node_statistics() -> None:
    searcher, state = searched("tic_tac_toe", [4])
    view = treeview.from_reference(searcher, state)
    assert (view.id, view.action, view.label, view.player, view.uct, view.value) == (
        "",
        None,
        None,
        None,
        None,
        None,
    )
    assert view.to_play == 1 and view.visits == 300 and not view.terminal
    assert sum(ch.visits for ch in view.children) == 300
    visits = [ch.visits for ch in view.children]
    assert visits == sorted(visits, reverse=True)  # most visited first
    c = searcher.config.c
    for child in view.children:
        assert child.player == 1 and child.to_play == 0  # o moved in, x to move
        assert child.id == str(child.action)
        assert child.action is not None and searcher.root is not None
        assert child.label == state.action_to_string(child.action)
        node = searcher.root.child(child.action)
        assert node is not None
        mean = node.value_sum / node.visits
        assert child.value == mean
        assert child.uct == pytest.approx(mean + c * math.sqrt(math.log(300) / node.visits))
        for grandchild in child.children:
            assert grandchild.id == f"{child.action}.{grandchild.action}"
            assert grandchild.player == 0


def test_unvisited_children_have_infinite_uct_and_json_null() -> None:
    searcher, state = searched("connect_four", [], expansion="all", iterations=10)
    view = treeview.from_searcher(searcher, state)
    unvisited = [n for n in treeview.walk(view) if n.visits == 0]
    assert unvisited
    assert all(n.uct == math.inf and n.value is None for n in unvisited)
    data = treeview.to_json(view)
    json.dumps(data, allow_nan=False)
    assert any(ch["uct"] is None for ch in data["children"][0]["children"])


# Options ------------------------------------------------------------------------------------


def test_depth_top_and_hidden_counts() -> None:
    searcher, state = searched("tic_tac_toe", [])
    full = treeview.from_searcher(searcher, state)
    alone = treeview.from_searcher(searcher, state, depth=0)
    assert alone.children == ()
    assert alone.hidden == len(full.children) == 9
    assert alone.hidden_visits == full.visits  # every iteration goes through a root child
    one = treeview.from_searcher(searcher, state, depth=1)
    assert len(one.children) == 9 and all(ch.children == () for ch in one.children)
    assert all(ch.hidden == find(full, ch.id).num_children for ch in one.children)
    top = treeview.from_searcher(searcher, state, top=2)
    for node in treeview.walk(top):
        whole = find(full, node.id)
        assert len(node.children) == min(2, whole.num_children)
        assert node.num_children == whole.num_children
        assert node.hidden_visits == sum(ch.visits for ch in whole.children[2:])
        assert node.children == tuple(
            find(top, ch.id) for ch in whole.children[:2]
        )  # the two most visited
        if node.children and node.hidden:
            assert node.children[-1].visits >= whole.children[2].visits


@pytest.mark.parametrize("engine", ["reference", "compiled"])
def test_keep_shows_a_path_outside_depth_and_top(engine: str) -> None:
    state = position("tic_tac_toe", [])
    searcher = MCTS(config()) if engine == "reference" else CompiledMCTS(config())
    searcher.search(state)
    full = treeview.from_searcher(searcher, state)
    # A path through the least visited child of the root, three levels deep.
    deep = full.children[-1]
    while len(deep.id.split(".")) < 3 and deep.children:
        deep = deep.children[-1]
    view = treeview.from_searcher(searcher, state, depth=1, top=2, keep=deep.id)
    ids = {n.id for n in treeview.walk(view)}
    parts = deep.id.split(".")
    path = {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
    assert path <= ids  # the whole path, below depth 1 and outside the top 2
    assert len(view.children) == 3  # the top 2 and the kept child, most visited first
    assert [ch.visits for ch in view.children] == sorted(
        (ch.visits for ch in view.children), reverse=True
    )
    for node in treeview.walk(view):
        whole = find(full, node.id)
        assert node.num_children == whole.num_children  # hidden counts what is left out
        shown = {ch.id for ch in node.children}
        assert node.hidden_visits == sum(ch.visits for ch in whole.children if ch.id not in shown)
        assert replace(node, children=()) == replace(
            whole, children=(), hidden=node.hidden, hidden_visits=node.hidden_visits
        )
    # Beyond depth 1, only the kept path's nodes: no other grandchildren.
    assert {n.id for n in treeview.walk(view) if len(n.id.split(".")) > 1} <= path
    # A kept path elsewhere than the view's node changes nothing; a path not in the
    # tree is shown as far as it goes.
    sub = view.children[0].id  # the most visited child: not on the kept path
    assert not deep.id.startswith(sub)
    cut = treeview.from_searcher(searcher, state, node=sub, depth=1)
    assert treeview.from_searcher(searcher, state, node=sub, depth=1, keep=deep.id) == cut
    assert treeview.from_searcher(searcher, state, depth=1, keep="99.99") == (
        treeview.from_searcher(searcher, state, depth=1)
    )


def test_node_option_starts_at_a_subtree() -> None:
    searcher, state = searched("connect_four", [3], iterations=400)
    full = treeview.from_searcher(searcher, state)
    deep = full.children[0].children[0]
    sub = treeview.from_searcher(searcher, state, node=deep.id)
    assert sub == deep  # label, UCT from its parent and all: the same node
    assert all(n.id.startswith(deep.id) for n in treeview.walk(sub))
    cut = treeview.from_searcher(searcher, state, node=f" {deep.id} ", depth=1)
    assert cut.children == tuple(
        replace(
            ch,
            children=(),
            hidden=ch.num_children,
            hidden_visits=sum(g.visits for g in ch.children),
        )
        for ch in deep.children
    )


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"node": "x"}, "bad node id"),
        ({"node": "9.0"}, "no child 9 below the root"),
        ({"node": "3.99"}, "no child 99 below 3"),
        ({"depth": -1}, "depth must be"),
        ({"top": 0}, "top must be"),
    ],
)
def test_bad_options(options: dict[str, object], message: str) -> None:
    searcher, state = searched("connect_four", [], iterations=50)
    with pytest.raises(InvalidConfigError, match=message):
        treeview.from_searcher(searcher, state, **options)  # type: ignore[arg-type]


def test_wrong_state_no_tree_and_parallel_searchers_are_refused() -> None:
    searcher, state = searched("tic_tac_toe", [4], iterations=20)
    with pytest.raises(InvalidConfigError, match="not the position"):
        treeview.from_searcher(searcher, state.child(0))
    fresh = mctslab.make("tic_tac_toe").new_initial_state()
    with pytest.raises(InvalidConfigError, match="run a search first"):
        treeview.from_reference(MCTS(), fresh)
    with pytest.raises(InvalidConfigError, match="run a search first"):
        treeview.from_compiled(CompiledMCTS(), fresh)
    parallel = RootParallelSearcher(SearchConfig(workers=2), single=single_searcher)
    with pytest.raises(InvalidConfigError, match="workers=1"):
        treeview.from_searcher(parallel, fresh)


# Exports ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def solved() -> TreeNode:
    """A tic-tac-toe tree under MCTS-Solver, with proofs in it."""
    searcher, state = searched("tic_tac_toe", [0, 4], solver=True, iterations=2000)
    return treeview.from_searcher(searcher, state, depth=2, top=3)


def test_text(solved: TreeNode) -> None:
    view = solved
    text = treeview.to_text(view, ["x", "o"])
    lines = text.splitlines()
    assert text.endswith("\n")
    assert lines[0].startswith(f"root (x to move)  N={view.visits}")
    assert len(lines) == sum(1 for _ in treeview.walk(view)) + sum(
        1 for n in treeview.walk(view) if n.children and n.hidden
    )
    best = view.children[0]
    assert lines[1].startswith(f"├─ {best.action} ({best.label})  N={best.visits} Q/N=")
    assert "proven=" in text
    assert "more children" in text and "└─ " in text and "│  " in text
    assert "player 0 to move" in treeview.to_text(view)  # without names


def test_dot_parses_with_one_node_per_tree_node(solved: TreeNode) -> None:
    view = solved
    dot = treeview.to_dot(view)
    plain = graphviz.Source(dot).pipe(format="plain", encoding="utf-8")  # dot parses it
    nodes = [line for line in plain.splitlines() if line.startswith("node ")]
    edges = [line for line in plain.splitlines() if line.startswith("edge ")]
    count = sum(1 for _ in treeview.walk(view))
    assert len(nodes) == count and len(edges) == count - 1
    assert "peripheries=2" in dot  # proven nodes are marked
    assert f'[label="{view.children[0].label}"]' in dot  # edges are labelled by the move


def test_dot_escapes_labels() -> None:
    leaf = TreeNode("1", 1, 'a"b\\c', 0, 1, 3, 0.0, 1.0, None, False, 0, (), 0, 0)
    root = TreeNode("", None, None, None, 0, 3, None, None, None, False, 0, (leaf,), 0, 0)
    graphviz.Source(treeview.to_dot(root)).pipe(format="plain")


def test_svg_and_json(solved: TreeNode) -> None:
    view = solved
    svg = treeview.to_svg(view)
    assert svg.lstrip().startswith(("<?xml", "<svg")) and "</svg>" in svg
    data = json.loads(treeview.export(view, "json"))
    assert data == json.loads(json.dumps(treeview.to_json(view), allow_nan=False))
    assert data["children"][0]["id"] == view.children[0].id
    assert set(data) >= {"id", "action", "label", "player", "to_play", "visits", "value", "uct"}
    assert {treeview.export(view, f)[:1] for f in treeview.FORMATS} == {"r", "d", "<", "{"}


def test_unknown_format_and_missing_dot(solved: TreeNode, monkeypatch: pytest.MonkeyPatch) -> None:
    view = solved
    with pytest.raises(InvalidConfigError, match="valid formats: text, dot, svg, json"):
        treeview.export(view, "png")
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(MctslabError, match=r"apt-get install graphviz") as err:
        treeview.to_svg(view)
    assert "\n" not in str(err.value)


# The command line -----------------------------------------------------------------------------

BASE = ("tree", "tic_tac_toe", "--moves", "4", "--iterations", "200", "--seed", "1")


def invoke(*args: str) -> Result:
    return runner.invoke(app, list(args))


def ok(*args: str) -> Result:
    result = invoke(*args)
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    return result


def assert_user_error(result: Result, needle: str) -> None:
    assert result.exit_code == 2, (result.stdout, result.stderr, result.exception)
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert needle in lines[0]


def test_cli_formats() -> None:
    text = ok(*BASE, "--depth", "1").stdout
    assert text.startswith("root (o to move)  N=200\n")
    assert "(a1)" in text and "Q/N=" in text
    data = json.loads(ok(*BASE, "--format", "json", "--top", "2", "--depth", "3").stdout)
    assert data["visits"] == 200 and len(data["children"]) == 2
    state = mctslab.make("tic_tac_toe").state_from_actions([4])
    searcher = MCTS(SearchConfig(iterations=200, seed=1))
    searcher.search(state)
    view = treeview.from_reference(searcher, state, depth=3, top=2)
    assert data == treeview.to_json(view)  # the CLI's default engine builds the same tree
    dot = ok(*BASE, "--format", "dot", "--engine", "reference", "c=0.5").stdout
    assert dot.startswith("digraph mcts {")
    svg = ok(*BASE, "--format", "svg", "--depth", "1").stdout
    assert svg.startswith("<?xml")
    sub = json.loads(ok(*BASE, "--format", "json", "--node", "0", "--depth", "0").stdout)
    assert sub["id"] == "0" and sub["label"] == "a1" and sub["children"] == []


def test_cli_writes_a_file(tmp_path: Path) -> None:
    out = tmp_path / "tree.dot"
    result = ok(*BASE, "--format", "dot", "-o", str(out))
    assert result.stdout == ""
    assert "wrote" in result.stderr
    graphviz.Source(out.read_text()).pipe(format="plain")
    assert_user_error(invoke(*BASE, "-o", str(tmp_path / "missing" / "tree.txt")), "does not exist")
    assert_user_error(invoke(*BASE, "-o", str(tmp_path)), "is a directory")


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("--format", "png"), "valid formats: text, dot, svg, json"),
        (("--depth", "-1"), "--depth must be"),
        (("--top", "0"), "--top must be"),
        (("--node", "4.x"), "bad node id"),
        (("--node", "4"), "not in the tree"),  # 4 was played: no child 4 at the root
        (("--engine", "gpu"), "unknown engine"),
        (("bogus=1",), "unknown mcts option"),
        (("workers=2",), "workers at 1"),
    ],
)
def test_cli_user_errors(args: tuple[str, ...], needle: str) -> None:
    assert_user_error(invoke(*BASE, *args), needle)


def test_cli_svg_without_dot(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert_user_error(invoke(*BASE, "--format", "svg"), "apt-get install graphviz")


def test_puct_views_carry_each_childs_prior_and_puct_score() -> None:
    ref, state = searched("tic_tac_toe", [], puct=PuctConfig(c=1.5, evaluator="uniform"))
    view = treeview.from_reference(ref, state, depth=1)
    assert view.prior is None
    assert [ch.prior for ch in view.children] == [pytest.approx(1 / 9)] * 9
    child = view.children[0]
    assert child.value is not None
    explore = 1.5 * math.sqrt(view.visits)
    assert child.uct == pytest.approx(child.value + explore * (1 / 9) / (1 + child.visits))
    data = treeview.to_json(view)
    assert data["prior"] is None and data["children"][0]["prior"] == pytest.approx(1 / 9)
    assert "P=0.111 PUCT=" in treeview.to_text(view)
    assert "P=0.111" in treeview.to_dot(view)
    # UCT: no priors.
    uct, state = searched("tic_tac_toe", [])
    assert all(n.prior is None for n in treeview.walk(treeview.from_reference(uct, state)))
