"""Self-play datasets: the positions an MCTS player met playing itself, with its search's
visit distribution and the game's outcome, for training a policy and value (AlphaZero's
targets: Silver et al. 2017, "Mastering the game of Go without human knowledge").

:func:`record_selfplay` plays ``games`` games of one player spec against itself (one
player object per seat, both from the same spec) and records every position where a
player moved; :func:`write_dataset` stores the arrays in a ``.npz`` file (written to a
temporary file in the same directory, then renamed over the target: a reader never sees
half a file) and :func:`read_dataset` reads them back. ``mctslab selfplay`` is the
command line of the three.

Schema (``P`` positions, ``A = game.info.num_actions``, ``S`` the game's observation
shape, :meth:`~mctslab.games.kernels.KernelState.observation_tensor_shape`):

================  ===========  =====  =======================================================
key               shape        dtype  meaning
================  ===========  =====  =======================================================
``observation``   ``[P, *S]``  f32    the observation tensor of the player to move
``legal_mask``    ``[P, A]``   bool   the legal moves
``visits``        ``[P, A]``   f32    the root's visit counts divided by their sum (sums to
                                      1; 0 on illegal moves): the policy target
``root_value``    ``[P]``      f32    the search's root value for the player to move, on the
                                      game's utility scale (``SearchResult.value``)
``player``        ``[P]``      int8   the player to move
``outcome``       ``[P]``      f32    that player's final return (``state.returns()``: at
                                      tic-tac-toe +1 a win, 0 a draw, -1 a loss; 0 in a game
                                      cut short by ``max_moves``)
``game``          ``[P]``      int32  the game's index, ``0 .. games - 1``
``ply``           ``[P]``      int16  the number of actions (chance's included) played before
                                      the position
================  ===========  =====  =======================================================

Rows come game by game, in the order the moves were played. The file also holds
``meta``, a 0-d string array of JSON: ``game``, ``game_version``, ``params``, ``player``
(the spec), ``seed``, ``games``, ``max_moves``, ``truncated`` (indices of the games cut
short), ``positions``, ``schema`` and ``mctslab`` (the version); :func:`read_meta` parses
it. The file is plain numpy (no pickles)::

    data = numpy.load("selfplay.npz")              # data["visits"], ...
    arrays = read_dataset("selfplay.npz")          # a dict, without "meta"
    frame = pandas.DataFrame({k: list(v) for k, v in arrays.items()})

Reproducibility: seat ``k`` of game ``i`` is seeded with a hash of ``(seed, i, k)``
(chance with ``(seed, i, "chance")``), so a game is a pure function of its index and
the same seed gives the same file, whatever the number of worker processes, as long as
the budget is counted in iterations (``simulations=``), not seconds. A spec with its
own ``seed=`` gives every seat of every game that seed (identical games, unless
``temperature`` or noise differ): leave it out.

Forced moves (one legal move) are searched too (:attr:`MCTSPlayer.search_forced_moves`),
so that every recorded position has a search result.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import multiprocessing
import os
from collections.abc import Callable, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from mctslab.core.errors import InvalidConfigError
from mctslab.core.files import atomic_file
from mctslab.core.game import CHANCE, Game, State, sample_chance_outcome
from mctslab.core.registry import available_games, make
from mctslab.core.rng import Rng
from mctslab.players.player import MCTSPlayer, check_hidden_information, make_player

__all__ = [
    "FIELDS",
    "SelfPlay",
    "check_dataset_path",
    "check_selfplay",
    "games_with_observations",
    "read_dataset",
    "read_meta",
    "record_selfplay",
    "write_dataset",
]

#: The arrays of a dataset and their dtypes (see the module docstring for shapes).
FIELDS: dict[str, npt.DTypeLike] = {
    "observation": np.float32,
    "legal_mask": np.bool_,
    "visits": np.float32,
    "root_value": np.float32,
    "player": np.int8,
    "outcome": np.float32,
    "game": np.int32,
    "ply": np.int16,
}
_META = "meta"

Arrays = dict[str, npt.NDArray[Any]]


@dataclass(frozen=True)
class SelfPlay:
    """What :func:`record_selfplay` recorded: the arrays of :data:`FIELDS` and the
    ``meta`` dictionary :func:`write_dataset` stores beside them."""

    arrays: Arrays
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class _Task:
    """One self-play game, picklable for a worker process."""

    game: str
    params: tuple[tuple[str, Any], ...]
    spec: str
    seed: int
    index: int
    max_moves: int | None


def _derive_seed(*parts: int | str) -> int:
    """A 63-bit seed from labels (BLAKE2b: the same on every run and machine; the arena's
    ``derive_seed`` does the same, and this layer may not import it)."""
    text = ":".join(str(p) for p in parts).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "little") >> 1


# Checks, before any game is played ------------------------------------------------------------


def check_dataset_path(path: str | os.PathLike[str]) -> Path:
    """The path of a dataset file: it must end in ``.npz``."""
    p = Path(path)
    if p.suffix.lower() == ".parquet":
        raise InvalidConfigError(
            f"{str(p)!r}: parquet is not supported; write a .npz file "
            "(numpy.load reads it, pandas.DataFrame({k: list(v) ...}) turns it into a frame)"
        )
    if p.suffix.lower() != ".npz":
        raise InvalidConfigError(f"{str(p)!r}: a dataset is a .npz file; name it FILE.npz")
    return p


def games_with_observations() -> list[str]:
    """The registered games (default parameters) whose states have observation tensors:
    the games self-play can record."""
    names = []
    for name in available_games():
        try:
            state = make(name).new_initial_state()
            shape_of = getattr(state, "observation_tensor_shape", None)
            if shape_of is not None and getattr(state, "observation_tensor", None) is not None:
                shape_of()
                names.append(name)
        except (ValueError, NotImplementedError):
            continue  # no tensor (a game that says so by raising)
    return names


def check_selfplay(
    game: Game, spec: str, games: int = 1, max_moves: int | None = None
) -> tuple[int, ...]:
    """Refuse up front what self-play cannot record; returns the observation shape.

    The game's states must have observation tensors; the player must be an MCTS player
    (``mcts:...``, ``puct:...``: its search result gives the visits) that may see the
    whole state (a game with hidden information is refused); ``games >= 1`` and
    ``max_moves`` ``None`` or ``>= 1``.
    """
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise InvalidConfigError(f"games must be an integer >= 1, got {games!r}")
    if max_moves is not None and (
        isinstance(max_moves, bool) or not isinstance(max_moves, int) or max_moves < 1
    ):
        raise InvalidConfigError(f"max_moves must be an integer >= 1, got {max_moves!r}")
    info = game.info
    state = game.new_initial_state()
    shape_of = getattr(state, "observation_tensor_shape", None)
    try:
        if shape_of is None or getattr(state, "observation_tensor", None) is None:
            raise InvalidConfigError("no observation_tensor()")
        shape = tuple(int(n) for n in shape_of())
    except InvalidConfigError:
        raise InvalidConfigError(
            f"{info.name} has no observation tensors, which self-play records; "
            f"use a game that has them ({', '.join(games_with_observations())})"
        ) from None
    player = make_player(spec, info, 0)
    if not isinstance(player, MCTSPlayer):
        raise InvalidConfigError(
            f"self-play records an MCTS search's visits; {spec!r} is a {player.name} player: "
            "use mcts:... or puct:..."
        )
    check_hidden_information(game, [("the player", spec)])
    return shape


# Recording ------------------------------------------------------------------------------------


def _play(task: _Task) -> tuple[Arrays, bool]:
    """Play one self-play game: its rows, and whether ``max_moves`` cut it short (a pure
    function of ``task`` when the budget is counted in iterations)."""
    game = make(task.game, **dict(task.params))
    info = game.info
    players = []
    for seat in range(info.num_players):
        player = make_player(task.spec, info, _derive_seed(task.seed, task.index, seat))
        assert isinstance(player, MCTSPlayer)  # check_selfplay refused the others
        player.search_forced_moves = True
        players.append(player)
    chance = Rng(_derive_seed(task.seed, task.index, "chance"))
    state = game.new_initial_state()
    rows: dict[str, list[Any]] = {name: [] for name in FIELDS}
    plies = moves = 0
    while not state.is_terminal() and (task.max_moves is None or moves < task.max_moves):
        p = state.current_player()
        if p == CHANCE:
            action = sample_chance_outcome(state, chance)
        else:
            _record(rows, state, p, plies)
            action = players[p].choose(state.clone())
            _record_search(rows, players[p], action, info.num_actions)
            moves += 1
        state.apply_action(action)
        for each in players:
            each.inform(action)
        plies += 1
    finished = state.is_terminal()
    returns = state.returns() if finished else [0.0] * info.num_players
    rows["outcome"] = [returns[p] for p in rows["player"]]
    rows["game"] = [task.index] * len(rows["player"])
    return _arrays(rows, game), not finished


def _record(rows: dict[str, list[Any]], state: State, p: int, plies: int) -> None:
    """The position's half of a row, read before the player moves (the search's half
    comes after it: :func:`_record_search`)."""
    observe = state.observation_tensor  # type: ignore[attr-defined]
    rows["observation"].append(np.asarray(observe(p), dtype=np.float32))
    rows["legal_mask"].append(list(state.legal_actions()))
    rows["player"].append(p)
    rows["ply"].append(plies)


def _record_search(
    rows: dict[str, list[Any]], player: MCTSPlayer, action: int, num_actions: int
) -> None:
    """The search's half of a row: root visits (normalised) and root value."""
    result = player.last_result
    visits = np.zeros(num_actions, dtype=np.float64)
    value = 0.0
    if result is not None:
        for child in result.children:
            visits[child.action] = child.visits
        value = result.value
    total = visits.sum()
    if total > 0:
        visits /= total
    else:  # no visits (a root proven before any iteration): the move played
        visits[action] = 1.0
    rows["visits"].append(visits)
    rows["root_value"].append(value)


