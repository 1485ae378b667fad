"""The demo's last step: a student hands in through the exchange and gets feedback from the service."""
from __future__ import annotations

import logging
import os
import shutil
import tempfile
import time
from pathlib import Path

import nbformat
from rich.console import Console
from rich.text import Text

from grader.course import Course
from grader.demo.corpus import build_notebook, get_submission
from grader.settings import EXCHANGE_ROOT

ASSIGNMENT = "02_softmax"
STUDENT = "hana"
SKIPPED_WITHOUT_ROOT = (
    "skipped without root: the grading service grades a hand-in only when it belongs to the "
    "student account it names, so this step creates a real account (useradd), which only root may "
    "do. Everything before was graded in the sandbox; as root (sudo make demo) this step runs too.")


def show_student_loop(course: Course, console: Console, exchange_root: Path | None = None) -> int:
    """Release 02_softmax to a fresh exchange, hand in as a student, serve once, fetch feedback.

    exchange_root: by default a new temporary folder, removed at the end (the student's account
    must reach the exchange and its home, which a private course folder would hide); the
    student's home is ``home/<student>`` beside it. Returns 0 when the student fetched a graded
    feedback page, 1 otherwise. Without root the step is skipped with a note saying why (0).
    """
    if os.geteuid() != 0:
        close_to_other_accounts(course, console)  # as the service would, though it does not run
        console.print(Text(SKIPPED_WITHOUT_ROOT, style="yellow"), soft_wrap=True)
        return 0
    if exchange_root is not None:
        return _serve_one_student(course, console, exchange_root)
    top = Path(tempfile.mkdtemp(prefix="demo-exchange-"))
    try:
        return _serve_one_student(course, console, top / "exchange")
    finally:
        shutil.rmtree(top, ignore_errors=True)
        console.print(Text(f"removed the demo's exchange and student home ({top}); the feedback "
                           f"pages stay in {course.root / 'feedback'}"), soft_wrap=True)


def close_to_other_accounts(course: Course, console: Console) -> None:
    """Close the course's private paths to other accounts (``grader.service.privacy``: the course
    folder, its gradebook, the checkout's grader/, solutions/, source/; the exchange's sticky bit),
    printing each change, or why a path stays open (it belongs to another account)."""
    from grader.service.privacy import fix
    from grader.service.watch import privacy_problems

    for problem in privacy_problems(course):
        try:
            fix([problem])
        except OSError as exc:
            console.print(Text(f"left open: {problem.path} ({problem.what}): {exc.strerror}; its owner "
                               f"(uid {problem.path.lstat().st_uid}) can close it: {problem.command}",
                               style="yellow"), soft_wrap=True)
            continue
        console.print(Text(problem.done()), soft_wrap=True)


def _serve_one_student(course: Course, console: Console, exchange_root: Path) -> int:
    os.environ[EXCHANGE_ROOT.name] = str(exchange_root)  # read by the course's nbgrader_config.py
    from grader.service.exchange import CourseExchange
    from grader.service.student import temporary_accounts

    logging.getLogger("traitlets").setLevel(logging.ERROR)
    exchange = CourseExchange(course)
    exchange.release_assignment(ASSIGNMENT)
    console.print(f"nbgrader release_assignment {ASSIGNMENT} -> exchange {exchange_root}", soft_wrap=True)

    # The service grades only hand-ins that belong to the account they name.
    with temporary_accounts([STUDENT]) as accounts:
        return _hand_in_and_serve(course, console, exchange, exchange_root, accounts[STUDENT])


def _hand_in_and_serve(course: Course, console: Console, exchange, exchange_root: Path, account: str) -> int:
    """``account`` fetches, edits and hands in; the service serves once; the student fetches feedback."""
    from grader.service.student import StudentSide
    from grader.service.watch import GradingLoop, ensure_private

    student = StudentSide(account, exchange_root.parent / "home" / STUDENT, exchange.course_id, exchange_root)
    folder = student.fetch(ASSIGNMENT)
    notebook = build_notebook(get_submission(ASSIGNMENT, "softmax_no_max_subtraction"),
                              nbformat.read(folder / "softmax.ipynb", 4),
                              nbformat.read(course.source_notebook(ASSIGNMENT), 4))
    nbformat.write(notebook, folder / "softmax.ipynb")
    started = time.perf_counter()
    student.submit(ASSIGNMENT)
    console.print(f"{account}: nbgrader fetch_assignment, edit softmax.ipynb, nbgrader submit")

    close_to_other_accounts(course, console)
    ensure_private(course, fix_permissions=False)
    service = GradingLoop(course)
    service.run(once=True)
    row = service.journal.of(account, ASSIGNMENT)[-1]
    service.journal.close()
    pages = student.fetch_feedback(ASSIGNMENT)
    seconds = time.perf_counter() - started
    if not pages or row.outcome != "graded":
        console.print(f"[red]{account} got no graded feedback ({row.outcome}: {row.problem})[/red]")
        return 1
    console.print(f"grader watch --once: {account} {ASSIGNMENT} {row.score:g}/{row.max_score:g}, "
                  f"first problem: {row.problem}", soft_wrap=True)
    console.print(f"{account}: nbgrader fetch_feedback -> {pages[-1]} "
                  f"({seconds:.1f} s after submit)", soft_wrap=True)
    return 0
