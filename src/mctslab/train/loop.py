"""The AlphaZero loop (Silver et al. 2018), one generation at a time, crash-safe.

A generation ``g``:

1. **self-play**: ``games_per_generation`` games of the network of generation ``g - 1``
   against itself (:func:`mctslab.train.selfplay.play_games`: batched compiled PUCT,
   Dirichlet noise, temperature, optional resignation), in ``workers`` processes;
2. **learn**: the new positions join the replay buffer (:class:`~mctslab.train.buffer.ReplayBuffer`);
   ``replay_ratio * new positions / batch_size`` optimizer steps on minibatches drawn
   from it under random symmetries (:mod:`mctslab.train.learner`) make generation ``g``;
3. **checkpoint**: ``checkpoints/gen-g.pt`` (:func:`mctslab.nn.checkpoint.save_checkpoint`);
4. **evaluate** (every ``eval_every`` generations): ``eval_games`` games through the
   arena (:func:`mctslab.arena.tournament.run_arena`, colours alternated) against the
   previous evaluated generation and each fixed baseline, into the run's SQLite store
   (``results.sqlite``); Elo of every generation from all of them
   (:func:`mctslab.arena.ratings.compute_ratings`, the first baseline at 0). The
   network's player is deterministic (no noise, the most visited move), so a game is
   decided by its opening and colours: each game gets its own ``eval_openings`` random
   plies, chosen to differ from the other games' (:func:`opening_seeds`; the arena's
   own pairs share an opening, which here would replay one game with the colours
   swapped). Where the game has fewer openings than games (or ``eval_openings`` is 0),
   a game can repeat an earlier one; the scores, their 95% Wilson intervals and the
   Elo ratings count each distinct game once (:func:`distinct_games`; a score's
   ``games`` is that number, ``played`` all games);
5. **commit**: the buffer (``buffer-g.npz``) and optimizer (``optimizer-g.pt``) files,
   then ``state.json`` naming them, each written to a temporary file and renamed; then
   ``metrics.csv`` and ``training.png`` are rewritten from ``state.json``.

``state.json`` is the commit point: a run killed at any moment (``kill -9``) resumes
(``resume=True``, ``mctslab train ... --resume``) from the last generation it names,
with the files it names, and plays the lost generation again; files of an uncommitted
generation are overwritten or ignored. A failed write (a full disk) stops the run with
a :class:`TrainError` at its last committed generation. ``run.json`` holds the game and
the options, written once; a resumed run keeps its options, and those of
:data:`~mctslab.train.config.RESUMABLE` as it last ran them (``state.json``'s
``options``) unless the command line gives them again.

A run directory is data, which anyone who can write in it may have edited: every file
it names is confined to it (:func:`run_file`: relative, no ``..``, no symlink leading
out), and a baseline that starts a program (``gtp:``) or loads a network file
(``model=PATH``: any but a shipped network) is used on ``--resume`` only when the command
line names it again.

Reproducible: every random choice is drawn from a seed derived from ``seed`` and the
generation (network initialisation, self-play games, minibatches, evaluation games),
so with one worker the same seed gives the same networks. With more workers each
worker plays a share of the games (game ``i`` goes to worker ``i mod workers``), and the
network sees other batches of positions, whose floating-point sums can differ in the
last bits: the games may then differ from one worker's.
"""

from __future__ import annotations

import csv
import io
import json
import math
import multiprocessing
import os
import platform
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch

from mctslab.arena.game_task import Entrant, derive_seed, play_opening
from mctslab.arena.ratings import GameOutcome, compute_ratings, wilson_interval
from mctslab.arena.store import GameRecord, ResultStore
from mctslab.arena.tournament import ArenaConfig, run_arena, schedule
from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import Game, rules_fingerprint
from mctslab.core.registry import make
from mctslab.nn.checkpoint import load_checkpoint, save_checkpoint
from mctslab.nn.networks import make_network, parameter_count
from mctslab.players.network import shipped_models
from mctslab.players.player import parse_spec, quote_spec_value
from mctslab.train.buffer import KEYS, ReplayBuffer
from mctslab.train.config import RESUMABLE, TrainConfig
from mctslab.train.learner import Losses, make_optimizer, train_steps
from mctslab.train.selfplay import Examples, SelfPlayOptions, SelfPlayStats, play_games
from mctslab.train.symmetry import symmetries

__all__ = [
    "RUN_FORMAT",
    "TrainError",
    "TrainResult",
    "arena_opening",
    "distinct_games",
    "load_run",
    "opening_seeds",
    "run_file",
    "train",
]

#: The run directory's format (``run.json``'s first key).
RUN_FORMAT = ("mctslab-train", 1)

Event = Callable[[str, dict[str, Any]], None]


class TrainError(InvalidConfigError):
    """A run directory that cannot be used as asked (the message says why)."""


