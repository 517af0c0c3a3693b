"""The options of a training run (``mctslab train``), one frozen dataclass."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields
from typing import Any

from mctslab.core.errors import InvalidConfigError
from mctslab.core.options import option, options_of
from mctslab.train.selfplay import SelfPlayOptions

__all__ = [
    "DEFAULT_BASELINES",
    "DEVICES",
    "LIMITS",
    "LR_SCHEDULES",
    "OPTIMIZERS",
    "RESUMABLE",
    "TrainConfig",
]

#: The optimizers of the learner (:mod:`mctslab.train.learner`): Adam and SGD with momentum.
OPTIMIZERS = ("adam", "sgd")
#: The learning-rate schedules (:func:`mctslab.train.learner.learning_rate`).
LR_SCHEDULES = ("constant", "cosine")
#: Where the network learns and plays: ``auto`` (CUDA where there is one), CPU or CUDA.
DEVICES = ("auto", "cpu", "cuda")


def _network_kinds() -> tuple[str, ...]:
    """The network kinds (:data:`mctslab.nn.networks.NETWORK_KINDS`), read when asked:
    this module is imported without PyTorch (``mctslab train``'s flags are made from it
    by every command line)."""
    from mctslab.nn.networks import NETWORK_KINDS

    return NETWORK_KINDS


DEFAULT_BASELINES: tuple[tuple[str, str], ...] = (
    ("uct100", "mcts:iterations=100"),
    ("uct1000", "mcts:iterations=1000"),
    ("minimax4", "minimax:depth=4"),
)
"""The fixed opponents every evaluated generation meets (name, player spec): plain
compiled UCT at two budgets and a depth-4 alpha-beta search with the game's heuristic."""

#: The options a resumed run may change: its budget and where it runs, not what it does.
#: A resumed run keeps the values it last ran with; the command line overrides them.
RESUMABLE = frozenset({"generations", "minutes", "workers", "threads", "device"})


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
    by :data:`LIMITS`. Each option's help, bounds and choices are declared on its field
    (:func:`~mctslab.core.options.option`): ``mctslab train``'s flags are made from them.
    """

    game: str
    game_params: tuple[tuple[str, Any], ...] = ()
    generations: int = option(10, "generations in all", low=1, high=1_000_000)
    minutes: float | None = option(
        None, "wall-time budget of this invocation, in minutes", low=0, low_open=True
    )
    games_per_generation: int = option(64, "self-play games a generation", low=1, high=1_000_000)
    simulations: int = option(100, "PUCT simulations a move", low=2, high=1_000_000)
    parallel_games: int = option(64, "games played at once per worker", low=1, high=4_096)
    workers: int = option(1, "self-play worker processes", low=1, high=256)
    threads: int | None = option(
        None, "PyTorch threads (default: all cores, 1 per worker)", low=1, high=1_024
    )
    seed: int = option(0, "seed of every random choice")
    network: str = option("auto", "the network: auto, resnet or mlp", choices=_network_kinds)
    channels: int = option(32, "residual tower width")
    blocks: int = option(3, "residual blocks")
    hidden: int = option(64, "value head / MLP width")
    layers: int = option(2, "MLP hidden layers")
    c: float = option(1.25, "PUCT exploration constant", low=0)
    noise_alpha: float = option(1.0, "Dirichlet alpha", low=0, low_open=True)
    noise_fraction: float = option(0.25, "weight of the root noise", low=0, high=1)
    temperature_plies: int = option(8, "plies with moves drawn by visits", low=0, high=100_000)
    resign_threshold: float | None = option(
        None,
        "resign below -T root value (default: never)",
        low=0,
        high=1,
        low_open=True,
        high_open=True,
    )
    resign_playout: float = option(0.1, "share of games played out to check", low=0, high=1)
    max_moves: int | None = option(None, "cut games after this many moves", high=1_000_000)
    buffer: int = option(50_000, "replay buffer: last N positions", low=1, high=10_000_000)
    batch_size: int = option(256, "minibatch size", low=1, high=16_384)
    replay_ratio: float = option(4.0, "samples drawn per new position", low=0, low_open=True)
    optimizer: str = option("adam", "the optimizer", choices=OPTIMIZERS)
    lr: float = option(1e-3, "learning rate", low=0, low_open=True)
    momentum: float = option(0.9, "SGD momentum", low=0, high=1, high_open=True)
    l2: float = option(1e-4, "L2 weight c of c*||theta||^2", low=0)
    eval_games: int = option(10, "games against each opponent (0: none)", low=0, high=10_000)
    eval_every: int = option(1, "evaluate every N generations", low=1, high=1_000_000)
    eval_simulations: int | None = option(
        None,
        "the network's simulations in evaluation (default: --simulations)",
        low=1,
        high=1_000_000,
    )
    eval_openings: int = option(
        2, "random opening plies, drawn for each evaluation game", low=0, high=1_000
    )
    baselines: tuple[tuple[str, str], ...] = DEFAULT_BASELINES
    device: str = option("auto", "where it runs", choices=DEVICES)
    from_dataset: str | None = option(None, "pretrain on a `mctslab selfplay` .npz file")
    pretrain_steps: int | None = option(
        None, "steps on --from-dataset (default: 2 epochs)", low=0, high=10_000_000
    )
    value_mix: float = option(
        0.0, "value target (1-m)*outcome + m*root value, m in [0, 1]", low=0, high=1
    )
    lr_schedule: str = option(
        "constant", "the learning-rate schedule (cosine: to --lr-min)", choices=LR_SCHEDULES
    )
    lr_min: float = option(1e-5, "the cosine schedule's last learning rate", low=0)
    init: str | None = option(
        None, "start from this network's weights (a checkpoint or a shipped name)"
    )

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
        if self.network not in _network_kinds():
            raise InvalidConfigError(
                f"unknown network {self.network!r}; valid: {', '.join(_network_kinds())}"
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
        if self.device not in DEVICES:
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


#: The largest value of each count option (its declared ``high``). Far beyond what a run
#: here needs, and small enough that a typo (``--batch-size 1000000000``) is refused at
#: once rather than failing later in an allocation of gigabytes.
LIMITS: dict[str, int] = {
    name: int(opt.high)
    for name, opt in options_of(TrainConfig).items()
    if opt.kind == "int" and opt.high is not None
}
