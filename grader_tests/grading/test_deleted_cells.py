"""A test cell the student deleted is put back from the gradebook and graded, as nbgrader does;
a notebook that deleted nothing is graded as handed in."""
from __future__ import annotations

import nbformat
import pytest
from nbgrader.api import Gradebook

from grader.course import Course
from grader.demo.corpus import Submission, build_notebook
from grader.grading.grade_one import grade_one
from grader_tests.checkout import ASSIGNMENTS

ASSIGNMENT = "01_variance"
pytestmark = pytest.mark.slow


def hand_in_model_answer(course: Course, student: str, deleting: str | None = None) -> None:
    release = nbformat.read(course.release_notebook(ASSIGNMENT), as_version=4)
    source = nbformat.read(course.source_notebook(ASSIGNMENT), as_version=4)
    notebook = build_notebook(Submission(ASSIGNMENT, student, base="model", kind="correct", summary="", cells={}),
                              release, source)
    notebook.cells = [c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") != deleting]
    path = course.submitted_notebook(student, ASSIGNMENT)
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, path)


def scores(course: Course, student: str) -> dict[str, float]:
    with Gradebook(course.db_url) as gb:
        notebook = gb.find_submission_notebook(ASSIGNMENTS[ASSIGNMENT], ASSIGNMENT, student)
        return {grade.name: float(grade.score) for grade in notebook.grades}


def ids_of_test_cells(course: Course) -> list[str]:
    source = nbformat.read(course.source_notebook(ASSIGNMENT), as_version=4)
    return [c.metadata.nbgrader["grade_id"] for c in source.cells
            if c.metadata.get("nbgrader", {}).get("grade") and not c.metadata.nbgrader.get("solution")]


def test_a_deleted_test_cell_is_put_back_and_scores_as_if_it_had_been_kept(course):
    deleted = ids_of_test_cells(course)[0]
    hand_in_model_answer(course, "kept")
    hand_in_model_answer(course, "deleter", deleting=deleted)
    for student in ("kept", "deleter"):
        outcome = grade_one(str(course.root), ASSIGNMENT, student)
        assert outcome.graded, outcome.reason
    kept, deleter = scores(course, "kept"), scores(course, "deleter")
    assert deleter == kept and kept[deleted] > 0
    graded = nbformat.read(course.root / "autograded" / "deleter" / ASSIGNMENT / course.submitted_notebook(
        "deleter", ASSIGNMENT).name, as_version=4)
    assert deleted in [c.metadata.get("nbgrader", {}).get("grade_id") for c in graded.cells]
