"""The web lab's Optimize tab in a real browser (mctslab.web.static.optimize): switch to
it, start a travelling-salesman run and watch its tour and curve drawn, then step SP-MCTS
and read its trace.

The harness is ``browser_harness.py``'s: Debian's chromium with DEVELOPERS.md's flags,
the real app under uvicorn on a free loopback port, skipped without chromium, Playwright
or the web extra unless ``MCTSLAB_REQUIRE_BROWSER=1``. A screenshot goes to
``build/screenshots/optimize-tsp.png``.
"""

from __future__ import annotations

import re

from browser_harness import (
    browser_fixture,
    page_fixture,
    require_browser,
    server_fixture,
    shot,
)

require_browser()

from playwright.sync_api import Page, expect  # noqa: E402

server_url = server_fixture(())
browser = browser_fixture()
page = page_fixture()


def test_optimize_a_tour_and_step_sp_mcts(page: Page) -> None:
    page.goto("/")
    page.get_by_test_id("mode-optimize").click()
    expect(page.get_by_test_id("mode-optimize")).to_have_attribute("aria-selected", "true")
    expect(page.locator("#lab-main")).to_be_hidden()
    page.wait_for_function("document.body.dataset.optimizeReady === 'true'")
    page.get_by_test_id("opt-game").select_option("tsp")
    page.get_by_test_id("opt-param-instance").select_option("")
    page.get_by_test_id("opt-param-instance-other").fill("random:12:3")
    # A search in Python (no compilation to wait for), for 1.5 s.
    page.get_by_test_id("opt-search").select_option("random")
    page.get_by_test_id("opt-time").fill("1.5")
    page.get_by_test_id("opt-start").click()
    expect(page.get_by_test_id("opt-stop")).to_be_enabled()
    # The tour: 12 cities, closed (13 points); the curve of the best against time.
    line = page.get_by_test_id("opt-tour-line")
    expect(line).to_have_attribute("data-points", "13")
    expect(page.locator("[data-testid=opt-tour] circle")).to_have_count(12)
    expect(page.get_by_test_id("opt-curve-line")).to_be_visible()
    expect(page.get_by_test_id("opt-status")).to_have_attribute(
        "data-status", "done", timeout=30_000
    )
    expect(page.get_by_test_id("opt-best")).to_have_text(re.compile(r"^\d+ \(length\)$"))
    points = line.get_attribute("points") or ""
    assert len(points.split()) == 13
    # SP-MCTS one iteration at a time: the first expands the root, later ones select.
    page.get_by_test_id("opt-step").click()
    expect(page.get_by_test_id("opt-trace-head")).to_contain_text("Iteration 1 ")
    expect(page.get_by_test_id("opt-trace-expansion")).to_contain_text("untried")
    # The root's 11 moves are each tried once first; then the selection shows.
    page.get_by_test_id("opt-step-10").click()
    expect(page.get_by_test_id("opt-trace-head")).to_contain_text("Iteration 11 ")
    page.get_by_test_id("opt-step-10").click()
    expect(page.get_by_test_id("opt-trace-head")).to_contain_text("Iteration 21 ")
    expect(page.get_by_test_id("opt-trace-selection").first).to_be_visible()
    expect(page.locator("[data-testid=opt-trace-selection] tr.chosen").first).to_be_visible()
    expect(page.get_by_test_id("opt-trace-playout")).to_contain_text("score")
    shot(page, "optimize-tsp")
    # Back to the two-player lab.
    page.get_by_test_id("mode-play").click()
    expect(page.locator("#lab-main")).to_be_visible()
