"""The demo's last step: a student hands in through the exchange and gets feedback from the service."""
from __future__ import annotations

import logging
import os
import time
from pathlib import Path

import nbformat
from rich.console import Console
from rich.text import Text

from grader.course import Course
from grader.submissions import build_notebook, get_submission

ASSIGNMENT = "02_softmax"
STUDENT = "hana"


def show_student_loop(course: Course, console: Console, exchange_root: Path | None = None) -> int:
    """Release 02_softmax to a fresh exchange, hand in as a student, serve once, fetch feedback.

    exchange_root: default ``<course>/demo-exchange/exchange``; the student's home is
    ``home/<student>`` beside it. Returns 0 when the student fetched a graded feedback page, 1
    otherwise.
    """
    exchange_root = exchange_root or course.root / "demo-exchange" / "exchange"
    os.environ["GRADER_EXCHANGE_ROOT"] = str(exchange_root)  # read by the course's nbgrader_config.py
    from grader.service.exchange import CourseExchange
    from grader.service.student import StudentSide
    from grader.service.privacy import fix
    from grader.service.watch import GradingService, ensure_private, privacy_problems

    logging.getLogger("traitlets").setLevel(logging.ERROR)
    exchange = CourseExchange(course)
    exchange.release_assignment(ASSIGNMENT)
    console.print(f"nbgrader release_assignment {ASSIGNMENT} -> exchange {exchange_root}", soft_wrap=True)

    student = StudentSide(STUDENT, exchange_root.parent / "home" / STUDENT, exchange.course_id, exchange_root)
    folder = student.fetch(ASSIGNMENT)
    notebook = build_notebook(get_submission(ASSIGNMENT, "softmax_no_max_subtraction"),
                              nbformat.read(folder / "softmax.ipynb", 4),
                              nbformat.read(course.source_notebook(ASSIGNMENT), 4))
    nbformat.write(notebook, folder / "softmax.ipynb")
    started = time.perf_counter()
    student.submit(ASSIGNMENT)
    console.print(f"{STUDENT}: nbgrader fetch_assignment, edit softmax.ipynb, nbgrader submit")

    problems = privacy_problems(course)
    fix(problems)
    for problem in problems:
        console.print(Text(problem.done()), soft_wrap=True)
    ensure_private(course, fix_permissions=False)
    service = GradingService(course)
    service.run(once=True)
    row = service.journal.of(STUDENT, ASSIGNMENT)[-1]
    service.journal.close()
    pages = student.fetch_feedback(ASSIGNMENT)
    seconds = time.perf_counter() - started
    if not pages or row.outcome != "graded":
        console.print(f"[red]{STUDENT} got no graded feedback ({row.outcome}: {row.problem})[/red]")
        return 1
    console.print(f"grader watch --once: {STUDENT} {ASSIGNMENT} {row.score:g}/{row.max_score:g}, "
                  f"first problem: {row.problem}", soft_wrap=True)
    console.print(f"{STUDENT}: nbgrader fetch_feedback -> {pages[-1]} "
                  f"({seconds:.1f} s after submit)", soft_wrap=True)
    return 0
