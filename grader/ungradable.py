"""Submissions that cannot be graded still end with a recorded score: zero, with the reason on file.

nbgrader leaves no score at all when a notebook cannot be read (invalid JSON, not a notebook, a
crash of the converter). Here such a submission gets 0 for every graded cell in the gradebook and
a file ``autograded/<student>/<assignment>/UNGRADABLE.txt`` holding the reason, which the class
report and the per-student summary show.
"""
from __future__ import annotations

from datetime import datetime
from pathlib import Path

from nbgrader.api import Gradebook
from nbgrader.utils import parse_utc

from grader.course import Course

REASON_FILE = "UNGRADABLE.txt"


def record_ungradable(course: Course, assignment: str, student: str, reason: str) -> None:
    """Score every graded cell of ``student``'s ``assignment`` 0 and write ``reason`` beside it."""
    with Gradebook(course.db_url) as gb:
        gb.update_or_create_student(student)
        # The submission's own timestamp (see the folder below) also makes a late hand-in show as late.
        submission = gb.update_or_create_submission(assignment, student,
                                                    timestamp=submitted_timestamp(course, assignment, student))
        for notebook in submission.notebooks:
            for grade in notebook.grades:
                grade.auto_score = 0
                grade.manual_score = None
                grade.needs_manual_grade = False
        gb.db.commit()
    # nbgrader's formgrader lists a submission as graded (with its 0) only when this folder exists and
    # the gradebook timestamp equals the submitted one; otherwise it shows "needs autograding".
    folder = course.root / "autograded" / student / assignment
    folder.mkdir(parents=True, exist_ok=True)
    (folder / REASON_FILE).write_text(reason.strip() + "\n", encoding="utf-8")


def submitted_timestamp(course: Course, assignment: str, student: str) -> datetime | None:
    """The UTC time in ``submitted/<student>/<assignment>/timestamp.txt``, or None when absent or unreadable."""
    path = course.root / "submitted" / student / assignment / "timestamp.txt"
    try:
        return parse_utc(path.read_text(encoding="utf-8").strip())
    except (OSError, ValueError):
        return None


def ungradable_reason(course: Course, assignment: str, student: str) -> str | None:
    """The recorded reason, or None when the submission was graded normally."""
    path: Path = course.root / "autograded" / student / assignment / REASON_FILE
    return path.read_text(encoding="utf-8").strip() if path.exists() else None


def clear_ungradable(course: Course, assignment: str, student: str) -> None:
    (course.root / "autograded" / student / assignment / REASON_FILE).unlink(missing_ok=True)
