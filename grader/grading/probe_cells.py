"""Probe cells: the test cells whose hidden ``probe("<name>")`` line names the check that grades them.

Which cells are probe cells, and their instructor source, come from the gradebook (never from the
submission). A probe cell's plan of inputs lives in its metadata under ``METADATA_KEY``.
"""
from __future__ import annotations

import re

from grader.grading.gradebook_cells import GradebookCell, notebook_cells
from grader.kernel_side import METADATA_KEY  # noqa: F401 (the key of a probe cell's plan, named here too)

PROBE_CALL = re.compile(r"""^\s*probe\(\s*["'](?P<name>\w+)["']\s*\)\s*$""", re.MULTILINE)


def probe_names(source: str) -> list[str]:
    """The check names of the ``probe("<name>")`` lines in a test cell's source."""
    return [m.group("name") for m in PROBE_CALL.finditer(source)]


def probe_cells_from_gradebook(db_url: str, notebook_id: str, assignment_id: str) -> dict[str, tuple[str, float]]:
    """grade_id -> (instructor source, points) of every test cell of the notebook holding a probe line."""
    return probe_cells(notebook_cells(db_url, notebook_id, assignment_id))


def probe_cells(cells: dict[str, GradebookCell]) -> dict[str, tuple[str, float]]:
    """grade_id -> (instructor source, points) of the test cells among ``cells`` (a notebook's source
    cells, ``grader.grading.gradebook_cells``) that hold a probe line."""
    return {cell.grade_id: (cell.source, cell.points) for cell in cells.values()
            if cell.points is not None and probe_names(cell.source)}
