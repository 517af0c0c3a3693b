"""Root parallelism: workers=N merges N independent seeded searches."""

from __future__ import annotations

import pytest

import mctslab
from mctslab.players.player import parse_spec, search_config
from mctslab.search.config import SearchConfig
from mctslab.search.engine import make_searcher, search, single_searcher
from mctslab.search.parallel import RootParallelSearcher


@pytest.mark.parametrize(
    "engine,parallel",
    [
        ("compiled", "threads"),
        ("compiled", "processes"),
        ("reference", "processes"),
        ("reference", "threads"),
    ],
)
def test_two_workers_merge_the_searches_of_seeds_s_and_s_plus_1(engine: str, parallel: str) -> None:
    """In threads or in processes, the merged root is the sum of the two seeded searches."""
    state = mctslab.make("connect_four").state_from_actions([3])
    config = SearchConfig(iterations=1500, seed=7, workers=2, parallel=parallel)  # type: ignore[arg-type]
    merged = search(state, config, engine=engine)
    one = search(state, SearchConfig(iterations=1500, seed=7), engine=engine)
    two = search(state, SearchConfig(iterations=1500, seed=8), engine=engine)
    assert merged.iterations == 3000 and merged.nodes == one.nodes + two.nodes
    for m, a, b in zip(merged.children, one.children, two.children, strict=True):
        assert m.action == a.action == b.action
        assert m.visits == a.visits + b.visits
        mean = (a.value * a.visits + b.value * b.visits) / (a.visits + b.visits)
        assert m.value == pytest.approx(mean)
    best = max(merged.children, key=lambda ch: (ch.visits, ch.value))
    assert merged.action == best.action and merged.final_rule == "robust"


def test_workers_keep_their_trees_and_pass_on_proofs() -> None:
    game = mctslab.make("tic_tac_toe")
    state = game.state_from_actions([0, 3, 1, 4])  # x wins with c1
    searcher = make_searcher(SearchConfig(iterations=2000, workers=2, solver=True), state)
    assert isinstance(searcher, RootParallelSearcher)
    try:
        result = searcher.search(state)
        assert result.action == 2 and result.proven == 1 and result.final_rule == "solver"
        quiet = game.state_from_actions([4])
        first = searcher.search(quiet)
        quiet.apply_action(first.action)
        quiet.apply_action(quiet.legal_actions()[0])
        again = searcher.search(quiet)
        assert again.nodes > 0
    finally:
        searcher.close()


def test_auto_runs_compiled_workers_in_threads_and_reference_ones_in_processes() -> None:
    """``parallel="auto"``: threads where the compiled engine searches (it releases the
    GIL), processes for the reference engine; switching games switches the workers."""
    config = SearchConfig(iterations=200, workers=2)
    ttt = mctslab.make("tic_tac_toe").new_initial_state()
    kuhn = mctslab.make("kuhn_poker").state_from_actions([2, 0])  # chance nodes: reference
    searcher = RootParallelSearcher(config, single=single_searcher)
    try:
        searcher.search(ttt)
        assert searcher.mode == "threads" and searcher._procs == []
        searcher.search(kuhn)
        assert searcher.mode == "processes" and len(searcher._procs) == 2
        searcher.search(ttt)
        assert searcher.mode == "threads" and searcher._procs == []
    finally:
        searcher.close()
    reference = RootParallelSearcher(config, "reference", single=single_searcher)
    try:
        reference.search(ttt)
        assert reference.mode == "processes"
    finally:
        reference.close()


def test_compiled_search_releases_the_gil() -> None:
    """Every built-in game's cached search chunks (UCT's and PUCT's), the generic ones and
    tree compaction are compiled with ``nogil``: threads of one process search in parallel."""
    from mctslab.search import compiled, kernel_chunks
    from mctslab.search.compiled.tree import compact

    chunks = [getattr(kernel_chunks, name) for name in kernel_chunks.__all__]
    # UCT's chunk, PUCT's chunk and round for each kernel game's module: eight (nim's
    # serves bachet too), five of two players and three of one.
    assert len(chunks) == 24
    for fn in (
        *chunks,
        compiled.run_chunk,
        compiled.run_puct_chunk,
        compiled.run_puct_round,
        compact,
    ):
        assert fn.targetoptions.get("nogil") is True, fn


def test_a_worker_thread_crash_is_reported_as_a_crash(caplog: pytest.LogCaptureFixture) -> None:
    from mctslab.search.parallel import SearchWorkerError

    state = _BuggyGame(crash_at=2).new_initial_state()
    config = SearchConfig(iterations=50, workers=2, parallel="threads")
    searcher = RootParallelSearcher(config, "reference", single=single_searcher)
    with pytest.raises(SearchWorkerError, match="ZeroDivisionError: a bug in the rules"):
        searcher.search(state)  # type: ignore[arg-type]
    assert "Traceback" in caplog.text and searcher.mode is None  # the workers were stopped


