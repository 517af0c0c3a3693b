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
   arena against the previous evaluated generation and each fixed baseline, each game
   with its own opening, scored over the distinct games, and the Elo of every
   generation (:mod:`mctslab.train.evaluation`);
5. **commit**: the buffer (``buffer-g.npz``) and optimizer (``optimizer-g.pt``) files,
   then ``state.json`` naming them, each written to a temporary file and renamed; then
   ``metrics.csv`` and ``training.png`` are rewritten from ``state.json``
   (:mod:`mctslab.train.report`).

``state.json`` is the commit point: a run killed at any moment resumes from the last
generation it names; a failed write stops the run with a :class:`TrainError` at its last
committed generation. What the run directory holds, what a resumed run keeps and why
every file it names is confined to it: :mod:`mctslab.train.run_directory`.

Reproducible: every random choice is drawn from a seed derived from ``seed`` and the
generation (network initialisation, self-play games, minibatches, evaluation games),
so with one worker the same seed gives the same networks. With more workers each
worker plays a share of the games (game ``i`` goes to worker ``i mod workers``), and the
network sees other batches of positions, whose floating-point sums can differ in the
last bits: the games may then differ from one worker's.
"""

from __future__ import annotations

import dataclasses
import io
import json
import math
import multiprocessing
import os
import sqlite3
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np
import torch

from mctslab.arena.game_task import derive_seed
from mctslab.arena.workers import die_with_parent
from mctslab.core.registry import make
from mctslab.nn.checkpoint import save_checkpoint
from mctslab.nn.networks import make_network, parameter_count
from mctslab.train.buffer import ReplayBuffer
from mctslab.train.config import TrainConfig
from mctslab.train.evaluation import (
    arena_opening,
    distinct_games,
    evaluate_generation,
    opening_seeds,
)
from mctslab.train.learner import (
    Losses,
    learning_rate,
    make_optimizer,
    set_learning_rate,
    train_steps,
)
from mctslab.train.report import write_metrics
from mctslab.train.run_directory import (
    RUN_FORMAT,
    TrainError,
    atomic_write,
    checkpoint_path,
    committed_state,
    failed_write,
    game_identity,
    load_run,
    machine,
    open_resumed,
    read_buffer,
    refuse_unusable_out,
    remove_contents,
    remove_stale,
    restore_network,
    restore_optimizer,
    run_file,
)

# Under its old name, the one function here that writes run.json and state.json: a test
# replaces it to stand for a full disk at the commit point.
from mctslab.train.run_directory import write_json as _write_json
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

Event = Callable[[str, dict[str, Any]], None]


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
        return checkpoint_path(self.out, self.generation)


# Self-play in worker processes -----------------------------------------------------------

_worker: dict[str, Any] = {}


def _worker_init(threads: int, parent: int) -> None:
    """A self-play worker: ``threads`` PyTorch threads, and it ends when the training
    process (``parent``) dies rather than wait for it forever."""
    die_with_parent(parent)
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
        return checkpoint_path(self.out, g)

    def save_net(self, g: int) -> None:
        meta = {"generation": g, "train": self.config.to_dict()}
        save_checkpoint(self.net_path(g), self.net.to("cpu"), self.game, meta)
        self.net.to(self.device)

    def commit(self, g: int, record: dict[str, Any], wall: float) -> None:
        """Make generation ``g`` the run's: its buffer and optimizer files, then
        ``state.json`` naming them (the commit point), then the previous generation's
        files go and the report is rewritten."""
        buffer_file = f"buffer-{g:04d}.npz"
        optimizer_file = f"optimizer-{g:04d}.pt"
        self.buffer.save(self.out / buffer_file)
        blob = io.BytesIO()
        torch.save(self.optimizer.state_dict(), blob)
        atomic_write(self.out / optimizer_file, blob.getvalue())
        old = self.state.get("files", {})
        files = {
            "network": str(self.net_path(g).relative_to(self.out)),
            "buffer": buffer_file,
            "optimizer": optimizer_file,
        }
        invocations = [*self.past_invocations, {**self.invocation, "last_generation": g}]
        state = committed_state(self.state, record, wall, files, invocations, self.config)
        _write_json(self.out / "state.json", state)
        self.state = state
        remove_stale(self.out, old, files)
        write_metrics(self.out, self.config, state["history"])

    def restore(self) -> None:
        """The committed generation's network, buffer and optimizer; :class:`TrainError`
        (nothing changed) for a file that is missing, corrupt or not this run's."""
        files = self.state["files"]
        restore_network(self.out, files, self.game, self.net, self.device)
        self.buffer = read_buffer(self.out, files, self.config, self.game)
        restore_optimizer(self.out, files, self.optimizer, self.device)

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

    def warm(self) -> float:
        """Compile (or load from numba's cache) self-play's search for this game: one
        game of 2 simulations a move, outside every generation's clock, so that the
        first generation's throughput is self-play's, not the compiler's. Its seconds."""
        t = time.monotonic()
        options = dataclasses.replace(self.config.selfplay(), simulations=2, parallel_games=1)
        self.actor.load_state_dict({k: v.cpu() for k, v in self.net.state_dict().items()})
        self.actor.eval()
        play_games(self.actor, self.game, [derive_seed(self.config.seed, "warm")], options)
        return time.monotonic() - t

    # Learning
    def learn(self, g: int, positions: int) -> Losses:
        c = self.config
        steps = max(1, math.ceil(c.replay_ratio * positions / c.batch_size))
        set_learning_rate(
            self.optimizer, learning_rate(c.lr, c.lr_schedule, c.lr_min, g, c.generations)
        )
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
            f"{failed_write(err)}; the run in {out} is intact at generation "
            f"{run.state['generation']}: continue it with --resume"
        ) from None


