"""``grader check-course`` says in plain words what a course still lacks, and exits non-zero when anything does."""
from __future__ import annotations

import nbformat
import pytest
from nbformat.v4 import new_code_cell

from grader.authoring.course_findings import course_findings
from grader.authoring.scaffold import new_assignment
from grader.cli import main
from grader.notebook_cells import grade_id

ASSIGNMENT = "05_squares"


@pytest.fixture
def course_root(tmp_path):
    new_assignment(tmp_path, ASSIGNMENT)
    return tmp_path


def edit_checks(root, old: str, new: str) -> None:
    path = root / "source" / ASSIGNMENT / "checks.py"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def edit_notebook(root, edit) -> None:
    path = root / "source" / ASSIGNMENT / "squares.ipynb"
    notebook = nbformat.read(path, as_version=4)
    edit(notebook)
    nbformat.write(notebook, path)


def findings(root) -> list[str]:
    return [str(finding) for finding in course_findings(root)]


def test_a_scaffolded_assignment_lacks_nothing(course_root, capsys):
    assert main(["check-course", "--course", str(course_root)]) == 0
    assert "Every solution cell has a check" in capsys.readouterr().out


def test_the_course_shipped_with_the_engine_lacks_nothing():
    from grader_tests.checkout import REPO_ROOT

    assert findings(REPO_ROOT) == []


def test_a_solution_cell_without_a_check_is_named(course_root):
    edit_notebook(course_root, lambda nb: nb.cells.append(new_code_cell(
        "def cube_sum(x):\n    ### BEGIN SOLUTION\n    return 0.0\n    ### END SOLUTION",
        metadata={"nbgrader": {"grade_id": "cube_sum", "solution": True, "grade": False, "locked": False,
                               "schema_version": 3}})))
    assert findings(course_root) == ["source/05_squares: the solution cell 'cube_sum' has no check: add one named "
                                     "'cube_sum' to CHECKS in checks.py"]


def test_a_check_without_a_test_cell_is_named(course_root):
    edit_notebook(course_root, lambda nb: nb.cells.remove(
        next(c for c in nb.cells if grade_id(c) == "test_square_sum")))
    assert [f for f in findings(course_root) if "has no test cell" in f] == [
        "source/05_squares: the check 'square_sum' has no test cell: add a graded test cell 'test_square_sum' "
        "ending in the hidden lines `from grader.probe import probe` and `probe(\"square_sum\")`"]


def test_a_variant_range_whose_ends_are_equal_is_named_as_degenerate(course_root):
    edit_checks(course_root, "numbers={'n': (5, 20)}", "numbers={'n': (7, 7)}")
    assert any("the range of answer_squares_up_to's number 'n' degenerates: (7, 7)" in f
               for f in findings(course_root))


def test_a_numbers_cell_that_shows_other_ranges_than_the_checks_file_is_named(course_root):
    edit_checks(course_root, "numbers={'n': (5, 20)}", "numbers={'n': (5, 30)}")
    assert any("the 'my_numbers' cell shows the ranges" in f for f in findings(course_root))


def test_a_checks_file_that_fails_to_import_is_named_with_its_error(course_root):
    edit_checks(course_root, "import numpy as np", "import numpy as np\nimport no_such_module_here")
    (finding,) = findings(course_root)
    assert finding.startswith("source/05_squares/checks.py: the checks file")
    assert "ModuleNotFoundError: No module named 'no_such_module_here'" in finding


def test_check_course_exits_non_zero_and_counts_what_is_missing(course_root, capsys):
    edit_checks(course_root, "numbers={'n': (5, 20)}", "numbers={'n': (9, 2)}")
    assert main(["check-course", "--course", str(course_root)]) == 1
    assert "to fix before releasing" in capsys.readouterr().out
