"""End-to-end tests of the web lab's page in a real browser.

Playwright for Python drives Debian's ``chromium`` (never a browser that Playwright
downloads; the flags are in DEVELOPERS.md) against the real server, started under
uvicorn on a free loopback port (the harness: ``browser_harness.py``). The tests click what a person clicks: they
play a whole tic-tac-toe game against the AI, step through iterations and watch the
node count grow by one a step, open a node's position from the tree and export the
tree as DOT. Screenshots of the main views go to ``build/screenshots/``.

Without chromium, Playwright or the ``web`` extra the module is skipped, unless
``MCTSLAB_REQUIRE_BROWSER=1`` (as ``make test`` sets it, after installing chromium):
then it fails, so that a missing browser cannot pass for a green run.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import pytest
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

server_url = server_fixture(("tic_tac_toe", "connect_four", "nim", "bohnenspiel"))
browser = browser_fixture()
page = page_fixture(accept_downloads=True)

# Small budgets: the tests check the page, not the engine's strength.
BUDGET = "300"


def new_game(page: Page, game: str, human: str = "0", **fields: str) -> None:
    """Open the page, choose a game and settings, press New game, wait until it is idle."""
    page.goto("/")
    expect(page.get_by_test_id("game-select").locator(f"option[value='{game}']")).to_have_count(1)
    wait_idle(page)  # the first game is loaded
    page.get_by_test_id("game-select").select_option(game)  # starts a game of it
    wait_idle(page)
    page.get_by_test_id("human-select").select_option(human)
    page.get_by_test_id("budget").fill(BUDGET)
    for testid, value in fields.items():
        page.get_by_test_id(testid.replace("_", "-")).fill(value)
    page.get_by_test_id("new-game").click()
    wait_idle(page)


def count(page: Page) -> int:
    return int(page.get_by_test_id("node-count").get_attribute("data-n") or "0")


def play_tic_tac_toe_to_the_end(page: Page, after_first_answer: Callable[[], None]) -> None:
    """Click the first free cell until the game is over, waiting each time for the human's
    mark and the AI's answer; ``after_first_answer`` checks the page after the first."""
    status = page.get_by_test_id("status")
    marks = "[data-testid=board] .mark-x, [data-testid=board] .mark-o"
    for move in range(5):
        if status.inner_text().startswith("Game over"):
            break
        page.locator("[data-testid^=cell-].playable").first.click()
        # The human's mark, then the AI's answer (or the end of the game).
        page.wait_for_function(
            """([marks, n]) => document.querySelectorAll(marks).length >= n
                || document.querySelector('[data-testid=status]').textContent.startsWith('Game over')""",
            arg=[marks, 2 * move + 2],
        )
        wait_idle(page)
        if move == 0:
            after_first_answer()


def test_play_a_whole_tic_tac_toe_game(page: Page) -> None:
    new_game(page, "tic_tac_toe")
    status = page.get_by_test_id("status")
    expect(status).to_contain_text("Your turn")

    def first_answer() -> None:
        # After the AI's first move: its root statistics and the rule that picked it.
        expect(page.get_by_test_id("ai-report")).to_be_visible()
        expect(page.get_by_test_id("final-rule")).to_contain_text("robust")
        assert page.locator("[data-testid=root-stats-chart] .bar").count() == 8
        shot(page, "1-play-tic-tac-toe")

    play_tic_tac_toe_to_the_end(page, first_answer)
    expect(status).to_have_text(re.compile(r"^Game over: (you win|the AI wins|a draw)"))
    assert page.locator("[data-testid^=cell-].playable").count() == 0
    shot(page, "2-game-over")


