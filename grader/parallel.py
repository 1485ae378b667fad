"""Grade a class in parallel: one (assignment, student) pair per task, on a pool of worker processes.

Plain ``nbgrader autograde`` grades students one after another (nbgrader issue #174). Pairs are
independent (separate gradebook rows and folders), so a pool of processes grades them at once; the
SQLite gradebook is shared through a busy timeout and write-ahead logging. A student is never
graded twice at once, and kernels are never shared (each notebook gets its own sandboxed kernel,
forked from the worker's zygote, ``grader.sandbox.zygote``).

Each worker process grades many submissions and keeps what does not change between them: the
imported nbgrader, the loaded course config and the kernel zygote. Library warnings (nbgrader's
gradebook emits SQLAlchemy warnings for every submission) go to ``.grader/autograde.log``.

A submission that nbgrader cannot grade is recorded as ungradable with its reason
(``grader.ungradable``); it never stops the others. A finished submission gets a record
(``grader.grading_state``): a re-run skips it while its inputs are unchanged.
"""
from __future__ import annotations

import json
import logging
import multiprocessing
import os
import re
import time
import warnings
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

import nbformat

from grader import grading_state, nbgrader_runner
from grader.breakdown import TimedAutograde, new_times, settle
from grader.course import Course, enable_concurrent_writers
from grader.feedback import write_ungradable_page
from grader.gradebook_batch import reuse_gradebook_connections
from grader.metadata_validation import validate_metadata_with_cached_schema
from grader.sandbox.submitted_links import quarantine_folder, quarantine_submission
from grader.state_folders import AUTOGRADE_LOG as LOG_NAME
from grader.ungradable import clear_ungradable, record_ungradable
from grader.worker_lifetime import die_with_parent



@dataclass(frozen=True)
class GradingOutcome:
    """What happened to one submission: graded, or ungradable with the reason.

    ``times``: seconds per step (``grader.breakdown.CATEGORIES``); ``skipped``: not graded
    again because an earlier run graded the same inputs (``graded`` and ``reason`` are that
    run's).
    """

    student: str
    assignment: str
    graded: bool
    reason: str | None
    seconds: float
    times: dict[str, float] = field(default_factory=dict)
    skipped: bool = False


def grade_one(course_root: str, assignment: str, student: str) -> GradingOutcome:
    """Autograde one submission in this process; never raises for a bad submission.

    Afterwards the submission's record says it was graded with its current inputs.
    """
    course = Course(Path(course_root))
    refusal = student_id_problem(student)
    if refusal is not None:  # refused before anything records the id (see student_id_problem)
        return GradingOutcome(student, assignment, False, refusal, 0.0)
    _route_warnings_to_log(course)
    reuse_gradebook_connections()
    validate_metadata_with_cached_schema()
    started = time.perf_counter()
    times = new_times()
    clear_ungradable(course, assignment, student)
    # Before nbgrader copies or reads anything: links, FIFOs, devices and oversized files move out.
    notebook = course.submitted_notebook(student, assignment)
    moved = quarantine_submission(notebook.parent, quarantine_folder(course.root, student, assignment))
    inputs = grading_state.fingerprint(course, assignment, student)  # of what is graded
    reason = unreadable_reason(notebook)
    if reason is not None and moved:
        reason += " Moved out of the submission folder: " + "; ".join(moved) + "."
    if reason is None:
        try:
            result = _autograde(course, assignment, student, times)
            reason = None if result["success"] else _reason_from(result)
        except Exception as exc:  # a converter crash is this submission's problem only
            reason = f"{type(exc).__name__}: {exc}"
    if reason is not None:
        record_ungradable(course, assignment, student, reason)
        write_ungradable_page(course, student, assignment, reason)
    seconds = time.perf_counter() - started
    outcome = GradingOutcome(student, assignment, reason is None, reason, seconds, settle(times, seconds))
    grading_state.write_record(course, assignment, student, {
        "fingerprint": inputs, "graded": outcome.graded, "reason": reason,
        "seconds": round(seconds, 3), "times": {k: round(v, 4) for k, v in outcome.times.items()},
        "finished": time.time()})
    return outcome


_configs: dict[str, tuple[float, object]] = {}


def _course_config(course: Course):
    """The course's nbgrader config, loaded once per worker process (again if the file changed)."""
    path = course.root / "nbgrader_config.py"
    mtime = path.stat().st_mtime
    cached = _configs.get(str(path))
    if cached is None or cached[0] != mtime:
        cached = _configs[str(path)] = (mtime, nbgrader_runner.load_config(course))
    return cached[1]


def _autograde(course: Course, assignment: str, student: str, times: dict) -> dict:
    """``nbgrader autograde <assignment> --student <student> --force``, timed per step."""
    from nbgrader.utils import capture_log

    started = time.perf_counter()
    config = _course_config(course)
    app = TimedAutograde(coursedir=nbgrader_runner._coursedir(course, config, assignment, student),
                         config=config)
    app.times = times
    app.force = True
    app.create_student = True
    times["setup"] += time.perf_counter() - started
    return capture_log(app)


_warnings_routed: set[str] = set()


def _route_warnings_to_log(course: Course) -> None:
    """Send Python warnings of this process to ``.grader/autograde.log`` (once per course)."""
    path = str(course.state_dir / LOG_NAME)
    if path in _warnings_routed:
        return
    _warnings_routed.add(path)
    logging.captureWarnings(True)
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(process)d %(name)s %(message)s"))
    logger = logging.getLogger("py.warnings")
    logger.addHandler(handler)
    logger.propagate = False
    warnings.simplefilter("default")  # each distinct warning once per location, in the log


STUDENT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}")


