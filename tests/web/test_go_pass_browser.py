"""Go in the web lab, in a real browser: after the human's pass the AI passes at once
when that pass ends the game won for it (issue 52, item 3), instead of searching on and
filling its own territory. The screenshot ``build/screenshots/go-passed-out.png`` is the
game passed out.

The harness is ``browser_harness.py``'s (see tests/web/test_go_browser.py).
"""

from __future__ import annotations

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

server_url = server_fixture(("tic_tac_toe", "go"))
browser = browser_fixture()
page = page_fixture()


def test_the_ai_passes_out_a_game_it_wins_after_the_humans_pass(page: Page) -> None:
    """9x9, Black (the human) plays e5, White answers, Black passes: with one stone each
    every empty point reaches both colours, so White's pass ends the game W+7.5 on the
    count. The AI passes without a search (0 iterations), and the page says who won."""
    page.goto("/")
    wait_idle(page)
    page.get_by_test_id("game-select").select_option("go")
    wait_idle(page)
    page.get_by_test_id("human-select").select_option("0")
    page.get_by_test_id("budget").fill("200")
    page.get_by_test_id("new-game").click()
    wait_idle(page)
    page.get_by_test_id(f"point-{4 * 9 + 4}").click()  # e5
    wait_idle(page)
    expect(page.get_by_test_id("board").locator(".go-stone.white")).to_have_count(1)
    page.get_by_test_id("pass").click()
    wait_idle(page)
    moves = page.get_by_test_id("history").inner_text().removeprefix("Moves: ").split(", ")
    assert moves[2:] == ["B PASS", "W PASS"], moves
    expect(page.get_by_test_id("status")).to_have_text("Game over: the AI wins (White).")
    expect(page.get_by_test_id("go-score")).to_contain_text("W+7.5")
    expect(page.get_by_test_id("ai-move-label")).to_have_text("W PASS")
    expect(page.get_by_test_id("final-rule")).to_contain_text("winning pass")
    expect(page.get_by_test_id("ai-summary")).to_contain_text(" 0 iterations")
    expect(page.get_by_test_id("pass")).to_be_disabled()
    assert shot(page, "go-passed-out").stat().st_size > 0
