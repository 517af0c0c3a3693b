"""First contact: how long a new user waits in the web lab for the first compiled
Connect Four move with the shipped network (issue 31's trial).

Drives a running lab in Debian's chromium (Playwright, flags as DEVELOPERS.md gives them)
as a new user would at 1280x720: open the page; choose Connect Four, the AI opening, the
compiled engine, 200 iterations, PUCT with ``network:connect_four``; press *New game*
and time until the page is idle with the AI's move played; then one human move and the
AI's answer; then Go's first move. Each time is wall time in the browser, from the
click to the page idle, with what the page's AI report said (its search seconds and, if
any, the compilation apart). Screenshots go to ``build/first_move/LABEL/``; the times to
``benchmarks/results/first_move.json`` (part ``LABEL``).

The number the issue asks for needs a fresh clone (numba's cache is kept beside the
sources, so a new clone compiles everything again)::

    git clone REPO fresh && cd fresh && make run          # in one terminal
    python benchmarks/bench_first_move.py --label cold     # at once, in another
    # stop the server when its warm-up child has ended, make run again, then:
    python benchmarks/bench_first_move.py --label cached

``--label before`` was measured on commit 2c1ac74 (before ``mctslab warm``) served from
a fresh clone the same way.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from common import save_part

OUT = Path(__file__).resolve().parent / "results" / "first_move.json"
SHOTS = Path(__file__).resolve().parent.parent / "build" / "first_move"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]


def trial(url: str, shots: Path) -> dict[str, Any]:
    """The trial on the lab at ``url``: seconds and AI reports, screenshots in ``shots``."""
    from playwright.sync_api import Page, sync_playwright

    def idle(page: Page) -> None:
        page.wait_for_function("document.body.dataset.busy === 'false'", timeout=900_000)

    def report(page: Page) -> str:
        text: str = page.get_by_test_id("ai-report").inner_text()
        return " ".join(text.split("Picked by")[0].split())

    shots.mkdir(parents=True, exist_ok=True)
    found: dict[str, Any] = {"url": url}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.set_default_timeout(120_000)
        start = time.perf_counter()
        page.goto(url)
        idle(page)
        found["page_loaded_s"] = round(time.perf_counter() - start, 2)
        page.screenshot(path=str(shots / "1-first-page.png"))
        page.get_by_test_id("game-select").select_option("connect_four")
        idle(page)
        page.get_by_test_id("human-select").select_option("1")  # the AI opens
        page.get_by_test_id("engine-select").select_option("compiled")
        page.get_by_test_id("budget").fill("200")
        page.get_by_test_id("selection-select").select_option("puct")
        page.get_by_test_id("evaluator-select").select_option("network:connect_four")
        start = time.perf_counter()
        page.get_by_test_id("new-game").click()
        page.wait_for_timeout(300)
        found["status_while_waiting"] = page.get_by_test_id("status").inner_text()
        idle(page)
        found["first_network_move_s"] = round(time.perf_counter() - start, 2)
        found["first_report"] = report(page)
        page.screenshot(path=str(shots / "2-connect-four.png"), full_page=True)
        start = time.perf_counter()
        page.get_by_test_id("column-3").click()
        idle(page)
        found["second_network_move_s"] = round(time.perf_counter() - start, 2)
        found["second_report"] = report(page)
        page.get_by_test_id("game-select").select_option("go")
        idle(page)
        page.get_by_test_id("human-select").select_option("1")
        page.get_by_test_id("engine-select").select_option("compiled")
        start = time.perf_counter()
        page.get_by_test_id("new-game").click()
        idle(page)
        found["first_go_move_s"] = round(time.perf_counter() - start, 2)
        found["go_report"] = report(page)
        page.screenshot(path=str(shots / "3-go.png"), full_page=True)
        browser.close()
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000/", help="the running lab")
    parser.add_argument("--label", required=True, help="the part of the results file")
    args = parser.parse_args()
    found = trial(args.url, SHOTS / args.label)
    for key, value in found.items():
        print(f"{key}: {value}")
    save_part(OUT, args.label, found, ["mctslab", "playwright"])


if __name__ == "__main__":
    main()
