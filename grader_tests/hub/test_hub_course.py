"""The course on a real JupyterHub, in a real browser: a student's path and the instructor's.

``course_hub`` (hub_session.py) is the hub ``grader hub up`` starts: PAM logins with the accounts'
own passwords, JupyterLab 4 with nbgrader's extensions, the exchange, ``grader watch``. The student
path runs once per session (``student_path``, hub_student_path.py), every step through JupyterLab's
pages, a screenshot after each (test artefacts); each test checks one thing it showed.

Run as root (accounts are created and removed); skipped where the machine lacks what the hub needs
(CI installs it and fails instead).
"""
from __future__ import annotations

import time

import pytest
from hub_browser import HubUser, read_feedback
from hub_session import ASSIGNMENT
from hub_student_path import softmax_row
from nbgrader.api import Gradebook

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("course_hub")]

COMMENT = "Well done: the shift by the maximum is exactly L3 section 3."


def test_a_freshly_fetched_notebook_is_not_marked_unsaved_before_any_edit(student_path):
    assert student_path.unsaved_when_opened is False


def test_running_the_wrong_softmax_shows_the_visible_test_failing_in_the_notebook(student_path):
    assert "large logits must not give nan or inf" in student_path.test_output


def test_validate_shows_the_visible_tests_result_and_nothing_hidden(student_path):
    text = student_path.validate
    assert "The following cell failed" in text and "large logits must not give nan or inf" in text
    assert "probe(" not in text and "HIDDEN" not in text


def test_the_first_feedback_names_the_missing_max_subtraction(student_path):
    row = softmax_row(student_path.first_feedback)
    assert row[1] != "4 / 4" and "no max subtraction" in row[2]
    assert student_path.first_feedback["fixFirst"].startswith("Fix first: softmax")


def test_the_feedback_page_opens_inside_jupyterlab_with_its_summary_visible_and_nothing_blocked(student_path):
    feedback = student_path.first_feedback
    assert feedback["summaryVisible"] and len(feedback["rows"]) >= 9
    assert feedback["brokenImages"] == []
    assert [line for line in student_path.console if "Refused to" in line or "Content Security Policy" in line] == []


def test_the_feedback_page_shows_the_lessons_maths_rendered_not_as_source(student_path):
    feedback = student_path.first_feedback
    # 02_softmax writes its maths in Unicode (Σⱼ, √d_k); any MathML element must have a size.
    assert "Σⱼ exp(xⱼ)" in feedback["text"] and "√d_k" in feedback["text"]
    assert "$" not in feedback["text"] and "\\frac" not in feedback["text"]
    assert all(width > 0 and height > 0 for width, height in feedback["maths"])


def test_jupyterlab_shows_a_feedback_page_without_offering_to_trust_it(student_path):
    assert student_path.trust_buttons == [0, 0]


def test_the_fixed_softmax_gets_full_marks_in_the_next_feedback(student_path):
    assert softmax_row(student_path.second_feedback)[1] == "4 / 4"
    assert softmax_row(student_path.second_feedback)[2].startswith("✓")


def test_feedback_arrives_in_the_assignment_list_within_the_timeout(student_path):
    assert len(student_path.seconds_to_feedback) == 2
    assert all(0 < seconds < 300 for seconds in student_path.seconds_to_feedback)


# ---- the instructor ----------------------------------------------------------------------------------

def _gradebook(course_hub) -> dict[str, float]:
    """grade_id -> score of the student's 02_softmax in the course's gradebook."""
    with Gradebook(course_hub.layout.gradebook_url) as gb:
        notebook = gb.find_submission_notebook("softmax", ASSIGNMENT, course_hub.student(0).name)
        return {grade.name: float(grade.score) for grade in notebook.grades}


@pytest.fixture(scope="module")
def instructor(course_hub, browser, hub_artefacts, student_path):
    user = HubUser(browser, course_hub.url, course_hub.instructor, hub_artefacts / "instructor")
    try:
        user.login()
        yield user
    finally:
        user.close()


def test_a_students_jupyterlab_has_no_formgrader(course_hub, student_path, browser, hub_artefacts):
    user = HubUser(browser, course_hub.url, course_hub.student(1), hub_artefacts / "other-student")
    try:
        user.login()
        user.page.locator("#jp-menu-panel div.lm-MenuBar-itemLabel", has_text="Nbgrader").click()
        items = user.page.locator(".lm-Menu .lm-Menu-itemLabel").all_inner_texts()
        user.shot("nbgrader-menu")
        response = user.page.goto(f"{user.server_url}/formgrader")
    finally:
        user.close()
    assert "Assignment List" in items and "Formgrader" not in items
    assert response.status == 404


