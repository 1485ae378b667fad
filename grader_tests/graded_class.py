"""One small class graded by ``grader autograde`` for the page tests (report, feedback, formgrader).

The simulated class of the demo (``grader.demo.simulated_class``) hands in 02_softmax; one more student
hands in a truncated file (ungradable), and one hands in a day after the due date (late). The
class is graded with ``grader.scheduling.pool.grade_class`` (which records grading times), feedback is
generated with ``nbgrader generate_feedback``, and the report page written. Built once per pytest run; pytest-xdist workers share it
through a lock file, as ``test_pipeline_end_to_end.graded_corpus`` does.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import nbformat
import pytest
from built_once import built_once
from nbgrader.api import Gradebook

from grader.course import Course
from grader.demo.corpus import get_submission
from grader.demo.simulated_class import simulated_class
from grader.reporting import write_report
from grader.scheduling.pool import grade_class

ASSIGNMENT = "02_softmax"
DUE = datetime(2026, 3, 1, 12, 0, 0)
LATE_STUDENT = "cai"  # hands in 26 hours after the due date
UNGRADABLE_STUDENT = "gus"  # hands in a truncated file


@dataclass(frozen=True)
class GradedClass:
    course: Course
    page: Path  # the report page
    table: Path  # its CSV

    @property
    def assignment(self) -> str:
        return ASSIGNMENT


def hand_in_class(course: Course) -> list[str]:
    """Write every submission of the class with its timestamp.txt; the students, sorted."""
    students = []
    for student, assignment, notebook in simulated_class(course):
        if assignment != ASSIGNMENT:
            continue
        nbformat.write(notebook, _submission_path(course, student))
        students.append(student)
    _submission_path(course, UNGRADABLE_STUDENT).write_bytes(get_submission("01_variance", "truncated_file").raw)
    students.append(UNGRADABLE_STUDENT)
    for student in students:
        handed_in = DUE + (timedelta(hours=26) if student == LATE_STUDENT else -timedelta(hours=2))
        (course.root / "submitted" / student / ASSIGNMENT / "timestamp.txt").write_text(
            handed_in.strftime("%Y-%m-%d %H:%M:%S.%f UTC"), encoding="utf-8")
    return sorted(students)


def _submission_path(course: Course, student: str) -> Path:
    path = course.submitted_notebook(student, ASSIGNMENT)
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def build(released: Course, root: Path) -> dict:
    shutil.copytree(released.root, root)
    course = Course(root)
    with Gradebook(course.db_url) as gb:
        gb.update_or_create_assignment(ASSIGNMENT, duedate=DUE)
    hand_in_class(course)
    outcomes = grade_class(course, ASSIGNMENT, workers=2)
    # As a user types it, in its own process: nbconvert leaves an asyncio event loop behind in the
    # process that runs it, where Playwright's sync API then refuses to work.
    feedback = subprocess.run([sys.executable, "-m", "nbgrader", "generate_feedback", ASSIGNMENT, "--force"],
                              cwd=course.root, capture_output=True, text=True, timeout=900)
    page, table = write_report(course, [ASSIGNMENT])
    return {"graded": {o.student: o.graded for o in outcomes}, "feedback": feedback.returncode == 0,
            "page": str(page), "table": str(table)}


@pytest.fixture(scope="session")
def graded_class(tmp_path_factory, request, released_course_template) -> GradedClass:
    root, built = built_once(tmp_path_factory, request, "graded-class",
                             lambda root: build(released_course_template, root))
    assert built["feedback"], "nbgrader generate_feedback failed on the graded class"
    return GradedClass(Course(root), Path(built["page"]), Path(built["table"]))
