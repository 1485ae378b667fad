"""The grading service reads the same course policy: a student's extension and hourly limit."""
from __future__ import annotations

import time
from datetime import datetime, timezone

import pytest
from nbgrader.api import Gradebook

from grader.service.journal import RELEASED, WAITING
from grader.service.watch import GradingLoop
from grader.service_policy import GradingService as Policy
from grader_tests.service_setup import ServiceCourse, accounts_skip_reason, temporary_service_course

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(accounts_skip_reason() is not None, reason=str(accounts_skip_reason()))]

ASSIGNMENT = "02_softmax"
NOTEBOOK = "softmax.ipynb"


@pytest.fixture
def setup(released_course_template):
    with temporary_service_course(released_course_template, "sal-pol-", (ASSIGNMENT,)) as course:
        yield course


def write_policy(setup: ServiceCourse, *rows: str) -> None:
    (setup.course.root / "policy.csv").write_text("\n".join(("who,assignment,setting,value",) + rows) + "\n")


def run_once(setup: ServiceCourse) -> GradingLoop:
    service = GradingLoop(setup.course, policy=Policy(), workers=2)
    service.run(once=True)
    return service


def test_a_hand_in_after_the_class_due_date_counts_within_the_students_extension(setup):
    student = setup.student_id("hal")
    write_policy(setup, f"{student},{ASSIGNMENT},extension_hours,24")
    blank = setup.course.release_notebook(ASSIGNMENT).read_text()
    setup.hand_in("hal", ASSIGNMENT, {NOTEBOOK: blank})
    time.sleep(0.01)
    with Gradebook(setup.course.db_url) as gb:
        gb.update_or_create_assignment(ASSIGNMENT, duedate=datetime.now(timezone.utc).replace(tzinfo=None))
    time.sleep(0.01)
    setup.hand_in("hal", ASSIGNMENT, {NOTEBOOK: setup.notebook_text(ASSIGNMENT, "model_answer")})
    service = run_once(setup)
    assert [row.outcome for row in service.journal.of(student, ASSIGNMENT)] == ["graded", "graded"]


def test_a_students_own_hourly_limit_holds_back_their_second_hand_in(setup):
    write_policy(setup, f"{setup.student_id('ivy')},,max_graded_per_hour,1")
    text = setup.notebook_text(ASSIGNMENT, "model_answer")
    setup.hand_in("ivy", ASSIGNMENT, {NOTEBOOK: text})
    setup.hand_in("ivy", ASSIGNMENT, {NOTEBOOK: text})
    setup.hand_in("jon", ASSIGNMENT, {NOTEBOOK: text})
    setup.hand_in("jon", ASSIGNMENT, {NOTEBOOK: text})
    service = run_once(setup)
    assert [row.state for row in service.journal.of(setup.student_id("ivy"), ASSIGNMENT)] == [RELEASED, WAITING]
    assert [row.state for row in service.journal.of(setup.student_id("jon"), ASSIGNMENT)] == [RELEASED, RELEASED]