def _resume(out: Path, config: TrainConfig, given: set[str] | None, on_event: Event | None) -> _Run:
    names = given if given is not None else {f.name for f in fields(TrainConfig)}
    run_json, state, config = open_resumed(out, config, names)
    run = _Run(out, config, on_event)
    if run_json["game"] != game_identity(run.game):
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
    refuse_unusable_out(out)
    created = not out.exists()
    run = _Run(out, config, on_event)
    try:
        _start_new(run, command)
    except BaseException as err:
        if not (out / "state.json").exists():
            # Generation 0 was never committed: what was written goes, the folder was
            # new or empty.
            remove_contents(out, created)
        if isinstance(err, (OSError, sqlite3.Error)):
            raise TrainError(f"--out {out}: {failed_write(err)}; no run was made") from None
        raise
    return run


def _start_new(run: _Run, command: list[str] | None) -> None:
    """Generation 0: the initial network (pretrained on ``--from-dataset``'s positions,
    which stay in the buffer), ``run.json``, then the first commit."""
    c = run.config
    out = run.out
    losses: Losses | None = None
    pretrained = 0
    examples = _dataset_examples(c.from_dataset, run.game, c) if c.from_dataset else None
    if c.init is not None:
        _init_weights(run, c.init)
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
            "game": game_identity(run.game),
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


def _init_weights(run: _Run, init: str) -> None:
    """``--init``: the run's network starts from the weights of the checkpoint ``init``
    names (a path, or a shipped network's name), which must be a network of the run's
    game and sizes. Read once, when the run is made: a resumed run has its own."""
    from mctslab.nn.checkpoint import CheckpointError, load_checkpoint
    from mctslab.players.network import resolve_model

    try:
        path = resolve_model(init)
        net, _ = load_checkpoint(path, run.game)
    except (CheckpointError, ValueError) as err:
        raise TrainError(f"--init {init}: {err}") from None
    theirs = {k: v for k, v in getattr(net, "mctslab_spec", {}).items() if k != "seed"}
    ours = {k: v for k, v in getattr(run.net, "mctslab_spec", {}).items() if k != "seed"}
    if theirs != ours:
        wanted = ", ".join(f"{k} {v}" for k, v in theirs.items())
        raise TrainError(
            f"--init {init} is a network of other sizes ({wanted}); give the run the same "
            "--network, --channels, --blocks, --hidden and --layers"
        )
    run.net.load_state_dict(net.state_dict())


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
        held = _named(str(meta.get("game")), dict(meta.get("params") or {}))
        raise TrainError(
            f"--from-dataset {path} holds games of {held}, "
            f"not of {_named(c.game, dict(c.game_params))}"
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


def _loop(run: _Run, started: float, command: list[str] | None) -> TrainResult:
    """Generations until ``generations`` or until the next would end past ``minutes``
    (judged by the last one's duration), each committed before the next starts."""
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
            initargs=(c.threads or 1, os.getpid()),
        )
    stopped_by = "generations"
    last_duration = 0.0
    compile_s: float | None = None
    try:
        while run.state["generation"] < c.generations:
            elapsed = time.monotonic() - started
            if c.minutes is not None and elapsed + last_duration > c.minutes * 60:
                stopped_by = "minutes"
                break
            if compile_s is None:  # before this invocation's first generation
                run.emit("compile", game=c.game)
                compile_s = run.warm()
                run.emit("compiled", seconds=compile_s)
            g0 = time.monotonic()
            g = run.state["generation"] + 1
            record = _generation(run, g, pool)
            last_duration = time.monotonic() - g0
            record["compile_seconds"], compile_s = compile_s, 0.0  # the invocation's first
            record["wall_seconds"] = wall0 + (time.monotonic() - started)
            run.commit(g, record, record["wall_seconds"])
            run.emit("generation", record=record)
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    run.emit("stop", stopped_by=stopped_by, generation=run.state["generation"])
    return TrainResult(
        run.out,
        run.state["generation"],
        float(run.state["wall_seconds"]),
        stopped_by,
        tuple(run.state["history"]),
    )


def _generation(run: _Run, g: int, pool: ProcessPoolExecutor | None) -> dict[str, Any]:
    """Steps 1 to 4 of generation ``g`` (self-play, learning, checkpoint, evaluation when
    due): its record, not yet committed."""
    c = run.config
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
    if c.eval_games > 0 and (g % c.eval_every == 0 or g == c.generations):
        history = run.state["history"]
        record.update(evaluate_generation(run.out, c, run.game, g, history, run.emit))
    return record


def _named(game: str, params: dict[str, object]) -> str:
    """A game with its parameters, if any: ``connect_four`` or ``go (size=9)``."""
    if not params:
        return game
    return f"{game} ({', '.join(f'{k}={v}' for k, v in sorted(params.items()))})"
