"""Probe cells: the test cells whose hidden ``probe("<name>")`` line names the check that grades them.

Which cells are probe cells, and their instructor source, come from the gradebook (never from the
submission). A probe cell's plan of inputs lives in its metadata under ``METADATA_KEY``.
"""
from __future__ import annotations

import re

from nbgrader.api import Gradebook, MissingEntry

PROBE_CALL = re.compile(r"""^\s*probe\(\s*["'](?P<name>\w+)["']\s*\)\s*$""", re.MULTILINE)
METADATA_KEY = "scaled_attention_lab"


def probe_names(source: str) -> list[str]:
    """The check names of the ``probe("<name>")`` lines in a test cell's source."""
    return [m.group("name") for m in PROBE_CALL.finditer(source)]


def probe_cells_from_gradebook(db_url, notebook_id, assignment_id) -> dict[str, tuple[str, float]]:
    """grade_id -> (instructor source, points) of every test cell of the notebook holding a probe line."""
    with Gradebook(db_url) as gb:
        try:
            notebook = gb.find_notebook(notebook_id, assignment_id)
        except MissingEntry:
            return {}
        points = {cell.name: float(cell.max_score) for cell in notebook.grade_cells}
        return {cell.name: (cell.source, points.get(cell.name, 0.0)) for cell in notebook.source_cells
                if cell.name in points and probe_names(cell.source or "")}
