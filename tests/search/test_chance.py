"""Chance nodes in the reference engine, checked against exact expectimax.

The games here are small explicit trees (decision, chance and terminal nodes)
so that expectimax gives the exact value of every move: MCTS must find the
move of highest expected value, estimate its value, visit chance outcomes in
proportion to their probabilities, and (under MCTS-Solver) prove a chance node
only when all of its outcomes agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Self

import pytest

from mctslab import CHANCE, TERMINAL, GameInfo, IllegalActionError, InvalidConfigError
from mctslab.analysis.treeview import from_reference, to_text
from mctslab.core.rng import Rng
from mctslab.core.testing import check_game
from mctslab.players.player import RandomPlayer, play_game
from mctslab.search.config import SearchConfig
from mctslab.search.mcts import MCTS, search

# A tree: ("t", returns) | ("p", player, {action: tree}) | ("c", {action: (prob, tree)})
Tree = tuple[Any, ...]


class TreeGame:
    """A two-player zero-sum game given as an explicit tree."""

    chance_nodes = True  # mctslab.core.game.has_chance_nodes

    def __init__(self, tree: Tree, num_actions: int = 8) -> None:
        self.tree = tree
        self.info = GameInfo(
            name="tree",
            version=1,
            num_players=2,
            num_actions=num_actions,
            max_game_length=16,
            zero_sum=True,
            min_utility=-1.0,
            max_utility=1.0,
        )

    def new_initial_state(self) -> TreeState:
        return TreeState(self, self.tree, [])

    def state_from_actions(self, actions: Sequence[int]) -> TreeState:
        s = self.new_initial_state()
        for a in actions:
            s.apply_action(a)
        return s


class TreeState:
    def __init__(self, game: TreeGame, node: Tree, hist: list[int]) -> None:
        self.game = game
        self.node = node
        self.hist = hist

    def current_player(self) -> int:
        kind = self.node[0]
        return TERMINAL if kind == "t" else CHANCE if kind == "c" else int(self.node[1])

    def _children(self) -> dict[int, Any]:
        kind = self.node[0]
        return {} if kind == "t" else self.node[1] if kind == "c" else self.node[2]

    def legal_actions(self) -> list[int]:
        return sorted(self._children())

    def legal_actions_mask(self) -> list[bool]:
        legal = set(self.legal_actions())
        return [a in legal for a in range(self.game.info.num_actions)]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.node[0] != "c":
            return []
        return [(a, p) for a, (p, _) in sorted(self.node[1].items())]

    def apply_action(self, action: int) -> None:
        children = self._children()
        if action not in children:
            raise IllegalActionError(f"illegal {action}")
        nxt = children[action]
        self.node = nxt[1] if self.node[0] == "c" else nxt
        self.hist = [*self.hist, action]

    def child(self, action: int) -> Self:
        new = self.clone()
        new.apply_action(action)
        return new

    def clone(self) -> Self:
        return type(self)(self.game, self.node, list(self.hist))

    def is_terminal(self) -> bool:
        return self.node[0] == "t"

    def returns(self) -> list[float]:
        return list(self.node[1]) if self.node[0] == "t" else [0.0, 0.0]

    def action_to_string(self, action: int) -> str:
        return str(action)

    def string_to_action(self, text: str) -> int:
        return int(text)

    def history(self) -> list[int]:
        return list(self.hist)

    def __str__(self) -> str:
        return f"tree after {self.hist}"


def expectimax(node: Tree) -> float:
    """Player 0's exact expected return under optimal play by both players."""
    kind = node[0]
    if kind == "t":
        return float(node[1][0])
    if kind == "c":
        return sum(p * expectimax(sub) for p, sub in node[1].values())
    values = [expectimax(sub) for sub in node[2].values()]
    return max(values) if node[1] == 0 else min(values)


def T(v: float) -> Tree:
    return ("t", (v, -v))


def coin(p_win: float, player: int = 0) -> Tree:
    """A chance node: ``player`` wins with probability ``p_win``."""
    win = 1.0 if player == 0 else -1.0
    return ("c", {0: (p_win, T(win)), 1: (1.0 - p_win, T(-win))})


GAMBLE = ("p", 0, {0: coin(0.7), 1: coin(0.4), 2: T(0.0)})


