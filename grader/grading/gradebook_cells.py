"""The instructor's cells of one notebook, as the gradebook holds them: read once per grading.

Two steps of a grading need them, in two of nbgrader's passes — ``RestoreCellMetadata`` (each
cell's trusted nbgrader metadata, in the sanitizing pass) and ``PrepareProbes`` (which test cells
hold a probe, their points, the ``my_numbers`` cell's source, in the autograding pass) — and the
feedback page (the probe cells' instructor source). A pass's ``resources`` do not reach the next
pass, so each reads the gradebook itself: one query of one notebook's source cells (milliseconds),
and nothing kept between steps or gradings in the process.
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


def notebook_cells(db_url: str, notebook_id: str, assignment_id: str) -> dict[str, GradebookCell]:
    """grade_id -> cell, for every source cell of the notebook (empty when the gradebook has no such notebook)."""
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
    return cells
