"""Every page kind the course makes for people passes axe-core in a real Chromium with no critical
and no serious violation: the feedback pages of a graded class, the status pages (ungradable,
refused, waiting), the class report, its similarity view, the students' course page on the hub (in
English with a failed Submit's alert, and in Chinese), and the docs site's student's guide.

A failure lists each violation with its rule id and the selectors of the elements
(``accessibility.described``). The graded class is ``graded_class`` (the demo's simulated class
handing in 02_softmax, one truncated file among them).
"""
from __future__ import annotations

import re

import pytest
from accessibility import axe_installed, axe_violations, blocking, described  # noqa: F401
from graded_class import ASSIGNMENT, UNGRADABLE_STUDENT
from mkdocs.commands.build import build
from mkdocs.config import load_config

from grader.grading.status_page import ungradable_page
from grader.hub.course_page import PageLinks, failure_html, render_course_page
from grader.hub.language_page import language_page
from grader.language.catalogue import LANGUAGES
from grader.service.pages import status_page_of
from grader.service.status_messages import HOURLY_LIMIT, OWN_WORK_TODO
from grader_tests.checkout import REPO_ROOT

pytestmark = pytest.mark.slow

HANDED_IN = "2026-03-01 10:00:00.000000 UTC"
# The status pages the grading service writes, one per colour and form (grader.service.watch).
SERVICE_STATUS_PAGES = {
    "refused": status_page_of("ada", ASSIGNMENT, HANDED_IN, "refused",
                              "the hand-in holds a file outside the assignment folder: notes/secret.txt",
                              "hand in your own work from your own account with Submit (nbgrader submit)."),
    "waiting": status_page_of("ada", ASSIGNMENT, HANDED_IN, "waiting to be graded",
                              "this course grades at most 3 submissions of an assignment per student per hour.",
                              "nothing; fetch feedback again after that time.", waiting=True),
    "refused, in Chinese": status_page_of("ada", ASSIGNMENT, HANDED_IN, "refused",
                                          "deep/link.txt is a symbolic link; hand in only ordinary files",
                                          OWN_WORK_TODO, language="zh", code="special-file"),
    "waiting, in Chinese": status_page_of("ada", ASSIGNMENT, HANDED_IN, "waiting to be graded", HOURLY_LIMIT,
                                          "nothing; fetch feedback again after the due date.", waiting=True,
                                          language="zh", values={"limit": 3, "at": "2026-03-01 11:00 UTC"}),
    "ungradable, in Chinese": ungradable_page(ASSIGNMENT, "softmax.ipynb is not a readable notebook: the file "
                                              "is empty; resubmit the file saved by Jupyter.", student="ada",
                                              handed_in=HANDED_IN, language="zh", code="notebook-unreadable"),
}
# The course page of a student with one hand-in graded and one awaiting its feedback.
COURSE_PAGE_LISTING = (
    [{"course_id": "course101", "assignment_id": ASSIGNMENT, "status": "fetched",
      "notebooks": [{"notebook_id": "softmax", "path": f"{ASSIGNMENT}/softmax.ipynb"}]},
     {"course_id": "course101", "assignment_id": "03_readout", "status": "released", "notebooks": []}],
    {ASSIGNMENT: [{"timestamp": "2026-03-01 10:05:00.000000 UTC", "has_exchange_feedback": False,
                   "has_local_feedback": False, "notebooks": [{"notebook_id": "softmax"}]},
                  {"timestamp": HANDED_IN, "has_exchange_feedback": True,
                   "notebooks": [{"notebook_id": "softmax", "local_feedback_path": "/f/softmax.html"}]}]})
COURSE_PAGES = {
    "in English, after a failed Submit": ("en", failure_html("submit", ASSIGNMENT, "Disk quota exceeded", "en")),
    "in Chinese": ("zh", ""),
}
# The page reloads itself while a hand-in awaits feedback; opened from a file, that would leave it.
SELF_RELOAD = re.compile(r'<meta http-equiv="refresh"[^>]*>')
# The similarity view: the "Possibly written together" section with its first pair's side by side open.
OPEN_FIRST_PAIR = "document.querySelector('table[data-table=\"similar_pairs\"] a').click()"


def assert_no_blocking_violations(violations: list[dict]) -> None:
    found = blocking(violations)
    if found:
        pytest.fail("axe-core found critical or serious violations:\n" + described(found))


