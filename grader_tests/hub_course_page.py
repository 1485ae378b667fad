"""A student on the course page (grader.hub.course_page), counting every click of each step.

    walk = CoursePageWalk(user)         # user: a HubUser signed in, showing the course page
    with walk.step("fetch"):
        walk.click(walk.course.locator("button.fetch"))

A step is what a student sets out to do (open the list, fetch, open the notebook, submit, open the
feedback); ``walk.clicks`` holds how many clicks each took, in order. Switching to another browser
tab counts as a click, as it is one for a person.
"""
from __future__ import annotations

import copy
import time
from contextlib import contextmanager

from hub_browser import FEEDBACK_READOUT, UI_TIMEOUT_MS, HubUser
from playwright.sync_api import expect

FEEDBACK_WAIT_MS = 300_000  # Submit -> a feedback link, on a loaded machine


class CoursePageWalk:
    def __init__(self, user: HubUser):
        self.user = user
        self.course = user.page
        self.lab = None  # the browser tab the notebook links open (JupyterLab)
        self.feedback = None  # the browser tab the feedback links open
        self.clicks: list[tuple[str, int]] = []
        self._current: str | None = None

    @contextmanager
    def step(self, name: str):
        self.clicks.append((name, 0))
        self._current = name
        try:
            yield
        finally:
            self._current = None

    def _count(self) -> None:
        assert self._current is not None, "every click belongs to a step"
        name, clicks = self.clicks[-1]
        self.clicks[-1] = (name, clicks + 1)

    def click(self, locator) -> None:
        self._count()
        locator.click()

    def switch_to(self, page) -> None:
        """Bring another browser tab to the front: a click on the tab strip."""
        self._count()
        page.bring_to_front()

    def click_link_to_window(self, locator, window):
        """Click a link that opens in a named window: the new tab the first time, the same tab,
        navigated to the link, after. The tab, loaded."""
        href = locator.get_attribute("href")
        if window is None:
            with self.course.context.expect_page() as opened:
                self.click(locator)
            window = opened.value
        else:
            self.click(locator)
            window.wait_for_url(lambda url: url.endswith(href), timeout=UI_TIMEOUT_MS)
        window.wait_for_load_state("load")
        window.bring_to_front()  # as the browser shows the tab a link opens
        return window

    def lab_user(self) -> HubUser:
        """The same person, looking at the JupyterLab tab."""
        view = copy.copy(self.user)
        view.page = self.lab
        return view

    # ---- what the course page shows --------------------------------------------------------------
    def handin_rows(self, assignment: str):
        return self.course.locator(f"#assignment-{assignment} table.handins tbody tr")

    def wait_for_feedback_links(self, assignment: str, count: int) -> float:
        """Wait, without a click, until ``count`` hand-ins show a feedback link (the page reloads
        itself); the seconds it took."""
        started = time.monotonic()
        links = self.course.locator(f"#assignment-{assignment} table.handins a.feedback")
        expect(links).to_have_count(count, timeout=FEEDBACK_WAIT_MS)
        self.course.wait_for_load_state("load")
        return time.monotonic() - started

    def read_feedback(self) -> dict:
        """The feedback tab's summary, folds and text (hub_browser.FEEDBACK_READOUT)."""
        self.feedback.locator("table.feedback-summary").wait_for()
        return self.feedback.evaluate(FEEDBACK_READOUT)
