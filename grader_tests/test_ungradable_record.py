"""An ungradable submission is recorded so that nbgrader's own tools count it as graded."""
from __future__ import annotations

from datetime import datetime

from nbgrader.api import Gradebook

from grader.grading.ungradable_record import record_ungradable, ungradable_reason


def test_ungradable_record_keeps_the_submission_timestamp_so_formgrader_counts_it_as_autograded(course):
    folder = course.root / "submitted" / "gus" / "02_softmax"
    folder.mkdir(parents=True)
    (folder / "softmax.ipynb").write_text("{not json", encoding="utf-8")
    (folder / "timestamp.txt").write_text("2026-03-02 14:00:00.000000 UTC", encoding="utf-8")
    record_ungradable(course, "02_softmax", "gus", "not a notebook")
    with Gradebook(course.db_url) as gb:
        submission = gb.find_submission("02_softmax", "gus")
        assert submission.timestamp == datetime(2026, 3, 2, 14, 0, 0)
        assert submission.score == 0
    assert ungradable_reason(course, "02_softmax", "gus") == "not a notebook"


def test_ungradable_record_without_a_timestamp_file_has_none(course):
    (course.root / "submitted" / "gus" / "02_softmax").mkdir(parents=True)
    record_ungradable(course, "02_softmax", "gus", "no notebook")
    with Gradebook(course.db_url) as gb:
        assert gb.find_submission("02_softmax", "gus").timestamp is None
