"""axe-core (the npm package) run over a page in the suite's real Chromium.

    violations = axe_violations(browser, path_or_url)            # every rule axe-core runs by default
    assert blocking(violations) == [], described(blocking(violations))

axe-core is installed with npm from ``grader_tests/axe/package.json`` and its lock file (pinned
version, integrity hash) into ``grader_tests/axe/node_modules/``: ``.ci/run`` runs ``npm ci`` there.
Where it is missing the tests that need it skip (fail under ``CI=true``) naming that command. The
pages forbid scripts with a Content-Security-Policy; the browser context bypasses it so that axe
can be injected, which changes nothing axe measures (no page here runs a script of its own).
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

AXE_FOLDER = Path(__file__).parent / "axe"
AXE_SCRIPT = AXE_FOLDER / "node_modules" / "axe-core" / "axe.min.js"
INSTALL_COMMAND = "npm ci --prefix grader_tests/axe"
# The impacts that fail a page: WCAG 2.1 AA is the bar, and axe-core rates a failure of it serious
# or critical; "moderate" and "minor" are mostly best-practice advice.
BLOCKING_IMPACTS = frozenset({"critical", "serious"})
LOAD_TIMEOUT_MS = 60_000  # up to eight test processes share two cores


def axe_version() -> str:
    """The installed axe-core's version (``4.14.1``), as its package.json states it."""
    return json.loads((AXE_SCRIPT.parent / "package.json").read_text(encoding="utf-8"))["version"]


def axe_violations(browser, target: str | Path, *, include: str | None = None, before: str | None = None,
                   viewport: dict | None = None, signed_in_as=None) -> list[dict]:
    """axe-core's violations on ``target`` (a file path or a URL), each as axe reports it
    (``id``, ``impact``, ``help``, ``nodes`` with their ``target`` selectors).

    include: a CSS selector; only that part of the page is checked (the whole page without).
    before: a JavaScript expression evaluated after load, before axe runs (a click that opens a view).
    viewport: the window's size in CSS pixels, ``{"width": px, "height": px}``.
    signed_in_as: a Playwright browser context whose cookies the page is opened with (a person
    signed in to the hub); axe itself runs past the page's Content-Security-Policy, as on a file.
    """
    url = Path(target).resolve().as_uri() if isinstance(target, Path) or "://" not in str(target) else str(target)
    options = {"viewport": viewport} if viewport else {}
    if signed_in_as is not None:
        options["storage_state"] = signed_in_as.storage_state()
    context = browser.new_context(bypass_csp=True, **options)
    try:
        page = context.new_page()
        page.goto(url, wait_until="load", timeout=LOAD_TIMEOUT_MS)
        if before:
            page.evaluate(before)
        page.add_script_tag(path=str(AXE_SCRIPT))
        checked = f"{{include: [{json.dumps(include)}]}}" if include else "document"
        return page.evaluate(f"axe.run({checked}, {{resultTypes: ['violations']}})")["violations"]
    finally:
        context.close()


def blocking(violations: list[dict]) -> list[dict]:
    """The violations rated critical or serious."""
    return [v for v in violations if v.get("impact") in BLOCKING_IMPACTS]


def described(violations: list[dict]) -> str:
    """One line per violation: its impact, rule id, help text and the selectors of the elements."""
    lines = []
    for violation in violations:
        targets = ", ".join(" ".join(map(str, node["target"])) for node in violation["nodes"][:8])
        more = len(violation["nodes"]) - 8
        lines.append(f"{violation['impact']} {violation['id']} ({violation['help']}): {targets}"
                     + (f" and {more} more" if more > 0 else ""))
    return "\n".join(lines) or "no violations"


@pytest.fixture(scope="session")
def axe_installed() -> Path:
    """The axe-core script; skips (fails under CI) naming the install command where it is missing."""
    if not AXE_SCRIPT.exists():
        message = f"axe-core is not installed: run `{INSTALL_COMMAND}` (.ci/run does)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return AXE_SCRIPT