def test_step_mode_grows_the_tree_one_node_a_step(page: Page) -> None:
    new_game(page, "tic_tac_toe")
    start = count(page)
    for i in range(1, 7):
        page.get_by_test_id("step").click()
        expect(page.get_by_test_id("node-count")).to_have_text(str(start + i))
    # The last step's four phases, each filled in once its animation has run.
    for phase in ("selection", "expansion", "simulation", "backpropagation"):
        expect(page.get_by_test_id(f"phase-{phase}")).to_have_class(re.compile(r"\bdone\b"))
    expect(page.get_by_test_id("expanded-node")).to_contain_text("Added")
    expect(page.get_by_test_id("playout-result")).to_contain_text("X: ")
    # Root, expanded node and the leaf's update: at least the root and the new node.
    assert page.locator("[data-testid=backprop-table] tr").count() >= 3
    # The selection path and the new node are marked in the tree.
    expect(page.locator("[data-testid=tree] .node.fresh")).to_have_count(1)
    expect(page.get_by_test_id("root-visits")).to_have_text(str(6))
    shot(page, "3-step-mode")

    # Batches: +100 iterations, then a node's position from its label in the tree.
    page.get_by_test_id("run-100").click()
    wait_idle(page)
    expect(page.get_by_test_id("root-visits")).to_have_text("106")
    # A child of the root (its id is one action, no dot), the tree cut to depth 1 to fit
    # (the batch's tree was fitted: top-k is chosen by hand too).
    page.get_by_test_id("depth-select").select_option("1")
    page.get_by_test_id("top-select").select_option("5")
    expect(page.locator("[data-testid=tree] .node")).to_have_count(6)
    label = page.locator(
        "[data-testid^=node-label-]:not([data-testid*='.']):not([data-testid=node-label-root])"
    ).first
    label.click()
    panel = page.get_by_test_id("node-position")
    expect(panel).to_be_visible()
    expect(panel.locator("svg.board .mark-x")).to_have_count(1)
    expect(page.get_by_test_id("node-position-text")).not_to_be_empty()
    shot(page, "4-tree-and-position")


def test_tree_view_zooms_collapses_and_exports_dot(page: Page) -> None:
    new_game(page, "tic_tac_toe")
    page.get_by_test_id("run-100").click()
    wait_idle(page)
    tree = page.get_by_test_id("tree-svg")
    expect(page.locator("[data-testid=tree] .node")).not_to_have_count(0)
    nodes_before = page.locator("[data-testid=tree] .node").count()
    # Top-k 2 and depth 2: the root, two children, two grandchildren each.
    page.get_by_test_id("top-select").select_option("2")
    page.get_by_test_id("depth-select").select_option("2")
    expect(page.locator("[data-testid=tree] .node")).to_have_count(7)
    # Clicking the root folds it; again unfolds it.
    page.get_by_test_id("tree-node-root").locator("rect").click()
    expect(page.locator("[data-testid=tree] .node")).to_have_count(1)
    page.get_by_test_id("tree-node-root").locator("rect").click()
    expect(page.locator("[data-testid=tree] .node")).to_have_count(7)
    # The wheel zooms (the view box shrinks).
    before = tree.get_attribute("viewBox") or ""
    tree.hover()
    page.mouse.wheel(0, -400)
    after = tree.get_attribute("viewBox") or ""
    assert float(after.split()[2]) < float(before.split()[2])
    assert nodes_before > 7

    with page.expect_download() as download:
        page.get_by_test_id("export-dot").click()
    assert download.value.suggested_filename == "mcts-tree.dot"
    dot = download.value.path().read_text()
    assert dot.startswith("digraph")
    # The export is the tree as shown (depth 2, top 2): 7 nodes, 6 edges.
    assert dot.count(" -> ") == 6
    with page.expect_download() as download:
        page.get_by_test_id("export-json").click()
    exported = json.loads(download.value.path().read_text())
    assert len(exported["children"]) == 2


def test_exploration_chart_follows_c(page: Page) -> None:
    page.goto("/")
    chart = page.get_by_test_id("exploration-chart")
    expect(chart.locator("polyline")).not_to_have_count(0)
    page.get_by_test_id("c-input").fill("0.5")
    expect(chart.locator(".chart-title")).to_have_text("c = 0.50")


@pytest.mark.parametrize(
    ("game", "move", "board"),
    [
        ("connect_four", "[data-testid=column-3]", ".disc.mark-x"),
        ("nim", "[data-testid=take-3-2]", ".stone"),
        ("bohnenspiel", "[data-testid=pit-2]", ".pit"),
    ],
)
def test_other_boards_play(page: Page, game: str, move: str, board: str) -> None:
    new_game(page, game)
    expect(page.get_by_test_id("status")).to_contain_text("Your turn")
    page.locator(move).click()
    expect(page.get_by_test_id("ai-report")).to_be_visible()
    wait_idle(page)
    expect(page.locator(f"[data-testid=board] {board}")).not_to_have_count(0)
    shot(page, f"5-{game}")


