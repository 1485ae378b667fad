"""A released notebook is saved as JupyterLab would save it unopened: nothing to normalise on open.

(The kernel's ``language_info``, which JupyterLab writes once a kernel starts, is written in when
the hub releases the notebook: ``grader.release.with_kernel_metadata``.)
"""
from __future__ import annotations

import copy
import json

import pytest
from nbformat.validator import normalize

from grader_tests.checkout import ASSIGNMENTS, REPO_ROOT, notebook_name

RELEASE = REPO_ROOT / "release"


def _released(assignment: str) -> dict:
    path = RELEASE / assignment / f"{notebook_name(assignment)}.ipynb"
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_a_released_notebook_needs_no_nbformat_normalisation(assignment):
    changes, _ = normalize(copy.deepcopy(_released(assignment)))
    assert changes == 0


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_released_cell_has_its_own_id_and_the_current_format(assignment):
    notebook = _released(assignment)
    ids = [cell.get("id") for cell in notebook["cells"]]
    assert (notebook["nbformat"], notebook["nbformat_minor"]) == (4, 5)
    assert None not in ids and len(set(ids)) == len(ids)


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_no_released_code_cell_carries_an_output_or_a_count(assignment):
    code = [cell for cell in _released(assignment)["cells"] if cell["cell_type"] == "code"]
    assert all(cell["outputs"] == [] and cell["execution_count"] is None for cell in code)
