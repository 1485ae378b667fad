"""The whole pipeline on the corpus, run as an instructor runs it.

A temporary course is copied from the released course of ``conftest`` (source notebooks, their
release and the gradebook made by nbgrader's ``generate_assignment``); every corpus submission is
handed in under ``submitted/<submission name>/``; then ``nbgrader autograde``,
``nbgrader generate_feedback`` and ``nbgrader export`` run as commands in the course folder. The
scores are read back through ``nbgrader.api.Gradebook`` and ``grades.csv`` and compared with
``grader_tests/corpus/expected.csv``. Cells time out after CELL_TIMEOUT seconds instead of the
course's 30, so the submission that loops for ever costs seconds, not a minute; it is long enough
for the slowest correct cell (the setup cell's imports) on a busy machine.

The graded course is built once per pytest run and shared (``test_feedback`` reads its pages);
under pytest-xdist the workers share it through a lock file.
"""
from __future__ import annotations

import csv
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
from built_once import built_once
from corpus_expected import UNGRADABLE, Expected, expected_outcome, load_expected
from nbgrader.api import Gradebook

from grader.course import Course
from grader.demo.corpus import hand_in, load_corpus
from grader.grading.ungradable_record import ungradable_reason
from grader.grading.verdict_records import verdict_records
from grader.notebook_cells import checks_of_test_cells, points_of_test_cells
from grader.scheduling.pool import grade_class
from grader_tests.checkout import ASSIGNMENTS

pytestmark = pytest.mark.slow

CELL_TIMEOUT = 15  # seconds
COMMAND_TIMEOUT = 900  # seconds: a hung command fails the test instead of the CI job


@dataclass(frozen=True)
class GradedCorpus:
    """A course in which the whole corpus went through the pipeline.

    steps: "<command> <assignment>" -> {"returncode", "output", "seconds"} of each nbgrader command.
    """

    course: Course
    steps: dict[str, dict]

    def expected(self, assignment: str) -> dict[str, dict[str, Expected]]:
        """submission -> test cell grade_id -> Expected, for every corpus submission of ``assignment``."""
        source = nbformat.read(self.course.source_notebook(assignment), as_version=4)
        points = points_of_test_cells(source)
        rows = load_expected()
        return {s.name: expected_outcome(rows, assignment, s.name, points) for s in load_corpus(assignment)}


def nbgrader(course: Course, *args: str) -> dict:
    """Run ``nbgrader <args>`` in the course folder, as a user types it."""
    started = time.perf_counter()
    run = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course.root, capture_output=True,
                         text=True, timeout=COMMAND_TIMEOUT)
    return {"returncode": run.returncode, "output": run.stdout + run.stderr,
            "seconds": round(time.perf_counter() - started, 1)}


def run_pipeline(released: Course, root: Path) -> dict[str, dict]:
    """Copy the released course, hand in the corpus, autograde, feedback, export; each command's outcome."""
    shutil.copytree(released.root, root)
    course = Course(root)
    steps = {}
    for submission in load_corpus():
        hand_in(course, submission.name, submission)
    for assignment in ASSIGNMENTS:
        steps[f"autograde {assignment}"] = nbgrader(course, "autograde", assignment, "--create", "--force",
                                                    f"--SandboxedExecute.timeout={CELL_TIMEOUT}")
    for assignment in ASSIGNMENTS:
        steps[f"generate_feedback {assignment}"] = nbgrader(course, "generate_feedback", assignment, "--force")
    steps["export"] = nbgrader(course, "export")
    return steps


@pytest.fixture(scope="session")
def graded_corpus(tmp_path_factory, request, released_course_template) -> GradedCorpus:
    """The corpus graded once per pytest run (pytest-xdist workers share one graded course)."""
    root, steps = built_once(tmp_path_factory, request, "graded-corpus",
                             lambda root: run_pipeline(released_course_template, root))
    return GradedCorpus(Course(root), steps)


def _ungradable(expected: dict[str, Expected]) -> bool:
    return any(e.ungradable for e in expected.values())


NBFORMAT_UNREADABLE = "Notebook does not appear to be JSON"


def _reason(expected: dict[str, Expected]) -> str:
    """The part of the expected ungradable reason that the reports must contain."""
    return next(e for e in expected.values() if e.ungradable).diagnosis.removeprefix(f"{UNGRADABLE}: ")


def _gradebook_scores(course: Course, assignment: str, student: str) -> dict[str, float]:
    with Gradebook(course.db_url) as gb:
        notebook = gb.find_submission_notebook(ASSIGNMENTS[assignment], assignment, student)
        return {grade.name: float(grade.score) for grade in notebook.grades}


def test_feedback_and_export_commands_succeed(graded_corpus):
    failed = {step: outcome["output"][-2000:] for step, outcome in graded_corpus.steps.items()
              if not step.startswith("autograde") and outcome["returncode"] != 0}
    assert failed == {}