def test_bohnenspiel_sows_and_replays_playouts(page: Page) -> None:
    new_game(page, "bohnenspiel", human="none")
    # Field 3 (pit 2) holds 6 beans: one each into fields 4 to 9; no capture.
    page.get_by_test_id("pit-2").click()
    wait_idle(page)
    counts = {i: page.locator(f"[data-testid=pit-{i}] .count") for i in range(12)}
    for pit, beans in ((2, 0), (3, 7), (8, 7), (9, 6), (0, 6)):
        expect(counts[pit]).to_have_text(str(beans))
    expect(page.get_by_test_id("store-0").locator(".count")).to_have_text("0")
    # Player 1 (the second player) to move: only the top row is playable now.
    expect(page.locator("[data-testid=board] .pit.playable")).to_have_count(6)
    expect(page.get_by_test_id("pit-11")).to_have_class(re.compile(r"\bplayable\b"))
    # One step: the playout is replayed on a small bean board.
    page.get_by_test_id("step").click()
    expect(page.get_by_test_id("phase-simulation")).to_have_class(re.compile(r"\bdone\b"))
    expect(page.get_by_test_id("playout-board").locator("svg.board.pits")).to_have_count(1)
    shot(page, "6-bohnenspiel-step")


def test_pig_rolls_the_dice_and_shows_chance_nodes_in_the_tree(page: Page) -> None:
    """Pig on the text board: a roll is answered by the server's die (never a chance
    node waiting for a click), and the tree shows the die's outcomes under a roll."""
    new_game(page, "pig")
    expect(page.get_by_test_id("status")).to_contain_text("Your turn")
    page.get_by_test_id("move-0").click()  # roll
    wait_idle(page)
    text = page.locator("[data-testid=board] .board-text")
    expect(text).to_contain_text("Scores:")
    expect(text).not_to_contain_text("rolls")  # the die was thrown
    # The AI plays its whole turn (roll after roll) until the human is to move again.
    expect(page.get_by_test_id("status")).to_contain_text("Your turn")
    expect(text).to_contain_text("Player 1 to move")
    page.get_by_test_id("step").click()
    wait_idle(page)
    expect(page.locator("[data-testid=tree] svg")).to_have_count(1)
    # The die's outcomes under a roll are drawn as chance outcomes: no UCT score.
    outcomes = page.locator("[data-testid=tree] [data-testid^=chance-]")
    expect(outcomes.first).to_have_text("chance outcome")
    # A step whose descent passes a die says what chance drew (no UCT choice there).
    for _ in range(12):
        if page.get_by_test_id("chance-level").count():
            break
        page.get_by_test_id("step").click()
        wait_idle(page)
    expect(page.get_by_test_id("chance-level").first).to_contain_text("chance drew Roll")
    shot(page, "7-pig")


def test_budget_inputs_carry_the_server_caps_and_a_refusal_resets_the_status(page: Page) -> None:
    """The budget field's maximum is the server's cap (GET /api/health); a budget over
    it is refused on the page, before any request (the console stays clean), and the
    status says whose turn it is again instead of "The AI is thinking"."""
    failed: list[str] = []
    page.on("console", lambda msg: failed.append(msg.text) if msg.type == "error" else None)
    new_game(page, "tic_tac_toe", human="none")
    budget = page.get_by_test_id("budget")
    expect(budget).to_have_attribute("max", "200000")
    budget.fill("300000")
    page.get_by_test_id("ai-move").click()
    wait_idle(page)
    error = page.get_by_test_id("error")
    expect(error).to_be_visible()
    expect(error).to_contain_text("iterations=300000 is over the server's cap of 200000")
    expect(page.get_by_test_id("status")).to_have_text(re.compile(r"^X to move"))
    expect(page.get_by_test_id("ai-move")).to_be_enabled()
    assert not failed, f"console errors: {failed}"
    # Seconds: the cap on time.
    page.get_by_test_id("budget-kind").select_option("time")
    expect(budget).to_have_attribute("max", "10")
    # A budget within the cap: the AI moves, and the error bar goes.
    page.get_by_test_id("budget-kind").select_option("iterations")
    budget.fill(BUDGET)
    page.get_by_test_id("ai-move").click()
    wait_idle(page)
    expect(error).to_be_hidden()
    expect(page.get_by_test_id("status")).to_have_text(re.compile(r"^O to move"))


