"""Per-student numbers on the grading side: the notebooks' ``my_numbers`` cell and the graded student.

The derivation is ``course_numbers`` (standard library only, in the students' environment and
visible inside the sandboxed kernel); the notebooks' ``my_numbers`` cell only imports it, so the
cell is a few lines and the feedback pages, which show every cell, stay short. This module writes
that cell and, when a submission is graded, fixes its student id inside it: the sandboxed kernel
runs under an account that is not the student's, so ``PrepareProbes`` sets ``_GRADED_STUDENT_ID``
to the id nbgrader recorded for the submission. That only lets the student's own code compute from
the right numbers; the verdicts take the numbers from ``solutions.variants.numbers_for`` with the
same id, never from the kernel.

The cell leaves only ``my_numbers`` (the student API) and names with a leading underscore in the
student's namespace.
"""
from __future__ import annotations

from pathlib import Path

#: grade_id of the locked cell that defines ``my_numbers``, the first code cell of each notebook.
NUMBERS_CELL = "my_numbers"

#: The line of that cell the grader replaces by the submission's student id.
STUDENT_LINE = "_GRADED_STUDENT_ID = None  # when your hand-in is graded, the grader writes its student id here"

_CELL = """\
# Your numbers: the quiz items (answer_...) are graded for numbers drawn from your student id, the login
# name `nbgrader submit` hands in under. my_numbers[item] is a dict of one item's numbers, for example
# my_numbers["{example}"]: compute each answer from it. How they are drawn (not a
# secret; it only makes copied answers useless): `import course_numbers; help(course_numbers)`.
from course_numbers import notebook_numbers as _notebook_numbers

{student_line}
my_numbers = _notebook_numbers("{assignment}", _GRADED_STUDENT_ID)"""


def draws_course_numbers(assignment: str) -> bool:
    """Whether the course's ``course_numbers`` draws ``assignment``'s numbers (its ``ASSIGNMENT_ITEMS``),
    so its notebook's ``my_numbers`` cell is the one :func:`numbers_cell_source` writes. False for a
    course without that package (an ordinary nbgrader course) and for an assignment it does not list
    (a new one declares its numbers as ranges in its checks file and keeps its cell as written)."""
    try:
        from solutions.variants import ASSIGNMENT_ITEMS  # the course's reference package, from its folder
    except ImportError:
        return False
    return assignment in ASSIGNMENT_ITEMS


def numbers_cell_source(assignment: str) -> str:
    """The source of ``assignment``'s ``my_numbers`` cell (8 lines): an import and the student's numbers."""
    from solutions.variants import ASSIGNMENT_ITEMS  # the course's reference package, from its folder

    return _CELL.format(example=ASSIGNMENT_ITEMS[assignment][0], student_line=STUDENT_LINE, assignment=assignment)


def with_graded_student(source: str, student: str) -> str:
    """``source`` of a ``my_numbers`` cell with ``_GRADED_STUDENT_ID`` set to ``student``.

    An empty ``student`` gives the lesson's numbers (nbgrader never records an empty id).

    ValueError when the cell has no such line (the instructor's notebook is out of date).
    """
    if STUDENT_LINE not in source:
        raise ValueError(f"the {NUMBERS_CELL!r} cell has no line {STUDENT_LINE!r}; regenerate it with "
                         "grader.grading.student_numbers.numbers_cell_source")
    return source.replace(STUDENT_LINE, f"_GRADED_STUDENT_ID = {student!r}  # the student id of this hand-in", 1)


def refresh_numbers_cell(notebook_path) -> bool:
    """Rewrite the ``my_numbers`` cell of a source notebook from ``numbers_cell_source``; True if it changed.

    ``grader release`` refreshes it before generating, so every release holds the current cell.
    ValueError when the notebook has no such cell, or its folder is not an assignment whose numbers
    the course draws (:func:`draws_course_numbers`).
    """
    import nbformat

    path = Path(notebook_path)
    notebook = nbformat.read(path, as_version=4)
    cells = [c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") == NUMBERS_CELL]
    if len(cells) != 1:
        raise ValueError(f"{path} needs exactly one {NUMBERS_CELL!r} cell, found {len(cells)}")
    assignment = path.parent.name
    if not draws_course_numbers(assignment):
        raise ValueError(f"{path}: the course's course_numbers draws no numbers for {assignment!r}")
    source = numbers_cell_source(assignment)
    if cells[0].source == source:
        return False
    cells[0].source = source
    nbformat.write(notebook, path)
    return True
