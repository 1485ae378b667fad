"""nbgrader's formgrader on a course graded by ``grader autograde``, in a real Jupyter server and Chromium.

A Jupyter server with nbgrader's formgrader (``formgrader_server.FormgraderServer``) serves the shared graded class
(``graded_class``) on a free localhost port with token authentication. The assignment and
submission views, filled in by the formgrader's own JavaScript from its API, show the gradebook's
scores; a manual score typed into the submission view reaches the gradebook.

The formgrader's submission view loads MathJax from a CDN (nbconvert's default); with no
network that request fails and formgrade.js reports ``MathJax is not defined``. Those two
messages are expected here and allowed, nothing else is.
"""
from __future__ import annotations

import re
import shutil

import pytest
from browser import open_page
from formgrader_server import FormgraderServer
from graded_class import ASSIGNMENT, LATE_STUDENT, UNGRADABLE_STUDENT
from nbgrader.api import Gradebook

from grader.course import Course
from grader.reporting.roster_names import add_roster_names

pytestmark = pytest.mark.slow

NOTEBOOK = "softmax"
OFFLINE_MATHJAX = re.compile(r"Failed to load resource: net::ERR_|MathJax is not defined")


def login_cookies(server: FormgraderServer, browser) -> list[dict]:
    """The session cookies of a browser that logged in with the token on the login page.

    (A token in a page's URL authorises that page, not the API calls its scripts make.)
    """
    context = browser.new_context()
    try:
        context.new_page().goto(f"{server.origin}/login?token={server.token}", wait_until="load", timeout=60_000)
        return context.cookies()
    finally:
        context.close()


@pytest.fixture(scope="module")
def formgrader(graded_class, tmp_path_factory, browser):
    """(server, course, login cookies) on a copy of the graded class: manual grading here changes only the copy."""
    root = tmp_path_factory.mktemp("formgrader") / "course"
    shutil.copytree(graded_class.course.root, root)
    course = Course(root)
    with FormgraderServer(course, root.parent / "jupyter-server.log") as server:
        yield server, course, login_cookies(server, browser)


def _rows_when_filled(selector: str, count: int) -> str:
    """A script for ``open_page``'s marks: wait until ``count`` table rows are drawn, then their cell texts."""
    return f"""new Promise((resolve, reject) => {{
        const started = Date.now();
        const poll = () => {{
            const rows = Array.from(document.querySelectorAll({selector!r}));
            if (rows.length >= {count}) resolve(rows.map(r => Array.from(r.cells).map(c => c.innerText.trim())));
            else if (Date.now() - started > 60000) reject(new Error('only ' + rows.length + ' rows drawn'));
            else setTimeout(poll, 200);
        }};
        poll();
    }})"""


def _gradebook_scores(course) -> dict[str, tuple[float, float]]:
    with Gradebook(course.db_url) as gb:
        return {s.student.id: (float(s.score), float(s.max_score)) for s in gb.assignment_submissions(ASSIGNMENT)}


def _fraction(text: str) -> tuple[float, float]:
    score, max_score = (float(part) for part in text.split("/"))
    return score, max_score


def test_manage_submissions_view_shows_every_student_with_the_gradebook_score(formgrader, browser, browser_artefacts):
    server, course, cookies = formgrader
    expected = _gradebook_scores(course)
    seen = open_page(browser, f"{server.origin}/formgrader/manage_submissions/{ASSIGNMENT}",
                     browser_artefacts / "formgrader-manage-submissions.png",
                     cookies=cookies, marks_script=_rows_when_filled("table tbody tr", len(expected)))
    assert seen.console_errors == []
    shown = {row[1]: _fraction(row[4]) for row in seen.marks}
    assert shown.keys() == expected.keys() and UNGRADABLE_STUDENT in shown
    assert all(shown[s] == pytest.approx(expected[s], abs=0.006) for s in expected)
    assert all(re.match(r"^http://127\.0\.0\.1:", url) for url in seen.network_requests)


