"""What the benchmark scripts share: the machine and the versions they record beside
their numbers, and running ``mctslab`` commands.

Imported by the benchmark scripts of this folder (run as ``python benchmarks/<name>.py``,
so this folder is on ``sys.path``).
"""

from __future__ import annotations

import os
import platform
import shlex
import subprocess
import sys
import time
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

__all__ = ["machine", "run_mctslab", "save_part", "versions"]


def machine() -> dict[str, Any]:
    """The processor, its model name (``/proc/cpuinfo``), the core count and the platform."""
    model = ""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        names = [ln for ln in cpuinfo.read_text().splitlines() if ln.startswith("model name")]
        model = names[0].split(":", 1)[1].strip() if names else ""
    return {
        "processor": platform.processor() or platform.machine(),
        "cpu_model": model,
        "cpu_count": os.cpu_count(),
        "platform": platform.platform(),
    }


def versions(*distributions: str) -> dict[str, str]:
    """Python's version and each installed distribution's (``"not installed"`` if absent)."""
    out = {"python": platform.python_version()}
    for dist in distributions:
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = "not installed"
    return out


def save_part(out: Path, part: str, data: dict[str, Any], distributions: Sequence[str]) -> None:
    """Record ``data`` as ``part`` of the JSON file ``out`` (the other parts kept), with the
    date, the machine and the versions of ``distributions``. The file is replaced whole
    (written beside it, then renamed), so that a run killed while writing, or two parts
    saved at once by two runs, never leave it half written."""
    import json

    out.parent.mkdir(parents=True, exist_ok=True)
    everything = json.loads(out.read_text()) if out.exists() else {}
    everything[part] = {
        **data,
        "date": time.strftime("%Y-%m-%d"),
        "machine": machine(),
        "versions": versions(*distributions),
    }
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(everything, indent=1, sort_keys=True) + "\n")
    tmp.replace(out)


def run_mctslab(
    argv: Sequence[str], db: Path, shown: Sequence[str] | None = None
) -> tuple[subprocess.CompletedProcess[str], float]:
    """``mctslab ARGV --db DB`` in this interpreter, its output captured: (the finished
    process, wall seconds). Prints the command first (``shown`` in place of ``argv``)."""
    print("running:", shlex.join(["mctslab", *(argv if shown is None else shown)]), flush=True)
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "mctslab", *argv, "--db", str(db)], capture_output=True, text=True
    )
    return proc, time.perf_counter() - start
