"""A run's report: ``metrics.csv`` and ``training.png``, rewritten after every commit
from ``state.json``'s history, so that both always show the committed generations and
nothing else (a crashed generation leaves no row).
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path
from typing import Any

from mctslab.train.config import TrainConfig
from mctslab.train.run_directory import atomic_write

__all__ = ["write_metrics"]

#: metrics.csv's columns: a record's flat fields (its scores and ratings are nested; a
#: ``score_<name>`` column for each evaluation opponent follows these).
_COLUMNS = (
    "generation",
    "wall_seconds",
    "compile_seconds",
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
    atomic_write(out / "metrics.csv", buf.getvalue().encode())
    atomic_write(out / "training.png", _plot(history, config))


def _cell(v: Any) -> str:
    """A CSV cell: empty for a missing value, six significant digits for a float."""
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v)


def _plot(history: list[dict[str, Any]], config: TrainConfig) -> bytes:
    """training.png: the losses by generation, and each evaluated generation's Elo (with
    its 95% interval) as the last record rates it (pooled: every evaluation game to date,
    where the table prints each generation's Elo as rated when it was evaluated), the
    baselines as lines named right of the axes."""
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
    # Below the axes: inside, the legend covered the value loss's curve.
    ax1.legend(loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=3, frameon=False)
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
        lines = sorted(
            (float(last[name]["elo"]), name)
            for name, _ in config.baselines
            if last.get(name, {}).get("elo") is not None
        )
        for elo, _ in lines:
            ax2.axhline(elo, linestyle="--", linewidth=0.8, color="gray")
        # The baselines' names right of the axes, apart where their lines are close (two
        # baselines of equal strength), never over the network's error bars.
        low, high = ax2.get_ylim()
        gap, placed = (high - low) / 18, -math.inf
        for elo, name in lines:
            placed = max(elo, placed + gap)
            ax2.annotate(
                name, xy=(1.01, placed), xycoords=("axes fraction", "data"), fontsize=8,
                color="gray", va="center", annotation_clip=False,
            )  # fmt: skip
    ax2.set_xlabel("generation")
    ax2.set_ylabel(f"Elo ({config.baselines[0][0] if config.baselines else 'gen-0000'} = 0)")
    # Pooled: every generation rated from all the evaluation games to date; the training
    # table prints each generation's Elo as rated when it was evaluated (the games then).
    ax2.set_title("Elo by generation, pooled: all evaluation games to date", fontsize=10)
    fig.tight_layout()
    blob = io.BytesIO()
    fig.savefig(blob, format="png", dpi=90, bbox_inches="tight")
    plt.close(fig)
    return blob.getvalue()
