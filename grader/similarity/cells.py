"""The solution cells of every submission of an assignment, read from the course folder.

Cells are found by nbgrader's ``grade_id``: only ids that are solution cells of the release count
(a cell a student added, or a test cell, is not compared), and the released cell is what
``grader.similarity.normalise`` removes. The instructor's model answer (the source notebook's
cell) is read too: code that matches it is left out of the comparison, like the template. A student's notebook is read from ``submitted/`` (what
they handed in), or from ``autograded/`` when the submitted copy is gone. A submission that was
recorded ungradable (``grader.grading.ungradable_record``), or whose notebook cannot be read, is skipped and
named with its reason; nothing runs any of the code.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import nbformat

from grader.course import Course
from grader.grading.ungradable_record import ungradable_reason
from grader.notebook_cells import model_answer
from grader.service_policy import load_service_policy


@dataclass
class ClassCells:
    """What the comparison reads for one assignment.

    templates: grade_id -> the released cell's code, in notebook order.
    cells: student -> grade_id -> the student's code of that solution cell.
    skipped: student -> why their submission was not compared.
    references: grade_id -> the instructor's model answer (source notebook, markers removed);
    code that matches it is no sign that two students wrote together.
    """

    assignment: str
    templates: dict[str, str]
    cells: dict[str, dict[str, str]] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    references: dict[str, str] = field(default_factory=dict)


def solution_cells(notebook: nbformat.NotebookNode, wanted: set[str] | None = None) -> dict[str, str]:
    """grade_id -> code of each solution cell (the first one of a duplicated id), in notebook order."""
    found: dict[str, str] = {}
    for cell in notebook.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        grade_id = meta.get("grade_id")
        if cell.get("cell_type") != "code" or not isinstance(grade_id, str) or grade_id in found:
            continue
        if (wanted is None and meta.get("solution")) or (wanted is not None and grade_id in wanted):
            source = cell.get("source", "")
            found[grade_id] = source if isinstance(source, str) else "".join(source)
    return found


def read_class(course: Course, assignment: str) -> ClassCells:
    """Every submission's solution cells of ``assignment``; unreadable or ungradable ones in ``skipped``."""
    release = course.release_notebook(assignment)
    if not release.is_file():
        raise FileNotFoundError(f"{release} is missing; run `grader release {assignment}` first")
    templates = solution_cells(nbformat.read(release, as_version=4))
    found = ClassCells(assignment, templates)
    source = course.source_notebook(assignment)
    if source.is_file():
        found.references = {grade_id: model_answer(code) for grade_id, code
                            in solution_cells(nbformat.read(source, as_version=4), set(templates)).items()}
    max_megabytes = load_service_policy(course).max_notebook_megabytes  # what the grading service reads
    for student in course.students(assignment):
        reason = ungradable_reason(course, assignment, student)
        if reason is not None:
            found.skipped[student] = f"ungradable: {reason}"
            continue
        try:
            found.cells[student] = solution_cells(_read(course, assignment, student, max_megabytes), set(templates))
        except ValueError as exc:
            found.skipped[student] = str(exc)
    return found


def _read(course: Course, assignment: str, student: str, max_megabytes: float) -> nbformat.NotebookNode:
    for path in (course.submitted_notebook(student, assignment), course.autograded_notebook(student, assignment)):
        if path.is_symlink() or not path.is_file():
            continue
        if path.stat().st_size > max_megabytes * 1e6:
            raise ValueError(f"{path.name} is larger than {max_megabytes:g} MB "
                             "(c.GradingService.max_notebook_megabytes)")
        try:
            return nbformat.read(path, as_version=4)
        except Exception as exc:  # invalid JSON, not a notebook: that submission is skipped, not the class
            raise ValueError(f"{path.name} cannot be read as a notebook ({type(exc).__name__})") from None
    raise ValueError("no notebook handed in")
