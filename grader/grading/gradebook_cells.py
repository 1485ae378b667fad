"""The instructor's cells of one notebook, as the gradebook holds them: read once per grading.

Three steps of a grading need them — ``RestoreCellMetadata`` (each cell's trusted nbgrader metadata),
``PrepareProbes`` (which test cells hold a probe, their points, the ``my_numbers`` cell's source) —
and the feedback page (the probe cells' instructor source). ``RestoreCellMetadata`` is the first step
of every grading, so it reads the gradebook afresh and keeps the result; the later steps of the same
grading take that copy when it is of the same gradebook and notebook, and read again otherwise.
"""
from __future__ import annotations

from dataclasses import dataclass

from nbgrader.api import Gradebook, MissingEntry


@dataclass(frozen=True)
class GradebookCell:
    """One cell of the source notebook: ``points`` is None for a cell that is not graded."""
    grade_id: str
    source: str
    locked: bool
    solution: bool
    task: bool
    points: float | None


_latest: tuple[tuple[str, str, str], dict[str, GradebookCell]] | None = None


def notebook_cells(db_url: str, notebook_id: str, assignment_id: str, fresh: bool = True) -> dict[str, GradebookCell]:
    """grade_id -> cell, for every source cell of the notebook (empty when the gradebook has no such notebook).

    ``fresh=False`` returns the copy the last fresh read of this process kept, if it was of the same
    gradebook, assignment and notebook.
    """
    global _latest
    key = (db_url, assignment_id, notebook_id)
    if not fresh and _latest is not None and _latest[0] == key:
        return _latest[1]
    with Gradebook(db_url) as gb:
        try:
            notebook = gb.find_notebook(notebook_id, assignment_id)
        except MissingEntry:
            cells: dict[str, GradebookCell] = {}
        else:
            points = {cell.name: float(cell.max_score) for cell in notebook.grade_cells}
            solutions = {cell.name for cell in notebook.solution_cells}
            tasks = {cell.name for cell in notebook.task_cells}
            cells = {cell.name: GradebookCell(cell.name, cell.source or "", bool(cell.locked), cell.name in solutions,
                                              cell.name in tasks, points.get(cell.name))
                     for cell in notebook.source_cells}
    _latest = (key, cells)
    return cells
