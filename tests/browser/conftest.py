"""The playground in a real browser: Debian's Chromium (``make`` installs it: ``apt-get install
chromium``), driven by Playwright for Python through the system browser's executable (never
``playwright install``, which downloads a browser). Each test gets a fresh browser context (its own
``sessionStorage``) and the log of every request the page made."""

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Playwright, sync_playwright

from scripts.template import ROOT
from tests.conftest import TEST_API_KEY, local_api

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
ARTIFACTS = ROOT / "build" / "playground"
"""Screenshots of each tool's page, kept as test artifacts (build/ is not committed)."""


@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    """Module-scoped: Playwright's sync API keeps an asyncio loop running in this thread while it
    is open, and the tests after this directory's (the MCP client's) run loops of their own."""
    assert Path(CHROMIUM).is_file(), f"{CHROMIUM} not found: apt-get install chromium (make test does)"
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="module")
def browser(playwright: Playwright) -> Iterator[Browser]:
    """Playwright's ``launch`` starts the browser on a new, empty user data directory of its own
    (removed when it closes): never the user's profile."""
    launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
    yield launched
    launched.close()


@dataclass
class Tab:
    """One browser tab on the playground, and every request it made (URL and method)."""

    page: Page
    base_url: str
    requests: list[tuple[str, str]] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)

    def open(self, key: str | None = TEST_API_KEY) -> Any:
        response = self.page.goto(f"{self.base_url}/v1/playground")
        if key is not None:
            self.page.fill("#api-key", key)
            self.page.click("#use-key")
        self.page.wait_for_selector("body[data-ready=true]")
        return response


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    opened = browser.new_context(viewport={"width": 1400, "height": 1000})
    yield opened
    opened.close()


@pytest.fixture(scope="module")
def iam_base_url() -> Iterator[str]:
    """``make serve AUTH_MODE=IAM``'s API on a free port."""
    yield from local_api("IAM")


@pytest.fixture(scope="module")
def open_base_url() -> Iterator[str]:
    """``make serve AUTH_MODE=NONE``'s API on a free port."""
    yield from local_api("NONE")


def new_tab(context: BrowserContext, base_url: str) -> Tab:
    page = context.new_page()
    tab = Tab(page, base_url)
    page.on("request", lambda request: tab.requests.append((request.method, request.url)))
    page.on("console", lambda message: tab.console_errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: tab.console_errors.append(str(error)))
    return tab


@pytest.fixture
def tab(context: BrowserContext, base_url: str) -> Tab:
    """The playground of ``make serve``'s API (API_KEY mode) in a fresh context."""
    return new_tab(context, base_url)
