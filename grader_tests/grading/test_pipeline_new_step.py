"""A step added to the pipeline with one class and one line runs, is timed, and changes no score;
the submission is quarantined once per grading."""
from __future__ import annotations

import os
import shutil

import pytest
from attack_harness import scores
from nbgrader.preprocessors import NbGraderPreprocessor

from grader.grading import grade_one as grade_one_module
from grader.grading import pipeline
from grader.grading.step_contracts import unmet_reads
from grader.sandbox import submitted_links

pytestmark = pytest.mark.slow
ASSIGNMENT = "02_softmax"


class CountGradedCells(NbGraderPreprocessor):
    """A step of the kind a course adds: it reads the judged outputs and writes nothing."""

    reads = {"cell.outputs: judged"}
    writes: set[str] = set()
    timed_as = "verdicts"
    seen: list[tuple[str, int]] = []  # (student, cells) per notebook it was given

    def preprocess(self, nb, resources):
        CountGradedCells.seen.append((resources["nbgrader"]["student"], len(nb.cells)))
        return nb, resources


def hand_in_release(course, student: str) -> None:
    notebook = course.submitted_notebook(student, ASSIGNMENT)
    notebook.parent.mkdir(parents=True)
    shutil.copy2(course.release_notebook(ASSIGNMENT), notebook)


def graded(course, student: str, monkeypatch) -> dict:
    """Grade ``student`` with grade_one; the raw ``times`` it kept (categories and steps)."""
    times = grade_one_module.new_times()
    monkeypatch.setattr(grade_one_module, "new_times", lambda: times)
    outcome = grade_one_module.grade_one(str(course.root), ASSIGNMENT, student)
    assert outcome.graded, outcome.reason
    return times


def test_a_step_added_with_one_line_runs_and_is_timed_and_changes_no_score(course, monkeypatch):
    hand_in_release(course, "ada")
    hand_in_release(course, "bob")
    graded(course, "ada", monkeypatch)

    with_new_step = [*pipeline.AUTOGRADE_STEPS, CountGradedCells]
    monkeypatch.setattr(pipeline, "AUTOGRADE_STEPS", with_new_step)  # what the course config reads
    monkeypatch.setattr(grade_one_module, "_configs", {})  # as in a worker started after the change
    passes = [(name, with_new_step if name == "autograde" else steps) for name, steps in pipeline.PASSES]
    assert unmet_reads(passes, pipeline.contract_of, pipeline.PROVIDED_BY_NBGRADER) == []
    CountGradedCells.seen.clear()
    times = graded(course, "bob", monkeypatch)

    assert [student for student, _cells in CountGradedCells.seen] == ["bob"]
    assert times["step CountGradedCells"] > 0
    assert times["step SandboxedExecute"] > 0 and times["step BatchedSaveAutoGrades"] > 0
    assert None not in scores(course, "bob").values()
    assert scores(course, "bob") == scores(course, "ada")


def test_grading_quarantines_the_submission_once_before_reading_it(course, monkeypatch):
    hand_in_release(course, "ada")
    folder = course.submitted_notebook("ada", ASSIGNMENT).parent
    os.symlink("/dev/zero", folder / "data.bin")
    calls = []
    original = submitted_links.quarantine_submission

    def counted(*args, **kwargs):
        calls.append(args[0])
        return original(*args, **kwargs)

    monkeypatch.setattr(submitted_links, "quarantine_submission", counted)
    monkeypatch.setattr(grade_one_module, "quarantine_submission", counted)
    graded(course, "ada", monkeypatch)
    assert len(calls) == 1
    assert os.path.islink(submitted_links.quarantine_folder(course.root, "ada", ASSIGNMENT) / "data.bin")
