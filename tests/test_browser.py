"""The review notebook in a real browser: JupyterLab on loopback, headless Chromium, one answer.

JupyterLab serves a copy of `notebooks/03-alignment-review.ipynb` (so the committed outputs are
never overwritten by the browser session) from a temporary folder, with the notebook's parameters
overridden as a test run overrides them (`with_parameters` from notebooks/conftest.py): `ROOT` the
repository, `WORKSPACE` a fresh file. Debian's `chromium` package, driven by Playwright through
`executable_path` (no browser download), opens it, runs every cell, types a reviewer's name and
reasoning, and presses "Confirmed". The test then reads the verdict log from that workspace
itself: one row, with that name and reason, on the first pairing of the queue, and a valid chain.

The page must draw with no network: every request leaving loopback is refused and recorded, and
the test fails if one was made, if a script failed to load (a console message, a page error, a
failed request, or an output saying "Error loading script"), or if a chart the notebook draws is
not an image the browser decoded, both as committed (before any cell runs; JupyterLab shows the
untrusted notebook's PNG) and after the run (the SVG). JupyterLab's cell windowing is switched off,
so every cell's output is in the page. A screenshot of the widget is saved in the test's folder,
and also to the path named by `WORKBENCH_SCREENSHOT_OUT` when that is set (the README's image
comes from there).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Page, Route
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from workbench.changes.log import read_verdicts, verify_chain
from workbench.changes.queue import doubtful_pairings
from workbench.exports import lab as notebook_lab
from workbench.workspace import Workspace

from .conftest import ROOT

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
NOTEBOOK = "03-alignment-review.ipynb"
REVIEWER = "browser-reviewer"
REASON = "same subsection (b) in both releases; checked in a real browser"
# A chart is drawn when JupyterLab's image or SVG renderer shows an image the browser decoded.
DRAWN_CHARTS = """() => Array.from(
    document.querySelectorAll('.jp-RenderedImage img, .jp-RenderedSVG img')
).filter(img => img.complete && img.naturalWidth > 0).length"""
SCRIPT_FAILURE = ("Error loading script", "Failed to load resource", "Refused to load")


@pytest.fixture(scope="module")
def chromium() -> Path:
    """Debian's Chromium; installed with apt-get when missing and we are root, else a clear failure."""
    if not CHROMIUM.exists() and os.geteuid() == 0 and shutil.which("apt-get"):
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update", "-qq"], check=True, env=env, capture_output=True)
        subprocess.run(
            ["apt-get", "install", "-y", "-qq", "chromium"],
            check=True,
            env=env,
            capture_output=True,
        )
    if not CHROMIUM.exists():
        pytest.fail(
            f"{CHROMIUM} is missing: install Debian's chromium package (apt-get install -y chromium)",
            pytrace=False,
        )
    return CHROMIUM


@dataclass(frozen=True, slots=True, kw_only=True)
class Lab:
    url: str
    workspace: Path
    charts: int  # the notebook's cells that draw a chart


@dataclass(frozen=True, slots=True, kw_only=True)
class PageTrouble:
    """What the page reported: console messages, failed loads, requests that left loopback."""

    console: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    outside: list[str] = field(default_factory=list)

    def script_failures(self) -> list[str]:
        said = [m for m in self.console if any(s in m for s in SCRIPT_FAILURE)]
        return said + self.failed + [f"left loopback: {url}" for url in self.outside]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def lab(tmp_path: Path, catalogue: object) -> Iterator[Lab]:
    """JupyterLab on 127.0.0.1 (a free port, a random token) serving a copy of the notebook."""
    served = tmp_path / "notebooks"
    served.mkdir()
    workspace = tmp_path / "review.sqlite"
    notebook = json.loads((ROOT / "notebooks" / NOTEBOOK).read_bytes())
    cell = notebook["cells"][notebook_lab.parameters_cell_index(notebook["cells"])]
    cell["source"] = notebook_lab.with_parameters(
        "".join(cell["source"]), {"ROOT": str(ROOT), "WORKSPACE": str(workspace)}
    )
    (served / NOTEBOOK).write_text(json.dumps(notebook), encoding="utf-8")
    charts = sum("alt.Chart(" in "".join(c["source"]) for c in notebook["cells"])
    # Every cell's output stays in the page (no windowing), so every chart can be counted.
    tracker = tmp_path / "lab-settings" / "@jupyterlab" / "notebook-extension"
    tracker.mkdir(parents=True)
    (tracker / "tracker.jupyterlab-settings").write_text('{"windowingMode": "none"}')
    port, token = _free_port(), secrets.token_hex(16)
    env = {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(tmp_path / "jupyter-config"),
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "jupyter-runtime"),
        "JUPYTERLAB_SETTINGS_DIR": str(tmp_path / "lab-settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(tmp_path / "lab-workspaces"),
    }
    log = (tmp_path / "jupyterlab.log").open("wb")
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "jupyterlab",
            "--no-browser",
            "--ip=127.0.0.1",
            f"--port={port}",
            f"--IdentityProvider.token={token}",
            f"--ServerApp.root_dir={served}",
            "--ServerApp.port_retries=0",
            "--LabApp.news_url=",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            *(["--allow-root"] if os.geteuid() == 0 else []),
        ],
        cwd=served,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2):
                    break
            except (urllib.error.URLError, ConnectionError):
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(
                        "JupyterLab did not start: "
                        + (tmp_path / "jupyterlab.log").read_text(errors="replace")[-2000:]
                    ) from None
                time.sleep(0.3)
        yield Lab(
            url=f"{base}/lab/tree/{NOTEBOOK}?token={token}&reset",
            workspace=workspace,
            charts=charts,
        )
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()


