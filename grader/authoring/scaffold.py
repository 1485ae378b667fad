"""``grader new-assignment ID``: a new assignment's source notebook and checks file, ready to grade.

The scaffold writes ``source/<ID>/<name>.ipynb`` and ``source/<ID>/checks.py`` with one function
item (``square_sum``) and one quiz item (``answer_squares_up_to``): the model answers pass their
checks, so the assignment releases and grades as it stands, and the instructor replaces the two
items by their own, one solution cell, one test cell and one check at a time.
"""
from __future__ import annotations

import re
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from grader.checks.discovery import CHECKS_FILE
from grader.course_folders import SOURCE
from grader.grading.student_numbers import NUMBERS_CELL, STUDENT_LINE

#: What an assignment id may be: a folder name nbgrader accepts, e.g. ``05_dropout``.
ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")

#: The quiz item's numbers: parameter -> (low, high), both ends included. The checks file declares
#: them; the notebook's ``my_numbers`` cell is written from them.
SCAFFOLD_RANGES = {"answer_squares_up_to": {"n": (5, 20)}}


def notebook_name_for(assignment: str) -> str:
    """The notebook name (without .ipynb) of a new assignment: its id without a leading number, e.g.
    ``05_dropout`` -> ``dropout``."""
    return re.sub(r"^\d+[_-]", "", assignment) or assignment


def numbers_cell(ranges: dict) -> str:
    """The source of a ``my_numbers`` cell for quiz items with whole-number ranges."""
    return ("# Your numbers: the quiz items (answer_...) are graded for numbers drawn from your student id, the login\n"
            "# name `nbgrader submit` hands in under. my_numbers[item] is a dict of one item's numbers.\n"
            "from course_numbers import notebook_ranged_numbers as _notebook_ranged_numbers\n\n"
            f"{STUDENT_LINE}\n"
            f"my_numbers = _notebook_ranged_numbers({ranges!r}, _GRADED_STUDENT_ID)")


def _nbgrader(grade_id: str, *, solution: bool = False, grade: bool = False, points: int | None = None) -> dict:
    metadata = {"grade": grade, "grade_id": grade_id, "locked": not solution, "schema_version": 3,
                "solution": solution}
    if points is not None:
        metadata["points"] = points
    return {"nbgrader": metadata}


def scaffold_notebook(assignment: str) -> nbformat.NotebookNode:
    """The source notebook of a new assignment: numbers, setup, one function part, one quiz part."""
    cells = [
        new_markdown_cell(f"# Assignment {assignment}\n\nWhat this assignment teaches, and the lessons it follows."),
        new_markdown_cell("## Your numbers\n\nThe quiz items (the `answer_...` variables) are graded for **your own "
                          "numbers**, printed by the cell below and kept in `my_numbers`."),
        new_code_cell(numbers_cell(SCAFFOLD_RANGES), metadata=_nbgrader(NUMBERS_CELL)),
        new_code_cell("import numpy as np", metadata=_nbgrader("setup")),
        new_markdown_cell("## Part 1 — The sum of squares (2 points)\n\nWrite `square_sum(x)`: the sum of the "
                          "squares of the entries of the array-like `x`, as a float (0.0 for an empty array)."),
        new_code_cell('def square_sum(x):\n'
                      '    """Sum of the squares of the entries of x (array-like, any shape), a float."""\n'
                      '    ### BEGIN SOLUTION\n'
                      '    return float(np.sum(np.square(np.asarray(x, dtype=np.float64))))\n'
                      '    ### END SOLUTION', metadata=_nbgrader("square_sum", solution=True)),
        new_code_cell('"""square_sum: a float, and 1² + 2² + 2² = 9"""\n'
                      'assert square_sum([1.0, 2.0, 2.0]) == 9.0, "1² + 2² + 2² is 9"\n'
                      '### BEGIN HIDDEN TESTS\n'
                      'from grader.probe import probe\n'
                      'probe("square_sum")\n'
                      '### END HIDDEN TESTS', metadata=_nbgrader("test_square_sum", grade=True, points=2)),
        new_markdown_cell("## Part 2 — Squares up to n (1 point)\n\nSet `answer_squares_up_to` to "
                          "1² + 2² + … + n² for your `n` (`my_numbers[\"answer_squares_up_to\"][\"n\"]`)."),
        new_code_cell('### BEGIN SOLUTION\n'
                      'answer_squares_up_to = square_sum(np.arange(1, my_numbers["answer_squares_up_to"]["n"] + 1))\n'
                      '### END SOLUTION', metadata=_nbgrader("answer_squares_up_to", solution=True)),
        new_code_cell('"""answer_squares_up_to: one number"""\n'
                      'assert np.ndim(answer_squares_up_to) == 0, "answer_squares_up_to is a single number"\n'
                      '### BEGIN HIDDEN TESTS\n'
                      'from grader.probe import probe\n'
                      'probe("answer_squares_up_to")\n'
                      '### END HIDDEN TESTS', metadata=_nbgrader("test_answer_squares_up_to", grade=True, points=1)),
    ]
    notebook = new_notebook(cells=cells)
    notebook.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
    return notebook