@pytest.mark.parametrize("assignment", list(ASSIGNMENTS))
def test_autograde_fails_only_for_an_assignment_with_an_unreadable_submission(graded_corpus, assignment):
    has_unreadable = any(_ungradable(e) for e in graded_corpus.expected(assignment).values())
    assert graded_corpus.steps[f"autograde {assignment}"]["returncode"] == (1 if has_unreadable else 0)


@pytest.mark.parametrize("assignment", list(ASSIGNMENTS))
def test_every_test_cell_of_every_submission_has_its_expected_score_in_the_gradebook(graded_corpus, assignment):
    wrong = {}
    for student, expected in graded_corpus.expected(assignment).items():
        scores = _gradebook_scores(graded_corpus.course, assignment, student)
        for cell_id, want in expected.items():
            if abs(scores[cell_id] - want.score) > 1e-9:
                wrong[f"{student}/{cell_id}"] = (scores[cell_id], want.score)
    assert wrong == {}


def test_grades_csv_holds_every_submission_total(graded_corpus):
    with open(graded_corpus.course.root / "grades.csv", newline="", encoding="utf-8") as handle:
        exported = {(row["assignment"], row["student_id"]): (float(row["score"]), float(row["max_score"]))
                    for row in csv.DictReader(handle)}
    wrong = {}
    for assignment in ASSIGNMENTS:
        source = nbformat.read(graded_corpus.course.source_notebook(assignment), as_version=4)
        maximum = sum(points_of_test_cells(source).values())
        for student, expected in graded_corpus.expected(assignment).items():
            want = (round(sum(e.score for e in expected.values()), 6), maximum)
            got = exported.get((assignment, student))
            if got is None or (round(got[0], 6), got[1]) != want:
                wrong[f"{assignment}/{student}"] = (got, want)
    assert wrong == {}


@pytest.mark.parametrize("assignment", list(ASSIGNMENTS))
def test_every_graded_cell_records_the_expected_diagnosis(graded_corpus, assignment):
    course = graded_corpus.course
    source = nbformat.read(course.source_notebook(assignment), as_version=4)
    checks = checks_of_test_cells(source)
    wrong = {}
    for student, expected in graded_corpus.expected(assignment).items():
        if _ungradable(expected):
            continue
        notebook = nbformat.read(course.autograded_notebook(student, assignment), as_version=4)
        records = {cell.metadata["nbgrader"]["grade_id"]: verdict_records(cell) for cell in notebook.cells
                   if cell.metadata.get("nbgrader", {}).get("grade_id") in checks}
        for cell_id, want in expected.items():
            got = [r["misconception"] or r["stage"] or "" for r in records.get(cell_id, [])]
            if got != [want.diagnosis]:
                wrong[f"{student}/{cell_id}"] = (got, want.diagnosis)
    assert wrong == {}


def test_an_unreadable_submission_is_reported_by_name_with_its_reason(graded_corpus):
    reported = 0
    for assignment in ASSIGNMENTS:
        output = graded_corpus.steps[f"autograde {assignment}"]["output"]
        for student, expected in graded_corpus.expected(assignment).items():
            if not _ungradable(expected):
                continue
            # plain nbgrader prints nbformat's words; the grader's own reason (expected.csv) is
            # checked in its ungradable record, below
            assert f"for student '{student}'" in output and NBFORMAT_UNREADABLE in output
            reported += 1
    assert reported >= 1


@pytest.mark.parametrize("assignment", list(ASSIGNMENTS))
def test_every_readable_submission_is_graded_and_gets_a_feedback_page(graded_corpus, assignment):
    course = graded_corpus.course
    missing = [student for student, expected in graded_corpus.expected(assignment).items()
               if not _ungradable(expected) and not (course.autograded_notebook(student, assignment).exists()
                                                     and course.feedback_page(student, assignment).exists())]
    assert missing == []


def test_parallel_grading_gives_the_same_scores_as_plain_nbgrader(graded_corpus, tmp_path):
    assignment = "01_variance"
    subset = ["blank", "exception_in_cell", "model_answer", "sample_variance_ddof1", "truncated_file"]
    course = Course(tmp_path / "course")
    shutil.copytree(graded_corpus.course.root, course.root)
    for student in subset:
        shutil.rmtree(course.root / "autograded" / student / assignment, ignore_errors=True)
    plain = {student: _gradebook_scores(graded_corpus.course, assignment, student) for student in subset}

    outcomes = grade_class(course, assignment, students=subset, workers=2)

    assert {student: _gradebook_scores(course, assignment, student) for student in subset} == plain
    expected = graded_corpus.expected(assignment)
    ungradable = {student: _reason(expected[student]) for student in subset if _ungradable(expected[student])}
    assert {o.student for o in outcomes if not o.graded} == set(ungradable)
    for student, reason in ungradable.items():
        assert reason in ungradable_reason(course, assignment, student)