def _formgrader_frame(user: HubUser):
    """The formgrader JupyterLab shows in a tab (Nbgrader > Formgrader), once its page has loaded."""
    user.menu("Nbgrader", "Formgrader")
    frame_element = user.page.locator("#jp-main-dock-panel .jp-IFrame:visible iframe")
    frame_element.wait_for()
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        frame = frame_element.element_handle().content_frame()
        if frame is not None and "/formgrader" in frame.url and frame.locator("body").count():
            try:
                if frame.evaluate("() => document.readyState") == "complete" and frame.locator("table").count():
                    return frame
            except Exception:  # the frame navigated while it was asked
                pass
        time.sleep(0.5)
    raise TimeoutError("the formgrader did not load in its JupyterLab tab")


def _rows(frame, selector: str, containing: str) -> list[list[str]]:
    """The cell texts of the table rows ``selector``, once a row shows ``containing`` (the tables
    are filled in by the formgrader's script)."""
    frame.wait_for_function(f"Array.from(document.querySelectorAll({selector!r})).some(r => "
                            f"r.innerText.includes({containing!r}))", timeout=120_000)
    return frame.eval_on_selector_all(selector, "rows => rows.map(r => Array.from(r.cells).map(c => c.innerText.trim()))")


@pytest.fixture(scope="module")
def formgrader_views(instructor, course_hub):
    """(the assignment's submissions as the formgrader lists them, the student's submission view's
    per-cell scores), both opened inside the instructor's JupyterLab."""
    frame = _formgrader_frame(instructor)
    instructor.shot("01-formgrader")
    frame.goto(f"{instructor.server_url}/formgrader/manage_submissions/{ASSIGNMENT}")
    submissions = _rows(frame, "table tbody tr", course_hub.student(0).name)
    instructor.shot("02-manage-submissions")
    with Gradebook(course_hub.layout.gradebook_url) as gb:
        notebook_id = gb.find_submission_notebook("softmax", ASSIGNMENT, course_hub.student(0).name).id
    frame.goto(f"{instructor.server_url}/formgrader/submissions/{notebook_id}/")
    frame.wait_for_function("document.querySelectorAll('input.score').length > 0 && "
                            "Array.from(document.querySelectorAll('input.score')).every(i => i.placeholder !== '')",
                            timeout=120_000)
    scores = dict(frame.eval_on_selector_all("input.score", "els => els.map(e => [e.id, e.placeholder])"))
    instructor.shot("03-submission")
    return frame, submissions, scores


def test_the_formgrader_lists_the_students_submission_graded_with_the_gradebook_score(formgrader_views, course_hub):
    _frame, submissions, _scores = formgrader_views
    row = next(r for r in submissions if course_hub.student(0).name in r)
    assert "graded" in row
    total = sum(_gradebook(course_hub).values())
    shown = next(cell for cell in row if "/" in cell and cell.replace(" ", "").split("/")[0].replace(".", "").isdigit())
    assert float(shown.split("/")[0]) == pytest.approx(total, abs=0.006)


def test_the_submission_view_shows_each_cell_score_of_the_gradebook(formgrader_views, course_hub):
    _frame, _submissions, scores = formgrader_views
    assert {name: float(value) for name, value in scores.items()} == pytest.approx(_gradebook(course_hub), abs=0.006)
    assert float(scores["test_softmax"]) == 4.0  # the latest submission: the fixed softmax


def test_both_submissions_of_the_student_were_graded(student_path, course_hub):
    """nbgrader's gradebook keeps the latest submission; the service's log records each graded one."""
    log = course_hub.layout.log("watch").read_text()
    graded = [line for line in log.splitlines() if f" {course_hub.student(0).name} {ASSIGNMENT} graded " in line]
    assert len(graded) >= 2 and "no max subtraction" in graded[0]


def test_a_manual_comment_reaches_the_students_next_feedback(formgrader_views, instructor, course_hub, browser,
                                                            hub_artefacts):
    frame, _submissions, _scores = formgrader_views
    with instructor.page.expect_response(lambda r: "/formgrader/api/comment/" in r.url
                                         and r.request.method == "PUT") as put:
        frame.fill("textarea#softmax-comment", COMMENT)
        frame.press("textarea#softmax-comment", "Tab")
    assert put.value.status == 200
    instructor.shot("04-comment")
    user = HubUser(browser, course_hub.url, course_hub.student(0), hub_artefacts / "student")
    try:
        user.login()
        user.open_assignment_list()
        before = user.submission_rows(ASSIGNMENT).count() - 1
        user.submit(ASSIGNMENT)
        user.wait_for_feedback(ASSIGNMENT, before + 1)
        user.fetch_and_view_feedback(ASSIGNMENT)
        user.open_file("softmax.html")
        feedback = read_feedback(user)
        user.shot("09-feedback-with-comment")
    finally:
        user.close()
    assert COMMENT in feedback["text"]