def _watch(page: Page) -> PageTrouble:
    """Record what a page reports, and refuse (and record) every request that leaves loopback."""
    trouble = PageTrouble()

    def route(request_route: Route) -> None:
        url = request_route.request.url
        parts = urlsplit(url)
        if parts.scheme in {"http", "https", "ws", "wss"} and parts.hostname != "127.0.0.1":
            trouble.outside.append(url)
            request_route.abort()
        else:
            request_route.continue_()

    page.route("**/*", route)
    page.on("console", lambda message: trouble.console.append(f"{message.type}: {message.text}"))
    page.on("pageerror", lambda error: trouble.console.append(f"page error: {error}"))
    page.on(
        "requestfailed",
        lambda request: (
            trouble.failed.append(f"{request.resource_type} {request.url} failed")
            if request.resource_type == "script"
            else None
        ),
    )
    return trouble


def _charts_drawn(page: Page, expected: int) -> int:
    """How many chart images the page has decoded, after waiting up to 30 s for `expected`."""
    # A timeout is no failure here: the count returned says how many were drawn.
    with contextlib.suppress(PlaywrightTimeout):
        page.wait_for_function(f"({DRAWN_CHARTS})() >= {expected}", timeout=30_000)
    return int(page.evaluate(DRAWN_CHARTS))


@pytest.mark.slow  # runs a notebook, in JupyterLab
def test_answering_in_the_browser_appends_a_verdict_with_a_valid_chain(
    chromium: Path, lab: Lab, tmp_path: Path
) -> None:
    from playwright.sync_api import sync_playwright

    screenshot = tmp_path / "review-widget.png"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(chromium), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1100})
            page.set_default_timeout(90_000)
            trouble = _watch(page)
            try:
                page.goto(lab.url)
                # The kernel is connected and idle before any cell is run.
                page.get_by_text("Python 3 (ipykernel) | Idle").wait_for()
                drawn_as_committed = _charts_drawn(page, lab.charts)
                page.locator(".lm-MenuBar-item", has_text="Run").first.click()
                page.locator(".lm-Menu-item", has_text="Run All Cells").first.click()
                # The first widget is the review queue's (the audit's sampled items come later).
                confirm = page.get_by_role("button", name="Confirmed", exact=True).first
                confirm.wait_for()
                page.get_by_placeholder("your name").first.fill(REVIEWER)
                page.get_by_placeholder("why (optional)").first.fill(REASON)
                confirm.click()
                page.get_by_text(f"recorded row 1: Confirmed by {REVIEWER}").wait_for()
                drawn_after_the_run = _charts_drawn(page, lab.charts)
                shown_failure = page.get_by_text("Error loading script").count()
                widget = page.locator(".jp-OutputArea-output", has=confirm).first
                widget.scroll_into_view_if_needed()
                widget.screenshot(path=str(screenshot))
            except Exception:
                page.screenshot(path=str(tmp_path / "failure.png"), full_page=True)
                raise
        finally:
            browser.close()

    assert {
        "charts drawn as committed": drawn_as_committed,
        "charts drawn after the run": drawn_after_the_run,
        "outputs saying a script did not load": shown_failure,
        "scripts that failed": trouble.script_failures(),
    } == {
        "charts drawn as committed": lab.charts,
        "charts drawn after the run": lab.charts,
        "outputs saying a script did not load": 0,
        "scripts that failed": [],
    }, trouble
    with Workspace(lab.workspace) as workspace:
        (verdict,) = read_verdicts(workspace)
        first = doubtful_pairings(workspace, jurisdiction="us-dc")[0].change
        report = verify_chain(workspace)
    assert (verdict.seq, verdict.answer, verdict.actor, verdict.reason) == (
        1,
        "confirmed",
        REVIEWER,
        REASON,
    )
    assert verdict.change_id == first.change_id
    assert verdict.alignment_confidence == first.alignment_confidence
    assert report.valid and report.rows == 1 and report.head == verdict.digest
    assert screenshot.read_bytes().startswith(b"\x89PNG")
    named = os.environ.get("WORKBENCH_SCREENSHOT_OUT")
    if named:
        Path(named).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(screenshot, named)