def random_tree(rng: Rng, depth: int) -> Tree:
    """A random game of decisions and chance (values in [-1, 1])."""
    if depth == 0:
        return T(round(rng.random() * 2 - 1, 2))
    if rng.randint(3) == 0:
        k = 2 + rng.randint(3)
        weights = [1 + rng.randint(9) for _ in range(k)]
        total = sum(weights)
        return ("c", {a: (w / total, random_tree(rng, depth - 1)) for a, w in enumerate(weights)})
    k = 2 + rng.randint(2)
    return ("p", rng.randint(2), {a: random_tree(rng, depth - 1) for a in range(k)})


def test_tree_games_pass_the_conformance_checker() -> None:
    check_game(TreeGame(GAMBLE), n_games=20)
    check_game(TreeGame(random_tree(Rng(3), 5)), n_games=20)


def test_mcts_picks_the_move_of_highest_expectation_and_estimates_it() -> None:
    game = TreeGame(GAMBLE)
    result = search(game.new_initial_state(), SearchConfig(iterations=4000, seed=1))
    assert result.action == 0  # 0.7 to win beats 0.4 to win and a sure draw
    best = next(ch for ch in result.children if ch.action == 0)
    assert best.value == pytest.approx(0.4, abs=0.06)  # 0.7 - 0.3


def test_chance_outcomes_are_visited_in_proportion_to_their_probabilities() -> None:
    searcher = MCTS(SearchConfig(iterations=3000, seed=2))
    searcher.search(TreeGame(GAMBLE).new_initial_state())
    assert searcher.root is not None
    chance = searcher.root.child(0)
    assert chance is not None and chance.outcomes == [(0, 0.7), (1, pytest.approx(0.3))]
    visits = {ch.action: ch.visits for ch in chance.children}
    total = sum(visits.values())
    assert total == chance.visits - 1  # the first visit simulated the chance node itself
    assert visits[0] / total == pytest.approx(0.7, abs=0.03)


@pytest.mark.parametrize("seed", range(12))
def test_mcts_agrees_with_expectimax_on_random_chance_games(seed: int) -> None:
    tree = random_tree(Rng(100 + seed), 4)
    while tree[0] != "p":  # the root must be a decision
        seed += 1000
        tree = random_tree(Rng(100 + seed), 4)
    player = tree[1]
    values = {a: expectimax(sub) for a, sub in tree[2].items()}
    best = max(values.values()) if player == 0 else min(values.values())
    result = search(TreeGame(tree).new_initial_state(), SearchConfig(iterations=6000, seed=seed))
    chosen = values[result.action]
    # The chosen move is optimal, or within a small margin of it (near-ties are allowed).
    assert abs(chosen - best) <= 0.1, (values, result.action)


def test_solver_proves_a_chance_node_whose_outcomes_agree() -> None:
    # Move 0: a coin whose both sides win; move 1: a real coin. Move 0 is a proven win.
    sure = ("c", {0: (0.5, T(1.0)), 1: (0.5, T(1.0))})
    game = TreeGame(("p", 0, {0: coin(0.9), 1: sure}))
    result = search(game.new_initial_state(), SearchConfig(iterations=2000, seed=0, solver=True))
    stats = {ch.action: ch for ch in result.children}
    assert stats[1].proven == 1 and result.proven == 1 and result.action == 1
    assert stats[0].proven is None  # outcomes proven to different values: not proven
    assert result.stopped_by == "proven"


def test_solver_never_proves_a_chance_node_with_disagreeing_outcomes() -> None:
    game = TreeGame(("p", 0, {0: coin(0.5), 1: coin(0.6)}))
    result = search(game.new_initial_state(), SearchConfig(iterations=500, seed=0, solver=True))
    assert result.proven is None and all(ch.proven is None for ch in result.children)
    assert result.stopped_by == "iterations" and result.action == 1


def test_a_chance_root_is_refused_clearly() -> None:
    state = TreeGame(coin(0.5)).new_initial_state()
    with pytest.raises(InvalidConfigError, match="chance node"):
        search(state, SearchConfig(iterations=10))


def test_node_budget_counts_chance_outcomes() -> None:
    game = TreeGame(random_tree(Rng(7), 6))
    state = game.new_initial_state()
    while state.current_player() == CHANCE:
        state.apply_action(state.legal_actions()[0])
    if not state.is_terminal():
        result = search(state, SearchConfig(iterations=None, max_nodes=40, seed=1))
        assert result.nodes <= 40 and result.stopped_by == "nodes"


