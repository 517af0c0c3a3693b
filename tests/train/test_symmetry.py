"""Board symmetries (:mod:`mctslab.train.symmetry`) and the replay buffer
(:mod:`mctslab.train.buffer`): a symmetry maps the observation of a position to the
observation of the transformed position, the buffer applies one symmetry to all of an
example's arrays, keeps the newest positions and round-trips through its file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from conftest import require_extra

require_extra("torch", "nn")  # mctslab.train imports the learner (PyTorch)

import mctslab  # noqa: E402
from mctslab.core.errors import InvalidConfigError  # noqa: E402
from mctslab.train.buffer import KEYS, ReplayBuffer  # noqa: E402
from mctslab.train.symmetry import Symmetry, symmetries  # noqa: E402

TTT = mctslab.make("tic_tac_toe")
C4 = mctslab.make("connect_four")


def random_moves(game: Any, rng: np.random.Generator, plies: int) -> list[int]:
    """Up to ``plies`` random legal moves from the start, stopping before the game ends."""
    state = game.new_initial_state()
    moves: list[int] = []
    for _ in range(plies):
        legal = state.legal_actions()
        action = int(rng.choice(legal))
        after = state.clone()
        after.apply_action(action)
        if after.is_terminal():
            break
        state = after
        moves.append(action)
    return moves


def position(game: Any, moves: list[int]) -> Any:
    state = game.new_initial_state()
    for m in moves:
        assert m in state.legal_actions()
        state.apply_action(m)
    return state


def map_move(sym: Symmetry, move: int, num_actions: int) -> int:
    """The image of ``move`` under ``sym``: its policy map applied to a one-hot vector."""
    onehot = np.zeros((1, num_actions), dtype=np.float32)
    onehot[0, move] = 1.0
    image = sym[1](onehot)
    assert image.shape == onehot.shape
    assert sorted(image.ravel().tolist()) == sorted(onehot.ravel().tolist())  # a permutation
    return int(np.argmax(image[0]))


def obs(state: Any) -> np.ndarray[Any, Any]:
    return np.asarray(state.observation_tensor(), dtype=np.float32)


# Symmetries ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("game", "count"), [(TTT, 8), (C4, 2)], ids=["tic_tac_toe", "c4"])
def test_the_identity_comes_first_and_the_symmetries_differ(game: Any, count: int) -> None:
    """Tic-tac-toe has 8 symmetries, Connect Four 2; the first leaves observations and
    policies as they are; no two act alike on a random observation."""
    syms = symmetries(game)
    assert len(syms) == count
    rng = np.random.default_rng(0)
    x = rng.random((2, *game.observation_shape())).astype(np.float32)
    p = rng.random((2, game.info.num_actions)).astype(np.float32)
    on_obs, on_policy = syms[0]
    np.testing.assert_array_equal(on_obs(x.copy()), x)
    np.testing.assert_array_equal(on_policy(p.copy()), p)
    images = {on_obs(x).tobytes() for on_obs, _ in syms}
    assert len(images) == count
    policies = {on_policy(p).tobytes() for _, on_policy in syms}
    assert len(policies) == count


def test_a_game_without_symmetries_gets_the_identity_alone() -> None:
    """Nim: one symmetry, the identity."""
    syms = symmetries(mctslab.make("nim"))
    assert len(syms) == 1
    x = np.arange(6.0)
    np.testing.assert_array_equal(syms[0][0](x), x)
    np.testing.assert_array_equal(syms[0][1](x), x)


@pytest.mark.parametrize(("game", "plies"), [(TTT, 7), (C4, 14)], ids=["tic_tac_toe", "c4"])
def test_a_symmetry_maps_a_positions_observation_to_the_transformed_positions(
    game: Any, plies: int
) -> None:
    """For random positions reached by m1..mk, each symmetry's observation map gives the
    observation of the position reached by the transformed moves (each move mapped by the
    policy map), and the legal moves map to the legal moves."""
    rng = np.random.default_rng(42)
    syms = symmetries(game)
    n = game.info.num_actions
    checked = 0
    for _ in range(12):
        moves = random_moves(game, rng, int(rng.integers(0, plies + 1)))
        state = position(game, moves)
        for sym in syms:
            image = position(game, [map_move(sym, m, n) for m in moves])
            np.testing.assert_array_equal(sym[0](obs(state)[None])[0], obs(image))
            mask = np.zeros((1, n), dtype=np.bool_)
            mask[0, state.legal_actions()] = True
            assert np.nonzero(sym[1](mask)[0])[0].tolist() == sorted(image.legal_actions())
            checked += 1
    assert checked == 12 * len(syms)


def test_the_tic_tac_toe_moves_map_as_the_square_does() -> None:
    """The policy maps permute the cells as the eight symmetries of the square: the centre
    stays, corners go to corners, edges to edges, and all 8 images of a corner-edge pair
    differ."""
    syms = symmetries(TTT)
    corners, edges = {0, 2, 6, 8}, {1, 3, 5, 7}
    pairs = set()
    for sym in syms:
        assert map_move(sym, 4, 9) == 4
        assert {map_move(sym, c, 9) for c in corners} == corners
        assert {map_move(sym, e, 9) for e in edges} == edges
        pairs.add((map_move(sym, 0, 9), map_move(sym, 1, 9)))
    assert len(pairs) == 8


def test_connect_fours_mirror_reverses_the_columns() -> None:
    """Connect Four's second symmetry maps column c to 6 - c."""
    mirror = symmetries(C4)[1]
    assert [map_move(mirror, c, 7) for c in range(7)] == [6, 5, 4, 3, 2, 1, 0]