@dataclass(frozen=True)
class TrainResult:
    """A finished (or paused) run: its directory, last generation, total wall time in
    seconds, why it stopped (``"generations"`` or ``"minutes"``), and the history of
    generation records (``state.json``'s)."""

    out: Path
    generation: int
    wall_seconds: float
    stopped_by: str
    history: tuple[dict[str, Any], ...]

    def checkpoint(self) -> Path:
        return self.out / "checkpoints" / f"gen-{self.generation:04d}.pt"


# Files, written atomically ----------------------------------------------------------------


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)  # mkstemp makes it private
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _write_json(path: Path, obj: Any) -> None:
    _atomic_write(path, (json.dumps(obj, indent=1, sort_keys=True) + "\n").encode())


def _game_identity(game: Any) -> dict[str, Any]:
    return {
        "name": game.info.name,
        "version": game.info.version,
        "rules": repr(rules_fingerprint(game)),
    }


# A run directory is data: whoever can write in it must not be able to make mctslab read,
# write or delete a file elsewhere, or start a program. Every path it names is confined
# to it (relative, no '..', no symlink leading out), and a program is started only when
# this command line names it.


def run_file(out: Path, name: object, what: str) -> Path:
    """``out / name`` for a file that a run directory names (``state.json``'s files) or
    holds; :class:`TrainError` unless it stays inside ``out``: a relative path without
    ``..`` whose real path (symlinks followed) is inside ``out``'s."""
    if not isinstance(name, str) or not name:
        raise TrainError(f"{out}: state.json names no {what} file; nothing was changed")
    rel = Path(name)
    if rel.is_absolute() or ".." in rel.parts:
        raise TrainError(
            f"{out}: the {what} file {name!r} is outside the run directory (an absolute path "
            "or '..'); nothing was read or changed"
        )
    path = out / rel
    if not path.resolve().is_relative_to(out.resolve()):
        raise TrainError(
            f"{out}: the {what} file {name!r} leads outside the run directory (a symlink); "
            "nothing was read or changed"
        )
    return path


