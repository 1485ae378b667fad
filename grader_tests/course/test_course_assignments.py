"""Which assignments a course folder has and which notebooks each holds (``Course.notebooks``)."""
from __future__ import annotations

import pytest

from grader.course import ASSIGNMENTS, Course


def ordinary_course(root) -> Course:
    """A course folder whose ``source/ps1/`` holds two notebooks and an image, as nbgrader's example."""
    folder = root / "source" / "ps1"
    folder.mkdir(parents=True)
    for name in ("problem2.ipynb", "problem1.ipynb", "jupyter.png"):
        (folder / name).write_text("{}", encoding="utf-8")
    (root / "source" / "empty").mkdir()
    return Course(root)


def test_a_course_assignment_has_its_one_notebook(tmp_path):
    assert Course(tmp_path).notebooks("02_softmax") == [ASSIGNMENTS["02_softmax"]]


def test_an_ordinary_assignment_has_every_notebook_of_its_source_folder_in_name_order(tmp_path):
    course = ordinary_course(tmp_path)
    assert course.notebooks("ps1") == ["problem1", "problem2"]
    assert course.feedback_pages("ann", "ps1") == [tmp_path / "feedback" / "ann" / "ps1" / "problem1.html",
                                                    tmp_path / "feedback" / "ann" / "ps1" / "problem2.html"]


def test_the_course_lists_its_own_assignments_then_the_ordinary_ones(tmp_path):
    assert ordinary_course(tmp_path).assignments() == [*ASSIGNMENTS, "ps1"]


@pytest.mark.parametrize("assignment", ["ps2", "empty", "..", "ps1/../ps1", ""])
def test_an_id_that_names_no_folder_of_notebooks_is_refused_naming_the_assignments(tmp_path, assignment):
    course = ordinary_course(tmp_path)
    assert not course.has_assignment(assignment)
    with pytest.raises(ValueError, match=r"unknown assignment .*01_variance.*ps1 \(an assignment is a folder"):
        course.notebooks(assignment)


def test_grader_autograde_refuses_an_unknown_assignment_before_grading(tmp_path):
    from grader.cli import main

    course = ordinary_course(tmp_path)
    (course.root / "nbgrader_config.py").write_text("", encoding="utf-8")
    with pytest.raises(SystemExit, match=r"error: unknown assignment 'ps2'; the course has .*ps1"):
        main(["autograde", "ps2", "--course", str(course.root)])
    assert not (course.root / "autograded").exists()
