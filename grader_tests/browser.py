"""Open a page in a real headless Chromium (the distribution's ``/usr/bin/chromium``) and report
what happened: console errors, every network request, the DOM after load, and a screenshot.

    with chromium() as browser:
        visit = open_page(browser, path_or_url, artefacts / "page.png")
        visit.requests, visit.console_errors, visit.dom, visit.title

``browser`` is the session-scoped pytest fixture around :func:`chromium`. Playwright drives the
browser; its own browser downloads are never used (``executable_path`` is the Debian package).
"""
from __future__ import annotations

import os
import shutil
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

import pytest

CHROMIUM = os.environ.get("GRADER_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
# Where screenshots go: a folder of the pytest run (kept after the run for a person to look at).
ARTEFACTS_ENV = "GRADER_TEST_ARTEFACTS"
LOAD_TIMEOUT_MS = 60_000  # generous: up to eight test processes share two cores
SETTLE_MS = 500  # after load, time for timers and late handlers (onerror of a broken image, ...)


@dataclass
class Visit:
    """What one page did while it loaded.

    requests: every URL the page asked for after the page itself (data: URLs included, since the
    browser reports them too; :attr:`network_requests` leaves those out).
    """

    url: str
    title: str = ""
    dom: str = ""
    console_errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    screenshot: Path | None = None
    marks: dict = field(default_factory=dict)

    @property
    def network_requests(self) -> list[str]:
        """Requests that would leave the page: anything but ``data:``/``blob:``/``about:`` URLs."""
        return [url for url in self.requests if not url.startswith(("data:", "blob:", "about:"))]


def chromium_available() -> bool:
    return Path(CHROMIUM).exists() or shutil.which(CHROMIUM) is not None


@contextmanager
def chromium() -> Iterator[object]:
    """A headless Chromium browser (Playwright ``Browser``), closed on exit."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def open_page(browser, target: str | Path, screenshot: Path | None = None, *, marks_script: str | None = None,
              wait_for: str | None = None, cookies: list[dict] | None = None,
              viewport: dict | None = None) -> Visit:
    """Load ``target`` (a file path or a URL) in a fresh browser context and record what it did.

    marks_script: a JavaScript expression evaluated after load whose (JSON) value is stored in
    :attr:`Visit.marks` (e.g. the markers a payload sets when it runs).
    wait_for: a JavaScript expression to wait for after load (a page that fills itself in from
    an API); a TimeoutError if it never becomes true.
    viewport: the window's size, ``{"width": px, "height": px}`` (Playwright's 1280 × 720 without).
    """
    url = Path(target).resolve().as_uri() if isinstance(target, Path) or "://" not in str(target) else str(target)
    visit = Visit(url=url)
    context = browser.new_context(**({"viewport": viewport} if viewport else {}))
    if cookies:
        context.add_cookies(cookies)
    page = context.new_page()
    page.on("console", lambda message: visit.console_errors.append(message.text)
            if message.type == "error" else None)
    page.on("pageerror", lambda error: visit.console_errors.append(str(error)))

    def record(request):
        if request.url == url and request.is_navigation_request() and request.frame == page.main_frame:
            return  # the page itself
        visit.requests.append(request.url)

    page.on("request", record)
    try:
        page.goto(url, wait_until="load", timeout=LOAD_TIMEOUT_MS)
        if wait_for:
            page.wait_for_function(wait_for, timeout=LOAD_TIMEOUT_MS)
        page.wait_for_timeout(SETTLE_MS)
        visit.title = page.title()
        visit.dom = page.content()
        if marks_script:
            visit.marks = page.evaluate(marks_script)
        if screenshot is not None:
            screenshot.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(screenshot), full_page=True)
            visit.screenshot = screenshot
    finally:
        context.close()
    return visit


def artefact_dir(tmp_path_factory) -> Path:
    """The folder for screenshots: ``$GRADER_TEST_ARTEFACTS`` if set, else one of the pytest run."""
    configured = os.environ.get(ARTEFACTS_ENV)
    if configured:
        path = Path(configured)
        path.mkdir(parents=True, exist_ok=True)
        return path
    return tmp_path_factory.mktemp("browser-artefacts")


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for the whole test session; skips where the package is missing
    (``.ci/run`` installs it, so CI never skips)."""
    if not chromium_available():
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing; .ci/run installs the chromium package")
        pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)")
    with chromium() as launched:
        yield launched


@pytest.fixture(scope="session")
def browser_artefacts(tmp_path_factory) -> Path:
    return artefact_dir(tmp_path_factory)