def test_workers_from_a_player_spec_and_bad_values() -> None:
    info = mctslab.make("tic_tac_toe").info
    player = mctslab.make_player("mcts:iterations=200,workers=2", info)
    state = mctslab.make("tic_tac_toe").new_initial_state()
    assert player.choose(state) in state.legal_actions()
    with pytest.raises(mctslab.InvalidConfigError, match="workers"):
        SearchConfig(workers=0)
    with pytest.raises(mctslab.InvalidConfigError, match="parallel must be one of auto"):
        SearchConfig(workers=2, parallel="fibers")  # type: ignore[arg-type]
    threads = mctslab.make_player("mcts:iterations=200,workers=2,parallel=threads", info)
    assert threads.choose(state) in state.legal_actions()
    with pytest.raises(mctslab.InvalidConfigError, match="make_searcher"):
        mctslab.MCTS(SearchConfig(workers=2)).search(state)


class _BuggyGame:
    """Nim-like counting game whose rules crash (a bug, not bad input) after ``crash_at``
    moves, or kill the process outright with ``exit_at``."""

    info = mctslab.GameInfo("buggy", 1, 2, 2, 10, True, -1.0, 1.0)

    def __init__(self, crash_at: int = 2, hard: bool = False) -> None:
        self.crash_at, self.hard = crash_at, hard

    def new_initial_state(self) -> _BuggyState:
        return _BuggyState(self, [])


class _BuggyState:
    def __init__(self, game: _BuggyGame, moves: list[int]) -> None:
        self.game, self.moves = game, moves

    def current_player(self) -> int:
        return mctslab.TERMINAL if len(self.moves) >= 10 else len(self.moves) % 2

    def is_terminal(self) -> bool:
        return len(self.moves) >= 10

    def legal_actions(self) -> list[int]:
        return [] if self.is_terminal() else [0, 1]

    def apply_action(self, action: int) -> None:
        if len(self.moves) + 1 >= self.game.crash_at:
            if self.game.hard:
                import os

                os._exit(3)  # the worker process dies without a word
            raise ZeroDivisionError("a bug in the rules")
        self.moves.append(action)

    def child(self, action: int) -> _BuggyState:
        new = self.clone()
        new.apply_action(action)
        return new

    def clone(self) -> _BuggyState:
        return _BuggyState(self.game, list(self.moves))

    def returns(self) -> list[float]:
        return [1.0, -1.0] if sum(self.moves) % 2 else [-1.0, 1.0]

    def history(self) -> list[int]:
        return list(self.moves)


def test_a_worker_crash_is_reported_as_a_crash_with_its_traceback_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from mctslab.search.parallel import SearchWorkerError

    state = _BuggyGame(crash_at=2).new_initial_state()
    searcher = RootParallelSearcher(
        SearchConfig(iterations=50, workers=2), "reference", single=single_searcher
    )
    with pytest.raises(SearchWorkerError, match="ZeroDivisionError: a bug in the rules") as err:
        searcher.search(state)  # type: ignore[arg-type]
    assert not isinstance(err.value, ValueError)  # not a user error
    assert "Traceback" in caplog.text and "apply_action" in caplog.text
    assert searcher._procs == []  # the workers were stopped


def test_a_worker_that_dies_is_reported_not_waited_for() -> None:
    from mctslab.search.parallel import SearchWorkerError

    state = _BuggyGame(crash_at=2, hard=True).new_initial_state()
    searcher = RootParallelSearcher(
        SearchConfig(iterations=50, workers=2), "reference", single=single_searcher
    )
    with pytest.raises(SearchWorkerError, match=r"worker 0 died \(exit code 3\)"):
        searcher.search(state)  # type: ignore[arg-type]


def test_a_configuration_error_in_a_worker_stays_a_user_error_of_its_type() -> None:
    from mctslab.search.solver import NotWinLossDrawError

    state = mctslab.make("kuhn_poker").state_from_actions([2, 0])
    searcher = RootParallelSearcher(
        SearchConfig(iterations=500, workers=2, solver=True), single=single_searcher
    )
    with pytest.raises(NotWinLossDrawError, match="kuhn_poker ended a game"):
        searcher.search(state)


def test_threads_names_the_root_parallel_workers() -> None:
    """``mcts:threads=2`` is ``workers=2``: the compiled engine runs its workers as
    threads of this process (its searches release the GIL)."""
    _, options = parse_spec("mcts:threads=2,time=1")
    assert search_config(options).workers == 2
