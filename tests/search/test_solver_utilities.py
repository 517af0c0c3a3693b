"""MCTS-Solver proves wins, draws and losses only: games with other results are refused.

A proof is a sign (win 1, draw 0, loss -1), backed up as the extreme reward. On a game
whose terminal returns are scores (Kuhn poker's 1 or 2 chips, Bohnenspiel's store
difference) a sign is not the value: before this check the solver "proved" Kuhn poker's
K against J at 5 iterations and reported 1.2 chips where the exact value is 1.0.
"""

from __future__ import annotations

import pytest

import mctslab
from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import TERMINAL, GameInfo
from mctslab.search.config import SearchConfig
from mctslab.search.engine import make_searcher, search
from mctslab.search.mcts import MCTS
from mctslab.search.solver import NotWinLossDrawError

# Bohnenspiel end game: few beans left, so the search reaches terminal positions at once.
PITS = [1, 0, 0, 0, 0, 2, 0, 1, 0, 0, 3, 0]
STORES = (30, 35)


def test_the_solver_refuses_kuhn_poker_whose_results_are_chips() -> None:
    game = mctslab.make("kuhn_poker")
    state = game.state_from_actions([2, 0])  # player 0 holds the king, player 1 the jack
    with pytest.raises(
        NotWinLossDrawError, match=r"kuhn_poker ended a game with returns \["
    ) as err:
        search(state, SearchConfig(iterations=2000, solver=True, seed=1))
    assert isinstance(err.value, ValueError)  # a user error, caught like every other
    # Without the solver the search runs, and its estimate is no proof.
    result = search(state, SearchConfig(iterations=2000, seed=1))
    assert result.proven is None and result.stopped_by == "iterations"


@pytest.mark.parametrize("engine", ["reference", "compiled"])
def test_the_solver_refuses_bohnenspiel_scored_by_store_difference(engine: str) -> None:
    game = mctslab.make("bohnenspiel", utility="score")
    state = game.state_from_pits(PITS, stores=STORES)
    searcher = make_searcher(SearchConfig(iterations=2000, solver=True), state, engine)
    with pytest.raises(NotWinLossDrawError, match=r"win \(72\), a draw \(0\) or a loss \(-72\)"):
        searcher.search(state)
    # The half-done iteration's tree is dropped: a search without the solver starts fresh.
    assert searcher.root_children() == []


def test_both_engines_agree_on_the_scored_game_without_the_solver() -> None:
    game = mctslab.make("bohnenspiel", utility="score")
    state = game.state_from_pits(PITS, stores=STORES)
    config = SearchConfig(iterations=1500, seed=4)
    ref = search(state, config, engine="reference")
    com = search(state, config, engine="compiled")
    assert ref.children == com.children and ref.value == pytest.approx(com.value)
    # The value is a store difference: player 0 is 5 behind and can only lose beans here.
    assert -72 <= ref.value < 0


@pytest.mark.parametrize("engine", ["reference", "compiled"])
def test_the_solver_still_proves_win_loss_bohnenspiel(engine: str) -> None:
    state = mctslab.make("bohnenspiel").state_from_pits(PITS, stores=STORES)
    result = search(state, SearchConfig(iterations=5000, solver=True), engine=engine)
    assert result.proven == -1 and result.stopped_by == "proven"


class _Lopsided:
    """A one-move zero-sum game whose utilities run from -1 to 2 (not symmetric)."""

    info = GameInfo("lopsided", 1, 2, 2, 1, True, -1.0, 2.0)

    def new_initial_state(self) -> _LopsidedState:
        return _LopsidedState(self)


class _LopsidedState:
    def __init__(self, game: _Lopsided) -> None:
        self.game = game
        self.moves: list[int] = []

    def current_player(self) -> int:
        return TERMINAL if self.moves else 0

    def is_terminal(self) -> bool:
        return bool(self.moves)

    def legal_actions(self) -> list[int]:
        return [] if self.moves else [0, 1]

    def apply_action(self, action: int) -> None:
        self.moves.append(action)

    def child(self, action: int) -> _LopsidedState:
        new = self.clone()
        new.apply_action(action)
        return new

    def clone(self) -> _LopsidedState:
        new = _LopsidedState(self.game)
        new.moves = list(self.moves)
        return new

    def returns(self) -> list[float]:
        return [0.0, 0.0] if not self.moves else [1.0, -1.0]

    def history(self) -> list[int]:
        return list(self.moves)


def test_the_solver_refuses_utilities_not_symmetric_about_zero_before_searching() -> None:
    state = _Lopsided().new_initial_state()
    with pytest.raises(InvalidConfigError, match="symmetric about 0; lopsided's run from -1 to 2"):
        MCTS(SearchConfig(iterations=10, solver=True)).search(state)  # type: ignore[arg-type]
