"""Grade one archived submission in a worker process: screen it, grade it, write its feedback.

Runs in a pool process of the service; everything it needs comes from the course folder and the
archived hand-in, and everything it produces is on disk (gradebook, ``autograded/``,
``feedback/``, the archive's ``feedback/`` copy) before it returns, so a crash after it returns
loses nothing and a crash before it is repeated from the start.
"""
from __future__ import annotations

import gc
import logging
import shutil
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import nbformat
from nbgrader.api import Gradebook, MissingEntry

from grader.checks import all_checks
from grader.course import Course, load_config, read_timestamp
from grader.grading import nbgrader_apps
from grader.grading.admission import Limits, Refusal, feedback_failed, read_record, ungradable
from grader.grading.grade_one import grade_one
from grader.grading.nbgrader_compat import reuse_gradebook_connections
from grader.grading.status_page import ungradable_page
from grader.grading.ungradable_record import record_ungradable
from grader.grading.verdict_records import first_problem as verdict_first_problem
from grader.grading.verdict_records import verdict_records
from grader.language.student_language import reading_language
from grader.sandbox.execute import warm_sandboxed_kernel
from grader.service import pages

HANDIN = "handin"      # archive/<id>/handin: the submission as collected from the exchange
FEEDBACK = "feedback"  # archive/<id>/feedback: its feedback folder, ready to release
NOT_COLLECTED = "not_collected.txt"  # in a hand-in the service refused to copy: its refusal (Refusal.as_record)

log = logging.getLogger(__name__)


@dataclass
class Result:
    """What grading one submission produced; ``problem`` is the first problem or the reason, and
    ``code`` the refusal code of an ungradable one (``grader.grading.admission.CODES``)."""

    graded: bool
    score: float
    max_score: float
    problem: str
    seconds: float
    steps: dict[str, float] = field(default_factory=dict)  # seconds per step, in order
    code: str | None = None

    def as_dict(self) -> dict:
        return asdict(self)


class _Steps:
    """Seconds spent in each step of one grading, measured one after another."""

    def __init__(self):
        self.seconds: dict[str, float] = {}
        self._last = time.perf_counter()

    def done(self, step: str) -> None:
        now = time.perf_counter()
        self.seconds[step] = self.seconds.get(step, 0.0) + now - self._last
        self._last = now


def grade_archived(course_root: str, assignment: str, student: str, archive: str,
                   limits: Limits) -> dict:
    """Grade the hand-in in ``archive`` as ``student``'s submission; never raises for bad input."""
    started = time.perf_counter()
    steps = _Steps()
    course = Course(Path(course_root))
    archive_dir = Path(archive)
    submitted = course.submission_folder(student, assignment)
    if submitted.exists():
        shutil.rmtree(submitted)
    shutil.copytree(archive_dir / HANDIN, submitted)

    refusal = refusal_of(submitted)
    steps.done("screen")
    if refusal is None:  # the admission gate runs in grade_one, as in every scheduler
        outcome = grade_one(str(course.root), assignment, student, limits, writes_refusal_page=False)
        refusal = None if outcome.graded else ungradable(outcome.code, outcome.reason)
    else:
        record_ungradable(course, assignment, student, refusal)
    steps.done("grade")
    if refusal is None:
        # the kernel worked in autograded/: the feedback is made with the service's timestamp and secret
        pages.write_recorded_files(course.autograded_folder(student, assignment), archive_dir / HANDIN)
        result = nbgrader_apps.generate_feedback_warm(course, assignment, student)
        if not (result["success"] and all(page.exists() for page in course.feedback_pages(student, assignment))):
            refusal = feedback_failed()
    steps.done("feedback")
    score, max_score = _score(course, assignment, student)
    if refusal is not None:
        pages.place(course, student, assignment, archive_dir / HANDIN, ungradable_page(
            assignment, refusal.student_text, student=student, handed_in=read_timestamp(archive_dir / HANDIN) or "",
            language=reading_language(course, student), code=refusal.code))
        problem = refusal.student_text
    else:
        problem = first_problem_of_notebook(course, assignment, student)
    # what the kernel left in its working folder (autograded/) came along into feedback/: dropped
    pages.keep_only_recorded(course, course.feedback_folder(student, assignment), assignment, archive_dir / HANDIN)
    feedback_copy = archive_dir / FEEDBACK
    if feedback_copy.exists():
        shutil.rmtree(feedback_copy)
    shutil.copytree(course.feedback_folder(student, assignment), feedback_copy)
    steps.done("record")
    return Result(refusal is None, score, max_score, problem, time.perf_counter() - started,
                  steps.seconds, None if refusal is None else refusal.code).as_dict()


def refusal_of(folder: Path) -> Refusal | None:
    """Why the service refused to copy this hand-in (``NOT_COLLECTED`` in its folder), or None."""
    if not (folder / NOT_COLLECTED).is_file():
        return None
    code, reason = read_record((folder / NOT_COLLECTED).read_text(encoding="utf-8", errors="replace")[:2100])
    return ungradable(code, reason[:2000])


def warm_up(course_root: str) -> None:
    """Load in this worker process what every grading reuses: nbgrader's converters, the feedback
    app with its compiled page template (one page of each released notebook rendered in memory),
    the kernel zygote with one throwaway sandboxed kernel, the checks, and the gradebook's engine
    (each worker runs this once, before its first hand-in), then keeps all of it out of later
    garbage collections (``gc.freeze``). Never raises."""
    import nbgrader.converters  # noqa: F401

    course = Course(Path(course_root))
    steps = {"the feedback pages": lambda: nbgrader_apps.warm_feedback_app(course).rehearse(course),
             "the sandboxed kernel": lambda: warm_sandboxed_kernel(load_config(course), str(course.root)),
             "the checks": lambda: all_checks(course.root),
             "the gradebook": lambda: _warm_gradebook(course)}
    for name, step in steps.items():
        try:
            step()
        except Exception as exc:  # that part of the first hand-in is slower; its grading says what is wrong
            log.warning("warming up a grading worker failed (%s): %s: %s", name, type(exc).__name__, exc)
    # What the warm-up loaded (some 300,000 objects) stays for the worker's life: collected now and
    # then frozen, it is no longer walked by a full collection, which otherwise came during the
    # first page (0.1 s).
    gc.collect()
    gc.freeze()


def _warm_gradebook(course: Course) -> None:
    """Open the gradebook's engine and map nbgrader's tables (never creates the gradebook)."""
    sqlite_file = course.sqlite_file
    if sqlite_file is None or sqlite_file.exists():
        reuse_gradebook_connections()
        with Gradebook(course.db_url) as gradebook:
            gradebook.assignments  # noqa: B018 - the first query maps nbgrader's tables


def _score(course: Course, assignment: str, student: str) -> tuple[float, float]:
    with Gradebook(course.db_url) as gb:
        try:
            submission = gb.find_submission(assignment, student)
            return float(submission.score), float(submission.max_score)
        except MissingEntry:
            return 0.0, float(gb.find_assignment(assignment).max_score)


def first_problem_of_notebook(course: Course, assignment: str, student: str) -> str:
    """The first failing check of the autograded notebook and its diagnosis (``softmax: no max subtraction``), or ``—``."""
    try:
        notebook = nbformat.read(course.autograded_notebook(student, assignment), as_version=4)
    except Exception:
        return "—"
    return verdict_first_problem(record for cell in notebook.cells for record in verdict_records(cell)) or "—"
