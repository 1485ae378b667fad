"""``OverwriteCellsFromOneQuery``: nbgrader's ``OverwriteCells``, its look-ups read in one query each.

The instructor's locked and test cells come back from the gradebook as nbgrader's
``OverwriteCells`` restores them (the same source, checksums, points and cell types); its per-cell
questions to the gradebook are answered from one read of the notebook's source and graded cells
(:func:`grader.grading.gradebook_lookups.answer_from_one_query`). nbgrader then puts back the
graded and task cells a student deleted; when none is missing (the names come from the grading's one
read of the instructor's cells, ``grader.grading.gradebook_cells``) that step is skipped, and with it
its seven queries of the notebook's rows.
"""
from __future__ import annotations

from nbgrader import utils
from nbgrader.preprocessors import OverwriteCells

from grader.grading.gradebook_cells import notebook_cells
from grader.grading.gradebook_lookups import answer_from_one_query


class OverwriteCellsFromOneQuery(OverwriteCells):
    """Same cells as :class:`OverwriteCells`, from three queries per notebook instead of one per cell."""

    reads = {"resources.nbgrader", "gradebook: source notebook", "cell.metadata.nbgrader: from the gradebook"}
    writes = {"cell.source: the instructor's locked and test cells"}
    timed_as = "gradebook"

    def preprocess_cell(self, cell, resources, cell_index):
        answer_from_one_query(self.gradebook, self.notebook_id, self.assignment_id)
        return super().preprocess_cell(cell, resources, cell_index)

    def add_missing_grade_cells(self, nb, resources):
        """nbgrader's, when a graded cell of the instructor's is missing: none of the notebook's
        graded or solution cells carries its name (nbgrader's own rule)."""
        try:
            present = {cell.metadata.nbgrader["grade_id"] for cell in nb.cells
                       if utils.is_grade(cell) or utils.is_solution(cell)}
        except KeyError:  # nbgrader's own step says what is wrong with that cell
            present = set()
        if present and self._instructors_cells(lambda cell: cell.points is not None) <= present:
            return nb, resources
        return super().add_missing_grade_cells(nb, resources)

    def add_missing_task_cells(self, nb, resources):
        """nbgrader's, when a task cell of the instructor's is missing: no cell of the notebook with
        nbgrader metadata carries its name (nbgrader's own rule)."""
        try:
            present = {cell["metadata"]["nbgrader"]["grade_id"] for cell in nb.cells if "nbgrader" in cell["metadata"]}
        except KeyError:  # nbgrader's own step says what is wrong with that cell
            present = set()
        if present and self._instructors_cells(lambda cell: cell.task) <= present:
            return nb, resources
        return super().add_missing_task_cells(nb, resources)

    def _instructors_cells(self, kind) -> set[str]:
        return {name for name, cell in notebook_cells(self.db_url, self.notebook_id, self.assignment_id).items()
                if kind(cell)}