def test_every_feedback_page_of_a_graded_class_has_no_serious_violation(browser, axe_installed, graded_class):
    pages = sorted(p for p in (graded_class.course.root / "feedback").glob(f"*/{ASSIGNMENT}/*.html")
                   if p.parts[-3] != UNGRADABLE_STUDENT)
    assert len(pages) >= 5, f"the graded class has only {len(pages)} feedback pages"
    for page in pages:
        found = blocking(axe_violations(browser, page))
        if found:
            pytest.fail(f"{page.parts[-3]}'s feedback page:\n" + described(found))


def test_the_ungradable_status_page_has_no_serious_violation(browser, axe_installed, graded_class):
    assert_no_blocking_violations(axe_violations(
        browser, graded_class.course.feedback_page(UNGRADABLE_STUDENT, ASSIGNMENT)))


@pytest.mark.parametrize("state", sorted(SERVICE_STATUS_PAGES))
def test_the_services_status_pages_have_no_serious_violation(state, browser, axe_installed, tmp_path):
    page = tmp_path / f"{state}.html"
    page.write_text(SERVICE_STATUS_PAGES[state], encoding="utf-8")
    assert_no_blocking_violations(axe_violations(browser, page))


@pytest.mark.parametrize("kind", sorted(COURSE_PAGES))
def test_the_students_course_page_has_no_serious_violation(kind, browser, axe_installed, tmp_path):
    language, problem = COURSE_PAGES[kind]
    page = tmp_path / "course.html"
    links = PageLinks("/user/ada/", '<input type="hidden" name="_xsrf" value="token">', hub_url="/")
    html = render_course_page(*COURSE_PAGE_LISTING, links, language, problem)
    page.write_text(SELF_RELOAD.sub("", html), encoding="utf-8")
    assert_no_blocking_violations(axe_violations(browser, page))


@pytest.mark.parametrize("current", sorted(LANGUAGES))
def test_the_hubs_language_page_has_no_serious_violation(current, browser, axe_installed, tmp_path):
    page = tmp_path / "language.html"
    page.write_text(language_page(LANGUAGES, current, '<input type="hidden" name="_xsrf" value="token">',
                                  "/hub/language", "/user/ada/course"), encoding="utf-8")
    assert_no_blocking_violations(axe_violations(browser, page))


def test_the_class_report_has_no_serious_violation(browser, axe_installed, graded_class):
    assert_no_blocking_violations(axe_violations(browser, graded_class.page))


def test_the_similarity_view_has_no_serious_violation(browser, axe_installed, graded_class):
    assert_no_blocking_violations(axe_violations(browser, graded_class.page, before=OPEN_FIRST_PAIR,
                                                 include="#similar-" + ASSIGNMENT))


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    folder = tmp_path_factory.mktemp("site")
    build(load_config(config_file=str(REPO_ROOT / "mkdocs.yml"), site_dir=str(folder), strict=True))
    return folder


def test_the_docs_students_guide_has_no_serious_violation(browser, axe_installed, site):
    assert_no_blocking_violations(axe_violations(browser, site / "students.html"))


SUMMARY_LINKS = "Array.from(document.querySelectorAll('div.feedback-summary a[href]')).map(a => a.getAttribute('href'))"
FOCUSED_LINK = "document.activeElement.closest('div.feedback-summary') ? document.activeElement.getAttribute('href') : null"


def test_the_tab_key_reaches_every_link_of_a_feedback_pages_summary_in_order(browser, graded_class):
    page_path = max((p for p in (graded_class.course.root / "feedback").glob(f"*/{ASSIGNMENT}/*.html")
                     if p.parts[-3] != UNGRADABLE_STUDENT),
                    key=lambda p: p.read_text(encoding="utf-8").count('class="failed"'))
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(page_path.resolve().as_uri(), wait_until="load")
        links = page.evaluate(SUMMARY_LINKS)
        reached = []
        for _ in range(len(links) + 40):  # nbgrader's index of scores comes first
            page.keyboard.press("Tab")
            href = page.evaluate(FOCUSED_LINK)
            if href is not None:
                reached.append(href)
            if len(reached) == len(links):
                break
    finally:
        context.close()
    assert len(links) >= 2, f"{page_path.parts[-3]}'s summary has {len(links)} links"
    assert reached == links
