"""Grade a class in parallel: one (assignment, student) pair per worker process.

Plain ``nbgrader autograde`` grades students one after another (nbgrader issue #174). Pairs are
independent (separate gradebook rows and folders), so a pool of processes grades them at once; the
SQLite gradebook is shared through a busy timeout and write-ahead logging. A student is never
graded twice at once, and kernels are never shared (each notebook gets its own sandboxed kernel).
A submission that nbgrader cannot grade is recorded as ungradable with its reason
(``grader.ungradable``); it never stops the others.
"""
from __future__ import annotations

import multiprocessing
import os
import re
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import nbformat

from grader import nbgrader_runner
from grader.course import Course, enable_concurrent_writers
from grader.feedback import write_ungradable_page
from grader.sandbox.submitted_links import quarantine_folder, quarantine_submission
from grader.reporting.timings import record_grading_time
from grader.ungradable import clear_ungradable, record_ungradable


@dataclass(frozen=True)
class GradingOutcome:
    """What happened to one submission: graded, or ungradable with the reason."""

    student: str
    assignment: str
    graded: bool
    reason: str | None
    seconds: float


def grade_one(course_root: str, assignment: str, student: str) -> GradingOutcome:
    """Autograde one submission in this process; never raises for a bad submission."""
    course = Course(Path(course_root))
    started = time.perf_counter()
    clear_ungradable(course, assignment, student)
    # Before nbgrader copies or reads anything: links, FIFOs, devices and oversized files move out.
    notebook = course.submitted_notebook(student, assignment)
    moved = quarantine_submission(notebook.parent, quarantine_folder(course.root, student, assignment))
    reason = unreadable_reason(notebook)
    if reason is not None and moved:
        reason += " Moved out of the submission folder: " + "; ".join(moved) + "."
    if reason is None:
        try:
            result = nbgrader_runner.autograde(course, assignment, student)
            reason = None if result["success"] else _reason_from(result)
        except Exception as exc:  # a converter crash is this submission's problem only
            reason = f"{type(exc).__name__}: {exc}"
    if reason is not None:
        record_ungradable(course, assignment, student, reason)
        write_ungradable_page(course, student, assignment, reason)
    return record_grading_time(course, GradingOutcome(student, assignment, reason is None, reason,
                                                      time.perf_counter() - started))


def unreadable_reason(path: Path) -> str | None:
    """Why the submitted notebook cannot be graded at all, or None when nbgrader can read it."""
    if not path.exists():
        return f"no notebook was submitted: {path.name} is missing from the submission folder."
    try:
        notebook = nbformat.read(path, as_version=4)
    except Exception as exc:  # nbformat raises several unrelated types for unreadable files
        return (f"{path.name} is not a readable notebook ({type(exc).__name__}: {str(exc)[:200]}); "
                "resubmit the file saved by Jupyter.")
    try:
        nbformat.validate(notebook)
    except nbformat.ValidationError as exc:
        return f"{path.name} is not a valid notebook ({exc.message[:200]}); resubmit the file saved by Jupyter."
    return None


# nbgrader's log can hold text from the submission (a huge timestamp.txt ends up in a parse error):
# every line is looked at only up to a bound, so finding the reason is linear in the log's length.
REASON_LINE_LIMIT = 500  # characters of one line looked at (and of the reason kept)
_LEADING_NAME = re.compile(r"\s*([\w.]*)")
_ERROR_SUFFIX = re.compile(r"(?:Error|Exception)(?!\w)")


def _reason_from(result: dict) -> str:
    """The most specific error line of a failed nbgrader run (linear time, bounded lines)."""
    cause = None
    for text in (str(result.get("error") or ""), str(result.get("log") or "")):
        for line in _line_heads(text):
            if _names_an_error(line) and "NbGraderException" not in line:
                cause = line.strip()
    return cause or "nbgrader could not grade this submission (see the autograde log)"


def _line_heads(text: str):
    """The first REASON_LINE_LIMIT characters of every line of ``text``, without copying the rest."""
    start = 0
    while start <= len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        yield text[start:min(end, start + REASON_LINE_LIMIT)]
        start = end + 1


def _names_an_error(line: str) -> bool:
    """Whether ``line`` reads ``[indent]<dotted name ending in Error or Exception>...:...``."""
    name = _LEADING_NAME.match(line)
    return _ERROR_SUFFIX.search(name.group(1)) is not None and ":" in line[name.end():]


def grade_class(course: Course, assignment: str, students: list[str] | None = None,
                workers: int | None = None) -> list[GradingOutcome]:
    """Autograde every listed (default: every submitted) student; outcomes in student order.

    workers: processes to use (default: the number of CPUs); 1 grades in this process.
    """
    students = sorted(students if students is not None else course.students(assignment))
    if not students:
        return []
    enable_concurrent_writers(course)
    workers = max(1, min(workers or os.cpu_count() or 1, len(students)))
    if workers == 1:
        return [grade_one(str(course.root), assignment, s) for s in students]
    # "spawn": workers start clean, without the parent's event loops or open database handles.
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        futures = [pool.submit(grade_one, str(course.root), assignment, s) for s in students]
        return [f.result() for f in futures]