def _arrays(rows: dict[str, list[Any]], game: Game) -> Arrays:
    info = game.info
    n = len(rows["player"])
    shape = tuple(game.new_initial_state().observation_tensor_shape())  # type: ignore[attr-defined]
    mask = np.zeros((n, info.num_actions), dtype=np.bool_)
    for i, legal in enumerate(rows["legal_mask"]):
        mask[i, legal] = True
    out: Arrays = {
        "observation": (
            np.stack(rows["observation"]) if n else np.zeros((0, *shape), dtype=np.float32)
        ),
        "legal_mask": mask,
        "visits": (
            np.stack(rows["visits"]) if n else np.zeros((0, info.num_actions), dtype=np.float32)
        ),
    }
    for name in ("root_value", "player", "outcome", "game", "ply"):
        out[name] = np.asarray(rows[name])
    return {name: out[name].astype(dtype) for name, dtype in FIELDS.items()}


def _concatenate(parts: list[Arrays]) -> Arrays:
    return {name: np.concatenate([part[name] for part in parts]) for name in FIELDS}


def record_selfplay(
    game: str,
    spec: str,
    games: int,
    *,
    params: Mapping[str, Any] | None = None,
    seed: int = 0,
    workers: int = 1,
    max_moves: int | None = None,
    on_game: Callable[[int, int], None] | None = None,
) -> SelfPlay:
    """Play ``games`` games of ``spec`` against itself and record every move's position.

    ``game`` and ``params`` name the game (:func:`mctslab.make`), ``spec`` the player of
    every seat (``mcts:...`` or ``puct:...``); ``max_moves`` caps the moves of a game
    (the outcome of a game cut short is 0). ``workers > 1`` plays games in that many
    processes; the arrays are the same for any ``workers`` (see the module docstring).
    ``on_game(done, games)`` is called as each game finishes. Raises
    :class:`InvalidConfigError` (before any game) for what cannot be recorded.
    """
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InvalidConfigError(f"workers must be an integer >= 1, got {workers!r}")
    values = dict(params or {})
    made = make(game, **values)
    check_selfplay(made, spec, games, max_moves)
    tasks = [
        _Task(game, tuple(sorted(values.items())), spec, seed, i, max_moves) for i in range(games)
    ]
    parts: dict[int, tuple[Arrays, bool]] = {}
    if workers == 1 or games == 1:
        for task in tasks:
            parts[task.index] = _play(task)
            if on_game is not None:
                on_game(len(parts), games)
    else:
        parts = _play_in_processes(tasks, workers, on_game)
    arrays = _concatenate([parts[i][0] for i in range(games)])
    truncated = [i for i in range(games) if parts[i][1]]
    meta = {
        "game": made.info.name,
        "game_version": made.info.version,
        "params": {k: _jsonable(v) for k, v in sorted(values.items())},
        "player": spec,
        "seed": seed,
        "games": games,
        "max_moves": max_moves,
        "truncated": truncated,
        "positions": int(arrays["player"].shape[0]),
        "schema": {name: np.dtype(dtype).name for name, dtype in FIELDS.items()},
        "mctslab": _version(),
    }
    return SelfPlay(arrays, meta)


