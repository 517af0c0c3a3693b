"""A run's report: ``metrics.csv`` and ``training.png``, rewritten after every commit
from ``state.json``'s history, so that both always show the committed generations and
nothing else (a crashed generation leaves no row).
"""

from __future__ import annotations

import csv
import io
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
    its 95% interval) as the last record rates it, the baselines as lines."""
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
