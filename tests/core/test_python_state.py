"""PythonState (mctslab.core.python_state): what a subclass that writes only the rules gets."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

import mctslab
from mctslab.core.errors import IllegalActionError, InvalidConfigError
from mctslab.core.game import TERMINAL, GameInfo
from mctslab.core.python_state import PythonState
from mctslab.core.testing import check_game


class Race:
    """Two players move their own counter 1 or 2 squares in turn; the first on ``goal`` wins."""

    def __init__(self, goal: int = 5) -> None:
        self.goal = goal
        self.info = GameInfo("race", 1, 2, 3, 2 * goal, True, -1.0, 1.0)

    def new_initial_state(self) -> RaceState:
        return RaceState(self)

    def state_from_actions(self, actions: Sequence[int]) -> RaceState:
        state = self.new_initial_state()
        for action in actions:
            state.apply_action(action)
        return state


class RaceState(PythonState[Race]):
    """The rules alone: the positions are a list changed in place, so ``copied`` names it."""

    __slots__ = ("at", "to_move")
    copied = ("at",)

    def __init__(self, game: Race) -> None:
        super().__init__(game)
        self.at = [0, 0]
        self.to_move = 0

    def current_player(self) -> int:
        return TERMINAL if self.game.goal in self.at else self.to_move

    def legal_actions(self) -> list[int]:
        if self.game.goal in self.at:
            return []
        return [a for a in (1, 2) if self.at[self.to_move] + a <= self.game.goal]

    def _apply_action(self, action: int) -> None:
        if action not in self.legal_actions():
            raise self.illegal_action(action)
        self.at[self.to_move] += action
        self.to_move = 1 - self.to_move

    def returns(self) -> list[float]:
        if self.game.goal not in self.at:
            return [0.0, 0.0]
        return [1.0, -1.0] if self.at[0] == self.game.goal else [-1.0, 1.0]


class DictRaceState(RaceState):
    """The same rules with instance dicts (no ``__slots__``): clone() copies the dict."""

    def __init__(self, game: Race) -> None:
        super().__init__(game)
        self.note = "a dict attribute"


def test_a_subclass_that_writes_the_rules_passes_check_game() -> None:
    assert check_game(Race(), n_games=100, seed=0) > 100
    state = Race().new_initial_state()
    assert isinstance(state, mctslab.State)
    assert isinstance(state, mctslab.PythonState)


def test_it_gets_history_child_clone_mask_and_names() -> None:
    game = Race()
    state = game.state_from_actions([2, 1])
    assert state.game is game
    assert state.history() == [2, 1]
    assert state.legal_actions_mask() == [False, True, True]
    assert not state.is_terminal()
    child = state.child(2)
    assert child.history() == [2, 1, 2] and child.at == [4, 1]
    assert state.history() == [2, 1] and state.at == [2, 1]  # the parent is untouched
    clone = state.clone()
    clone.apply_action(1)
    assert clone.at == [3, 1] and state.at == [2, 1]  # the list named in `copied` is copied
    assert clone.game is state.game  # the rest is shared
    assert state.action_to_string(2) == "2" and state.string_to_action(" 2 ") == 2
    assert repr(state) == f"<RaceState {game!r} history=[2, 1]>"


def test_illegal_actions_raise_the_shared_message_and_change_nothing() -> None:
    state = Race().state_from_actions([2, 2])
    with pytest.raises(
        IllegalActionError, match=r"^illegal action 3 in race; legal actions: 1 \(1\), 2 \(2\)$"
    ):
        state.apply_action(3)
    with pytest.raises(IllegalActionError, match=r"^illegal action 'x' in race; legal actions"):
        state.apply_action("x")  # type: ignore[arg-type]
    with pytest.raises(IllegalActionError, match=r"^illegal action 1\.5 in race"):
        state.apply_action(1.5)  # type: ignore[arg-type]
    assert state.history() == [2, 2] and state.at == [2, 2]
    with pytest.raises(
        IllegalActionError, match=r"^unknown action 'three' in race; legal actions: 1, 2$"
    ):
        state.string_to_action("three")
    over = Race(goal=1).state_from_actions([1])
    with pytest.raises(IllegalActionError, match="game is over"):
        over.apply_action(1)
    with pytest.raises(IllegalActionError, match=r"legal actions: none$"):
        over.string_to_action("1")


def test_numpy_integers_and_bools_are_recorded_as_ints() -> None:
    state = Race().new_initial_state()
    state.apply_action(np.int64(2))  # type: ignore[arg-type]
    state.apply_action(True)
    assert state.history() == [2, 1]
    assert [type(a) for a in state.history()] == [int, int]


def test_check_player() -> None:
    state = Race().new_initial_state()
    state.check_player(1)
    with pytest.raises(InvalidConfigError, match=r"^race: player must be in \[0, 1\], got 2$"):
        state.check_player(2)


def test_a_subclass_with_an_instance_dict_clones_it() -> None:
    state = DictRaceState(Race())
    state.apply_action(2)
    clone = state.clone()
    clone.apply_action(1)
    assert clone.note == "a dict attribute"
    assert (state.at, clone.at) == ([2, 0], [2, 1])
    assert (state.history(), clone.history()) == ([2], [2, 1])


def test_what_is_missing_is_named() -> None:
    class NoRules(PythonState[Race]):
        __slots__ = ()

    with pytest.raises(TypeError, match="abstract"):
        NoRules(Race())  # type: ignore[abstract]

    class NoApply(PythonState[Race]):
        __slots__ = ()

        def current_player(self) -> int:
            return 0

        def legal_actions(self) -> list[int]:
            return [1]

        def returns(self) -> list[float]:
            return [0.0, 0.0]

    with pytest.raises(TypeError, match=r"abstract method '?_apply_action"):
        NoApply(Race())  # type: ignore[abstract]
    with pytest.raises(
        TypeError, match=r"Typo.copied names attributes not in __slots__: \['pos'\]"
    ):

        class Typo(RaceState):
            __slots__ = ()
            copied = ("pos",)
