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
    # Random playouts for 1.5 s (compiled: the first run in the server's process may
    # compile for a while first on a loaded machine).
    page.get_by_test_id("opt-search").select_option("random")
    page.get_by_test_id("opt-time").fill("1.5")
    page.get_by_test_id("opt-start").click()
    expect(page.get_by_test_id("opt-stop")).to_be_enabled()
    # The tour: 12 cities, closed (13 points); the curve of the best against time.
    line = page.get_by_test_id("opt-tour-line")
    expect(line).to_have_attribute("data-points", "13", timeout=180_000)
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


def open_tab(page: Page) -> None:
    page.goto("/?mode=optimize")
    page.wait_for_function("document.body.dataset.optimizeReady === 'true'")


def test_the_tab_starts_from_the_documented_search_and_disables_exact(page: Page) -> None:
    """The default was simulated annealing, and plain NRPA ends 44-52% above eil51's
    optimum: the tab now starts from the search behind the documented figures, says so,
    and offers Held-Karp only for instances it solves."""
    open_tab(page)
    expect(page.get_by_test_id("opt-search")).to_have_value("nrpa")
    for name, value in (("level", "2"), ("bias", "4"), ("polish", "1")):
        expect(page.get_by_test_id(f"opt-option-{name}")).to_have_value(value)
    expect(page.get_by_test_id("opt-spec")).to_have_text("spec: nrpa:level=2,bias=4,polish=1")
    expect(page.get_by_test_id("opt-suggested")).to_contain_text("in every run")
    exact = page.locator("#opt-search option[value=exact]")
    expect(exact).to_be_disabled()
    expect(exact).to_have_text("exact (up to 16 cities; this instance has 51)")
    page.get_by_test_id("opt-param-instance").select_option("")
    other = page.get_by_test_id("opt-param-instance-other")
    other.fill("random:12:3")
    other.dispatch_event("change")
    expect(exact).to_be_enabled()
    expect(exact).to_have_text("exact")
    other.fill("random:40:3")
    other.dispatch_event("change")
    expect(exact).to_be_disabled()
    # SameGame starts from its own suggestion (no bias or polish there).
    page.get_by_test_id("opt-game").select_option("samegame")
    expect(page.get_by_test_id("opt-spec")).to_have_text("spec: nrpa:level=2")


def test_switching_problems_clears_the_run_and_titles_read_as_words(page: Page) -> None:
    open_tab(page)
    page.get_by_test_id("opt-param-instance").select_option("")
    page.get_by_test_id("opt-param-instance-other").fill("random:12:3")
    page.get_by_test_id("opt-search").select_option("greedy")  # in Python: nothing compiles
    page.get_by_test_id("opt-time").fill("0.5")
    page.get_by_test_id("opt-start").click()
    status = page.get_by_test_id("opt-status")
    expect(status).to_have_attribute("data-status", "done", timeout=30_000)
    expect(status).to_contain_text("greedy on Travelling salesman (instance random:12:3): done")
    expect(status).to_contain_text(re.compile(r"searched \d+\.\d s of 0\.5 s"))
    expect(status).not_to_contain_text("first time only")
    expect(page.get_by_test_id("opt-tour")).to_be_visible()
    expect(page.get_by_test_id("opt-curve-line")).to_have_count(1)
    # Another problem: nothing of the tour, its curve or its figures stays.
    page.get_by_test_id("opt-game").select_option("samegame")
    expect(page.get_by_test_id("opt-tour")).to_have_count(0)
    expect(page.get_by_test_id("opt-curve-line")).to_have_count(0)
    expect(page.get_by_test_id("opt-best")).to_have_text("–")
    expect(status).to_have_text("Choose a problem and a search, then Start.")
    for name, value in (("rows", "6"), ("columns", "6")):
        page.get_by_test_id(f"opt-param-{name}").fill(value)
    page.get_by_test_id("opt-search").select_option("greedy")
    page.get_by_test_id("opt-time").fill("1")
    page.get_by_test_id("opt-start").click()
    expect(status).to_have_attribute("data-status", "done", timeout=30_000)
    expect(status).to_contain_text("greedy on SameGame (seed 0, rows 6, columns 6, colors 5): done")
    expect(page.get_by_test_id("opt-board-svg")).to_be_visible()
    expect(page.get_by_test_id("opt-playouts")).to_be_hidden()  # greedy counts nothing
    shot(page, "optimize-switch")
    # A parameter's change is a new problem too.
    page.get_by_test_id("opt-param-seed").fill("4")
    page.get_by_test_id("opt-param-seed").dispatch_event("change")
    expect(page.get_by_test_id("opt-board-svg")).to_have_count(0)
