"""Observation tensors of the kernel games: OpenSpiel's where OpenSpiel has the game.

Each OpenSpiel case plays seeded uniformly random games in mctslab and in OpenSpiel
side by side (game ``i`` uses ``Rng(i)``) and compares ``observation_tensor(player)``
for both players at every position, the terminal one included. Bachet's game and
Nim with a take limit are OpenSpiel ``nim`` games with fewer moves allowed: their
positions are ``nim`` positions, with the same observations. Bohnenspiel has no
twin: its layout is checked by hand and by the symmetry of its two players' views.
The kernels are also called from numba code, as a compiled engine would call them.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from numba import njit

import mctslab
from conftest import require_extra
from mctslab.core.errors import InvalidConfigError
from mctslab.core.rng import Rng
from mctslab.games.bohnenspiel import Bohnenspiel
from mctslab.games.kernels import KernelGame, KernelState
from mctslab.games.tic_tac_toe import TicTacToe


@pytest.fixture(scope="module")
def pyspiel() -> ModuleType:
    return require_extra("pyspiel", "openspiel")


@dataclass(frozen=True)
class Case:
    """mctslab's game and parameters, and OpenSpiel's twin with its parameters."""

    name: str
    params: dict[str, Any] = field(default_factory=dict)
    spiel_name: str = ""
    spiel_params: dict[str, Any] = field(default_factory=dict)
    n_games: int = 200

    @property
    def id(self) -> str:
        shown = ",".join(f"{k}={v}" for k, v in self.params.items())
        return f"{self.name}({shown})"


def _connect_four(rows: int, columns: int, x_in_row: int, n_games: int = 200) -> Case:
    params = {"rows": rows, "columns": columns, "x_in_row": x_in_row}
    return Case("connect_four", params, "connect_four", params, n_games)


def _nim(piles: str, misere: bool, max_take: int | None = None) -> Case:
    # OpenSpiel's nim defaults to misère: always pass is_misere (as the differential tests).
    params: dict[str, Any] = {"piles": piles, "misere": misere}
    if max_take is not None:
        params["max_take"] = max_take
    return Case("nim", params, "nim", {"pile_sizes": piles, "is_misere": misere})


SPIEL_CASES = [
    Case("tic_tac_toe", spiel_name="tic_tac_toe", n_games=500),
    _connect_four(6, 7, 4),
    _connect_four(5, 6, 3),
    _connect_four(3, 8, 4),
    _connect_four(8, 9, 4, n_games=50),  # too big for bitboards
    _nim("1;3;5;7", misere=False),
    _nim("1;3;5;7", misere=True),
    _nim("5", misere=False),
    _nim("3;0;2", misere=True),  # an empty pile from the start
    _nim("2;6;3", misere=False, max_take=2),  # a take limit: OpenSpiel's positions still
    Case("bachet", {}, "nim", {"pile_sizes": "4", "is_misere": False}),
    Case("bachet", {"stones": 7, "misere": True}, "nim", {"pile_sizes": "7", "is_misere": True}),
]

GAMES = [
    ("tic_tac_toe", {}),
    ("connect_four", {}),
    ("connect_four", {"rows": 4, "columns": 9, "x_in_row": 3}),
    ("nim", {}),
    ("nim", {"piles": "2;4", "max_take": 3}),
    ("bachet", {}),
    ("bohnenspiel", {}),
]
GAME_IDS = [f"{name}{params or ''}" for name, params in GAMES]


def _positions(game: Any, n_games: int) -> list[KernelState]:
    """Every position of ``n_games`` seeded random games, terminal ones included."""
    out = []
    for seed in range(n_games):
        rng = Rng(seed)
        state = game.new_initial_state()
        out.append(state.clone())
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            out.append(state.clone())
    return out


@pytest.mark.parametrize("case", SPIEL_CASES, ids=lambda c: c.id)
def test_observation_equals_openspiel(pyspiel: ModuleType, case: Case) -> None:
    game = mctslab.make(case.name, **case.params)
    spiel = pyspiel.load_game(case.spiel_name, case.spiel_params)
    shape = tuple(spiel.observation_tensor_shape())
    assert game.observation_shape() == shape
    terminals = 0
    for seed in range(case.n_games):
        rng = Rng(seed)
        state = game.new_initial_state()
        other = spiel.new_initial_state()
        while True:
            for player in (0, 1):
                got = state.observation_tensor(player)
                want = np.asarray(other.observation_tensor(player), dtype=np.float32)
                if got.shape != shape or not np.array_equal(got, want.reshape(shape)):
                    pytest.fail(
                        f"{case.id} seed {seed} player {player}: after history {state.history()}\n"
                        f"  mctslab:   {got.ravel().tolist()}\n"
                        f"  OpenSpiel: {want.tolist()}"
                    )
            if state.is_terminal():
                terminals += 1
                break
            action = rng.choice(state.legal_actions())
            state.apply_action(action)
            other.apply_action(action)
    assert terminals == case.n_games


@pytest.mark.parametrize(("name", "params"), GAMES, ids=GAME_IDS)
def test_shape_dtype_and_default_player(name: str, params: dict[str, Any]) -> None:
    game = mctslab.make(name, **params)
    for state in _positions(game, 20):
        shape = state.observation_tensor_shape()
        assert shape == game.observation_shape()
        for player in (0, 1):
            obs = state.observation_tensor(player)
            assert obs.dtype == np.float32
            assert obs.shape == shape
            assert np.all(np.isfinite(obs))
        if state.is_terminal():
            with pytest.raises(InvalidConfigError, match="game is over"):
                state.observation_tensor()
        else:
            mover = state.current_player()
            assert np.array_equal(state.observation_tensor(), state.observation_tensor(mover))


@njit
def _observe_batch(observation, states, params, players, out):  # type: ignore[no-untyped-def]
    """Observe a batch of leaves inside numba, as a compiled engine would: one row each."""
    for i in range(states.shape[0]):
        observation(states[i], params, players[i], out[i])


@pytest.mark.parametrize(("name", "params"), GAMES, ids=GAME_IDS)
def test_kernel_called_from_numba_matches_the_state(name: str, params: dict[str, Any]) -> None:
    game = mctslab.make(name, **params)
    positions = _positions(game, 10)
    states = np.stack([s.array for s in positions])
    players = np.array([i % 2 for i in range(len(positions))], dtype=np.int64)
    size = int(np.prod(game.observation_shape()))
    out = np.full((len(positions), size), np.nan, dtype=np.float32)  # every entry written
    _observe_batch(game.kernels.observation, states, game.params, players, out)
    for i, state in enumerate(positions):
        want = state.observation_tensor(int(players[i])).ravel()
        assert np.array_equal(out[i], want), (name, state.history(), int(players[i]))


def test_tic_tac_toe_known_position() -> None:
    # x (player 0) in the centre, o (player 1) in the top left corner.
    state = mctslab.make("tic_tac_toe").state_from_actions([4, 0])
    want = np.array(
        [
            [[0, 1, 1], [1, 0, 1], [1, 1, 1]],  # empty
            [[1, 0, 0], [0, 0, 0], [0, 0, 0]],  # o
            [[0, 0, 0], [0, 1, 0], [0, 0, 0]],  # x
        ],
        dtype=np.float32,
    )
    assert np.array_equal(state.observation_tensor(0), want)
    assert np.array_equal(state.observation_tensor(1), want)
    assert np.array_equal(state.observation_tensor(), want)


def test_connect_four_known_position() -> None:
    # Columns 4, 4, 1 (ids 3, 3, 0) on a 4 x 5 board: x at the bottom of columns 4 and 1,
    # o on top of the x in column 4. Row 0 is the bottom row.
    state = mctslab.make("connect_four", rows=4, columns=5).state_from_actions([3, 3, 0])
    x = np.zeros((4, 5), dtype=np.float32)
    o = np.zeros((4, 5), dtype=np.float32)
    x[0, 3] = x[0, 0] = 1
    o[1, 3] = 1
    want = np.stack([x, o, 1 - x - o])
    assert state.observation_tensor_shape() == (3, 4, 5)
    assert np.array_equal(state.observation_tensor(0), want)
    assert np.array_equal(state.observation_tensor(1), want)


def test_nim_known_position() -> None:
    # Piles 1, 3, 5, 7; player 0 takes 1 from the last pile (action 3): piles 1, 3, 5, 6.
    state = mctslab.make("nim", piles="1;3;5;7").state_from_actions([3])
    want = np.zeros(39, dtype=np.float32)
    want[1] = 1  # player 1 to move
    want[2] = 0  # not over
    want[3 + 3] = 1  # 4 piles, one-hot over 4 entries
    for i, pile in enumerate((1, 3, 5, 6)):
        want[7 + 8 * i + pile] = 1  # each pile one-hot over 0 .. 7
    assert np.array_equal(state.observation_tensor(0), want)
    assert np.array_equal(state.observation_tensor(1), want)


def test_bachet_known_positions() -> None:
    game = mctslab.make("bachet")  # one pile of 4, take 1 or 2
    start = game.new_initial_state()
    assert np.array_equal(start.observation_tensor(), [1, 0, 0, 1, 0, 0, 0, 0, 1])
    # Take 2 (action 1), then 2: the pile is empty and player 1 took the last stone;
    # player 0 would be next, as OpenSpiel keeps it.
    end = game.state_from_actions([1, 1])
    assert end.is_terminal()
    assert np.array_equal(end.observation_tensor(1), [1, 0, 1, 1, 1, 0, 0, 0, 0])


def test_bohnenspiel_known_position() -> None:
    game = mctslab.make("bohnenspiel")
    start = game.new_initial_state()
    want0 = np.array([6 / 72] * 12 + [0, 0, 1], dtype=np.float32)
    assert np.array_equal(start.observation_tensor(0), want0)
    assert np.array_equal(start.observation_tensor(1), np.append(want0[:14], 0))
    pits = [1, 0, 3, 0, 0, 2, 5, 0, 0, 4, 0, 7]
    state = game.state_from_pits(pits, stores=(20, 30), player=1)
    mine = pits[6:] + pits[:6]  # player 1's own pits first, in sowing order
    want1 = np.array([*(v / 72 for v in mine), 30 / 72, 20 / 72, 1], dtype=np.float32)
    want0 = np.array([*(v / 72 for v in pits), 20 / 72, 30 / 72, 0], dtype=np.float32)
    assert np.array_equal(state.observation_tensor(), want1)
    assert np.array_equal(state.observation_tensor(0), want0)


def test_bohnenspiel_views_are_symmetric() -> None:
    """Player 1's view of a position is player 0's view of the mirrored position."""
    game: Bohnenspiel = mctslab.make("bohnenspiel")  # type: ignore[assignment]
    checked = 0
    for state in _positions(game, 30):
        if state.is_terminal():
            continue
        pits, stores, mover = game.pits(state), game.stores(state), state.current_player()
        mirror = game.state_from_pits(pits[6:] + pits[:6], stores[::-1], 1 - mover)
        for player in (0, 1):
            assert np.array_equal(
                state.observation_tensor(player), mirror.observation_tensor(1 - player)
            )
        checked += 1
    assert checked > 100


@pytest.mark.parametrize(("name", "params"), GAMES, ids=GAME_IDS)
@pytest.mark.parametrize("player", [-1, 2, True, 0.0, "0"])
def test_bad_player_raises(name: str, params: dict[str, Any], player: Any) -> None:
    state = mctslab.make(name, **params).new_initial_state()
    with pytest.raises(InvalidConfigError, match="player must be") as err:
        state.observation_tensor(player)
    assert isinstance(err.value, ValueError)
    assert "\n" not in str(err.value)


def test_numpy_integer_player_is_accepted() -> None:
    state = mctslab.make("tic_tac_toe").state_from_actions([4])
    assert np.array_equal(state.observation_tensor(np.int64(1)), state.observation_tensor(1))


def test_game_without_observation_kernel_raises() -> None:
    class Plain(TicTacToe):
        observation_shape = KernelGame.observation_shape  # the default: no observation

    state = Plain().new_initial_state()
    with pytest.raises(InvalidConfigError, match="no observation tensor"):
        state.observation_tensor(0)
    with pytest.raises(InvalidConfigError, match="no observation tensor"):
        state.observation_tensor_shape()


def test_game_without_observation_kernel_raises_even_with_a_shape() -> None:
    class NoKernel(TicTacToe):
        kernels = dataclasses.replace(TicTacToe.kernels, observation=None, search_chunk=None)

    with pytest.raises(InvalidConfigError, match="no observation kernel"):
        NoKernel().new_initial_state().observation_tensor(0)
