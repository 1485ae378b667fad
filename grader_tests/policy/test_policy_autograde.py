"""The course policy applied by a real `grader autograde`: an extension, a late day, a late penalty, a regrade.

The class is due at DUE with 25 % off per started day late and one late day each. Ada has a 48-hour
extension and hands in 26 hours after the class's due date; Bob hands in 20 hours after it (one
late day covers it); Cy hands in 26 hours after it (one late day covers 24 of them, the other 2
hours cost a day's penalty). Everyone hands in the model answer.
"""
from __future__ import annotations

import subprocess
import sys
from datetime import datetime, timedelta

import pytest
from bs4 import BeautifulSoup
from nbgrader.api import Gradebook

from grader.course import Course
from grader.demo.corpus import get_submission, hand_in
from grader.policy.course_policy import PolicyBook

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("policy_autograde")]
ASSIGNMENT = "01_variance"
DUE = datetime(2026, 3, 1, 12, 0, 0)  # UTC, as nbgrader keeps it
HANDED_IN = {"ada": timedelta(hours=26), "bob": timedelta(hours=20), "cy": timedelta(hours=26)}
CLASS_POLICY = """
c.PrepareProbes.seed = 20240601
c.CoursePolicy.late_penalty_per_day = 0.25
c.CoursePolicy.late_days = 1
"""
POLICY_FILE = "who,assignment,setting,value\n# Ada was ill that week\nada,01_variance,extension_hours,48\n"
RUN_TIMEOUT = 900  # seconds; generous for a loaded machine


def autograde(course: Course, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "grader.cli", "autograde", ASSIGNMENT, "--course", str(course.root),
                           "--workers", "2", *extra], capture_output=True, text=True, timeout=RUN_TIMEOUT)


def results(course: Course) -> dict[str, tuple[float, float, float]]:
    """student -> (score, max score, late penalty) as the gradebook keeps them."""
    with Gradebook(course.db_url) as gb:
        found = {}
        for student in HANDED_IN:
            submission = gb.find_submission(ASSIGNMENT, student)
            found[student] = (submission.score, submission.max_score, submission.late_submission_penalty)
        return found


@pytest.fixture(scope="module")
def graded(released_course_template, tmp_path_factory):
    """The class graded once, then regraded with --force: (course, first results, results after the regrade)."""
    import shutil

    root = tmp_path_factory.mktemp("policy") / "course"
    shutil.copytree(released_course_template.root, root)
    course = Course(root)
    with open(root / "nbgrader_config.py", "a", encoding="utf-8") as config:
        config.write(CLASS_POLICY)
    (root / "policy.csv").write_text(POLICY_FILE, encoding="utf-8")
    with Gradebook(course.db_url) as gb:
        gb.update_or_create_assignment(ASSIGNMENT, duedate=DUE)
    for student, after in HANDED_IN.items():
        hand_in(course, student, get_submission(ASSIGNMENT, "model_answer"))
        (root / "submitted" / student / ASSIGNMENT / "timestamp.txt").write_text(
            (DUE + after).strftime("%Y-%m-%d %H:%M:%S.%f UTC"), encoding="utf-8")
    first = autograde(course)
    assert first.returncode == 0, first.stdout + first.stderr
    before = results(course)
    again = autograde(course, "--force")
    assert again.returncode == 0, again.stdout + again.stderr
    feedback = subprocess.run([sys.executable, "-m", "grader.cli", "feedback", ASSIGNMENT, "--course", str(root)],
                              capture_output=True, text=True, timeout=RUN_TIMEOUT)
    assert feedback.returncode == 0, feedback.stdout + feedback.stderr
    return course, before, results(course)


def page_text(course: Course, student: str) -> str:
    return course.feedback_page(student, ASSIGNMENT).read_text(encoding="utf-8")


def deadline_note(course: Course, student: str) -> str:
    """The text of the student's deadline note on their feedback page ("" when it has none)."""
    note = BeautifulSoup(page_text(course, student), "html.parser").find(class_="your-deadline")
    return note.get_text() if note is not None else ""


def test_a_student_with_an_extension_hands_in_late_without_penalty_and_with_full_credit(graded):
    _, before, _ = graded
    score, max_score, penalty = before["ada"]
    assert penalty == 0 and score == max_score > 0


def test_a_student_without_an_extension_spends_a_late_day_instead_of_losing_points(graded):
    course, before, _ = graded
    score, max_score, penalty = before["bob"]
    assert penalty == 0 and score == max_score
    outcome = PolicyBook.of(course).late_outcomes("bob")[ASSIGNMENT]
    assert (outcome.late_days_spent, outcome.late_days_left) == (1, 0)


def test_lateness_beyond_the_late_days_costs_the_penalty_per_day(graded):
    _, before, _ = graded
    score, max_score, penalty = before["cy"]
    assert score == max_score and penalty == pytest.approx(0.25 * max_score)  # nbgrader subtracts it from the score


def test_the_extension_spends_no_late_day(graded):
    course, _, _ = graded
    assert PolicyBook.of(course).late_outcomes("ada")[ASSIGNMENT].late_days_spent == 0


def test_a_regrade_gives_the_same_scores_and_penalties(graded):
    _, before, after = graded
    assert after == before


def test_the_feedback_page_states_the_students_own_due_date(graded):
    course, _, _ = graded
    assert "Your due date: 2026-03-03 12:00 UTC (the class's: 2026-03-01 12:00 UTC)." in deadline_note(course, "ada")


def test_the_feedback_page_states_the_late_days_left_and_spent(graded):
    course, _, _ = graded
    assert deadline_note(course, "bob") == ("Your due date: 2026-03-01 12:00 UTC. Late days left: 0 of 1. "
                                            "Late days this hand-in spent: 1.")


def test_the_class_report_lists_who_used_an_extension_and_late_days(graded):
    from grader.reporting.analysis import collect

    course, _, _ = graded
    used = {(u.student, u.extension_seconds, u.late_days_spent, u.penalty_share)
            for u in collect(course, ASSIGNMENT).policy_usage}
    assert used == {("ada", 48 * 3600.0, 0, 0.0), ("bob", 0.0, 1, 0.0), ("cy", 0.0, 1, 0.25)}


def test_the_class_reports_late_table_counts_lateness_from_the_students_own_due_date(graded):
    from grader.reporting.analysis import collect

    course, _, _ = graded
    assert {row.student for row in collect(course, ASSIGNMENT).late} == {"bob", "cy"}


def test_autograde_refuses_a_malformed_policy_file_naming_the_line(released_course_template, tmp_path):
    import shutil

    shutil.copytree(released_course_template.root, tmp_path / "course")
    course = Course(tmp_path / "course")
    (course.root / "policy.csv").write_text("who,assignment,setting,value\nada,,extension_hours,two days\n")
    hand_in(course, "ada", get_submission(ASSIGNMENT, "model_answer"))
    refused = autograde(course)
    assert refused.returncode != 0
    assert "policy.csv line 2: extension_hours must be a number of hours" in refused.stderr
    assert not course.autograded_notebook("ada", ASSIGNMENT).exists()
