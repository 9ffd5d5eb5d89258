"""Browser fixtures: a real cell, a real `gridd web` process beside it, and Debian's
Chromium driven by Playwright (its sync API; Playwright's own browser download is never
used), logged in through the URL `gridd web login` prints, as a user would.

A test module takes the fixtures by importing them (`*_fixture`, named without the
suffix). The tests that use them skip, saying why, where Playwright or Chromium is missing. With
GRIDD_SCREENSHOTS=DIR they write a PNG of each page they show there (`shot`).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from gridd.client import current_user
from tests.e2e.conftest import BIN, Cell, make_cell, wait_for

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Locator, Page

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
URL_LINE = re.compile(r"^gridd: web interface at (\S+) ")
START_TIMEOUT = 30.0
EXPECT_TIMEOUT = 15_000  # ms: the longest a page may take to show what a test waits for


def missing() -> str | None:
    """Why the browser tests cannot run here, None when they can."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright is not installed (pip install -e '.[test]' installs it)"
    if not os.access(CHROMIUM, os.X_OK):
        return ("Debian's chromium is not installed (apt-get install chromium; .ci/run "
                "installs it)")
    return None


needs_browser = pytest.mark.skipif(missing() is not None, reason=missing() or "")


@dataclass
class WebServer:
    """A running `gridd web` of `cell`, at `url` (ends in /)."""

    cell: Cell
    url: str
    process: subprocess.Popen[str]
    user: str = field(default_factory=current_user)  # who `gridd web login` logs in

    def login_url(self) -> str:
        """A fresh URL from `gridd web login` (each logs in once, for a few minutes)."""
        return self.cell.ok("gridd", "web", "login").strip()


def start_web(cell: Cell) -> Iterator[WebServer]:
    """`gridd web` from the venv, on a free port of 127.0.0.1; its URL is the first line
    it prints, its output goes on to web.out in the cell (a pipe nobody reads could fill
    and stop it). Stopped by its PID (SIGTERM, then SIGKILL) at the end."""
    output = cell.root / "web.out"
    with open(output, "wb") as out:
        process = subprocess.Popen([str(BIN / "gridd"), "web"], env=cell.env, cwd=cell.root,
                                   stdout=out, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    try:
        wait_for(lambda: b"\n" in output.read_bytes() or process.poll() is not None,
                 timeout=START_TIMEOUT, what="gridd web to print its URL")
        first = output.read_text().partition("\n")[0]  # printed once it listens
        found = URL_LINE.match(first)
        yield WebServer(cell, found.group(1), process)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.kill(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


def launch(playwright) -> Browser:
    """Debian's Chromium, headless; without its sandbox as root, which it refuses."""
    args = ["--no-sandbox"] if os.geteuid() == 0 else []
    return playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=args)


def logged_in(browser: Browser, server: WebServer) -> Page:
    """A new browser context (its own cookies) logged in through a printed URL."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(EXPECT_TIMEOUT)
    page = new_page(context)
    page.goto(server.login_url())
    assert page.url == server.url, f"the login ended at {page.url}"
    return page


def new_page(context: BrowserContext) -> Page:
    """A tab of the context whose confirmations ("Delete job 3?") the user accepts."""
    page = context.new_page()
    page.on("dialog", lambda dialog: dialog.accept())
    return page


def send(form: Locator) -> None:
    """Submit a form as its user does, with its (first) submit button."""
    form.locator("button[type=submit], input[type=submit], button:not([type])").first.click()


def shot(page: Page, name: str) -> None:
    """The page as it shows now in $GRIDD_SCREENSHOTS/NAME.png, when that is set."""
    where = os.environ.get("GRIDD_SCREENSHOTS")
    if where:
        Path(where).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(where) / f"{name}.png"), full_page=True)


@pytest.fixture(scope="module", name="browser_cell")
def browser_cell_fixture(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cell]:
    """The cell of a module's browser tests (1 host x 2 slots)."""
    yield from make_cell(tmp_path_factory.mktemp("browser"), hosts=1, slots=2)


@pytest.fixture(scope="module", name="web_server")
def web_server_fixture(browser_cell: Cell) -> Iterator[WebServer]:
    yield from start_web(browser_cell)


@pytest.fixture(scope="module", name="browser")
def browser_fixture() -> Iterator[Browser]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = launch(playwright)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(name="page")
def page_fixture(browser: Browser, web_server: WebServer) -> Iterator[Page]:
    """A page logged in as the user running the tests (the cell's manager)."""
    page = logged_in(browser, web_server)
    try:
        yield page
    finally:
        page.context.close()

