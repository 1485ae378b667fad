"""A student's own attempt schedule (policy.csv) is what caps their quiz credit in a real `grader autograde`.

Two students hand in a wrong answer to ``answer_var_component4`` (variance 4 counted once), are
graded, then hand in the right one and are graded again. The class's schedule leaves the second
one half the item's points; Kim's own schedule ``1 1`` leaves her all of them.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
from datetime import datetime, timedelta

import pytest
from nbgrader.api import Gradebook

from grader.course import Course
from grader.demo.corpus import get_submission, hand_in

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("policy_attempt_schedule")]
ASSIGNMENT = "01_variance"
ITEM = "test_answer_var_component4"
FIRST = datetime(2026, 3, 1, 10, 0, 0)
RUN_TIMEOUT = 900  # seconds; generous for a loaded machine


def hand_in_all(course: Course, submission: str, moment: datetime) -> None:
    for student in ("kim", "lou"):
        hand_in(course, student, get_submission(ASSIGNMENT, submission))
        (course.root / "submitted" / student / ASSIGNMENT / "timestamp.txt").write_text(
            moment.strftime("%Y-%m-%d %H:%M:%S.%f UTC"), encoding="utf-8")


def autograde(course: Course) -> None:
    done = subprocess.run([sys.executable, "-m", "grader.cli", "autograde", ASSIGNMENT, "--course", str(course.root),
                           "--workers", "2"], capture_output=True, text=True, timeout=RUN_TIMEOUT)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture(scope="module")
def item_scores(released_course_template, tmp_path_factory) -> dict[str, tuple[float, float]]:
    """student -> (score, points) of the item after the second hand-in."""
    root = tmp_path_factory.mktemp("attempt-schedule") / "course"
    shutil.copytree(released_course_template.root, root)
    course = Course(root)
    (root / "policy.csv").write_text("who,assignment,setting,value\nkim,,attempt_schedule,1 1\n", encoding="utf-8")
    hand_in_all(course, "variance4_as_4dk", FIRST)
    autograde(course)
    hand_in_all(course, "model_answer", FIRST + timedelta(hours=1))
    autograde(course)
    with Gradebook(course.db_url) as gb:
        return {student: (gb.find_grade(ITEM, "variance", ASSIGNMENT, student).score,
                          gb.find_grade(ITEM, "variance", ASSIGNMENT, student).max_score)
                for student in ("kim", "lou")}


def test_the_class_schedule_halves_a_right_answer_after_a_wrong_one(item_scores):
    score, points = item_scores["lou"]
    assert score == pytest.approx(points / 2)


def test_a_students_own_schedule_keeps_full_credit_after_a_wrong_answer(item_scores):
    score, points = item_scores["kim"]
    assert score == points > 0
