"""Submissions that cannot be graded still end with a recorded score: zero, with the reason on file.

nbgrader leaves no score at all when a notebook cannot be read (invalid JSON, not a notebook, a
crash of the converter). Here such a submission gets 0 for every graded cell in the gradebook and
its reason is kept in the grading process's private state folder,
``.grader/ungradable/<assignment>/<student>.txt`` (see ``Course.state_dir``): a first line
``code: <refusal code>`` (``grader.grading.admission.CODES``) and the reason its author reads, which
the class report and the per-student summary show. No kernel and no student can write there: a file a kernel leaves
in its working folder (``autograded/<student>/<assignment>/``) never counts as a reason.
"""
from __future__ import annotations

from datetime import datetime
from pathlib import Path

from nbgrader.api import Gradebook
from nbgrader.utils import parse_utc

from grader.course import Course, read_timestamp
from grader.grading.admission import Refusal, read_record
from grader.grading.readable_text import readable
from grader.state_folders import UNGRADABLE_REASONS

MAX_REASON_CHARS = 2000  # a reason is a sentence or two; nothing longer is stored or read


def reason_path(course: Course, assignment: str, student: str) -> Path:
    """Where the reason for ``student``'s ``assignment`` is kept."""
    if "/" in student or student in ("", ".", "..") or "/" in assignment:
        raise ValueError(f"not a student or assignment id: {student!r} / {assignment!r}")
    return course.state_dir / UNGRADABLE_REASONS / assignment / f"{student}.txt"


def record_ungradable(course: Course, assignment: str, student: str, refusal: Refusal) -> None:
    """Score every graded cell of ``student``'s ``assignment`` 0 and record ``refusal`` (code and reason)."""
    with Gradebook(course.db_url) as gb:
        gb.update_or_create_student(student)
        # The submission's own timestamp also makes a late hand-in show as late (and formgrader count it).
        submission = gb.update_or_create_submission(assignment, student,
                                                    timestamp=submitted_timestamp(course, assignment, student))
        for notebook in submission.notebooks:
            for grade in notebook.grades:
                grade.auto_score = 0
                grade.manual_score = None
                grade.needs_manual_grade = False
        gb.db.commit()
    path = reason_path(course, assignment, student)
    path.parent.mkdir(parents=True, exist_ok=True)
    kept = Refusal(refusal.code, readable(refusal.student_text).strip()[:MAX_REASON_CHARS])
    path.write_text(kept.as_record(), encoding="utf-8")
    # nbgrader's formgrader lists a submission as graded (with its 0) only when its autograded folder
    # exists and the gradebook timestamp equals the submitted one; otherwise "needs autograding".
    course.autograded_folder(student, assignment).mkdir(parents=True, exist_ok=True)


def submitted_timestamp(course: Course, assignment: str, student: str) -> datetime | None:
    """The UTC time in ``submitted/<student>/<assignment>/timestamp.txt``, or None when absent or unreadable."""
    text = read_timestamp(course.submission_folder(student, assignment))
    try:
        return parse_utc(text) if text is not None else None
    except ValueError:
        return None


def ungradable_reason(course: Course, assignment: str, student: str) -> str | None:
    """The recorded reason, or None when the submission was graded normally."""
    record = _read(course, assignment, student)
    return None if record is None else record[1]


def ungradable_code(course: Course, assignment: str, student: str) -> str | None:
    """The recorded refusal code (a key of ``CODES``), or None when graded normally or when the
    record names no known code."""
    record = _read(course, assignment, student)
    return None if record is None else record[0]


def _read(course: Course, assignment: str, student: str) -> tuple[str | None, str] | None:
    """(code, reason) of the record, or None when there is none."""
    path = reason_path(course, assignment, student)
    if not path.is_file():
        return None
    with open(path, encoding="utf-8", errors="replace") as handle:
        code, reason = read_record(handle.read(MAX_REASON_CHARS + 100))
    return code, reason[:MAX_REASON_CHARS]


def clear_ungradable(course: Course, assignment: str, student: str) -> None:
    reason_path(course, assignment, student).unlink(missing_ok=True)
