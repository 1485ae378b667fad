"""Grading time per submission, recorded by the grading process and read back by the class report.

Each graded submission appends one JSON line to ``<course>/.grader/grading_times.jsonl``::

    {"assignment": "02_softmax", "student": "ada", "seconds": 2.41, "graded": true, "at": "2026-...Z"}

``seconds`` is wall-clock time of ``grader.parallel.grade_one`` (reading the notebook, the sandboxed
kernel run, judging, gradebook writes). A regrade appends another line; the latest one counts.
The file lives in the grading process's private folder, where no kernel can write.
"""
from __future__ import annotations

import fcntl
import json
import sys
from datetime import datetime, timezone
from pathlib import Path

from grader.course import STATE_DIR_NAME, Course

TIMINGS_FILE = "grading_times.jsonl"


def timings_path(course: Course) -> Path:
    return course.state_dir / TIMINGS_FILE


def record_grading_time(course: Course, outcome):
    """Append ``outcome`` (a ``grader.parallel.GradingOutcome``) as one line and return it unchanged.

    Safe across parallel workers. A record that cannot be written costs the report one timing,
    never the grade: the error is swallowed after a warning on stderr.
    """
    line = json.dumps({"assignment": outcome.assignment, "student": outcome.student,
                       "seconds": round(float(outcome.seconds), 3), "graded": bool(outcome.graded),
                       "at": datetime.now(timezone.utc).isoformat(timespec="seconds")})
    try:
        with open(timings_path(course), "a", encoding="utf-8") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)  # one whole line per writer, even from parallel workers
            handle.write(line + "\n")
    except OSError as exc:
        print(f"warning: grading time of {outcome.student}/{outcome.assignment} not recorded: {exc}",
              file=sys.stderr)
    return outcome


def grading_times(course: Course, assignment: str) -> dict[str, float]:
    """student -> seconds of the latest grading of ``assignment``; lines that do not parse are skipped."""
    path = course.root / STATE_DIR_NAME / TIMINGS_FILE  # reading never creates the folder
    if not path.exists():
        return {}
    times: dict[str, float] = {}
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            record = json.loads(line)
            if record["assignment"] == assignment:
                times[str(record["student"])] = float(record["seconds"])
        except (ValueError, KeyError, TypeError):
            continue  # a line cut short by a crash costs that one entry, not the report
    return times
