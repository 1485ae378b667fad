"""Which test cells of an assignment are decided inside the student's kernel (forgeable).

A test cell whose source holds no ``probe("<name>")`` line (an ordinary nbgrader test cell of
asserts, as in an assignment written for plain nbgrader) earns its points by what its own code does
in the student's kernel: code in the notebook could forge that verdict. The class report names
such cells, as the feedback page does, and points to how an instructor makes them trusted checks.
"""
from __future__ import annotations

from nbgrader.api import Gradebook, MissingEntry

from grader.grading.probe_cells import probe_names

#: How the class report says it (``{cells}``: the cells, ``notebook/grade_id``, comma-separated).
KERNEL_DECIDED_NOTE = ("Decided inside the students' kernels (code in a notebook could forge these "
                       "verdicts): {cells}. \"Bringing an existing nbgrader course\" in the instructor "
                       "guide shows how to turn such a test cell into a trusted check.")


def kernel_decided_cells(db_url: str, assignment: str) -> list[str]:
    """``notebook/grade_id`` of every autograded test cell of ``assignment`` without a probe line,
    in notebook and cell order, from the gradebook (empty when it does not know the assignment)."""
    found = []
    with Gradebook(db_url) as gb:
        try:
            notebooks = gb.find_assignment(assignment).notebooks
        except MissingEntry:
            return []
        for notebook in notebooks:
            answers = {cell.name for cell in notebook.solution_cells}
            sources = {cell.name: cell.source or "" for cell in notebook.source_cells}
            for cell in notebook.grade_cells:
                probed = probe_names(sources.get(cell.name, ""))
                if cell.cell_type == "code" and cell.name not in answers and not probed:
                    found.append(f"{notebook.name}/{cell.name}")
    return found