def load_run(out: str | Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """``run.json`` and ``state.json`` of a run directory; :class:`TrainError` if it is
    not one, or if they are malformed (files named outside the directory included)."""
    out = Path(out)
    try:
        run = json.loads(run_file(out, "run.json", "run.json").read_text())
        state = json.loads(run_file(out, "state.json", "state.json").read_text())
    except FileNotFoundError:
        raise TrainError(f"{out} is not a training run (no run.json and state.json)") from None
    except (OSError, ValueError) as err:
        if isinstance(err, TrainError):
            raise
        raise TrainError(f"{out}: unreadable run files ({err})") from None
    if not isinstance(run, dict) or run.get("format") != list(RUN_FORMAT):
        raise TrainError(f"{out} is not a mctslab training run")
    if not (
        isinstance(run.get("config"), dict)
        and isinstance(run.get("game"), dict)
        and isinstance(state, dict)
        and type(state.get("generation")) is int
        and state["generation"] >= 0
        and isinstance(state.get("files"), dict)
        and isinstance(state.get("history"), list)
        and all(isinstance(h, dict) for h in state["history"])
    ):
        raise TrainError(f"{out}: malformed run.json or state.json; nothing was changed")
    for what in ("network", "buffer", "optimizer"):
        run_file(out, state["files"].get(what), what)
    for fixed in ("checkpoints", "results.sqlite"):
        run_file(out, fixed, fixed)
    return run, state


def _resumed_config(
    out: Path, run: dict[str, Any], state: dict[str, Any], asked: TrainConfig, given: set[str]
) -> TrainConfig:
    """The options of a resumed run: ``run.json``'s, with the :data:`RESUMABLE` ones its
    last invocation ran with (``state.json``'s ``options``), overridden by those in
    ``given`` (the command line's); any other option given must equal the stored one."""
    latest = state.get("options")
    try:
        stored = TrainConfig.from_dict(run["config"])
        if isinstance(latest, dict):
            stored = replace(stored, **{k: v for k, v in latest.items() if k in RESUMABLE})
    except TypeError as err:
        raise TrainError(f"{out}: unreadable options in run.json ({err})") from None
    if stored.game != asked.game:
        raise TrainError(
            f"{out} is a run of {stored.game}, not of {asked.game}; nothing was changed"
        )
    if dict(stored.game_params) != dict(asked.game_params):
        raise TrainError(
            f"{out} is a run of {stored.game} with parameters {dict(stored.game_params)}, "
            f"not {dict(asked.game_params)}"
        )
    changed = sorted(
        name
        for name in given - RESUMABLE - {"game", "game_params"}
        if getattr(asked, name) != getattr(stored, name)
    )
    if changed:
        raise TrainError(
            f"a resumed run keeps its options; {', '.join(changed)} differ from the run's "
            f"(only {', '.join(sorted(RESUMABLE))} may change)"
        )
    config = replace(stored, **{k: getattr(asked, k) for k in RESUMABLE & given})
    outside = [
        f"{n}={spec} ({reach})" for n, spec in stored.baselines if (reach := _reaches_out(spec))
    ]
    if outside and ("baselines" not in given or asked.baselines != stored.baselines):
        raise TrainError(
            f"{out}/run.json names a baseline that starts a program or reads a file outside "
            f"the run ({'; '.join(outside)}); a run directory neither starts programs nor "
            "names files outside itself: give every --baseline again on the command line "
            "to resume it"
        )
    return config


def _reaches_out(spec: str) -> str | None:
    """What a stored baseline's spec would reach outside its run directory: a program it
    starts (``gtp:CMD``) or a network file it loads (``model=PATH``, any ``model=`` but a
    network shipped in the package); ``None`` for a spec that reaches nothing."""
    try:
        kind, options = parse_spec(spec)
    except ValueError:
        return "starts a program" if spec.strip().startswith("gtp") else None
    if kind == "gtp":
        return "starts a program"
    model = options.get("model")
    if model is not None and model not in shipped_models():
        return "reads a file"
    return None


# Self-play in worker processes -----------------------------------------------------------

_worker: dict[str, Any] = {}


def _worker_init(threads: int) -> None:
    torch.set_num_threads(threads)


def _worker_play(
    game_name: str,
    params: tuple[tuple[str, Any], ...],
    spec: dict[str, Any],
    weights: bytes,
    seeds: list[int],
    options: SelfPlayOptions,
) -> tuple[Examples, SelfPlayStats]:
    key = (game_name, params, json.dumps(spec, sort_keys=True))
    if _worker.get("key") != key:
        game = make(game_name, **dict(params))
        _worker.update(key=key, game=game, net=make_network(game, **spec))
    net = _worker["net"]
    net.load_state_dict(torch.load(io.BytesIO(weights), weights_only=True))
    return play_games(net.eval(), _worker["game"], seeds, options)


def _concat(parts: list[Examples]) -> Examples:
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


# The loop ---------------------------------------------------------------------------------


class _Run:
    """A run in progress: its directory, config, network, optimizer, buffer and state."""

    def __init__(self, out: Path, config: TrainConfig, on_event: Event | None) -> None:
        self.out = out
        self.config = config
        self.on_event = on_event
        self.game = make(config.game, **dict(config.game_params))
        self.symmetries = symmetries(self.game)
        cuda = torch.cuda.is_available()
        if config.device == "cuda" and not cuda:
            raise TrainError("--device cuda: no CUDA device is available")
        self.device = (
            "cuda" if config.device == "cuda" or (config.device == "auto" and cuda) else "cpu"
        )
        self.spec: dict[str, Any] = {
            "kind": config.network,
            "channels": config.channels,
            "blocks": config.blocks,
            "hidden": config.hidden,
            "layers": config.layers,
            "seed": derive_seed(config.seed, "network") % 2**31,
        }
        self.net = make_network(self.game, **self.spec)
        self.actor = make_network(self.game, **self.spec).eval()  # self-play's CPU copy
        self.net.to(self.device)
        self.optimizer = make_optimizer(
            self.net, config.optimizer, config.lr, config.l2, config.momentum
        )
        self.buffer = ReplayBuffer(config.buffer)
        self.state: dict[str, Any] = {}
        # The commands that trained the run (each --resume adds one), for the model card.
        self.past_invocations: list[dict[str, Any]] = []
        self.invocation: dict[str, Any] = {}

    def emit(self, kind: str, **payload: Any) -> None:
        if self.on_event is not None:
            self.on_event(kind, payload)

    # Files of a generation
    def net_path(self, g: int) -> Path:
        return self.out / "checkpoints" / f"gen-{g:04d}.pt"

    def save_net(self, g: int) -> None:
        meta = {"generation": g, "train": self.config.to_dict()}
        save_checkpoint(self.net_path(g), self.net.to("cpu"), self.game, meta)
        self.net.to(self.device)

    def commit(self, g: int, record: dict[str, Any], wall: float) -> None:
        buffer_file = f"buffer-{g:04d}.npz"
        optimizer_file = f"optimizer-{g:04d}.pt"
        self.buffer.save(self.out / buffer_file)
        blob = io.BytesIO()
        torch.save(self.optimizer.state_dict(), blob)
        _atomic_write(self.out / optimizer_file, blob.getvalue())
        old = self.state.get("files", {})
        history = [*self.state.get("history", []), record]
        state = {
            "generation": g,
            "wall_seconds": wall,
            "games": self.state.get("games", 0) + record.get("games", 0),
            "positions": self.state.get("positions", 0) + record.get("positions", 0),
            "files": {
                "network": str(self.net_path(g).relative_to(self.out)),
                "buffer": buffer_file,
                "optimizer": optimizer_file,
            },
            "history": history,
            "invocations": [*self.past_invocations, {**self.invocation, "last_generation": g}],
            # What a --resume without these options continues with.
            "options": {k: getattr(self.config, k) for k in sorted(RESUMABLE)},
        }
        _write_json(self.out / "state.json", state)
        self.state = state
        for name in ("buffer", "optimizer"):
            stale = old.get(name)
            if stale and stale != self.state["files"][name]:
                run_file(self.out, stale, name).unlink(missing_ok=True)
        write_metrics(self.out, self.config, history)

    def restore(self) -> None:
        """The committed generation's network, buffer and optimizer; :class:`TrainError`
        (nothing changed) for a file that is missing, corrupt or not this run's."""
        files = self.state["files"]
        net, _ = load_checkpoint(run_file(self.out, files["network"], "network"), self.game)
        try:
            self.net.load_state_dict(net.state_dict())
        except RuntimeError:
            raise TrainError(
                f"{self.out}: the network {files['network']} is not of the run's sizes; "
                "nothing was changed"
            ) from None
        self.net.to(self.device)
        path = run_file(self.out, files["buffer"], "buffer")
        try:
            self.buffer = ReplayBuffer.load(path, self.config.buffer)
        except Exception as err:  # numpy's and zipfile's errors for a corrupt file are many
            raise TrainError(
                f"{path}: not a readable replay buffer ({type(err).__name__}); nothing was changed"
            ) from None
        self._check_buffer(path)
        path = run_file(self.out, files["optimizer"], "optimizer")
        try:
            opt = torch.load(path, map_location=self.device, weights_only=True)
            self.optimizer.load_state_dict(opt)
        except Exception as err:  # torch.load's errors for a corrupt file are many
            raise TrainError(
                f"{path}: not a readable optimizer state of this run ({type(err).__name__}); "
                "nothing was changed"
            ) from None

    def _check_buffer(self, path: Path) -> None:
        """The buffer's arrays have this game's shapes and one length."""
        arrays = self.buffer.arrays
        if not arrays:
            return
        actions = self.game.info.num_actions
        shapes = {
            "observation": tuple(self.game.observation_shape()),  # type: ignore[attr-defined]
            "legal_mask": (actions,),
            "policy": (actions,),
            "value": (),
        }
        n = len(arrays["value"])
        if any(arrays[k].shape != (n, *shapes[k]) for k in KEYS):
            raise TrainError(
                f"{path}: the replay buffer's arrays do not fit {self.config.game}'s positions; "
                "nothing was changed"
            )

    # Self-play
    def selfplay(self, g: int, pool: ProcessPoolExecutor | None) -> tuple[Examples, SelfPlayStats]:
        c = self.config
        seeds = [derive_seed(c.seed, "selfplay", g, i) for i in range(c.games_per_generation)]
        options = c.selfplay()
        self.actor.load_state_dict({k: v.cpu() for k, v in self.net.state_dict().items()})
        self.actor.eval()
        if pool is None:
            parts: list[tuple[Examples, SelfPlayStats]] = []
            step = max(c.parallel_games, 1)
            for start in range(0, len(seeds), step):
                parts.append(
                    play_games(self.actor, self.game, seeds[start : start + step], options)
                )
                self.emit(
                    "selfplay", generation=g, games=min(start + step, len(seeds)), of=len(seeds)
                )
        else:
            blob = io.BytesIO()
            torch.save(self.actor.state_dict(), blob)
            chunks = [seeds[i :: c.workers] for i in range(c.workers)]
            futures = [
                pool.submit(
                    _worker_play, c.game, c.game_params, self.spec, blob.getvalue(), ch, options
                )
                for ch in chunks
                if ch
            ]
            parts = []
            for fut in futures:
                parts.append(fut.result())
                self.emit(
                    "selfplay", generation=g, games=sum(p[1].games for p in parts), of=len(seeds)
                )
        stats = SelfPlayStats(wins=[0] * self.game.info.num_players)
        for _, s in parts:
            stats.merge(s)
        return _concat([p[0] for p in parts]), stats

    # Learning
    def learn(self, g: int, positions: int) -> Losses:
        c = self.config
        steps = max(1, math.ceil(c.replay_ratio * positions / c.batch_size))
        rng = np.random.default_rng(derive_seed(c.seed, "minibatches", g))
        torch.manual_seed(derive_seed(c.seed, "torch", g) % 2**63)
        return train_steps(
            self.net,
            self.optimizer,
            self.buffer,
            steps,
            c.batch_size,
            self.symmetries,
            rng,
            c.l2,
            self.device,
        )

    # Evaluation
    def az_spec(self, g: int) -> str:
        sims = self.config.eval_simulations or self.config.simulations
        model = quote_spec_value(str(self.net_path(g).resolve()))  # a path may hold a comma
        return f"az:model={model},simulations={sims}"

    def evaluate(self, g: int, previous: int) -> dict[str, Any]:
        c = self.config
        me = f"gen-{g:04d}"
        opponents = [(f"gen-{previous:04d}", self.az_spec(previous)), *c.baselines]
        runs: list[int] = []
        scores: dict[str, dict[str, Any]] = {}
        # The players search one leaf at a time: a network call of batch 1 gains nothing
        # from more threads, and spinning threads slow everything else on a busy machine.
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            self._play_evaluation(g, me, opponents, runs, scores)
        finally:
            torch.set_num_threads(threads)
        return {"eval_runs": runs, "scores": scores}

    def _play_evaluation(
        self,
        g: int,
        me: str,
        opponents: list[tuple[str, str]],
        runs: list[int],
        scores: dict[str, dict[str, Any]],
    ) -> None:
        c = self.config
        with ResultStore(self.out / "results.sqlite") as store:
            for name, spec in opponents:
                config = ArenaConfig(
                    game=c.game,
                    players=(Entrant(me, self.az_spec(g)), Entrant(name, spec)),
                    games=c.eval_games,
                    game_params=c.game_params,
                    seed=derive_seed(c.seed, "eval", g, name),
                    openings=c.eval_openings,
                )
                tasks = schedule(config)
                seeds = opening_seeds(self.game, c.eval_openings, len(tasks), config.seed)
                tasks = [replace(t, opening_seed=s) for t, s in zip(tasks, seeds, strict=True)]
                result = run_arena(config, store, kind="train-eval", tasks=tasks)
                runs.append(result.run_id)
                points = [r.score_of(me) for r in distinct_games(result.records)]
                scores[name] = _score([p for p in points if p is not None], len(result.records))
                self.emit("eval", generation=g, opponent=name, score=scores[name]["score"])

    def ratings(self, history: list[dict[str, Any]]) -> dict[str, Any]:
        runs = [r for rec in history for r in rec.get("eval_runs", [])]
        if not runs:
            return {}
        with ResultStore(self.out / "results.sqlite") as store:
            outcomes = [
                GameOutcome(r.seats[0], r.seats[1], r.score)
                for run_id in runs
                for r in distinct_games(store.games([run_id]))
                if r.score is not None
            ]
        anchor = self.config.baselines[0][0] if self.config.baselines else "gen-0000"
        try:
            ratings = compute_ratings(outcomes, anchor=anchor)
        except InvalidConfigError:
            return {}
        return {
            p.name: {"elo": p.elo, "low": p.low, "high": p.high, "unbounded": p.unbounded}
            for p in ratings.players
        }


def opening_seeds(game: Game, plies: int, count: int, seed: int, tries: int = 100) -> list[int]:
    """The opening seeds of ``count`` evaluation games, one per game, chosen so that
    their openings of ``plies`` random plies differ pairwise where the game has that many
    (each game tries up to ``tries`` seeds). The evaluated players are deterministic: two
    games with the same opening and colours would be one game played twice."""
    seeds: list[int] = []
    seen: set[tuple[int, ...]] = set()
    for i in range(count):
        chosen = derive_seed(seed, "opening", i)
        if plies > 0:
            for t in range(tries):
                candidate = derive_seed(seed, "opening", i, t) if t else chosen
                opening = arena_opening(game, plies, candidate)
                if opening not in seen:
                    chosen = candidate
                    seen.add(opening)
                    break
        seeds.append(chosen)
    return seeds


def arena_opening(game: Game, plies: int, seed: int) -> tuple[int, ...]:
    """The opening the arena plays for ``plies`` and ``opening_seed=seed``
    (:func:`mctslab.arena.game_task.play_opening` on a new game)."""
    return tuple(play_opening(game.new_initial_state(), plies, seed))


def distinct_games(records: Iterable[GameRecord]) -> list[GameRecord]:
    """``records`` without the games whose moves repeat an earlier one's: what the
    intervals count. Between deterministic players a game that the openings could not
    tell apart (a game with fewer openings than games, or no opening plies) is one game
    played again, not new evidence."""
    seen: set[tuple[int, ...]] = set()
    kept = []
    for r in sorted(records, key=lambda r: r.slot):
        if r.moves not in seen:
            seen.add(r.moves)
            kept.append(r)
    return kept


def _score(points: list[float], played: int) -> dict[str, Any]:
    """The score over the distinct games (``games``, of ``played``) with its 95% Wilson
    interval."""
    n = len(points)
    total = float(sum(points))
    score, low, high = wilson_interval(total, n) if n else (math.nan, math.nan, math.nan)
    return {"games": n, "played": played, "score": score, "low": low, "high": high}


def _start_new(run: _Run, command: list[str] | None) -> None:
    c = run.config
    out = run.out
    losses: Losses | None = None
    pretrained = 0
    examples = _dataset_examples(c.from_dataset, run.game, c) if c.from_dataset else None
    out.mkdir(parents=True, exist_ok=True)
    if examples is not None:
        run.buffer.add(examples)
        pretrained = len(examples["value"])
        steps = (
            c.pretrain_steps
            if c.pretrain_steps is not None
            else math.ceil(2 * pretrained / c.batch_size)
        )
        rng = np.random.default_rng(derive_seed(c.seed, "pretrain"))
        torch.manual_seed(derive_seed(c.seed, "torch", "pretrain") % 2**63)
        losses = train_steps(
            run.net,
            run.optimizer,
            run.buffer,
            steps,
            c.batch_size,
            run.symmetries,
            rng,
            c.l2,
            run.device,
        )
        run.emit("train", generation=0, losses=losses)
    _write_json(
        out / "run.json",
        {
            "format": list(RUN_FORMAT),
            "game": _game_identity(run.game),
            "config": c.to_dict(),
            "network": {**run.spec, "parameters": parameter_count(run.net)},
            "command": command or [],
            "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "machine": machine(),
        },
    )
    record: dict[str, Any] = {
        "generation": 0,
        "games": 0,
        "positions": pretrained,
        "wall_seconds": 0.0,
    }
    if losses is not None:
        record.update(_loss_fields(losses))
    run.save_net(0)
    run.commit(0, record, 0.0)


def _dataset_examples(path: str, game: Any, c: TrainConfig) -> Examples:
    from mctslab.analysis.dataset import read_dataset, read_meta

    try:
        meta = read_meta(path)
        arrays = read_dataset(path)
    except OSError as err:
        raise TrainError(f"--from-dataset {path}: cannot be read ({err.strerror})") from None
    except (ValueError, KeyError):
        raise TrainError(
            f"--from-dataset {path}: not a self-play dataset (write one with mctslab selfplay)"
        ) from None
    if meta.get("game") != c.game or dict(meta.get("params") or {}) != dict(c.game_params):
        raise TrainError(
            f"--from-dataset {path} holds games of {meta.get('game')} "
            f"{meta.get('params') or ''}, not of {c.game} {dict(c.game_params) or ''}".rstrip()
        )
    info = game.info
    scale = max(abs(info.min_utility), abs(info.max_utility), 1e-12)
    return {
        "observation": arrays["observation"].astype(np.float32),
        "legal_mask": arrays["legal_mask"].astype(np.bool_),
        "policy": arrays["visits"].astype(np.float32),
        "value": (arrays["outcome"] / scale).astype(np.float32),
    }


def _loss_fields(losses: Losses) -> dict[str, Any]:
    return {
        "value_loss": losses.value,
        "policy_loss": losses.policy,
        "l2_loss": losses.l2,
        "total_loss": losses.total,
        "steps": losses.steps,
    }


def machine() -> dict[str, Any]:
    """Where a run ran: processor, cores, Python and PyTorch."""
    return {
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "cuda": torch.cuda.is_available(),
    }


def train(
    config: TrainConfig,
    out: str | Path,
    *,
    resume: bool = False,
    given: set[str] | None = None,
    on_event: Event | None = None,
    command: list[str] | None = None,
) -> TrainResult:
    """Run (or with ``resume`` continue) the loop of the module docstring in ``out``.

    ``given``: the options the user set explicitly. A resumed run keeps its stored
    options (the :data:`~mctslab.train.config.RESUMABLE` ones as its last invocation ran
    them), overridden by the resumable options in ``given``; any other option in
    ``given`` must equal the stored one. Default: every option is given.
    ``on_event(kind, payload)`` reports progress: ``"start"``, ``"selfplay"``,
    ``"train"``, ``"eval"``, ``"generation"`` (the committed record), ``"stop"``.

    Raises :class:`TrainError` (a ``ValueError``), before any file is written, for a
    directory that holds a run while ``resume`` is off, a file or a folder with other
    files, no run while it is on, a run of another game or other options, a run whose
    files are corrupt or named outside it, or one whose baselines start a program that
    ``given`` does not name again. A failed write (a full disk, a read-only directory)
    is a :class:`TrainError` too: the run stays at its last committed generation.
    """
    out = Path(out)
    started = time.monotonic()
    run = (
        _resume(out, config, given, on_event) if resume else _create(out, config, on_event, command)
    )
    try:
        return _loop(run, started, command)
    except (OSError, sqlite3.Error) as err:
        raise TrainError(
            f"{_failed_write(err)}; the run in {out} is intact at generation "
            f"{run.state['generation']}: continue it with --resume"
        ) from None


def _failed_write(err: OSError | sqlite3.Error) -> str:
    if isinstance(err, OSError) and err.filename:
        return f"cannot write {err.filename} ({err.strerror or type(err).__name__})"
    return f"cannot write ({err})"


def _resume(out: Path, config: TrainConfig, given: set[str] | None, on_event: Event | None) -> _Run:
    run_json, state = load_run(out)
    if run_json["game"].get("name") != config.game:
        raise TrainError(
            f"{out} is a run of {run_json['game'].get('name')}, not of {config.game}; "
            "nothing was changed"
        )
    names = given if given is not None else {f.name for f in fields(TrainConfig)}
    config = _resumed_config(out, run_json, state, config, names)
    if not os.access(out, os.W_OK | os.X_OK):
        raise TrainError(f"cannot write in {out}; nothing was changed")
    run = _Run(out, config, on_event)
    if run_json["game"] != _game_identity(run.game):
        raise TrainError(
            f"{out} was trained under other rules of {config.game}; nothing was changed"
        )
    run.state = state
    invocations = state.get("invocations", [])
    run.past_invocations = list(invocations) if isinstance(invocations, list) else []
    run.restore()
    return run


def _create(
    out: Path, config: TrainConfig, on_event: Event | None, command: list[str] | None
) -> _Run:
    if any(
        (out / name).exists() or (out / name).is_symlink() for name in ("run.json", "state.json")
    ):
        raise TrainError(
            f"{out} already holds a training run: continue it with --resume or choose another --out"
        )
    if out.exists() and not out.is_dir():
        raise TrainError(f"{out} is a file, not a directory")
    if out.is_dir() and any(out.iterdir()):
        # Its metrics.csv, training.png or results.sqlite would be overwritten.
        raise TrainError(
            f"{out} is a folder with other files, not a training run: choose a new or empty "
            "--out; nothing was changed"
        )
    parent = next((p for p in (out, *out.parents) if p.exists()), Path("."))
    if not parent.is_dir():
        raise TrainError(f"--out {out}: {parent} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise TrainError(f"--out {out}: cannot write in {parent}")
    created = not out.exists()
    run = _Run(out, config, on_event)
    try:
        _start_new(run, command)
    except BaseException as err:
        if not (out / "state.json").exists():
            # Generation 0 was never committed: what was written goes, the folder was
            # new or empty.
            _remove_contents(out, created)
        if isinstance(err, (OSError, sqlite3.Error)):
            raise TrainError(f"--out {out}: {_failed_write(err)}; no run was made") from None
        raise
    return run


def _remove_contents(out: Path, created: bool) -> None:
    if created:
        shutil.rmtree(out, ignore_errors=True)
    elif out.is_dir():
        for child in out.iterdir():
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child, ignore_errors=True)
            else:
                child.unlink(missing_ok=True)


def _loop(run: _Run, started: float, command: list[str] | None) -> TrainResult:
    out = run.out
    c = run.config
    wall0 = float(run.state.get("wall_seconds", 0.0))
    run.invocation = {
        "command": command or [],
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "first_generation": run.state["generation"] + 1,
    }
    run.emit("start", generation=run.state["generation"], config=c, device=run.device)
    pool: ProcessPoolExecutor | None = None
    threads = c.threads or (1 if c.workers > 1 else max(1, os.cpu_count() or 1))
    torch.set_num_threads(threads)
    if c.workers > 1:
        pool = ProcessPoolExecutor(
            max_workers=c.workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_worker_init,
            initargs=(c.threads or 1,),
        )
    stopped_by = "generations"
    last_duration = 0.0
    try:
        while run.state["generation"] < c.generations:
            elapsed = time.monotonic() - started
            if c.minutes is not None and elapsed + last_duration > c.minutes * 60:
                stopped_by = "minutes"
                break
            g0 = time.monotonic()
            g = run.state["generation"] + 1
            t = time.monotonic()
            examples, stats = run.selfplay(g, pool)
            selfplay_s = time.monotonic() - t
            run.buffer.add(examples)
            t = time.monotonic()
            losses = run.learn(g, stats.positions)
            learn_s = time.monotonic() - t
            run.emit("train", generation=g, losses=losses)
            run.save_net(g)
            record: dict[str, Any] = {
                "generation": g,
                "games": stats.games,
                "positions": stats.positions,
                "buffer": len(run.buffer),
                "selfplay_seconds": selfplay_s,
                "learn_seconds": learn_s,
                "positions_per_s": stats.positions / selfplay_s if selfplay_s > 0 else None,
                "evaluations_per_s": stats.evaluations / selfplay_s if selfplay_s > 0 else None,
                "network_share": stats.network_seconds / selfplay_s
                if selfplay_s > 0 and pool is None
                else None,
                "first_player_wins": stats.wins[0] if stats.wins else 0,
                "draws": stats.draws,
                "resigned": stats.resigned,
                "false_resign_rate": stats.false_resign_rate,
                **_loss_fields(losses),
            }
            due = c.eval_games > 0 and (g % c.eval_every == 0 or g == c.generations)
            if due:
                t = time.monotonic()
                previous = max(
                    [h["generation"] for h in run.state["history"] if h.get("eval_runs")] or [0]
                )
                record.update(run.evaluate(g, previous))
                record["eval_seconds"] = time.monotonic() - t
                ratings = run.ratings([*run.state["history"], record])
                record["ratings"] = ratings
                mine = ratings.get(f"gen-{g:04d}", {})
                record["elo"], record["elo_low"], record["elo_high"] = (
                    mine.get("elo"),
                    mine.get("low"),
                    mine.get("high"),
                )
            last_duration = time.monotonic() - g0
            record["wall_seconds"] = wall0 + (time.monotonic() - started)
            run.commit(g, record, record["wall_seconds"])
            run.emit("generation", record=record)
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    run.emit("stop", stopped_by=stopped_by, generation=run.state["generation"])
    return TrainResult(
        out,
        run.state["generation"],
        float(run.state["wall_seconds"]),
        stopped_by,
        tuple(run.state["history"]),
    )


# Metrics ------------------------------------------------------------------------------------

_COLUMNS = (
    "generation",
    "wall_seconds",
    "games",
    "positions",
    "buffer",
    "positions_per_s",
    "evaluations_per_s",
    "network_share",
    "value_loss",
    "policy_loss",
    "l2_loss",
    "total_loss",
    "steps",
    "first_player_wins",
    "draws",
    "resigned",
    "false_resign_rate",
    "elo",
    "elo_low",
    "elo_high",
)


def write_metrics(out: Path, config: TrainConfig, history: list[dict[str, Any]]) -> None:
    """``metrics.csv`` (one row a generation; the score against each evaluation opponent
    as ``score_<name>``) and ``training.png`` (losses and Elo by generation), both
    rewritten atomically from the committed history."""
    opponents = ["previous", *(n for n, _ in config.baselines)]
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow([*_COLUMNS, *(f"score_{n}" for n in opponents)])
    for rec in history:
        scores = rec.get("scores", {})
        by_name = {("previous" if k.startswith("gen-") else k): v for k, v in scores.items()}
        row = [_cell(rec.get(k)) for k in _COLUMNS]
        row += [_cell(by_name.get(n, {}).get("score")) for n in opponents]
        writer.writerow(row)
    _atomic_write(out / "metrics.csv", buf.getvalue().encode())
    _atomic_write(out / "training.png", _plot(history, config))


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v)


