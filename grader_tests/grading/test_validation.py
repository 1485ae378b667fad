"""Validate: test cells whose answer is not written yet are listed apart from the ones that fail."""
from __future__ import annotations

import io
import shutil
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook, new_output

from grader.validation import (NOT_ATTEMPTED, SUMMARY_KEY, CourseValidator, not_attempted_tests, summary_counts,
                               summary_text)
from grader_tests.checkout import REPO_ROOT

RELEASED_SOFTMAX = REPO_ROOT / "release" / "02_softmax" / "softmax.ipynb"


def _raised(name: str) -> nbformat.NotebookNode:
    return new_output("error", ename=name, evalue="", traceback=[f"{name}: "])


def _answer(grade_id: str, *outputs) -> nbformat.NotebookNode:
    cell = new_code_cell("# YOUR CODE HERE", metadata={"nbgrader": {
        "solution": True, "grade": False, "grade_id": grade_id}})
    cell.outputs = list(outputs)
    return cell


def _test(grade_id: str, *outputs) -> nbformat.NotebookNode:
    cell = new_code_cell(f'"""{grade_id}: what it checks"""', metadata={"nbgrader": {
        "solution": False, "grade": True, "grade_id": grade_id, "points": 1}})
    cell.outputs = list(outputs)
    return cell


def test_a_test_cell_that_raised_not_implemented_error_is_not_attempted_yet():
    nb = new_notebook(cells=[_answer("softmax"), _test("test_softmax", _raised("NotImplementedError"))])
    assert not_attempted_tests(nb) == [nb.cells[1]]


def test_a_test_cell_under_an_answer_still_raising_not_implemented_error_is_not_attempted_yet():
    nb = new_notebook(cells=[_answer("answer_culprit", _raised("NotImplementedError")),
                             _test("test_answer_culprit", _raised("AssertionError"))])
    assert not_attempted_tests(nb) == [nb.cells[1]]


def test_a_test_cell_that_fails_on_a_written_answer_is_a_failure():
    nb = new_notebook(cells=[_answer("softmax"), _test("test_softmax", _raised("AssertionError"))])
    assert not_attempted_tests(nb) == []


def test_the_summary_counts_failures_apart_from_cells_not_attempted():
    results = {"failed": [{"raw_error": "AssertionError"}, {"raw_error": NOT_ATTEMPTED}, {"raw_error": NOT_ATTEMPTED}]}
    assert summary_counts(results) == {"failed": 1, "not_attempted": 2}


def test_the_summary_line_names_both_counts():
    text = summary_text({"failed": 1, "not_attempted": 8})
    assert text.startswith("1 test cell fails; 8 test cells not attempted yet")


def test_the_summary_line_of_a_notebook_only_not_attempted_says_no_cell_fails():
    assert summary_text({"failed": 0, "not_attempted": 3}).startswith("3 test cells not attempted yet")


@pytest.fixture
def released_copy(tmp_path):
    path = tmp_path / "softmax.ipynb"
    shutil.copy(RELEASED_SOFTMAX, path)
    return path


def _with_wrong_softmax(path):
    nb = nbformat.read(path, as_version=4)
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "softmax")
    cell.source = "def softmax(x, axis=-1):\n    return x\n"
    nbformat.write(nb, path)
    return path


@pytest.mark.slow
def test_a_fresh_release_has_no_failure_only_test_cells_not_attempted(released_copy):
    results = CourseValidator().validate(str(released_copy))
    cells = nbformat.read(released_copy, as_version=4).cells
    tests = sum(1 for c in cells if c.metadata.get("nbgrader", {}).get("grade"))
    assert results[SUMMARY_KEY] == {"failed": 0, "not_attempted": tests}
    assert {entry["raw_error"] for entry in results["failed"]} == {NOT_ATTEMPTED}


@pytest.mark.slow
def test_a_real_failure_comes_first_with_its_error_and_the_stubs_follow_in_one_line_each(released_copy):
    validator = CourseValidator()
    validator.stream = io.StringIO()
    validator.validate_and_print(str(_with_wrong_softmax(released_copy)))
    printed = validator.stream.getvalue()
    assert printed.startswith("1 test cell fails; ")
    failures, _, not_attempted = printed.partition("\nNot attempted yet: ")
    assert failures.count("The following cell failed") == 1 and "AssertionError" in failures
    assert "The following cell failed" not in not_attempted and "Traceback" not in not_attempted
    assert "Not attempted yet: entropy: nats;" in printed
