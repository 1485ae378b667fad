"""The cells of a source or release notebook, by their nbgrader role: solution cells, test cells,
their ``grade_id``, the model answer of a solution cell, the points and check of each test cell.
"""
from __future__ import annotations

from nbformat import NotebookNode

from grader.grading.probe_cells import probe_names

_SOLUTION_MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")


# ---- notebooks --------------------------------------------------------------------------------

def grade_id(cell: NotebookNode) -> str | None:
    return cell.metadata.get("nbgrader", {}).get("grade_id")


def is_solution_cell(cell: NotebookNode) -> bool:
    return bool(cell.metadata.get("nbgrader", {}).get("solution"))


def is_test_cell(cell: NotebookNode) -> bool:
    meta = cell.metadata.get("nbgrader", {})
    return bool(meta.get("grade")) and not meta.get("solution")


def model_answer(source_cell: str) -> str:
    """A solution cell of the source notebook as a student would hand it in: markers removed."""
    return "\n".join(line for line in source_cell.splitlines() if line.strip() not in _SOLUTION_MARKERS)


def model_answers(source: NotebookNode) -> dict[str, str]:
    """grade_id -> model answer code of every solution cell of a source notebook."""
    return {grade_id(c): model_answer(c.source) for c in source.cells if is_solution_cell(c)}


def points_of_test_cells(source: NotebookNode) -> dict[str, float]:
    """grade_id -> points of every autograded test cell, in notebook order."""
    return {grade_id(c): float(c.metadata["nbgrader"]["points"]) for c in source.cells if is_test_cell(c)}


def checks_of_test_cells(source: NotebookNode) -> dict[str, str]:
    """grade_id of each test cell -> the name of the hidden check it probes."""
    return {grade_id(c): probe_names(c.source)[0] for c in source.cells
            if is_test_cell(c) and probe_names(c.source)}
