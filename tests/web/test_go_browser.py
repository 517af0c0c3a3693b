"""Go's board in the web lab, in a real browser: play a point and see the AI answer,
pass, finish a game by two passes and read its territory and score, save it as SGF,
replay a playout on the small board.

The harness is ``browser_harness.py``'s: Debian's chromium with DEVELOPERS.md's flags,
the real app under uvicorn on a free loopback port, skipped without chromium, Playwright or the web extra unless
``MCTSLAB_REQUIRE_BROWSER=1``. A finished game's screenshot goes to
``build/screenshots/go-finished.png``.
"""

from __future__ import annotations

import re
from pathlib import Path

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

from mctslab.games.go.sgf import read_sgf  # noqa: E402

server_url = server_fixture(("tic_tac_toe", "go"))
browser = browser_fixture()
page = page_fixture()

# A small budget: the AI answers at once; the tests check the page, not its play.
BUDGET = "30"

COLUMNS = "abcdefghjklmnopqrst"


def at(col: str, row: int, n: int = 9) -> int:
    """The action (and point index) of a point named as on the board: ``at("e", 5)``."""
    return (row - 1) * n + COLUMNS.index(col)


def new_go_game(page: Page, human: str, **params: str) -> None:
    """Open the page, choose Go, its parameters, who plays and a small budget, New game."""
    page.goto("/")
    expect(page.get_by_test_id("game-select").locator("option[value='go']")).to_have_count(1)
    wait_idle(page)
    page.get_by_test_id("game-select").select_option("go")  # starts a game of it
    wait_idle(page)
    page.get_by_test_id("human-select").select_option(human)
    page.get_by_test_id("budget").fill(BUDGET)
    for name, value in params.items():
        page.get_by_test_id(f"param-{name}").fill(value)
    page.get_by_test_id("new-game").click()
    wait_idle(page)
    expect(page.locator("[data-testid=board] svg.board.go")).to_have_count(1)


def stones(page: Page, colour: str) -> int:
    return page.locator(f"[data-testid=board] .go-stone.{colour}").count()


def test_play_a_point_see_the_ai_answer_and_pass(page: Page) -> None:
    new_go_game(page, human="0")
    status = page.get_by_test_id("status")
    expect(status).to_contain_text("Your turn (Black)")
    board = page.get_by_test_id("board")
    # 81 empty points to click, each named as Go names its moves (hover: the title).
    expect(board.locator(".go-point.playable")).to_have_count(81)
    expect(page.get_by_test_id(f"point-{at('d', 4)}").locator("title")).to_have_text("B d4")
    expect(page.get_by_test_id("go-captures")).to_have_text("captures: black 0, white 0")
    expect(page.get_by_test_id("pass")).to_be_enabled()

    e5 = at("e", 5)
    page.get_by_test_id(f"point-{e5}").click()
    expect(page.get_by_test_id(f"go-stone-{e5}")).to_have_class(re.compile(r"\bblack\b"))
    # The AI (White) answers with a stone (30 iterations from this seed do not pass),
    # marked as the last move; e5 is no longer clickable.
    expect(board.locator(".go-stone.white")).to_have_count(1)
    wait_idle(page)
    expect(status).to_contain_text("Your turn (Black)")
    expect(page.get_by_test_id("ai-report")).to_be_visible()
    expect(page.get_by_test_id("go-last")).to_have_class(re.compile(r"\bon-white\b"))
    expect(board.locator(".go-point.playable")).to_have_count(79)
    expect(page.get_by_test_id(f"point-{e5}")).to_have_count(0)

    # Pass: no stone is placed, the move list names it, and the AI moves again.
    page.get_by_test_id("pass").click()
    expect(page.get_by_test_id("history")).to_contain_text("B PASS")
    wait_idle(page)
    assert stones(page, "black") == 1
    moves = page.get_by_test_id("history").inner_text().removeprefix("Moves: ").split(", ")
    assert moves[:3] == ["B e5", moves[1], "B PASS"] and moves[1].startswith("W ")
    assert len(moves) == 4 and moves[3].startswith("W ")  # the AI's answer to the pass
    shot(page, "go-play")


