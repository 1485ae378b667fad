"""Which assignments a course folder has (its folders of notebooks, declared nowhere else) and which
notebooks each holds (``Course.notebooks``)."""
from __future__ import annotations

import pytest

from grader.course import Course
from grader_tests.checkout import THE_COURSE


def ordinary_course(root) -> Course:
    """A course folder whose ``source/ps1/`` holds two notebooks and an image, as nbgrader's example."""
    folder = root / "source" / "ps1"
    folder.mkdir(parents=True)
    for name in ("problem2.ipynb", "problem1.ipynb", "jupyter.png"):
        (folder / name).write_text("{}", encoding="utf-8")
    (root / "source" / "empty").mkdir()
    return Course(root)


def test_the_course_assignments_are_its_source_folders_in_teaching_order():
    assert THE_COURSE.assignments() == ["01_variance", "02_softmax", "03_readout", "04_attention"]
    assert THE_COURSE.notebooks("02_softmax") == ["softmax"]


def test_an_assignment_has_every_notebook_of_its_source_folder_in_name_order(tmp_path):
    course = ordinary_course(tmp_path)
    assert course.notebooks("ps1") == ["problem1", "problem2"]
    assert course.notebook_name("ps1") == "problem1"
    assert course.feedback_pages("ann", "ps1") == [tmp_path / "feedback" / "ann" / "ps1" / "problem1.html",
                                                    tmp_path / "feedback" / "ann" / "ps1" / "problem2.html"]


def test_a_folder_without_notebooks_is_no_assignment(tmp_path):
    assert ordinary_course(tmp_path).assignments() == ["ps1"]


def test_a_course_with_only_its_student_versions_lists_the_folders_of_release(tmp_path):
    folder = tmp_path / "release" / "ps1"
    folder.mkdir(parents=True)
    (folder / "problem1.ipynb").write_text("{}", encoding="utf-8")
    assert Course(tmp_path).assignments() == ["ps1"]
    assert Course(tmp_path).notebooks("ps1") == ["problem1"]


def test_a_course_folder_without_assignments_says_it_has_none(tmp_path):
    with pytest.raises(ValueError, match=r"unknown assignment '02_softmax'; the course has none"):
        Course(tmp_path).notebooks("02_softmax")


@pytest.mark.parametrize("assignment", ["ps2", "empty", "..", "ps1/../ps1", ""])
def test_an_id_that_names_no_folder_of_notebooks_is_refused_naming_the_assignments(tmp_path, assignment):
    course = ordinary_course(tmp_path)
    assert not course.has_assignment(assignment)
    with pytest.raises(ValueError, match=r"unknown assignment .*; the course has ps1 \(an assignment is a folder"):
        course.notebooks(assignment)


def test_grader_autograde_refuses_an_unknown_assignment_before_grading(tmp_path):
    from grader.cli import main

    course = ordinary_course(tmp_path)
    (course.root / "nbgrader_config.py").write_text("", encoding="utf-8")
    with pytest.raises(SystemExit, match=r"error: unknown assignment 'ps2'; the course has .*ps1"):
        main(["autograde", "ps2", "--course", str(course.root)])
    assert not (course.root / "autograded").exists()
