"""RAVE and progressive bias in the web lab's page, in a real browser: the settings
panel's inputs (UCT only), the AMAF statistics and RAVE score in the tree's boxes and
the step panel's beta and AMAF updates.

The harness is ``browser_harness.py``'s: Debian's chromium with DEVELOPERS.md's flags,
the real app under uvicorn on a free loopback port, skipped without chromium, Playwright or the web extra unless
``MCTSLAB_REQUIRE_BROWSER=1``. A screenshot goes to ``build/screenshots/rave-step.png``.
"""

from __future__ import annotations

import re

from browser_harness import (
    browser_fixture,
    page_fixture,
    require_browser,
    server_fixture,
    shot,
    wait_idle,
)

require_browser()

from playwright.sync_api import Page, expect  # noqa: E402

server_url = server_fixture(("tic_tac_toe",))
browser = browser_fixture()
page = page_fixture()

# A small budget: the tests check the page, not the engine's strength.
BUDGET = "300"


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