def test_choosing_a_game_starts_a_new_game_of_it(page: Page) -> None:
    page.goto("/")
    expect(page.get_by_test_id("status")).to_contain_text("Your turn (X)")
    expect(page.locator("[data-testid^=cell-]")).to_have_count(9)
    wait_idle(page)
    page.get_by_test_id("game-select").select_option("connect_four")  # no "New game"
    expect(page.get_by_test_id("status")).to_contain_text("Your turn (Red)")
    expect(page.locator("[data-testid^=column-]")).to_have_count(7)
    expect(page.get_by_test_id("param-rows")).to_have_value("6")


def test_counts_in_the_singular_and_option_names_in_full(page: Page) -> None:
    new_game(page, "tic_tac_toe")
    counts = page.locator(".tree-counts")
    expect(counts).to_contain_text("Tree: 1 node, root visits 0")
    page.get_by_test_id("step").click()
    expect(counts).to_contain_text("Tree: 2 nodes, root visits 1")
    # Every final-move rule's name fits in the select (the text, its padding, the arrow).
    fits = page.get_by_test_id("final-select").evaluate(
        """(select) => {
            const style = getComputedStyle(select);
            const context = document.createElement("canvas").getContext("2d");
            context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
            const room = select.clientWidth - parseFloat(style.paddingLeft)
                - parseFloat(style.paddingRight) - 24;  // chromium's arrow
            return [...select.options].map((o) => [o.text, context.measureText(o.text).width <= room]);
        }"""
    )
    assert all(ok for _, ok in fits), fits


def test_pig_move_list_shows_what_the_die_rolled(page: Page) -> None:
    """Each roll is followed by the die's face, and a 1 says the turn is over: the list
    explains why the turn total dropped to 0 and the AI moved."""
    new_game(page, "pig")
    history = page.get_by_test_id("history")
    page.get_by_test_id("move-0").click()  # roll
    wait_idle(page)
    expect(history).to_have_text(re.compile(r"^Moves: roll → [1-6]"))
    # Roll until some roll (the human's or the AI's) has thrown a 1.
    for _ in range(40):
        if "→ 1" in history.inner_text():
            break
        page.get_by_test_id("move-0").click()
        wait_idle(page)
    text = history.inner_text()
    assert "roll → 1 (turn over)" in text, text
    assert re.search(r"→ 1(?! \(turn over\))", text) is None, text  # every 1 ends the turn
    assert re.search(r"→ [2-6] \(turn over\)", text) is None, text  # and only a 1
    assert re.search(r"roll(?! →)", text) is None, text  # every roll shows its face


# Players and values: one convention on the whole page ------------------------------------

# The figure next to the played move's bar in the AI report's chart.
PLAYED_BAR = "[data-testid=root-stats-chart] .bar.played .bar-value"


def play_first_free_cell(page: Page, marks_after: int) -> None:
    """The human clicks the first free cell; returns once the AI has answered (or the
    game is over) and the page is idle."""
    page.locator("[data-testid^=cell-].playable").first.click()
    page.wait_for_function(
        """(n) => document.querySelectorAll('[data-testid=board] .mark-x, [data-testid=board] .mark-o').length >= n
            || document.querySelector('[data-testid=status]').textContent.startsWith('Game over')""",
        arg=marks_after,
    )
    wait_idle(page)


def test_pig_board_counts_players_from_one_as_the_status_does(page: Page) -> None:
    """The status says "player 1": the board above it, and a node's position, say the
    same (Pig's str(state), "Current player: 0", is OpenSpiel's, for the API)."""
    new_game(page, "pig")
    expect(page.get_by_test_id("status")).to_have_text("Your turn (player 1).")
    text = page.locator("[data-testid=board] .board-text")
    expect(text).to_contain_text("Player 1 to move")
    expect(text).not_to_contain_text("Current player")
    page.get_by_test_id("step").click()
    wait_idle(page)
    # The step's phases redraw the tree as they play out: a click on a label being
    # replaced is lost, so click once the last phase (the last redraw) is shown.
    expect(page.get_by_test_id("phase-backpropagation")).to_have_class(re.compile(r"\bdone\b"))
    page.get_by_test_id("node-label-root").click()
    expect(page.get_by_test_id("node-position-text")).to_contain_text("Player 1 to move")
    expect(page.get_by_test_id("node-position-text")).not_to_contain_text("Current player")


