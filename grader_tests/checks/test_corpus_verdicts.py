"""Every corpus submission earns its expected score and diagnosis for any secret seed.

The end-to-end test grades the corpus once, with one secret seed, through nbgrader and the
sandbox. Here the same trusted judging (``grader.grading.preprocessors.decide_verdicts.judge_cell``) and nbgrader's own scoring
(``nbgrader.utils.determine_grade``) run in this process on several seeds, so an expected score
that only holds for some inputs shows up. The student's setup and solution cells are executed here
(not the figures or tests); submissions marked ``sandbox: required`` are left to the end-to-end test.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import warnings

import nbformat
import pytest
from corpus_expected import expected_outcome, load_expected
from nbformat.v4 import new_code_cell
from nbgrader.utils import determine_grade

from grader import kernel_side
from grader.checks import get_check
from grader.demo.corpus import build_notebook, load_corpus
from grader.grading.preprocessors.decide_verdicts import judge_cell, mark_not_attempted, verdict_outputs
from grader.grading.student_numbers import NUMBERS_CELL, with_graded_student
from grader.notebook_cells import checks_of_test_cells, grade_id, is_solution_cell, points_of_test_cells
from grader_tests.checkout import ASSIGNMENTS
from solutions.variants import numbers_for

os.environ.setdefault("MPLBACKEND", "Agg")  # the notebooks' setup cell imports pyplot

SEEDS = (7, 2024, 987654321)
RUNNABLE = [s for s in load_corpus() if not s.unreadable and not s.sandbox_only]


NOT_ATTEMPTED_CELLS = "__not_attempted_cells__"


def run_setup_and_solution_cells(notebook, student: str) -> dict:
    """The namespace after running the notebook's setup, numbers and solution cells, errors skipped like a
    kernel's; the numbers cell holds ``student``'s id, as grading sets it.

    The grade_ids of the solution cells that raised NotImplementedError (the released stub) are kept
    under NOT_ATTEMPTED_CELLS, as the kernel's error outputs tell the grader.
    """
    namespace: dict = {"__name__": "__main__", NOT_ATTEMPTED_CELLS: set(), "__student__": student}
    for cell in notebook.cells:
        if cell.cell_type != "code" or not (is_solution_cell(cell) or grade_id(cell) in ("setup", NUMBERS_CELL)):
            continue
        source = with_graded_student(cell.source, student) if grade_id(cell) == NUMBERS_CELL else cell.source
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), \
                warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                exec(compile(source, f"<cell {grade_id(cell)}>", "exec"), namespace)
            except NotImplementedError:
                namespace[NOT_ATTEMPTED_CELLS].add(grade_id(cell))
            except Exception:  # the student's error: later cells still run, as under nbgrader
                pass
    return namespace


def judge_in_process(namespace: dict, check_name: str, seed: int, student: str):
    """The verdict the grader would write for ``check_name`` if ``student``'s kernel held ``namespace``."""
    check = get_check(check_name)
    cases = check.draw_cases(seed)
    token = f"in-process-{seed}"
    plan = json.loads(json.dumps(check.plan(cases, token)))
    report = kernel_side.collect(plan, namespace)
    outputs = [{"output_type": "display_data",
                "data": {kernel_side.PROBE_MIME: json.dumps(report, allow_nan=False)}}]
    record = {"check": check.name, "token": token, "cases": [c.to_wire() for c in cases], "source": ""}
    if check.kind == "value":
        record["numbers"] = numbers_for(student)[check.name]
    return mark_not_attempted(judge_cell(outputs, record), namespace.get(NOT_ATTEMPTED_CELLS, set()))


def nbgrader_score(verdict, points: float, cell_id: str) -> float:
    """The score nbgrader reads from the outputs the grader writes for ``verdict``."""
    cell = new_code_cell(metadata={"nbgrader": {"grade": True, "solution": False, "points": points,
                                                "grade_id": cell_id}})
    cell.outputs = verdict_outputs(verdict, points)
    return float(determine_grade(cell)[0])


def diagnosis(verdict) -> str:
    if verdict.misconception is not None:
        return verdict.misconception.name
    return verdict.stage or ""


@pytest.fixture(scope="module")
def notebooks(released_course_template):
    course = released_course_template
    return {a: (nbformat.read(course.release_notebook(a), as_version=4),
                nbformat.read(course.source_notebook(a), as_version=4)) for a in ASSIGNMENTS}


@pytest.mark.parametrize("submission", RUNNABLE, ids=lambda s: f"{s.assignment}/{s.name}")
def test_submission_earns_its_expected_scores_and_diagnoses_for_every_seed(submission, notebooks):
    release, source = notebooks[submission.assignment]
    points = points_of_test_cells(source)
    checks = checks_of_test_cells(source)
    expected = expected_outcome(load_expected(), submission.assignment, submission.name, points)
    # graded under the submission's name, as the end-to-end test hands it in
    namespace = run_setup_and_solution_cells(build_notebook(submission, release, source), submission.name)
    mismatches = []
    for seed in SEEDS:
        for cell_id, cell_points in points.items():
            verdict = judge_in_process(namespace, checks[cell_id], seed, submission.name)
            got = (nbgrader_score(verdict, cell_points, cell_id), diagnosis(verdict))
            want = (expected[cell_id].score, expected[cell_id].diagnosis)
            if got != want:
                mismatches.append(f"seed {seed}, {cell_id}: got {got}, expected {want}; {verdict.problem}")
    assert mismatches == []
