"""AlphaZero training (the ``nn`` extra): self-play with the batched compiled PUCT, a
replay buffer with the game's symmetries, AlphaZero's loss, generations with
checkpoints, evaluation through the arena, crash-safe resumption.

- :mod:`~mctslab.train.config`: :class:`TrainConfig`, every option of a run;
- :mod:`~mctslab.train.selfplay`: many games at once, one network call a search round;
- :mod:`~mctslab.train.buffer`: the replay buffer, saved atomically;
- :mod:`~mctslab.train.symmetry`: board symmetries as augmentation;
- :mod:`~mctslab.train.learner`: the loss and optimizer steps;
- :mod:`~mctslab.train.run_directory`: the run's files, confined to it, their commit,
  and what a resumed run keeps;
- :mod:`~mctslab.train.evaluation`: evaluation games through the arena, scores, Elo;
- :mod:`~mctslab.train.report`: ``metrics.csv`` and ``training.png``;
- :mod:`~mctslab.train.loop`: :func:`train`, the generations (self-play, learning,
  checkpoint, evaluation, commit);
- :mod:`~mctslab.train.export`: a network with its model card.

May import: :mod:`mctslab.arena`, :mod:`mctslab.analysis` and the layers below them.
"""

from typing import TYPE_CHECKING, Any

from mctslab.train.config import DEFAULT_BASELINES, TrainConfig

if TYPE_CHECKING:
    from mctslab.train.loop import TrainError, TrainResult, load_run, train

__all__ = ["DEFAULT_BASELINES", "TrainConfig", "TrainError", "TrainResult", "load_run", "train"]

#: The names of :mod:`~mctslab.train.loop`, imported (with PyTorch) when first asked for:
#: :class:`TrainConfig` is read without PyTorch (``mctslab train``'s flags are made from
#: its options by every command line).
_LOOP = ("TrainError", "TrainResult", "load_run", "train")


def __getattr__(name: str) -> Any:
    if name in _LOOP:
        from mctslab.train import loop

        return getattr(loop, name)
    raise AttributeError(f"module 'mctslab.train' has no attribute {name!r}")
