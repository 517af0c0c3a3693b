"""Issue 52 in the Optimize tab: its refusals are banners of the same kind as the lab's
("LEAD: the reason.", the status in a detail line, gone at the next action; item 5), and
its curve plots a tour's length, not the negative score the search maximizes (item 14:
the ticks read "-430").

The harness is ``browser_harness.py``'s (Debian's chromium, the real app under uvicorn).
"""

from __future__ import annotations

import json

from browser_harness import (
    browser_fixture,
    page_fixture,
    require_browser,
    server_fixture,
    shot,
)

require_browser()

from playwright.sync_api import Page, Route, expect  # noqa: E402

server_url = server_fixture(())
browser = browser_fixture()
page = page_fixture()


def open_optimize(page: Page) -> None:
    page.goto("/#optimize")
    expect(page.locator("body")).to_have_attribute("data-optimize-ready", "true", timeout=30_000)


def test_a_refused_run_is_a_sentence_with_its_status_and_goes_at_the_next_action(
    page: Page,
) -> None:
    def refuse(route: Route) -> None:
        if route.request.method != "POST":
            route.continue_()
            return
        body = json.dumps({"detail": "tsp: the memory budget is spent"})
        route.fulfill(status=429, content_type="application/json", body=body)

    open_optimize(page)
    page.route("**/api/optimize/runs", refuse)
    page.get_by_test_id("opt-start").click()
    text = page.get_by_test_id("banner-text")
    expect(text).to_have_text("The run was not started: tsp: the memory budget is spent.")
    expect(page.get_by_test_id("banner-detail")).to_contain_text("HTTP 429")
    expect(page.get_by_test_id("banner-detail")).to_contain_text("POST /api/optimize/runs")
    shot(page, "round4-optimize-refused")
    page.get_by_test_id("opt-search").select_option("greedy")  # the next action
    expect(page.get_by_test_id("error")).to_be_hidden()


def test_the_curve_of_a_tour_plots_its_length(page: Page) -> None:
    open_optimize(page)
    page.get_by_test_id("opt-game").select_option("tsp")
    page.get_by_test_id("opt-param-instance").select_option("")
    page.get_by_test_id("opt-param-instance-other").fill("random:12:3")
    page.get_by_test_id("opt-search").select_option("random")
    page.get_by_test_id("opt-time").fill("1")
    page.get_by_test_id("opt-start").click()
    expect(page.get_by_test_id("opt-status")).to_have_attribute(
        "data-status", "done", timeout=60_000
    )
    chart = page.get_by_test_id("opt-curve-chart")
    ticks = chart.locator("text.tick-label.y").all_text_contents()
    assert len(ticks) == 3 and all(not t.startswith("-") for t in ticks), ticks
    best = page.get_by_test_id("opt-best").inner_text()  # "312 (length)"
    assert float(best.split()[0]) >= min(float(t.replace(",", "")) for t in ticks), (best, ticks)
    expect(chart).to_contain_text("best tour length (lower is better)")
