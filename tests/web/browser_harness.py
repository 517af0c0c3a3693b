"""The browser tests' harness, shared by ``tests/web/test_*_browser.py``.

Playwright for Python drives Debian's ``chromium`` (never a browser that Playwright
downloads; the flags are DEVELOPERS.md's) against the real web lab, started under
uvicorn in a thread on a free loopback port. A browser test module calls
:func:`require_browser` before it imports Playwright: without chromium, Playwright or
the ``web`` extra the module is skipped, unless ``MCTSLAB_REQUIRE_BROWSER=1`` (as
``make test`` sets it, after installing chromium): then it fails, so that a missing
browser cannot pass for a green run. It then binds the fixtures it needs by name::

    server_url = server_fixture(("tic_tac_toe", "go"))
    browser = browser_fixture()
    page = page_fixture()

Everything that needs Playwright, uvicorn or the web lab is imported inside the
functions, so that importing this module never fails.
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
SCREENSHOTS = Path(__file__).resolve().parents[2] / "build" / "screenshots"
#: Generous: the rest of the suite runs beside these tests on 2 cores.
TIMEOUT_MS = 15_000


def missing() -> str | None:
    """Why the browser tests cannot run here, or ``None``."""
    if not Path(CHROMIUM).exists():
        return "Debian's chromium is not installed (apt-get install chromium; `make test` does)"
    for module, what in (
        ("playwright", "Playwright (the dev extra)"),
        ("fastapi", "FastAPI (the web extra)"),
        ("uvicorn", "uvicorn (the web extra)"),
    ):
        try:
            __import__(module)
        except ImportError:
            return f"{what} is not installed"
    return None


def require_browser() -> None:
    """Skip the calling test module where the browser tests cannot run (fail instead
    under ``MCTSLAB_REQUIRE_BROWSER=1``); else set Playwright's ``expect`` timeout."""
    why = missing()
    if why is not None:
        if os.environ.get("MCTSLAB_REQUIRE_BROWSER") == "1":
            pytest.fail(f"browser tests required (MCTSLAB_REQUIRE_BROWSER=1): {why}", pytrace=False)
        pytest.skip(why, allow_module_level=True)
    from playwright.sync_api import expect

    expect.set_options(timeout=TIMEOUT_MS)


def free_port() -> int:
    """A loopback port free at the time of the call."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def server_fixture(preload: Sequence[str]) -> Callable[..., Iterator[str]]:
    """A module-scoped fixture ``server_url``: the real app under uvicorn, in a thread,
    on a free loopback port. The games of ``preload`` are searched once first, so that
    their compiled kernels are loaded (or compiled, on a cold numba cache: seconds)
    before any page's clock starts."""

    @pytest.fixture(scope="module")
    def server_url() -> Iterator[str]:
        import uvicorn

        import mctslab
        from mctslab.web.app import create_app
        from mctslab.web.settings import Settings

        for name in preload:
            mctslab.search(
                mctslab.make(name).new_initial_state(),
                mctslab.SearchConfig(iterations=20),
                engine="reference",
            )
        port = free_port()
        # One server for a whole module of page tests, all from 127.0.0.1: the per-client
        # session cap (tests/web/test_web_limits.py tests it) would refuse the 21st page.
        app = create_app(Settings(max_client_sessions=Settings().max_sessions))
        config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
        server = uvicorn.Server(config)
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        deadline = time.monotonic() + 30
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the web lab's server did not start")
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
        server.should_exit = True
        thread.join(timeout=10)

    return server_url  # type: ignore[no-any-return]


def browser_fixture() -> Callable[..., Iterator[Browser]]:
    """A module-scoped fixture ``browser``: Debian's chromium with the flags above."""

    @pytest.fixture(scope="module")
    def browser() -> Iterator[Browser]:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            yield b
            b.close()

    return browser  # type: ignore[no-any-return]


def page_fixture(**context_options: Any) -> Callable[..., Iterator[Page]]:
    """A fixture ``page``: a fresh browser context on the server (1500 x 1100, plus
    ``context_options``), checked when the test ends: no request error shown in the
    page's error bar, no uncaught error in its scripts."""

    @pytest.fixture
    def page(browser: Browser, server_url: str) -> Iterator[Page]:
        from playwright.sync_api import expect

        context = browser.new_context(
            base_url=server_url, viewport={"width": 1500, "height": 1100}, **context_options
        )
        context.set_default_timeout(TIMEOUT_MS)
        pg = context.new_page()
        errors: list[str] = []
        pg.on("pageerror", lambda exc: errors.append(str(exc)))
        yield pg
        if not pg.is_closed():  # a failed request shows in the error bar: there must be none
            expect(pg.get_by_test_id("error")).to_be_hidden()
        context.close()
        assert not errors, f"uncaught errors in the page: {errors}"

    return page  # type: ignore[no-any-return]


def shot(page: Page, name: str) -> Path:
    """A full-page screenshot to ``build/screenshots/NAME.png``; its path."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def wait_idle(page: Page) -> None:
    """Wait until the page has no request in flight (``body[data-busy=false]``)."""
    page.wait_for_function("document.body.dataset.busy === 'false'")