def _version() -> str:
    # From the installed distribution: this layer may not import the top-level package,
    # which imports every layer.
    try:
        return importlib.metadata.version("mctslab")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - a bare source tree
        return "unknown"


def _jsonable(value: Any) -> Any:
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return repr(value)


def _play_in_processes(
    tasks: list[_Task], workers: int, on_game: Callable[[int, int], None] | None
) -> dict[int, tuple[Arrays, bool]]:
    """Play ``tasks`` in ``workers`` processes (forked where the platform can, as the
    arena does: the compiled rules are not compiled again in every worker)."""
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    parts: dict[int, tuple[Arrays, bool]] = {}
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        pending: dict[Future[tuple[Arrays, bool]], int] = {
            pool.submit(_play, t): t.index for t in tasks
        }
        try:
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    parts[pending.pop(fut)] = fut.result()
                    if on_game is not None:
                        on_game(len(parts), len(tasks))
        finally:
            for fut in pending:
                fut.cancel()
    return parts


# Files ----------------------------------------------------------------------------------------


def write_dataset(
    path: str | os.PathLike[str], arrays: Mapping[str, npt.NDArray[Any]], meta: Mapping[str, Any]
) -> Path:
    """Write ``arrays`` and ``meta`` (as JSON, the key ``"meta"``) to the ``.npz`` file
    ``path``, atomically: a temporary file in the same directory, then ``os.replace``."""
    target = check_dataset_path(path)
    if _META in arrays:
        raise InvalidConfigError(f"{_META!r} is the metadata's key, not an array's")
    payload: dict[str, Any] = {**arrays, _META: np.array(json.dumps(dict(meta)))}
    with atomic_file(target) as f:  # the umask's permissions, as any new file
        np.savez_compressed(f, **payload)
    return target


def read_dataset(path: str | os.PathLike[str]) -> Arrays:
    """The arrays of a dataset file (every key but ``"meta"``; see :func:`read_meta`)."""
    with np.load(path) as data:
        return {name: data[name] for name in data.files if name != _META}


def read_meta(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The metadata of a dataset file (the JSON :func:`record_selfplay` made)."""
    with np.load(path) as data:
        meta: dict[str, Any] = json.loads(str(data[_META])) if _META in data.files else {}
    return meta
