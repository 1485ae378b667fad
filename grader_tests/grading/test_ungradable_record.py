"""An ungradable submission ends with a recorded zero: its reason in the grading process's private
folder (out of every kernel's reach), its timestamp in the gradebook so that nbgrader's own tools
count it as graded."""
from __future__ import annotations

import stat
from datetime import datetime

import pytest
from nbgrader.api import Gradebook

from grader.grading.admission import refused
from grader.grading.ungradable_record import (
    clear_ungradable,
    reason_path,
    record_ungradable,
    ungradable_code,
    ungradable_reason,
)

pytestmark = pytest.mark.slow  # a released course with its gradebook

ASSIGNMENT = "02_softmax"


def test_reason_is_kept_in_the_private_state_folder(course):
    record_ungradable(course, ASSIGNMENT, "ada", refused("notebook-unreadable", "not a readable notebook"))
    assert ungradable_reason(course, ASSIGNMENT, "ada") == "not a readable notebook"
    assert not (course.root / "autograded" / "ada" / ASSIGNMENT / "UNGRADABLE.txt").exists()
    assert stat.S_IMODE(course.state_dir.stat().st_mode) == 0o700


def test_the_refusal_code_is_kept_beside_the_reason(course):
    record_ungradable(course, ASSIGNMENT, "dee", refused("too-many-cells", "too many cells"))
    assert ungradable_code(course, ASSIGNMENT, "dee") == "too-many-cells"
    assert ungradable_reason(course, ASSIGNMENT, "dee") == "too many cells"


def test_a_record_written_before_codes_reads_as_its_whole_text_with_no_code(course):
    path = reason_path(course, ASSIGNMENT, "eve")
    path.parent.mkdir(parents=True)
    path.write_text("the notebook is not valid JSON\n", encoding="utf-8")
    assert (ungradable_code(course, ASSIGNMENT, "eve"), ungradable_reason(course, ASSIGNMENT, "eve")) == (
        None, "the notebook is not valid JSON")


def test_a_file_left_in_the_working_folder_is_no_reason(course):
    folder = course.root / "autograded" / "bo" / ASSIGNMENT
    folder.mkdir(parents=True)
    (folder / "UNGRADABLE.txt").write_text("[/oops] forged by a kernel")
    assert ungradable_reason(course, ASSIGNMENT, "bo") is None


def test_clearing_removes_the_reason(course):
    record_ungradable(course, ASSIGNMENT, "cy", refused("grading-failed", "x"))
    clear_ungradable(course, ASSIGNMENT, "cy")
    assert ungradable_reason(course, ASSIGNMENT, "cy") is None


def test_ungradable_record_keeps_the_submission_timestamp_so_formgrader_counts_it_as_autograded(course):
    folder = course.root / "submitted" / "gus" / "02_softmax"
    folder.mkdir(parents=True)
    (folder / "softmax.ipynb").write_text("{not json", encoding="utf-8")
    (folder / "timestamp.txt").write_text("2026-03-02 14:00:00.000000 UTC", encoding="utf-8")
    record_ungradable(course, "02_softmax", "gus", refused("notebook-unreadable", "not a notebook"))
    with Gradebook(course.db_url) as gb:
        submission = gb.find_submission("02_softmax", "gus")
        assert submission.timestamp == datetime(2026, 3, 2, 14, 0, 0)
        assert submission.score == 0
    assert ungradable_reason(course, "02_softmax", "gus") == "not a notebook"


def test_ungradable_record_without_a_timestamp_file_has_none(course):
    (course.root / "submitted" / "gus" / "02_softmax").mkdir(parents=True)
    record_ungradable(course, "02_softmax", "gus", refused("notebook-missing", "no notebook"))
    with Gradebook(course.db_url) as gb:
        assert gb.find_submission("02_softmax", "gus").timestamp is None
