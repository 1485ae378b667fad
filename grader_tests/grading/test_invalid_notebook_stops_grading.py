"""A notebook that stops matching nbformat's schema during grading is recorded as ungradable (every
cell 0, with the reason); made invalid by the kernel's run, it stops before the scores are saved."""
from __future__ import annotations

import shutil

import pytest
from attack_harness import scores
from nbgrader.preprocessors import NbGraderPreprocessor

from grader.grading import grade_one as grade_one_module
from grader.grading import pipeline
from grader.grading.preprocessors.validate_notebook import ValidateNotebook
from grader.sandbox.execute import SandboxedExecute

pytestmark = pytest.mark.slow
ASSIGNMENT = "02_softmax"


class BreakAnOutput(NbGraderPreprocessor):
    """What a faulty step (or a kernel's message nbclient kept) could leave: an output of no known type."""

    reads: set[str] = set()
    writes: set[str] = set()

    def preprocess(self, nb, resources):
        cell = next(c for c in nb.cells if c.cell_type == "code")
        cell.outputs.append({"output_type": "no such type", "text": "x"})
        return nb, resources


def hand_in_release(course, student: str) -> None:
    notebook = course.submitted_notebook(student, ASSIGNMENT)
    notebook.parent.mkdir(parents=True)
    shutil.copy2(course.release_notebook(ASSIGNMENT), notebook)


def with_step_after(step: type, added: type) -> list[type]:
    steps = list(pipeline.AUTOGRADE_STEPS)
    steps.insert(steps.index(step) + 1, added)
    return steps


def graded_with_step_after(course, monkeypatch, step: type):
    """Grade ada's hand-in with ``BreakAnOutput`` just after ``step``: (outcome, raw step times)."""
    hand_in_release(course, "ada")
    monkeypatch.setattr(pipeline, "AUTOGRADE_STEPS", with_step_after(step, BreakAnOutput))
    monkeypatch.setattr(grade_one_module, "_configs", {})  # as in a worker started after the change
    times = grade_one_module.new_times()
    monkeypatch.setattr(grade_one_module, "new_times", lambda: times)
    return grade_one_module.grade_one(str(course.root), ASSIGNMENT, "ada"), times


def test_a_notebook_made_invalid_by_the_run_stops_before_any_score_is_saved(course, monkeypatch):
    outcome, times = graded_with_step_after(course, monkeypatch, SandboxedExecute)
    assert not outcome.graded and outcome.code == "grading-failed"
    assert times["step SandboxedExecute"] > 0
    assert times["step DecideVerdicts"] == 0 and times["step BatchedSaveAutoGrades"] == 0
    assert set(scores(course, "ada").values()) == {0.0}  # the ungradable record's


def test_a_notebook_made_invalid_by_the_last_step_is_still_ungradable(course, monkeypatch):
    outcome, times = graded_with_step_after(course, monkeypatch, pipeline.AUTOGRADE_STEPS[-1])
    assert times["step BatchedSaveAutoGrades"] > 0
    assert not outcome.graded and outcome.code == "grading-failed"


def test_the_check_after_the_kernel_ran_names_itself_in_the_log(caplog):
    from nbformat.v4 import new_code_cell, new_notebook

    nb = new_notebook(cells=[new_code_cell("1")])
    nb.cells[0].outputs.append({"output_type": "no such type"})
    with pytest.raises(Exception, match="no such type|is not valid"):
        ValidateNotebook().preprocess(nb, {})
    assert "ValidateNotebook" in caplog.text
