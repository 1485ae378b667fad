"""A real headless Chromium for page tests: open a file or URL, get what a reader's browser saw.

Uses Playwright for Python with the distribution's Chromium (``/usr/bin/chromium``, installed by
``.ci/run``; Playwright's own browser download is never used). ``visit`` returns the console
errors, every network request, the DOM after load, and saves a full-page screenshot under the
test-artefact folder (``$GRADER_TEST_ARTEFACTS``, default ``test-artefacts/`` in the repository).

    from browser import browser, visit  # noqa: F401 (the session's browser fixture)

    def test_page(browser, tmp_path):
        seen = visit(browser, tmp_path / "page.html", "page")
        assert seen.console_errors == []
"""
from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pytest

CHROMIUM = os.environ.get("GRADER_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ARTEFACTS = Path(os.environ.get("GRADER_TEST_ARTEFACTS", Path(__file__).resolve().parent.parent / "test-artefacts"))
TIMEOUT_MS = 60_000  # generous: the machine may be busy


@dataclass
class Visit:
    """What the browser saw on one page.

    console_errors: console messages of type "error" and uncaught page errors, as text.
    requests: URL of every request the page made (the page's own URL first).
    dom: the serialised DOM after load (and after ``ready``, if given).
    screenshot: the PNG saved under ARTEFACTS.
    """

    url: str
    console_errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    dom: str = ""
    screenshot: Path | None = None


def chromium_available() -> bool:
    return Path(CHROMIUM).exists() or shutil.which(CHROMIUM) is not None


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for the whole test session (skips when Chromium or Playwright is missing)."""
    sync_api = pytest.importorskip("playwright.sync_api")
    if not chromium_available():
        pytest.skip(f"no Chromium at {CHROMIUM} (.ci/run installs the Debian package 'chromium')")
    with sync_api.sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield instance
        finally:
            instance.close()


def artefact_path(name: str, suffix: str = ".png") -> Path:
    """A file under ARTEFACTS named after ``name`` (made safe for a file name)."""
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    return ARTEFACTS / (re.sub(r"[^\w.-]+", "_", name) + suffix)


def visit(browser, target: str | Path, name: str, ready: Callable | None = None,
          width: int = 1280, height: int = 900) -> Visit:
    """Open ``target`` (a file path or a URL) in a fresh page, wait for it to load, record what happened.

    ready: optional ``ready(page)`` run after load, e.g. to wait for a selector or click.
    """
    url = Path(target).resolve().as_uri() if isinstance(target, Path) else target
    seen = Visit(url)
    context = browser.new_context(viewport={"width": width, "height": height})
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.on("console", lambda m: seen.console_errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: seen.console_errors.append(f"uncaught: {e}"))
        page.on("request", lambda r: seen.requests.append(r.url))
        page.goto(url, wait_until="load", timeout=TIMEOUT_MS)
        if ready is not None:
            ready(page)
        seen.dom = page.content()
        seen.screenshot = artefact_path(name)
        page.screenshot(path=str(seen.screenshot), full_page=True)
    finally:
        context.close()
    return seen