# The replay buffer -----------------------------------------------------------------------------


def examples(game: Any, count: int, seed: int, plies: int) -> dict[str, np.ndarray[Any, Any]]:
    """``count`` examples of random positions: policies drawn on the legal moves, the value
    the example's index (to find it again)."""
    rng = np.random.default_rng(seed)
    n = game.info.num_actions
    rows: dict[str, list[Any]] = {k: [] for k in KEYS}
    for i in range(count):
        state = position(game, random_moves(game, rng, int(rng.integers(1, plies + 1))))
        mask = np.zeros(n, dtype=np.bool_)
        mask[state.legal_actions()] = True
        policy = np.zeros(n, dtype=np.float32)
        policy[mask] = rng.dirichlet(np.ones(mask.sum()))
        rows["observation"].append(obs(state))
        rows["legal_mask"].append(mask)
        rows["policy"].append(policy)
        rows["value"].append(float(i))
    return {
        "observation": np.stack(rows["observation"]),
        "legal_mask": np.stack(rows["legal_mask"]),
        "policy": np.stack(rows["policy"]),
        "value": np.asarray(rows["value"], dtype=np.float32),
    }


@pytest.mark.parametrize(("game", "plies"), [(TTT, 5), (C4, 10)], ids=["tic_tac_toe", "c4"])
def test_sample_applies_one_symmetry_to_observation_mask_and_policy(game: Any, plies: int) -> None:
    """Each sampled example is its original under one symmetry, the same for the
    observation, the legal mask and the policy; the policy's mass stays on the legal
    moves; the value is unchanged; every symmetry is drawn."""
    data = examples(game, 20, seed=1, plies=plies)
    buf = ReplayBuffer(100)
    buf.add(data)
    syms = symmetries(game)
    batch = buf.sample(np.random.default_rng(3), 300, syms)
    assert batch["observation"].shape == (300, *game.observation_shape())
    used = set()
    for j in range(300):
        i = int(batch["value"][j])
        o, m, p = batch["observation"][j], batch["legal_mask"][j], batch["policy"][j]
        assert np.all(p[~m] == 0)
        assert p.sum() == pytest.approx(1.0, abs=1e-5)
        fits = [
            s
            for s, (on_obs, on_policy) in enumerate(syms)
            if np.array_equal(on_obs(data["observation"][i][None])[0], o)
            and np.array_equal(on_policy(data["legal_mask"][i][None])[0], m)
            and np.array_equal(on_policy(data["policy"][i][None])[0], p)
        ]
        assert fits, f"sample {j} (example {i}) is no symmetry of its example"
        if len(fits) == 1:
            used.add(fits[0])
    assert used == set(range(len(syms)))
    # The buffer's own arrays are not transformed in place.
    for k in KEYS:
        np.testing.assert_array_equal(buf.arrays[k], data[k])


def test_sample_is_reproducible_by_the_generator() -> None:
    """The same generator seed draws the same batch."""
    buf = ReplayBuffer(50)
    buf.add(examples(TTT, 10, seed=2, plies=5))
    syms = symmetries(TTT)
    a = buf.sample(np.random.default_rng(9), 32, syms)
    b = buf.sample(np.random.default_rng(9), 32, syms)
    for k in KEYS:
        np.testing.assert_array_equal(a[k], b[k])


def test_capacity_keeps_the_newest_positions() -> None:
    """Over capacity, the oldest examples are dropped first, across several adds."""
    data = examples(TTT, 12, seed=4, plies=5)
    buf = ReplayBuffer(5)
    assert len(buf) == 0
    buf.add({k: v[:3] for k, v in data.items()})
    assert len(buf) == 3
    buf.add({k: v[3:7] for k, v in data.items()})
    assert len(buf) == 5
    assert buf.arrays["value"].tolist() == [2.0, 3.0, 4.0, 5.0, 6.0]
    buf.add({k: v[7:] for k, v in data.items()})
    assert buf.arrays["value"].tolist() == [7.0, 8.0, 9.0, 10.0, 11.0]
    for k in KEYS:
        np.testing.assert_array_equal(buf.arrays[k], data[k][7:])
    batch = buf.sample(np.random.default_rng(0), 200, symmetries(TTT))
    assert set(batch["value"].tolist()) <= {7.0, 8.0, 9.0, 10.0, 11.0}


def test_bad_capacity_and_an_empty_buffer_are_errors() -> None:
    """Capacity 0: InvalidConfigError; sampling an empty buffer: InvalidConfigError."""
    with pytest.raises(InvalidConfigError):
        ReplayBuffer(0)
    with pytest.raises(InvalidConfigError, match="empty"):
        ReplayBuffer(3).sample(np.random.default_rng(0), 4, symmetries(TTT))


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    """save then load gives the same arrays (dtypes included); a smaller capacity on load
    keeps the newest; no temporary file is left; an empty buffer round-trips empty."""
    data = examples(C4, 9, seed=5, plies=10)
    buf = ReplayBuffer(20)
    buf.add(data)
    path = tmp_path / "buffer.npz"
    buf.save(path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["buffer.npz"]
    back = ReplayBuffer.load(path, 20)
    assert len(back) == 9
    for k in KEYS:
        np.testing.assert_array_equal(back.arrays[k], buf.arrays[k])
        assert back.arrays[k].dtype == buf.arrays[k].dtype
    small = ReplayBuffer.load(path, 4)
    assert small.capacity == 4
    assert small.arrays["value"].tolist() == [5.0, 6.0, 7.0, 8.0]
    empty = tmp_path / "empty.npz"
    ReplayBuffer(3).save(empty)
    assert len(ReplayBuffer.load(empty, 3)) == 0
