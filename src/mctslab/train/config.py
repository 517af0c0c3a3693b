"""The options of a training run (``mctslab train``), one frozen dataclass."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields
from typing import Any

from mctslab.core.errors import InvalidConfigError
from mctslab.nn.networks import NETWORK_KINDS
from mctslab.train.learner import LR_SCHEDULES, OPTIMIZERS
from mctslab.train.selfplay import SelfPlayOptions

__all__ = ["DEFAULT_BASELINES", "LIMITS", "RESUMABLE", "TrainConfig"]

#: The fixed opponents every evaluated generation meets (name, player spec): plain
#: compiled UCT at two budgets and a depth-4 alpha-beta search with the game's heuristic.
DEFAULT_BASELINES: tuple[tuple[str, str], ...] = (
    ("uct100", "mcts:iterations=100"),
    ("uct1000", "mcts:iterations=1000"),
    ("minimax4", "minimax:depth=4"),
)

#: The options a resumed run may change: its budget and where it runs, not what it does.
#: A resumed run keeps the values it last ran with; the command line overrides them.
RESUMABLE = frozenset({"generations", "minutes", "workers", "threads", "device"})

#: The largest value of each count option. Far beyond what a run here needs, and small
#: enough that a typo (``--batch-size 1000000000``) is refused at once rather than
#: failing later in an allocation of gigabytes.
LIMITS: dict[str, int] = {
    "generations": 1_000_000,
    "games_per_generation": 1_000_000,
    "simulations": 1_000_000,
    "parallel_games": 4_096,
    "workers": 256,
    "threads": 1_024,
    "temperature_plies": 100_000,
    "max_moves": 1_000_000,
    "buffer": 10_000_000,
    "batch_size": 16_384,
    "eval_games": 10_000,
    "eval_every": 1_000_000,
    "eval_simulations": 1_000_000,
    "eval_openings": 1_000,
    "pretrain_steps": 10_000_000,
}


@dataclass(frozen=True)
class TrainConfig:
    """A training run (see :mod:`mctslab.train.loop` for the loop, and docs/learning.md's
    "Training a network" for every option).

    Budget: ``generations`` (in all, counting the generations of the run before a
    ``--resume``) and ``minutes`` (of this invocation; the loop starts no generation that
    it expects to end after them). Self-play: ``games_per_generation`` games of
    ``simulations`` simulations a move, ``parallel_games`` at once per worker process,
    Dirichlet noise ``noise_alpha``/``noise_fraction``, temperature 1 for the first
    ``temperature_plies`` plies, resignation below ``-resign_threshold`` (``None``: never)
    with ``resign_playout`` of the games played out to measure false resignations.
    Learning: a replay buffer of the last ``buffer`` positions, ``replay_ratio`` samples a
    new position (steps = ``replay_ratio * new positions / batch_size``), ``optimizer``
    (``adam`` or ``sgd`` with ``momentum``), learning rate ``lr`` on the schedule
    ``lr_schedule`` (``constant``, or ``cosine`` down to ``lr_min`` at the last generation:
    :func:`~mctslab.train.learner.learning_rate`), L2 weight ``l2``, the value target mixing
    the outcome and the root value by ``value_mix`` (:mod:`mctslab.train.selfplay`).
    ``init``: a checkpoint (or a shipped network's name) whose weights the run starts
    from instead of random ones; its sizes must be the run's.
    Evaluation: every ``eval_every`` generations, ``eval_games`` games against the
    previous evaluated generation and each of ``baselines`` with ``eval_simulations``
    (default: ``simulations``) and ``eval_openings`` random opening plies, drawn for each
    game so that no two games of an evaluation repeat where the game has enough openings
    (the intervals count distinct games: :mod:`mctslab.train.evaluation`). Counts are bounded
    by :data:`LIMITS`.
    """

    game: str
    game_params: tuple[tuple[str, Any], ...] = ()
    generations: int = 10
    minutes: float | None = None
    games_per_generation: int = 64
    simulations: int = 100
    parallel_games: int = 64
    workers: int = 1
    threads: int | None = None
    seed: int = 0
    network: str = "auto"
    channels: int = 32
    blocks: int = 3
    hidden: int = 64
    layers: int = 2
    c: float = 1.25
    noise_alpha: float = 1.0
    noise_fraction: float = 0.25
    temperature_plies: int = 8
    resign_threshold: float | None = None
    resign_playout: float = 0.1
    max_moves: int | None = None
    buffer: int = 50_000
    batch_size: int = 256
    replay_ratio: float = 4.0
    optimizer: str = "adam"
    lr: float = 1e-3
    momentum: float = 0.9
    l2: float = 1e-4
    eval_games: int = 10
    eval_every: int = 1
    eval_simulations: int | None = None
    eval_openings: int = 2
    baselines: tuple[tuple[str, str], ...] = DEFAULT_BASELINES
    device: str = "auto"
    from_dataset: str | None = None
    pretrain_steps: int | None = None
    value_mix: float = 0.0
    lr_schedule: str = "constant"
    lr_min: float = 1e-5
    init: str | None = None

    def __post_init__(self) -> None:
        def positive(name: str, value: Any) -> None:
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise InvalidConfigError(f"{name} must be a positive integer, got {value!r}")

        for name in ("generations", "games_per_generation", "workers", "batch_size"):
            positive(name, getattr(self, name))
        positive("buffer", self.buffer)
        positive("eval_every", self.eval_every)
        if self.threads is not None:
            positive("threads", self.threads)
        if self.eval_simulations is not None:
            positive("eval_simulations", self.eval_simulations)
        if self.pretrain_steps is not None and self.pretrain_steps < 0:
            raise InvalidConfigError(f"pretrain steps must be >= 0, got {self.pretrain_steps}")
        if self.eval_games < 0 or self.eval_openings < 0:
            raise InvalidConfigError("eval games and eval openings must be >= 0")
        if self.minutes is not None and not (math.isfinite(self.minutes) and self.minutes > 0):
            raise InvalidConfigError(f"minutes must be a positive number, got {self.minutes!r}")
        if self.network not in NETWORK_KINDS:
            raise InvalidConfigError(
                f"unknown network {self.network!r}; valid: {', '.join(NETWORK_KINDS)}"
            )
        if self.optimizer not in OPTIMIZERS:
            raise InvalidConfigError(
                f"unknown optimizer {self.optimizer!r}; valid: {', '.join(OPTIMIZERS)}"
            )
        if self.lr_schedule not in LR_SCHEDULES:
            raise InvalidConfigError(
                f"unknown learning-rate schedule {self.lr_schedule!r}; "
                f"valid: {', '.join(LR_SCHEDULES)}"
            )
        for name in ("lr", "replay_ratio"):
            if not (math.isfinite(getattr(self, name)) and getattr(self, name) > 0):
                raise InvalidConfigError(f"{name} must be > 0, got {getattr(self, name)!r}")
        if not (math.isfinite(self.lr_min) and self.lr_min >= 0):
            raise InvalidConfigError(f"lr_min must be >= 0, got {self.lr_min!r}")
        if self.lr_schedule == "cosine" and self.lr_min > self.lr:
            raise InvalidConfigError(
                f"the cosine schedule goes from lr down to lr_min: lr_min ({self.lr_min}) "
                f"must be at most lr ({self.lr})"
            )
        if not (self.l2 >= 0 and 0 <= self.momentum < 1):
            raise InvalidConfigError("l2 must be >= 0 and momentum in [0, 1)")
        if self.device not in ("auto", "cpu", "cuda"):
            raise InvalidConfigError(f"unknown device {self.device!r}; valid: auto, cpu, cuda")
        names = [n for n, _ in self.baselines]
        if len(set(names)) != len(names) or any(n.startswith("gen-") for n in names):
            raise InvalidConfigError("baseline names must be distinct and not start with 'gen-'")
        for name, high in LIMITS.items():
            value = getattr(self, name)
            if isinstance(value, int) and value > high:
                raise InvalidConfigError(f"{name} must be at most {high:,}, got {value:,}")
        self.selfplay()  # checks its own options

    def selfplay(self) -> SelfPlayOptions:
        """The self-play options."""
        return SelfPlayOptions(
            simulations=self.simulations,
            c=self.c,
            noise_alpha=self.noise_alpha,
            noise_fraction=self.noise_fraction,
            temperature_plies=self.temperature_plies,
            resign_threshold=self.resign_threshold,
            resign_playout=self.resign_playout,
            parallel_games=self.parallel_games,
            max_moves=self.max_moves,
            value_mix=self.value_mix,
        )

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["game_params"] = dict(self.game_params)
        d["baselines"] = [list(b) for b in self.baselines]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TrainConfig:
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in d.items() if k in known}
        values["game_params"] = tuple(sorted(dict(values.get("game_params", {})).items()))
        values["baselines"] = tuple(tuple(b) for b in values.get("baselines", ()))
        return cls(**values)