CHECKS_TEMPLATE = '''\
"""Hidden checks of assignment {assignment} (``{name}.ipynb``).

One entry of CHECKS per solution cell of the notebook, named as the cell's grade_id, in notebook
order (how a check is written: ``grader.checks.common``). This file stays with the instructor:
releasing leaves it out, and only the grading process loads it.
"""
from __future__ import annotations

import numpy as np

from grader.checks.api import Case, Misconception
from grader.checks.common import function_check, value_check


# ---- square_sum ------------------------------------------------------------------------------

def square_sum(x):
    """The reference: sum of the squares of the entries of x (array-like, any shape), a float."""
    return float(np.sum(np.square(np.asarray(x, dtype=np.float64))))


def _square_sum_cases(rng: np.random.Generator) -> list[Case]:
    n = int(rng.integers(3, 20))
    return [
        Case(f"a vector of {{n}} random numbers", (rng.normal(0.0, 2.0, size=n),)),
        Case("a 2-D array (every entry counts)", (rng.normal(size=(3, 4)),)),
        Case("a Python list of integers", ([int(v) for v in rng.integers(-5, 6, size=5)],)),
        Case("an empty array", (np.array([]),)),
    ]


SQUARE_SUM_WRONG_ANSWERS = (
    Misconception("square of the sum", "you squared the sum of the entries instead of summing their squares",
                  "Part 1", lambda x: float(np.sum(np.asarray(x, dtype=np.float64))) ** 2),
)


# ---- answer_squares_up_to ----------------------------------------------------------------------

def squares_up_to(n):
    """The reference of the quiz item: 1² + 2² + ... + n² for the student's n."""
    return float(n * (n + 1) * (2 * n + 1) / 6)


SQUARES_UP_TO_WRONG_ANSWERS = (
    Misconception("one square short", "your sum stops before n²", "Part 2", lambda numbers: float(
        (numbers["n"] - 1) * numbers["n"] * (2 * numbers["n"] - 1) / 6)),
)


# ---- the checks ------------------------------------------------------------------------------

CHECKS = [
    function_check("square_sum", square_sum, _square_sum_cases, "Part 1", wrong_answers=SQUARE_SUM_WRONG_ANSWERS),
    value_check("answer_squares_up_to", squares_up_to, "Part 2", wrong_answers=SQUARES_UP_TO_WRONG_ANSWERS,
                numbers={ranges!r}),
]
'''


def scaffold_checks(assignment: str) -> str:
    """The text of a new assignment's checks file, the checks of :func:`scaffold_notebook`."""
    return CHECKS_TEMPLATE.format(assignment=assignment, name=notebook_name_for(assignment),
                                  ranges=SCAFFOLD_RANGES["answer_squares_up_to"])


def new_assignment(course_root: Path, assignment: str) -> list[Path]:
    """Write ``source/<assignment>/<name>.ipynb`` and its ``checks.py`` in the course; the two paths.

    ValueError naming the id and what to do when it is not a usable folder name or the folder exists.
    """
    if not ID_PATTERN.fullmatch(assignment):
        raise ValueError(f"the assignment id {assignment!r} cannot name a folder: use letters, digits, '_' "
                         "and '-', starting with a letter or digit (e.g. 05_dropout)")
    folder = Path(course_root) / SOURCE / assignment
    if folder.exists():
        raise ValueError(f"{folder} already exists; choose another id or remove that folder first")
    folder.mkdir(parents=True)
    notebook = folder / f"{notebook_name_for(assignment)}.ipynb"
    nbformat.write(scaffold_notebook(assignment), notebook)
    checks = folder / CHECKS_FILE
    checks.write_text(scaffold_checks(assignment), encoding="utf-8")
    return [notebook, checks]
