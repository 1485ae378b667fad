"""What has been graded already, so that a re-run (or a run after a crash) grades only what changed.

After a submission is graded (its scores are in the gradebook, or it is recorded ungradable), a
record ``.grader/autograde/<assignment>/<student>.json`` is written atomically (its format:
``grader/formats/run_record.schema.json``), holding a digest of everything the result depends on:

- every file of the submission folder (names and bytes): a superset of what the hidden inputs
  follow (``grader.grading.submission_fingerprint``), so a submission whose inputs change is always graded
  again, and one that changed only a comment is graded again with the same inputs;
- the assignment's source folder (the notebook with its hidden probes);
- the course's policy file (``policy.csv``: extensions, late days, accommodations; ``grader.policy``);
- the course's ``nbgrader_config.py`` and its secret (``grader.grading.seeds``: the hidden inputs follow
  from it; created here first if it does not exist yet, so that grading does not change it);
- the grading code: the installed version and the bytes of the ``grader`` and ``solutions``
  packages.

A submission is graded again when it has no record, or its record's inputs digest differs. A run
killed half way leaves no record for the submissions it had not finished, so the next run grades
exactly those; a submission whose record exists was fully graded and is skipped.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from pathlib import Path

from grader import formats
from grader.code_version import grader_version, hash_tree
from grader.course import Course
from grader.course_folders import SOURCE
from grader.grading.seeds import course_secret
from grader.settings import setting
from grader.state_folders import RUN_RECORDS

log = logging.getLogger(__name__)
POLICY_FILE_DEFAULT = setting("CoursePolicy", "policy_file").default


def inputs_digest(course: Course, assignment: str, student: str) -> str:
    """SHA-256 (hex) of every grading input of one submission: its folder, the assignment's source,
    the course's nbgrader config and policy, the course secret and the grader's version."""
    digest = hashlib.sha256()
    hash_tree(digest, course.submission_folder(student, assignment), "submission")
    hash_tree(digest, course.root / SOURCE / assignment, "source")
    config = course.root / "nbgrader_config.py"
    digest.update(b"[config]" + (config.read_bytes() if config.exists() else b"<missing>"))
    policy = course.root / POLICY_FILE_DEFAULT
    digest.update(b"[policy]" + (policy.read_bytes() if policy.exists() else b"<missing>"))
    digest.update(b"[secret]" + hashlib.sha256(course_secret(course.state_dir)).digest())
    digest.update(b"[grader]" + grader_version().encode())
    return digest.hexdigest()


def record_path(course: Course, assignment: str, student: str) -> Path:
    return course.state_dir / RUN_RECORDS / assignment / f"{student}.json"


def read_record(course: Course, assignment: str, student: str) -> dict | None:
    """The record of the last finished grading of this submission, or None."""
    return read_record_file(record_path(course, assignment, student))


def read_record_file(path: Path) -> dict | None:
    """The run record in ``path``; None when it is missing, or damaged (logged, naming the field):
    a submission without a readable record is graded again."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        log.warning("Ignoring the run record %s: %s", path, exc)
        return None
    try:
        formats.check(formats.RUN_RECORD, record)
    except formats.FormatError as exc:
        log.warning("Ignoring the run record %s: %s", path, exc)
        return None
    return record


def write_record(course: Course, assignment: str, student: str, record: dict) -> None:
    """Write the record atomically: a reader sees the old record or the new one, never half.

    Raises :class:`grader.formats.FormatError` when ``record`` does not match the run record's format.
    """
    formats.check(formats.RUN_RECORD, record)
    path = record_path(course, assignment, student)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{student}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(record, handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
