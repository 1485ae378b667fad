"""Ungradable reasons live in the grading process's private folder, out of every kernel's reach."""
from __future__ import annotations

import stat

import pytest

from grader.grading.ungradable_record import clear_ungradable, record_ungradable, ungradable_reason

pytestmark = pytest.mark.slow  # a released course with its gradebook

ASSIGNMENT = "02_softmax"


def test_reason_is_kept_in_the_private_state_folder(course):
    record_ungradable(course, ASSIGNMENT, "ada", "not a readable notebook")
    assert ungradable_reason(course, ASSIGNMENT, "ada") == "not a readable notebook"
    assert not (course.root / "autograded" / "ada" / ASSIGNMENT / "UNGRADABLE.txt").exists()
    assert stat.S_IMODE(course.state_dir.stat().st_mode) == 0o700


def test_a_file_left_in_the_working_folder_is_no_reason(course):
    folder = course.root / "autograded" / "bo" / ASSIGNMENT
    folder.mkdir(parents=True)
    (folder / "UNGRADABLE.txt").write_text("[/oops] forged by a kernel")
    assert ungradable_reason(course, ASSIGNMENT, "bo") is None


def test_clearing_removes_the_reason(course):
    record_ungradable(course, ASSIGNMENT, "cy", "x")
    clear_ungradable(course, ASSIGNMENT, "cy")
    assert ungradable_reason(course, ASSIGNMENT, "cy") is None