def test_step_panel_names_the_players_as_the_board_does(page: Page) -> None:
    """Tic-tac-toe's players are X and O, Connect Four's Red and Yellow, in the status
    and in the step panel alike (not "player 1")."""
    for game, first, second in (("tic_tac_toe", "X", "O"), ("connect_four", "Red", "Yellow")):
        new_game(page, game)
        expect(page.get_by_test_id("status")).to_have_text(f"Your turn ({first}).")
        page.get_by_test_id("step").click()
        expect(page.get_by_test_id("phase-backpropagation")).to_have_class(re.compile(r"\bdone\b"))
        result = page.get_by_test_id("playout-result")
        expect(result).to_contain_text(f"{first}: ")
        expect(result).to_contain_text(f"{second}: ")
        expect(result).not_to_contain_text("player")
        table = page.get_by_test_id("backprop-table")
        expect(table).to_contain_text(first)  # the first move's node: moved in by the first player
        expect(table).not_to_contain_text("player")


def test_played_move_shows_its_own_value_and_each_scale_is_named(page: Page) -> None:
    """The played line gives the move's value, the figure of its bar (not the position's
    mean, which is named "position"); the chart and the tree say which scale they use."""
    new_game(page, "tic_tac_toe")
    play_first_free_cell(page, 2)
    played = page.locator(PLAYED_BAR).text_content() or ""
    match = re.match(r"\d+\s+([+-]\d\.\d\d)", played)
    assert match, played
    expect(page.get_by_test_id("ai-move-value")).to_have_text(match.group(1))
    summary = page.get_by_test_id("ai-summary")
    expect(summary).to_contain_text(f"value {match.group(1)} for O")
    expect(summary).to_contain_text("position")
    chart = page.get_by_test_id("root-stats-chart")
    expect(chart).to_contain_text("value for O (-1 to 1)")
    expect(chart).not_to_contain_text("Q/N")
    legend = page.get_by_test_id("tree-legend")
    expect(legend).to_contain_text("Q/N: mean reward in [0, 1] for the player who moved here")


def test_a_proven_move_shows_its_proven_value(page: Page) -> None:
    """With MCTS-Solver, a proven move's figure is its proven return on the game's scale
    (-1 (proven loss)), not the mean of its simulations."""
    new_game(page, "tic_tac_toe")
    page.get_by_test_id("solver").check()
    page.get_by_test_id("new-game").click()
    wait_idle(page)
    bars = page.locator("[data-testid=root-stats-chart] .bar-value")
    proven: list[str] = []
    for move in range(4):
        play_first_free_cell(page, 2 * move + 2)
        proven = [t for t in bars.all_text_contents() if "proven" in t]
        if proven:
            break
    assert proven, bars.all_text_contents()
    for text in proven:
        assert re.match(r"\d+\s+(\+1 \(proven win\)|0 \(proven draw\)|-1 \(proven loss\))", text)
    played = page.locator(PLAYED_BAR).text_content() or ""
    value = re.sub(r"^\d+\s+|\s+◀ played$", "", played)
    expect(page.get_by_test_id("ai-move-value")).to_have_text(value)


# The tree as a teacher shows it ------------------------------------------------------------


def inside_panel(page: Page, testid: str) -> bool:
    """Whether the element's box lies wholly inside the tree panel's visible box."""
    result: bool = page.evaluate(
        """(testid) => {
            const el = document.querySelector(`[data-testid="${testid}"]`);
            if (!el) return false;
            const r = el.getBoundingClientRect();
            const p = document.querySelector("[data-testid=tree]").getBoundingClientRect();
            return r.width > 0 && r.left >= p.left - 0.5 && r.right <= p.right + 0.5
                && r.top >= p.top - 0.5 && r.bottom <= p.bottom + 0.5;
        }""",
        testid,
    )
    return result


def set_speed(page: Page, position: int) -> None:
    """The speed slider at ``position`` (0: 0.5 steps/s, animated; 4: 30/s, at once)."""
    page.get_by_test_id("speed").evaluate(
        "(el, v) => { el.value = v; el.dispatchEvent(new Event('input')); }", str(position)
    )


def smallest_text_px(page: Page) -> float:
    """The smallest font size of the tree's texts as drawn on screen (CSS px times the
    SVG's scale)."""
    px: float = page.evaluate(
        """() => Math.min(...[...document.querySelectorAll("[data-testid=tree] text")].map(
            (t) => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a))"""
    )
    return px