def student_id_problem(student: str) -> str | None:
    """Why a submission folder's name cannot be taken as a student id, or None when it can.

    The id goes into the gradebook, and from there into pages that nbgrader's formgrader prints
    without escaping (its per-student submissions page): an id holding markup would run in the
    instructor's browser. Such a folder is refused before any gradebook row or file is written.
    """
    if STUDENT_ID.fullmatch(student):
        return None
    return (f"the submission folder {student!r} is not a student id (letters, digits and . _ @ + - only, "
            "starting with a letter or digit); nothing was graded or recorded: rename the folder in "
            "submitted/ to the student's id and grade again.")


def unreadable_reason(path: Path) -> str | None:
    """Why the submitted notebook cannot be graded at all, or None when nbgrader can read it."""
    if not path.exists():
        return f"no notebook was submitted: {path.name} is missing from the submission folder."
    try:
        notebook = nbformat.read(path, as_version=4)
    except Exception as exc:  # nbformat raises several unrelated types for unreadable files
        # A JSON problem is told in words: nbformat's message quotes the file's first bytes.
        problem = _json_problem(path) or f"{type(exc).__name__}: {str(exc)[:200]}"
        return f"{path.name} is not a readable notebook: {problem}; resubmit the file saved by Jupyter."
    try:
        nbformat.validate(notebook)
    except nbformat.ValidationError as exc:
        return f"{path.name} is not a valid notebook ({exc.message[:200]}); resubmit the file saved by Jupyter."
    return None


def _json_problem(path: Path) -> str | None:
    """Why a file is not a JSON object, in words (never quoting the file); None when it is one."""
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"the file is not UTF-8 text (byte {exc.start} is not), so Jupyter did not save it"
    except OSError as exc:
        return f"the file cannot be read ({exc.strerror})"
    if not text.strip():
        return "the file is empty"
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        if exc.pos >= len(text.rstrip()):
            return (f"the file stops in the middle of the notebook (after {exc.lineno} lines), as a file "
                    "cut off while it was saved or copied does")
        return f"the file is not valid JSON from line {exc.lineno}, column {exc.colno} on ({exc.msg.lower()})"
    return None if isinstance(value, dict) else "the file is JSON but holds no notebook"


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


def pending_submissions(course: Course, pairs: Iterable[tuple[str, str]],
                        force: bool = False) -> tuple[list[tuple[str, str]], list[GradingOutcome]]:
    """Split (assignment, student) pairs into those to grade and outcomes of those to skip."""
    todo, skipped = [], []
    for assignment, student in pairs:
        record = None if force else grading_state.read_record(course, assignment, student)
        if record is not None and record.get("fingerprint") == grading_state.fingerprint(course, assignment, student):
            skipped.append(GradingOutcome(student, assignment, bool(record.get("graded")), record.get("reason"),
                                          0.0, skipped=True))
        else:
            todo.append((assignment, student))
    return todo, skipped


def _worker_init() -> None:
    """Each worker dies with the process that started it (its kernels then die with it)."""
    die_with_parent()
    import nbgrader.converters  # noqa: F401 - imported once, before the first submission


def grade_submissions(course: Course, pairs: Iterable[tuple[str, str]], workers: int | None = None,
                      force: bool = False,
                      on_outcome: Callable[[GradingOutcome], None] | None = None) -> list[GradingOutcome]:
    """Autograde (assignment, student) pairs; outcomes in the order of ``pairs``.

    Pairs whose record shows the same inputs are skipped unless ``force``. ``on_outcome`` is
    called in this process for every outcome as it arrives (skipped ones first).
    workers: processes to use (default: the number of CPUs); 1 grades in this process.
    """
    pairs = list(pairs)
    if not pairs:
        return []
    enable_concurrent_writers(course)
    todo, skipped = pending_submissions(course, pairs, force)
    by_pair = {(o.assignment, o.student): o for o in skipped}
    for outcome in skipped:
        if on_outcome:
            on_outcome(outcome)
    workers = max(1, min(workers or os.cpu_count() or 1, len(todo) or 1))
    if workers == 1:
        for assignment, student in todo:
            outcome = by_pair[assignment, student] = grade_one(str(course.root), assignment, student)
            if on_outcome:
                on_outcome(outcome)
    elif todo:
        # "spawn": workers start clean, without the parent's event loops or open database handles.
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_worker_init) as pool:
            futures = {pool.submit(grade_one, str(course.root), a, s): (a, s) for a, s in todo}
            running = set(futures)
            while running:
                finished, running = wait(running, return_when=FIRST_COMPLETED)
                for future in finished:
                    try:
                        outcome = future.result()
                    except Exception as exc:  # the worker died: no record, so the next run retries it
                        assignment, student = futures[future]
                        outcome = GradingOutcome(student, assignment, False,
                                                 f"the grading process failed ({type(exc).__name__}: {exc}); "
                                                 "run grader autograde again to retry", 0.0)
                    by_pair[outcome.assignment, outcome.student] = outcome
                    if on_outcome:
                        on_outcome(outcome)
    return [by_pair[pair] for pair in pairs]


def grade_class(course: Course, assignment: str, students: list[str] | None = None,
                workers: int | None = None, force: bool = True,
                on_outcome: Callable[[GradingOutcome], None] | None = None) -> list[GradingOutcome]:
    """Autograde every listed (default: every submitted) student; outcomes in student order.

    workers: processes to use (default: the number of CPUs); 1 grades in this process.
    force: grade even submissions whose inputs are unchanged since their last grading
    (default True, as ``nbgrader autograde --force``; ``grader autograde`` skips them).
    """
    students = sorted(students if students is not None else course.students(assignment))
    return grade_submissions(course, [(assignment, s) for s in students], workers, force, on_outcome)
