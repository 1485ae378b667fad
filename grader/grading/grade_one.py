"""Grade one (assignment, student) pair in this process: screen, autograde, feedback, record.

``grade_one`` is the task every scheduler runs (``grader.scheduling.pool``, ``grader.scheduling.dask_cluster``,
``grader.service.grading``). It passes the submission through the admission gate
(``grader.grading.admission``), runs nbgrader's
``Autograde`` with the course's pipeline (``grader.grading.pipeline``) and the feedback page, and
ends with a score or with an "ungradable" record, its refusal code and reason (``grader.grading.ungradable_record``);
a finished submission gets a record (``grader.grading.run_record``) so a re-run skips it while its
inputs are unchanged.

A worker process keeps what does not change between submissions: the imported nbgrader, the loaded
course config and the kernel zygote. Library warnings (nbgrader's gradebook emits SQLAlchemy warnings
for every submission) go to ``.grader/autograde.log``.
"""
from __future__ import annotations

import logging
import re
import time
import warnings
from pathlib import Path

from grader.course import Course
from grader.grading import nbgrader_apps, run_record
from grader.grading.admission import (
    MOVED_OUT,
    Limits,
    admit,
    course_limits,
    file_names_refusal,
    notebook_sizes_refusal,
    refused,
    student_id_refusal,
)
from grader.grading.gradebook_cells import read_once_per_grading
from grader.grading.nbgrader_compat import reuse_gradebook_connections, validate_metadata_with_cached_schema
from grader.grading.outcome import GradingOutcome
from grader.grading.status_page import write_ungradable_page
from grader.grading.step_times import TimedAutograde, new_times, settle
from grader.grading.ungradable_record import clear_ungradable, record_ungradable
from grader.sandbox.submitted_links import quarantine_folder, quarantine_submission
from grader.state_folders import AUTOGRADE_LOG as LOG_NAME


def grade_one(course_root: str, assignment: str, student: str, limits: Limits | None = None,
              writes_refusal_page: bool = True) -> GradingOutcome:
    """Autograde one submission in this process; never raises for a bad submission.

    ``limits``: the admission gate's notebook limits (default: the course's settings).
    ``writes_refusal_page``: an ungradable submission gets its page here; False when the caller
    writes it (the grading service, whose page also names the hand-in's time). Afterwards the
    submission's record says it was graded with its current inputs.
    """
    course = Course(Path(course_root))
    refusal = student_id_refusal(student)
    if refusal is not None:  # refused before anything records the id (see student_id_refusal)
        return GradingOutcome(student, assignment, False, refusal.student_text, 0.0, code=refusal.code)
    _route_warnings_to_log(course)
    reuse_gradebook_connections()
    validate_metadata_with_cached_schema()
    started = time.perf_counter()
    times = new_times()
    clear_ungradable(course, assignment, student)
    folder = course.submission_folder(student, assignment)
    limits = limits or course_limits(course)
    # A name that is not UTF-8 cannot be moved, hashed or carried by nbgrader, and an oversized
    # notebook is refused as such before the quarantine moves it out: both first.
    refusal = file_names_refusal(folder) or notebook_sizes_refusal(course, assignment, folder, limits)
    moved, inputs = [], None
    if refusal is None:
        # Before nbgrader copies or reads anything: links, FIFOs, devices and oversized files move out.
        moved = quarantine_submission(folder, quarantine_folder(course.root, student, assignment), limits.max_bytes)
        inputs = run_record.inputs_digest(course, assignment, student)  # of what is graded
        refusal = admit(course, assignment, student, folder, limits)
    if refusal is not None and moved:
        refusal = refused(refusal.code, MOVED_OUT.format(reason=refusal.student_text, entries="; ".join(moved)))
    if refusal is None:
        try:
            with read_once_per_grading():
                result = _autograde(course, assignment, student, times)
            refusal = None if result["success"] else refused("grading-failed", _reason_from(result))
        except Exception as exc:  # a converter crash is this submission's problem only
            refusal = refused("grading-failed", f"{type(exc).__name__}: {exc}")
    if refusal is not None:
        record_ungradable(course, assignment, student, refusal)
        if writes_refusal_page:
            write_ungradable_page(course, student, assignment, refusal.student_text, refusal.code)
    seconds = time.perf_counter() - started
    reason = None if refusal is None else refusal.student_text
    outcome = GradingOutcome(student, assignment, refusal is None, reason, seconds, settle(times, seconds),
                             code=None if refusal is None else refusal.code)
    if inputs is None:  # no inputs digest was taken: the next run looks at it again
        return outcome
    run_record.write_record(course, assignment, student, {
        "inputs_digest": inputs, "graded": outcome.graded, "reason": reason, "code": outcome.code,
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
        cached = _configs[str(path)] = (mtime, nbgrader_apps.load_config(course))
    return cached[1]


def _autograde(course: Course, assignment: str, student: str, times: dict) -> dict:
    """``nbgrader autograde <assignment> --student <student> --force``, timed per step."""
    from nbgrader.utils import capture_log

    started = time.perf_counter()
    config = _course_config(course)
    app = TimedAutograde(coursedir=nbgrader_apps._coursedir(course, config, assignment, student),
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
