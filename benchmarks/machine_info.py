"""What every benchmark records beside its numbers: the machine and the versions.

Imported by the benchmark scripts of this folder (run as ``python benchmarks/<name>.py``,
so this folder is on ``sys.path``).
"""

from __future__ import annotations

import os
import platform
from importlib import metadata
from pathlib import Path
from typing import Any

__all__ = ["machine", "versions"]


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
