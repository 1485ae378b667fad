"""nbgrader's example ``ps1`` through the grading service, with real student accounts.

Two students fetch ps1 from the exchange, write their answers (every test passes; wrong answers)
and submit; ``grader watch --once`` collects, grades and releases feedback. Each cell must score
what plain ``nbgrader autograde`` with nbgrader's defaults gives the same notebooks, and the
feedback the students fetch says that the asserts' verdicts were decided inside their kernel.

Run as root (accounts are created with useradd and removed afterwards); skipped otherwise.
"""
from __future__ import annotations

import glob
import html
from pathlib import Path

import nbformat
import pytest
from nbgrader_example_course import (
    ASSIGNMENT,
    NOTEBOOKS,
    cell_scores,
    hand_in,
    make_course,
    run_command,
    submission_notebooks,
)

from grader.grading.preprocessors.feedback_page import KERNEL_VERDICT_NOTE
from grader_tests.checkout import REPO_ROOT
from grader_tests.student_accounts import exchange_class, root_skip_reason

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(root_skip_reason() is not None, reason=str(root_skip_reason()))]

OUTCOMES = ("passes_all", "wrong_answer")  # one per student, in the order of the accounts


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """(engine course graded by the service, stock course graded by nbgrader, the students)."""
    modes = {p: p.stat().st_mode for p in (REPO_ROOT / "solutions", REPO_ROOT / "source", REPO_ROOT / "grader")}
    template = make_course(tmp_path_factory.mktemp("ps1-template") / "course101", engine=True)
    stock = make_course(tmp_path_factory.mktemp("ps1-stock") / "course101", engine=False)
    try:
        with exchange_class(template, tmp_path_factory.mktemp("ps1-served") / "course101", "sal-ps1-") as scene:
            scene.release(ASSIGNMENT)
            for student, outcome in zip(scene.students, OUTCOMES):
                student.nbgrader("fetch_assignment", ASSIGNMENT)
                notebooks = submission_notebooks(scene.course, outcome)
                for name in NOTEBOOKS:
                    student.write(f"{ASSIGNMENT}/{name}.ipynb", nbformat.writes(notebooks[name]))
                student.nbgrader("submit", ASSIGNMENT)
                hand_in(stock, student.name, submission_notebooks(stock, outcome))
            scene.watch_once()
            for student in scene.students:
                student.nbgrader("fetch_feedback", ASSIGNMENT)
            run_command(["nbgrader", "autograde", ASSIGNMENT], stock.root)
            yield scene.course, stock, scene.students
    finally:
        for path, mode in modes.items():
            path.chmod(mode)


def test_the_service_scores_every_cell_as_stock_nbgrader_does(served):
    course, stock, students = served
    scores = cell_scores(course)
    assert sorted({student for student, _, _ in scores}) == sorted(s.name for s in students)
    assert scores == cell_scores(stock)


def test_the_fetched_feedback_says_the_asserts_were_decided_inside_the_kernel(served):
    _, _, students = served
    for student in students:
        pages = glob.glob(str(student.home / ASSIGNMENT / "feedback" / "*" / "problem1.html"))
        assert len(pages) == 1
        page = html.unescape(Path(pages[0]).read_text(encoding="utf-8"))
        assert page.count(KERNEL_VERDICT_NOTE.strip()) == 4
