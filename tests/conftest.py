"""Shared test helpers: optional extras that must not skip silently under ``make test``."""

from __future__ import annotations

import importlib
import os
import shutil
from types import ModuleType

import pytest

# `make test` installs every extra and sets this variable, so that a missing extra
# fails the run instead of skipping the tests that need it (tests/web/test_web_api.py
# reads it too). Without it, as in a plain `pytest` on a partial install, they skip.
REQUIRE_EXTRAS = "MCTSLAB_REQUIRE_EXTRAS"


def extras_required() -> bool:
    """Whether a missing optional dependency is an error (``MCTSLAB_REQUIRE_EXTRAS`` set)."""
    return bool(os.environ.get(REQUIRE_EXTRAS))  # as tests/web/test_web_api.py reads it


def require_extra(module_name: str, extra: str) -> ModuleType:
    """Import ``module_name``, which the ``extra`` extra installs.

    With ``MCTSLAB_REQUIRE_EXTRAS`` set a missing module raises ``ImportError`` (the
    test module errors); otherwise the calling test or module is skipped with the reason.
    """
    if extras_required():
        try:
            return importlib.import_module(module_name)
        except ImportError as exc:
            raise ImportError(
                f"{module_name} (the {extra!r} extra) is required: {REQUIRE_EXTRAS} is set ({exc})"
            ) from exc
    return pytest.importorskip(
        module_name, reason=f"needs {module_name}: pip install 'mctslab[{extra}]'"
    )


def require_gnugo() -> None:
    """Skip the calling test without Debian's ``gnugo`` (``make test`` installs it), or
    fail under ``MCTSLAB_REQUIRE_EXTRAS``."""
    if shutil.which("gnugo") or os.access("/usr/games/gnugo", os.X_OK):
        return
    if extras_required():
        pytest.fail("gnugo is required (make test installs Debian's gnugo)")
    pytest.skip("needs GNU Go: apt-get install gnugo")
