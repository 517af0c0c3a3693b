"""The Hex example (examples/kernel_game.py): a user's rule-kernel game on the compiled engine.

The game lives outside the package; these tests check that it plugs in as the
built-in kernel games do: it passes ``check_game``, its rules are OpenSpiel's
``hex``, the compiled engine builds the same tree as the reference engine on it,
and ``engine="auto"`` picks the compiled engine for it.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from test_compiled import assert_identical

import mctslab
from conftest import require_extra
from mctslab.core.rng import Rng
from mctslab.core.testing import check_game
from mctslab.search.compiled import CompiledMCTS
from mctslab.search.config import SearchConfig
from mctslab.search.engine import make_searcher
from mctslab.search.mcts import MCTS

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "kernel_game.py"


def _load() -> ModuleType:
    # examples/ is not a package: load the file by path.
    spec = importlib.util.spec_from_file_location("kernel_game", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


example = _load()
Hex = example.Hex


def play(*moves: str, rows: int = 5, columns: int | None = None) -> Any:
    """The state after ``moves`` given by name, e.g. ``play("c3", "b2")``."""
    state = Hex(rows, columns).new_initial_state()
    for move in moves:
        state.apply_action(state.string_to_action(move))
    return state


def min_states(rows: int, columns: int) -> int:
    """The fewest states a game on this board passes through, the start and the end included.

    x needs a stone in each of the ``rows`` rows (its ``rows``-th stone is ply
    ``2 * rows - 1``), o one in each of the ``columns`` columns (ply ``2 * columns``).
    """
    return min(2 * rows - 1, 2 * columns) + 1


def test_check_game() -> None:
    for rows, columns in ((5, 5), (3, 6), (6, 2), (1, 1)):
        checked = check_game(Hex(rows, columns), n_games=100, seed=rows)
        assert checked >= 100 * min_states(rows, columns)  # every state of 100 whole games


def test_info_names_and_registration() -> None:
    game = Hex(4, 6)
    assert game.info.num_actions == game.info.max_game_length == 24
    state = game.new_initial_state()
    assert state.action_to_string(0) == "a1" and state.action_to_string(23) == "f4"
    assert state.action_to_string(6) == "a2"
    assert state.string_to_action(" B3 ") == 13
    for bad in ("g1", "a5", "a0", "zz"):
        with pytest.raises(mctslab.IllegalActionError, match="unknown action"):
            state.string_to_action(bad)
    made = mctslab.make("hex", rows=4)
    assert isinstance(made, Hex) and (made.rows, made.columns) == (4, 4)
    assert "hex" in mctslab.available_games()
    example._register()  # importing the example again must not fail


@pytest.mark.parametrize(
    "params", [{"rows": 0}, {"rows": 27}, {"rows": True}, {"rows": 3, "columns": "4"}]
)
def test_bad_sizes_are_rejected(params: dict[str, Any]) -> None:
    with pytest.raises(mctslab.InvalidConfigError, match="hex"):
        Hex(**params)
    with pytest.raises(mctslab.InvalidConfigError):
        mctslab.make("hex", **params)


def test_x_joins_top_and_bottom() -> None:
    state = play("a1", "b1", "a2", "b2", "a3", "b3", "a4", "b4")
    assert not state.is_terminal() and state.current_player() == 0
    state.apply_action(state.string_to_action("a5"))
    assert state.is_terminal() and state.returns() == [1.0, -1.0]
    assert state.legal_actions() == []
    with pytest.raises(mctslab.IllegalActionError, match="over"):
        state.apply_action(24)


def test_o_joins_left_and_right() -> None:
    state = play("a1", "a3", "b1", "b3", "c1", "c3", "d1", "d3", "e1", "e3")
    assert state.is_terminal() and state.returns() == [-1.0, 1.0]


def test_neighbours_are_the_six_of_a_hex_grid() -> None:
    # (r, c) touches (r + 1, c - 1): the anti-diagonal e1 d2 c3 b4 a5 is a chain ...
    chain = play("e1", "a1", "d2", "b1", "c3", "c1", "b4", "d1", "a5")
    assert chain.is_terminal() and chain.returns() == [1.0, -1.0]
    # ... but not (r + 1, c + 1): the diagonal a1 b2 c3 d4 e5 is five separate stones.
    diagonal = play("a1", "a2", "b2", "a3", "c3", "a4", "d4", "b5", "e5")
    assert not diagonal.is_terminal()


def test_a_stone_that_joins_two_groups_wins() -> None:
    state = play("c1", "a1", "c2", "a2", "c4", "a4", "c5", "a5")
    assert not state.is_terminal()
    state.apply_action(state.string_to_action("c3"))
    assert state.is_terminal() and state.returns() == [1.0, -1.0]


def test_occupied_cells_are_illegal() -> None:
    state = play("c3")
    with pytest.raises(mctslab.IllegalActionError, match="illegal action 12"):
        state.apply_action(12)
    assert state.history() == [12] and 12 not in state.legal_actions()


def test_equal_positions_are_equal_arrays() -> None:
    # The edge masks depend on the stones alone, not on the order they came in.
    one = play("a1", "e5", "a2", "e4", "b2", "d4")
    two = play("b2", "d4", "a2", "e5", "a1", "e4")
    assert one.key() == two.key()


def test_heuristic_favours_the_side_closer_to_connecting() -> None:
    # x needs 2 more stones (c4, c5); o must go round x's wall below it: 5 stones.
    state = play("c1", "a1", "c2", "a2", "c3")
    x, o = state.heuristic()
    assert x == -o and x == pytest.approx((5 - 2) / (5 + 2))
    assert Hex(5).new_initial_state().heuristic() == [0.0, 0.0]


# Node identity with the reference engine: an opening, and a middle game where the
# solver proves nodes within the budget. The reference's heavy playouts try every
# move and every reply in Python, so they run on a 4x4 board with 12 empty cells
# (where the solver proves the root).
MIDDLE = (4, 5, ["b2", "c3", "d1", "b3", "c2", "a4"])
POSITIONS = {
    "random": ((5, 5, ["c3"]), MIDDLE),
    "cutoff": ((5, 5, ["c3"]), MIDDLE),
    "heavy": ((4, 4, ["b2", "c2", "b3", "c3"]),),
}


@pytest.mark.parametrize("expansion", ["one", "all"])
@pytest.mark.parametrize("simulation", ["random", "heavy", "cutoff"])
@pytest.mark.parametrize("solver", [False, True])
def test_node_identical_to_the_reference(expansion: str, simulation: str, solver: bool) -> None:
    for i, (rows, columns, moves) in enumerate(POSITIONS[simulation]):
        config = SearchConfig(
            iterations=2000,
            seed=7 + i,
            expansion=expansion,  # type: ignore[arg-type]
            simulation=simulation,  # type: ignore[arg-type]
            solver=solver,
            cutoff_depth=3,
        )
        assert_identical(play(*moves, rows=rows, columns=columns), config)


def test_proof_identical_to_the_reference() -> None:
    state = play("b2", "c2", "b3", "c3", rows=4)  # x to move wins (4x4 Hex is a first-player win)
    config = SearchConfig(iterations=5000, seed=1, solver=True)
    assert_identical(state, config)
    result = CompiledMCTS(config).search(state)
    assert result.proven == 1 and result.stopped_by == "proven"


@pytest.mark.parametrize("solver", [False, True])
def test_engine_finds_the_immediate_win(solver: bool) -> None:
    state = play("a1", "b1", "a2", "b2", "a3", "b3", "a4", "b4")  # x to move: a5 wins
    result = mctslab.search(state, SearchConfig(iterations=2000, solver=solver), engine="auto")
    assert state.action_to_string(result.action) == "a5"
    if solver:
        assert result.proven == 1


def test_auto_engine_picks_the_compiled_engine_and_the_cached_wrapper() -> None:
    state = Hex(5).new_initial_state()
    searcher = make_searcher(SearchConfig(iterations=100), state)
    assert isinstance(searcher, CompiledMCTS)
    assert isinstance(make_searcher(SearchConfig(), state, "reference"), MCTS)
    assert Hex.kernels.search_chunk is example.search_chunk
    searcher.search(state)
    assert example.search_chunk.signatures  # the engine ran this module's wrapper


def test_demo_runs(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # The demo's 2-second timed search, shortened.
    real = example.SearchConfig

    def quick(**kwargs: Any) -> SearchConfig:
        if kwargs.get("time"):
            kwargs["time"] = 0.05
        if kwargs.get("iterations"):
            kwargs["iterations"] = 500
        return real(**kwargs)  # type: ignore[no-any-return]

    monkeypatch.setattr(example, "SearchConfig", quick)
    example.main()  # its check_game is the real one: a ConformanceError fails the test
    out = capsys.readouterr().out
    checked = re.search(r"check_game: (\d+) states of 200 random games conform", out)
    assert checked is not None and int(checked[1]) >= 200 * min_states(5, 5)
    assert "root children identical: True" in out and "sims/s" in out


# OpenSpiel's hex (no swap rule) on random games: same legal actions, player,
# terminal flag and returns at every step, same action names. Not on boards one
# cell wide: there OpenSpiel's hex gives a stone at most one of its owner's two
# edges, so nobody can win and a full board is left non-terminal with no legal
# actions (see test_boards_one_cell_wide).
SPIEL_CASES = [(5, 5, 300), (4, 4, 300), (3, 5, 200), (6, 3, 200), (2, 2, 20)]


@pytest.mark.parametrize("rows,columns,n_games", SPIEL_CASES)
def test_same_rules_as_openspiel(rows: int, columns: int, n_games: int) -> None:
    pyspiel = require_extra("pyspiel", "openspiel")
    spiel = pyspiel.load_game("hex", {"num_rows": rows, "num_cols": columns})
    game = Hex(rows, columns)
    assert spiel.num_distinct_actions() == game.info.num_actions
    assert spiel.max_game_length() == game.info.max_game_length
    start = game.new_initial_state()
    theirs = spiel.new_initial_state()
    for a in range(game.info.num_actions):
        assert start.action_to_string(a) == theirs.action_to_string(0, a)
    for g in range(n_games):
        rng = Rng(g)
        ours, theirs = game.new_initial_state(), spiel.new_initial_state()
        while True:
            where = f"game {g}, moves {ours.history()}"
            assert ours.legal_actions() == list(theirs.legal_actions()), where
            assert ours.current_player() == theirs.current_player(), where
            assert ours.is_terminal() == theirs.is_terminal(), where
            if ours.is_terminal():
                break
            a = rng.choice(ours.legal_actions())
            ours.apply_action(a)
            theirs.apply_action(a)
        assert ours.returns() == list(theirs.returns()), where


def test_boards_one_cell_wide() -> None:
    # A stone on a one-row board touches the top and the bottom edge: x wins at once.
    assert play("b1", rows=1, columns=3).returns() == [1.0, -1.0]
    # On a one-column board any o stone joins left and right.
    assert play("a2", "a1", rows=3, columns=1).returns() == [-1.0, 1.0]
