"""The student's namespace is theirs: no course cell assigns a top-level name a student might use.

A course cell (the setup and ``my_numbers`` cells, the visible tests, the figure cells) runs in the
same namespace as the student's code, between the student's cells. If it assigned ``numbers`` or
``rng`` at top level, a student whose function uses ``numbers.Real`` or a global ``rng`` of their own
would break without touching anything of ours. So a course cell binds only the documented API
(``STUDENT_API_NAMES``) and names with a leading underscore.

Two tests: a quick one reads every course cell of the source and release notebooks, and a slow one
grades, through ``nbgrader autograde`` and the sandbox, a correct student (the model answers) who
imports ``numbers``, ``math``, ``random``, ``statistics``, ``np`` and ``plt`` and keeps names of their
own such as ``d_k``, ``x``, ``w``, ``rng`` and ``scores`` at top level in every assignment.
"""
from __future__ import annotations

import ast
import subprocess
import sys

import nbformat
import pytest
from nbgrader.api import Gradebook

from grader.demo.corpus import write_submission
from grader.notebook_cells import grade_id, is_solution_cell, model_answers, points_of_test_cells
from grader_tests.checkout import ASSIGNMENTS, REPO_ROOT

HIDDEN_TESTS = "### BEGIN HIDDEN TESTS"

#: What a course cell may bind besides names with a leading underscore: the setup cell's imports
#: (every model answer and visible test uses them) and the numbers cell's ``my_numbers``; the
#: functions and ``answer_*`` names of the solution cells are added per notebook.
STUDENT_API_NAMES = frozenset({"np", "plt", "my_numbers"})


