"""The grading service's class-wide rules: the hourly limit, feedback held until the due date, late hand-ins."""
from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone

import pytest
from nbgrader.api import Gradebook

from grader.service.journal import HELD, RELEASED, WAITING
from grader.service.watch import HOUR, GradingLoop
from grader.service_policy import GradingService as Policy
from grader.service_policy import load_service_policy
from grader_tests.service_setup import ServiceCourse, accounts_skip_reason, temporary_service_course

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(accounts_skip_reason() is not None, reason=str(accounts_skip_reason()))]

ASSIGNMENT = "02_softmax"
NOTEBOOK = "softmax.ipynb"


@pytest.fixture
def setup(released_course_template):
    with temporary_service_course(released_course_template, "sal-policy-", (ASSIGNMENT,)) as course:
        yield course


def set_due_date(setup: ServiceCourse, moment: datetime) -> None:
    with Gradebook(setup.course.db_url) as gb:
        gb.update_or_create_assignment(ASSIGNMENT, duedate=moment.replace(tzinfo=None))


def run_once(setup: ServiceCourse, clock=time.time, **settings) -> GradingLoop:
    service = GradingLoop(setup.course, policy=Policy(**settings), workers=2, clock=clock)
    service.run(once=True)
    return service


def test_the_course_config_documents_every_default(setup):
    policy = load_service_policy(setup.course)
    assert (policy.max_graded_per_hour, policy.max_waiting, policy.immediate_feedback) == (6, 5, {})
    assert policy.feedback_is_immediate(ASSIGNMENT)


def test_over_the_hourly_limit_a_submission_waits_with_a_page_then_is_graded(setup):
    text = setup.notebook_text(ASSIGNMENT, "model_answer")
    side = setup.hand_in("eve", ASSIGNMENT, {NOTEBOOK: text})
    setup.hand_in("eve", ASSIGNMENT, {NOTEBOOK: text})
    service = run_once(setup, max_graded_per_hour=1)
    first, second = service.journal.of(setup.student_id("eve"), ASSIGNMENT)
    assert (first.state, first.outcome) == (RELEASED, "graded")
    assert second.state == WAITING and second.not_before == pytest.approx(first.started_at + HOUR)
    pages = side.fetch_feedback(ASSIGNMENT)
    assert "waiting to be graded" in pages[-1].read_text() and "will be graded at" in pages[-1].read_text()

    later = run_once(setup, clock=lambda: time.time() + HOUR + 60, max_graded_per_hour=1)
    assert later.journal.get(second.id).outcome == "graded"
    assert "waiting to be graded" not in side.fetch_feedback(ASSIGNMENT)[-1].read_text()


def test_feedback_that_is_not_immediate_is_held_until_the_due_date(setup):
    set_due_date(setup, datetime.now(timezone.utc) + timedelta(days=1))
    side = setup.hand_in("fin", ASSIGNMENT, {NOTEBOOK: setup.notebook_text(ASSIGNMENT, "model_answer")})
    service = run_once(setup, immediate_feedback={ASSIGNMENT: False})
    (row,) = service.journal.of(setup.student_id("fin"), ASSIGNMENT)
    assert row.state == HELD and row.outcome == "graded"
    assert "released after its due date" in side.fetch_feedback(ASSIGNMENT)[-1].read_text()

    set_due_date(setup, datetime.now(timezone.utc) - timedelta(minutes=1))
    after = run_once(setup, immediate_feedback={ASSIGNMENT: False})
    assert after.journal.get(row.id).state == RELEASED
    page = side.fetch_feedback(ASSIGNMENT)[-1].read_text()
    assert "released after its due date" not in page and "softmax" in page


def test_a_late_hand_in_after_an_on_time_one_is_not_counted(setup):
    model = setup.notebook_text(ASSIGNMENT, "model_answer")
    setup.hand_in("gil", ASSIGNMENT, {NOTEBOOK: model})
    time.sleep(0.01)
    set_due_date(setup, datetime.now(timezone.utc))
    time.sleep(0.01)
    blank = setup.course.release_notebook(ASSIGNMENT).read_text()
    side = setup.hand_in("gil", ASSIGNMENT, {NOTEBOOK: blank})
    service = run_once(setup)
    on_time, late = service.journal.of(setup.student_id("gil"), ASSIGNMENT)
    assert (on_time.outcome, late.outcome) == ("graded", "not counted")
    with Gradebook(setup.course.db_url) as gb:
        assert gb.find_submission(ASSIGNMENT, setup.student_id("gil")).score == gb.find_assignment(ASSIGNMENT).max_score
    assert "after the due date" in side.fetch_feedback(ASSIGNMENT)[-1].read_text()



@pytest.mark.parametrize("attempts", [1, 3])
def test_a_hand_in_whose_handling_keeps_failing_is_tried_max_grading_attempts_times_then_answered_ungradable(
        setup, monkeypatch, attempts):
    student = f"hal{attempts}"
    setup.hand_in(student, ASSIGNMENT, {NOTEBOOK: setup.notebook_text(ASSIGNMENT, "model_answer")})
    tries = []

    def broken(self, row):
        tries.append(row.id)
        raise RuntimeError("the service could not decide")
    monkeypatch.setattr(GradingLoop, "_decide", broken)
    service = GradingLoop(setup.course, policy=Policy(max_grading_attempts=attempts), workers=2)
    for _ in range(attempts + 1):
        service.run(once=True)
    (row,) = service.journal.of(setup.student_id(student), ASSIGNMENT)
    assert (len(tries), row.state, row.outcome) == (attempts, RELEASED, "ungradable")