def test_two_passes_end_the_game_with_territory_and_score(page: Page) -> None:
    """Both sides played here: Black walls off columns a-d, White f-j; column e reaches
    both (nobody's); two passes end the game, counted by area: 36 - 36 - 7.5, W+7.5."""
    new_go_game(page, human="none")
    status = page.get_by_test_id("status")
    for row in range(1, 10):
        for col in ("d", "f"):
            page.get_by_test_id(f"point-{at(col, row)}").click()
            wait_idle(page)
    assert (stones(page, "black"), stones(page, "white")) == (9, 9)
    expect(page.locator("[data-testid=board] .go-territory")).to_have_count(0)
    page.get_by_test_id("pass").click()
    wait_idle(page)
    expect(page.get_by_test_id("go-passed")).to_have_text("Black passed")
    expect(status).to_contain_text("White to move")
    page.get_by_test_id("pass").click()
    wait_idle(page)

    expect(status).to_have_text("Game over: White wins.")
    board = page.get_by_test_id("board")
    # Area owners as small squares on the empty points: 27 each side of the walls.
    expect(board.locator(".go-territory.black")).to_have_count(27)
    expect(board.locator(".go-territory.white")).to_have_count(27)
    expect(page.get_by_test_id("go-score")).to_have_text(
        "W+7.5 (area: black 36, white 36 + komi 7.5)"
    )
    # Nothing to click any more.
    expect(board.locator(".go-point")).to_have_count(0)
    expect(page.get_by_test_id("pass")).to_be_disabled()
    assert shot(page, "go-finished").stat().st_size > 0

    # The game saved as SGF: the 20 moves (18 stones, two passes) and the result.
    with page.expect_download() as download:
        page.get_by_test_id("save-sgf").click()
    assert download.value.suggested_filename == "mctslab-go.sgf"
    record = read_sgf(Path(download.value.path()).read_text())
    assert len(record.actions) == 20 and record.actions[-2:] == (81, 81)
    assert record.result == "W+7.5"


def test_the_sgf_link_is_there_for_go_only(page: Page) -> None:
    page.goto("/")
    wait_idle(page)
    page.get_by_test_id("game-select").select_option("tic_tac_toe")
    wait_idle(page)
    expect(page.get_by_test_id("save-sgf")).to_be_hidden()
    new_go_game(page, human="0")
    expect(page.get_by_test_id("save-sgf")).to_be_visible()
    expect(page.get_by_test_id("save-sgf")).to_have_attribute(
        "href", re.compile(r"/api/sessions/[^/]+/sgf$")
    )


def test_a_step_replays_its_playout_on_a_small_go_board(page: Page) -> None:
    new_go_game(page, human="none")
    page.get_by_test_id(f"point-{at('e', 5)}").click()
    wait_idle(page)
    # The fastest speed: no animation, the playout's last position drawn at once.
    page.get_by_test_id("speed").evaluate(
        "(el) => { el.value = '4'; el.dispatchEvent(new Event('input')); }"
    )
    page.get_by_test_id("step").click()
    expect(page.get_by_test_id("phase-simulation")).to_have_class(re.compile(r"\bdone\b"))
    mini = page.get_by_test_id("playout-board").locator("svg.board.go.small")
    expect(mini).to_have_count(1)
    # A random playout runs to the end of the game: the last board holds stones, and
    # no clickable points (the small boards are drawings only).
    expect(mini.locator(".go-stone")).not_to_have_count(0)
    expect(mini.locator(".go-point")).to_have_count(0)


def test_an_early_end_by_two_passes_judges_no_stone_dead(page: Page) -> None:
    """9x9, a stone each on two 3-3 points, then two passes: the page gives the area
    count and says the board is not settled, with no stone crossed out and no score by
    agreement (the lab once judged "2 dead stones" on such a board)."""
    new_go_game(page, human="none")
    for col, row in (("c", 3), ("g", 7)):
        page.get_by_test_id(f"point-{at(col, row, 9)}").click()
        wait_idle(page)
    for _ in range(2):
        page.get_by_test_id("pass").click()
        wait_idle(page)
    expect(page.get_by_test_id("go-score")).to_contain_text("W+7.5")
    expect(page.get_by_test_id("go-unsettled")).to_have_text(
        "Not settled: 79 of 81 points undecided, no stones judged dead"  # as docs/web.md
    )
    expect(page.get_by_test_id("go-agreed")).to_have_count(0)
    expect(page.locator("[data-testid=board] .go-dead")).to_have_count(0)


def test_dead_stones_are_marked_and_counted_by_agreement(page: Page) -> None:
    """5x5: walls on columns b (Black) and c (White), a black stone at e3 in White's
    area, two passes: the result counts it (B+5.5), the board crosses it out as dead
    and says the score by agreement (W+5.5)."""
    new_go_game(page, human="none", board_size="5", komi="0.5")
    for row in range(1, 6):
        for col in ("b", "c"):
            page.get_by_test_id(f"point-{at(col, row, 5)}").click()
            wait_idle(page)
    e3 = at("e", 3, 5)
    page.get_by_test_id(f"point-{e3}").click()
    wait_idle(page)
    expect(page.get_by_test_id("go-agreed")).to_have_count(0)
    for _ in range(2):
        page.get_by_test_id("pass").click()
        wait_idle(page)
    expect(page.get_by_test_id("go-score")).to_contain_text("B+5.5")
    expect(page.get_by_test_id(f"go-dead-{e3}")).to_have_count(1)
    expect(page.locator("[data-testid=board] .go-dead")).to_have_count(1)
    expect(page.get_by_test_id("go-agreed")).to_have_text("1 dead stone (×): W+5.5 by agreement")
    assert shot(page, "go-dead").stat().st_size > 0
