"""The redline page in a real browser: Debian's Chromium (through Playwright, no browser download)
opens a page written by `workbench diff --html` from two real NERC CIP-012 PDFs and a D.C. Code
release with markup planted in its text. Nothing may run or load: no console message, no script
or image element, the planted markup shown as text; the highlights are drawn (a box and a
background); a move's link lands on its arrival (on a CIP-003 page: CIP-012's tables pair row
by row and leave it none). A screenshot is saved in the test's folder, and
also to the path named by `WORKBENCH_REDLINE_SCREENSHOT_OUT` when set (docs/img/redline.png
comes from there).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.test_browser import CHROMIUM_ARGS, chromium  # noqa: F401  (the shared browser fixture)
from workbench.cli import main
from workbench.workspace import Workspace

from .test_redline import HOSTILE, PDF_FAMILY, _hostile_pair

DOUBTFUL_ROW = "tr.meta.doubtful"
MOVES_FAMILY, MOVES_BEFORE = "nerc-cip-003", "us-nerc/nerc-cip-003/cip-003-10.pdf"


@pytest.mark.slow
def test_the_redline_page_draws_its_highlights_and_runs_nothing(
    chromium: Path,  # noqa: F811
    workspace: Workspace,
    tmp_path: Path,
) -> None:
    from playwright.sync_api import sync_playwright

    from workbench.changes import diff_files, redline
    from workbench.changes import redline_page as redline_html
    from workbench.changes.diff import diff_versions

    page_path = tmp_path / "cip-012.html"
    assert (
        main(["diff", PDF_FAMILY, "--html", str(page_path), "--workspace", str(workspace.path)])
        == 0
    )
    # CIP-012's tables pair row by row and leave it no move: a move's link is followed on the
    # last CIP-003 pair's page, which has moves.
    moves_path = tmp_path / "cip-003.html"
    moved = ["diff", MOVES_FAMILY, "--from", MOVES_BEFORE, "--html", str(moves_path)]
    assert main([*moved, "--workspace", str(workspace.path)]) == 0
    before, after = _hostile_pair(workspace)
    hostile_path = tmp_path / "hostile.html"
    section = redline.section(before, after, diff_versions(before, after))
    diff_files.write_page(
        hostile_path, redline_html.page_html([section], family="planted", shown="every change")
    )

    screenshot = tmp_path / "redline.png"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(chromium), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            messages: list[str] = []
            page.on("console", lambda message: messages.append(f"{message.type}: {message.text}"))
            page.on("pageerror", lambda error: messages.append(f"pageerror: {error}"))

            def fetched(request: Any) -> None:
                if not request.url.startswith("file://"):
                    messages.append(f"request: {request.url}")

            page.on("request", fetched)

            page.goto(hostile_path.as_uri())
            assert page.evaluate("document.querySelectorAll('script, img, iframe').length") == 0
            assert page.evaluate("typeof window.pwned") == "undefined"
            assert HOSTILE in page.inner_text("body")

            page.goto(page_path.as_uri())
            drawn = page.evaluate(
                """() => [...document.querySelectorAll('del, ins')].map(e => {
                    const box = e.getBoundingClientRect();
                    return [e.tagName, box.width > 0 && box.height > 0,
                            getComputedStyle(e).backgroundColor];
                })"""
            )
            html = page_path.read_text(encoding="utf-8")
            assert len(drawn) == html.count("<del>") + html.count("<ins>") > 0
            assert all(visible for _, visible, _ in drawn)
            assert {colour for _, _, colour in drawn} == {
                "rgb(255, 210, 207)",
                "rgb(198, 246, 208)",
            }

            page.goto(moves_path.as_uri())
            move = page.locator("a.link[href$='-to']").first
            target = move.get_attribute("href")
            move.click()
            assert page.evaluate("location.hash") == target
            assert page.evaluate("document.querySelector(':target').id") == target.lstrip("#")

            page.goto(page_path.as_uri())

            page.evaluate(
                f"document.querySelector('{DOUBTFUL_ROW}').scrollIntoView({{block: 'start'}})"
            )
            page.screenshot(path=str(screenshot))
        finally:
            browser.close()
    assert messages == []
    assert screenshot.read_bytes().startswith(b"\x89PNG")
    named = os.environ.get("WORKBENCH_REDLINE_SCREENSHOT_OUT")
    if named:
        Path(named).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(screenshot, named)
