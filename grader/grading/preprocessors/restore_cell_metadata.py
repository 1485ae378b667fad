"""Reset every cell's nbgrader metadata from the gradebook before nbgrader reads it.

nbgrader trusts a submission's cell metadata in several places: a test cell claiming
``schema_version: 2`` makes ``CheckCellMetadata`` abort the whole batch (no student after it is
graded); a duplicated grade_id or a test cell re-marked as a solution cell leaves the student with no
score at all. ``RestoreCellMetadata`` runs first among the sanitize preprocessors and makes the
metadata say what the gradebook says:

- a cell whose grade_id the gradebook knows gets exactly the gradebook's flags and points;
- a grade_id seen again earlier in the notebook, or unknown to the gradebook, loses its nbgrader
  metadata (the cell becomes an ordinary cell; the last copy of a duplicated id is kept, as
  nbgrader's ``DeduplicateIds`` does), so a copy-pasted test cell costs nothing.
"""
from __future__ import annotations

from nbgrader.preprocessors import NbGraderPreprocessor

from grader.grading.gradebook_cells import notebook_cells

SCHEMA_VERSION = 3


def trusted_cell_metadata(db_url: str, notebook_id: str, assignment_id: str) -> dict[str, dict]:
    """grade_id -> the nbgrader metadata the gradebook implies for that cell (read afresh)."""
    trusted = {}
    for cell in notebook_cells(db_url, notebook_id, assignment_id).values():
        meta = {"grade_id": cell.grade_id, "grade": cell.points is not None, "solution": cell.solution,
                "locked": cell.locked, "schema_version": SCHEMA_VERSION}
        if cell.points is not None:
            meta["points"] = cell.points
        if cell.task:
            meta["task"] = True
        trusted[cell.grade_id] = meta
    return trusted


class RestoreCellMetadata(NbGraderPreprocessor):
    """Make each cell's nbgrader metadata the gradebook's; strip it from duplicates and strangers."""

    reads = {"resources.nbgrader", "gradebook: source notebook", "notebook: as submitted"}
    writes = {"cell.metadata.nbgrader: from the gradebook"}
    timed_as = "gradebook"

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        trusted = trusted_cell_metadata(info["db_url"], info["notebook"], info["assignment"])
        seen: set[str] = set()
        for cell in reversed(nb.cells):
            if "nbgrader" not in cell.metadata:
                continue
            grade_id = cell.metadata["nbgrader"].get("grade_id") if isinstance(cell.metadata["nbgrader"], dict) else None
            if grade_id in trusted and grade_id not in seen:
                seen.add(grade_id)
                cell.metadata["nbgrader"] = dict(trusted[grade_id])
            else:
                self.log.warning("Cell with grade_id %r is unknown to the gradebook or repeated; "
                                 "it is graded as an ordinary cell", grade_id)
                del cell.metadata["nbgrader"]
        return nb, resources