def _plot(history: list[dict[str, Any]], config: TrainConfig) -> bytes:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    gens = [h["generation"] for h in history if "total_loss" in h]
    for key, label in (
        ("value_loss", "value (MSE)"),
        ("policy_loss", "policy (CE)"),
        ("total_loss", "total"),
    ):
        ax1.plot(gens, [h[key] for h in history if "total_loss" in h], label=label)
    ax1.set_xlabel("generation")
    ax1.set_ylabel("loss")
    ax1.set_title(f"{config.game}: training losses")
    ax1.legend()
    last = history[-1].get("ratings", {}) if history else {}
    rated = [
        (int(k[4:]), v)
        for k, v in last.items()
        if k.startswith("gen-") and v.get("elo") is not None
    ]
    rated.sort()
    if rated:
        xs = [g for g, _ in rated]
        ys = [v["elo"] for _, v in rated]
        lo = [v["elo"] - (v["low"] if v["low"] is not None else v["elo"]) for _, v in rated]
        hi = [(v["high"] if v["high"] is not None else v["elo"]) - v["elo"] for _, v in rated]
        ax2.errorbar(xs, ys, yerr=[lo, hi], marker="o", capsize=3, label="network (95%)")
        for name, _ in config.baselines:
            b = last.get(name, {})
            if b.get("elo") is not None:
                ax2.axhline(b["elo"], linestyle="--", linewidth=0.8, color="gray")
                ax2.annotate(name, (xs[0], b["elo"]), fontsize=8, color="gray")
    ax2.set_xlabel("generation")
    ax2.set_ylabel(f"Elo ({config.baselines[0][0] if config.baselines else 'gen-0000'} = 0)")
    ax2.set_title("Elo by generation (all evaluation games)")
    fig.tight_layout()
    blob = io.BytesIO()
    fig.savefig(blob, format="png", dpi=90)
    plt.close(fig)
    return blob.getvalue()
