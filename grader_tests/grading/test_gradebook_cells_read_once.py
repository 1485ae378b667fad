"""The instructor's cells of a notebook are read from the gradebook once per grading, afresh in the next."""
from __future__ import annotations

from grader.grading import gradebook_cells
from grader.grading.gradebook_cells import GradebookCell, notebook_cells, read_once_per_grading


def counting_reads(monkeypatch) -> list:
    reads = []

    def read(db_url, notebook_id, assignment_id):
        reads.append(notebook_id)
        return {"a": GradebookCell("a", f"source of {notebook_id}", True, False, False, 1.0)}

    monkeypatch.setattr(gradebook_cells, "_read_cells", read)
    return reads


def test_the_steps_of_one_grading_share_one_read_of_a_notebooks_cells(monkeypatch):
    reads = counting_reads(monkeypatch)
    with read_once_per_grading():
        first = notebook_cells("sqlite:///gb.db", "variance", "01_variance")
        again = notebook_cells("sqlite:///gb.db", "variance", "01_variance")
    assert reads == ["variance"] and first == again and first["a"].source == "source of variance"


def test_each_grading_reads_the_cells_afresh(monkeypatch):
    reads = counting_reads(monkeypatch)
    for _ in range(2):
        with read_once_per_grading():
            notebook_cells("sqlite:///gb.db", "variance", "01_variance")
    notebook_cells("sqlite:///gb.db", "variance", "01_variance")  # outside a grading: read every time
    assert reads == ["variance"] * 3


def test_another_notebook_in_the_same_grading_is_read_for_itself(monkeypatch):
    reads = counting_reads(monkeypatch)
    with read_once_per_grading():
        notebook_cells("sqlite:///gb.db", "variance", "01_variance")
        other = notebook_cells("sqlite:///gb.db", "softmax", "02_softmax")
    assert reads == ["variance", "softmax"] and other["a"].source == "source of softmax"


def test_a_step_that_changes_its_cells_does_not_change_what_the_next_step_reads(monkeypatch):
    counting_reads(monkeypatch)
    with read_once_per_grading():
        notebook_cells("sqlite:///gb.db", "variance", "01_variance").pop("a")
        assert "a" in notebook_cells("sqlite:///gb.db", "variance", "01_variance")
