"""The package's front door (``src/mctslab/__init__.py``): a curated face of at most 30
names, every one of them importable and documented, and an ``import mctslab`` that
leaves the arena and its SQLite store unimported (issue 53, item 6)."""

from __future__ import annotations

import subprocess
import sys

import mctslab

#: The names the issue puts on the front door (the game API, the search, the two engines,
#: PUCT and its evaluators, the solver, players, single-player search, errors, the checker).
EXPECTED = {
    "CHANCE", "TERMINAL", "Game", "GameInfo", "State", "PythonState",
    "ImperfectInformationState", "make", "register", "available_games",
    "search", "make_searcher", "SearchConfig", "SearchResult", "MCTS", "CompiledMCTS",
    "PuctConfig", "Evaluator", "make_evaluator", "solve", "Player", "make_player",
    "play_game", "optimize", "check_game", "MctslabError", "InvalidConfigError",
    "InvalidSpecError", "IllegalActionError", "UnknownGameError",
}  # fmt: skip


def test_the_front_door_holds_at_most_thirty_names_and_each_is_there() -> None:
    assert len(mctslab.__all__) <= 30
    assert set(mctslab.__all__) == EXPECTED
    for name in mctslab.__all__:
        assert getattr(mctslab, name).__doc__, name


def test_import_mctslab_does_not_import_the_arena_or_sqlite() -> None:
    code = (
        "import sys, mctslab; "
        "print(sorted(m for m in sys.modules if m.startswith('mctslab.arena') or m == 'sqlite3'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_names_that_left_are_in_their_subpackages() -> None:
    from mctslab.arena import ArenaConfig, ResultStore, compute_ratings, run_arena
    from mctslab.search.compiled import search_many
    from mctslab.search.ismcts import ISMCTS, PIMC

    assert all(x is not None for x in (ArenaConfig, ResultStore, compute_ratings, run_arena))
    assert all(x is not None for x in (search_many, ISMCTS, PIMC))


def test_optimize_runs_a_single_player_search_from_a_game_or_a_position() -> None:
    game = mctslab.make("samegame", rows=5, columns=5, colors=3, seed=1)
    from_game = mctslab.optimize(game, "nmcs:level=1", seed=3)
    from_state = mctslab.optimize(game.new_initial_state(), "nmcs:level=1", seed=3)
    assert from_game.score == from_state.score > 0
    assert from_game.sequence == from_state.sequence
