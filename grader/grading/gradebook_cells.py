"""The instructor's cells of one notebook, as the gradebook holds them: read once per grading.

Two steps of a grading need them, in two of nbgrader's passes — ``RestoreCellMetadata`` (each
cell's trusted nbgrader metadata, in the sanitizing pass) and ``PrepareProbes`` (which test cells
hold a probe, their points, the ``my_numbers`` cell's source, in the autograding pass) — and the
feedback page (the probe cells' instructor source). A pass's ``resources`` do not reach the next
pass, so the grading of one notebook (``grade_one``) runs inside :func:`read_once_per_grading`: the
first step to ask reads the gradebook (four queries of one notebook's cells, a few milliseconds),
the others are answered from that reading, and nothing is kept from one grading to the next.
"""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from nbgrader.api import Gradebook


@dataclass(frozen=True)
class GradebookCell:
    """One cell of the source notebook: ``points`` is None for a cell that is not graded."""
    grade_id: str
    source: str
    locked: bool
    solution: bool
    task: bool
    points: float | None


# (db_url, notebook, assignment) -> cells, for the grading under way (None outside one).
_read_in_this_grading: ContextVar[dict | None] = ContextVar("notebook_cells_read_in_this_grading", default=None)


@contextmanager
def read_once_per_grading():
    """Within it, :func:`notebook_cells` reads each notebook's cells from the gradebook once."""
    token = _read_in_this_grading.set({})
    try:
        yield
    finally:
        _read_in_this_grading.reset(token)


def notebook_cells(db_url: str, notebook_id: str, assignment_id: str) -> dict[str, GradebookCell]:
    """grade_id -> cell, for every source cell of the notebook (empty when the gradebook has no such notebook).

    Read from the gradebook, or, inside :func:`read_once_per_grading`, from its first reading there."""
    read = _read_in_this_grading.get()
    key = (db_url, notebook_id, assignment_id)
    if read is None:
        return _read_cells(*key)
    if key not in read:
        read[key] = _read_cells(*key)
    return dict(read[key])


def _read_cells(db_url: str, notebook_id: str, assignment_id: str) -> dict[str, GradebookCell]:
    """Four column queries (points of grade cells, names of solution and task cells, source cells),
    not nbgrader's objects: a grade cell's points would be one more query per cell."""
    from nbgrader.api import GradeCell, SolutionCell, SourceCell, TaskCell

    with Gradebook(db_url) as gb:
        def rows(*columns) -> list:
            return of_notebook(gb.db.query(*columns), columns[0].class_, notebook_id, assignment_id).all()

        points = {name: float(max_score) for name, max_score in rows(GradeCell.name, GradeCell.max_score)}
        solutions = {name for (name,) in rows(SolutionCell.name)}
        tasks = {name for (name,) in rows(TaskCell.name)}
        return {name: GradebookCell(name, source or "", bool(locked), name in solutions, name in tasks,
                                    points.get(name))
                for name, source, locked in rows(SourceCell.name, SourceCell.source, SourceCell.locked)}


def of_notebook(query, model, notebook_id: str, assignment_id: str):
    """``query`` narrowed to the ``model`` rows (a kind of cell) of the source notebook ``notebook_id``
    of ``assignment_id``: nbgrader's own joins and filter of its look-ups, without the cell's name."""
    from nbgrader.api import Assignment, Notebook

    return (query.join(Notebook, Notebook.id == model.notebook_id)
            .join(Assignment, Assignment.id == Notebook.assignment_id)
            .filter(Notebook.name == notebook_id, Assignment.name == assignment_id))