def test_tree_reuse_follows_chance_outcomes() -> None:
    game = TreeGame(("p", 0, {0: ("c", {0: (0.5, GAMBLE), 1: (0.5, GAMBLE)})}))
    searcher = MCTS(SearchConfig(iterations=500, seed=3))
    state = game.new_initial_state()
    searcher.search(state)
    assert searcher.root is not None
    below = searcher.root.child(0)
    assert below is not None
    kept = below.child(1)
    assert kept is not None and kept.visits > 0
    state.apply_action(0)
    state.apply_action(1)
    searcher.search(state)
    assert searcher.root is kept  # the subtree under the outcome was reused


def test_play_game_samples_chance_from_its_seed() -> None:
    game = TreeGame(random_tree(Rng(11), 6))

    def one(seed: int) -> list[int]:
        players = [RandomPlayer(1), RandomPlayer(2)]
        return play_game(game.new_initial_state(), players, chance_seed=seed).history()

    assert one(5) == one(5)
    assert len({tuple(one(s)) for s in range(20)}) > 1


def test_tree_view_shows_chance_nodes() -> None:
    searcher = MCTS(SearchConfig(iterations=200, seed=3))
    state = TreeGame(GAMBLE).new_initial_state()
    searcher.search(state)
    view = from_reference(searcher, state, depth=2)
    chance = next(ch for ch in view.children if ch.action == 0)
    assert chance.to_play == CHANCE and chance.value is not None
    outcome = chance.children[0]
    assert outcome.player == CHANCE and outcome.value is None and outcome.uct is None
    # In the text view a chance outcome shows its visits only: no Q/N or UCT to read.
    outcome_lines = [line for line in to_text(view).splitlines() if line.startswith("│  ")]
    assert outcome_lines and all("N=" in line and "Q/N" not in line for line in outcome_lines)


class _DiceTicTacToe:
    """Tic-tac-toe's rule kernels under a game object that says it has chance nodes:
    refused for the chance nodes alone (it has kernels, unlike Pig)."""

    chance_nodes = True


def _kernel_game_with_chance() -> object:
    import mctslab

    base = mctslab.make("tic_tac_toe")
    game = type("DiceTicTacToe", (type(base), _DiceTicTacToe), {})()
    return game


def test_the_compiled_engine_refuses_a_kernel_game_that_has_chance_nodes() -> None:
    from mctslab.search.compiled import CompiledMCTS
    from mctslab.search.engine import has_kernels, make_searcher

    game = _kernel_game_with_chance()
    state = game.new_initial_state()  # type: ignore[attr-defined]
    assert hasattr(state, "array") and game.kernels is not None  # type: ignore[attr-defined]
    assert not has_kernels(state)
    with pytest.raises(InvalidConfigError, match="has no chance nodes and tic_tac_toe has them"):
        make_searcher(SearchConfig(), state, "compiled")
    with pytest.raises(InvalidConfigError, match="has no chance nodes and tic_tac_toe has them"):
        CompiledMCTS(SearchConfig()).search(state)  # refused before any iteration
    # "auto" picks the reference engine, which takes the dice.
    assert make_searcher(SearchConfig(iterations=50), state, "auto").search(state).iterations == 50


def test_auto_searches_pig_with_the_reference_engine() -> None:
    import mctslab
    from mctslab.search.engine import make_searcher
    from mctslab.search.mcts import MCTS

    state = mctslab.make("pig").new_initial_state()
    searcher = make_searcher(SearchConfig(iterations=50), state, "auto")
    assert isinstance(searcher, MCTS) and searcher.search(state).iterations == 50


def test_check_game_refuses_chance_nodes_that_are_not_declared() -> None:
    import mctslab
    from mctslab.core.testing import ConformanceError, check_game

    pig = mctslab.make("pig", target=10)
    check_game(pig, n_games=3)
    undeclared = type("UndeclaredPig", (type(pig),), {"chance_nodes": False})(target=10)
    with pytest.raises(ConformanceError, match="chance node in a game without chance_nodes"):
        check_game(undeclared, n_games=3)


@pytest.mark.parametrize("name", ["pig", "kuhn_poker", "knockout_whist"])
def test_the_built_in_chance_games_declare_their_chance_nodes(name: str) -> None:
    import mctslab
    from mctslab.core.game import has_chance_nodes

    assert has_chance_nodes(mctslab.make(name))
    assert not has_chance_nodes(mctslab.make("connect_four"))