@pytest.mark.parametrize(
    ("game", "move"),
    [("bohnenspiel", "[data-testid=pit-2]"), ("connect_four", "[data-testid=column-3]")],
)
def test_tree_view_keeps_the_root_in_view(page: Page, game: str, move: str) -> None:
    """After the AI's answer, and while steps highlight paths deep in a wide tree."""
    new_game(page, game)
    page.locator(move).click()
    expect(page.get_by_test_id("ai-report")).to_be_visible()
    wait_idle(page)
    expect(page.get_by_test_id("tree-node-root")).to_have_count(1)
    assert inside_panel(page, "tree-node-root")
    set_speed(page, 4)
    for _ in range(3):
        page.get_by_test_id("step").click()
        wait_idle(page)
        expect(page.get_by_test_id("phase-backpropagation")).to_have_class(re.compile(r"\bdone\b"))
        assert inside_panel(page, "tree-node-root")
    assert smallest_text_px(page) >= 11


def all_nodes_inside_panel(page: Page) -> bool:
    inside: bool = page.evaluate(
        """() => {
            const p = document.querySelector("[data-testid=tree]").getBoundingClientRect();
            return [...document.querySelectorAll("[data-testid=tree] .node")].every((n) => {
                const r = n.getBoundingClientRect();
                return r.left >= p.left - 0.5 && r.right <= p.right + 0.5
                    && r.top >= p.top - 0.5 && r.bottom <= p.bottom + 0.5;
            });
        }"""
    )
    return inside


def test_fit_chooses_depth_and_top_k_and_keeps_the_text_readable(page: Page) -> None:
    new_game(page, "bohnenspiel", human="none")
    page.get_by_test_id("run-1000").click()
    wait_idle(page)
    # Depth 3, top 5 would be 156 nodes, far wider than the panel: the batch's tree is
    # fitted at once (issue 52), and Fit keeps it so.
    page.get_by_test_id("fit").click()
    expect(page.locator("[data-testid=tree] .node")).not_to_have_count(156)
    wait_idle(page)
    page.wait_for_timeout(200)
    assert smallest_text_px(page) >= 11
    assert all_nodes_inside_panel(page)
    assert page.locator("[data-testid=tree] .node").count() >= 7  # not just the root
    depth = int(page.get_by_test_id("depth-select").input_value())
    top = int(page.get_by_test_id("top-select").input_value())
    assert (depth, top) != (3, 5)


def test_the_step_path_is_drawn_even_outside_depth_and_top_k(page: Page) -> None:
    new_game(page, "tic_tac_toe", human="none")
    page.get_by_test_id("run-100").click()
    wait_idle(page)
    page.get_by_test_id("top-select").select_option("2")
    page.get_by_test_id("depth-select").select_option("2")
    set_speed(page, 4)
    for _ in range(5):
        page.get_by_test_id("step").click()
        wait_idle(page)  # the step is back: its phases are being shown
        expect(page.get_by_test_id("phase-backpropagation")).to_have_class(re.compile(r"\bdone\b"))
        # The backpropagation table has a row per node of the path, the root included.
        path = page.locator("[data-testid=backprop-table] tr").count() - 1
        expect(page.locator("[data-testid=tree] .node.on-path")).to_have_count(path)
        expect(page.locator("[data-testid=tree] .edge.on-path")).to_have_count(path - 1)
        expect(page.locator("[data-testid=tree] .node.fresh")).to_have_count(1)
        assert inside_panel(page, "tree-node-root")


def test_more_children_mark_shows_them(page: Page) -> None:
    new_game(page, "tic_tac_toe", human="none")
    page.get_by_test_id("run-100").click()
    wait_idle(page)
    page.get_by_test_id("top-select").select_option("2")
    page.get_by_test_id("depth-select").select_option("2")
    nodes = page.locator("[data-testid=tree] .node")
    expect(nodes).to_have_count(7)
    more = page.get_by_test_id("more-root")
    expect(more).to_contain_text("+7")
    more.click()
    # The root's nine children; the two shown before keep their two children each.
    expect(page.locator("[data-testid=tree] .node:not([data-node*='.'])")).to_have_count(10)
    expect(nodes).to_have_count(14)
    expect(more).to_have_count(0)
    # Kept when the tree is drawn again (a step).
    page.get_by_test_id("step").click()
    wait_idle(page)
    expect(page.locator("[data-testid=tree] .node:not([data-node*='.'])")).to_have_count(10)