def test_gradebook_notebook_view_shows_the_same_scores(formgrader, browser, browser_artefacts):
    """The manual-grading list of a notebook: every submission with an autograded notebook.

    The ungradable hand-in has none (its file was not a notebook), so it is listed only in the
    manage-submissions view, with its 0.
    """
    server, course, cookies = formgrader
    expected = sorted(v for s, v in _gradebook_scores(course).items() if s != UNGRADABLE_STUDENT)
    seen = open_page(browser, f"{server.origin}/formgrader/gradebook/{ASSIGNMENT}/{NOTEBOOK}",
                     browser_artefacts / "formgrader-gradebook-notebook.png",
                     cookies=cookies, marks_script=_rows_when_filled("table tbody tr", len(expected)))
    assert seen.console_errors == []
    shown = sorted(_fraction(row[2]) for row in seen.marks)
    assert len(shown) == len(expected)
    assert all(got == pytest.approx(want, abs=0.006) for got, want in zip(shown, expected))


def _submission_page(server, cookies, course, browser, student):
    with Gradebook(course.db_url) as gb:
        notebook = gb.find_submission_notebook(NOTEBOOK, ASSIGNMENT, student)
        auto_scores = {g.name: float(g.auto_score) for g in notebook.grades}
        notebook_id = notebook.id
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_cookies(cookies)
    page = context.new_page()
    page.set_default_timeout(60_000)
    errors = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server.origin}/formgrader/submissions/{notebook_id}/", wait_until="load")
    page.wait_for_function("Array.from(document.querySelectorAll('input.score')).every(i => i.placeholder !== '')")
    return context, page, errors, auto_scores


def test_submission_view_shows_each_cell_score_from_the_gradebook(formgrader, browser, browser_artefacts):
    server, course, cookies = formgrader
    context, page, errors, auto_scores = _submission_page(server, cookies, course, browser, LATE_STUDENT)
    try:
        shown = dict(page.eval_on_selector_all("input.score", "els => els.map(e => [e.id, e.placeholder])"))
        page.screenshot(path=str(browser_artefacts / "formgrader-submission.png"))
    finally:
        context.close()
    assert {name: float(value) for name, value in shown.items()} == pytest.approx(auto_scores, abs=0.006)
    assert [e for e in errors if not OFFLINE_MATHJAX.search(e)] == []


def test_a_manual_score_typed_into_the_submission_view_reaches_the_gradebook(formgrader, browser):
    server, course, cookies = formgrader
    context, page, errors, auto_scores = _submission_page(server, cookies, course, browser, LATE_STUDENT)
    before = _gradebook_scores(course)[LATE_STUDENT][0]
    try:
        with page.expect_response(lambda r: "/formgrader/api/grade/" in r.url and r.request.method == "PUT") as put:
            page.fill("input#test_softmax", "3.5")
            page.press("input#test_softmax", "Tab")
        assert put.value.status == 200
    finally:
        context.close()
    with Gradebook(course.db_url) as gb:
        grade = gb.find_grade("test_softmax", NOTEBOOK, ASSIGNMENT, LATE_STUDENT)
        assert (grade.manual_score, grade.score, grade.auto_score) == (3.5, 3.5, auto_scores["test_softmax"])
    assert _gradebook_scores(course)[LATE_STUDENT][0] == pytest.approx(before - auto_scores["test_softmax"] + 3.5)
    assert [e for e in errors if not OFFLINE_MATHJAX.search(e)] == []


def test_the_manage_students_view_lists_students_by_the_rosters_names(formgrader, browser, browser_artefacts, tmp_path):
    """After `grader roster`, the formgrader lists "Last, First" from the roster, not "None, None"."""
    server, course, cookies = formgrader
    students = sorted(_gradebook_scores(course))
    rows = "".join(f'"Surname{i}, Given{i}",{1000 + i},S{i},{student},Sec 1\n' for i, student in enumerate(students))
    roster = tmp_path / "roster.csv"
    roster.write_text("Student,ID,SIS User ID,SIS Login ID,Section\n" + rows, encoding="utf-8")
    add_roster_names(course.db_url, roster)
    seen = open_page(browser, f"{server.origin}/formgrader/manage_students",
                     browser_artefacts / "formgrader-manage-students.png",
                     cookies=cookies, marks_script=_rows_when_filled("table tbody tr", len(students)))
    names = {row[1]: row[0] for row in seen.marks}
    assert names == {student: f"Surname{i}, Given{i}" for i, student in enumerate(students)}
