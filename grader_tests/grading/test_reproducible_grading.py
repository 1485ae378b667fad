"""Regrading an unchanged submission gives identical per-cell scores, with plain nbgrader and with the grader.

The submission here is chosen so that its score depends on the hidden inputs: its ``causal_mask``
is right for even ``n`` and wrong for odd ``n``, so which sizes a run draws decides its partial
credit. Graded with inputs from a fresh random seed, two runs would disagree; graded with the
submission's own seed (``grader.grading.seeds``), they cannot. The seed follows what the submission does,
not its text: a comment added before a regrade keeps it, a file handed in beside the notebook
changes it.
"""
from __future__ import annotations

import subprocess
import sys

import nbformat
import pytest
from check_harness import judge
from nbgrader.api import Gradebook

from grader.checks import get_check
from grader.course import Course
from grader.demo.corpus import Submission, build_notebook
from grader.grading.grade_one import grade_one
from grader.grading.preprocessors import prepare_probes
from grader.grading.seeds import submission_seed
from grader_tests.checkout import ASSIGNMENTS

ASSIGNMENT = "04_attention"
STUDENT = "odd_sizes_wrong"
CAUSAL_MASK_RIGHT_FOR_EVEN_N = '''\
def causal_mask(n):
    """True on and below the diagonal -- except that odd sizes also hide the diagonal."""
    if not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError("n must be a positive integer")
    return np.tril(np.ones((n, n), dtype=bool), k=-(n % 2))
'''


def _causal_mask(n):
    exec_namespace = {"np": __import__("numpy")}
    exec(CAUSAL_MASK_RIGHT_FOR_EVEN_N, exec_namespace)
    return exec_namespace["causal_mask"](n)


def _hand_in(course: Course) -> None:
    submission = Submission(ASSIGNMENT, STUDENT, base="model", kind="fault", summary="",
                            cells={"causal_mask": CAUSAL_MASK_RIGHT_FOR_EVEN_N})
    release = nbformat.read(course.release_notebook(ASSIGNMENT), as_version=4)
    source = nbformat.read(course.source_notebook(ASSIGNMENT), as_version=4)
    path = course.submitted_notebook(STUDENT, ASSIGNMENT)
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(build_notebook(submission, release, source), path)


def _scores(course: Course) -> dict[str, tuple[float, float]]:
    """grade_id -> (score, max score) of every graded cell of the submission, from the gradebook."""
    with Gradebook(course.db_url) as gb:
        notebook = gb.find_submission_notebook(ASSIGNMENTS[ASSIGNMENT], ASSIGNMENT, STUDENT)
        return {grade.name: (float(grade.score), float(grade.max_score)) for grade in notebook.grades}


def _plain_nbgrader_autograde(course: Course) -> None:
    run = subprocess.run([sys.executable, "-m", "nbgrader", "autograde", ASSIGNMENT, "--create", "--force",
                          "--student", STUDENT], cwd=course.root, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]


def test_the_submission_used_here_scores_differently_on_different_inputs():
    check = get_check("causal_mask")
    fractions = {judge(check, {"causal_mask": _causal_mask}, seed).fraction for seed in range(40)}
    assert len(fractions) > 1, fractions


@pytest.mark.slow
def test_regrading_with_plain_nbgrader_and_with_the_grader_gives_identical_scores(course):
    _hand_in(course)
    _plain_nbgrader_autograde(course)
    first = _scores(course)
    _plain_nbgrader_autograde(course)
    again = _scores(course)
    outcome = grade_one(str(course.root), ASSIGNMENT, STUDENT)
    assert outcome.graded, outcome.reason
    by_the_grader = _scores(course)
    score, max_score = first["test_causal_mask"]
    assert 0 < score < max_score  # the quirk costs some points, not all
    assert again == first and by_the_grader == first


def _edit_submission(course: Course, grade_id: str, edit) -> None:
    path = course.submitted_notebook(STUDENT, ASSIGNMENT)
    notebook = nbformat.read(path, as_version=4)
    cell = next(c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)
    cell.source = edit(cell.source)
    nbformat.write(notebook, path)


def _grade_recording_seeds(course: Course, monkeypatch) -> list[int]:
    """Grade the submission with the grader (in this process); the seeds its hidden inputs came from."""
    seeds = []

    def recording(*args):
        seeds.append(submission_seed(*args))
        return seeds[-1]

    monkeypatch.setattr(prepare_probes, "submission_seed", recording)
    outcome = grade_one(str(course.root), ASSIGNMENT, STUDENT)
    assert outcome.graded, outcome.reason
    return seeds


@pytest.mark.slow
def test_regrading_after_a_comment_changed_gives_the_same_inputs_and_scores(course, monkeypatch):
    _hand_in(course)
    before, scores = _grade_recording_seeds(course, monkeypatch), _scores(course)
    _edit_submission(course, "causal_mask", lambda source: "# second try, same code\n" + source.replace(
        "return np.tril", "\n    return np.tril") + "\n\n# the end\n")
    after = _grade_recording_seeds(course, monkeypatch)
    assert len(before) == 1 and after == before
    assert _scores(course) == scores


@pytest.mark.slow
def test_regrading_with_a_file_added_beside_the_notebook_gives_new_inputs(course, monkeypatch):
    _hand_in(course)
    before = _grade_recording_seeds(course, monkeypatch)
    (course.submitted_notebook(STUDENT, ASSIGNMENT).parent / "sizes.txt").write_text("3 5 7\n")
    after = _grade_recording_seeds(course, monkeypatch)
    assert len(before) == 1 and len(after) == 1 and after != before
