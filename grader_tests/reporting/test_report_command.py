"""``grader report`` reports on any assignment of the course's gradebook and names the known ones
when asked for another."""
from __future__ import annotations

import pytest
from nbgrader.api import Gradebook

from grader.cli import main


def test_report_covers_an_assignment_of_the_gradebook_beyond_the_four_lessons(course):
    with Gradebook(course.db_url) as gb:
        gb.add_assignment("05_extra")
        gb.add_student("ada")
        gb.add_submission("05_extra", "ada")
    (course.root / "submitted" / "ada" / "05_extra").mkdir(parents=True)
    assert main(["report", "05_extra", "--course", str(course.root)]) == 0
    assert "05_extra" in (course.root / "reports" / "05_extra.html").read_text(encoding="utf-8")


def test_report_of_an_unknown_assignment_names_the_gradebook_s_assignments(course):
    with pytest.raises(SystemExit) as stop:
        main(["report", "06_nope", "--course", str(course.root)])
    message = str(stop.value)
    assert "'06_nope' is not an assignment of this course's gradebook" in message
    assert "01_variance, 02_softmax, 03_readout, 04_attention" in message
