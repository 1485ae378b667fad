"""The student's path on the course hub, once per test session (``student_path``).

A student logs in, opens the assignment list, fetches 02_softmax, opens the notebook, writes a
softmax without the max subtraction, runs it, validates, submits, waits in the assignment list
for the feedback and opens it in JupyterLab; then fixes the function and hands in again. A
screenshot after each step goes to the test artefacts (``hub-student/``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import nbformat
import pytest
from hub_browser import HubUser, read_feedback
from hub_session import ASSIGNMENT, NOTEBOOK

from grader.demo.corpus import get_submission
from grader_tests.checkout import REPO_ROOT

WRONG_SOFTMAX = get_submission(ASSIGNMENT, "softmax_no_max_subtraction").cells["softmax"]
SOFTMAX_MARKER = "def softmax(x, axis=-1):"
SOFTMAX_TEST = "softmax: rows sum to one"


def model_softmax() -> str:
    """The instructor's softmax, as a student who fixed theirs would write it (no solution markers)."""
    source = nbformat.read(REPO_ROOT / "source" / ASSIGNMENT / NOTEBOOK, as_version=4)
    cell = next(c for c in source.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "softmax")
    return "".join(line for line in cell.source.splitlines(keepends=True) if "### " not in line)


def run_wrong_softmax(user: HubUser):
    """In the fetched 02_softmax (open), write the softmax without the max subtraction, run every cell
    and wait until its visible test fails; that test cell, scrolled into view."""
    user.replace_cell_source(SOFTMAX_MARKER, WRONG_SOFTMAX)
    user.run_all()
    test_cell = user.cell_containing(SOFTMAX_TEST)
    test_cell.locator(".jp-OutputArea-output", has_text="AssertionError").wait_for(timeout=180_000)
    test_cell.scroll_into_view_if_needed()
    return test_cell


def softmax_row(feedback: dict) -> list[str]:
    return next(row for row in feedback["rows"] if row[0] == "softmax")


@dataclass
class StudentPath:
    """What the student saw at each step."""

    validate: str = ""
    test_output: str = ""
    first_feedback: dict = field(default_factory=dict)
    second_feedback: dict = field(default_factory=dict)
    seconds_to_feedback: list[float] = field(default_factory=list)
    unsaved_when_opened: bool | None = None
    trust_buttons: list[int] = field(default_factory=list)  # "Trust HTML" buttons over each feedback page
    console: list[str] = field(default_factory=list)


def _hand_in_and_read_feedback(user: HubUser, path: StudentPath, submissions: int, step: str) -> dict:
    clicked = user.submit(ASSIGNMENT)
    user.shot(f"{step}a-submitted")
    path.seconds_to_feedback.append(user.wait_for_feedback(ASSIGNMENT, submissions) - clicked)
    user.shot(f"{step}b-feedback-available")
    user.fetch_and_view_feedback(ASSIGNMENT)
    user.open_file("softmax.html")
    feedback = read_feedback(user)
    user.shot(f"{step}c-feedback-page")
    path.trust_buttons.append(user.page.get_by_text(re.compile("Trust HTML")).count())
    # Closed once read, so that the next page read is the one opened next (both are softmax.html).
    user.close_tab()
    return feedback


@pytest.fixture(scope="session")
def student_path(course_hub, browser, hub_artefacts) -> StudentPath:
    path = StudentPath()
    user = HubUser(browser, course_hub.url, course_hub.student(0), hub_artefacts / "student")
    try:
        user.login()
        user.shot("01-logged-in")
        user.open_assignment_list()
        user.shot("02-assignment-list")
        user.fetch(ASSIGNMENT)
        user.shot("03-fetched")
        user.open_fetched_notebook(ASSIGNMENT, "softmax")
        path.unsaved_when_opened = user.unsaved_once_its_kernel_is_idle()
        user.shot("03b-opened")
        test_cell = run_wrong_softmax(user)
        path.test_output = test_cell.locator(".jp-OutputArea").first.text_content()
        user.shot("04-wrong-softmax-run")
        user.save()
        path.validate = user.validate()
        user.shot("05-validate")
        user.close_dialog()
        path.first_feedback = _hand_in_and_read_feedback(user, path, 1, "06")

        user.tab(NOTEBOOK)
        user.replace_cell_source(SOFTMAX_MARKER, model_softmax())
        user.save()
        user.shot("07-fixed-softmax")
        path.second_feedback = _hand_in_and_read_feedback(user, path, 2, "08")
    except BaseException:
        user.keep_evidence(course_hub.logs)
        raise
    finally:
        path.console = list(user.console)
        user.close()
    return path


