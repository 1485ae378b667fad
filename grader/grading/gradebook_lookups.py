"""nbgrader's per-cell gradebook look-ups, answered from one query per kind of row and notebook.

``OverwriteCells`` asks the gradebook for the source cell of every cell with a grade_id and for
the graded cell of every test cell; ``SaveAutoGrades`` for the grade of every test cell and the
comment of every solution cell: one joined query per question, about forty per notebook here.
:func:`answer_from_one_query` reads each kind of row of one notebook once, on one ``Gradebook``
(one session), and answers those look-ups on that gradebook from the rows read:

- the answers are the ORM objects nbgrader's own queries return (the same session's identity map);
- nbgrader's order is kept: a graded cell or a grade is looked for among grade cells first, then
  among task cells; a comment among solution cells, then task cells;
- a name the rows do not hold exactly once still goes to nbgrader's own query, which finds it (a
  row added since), raises ``MissingEntry`` or finds several, as before.

Only the gradebook given is changed, for as long as it lives (one step of one notebook).
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from grader.grading.gradebook_cells import of_notebook


def answer_from_one_query(gradebook, notebook: str, assignment: str, student: str | None = None,
                          cell_lookups: bool = True) -> None:
    """Answer ``gradebook``'s ``find_source_cell`` and ``find_graded_cell`` for ``notebook`` of
    ``assignment`` (and, with ``student``, ``find_grade`` and ``find_comment`` for that student's
    submission) from rows read now. ``cell_lookups`` False leaves the first two to nbgrader (three
    queries fewer, for a step that only saves scores). Calling it again for the same notebook,
    student and look-ups does nothing."""
    key = (notebook, assignment, student)
    if getattr(gradebook, "_answers_read_for", None) == (*key, cell_lookups):
        return
    from nbgrader.api import Comment, Grade, GradeCell, SolutionCell, SourceCell, TaskCell

    if cell_lookups:
        cells = {model: _by_name(_cells_of(gradebook, model, notebook, assignment))
                 for model in (SourceCell, GradeCell, TaskCell)}
        gradebook.find_source_cell = _answering(type(gradebook).find_source_cell.__get__(gradebook), key,
                                                cells[SourceCell])
        gradebook.find_graded_cell = _answering(type(gradebook).find_graded_cell.__get__(gradebook), key,
                                                cells[GradeCell], cells[TaskCell])
    if student is not None:
        grades = [_by_name(_rows_of(gradebook, Grade, cell, notebook, assignment, student))
                  for cell in (GradeCell, TaskCell)]
        comments = [_by_name(_rows_of(gradebook, Comment, cell, notebook, assignment, student))
                    for cell in (SolutionCell, TaskCell)]
        gradebook.find_grade = _answering(type(gradebook).find_grade.__get__(gradebook), key, *grades)
        gradebook.find_comment = _answering(type(gradebook).find_comment.__get__(gradebook), key, *comments)
    gradebook._answers_read_for = (*key, cell_lookups)


def _answering(nbgrader_lookup: Callable, key: tuple, *tables: dict) -> Callable:
    """A look-up ``(name, notebook, assignment[, student])`` answered from ``tables`` (name -> row,
    searched in order) for the notebook of ``key``; nbgrader's own ``nbgrader_lookup`` otherwise."""
    def lookup(name, *where):
        if tuple(where) == key[:len(where)]:
            for table in tables:
                if name in table:
                    return table[name]
        return nbgrader_lookup(name, *where)
    return lookup


def _by_name(rows: list[tuple[object, str]]) -> dict[str, object]:
    """name -> row, for the names held by exactly one row (several go to nbgrader's query, which refuses them)."""
    counts = Counter(name for _, name in rows)
    return {name: row for row, name in rows if counts[name] == 1}


def _cells_of(gradebook, model, notebook: str, assignment: str) -> list[tuple[object, str]]:
    """(cell, name) of every ``model`` row of the source notebook."""
    return [(row, row.name) for row in of_notebook(gradebook.db.query(model), model, notebook, assignment).all()]


def _rows_of(gradebook, model, cell_model, notebook: str, assignment: str, student: str) -> list[tuple[object, str]]:
    """(row, cell name) of every ``model`` (Grade or Comment) row of ``student``'s submitted
    ``notebook`` whose cell is a ``cell_model``: nbgrader's joins, without the cell's name."""
    from nbgrader.api import Assignment, Notebook, Student, SubmittedAssignment, SubmittedNotebook

    return (gradebook.db.query(model, cell_model.name)
            .join(cell_model, cell_model.id == model.cell_id)
            .join(SubmittedNotebook, SubmittedNotebook.id == model.notebook_id)
            .join(Notebook, Notebook.id == SubmittedNotebook.notebook_id)
            .join(SubmittedAssignment, SubmittedAssignment.id == SubmittedNotebook.assignment_id)
            .join(Assignment, Assignment.id == SubmittedAssignment.assignment_id)
            .join(Student, Student.id == SubmittedAssignment.student_id)
            .filter(Notebook.name == notebook, Assignment.name == assignment, Student.id == student)
            .all())
