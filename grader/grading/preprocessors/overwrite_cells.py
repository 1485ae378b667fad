"""``OverwriteCellsFromOneQuery``: nbgrader's ``OverwriteCells``, its look-ups read in one query each.

The instructor's locked and test cells come back from the gradebook as nbgrader's
``OverwriteCells`` restores them (the same source, checksums, points and cell types); its per-cell
questions to the gradebook are answered from one read of the notebook's source and graded cells
(:func:`grader.grading.gradebook_lookups.answer_from_one_query`).
"""
from __future__ import annotations

from nbgrader.preprocessors import OverwriteCells

from grader.grading.gradebook_lookups import answer_from_one_query


class OverwriteCellsFromOneQuery(OverwriteCells):
    """Same cells as :class:`OverwriteCells`, from three queries per notebook instead of one per cell."""

    reads = {"resources.nbgrader", "gradebook: source notebook", "cell.metadata.nbgrader: from the gradebook"}
    writes = {"cell.source: the instructor's locked and test cells"}
    timed_as = "gradebook"

    def preprocess_cell(self, cell, resources, cell_index):
        answer_from_one_query(self.gradebook, self.notebook_id, self.assignment_id)
        return super().preprocess_cell(cell, resources, cell_index)
