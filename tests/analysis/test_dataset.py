"""Self-play datasets (:mod:`mctslab.analysis.dataset`): the schema, the numbers, the file
round trip and its reproducibility."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import mctslab
from mctslab.analysis.dataset import (
    FIELDS,
    SelfPlay,
    check_dataset_path,
    read_dataset,
    read_meta,
    record_selfplay,
    write_dataset,
)
from mctslab.core.errors import InvalidConfigError

SPEC = "mcts:iterations=20"


@pytest.fixture(scope="module")
def data() -> SelfPlay:
    return record_selfplay("tic_tac_toe", SPEC, 3, seed=1)


def test_schema_shapes_and_dtypes(data: SelfPlay) -> None:
    arrays = data.arrays
    assert set(arrays) == set(FIELDS)
    n = arrays["player"].shape[0]
    assert n >= 3 * 5  # a tic-tac-toe game has at least five moves
    expected = {
        "observation": (n, 3, 3, 3),
        "legal_mask": (n, 9),
        "visits": (n, 9),
        "root_value": (n,),
        "player": (n,),
        "outcome": (n,),
        "game": (n,),
        "ply": (n,),
    }
    for name, shape in expected.items():
        assert arrays[name].shape == shape, name
        assert arrays[name].dtype == np.dtype(FIELDS[name]), name
    assert data.meta["positions"] == n
    assert data.meta["game"] == "tic_tac_toe" and data.meta["player"] == SPEC
    assert data.meta["mctslab"] == mctslab.__version__


def test_rows_follow_the_games(data: SelfPlay) -> None:
    a = data.arrays
    assert a["game"].tolist() == sorted(a["game"].tolist())
    assert set(a["game"].tolist()) == {0, 1, 2}
    for g in range(3):
        rows = a["game"] == g
        plies = a["ply"][rows]
        assert plies.tolist() == list(range(len(plies)))
        assert a["player"][rows].tolist() == [p % 2 for p in plies.tolist()]
        # the observation is the position: its empty plane is the legal moves
        empty = a["observation"][rows][:, 0].reshape(-1, 9).astype(bool)
        assert (empty == a["legal_mask"][rows]).all()


def test_visits_are_a_distribution_over_the_legal_moves(data: SelfPlay) -> None:
    visits, legal = data.arrays["visits"], data.arrays["legal_mask"]
    assert np.allclose(visits.sum(axis=1), 1.0, atol=1e-5)
    assert (visits[~legal] == 0).all()
    assert (visits >= 0).all()
    assert legal.sum(axis=1).tolist() == [9 - p for p in data.arrays["ply"].tolist()]
    assert (np.abs(data.arrays["root_value"]) <= 1.0).all()


def test_outcomes_are_the_returns_of_the_player_to_move(data: SelfPlay) -> None:
    a = data.arrays
    assert set(a["outcome"].tolist()) <= {-1.0, 0.0, 1.0}
    for g in range(3):
        rows = a["game"] == g
        outcome, player = a["outcome"][rows], a["player"][rows]
        for p in (0, 1):  # one outcome a player, the two summing to zero
            assert len(set(outcome[player == p].tolist())) == 1
        assert outcome[player == 0][0] == -outcome[player == 1][0]
        # At tic-tac-toe the last mover won or drew, and won if the board is not full.
        last = outcome[-1]
        assert last == (1.0 if rows.sum() < 9 else last) and last >= 0


def test_write_and_read_back_the_same_numbers(data: SelfPlay, tmp_path: Path) -> None:
    path = write_dataset(tmp_path / "sp.npz", data.arrays, data.meta)
    back = read_dataset(path)
    assert set(back) == set(FIELDS)
    for name in FIELDS:
        assert back[name].dtype == data.arrays[name].dtype
        np.testing.assert_array_equal(back[name], data.arrays[name])
    assert read_meta(path) == data.meta
    with np.load(path) as raw:  # plain numpy, no pickles
        assert set(raw.files) == {*FIELDS, "meta"}
    assert [p.name for p in tmp_path.iterdir()] == ["sp.npz"]  # no temporary file left


def test_the_same_seed_gives_the_same_arrays(data: SelfPlay) -> None:
    again = record_selfplay("tic_tac_toe", SPEC, 3, seed=1)
    for name in FIELDS:
        np.testing.assert_array_equal(again.arrays[name], data.arrays[name])
    other = record_selfplay("tic_tac_toe", SPEC, 3, seed=2)
    assert not all(
        other.arrays[n].shape == data.arrays[n].shape
        and np.array_equal(other.arrays[n], data.arrays[n])
        for n in FIELDS
    )


def test_two_workers_give_the_same_arrays_as_one(data: SelfPlay) -> None:
    seen: list[tuple[int, int]] = []
    two = record_selfplay(
        "tic_tac_toe", SPEC, 3, seed=1, workers=2, on_game=lambda d, t: seen.append((d, t))
    )
    for name in FIELDS:
        np.testing.assert_array_equal(two.arrays[name], data.arrays[name])
    assert seen == [(1, 3), (2, 3), (3, 3)]


def test_puct_with_temperature_and_a_move_cap() -> None:
    sp = record_selfplay(
        "connect_four", "puct:simulations=16,temperature=1", 2, seed=0, max_moves=4
    )
    assert sp.arrays["observation"].shape == (8, 3, 6, 7)
    assert sp.meta["truncated"] == [0, 1]
    assert (sp.arrays["outcome"] == 0).all()  # games cut short have no outcome
    assert np.allclose(sp.arrays["visits"].sum(axis=1), 1.0, atol=1e-5)


@pytest.mark.parametrize(
    ("game", "spec", "games", "fragment"),
    [
        ("no_such_game", SPEC, 1, "unknown game 'no_such_game'"),
        ("tic_tac_toe", "random", 1, "'random' is a random player: use mcts:... or puct:..."),
        ("tic_tac_toe", "minimax", 1, "use mcts:... or puct:..."),
        ("tic_tac_toe", SPEC, 0, "games must be an integer >= 1"),
        ("pig", SPEC, 1, "pig has no observation tensors"),
    ],
)
def test_what_cannot_be_recorded_is_refused(
    game: str, spec: str, games: int, fragment: str
) -> None:
    with pytest.raises(ValueError, match=None) as err:
        record_selfplay(game, spec, games)
    assert fragment in str(err.value)


@pytest.mark.parametrize("name", ["x.parquet", "x.csv", "x"])
def test_only_npz_files(tmp_path: Path, name: str) -> None:
    with pytest.raises(InvalidConfigError, match="npz"):
        check_dataset_path(tmp_path / name)
    with pytest.raises(InvalidConfigError):
        write_dataset(tmp_path / name, {"a": np.zeros(2)}, {})
    assert list(tmp_path.iterdir()) == []
