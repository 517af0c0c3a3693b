"""RAVE and progressive bias in the web lab's page, in a real browser: the settings
panel's inputs (UCT only), the AMAF statistics and RAVE score in the tree's boxes and
the step panel's beta and AMAF updates.

The harness is test_web_browser.py's (copied, not imported: test modules are not a
package here): Debian's chromium with the same flags, the real app under uvicorn on a
free loopback port, skipped without chromium, Playwright or the web extra unless
``MCTSLAB_REQUIRE_BROWSER=1``. A screenshot goes to ``build/screenshots/rave-step.png``.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

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


def _missing() -> str | None:
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


_WHY = _missing()
if _WHY is not None:
    if os.environ.get("MCTSLAB_REQUIRE_BROWSER") == "1":
        pytest.fail(f"browser tests required (MCTSLAB_REQUIRE_BROWSER=1): {_WHY}", pytrace=False)
    pytest.skip(_WHY, allow_module_level=True)

import uvicorn  # noqa: E402
from playwright.sync_api import Browser, Page, expect, sync_playwright  # noqa: E402

import mctslab  # noqa: E402
from mctslab.web.app import create_app  # noqa: E402

# A small budget: the tests check the page, not the engine's strength.
BUDGET = "300"
TIMEOUT_MS = 15_000  # generous: the suite runs beside these tests on 2 cores
expect.set_options(timeout=TIMEOUT_MS)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    """The real app under uvicorn, in a thread, on a free loopback port."""
    # Load (or compile, on a cold numba cache) the kernels before any page's clock starts.
    for name in ("tic_tac_toe",):
        mctslab.search(
            mctslab.make(name).new_initial_state(),
            mctslab.SearchConfig(iterations=20),
            engine="reference",
        )
    port = _free_port()
    config = uvicorn.Config(create_app(), host="127.0.0.1", port=port, log_level="warning")
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


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser: Browser, server_url: str) -> Iterator[Page]:
    context = browser.new_context(base_url=server_url, viewport={"width": 1500, "height": 1100})
    context.set_default_timeout(TIMEOUT_MS)
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    yield pg
    if not pg.is_closed():  # a failed request shows in the error bar: there must be none
        expect(pg.get_by_test_id("error")).to_be_hidden()
    context.close()
    assert not errors, f"uncaught errors in the page: {errors}"


def shot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def wait_idle(page: Page) -> None:
    page.wait_for_function("document.body.dataset.busy === 'false'")


def test_rave_k_in_the_panel_shows_amaf_statistics_in_the_tree_and_the_steps(page: Page) -> None:
    page.goto("/")
    wait_idle(page)
    page.get_by_test_id("game-select").select_option("tic_tac_toe")
    wait_idle(page)
    page.get_by_test_id("human-select").select_option("none")
    page.get_by_test_id("budget").fill(BUDGET)
    # RAVE and progressive bias are UCT's options: hidden under PUCT.
    options = page.get_by_test_id("uct-options")
    expect(options).to_be_visible()
    page.get_by_test_id("selection-select").select_option("puct")
    expect(options).to_be_hidden()
    expect(page.get_by_test_id("rave-input")).to_be_disabled()
    page.get_by_test_id("selection-select").select_option("uct")
    expect(options).to_be_visible()
    page.get_by_test_id("rave-input").fill("300")
    page.get_by_test_id("progressive-bias-input").fill("1")
    # RAVE adds a node's children at once: the expansion selector does not apply.
    expect(page.get_by_test_id("expansion-select")).to_be_disabled()
    page.get_by_test_id("new-game").click()
    wait_idle(page)
    # The first step adds the root's nine children at once.
    page.get_by_test_id("step").click()
    expect(page.get_by_test_id("node-count")).to_have_text("10")
    for steps in range(2, 6):
        page.get_by_test_id("step").click()
        expect(page.get_by_test_id("root-visits")).to_have_text(str(steps))
    expect(page.get_by_test_id("phase-backpropagation")).to_have_class(re.compile(r"\bdone\b"))
    # A node's box shows its AMAF statistics and its RAVE score in place of UCT.
    boxes = page.locator("[data-testid=tree] .node")
    expect(boxes.filter(has_text="AMAF N~").first).to_be_visible()
    root_child = "[data-testid=tree] [data-testid^=amaf-]:not([data-testid*='.'])"
    expect(page.locator(root_child).first).to_have_text(re.compile(r"^AMAF N~ \d+\s+Q~ "))
    score = "[data-testid=tree] [data-testid^=score-]:not([data-testid*='.'])"
    # With progressive bias, w·H beside the score (then the tooltip, with the formula).
    expect(page.locator(score).first).to_have_text(re.compile(r"^RAVE (∞|[0-9.]+) w·H [01]\.\d\d"))
    assert boxes.filter(has_text="UCT ").count() == 0
    # The step panel: beta at each level, the RAVE score column, the AMAF updates.
    expect(page.get_by_test_id("selection-beta").first).to_contain_text("β = 0.")
    expect(page.get_by_test_id("phase-selection").locator("th", has_text="RAVE")).to_have_count(
        page.get_by_test_id("selection-beta").count()
    )
    expect(page.get_by_test_id("amaf-updates")).to_contain_text("AMAF update")
    expect(
        page.get_by_test_id("phase-selection").locator("th", has_text="w·H").first
    ).to_be_visible()
    expect(page.get_by_test_id("backprop-table")).to_contain_text("children")
    shot(page, "rave-step")


def test_without_rave_the_boxes_show_uct(page: Page) -> None:
    page.goto("/")
    wait_idle(page)
    page.get_by_test_id("human-select").select_option("none")
    page.get_by_test_id("new-game").click()
    wait_idle(page)
    for steps in range(1, 4):
        page.get_by_test_id("step").click()
        expect(page.get_by_test_id("root-visits")).to_have_text(str(steps))
    boxes = page.locator("[data-testid=tree] .node")
    expect(boxes.filter(has_text="UCT ").first).to_be_visible()
    assert boxes.filter(has_text="AMAF").count() == 0
    expect(page.get_by_test_id("amaf-updates")).to_have_count(0)