def _targets(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def top_level_names(source: str) -> set[str]:
    """The names a cell binds in the namespace it runs in (not those local to its functions,
    lambdas or comprehensions)."""
    bound: set[str] = set()

    def visit(statements):
        for statement in statements:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bound.add(statement.name)
            elif isinstance(statement, ast.Assign):
                bound.update(*(_targets(target) for target in statement.targets))
            elif isinstance(statement, (ast.AugAssign, ast.AnnAssign)):
                bound.update(_targets(statement.target))
            elif isinstance(statement, ast.Delete):
                bound.update(*(_targets(target) for target in statement.targets))
            elif isinstance(statement, (ast.Import, ast.ImportFrom)):
                bound.update((alias.asname or alias.name).split(".")[0] for alias in statement.names)
            elif isinstance(statement, (ast.For, ast.AsyncFor)):
                bound.update(_targets(statement.target))
                visit(statement.body + statement.orelse)
            elif isinstance(statement, (ast.With, ast.AsyncWith)):
                for item in statement.items:
                    if item.optional_vars is not None:
                        bound.update(_targets(item.optional_vars))
                visit(statement.body)
            elif isinstance(statement, (ast.If, ast.While)):
                visit(statement.body + statement.orelse)
            elif isinstance(statement, ast.Try):
                visit(statement.body + statement.orelse + statement.finalbody)
                for handler in statement.handlers:
                    if handler.name:
                        bound.add(handler.name)
                    visit(handler.body)

    tree = ast.parse(source)
    visit(tree.body)
    bound.update(n.target.id for n in ast.walk(tree) if isinstance(n, ast.NamedExpr))  # := leaks even from comprehensions
    return bound


def api_names(notebook) -> set[str]:
    """The student API of a notebook: what its solution cells are named after, and the shared names."""
    return STUDENT_API_NAMES | {grade_id(cell) for cell in notebook.cells if is_solution_cell(cell)}


def course_cells(notebook):
    """(label, the source that runs in the student's namespace) of every code cell that is not a solution
    cell. The hidden part of a test cell is left out: it never reaches a student's kernel (the release
    drops it, and grading replaces the whole cell by the probe code, which binds nothing:
    ``test_verdicts.py``)."""
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type == "code" and not is_solution_cell(cell):
            yield f"cell {index} ({grade_id(cell) or 'no grade_id'})", cell.source.split(HIDDEN_TESTS)[0]


def _notebook(folder: str, assignment: str):
    return nbformat.read(REPO_ROOT / folder / assignment / f"{ASSIGNMENTS[assignment]}.ipynb", as_version=4)


def test_top_level_names_are_those_a_cell_leaves_behind():
    source = ("import numbers as n, os.path\nx, (y, z) = 1, (2, 3)\nfor i in range(2):\n    w = i\n"
              "def f(a):\n    b = a\nsquares = [k * k for k in range(3)]\ntry:\n    pass\nexcept ValueError as e:\n"
              "    pass\nwith open('f') as handle:\n    pass\nany(last := v for v in range(3))\n")
    assert top_level_names(source) == {"n", "os", "x", "y", "z", "i", "w", "f", "squares", "e", "handle", "last"}


@pytest.mark.parametrize("folder", ["source", "release"])
@pytest.mark.parametrize("assignment", list(ASSIGNMENTS))
def test_no_course_cell_assigns_a_top_level_name_a_student_might_use(folder, assignment):
    notebook = _notebook(folder, assignment)
    allowed = api_names(notebook)
    offending = {label: sorted(name for name in top_level_names(source) - allowed if not name.startswith("_"))
                 for label, source in course_cells(notebook)}
    assert {label: names for label, names in offending.items() if names} == {}


# ---- a correct student with names of their own, graded for real ---------------------------------

#: The student's imports and top-level names, in a cell of their own right after the setup cell.
STUDENTS_OWN_NAMES = '''\
import math
import numbers
import random
import statistics
import numpy as np
import matplotlib.pyplot as plt

d_k, x, w, rng, scores, numbers_seen = 3, "my x", "my w", "my rng", [1.0, 2.0, 3.0], numbers


def my_names_are_intact():
    """Raise unless every name of mine still means what I made it mean."""
    if not isinstance(d_k + 0.5, numbers.Real) or not math.isclose(statistics.mean(scores), 2.0):
        raise RuntimeError("my numbers or scores changed")
    if (d_k, x, w, rng, numbers) != (3, "my x", "my w", "my rng", numbers_seen) or not callable(random.random):
        raise RuntimeError("a course cell changed one of my top-level names")
'''

#: Appended to each solution cell of the model answers: a function is wrapped so each call first
#: checks the student's names (as the hidden tests call it); a quiz answer checks them when it is set.
_GUARD_FUNCTION = '''

_model_{name} = {name}


def {name}(*args, **kwargs):
    my_names_are_intact()
    return _model_{name}(*args, **kwargs)
'''
_GUARD_ANSWER = "\nmy_names_are_intact()\n"


def students_notebook(assignment: str):
    """The release notebook with the model answers, the student's names and the checks of them."""
    release, source = _notebook("release", assignment), _notebook("source", assignment)
    answers = model_answers(source)
    cells = []
    for cell in release.cells:
        if is_solution_cell(cell):
            name = grade_id(cell)
            cell.source = answers[name] + (_GUARD_ANSWER if name.startswith("answer_")
                                           else _GUARD_FUNCTION.format(name=name))
        cells.append(cell)
        if grade_id(cell) == "setup":
            cells.append(nbformat.v4.new_code_cell(STUDENTS_OWN_NAMES))
    release.cells = cells
    return release


def test_the_guarded_model_answers_raise_once_a_name_of_the_student_changes():
    notebook = students_notebook("01_variance")
    namespace: dict = {}
    for cell in notebook.cells:
        if grade_id(cell) in ("setup", "coin_dot_products") or cell.source == STUDENTS_OWN_NAMES:
            exec(compile(cell.source, "cell", "exec"), namespace)
    assert len(namespace["coin_dot_products"](2)) == 4
    namespace["numbers"] = {"answer_std_ratio": {}}
    with pytest.raises(AttributeError):
        namespace["coin_dot_products"](2)


@pytest.mark.slow
@pytest.mark.parametrize("assignment", list(ASSIGNMENTS))
def test_a_correct_student_with_stdlib_imports_and_names_of_their_own_gets_full_marks(assignment, course):
    student = "own_names"
    write_submission(course, student, assignment, students_notebook(assignment))
    run = subprocess.run([sys.executable, "-m", "nbgrader", "autograde", assignment, "--create", "--force"],
                         cwd=course.root, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout + run.stderr
    points = points_of_test_cells(_notebook("source", assignment))
    with Gradebook(course.db_url) as gradebook:
        notebook = gradebook.find_submission_notebook(ASSIGNMENTS[assignment], assignment, student)
        scores = {grade.name: float(grade.score) for grade in notebook.grades if grade.name in points}
    assert scores == points