def test_the_last_search_stays_in_view_after_a_compiled_move_and_at_the_end(page: Page) -> None:
    """The compiled engine searches a tree of its own: after its move the panel shows
    that tree, saying whose and from where; once the game is over, the last search."""
    new_game(page, "tic_tac_toe")
    page.get_by_test_id("engine-select").select_option("compiled")
    page.get_by_test_id("new-game").click()
    wait_idle(page)
    status = page.get_by_test_id("status")
    note = page.get_by_test_id("tree-note")
    root = page.get_by_test_id("tree-node-root")

    def first_answer() -> None:
        expect(root).to_have_count(1)
        expect(root).to_contain_text(f"N {BUDGET}")
        expect(note).to_be_visible()
        expect(note).to_contain_text("the compiled engine's tree of the last search")
        expect(note).to_contain_text("searched from the position after 1 move")

    play_tic_tac_toe_to_the_end(page, first_answer)
    expect(status).to_contain_text("Game over")
    expect(root).to_have_count(1)
    expect(page.locator("[data-testid=tree] .tree-empty")).to_be_hidden()
    expect(note).to_contain_text("The game is over: this is the")
    expect(note).to_contain_text("last search before the end")
    shot(page, "8-last-search-at-the-end")


def phase_snapshot(page: Page, phase: str, node: str) -> dict[str, object]:
    """The node counter, the root's N and whether ``node`` is drawn, read in one go in
    the page as soon as the step panel lights up ``phase``."""
    handle = page.wait_for_function(
        """([phase, node]) => {
            const li = document.querySelector(`[data-testid=phase-${phase}]`);
            if (!li || !li.classList.contains("active")) return false;
            const root = document.querySelector("[data-testid=tree-node-root]");
            const added = document.querySelector(`[data-testid="tree-node-${node}"]`);
            return {
                count: Number(document.querySelector("[data-testid=node-count]").dataset.n),
                root: root ? root.textContent : "",
                drawn: Boolean(added),
                text: added ? added.textContent : "",
            };
        }""",
        arg=[phase, node],
        polling=10,
    )
    snapshot: dict[str, object] = handle.json_value()
    return snapshot


def test_the_tree_changes_with_the_step_panel_phase_by_phase(page: Page) -> None:
    """A step's tree does not give its ending away: during the selection the tree is
    the one before the iteration, the new node appears at the expansion, and N and the
    node counter change at the backpropagation."""
    new_game(page, "tic_tac_toe", human="none")
    page.get_by_test_id("run-10").click()
    wait_idle(page)
    before = count(page)
    set_speed(page, 0)  # animated: each phase lasts half a second
    with page.expect_response(re.compile(r"/step$")) as response:
        page.get_by_test_id("step").click()
    trace = response.value.json()
    node = trace["expansion"]["node"]
    selection = phase_snapshot(page, "selection", node)
    assert not selection["drawn"] and selection["count"] == before, selection
    assert re.search(r"N 10\b", str(selection["root"])), selection
    expansion = phase_snapshot(page, "expansion", node)
    assert expansion["drawn"] and expansion["count"] == before, expansion
    assert re.search(r"N 10\b", str(expansion["root"])), expansion
    assert re.search(r"N 0\b", str(expansion["text"])), expansion
    back = phase_snapshot(page, "backpropagation", node)
    assert back["drawn"] and back["count"] == before + 1, back
    assert re.search(r"N 11\b", str(back["root"])), back
    assert re.search(r"N 1\b", str(back["text"])), back


def test_pig_step_mode_names_chance_nodes_and_shortens_playouts(page: Page) -> None:
    """Pig's step mode: a die's outcome on the path is named in the backpropagation
    table (only the root is "root"); a playout of hundreds of moves shows its ends and
    counts the rest; a chance outcome's "+N" mark does not cover its label."""
    new_game(page, "pig", human="none")
    page.get_by_test_id("run-100").click()
    wait_idle(page)
    set_speed(page, 4)
    chance: list[dict[str, object]] = []
    for _ in range(20):
        with page.expect_response(re.compile(r"/step$")) as response:
            page.get_by_test_id("step").click()
        trace = response.value.json()
        wait_idle(page)
        expect(page.get_by_test_id("phase-backpropagation")).to_have_class(re.compile(r"\bdone\b"))
        chance = [u for u in trace["backpropagation"] if u["node"] and u["player"] < 0]
        if chance:
            break
    assert chance, "no step passed a die's outcome"
    names = page.locator("[data-testid=backprop-table] tr td:first-child").all_inner_texts()
    assert len(names) == len(trace["backpropagation"])
    assert names[-1] == "root" and names.count("root") == 1, names
    for name, update in zip(names, trace["backpropagation"], strict=True):
        if update in chance:
            assert re.search(r"Roll \d", name), names

    labels = trace["simulation"]["labels"]
    assert len(labels) > 21  # a Pig playout plays to 100 points
    chips = page.locator("[data-testid=playout-moves] span:not(.from):not(.skipped)")
    assert chips.all_inner_texts() == [*labels[:10], *labels[-10:]]
    expect(page.get_by_test_id("playout-skipped")).to_have_text(f"… {len(labels) - 20} more …")

    page.get_by_test_id("depth-select").select_option("2")  # the outcomes' children hidden
    wait_idle(page)
    expect(page.get_by_test_id("depth-select")).to_have_value("2")  # not undone by a fit
    expect(page.locator("[data-testid=tree] [data-testid^=chance-]")).not_to_have_count(0)
    # Read every chance outcome and its "+N" mark in one go: one drawing of the tree.
    pairs: list[list[object]] = page.evaluate(
        """() => [...document.querySelectorAll('[data-testid=tree] [data-testid^="chance-"]')]
            .map((e) => {
                const node = e.dataset.testid.slice("chance-".length);
                const more = document.querySelector(`[data-testid="more-${node}"]`);
                if (!more) return null;
                const r = e.getBoundingClientRect(), s = more.getBoundingClientRect();
                const hit = r.left < s.right && s.left < r.right && r.top < s.bottom && s.top < r.bottom;
                return [node, hit];
            })
            .filter((p) => p !== null)"""
    )
    assert pairs, "no chance outcome with hidden children"
    assert not [node for node, hit in pairs if hit], pairs
    shot(page, "9-pig-step")


def test_a_puct_session_shows_priors_in_the_tree_the_steps_and_the_chart(page: Page) -> None:
    page.goto("/")
    wait_idle(page)
    page.get_by_test_id("game-select").select_option("tic_tac_toe")
    wait_idle(page)
    page.get_by_test_id("human-select").select_option("none")
    page.get_by_test_id("budget").fill(BUDGET)
    expect(page.get_by_test_id("puct-options")).to_be_hidden()
    page.get_by_test_id("selection-select").select_option("puct")
    expect(page.get_by_test_id("puct-options")).to_be_visible()
    expect(page.get_by_test_id("c-input")).to_be_hidden()  # UCT's c does not apply
    page.get_by_test_id("evaluator-select").select_option("heuristic")
    page.get_by_test_id("c-puct-input").fill("1.5")
    page.get_by_test_id("new-game").click()
    wait_idle(page)
    # The first step evaluates the root: its nine moves become children with priors 1/9.
    page.get_by_test_id("step").click()
    expect(page.get_by_test_id("node-count")).to_have_text("10")
    expect(page.get_by_test_id("phase-backpropagation")).to_have_class(re.compile(r"\bdone\b"))
    expect(page.get_by_test_id("expanded-node")).to_contain_text("heuristic")
    expect(page.get_by_test_id("expansion-priors")).to_contain_text("0.111")
    expect(page.get_by_test_id("evaluator-value")).to_contain_text("values the leaf")
    # The second descends by PUCT: the selection table has a P column.
    page.get_by_test_id("step").click()
    expect(page.get_by_test_id("root-visits")).to_have_text("2")
    expect(page.get_by_test_id("phase-backpropagation")).to_have_class(re.compile(r"\bdone\b"))
    expect(page.get_by_test_id("selection-prior").first).to_have_text("0.111")
    # The tree's nodes show P beside N and Q/N.
    root_children = "[data-testid=tree] [data-testid^=prior-]:not([data-testid*='.'])"
    expect(page.locator(root_children).first).to_contain_text("P 0.11 PUCT")
    # Below them, the evaluated child's eight children: P 1/8.
    expect(
        page.locator("[data-testid=tree] [data-testid*='.'][data-testid^=prior-]").first
    ).to_contain_text("P 0.13")
    shot(page, "puct-step-mode")
    # The AI's move: the root chart gives each move's prior.
    page.get_by_test_id("ai-move").click()
    wait_idle(page)
    expect(page.get_by_test_id("ai-report")).to_be_visible()
    expect(page.get_by_test_id("root-stats-chart")).to_contain_text("P 0.1")
    shot(page, "puct-ai-move")
