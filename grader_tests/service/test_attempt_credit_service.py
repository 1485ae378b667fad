"""A student who cycles through the letters through the grading service ends with the schedule's reduced credit.

The student hands in through nbgrader's exchange, one letter of ``answer_culprit`` per hand-in, reads
each feedback page and stops at the right one; ``grader watch --once`` grades each hand-in as it
comes. Then the instructor regrades every submission (``grader autograde``'s pool, forced): the
per-cell scores stay the same, because the attempt history is replayed by submission time.
"""
from __future__ import annotations

import nbformat
import pytest
from nbgrader.api import Gradebook

from grader.demo.corpus import Submission, build_notebook
from grader.grading.attempt_credit import AttemptCredit
from grader.scheduling.pool import grade_class
from grader.service.watch import GradingLoop
from grader.service_policy import GradingService as Policy
from grader_tests.service_setup import ServiceCourse, accounts_skip_reason, temporary_service_course
from solutions.quiz import quiz_answer
from solutions.variants import numbers_for

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(accounts_skip_reason() is not None, reason=str(accounts_skip_reason()))]

ASSIGNMENT = "02_softmax"
NOTEBOOK = "softmax.ipynb"


def cycler(setup: ServiceCourse) -> tuple[str, str]:
    """(id, name) of a student whose right letter is C, so that cycling from A costs two
    different wrong answers (their account is made)."""
    name = next(f"cycler{i}" for i in range(200) if quiz_answer(
        "answer_culprit", numbers_for(setup.planned_id(f"cycler{i}"))["answer_culprit"]) == "C")
    return setup.student_id(name), name


@pytest.fixture
def setup(released_course_template):
    with temporary_service_course(released_course_template, "sal-attempts-", (ASSIGNMENT,)) as course:
        yield course


def notebook_answering(setup: ServiceCourse, letter: str) -> str:
    """The model answer with ``answer_culprit`` set to ``letter``."""
    release = nbformat.read(setup.course.release_notebook(ASSIGNMENT), as_version=4)
    source = nbformat.read(setup.course.source_notebook(ASSIGNMENT), as_version=4)
    submission = Submission(ASSIGNMENT, f"letter_{letter}", "model", "partial", "",
                            {"answer_culprit": f'answer_culprit = "{letter}"\n'})
    return nbformat.writes(build_notebook(submission, release, source))


def cell_scores(setup: ServiceCourse, student: str) -> dict[str, float]:
    with Gradebook(setup.course.db_url) as gb:
        notebook = gb.find_submission_notebook(NOTEBOOK.removesuffix(".ipynb"), ASSIGNMENT, student)
        return {grade.name: float(grade.score) for grade in notebook.grades}


def test_cycling_through_the_letters_ends_with_the_schedules_reduced_credit_and_a_regrade_keeps_it(setup):
    student, name = cycler(setup)
    pages = []
    for letter in "ABCD":
        side = setup.hand_in(name, ASSIGNMENT, {NOTEBOOK: notebook_answering(setup, letter)})
        GradingLoop(setup.course, policy=Policy(max_graded_per_hour=10), workers=1).run(once=True)
        pages.append(side.fetch_feedback(ASSIGNMENT)[-1].read_text(encoding="utf-8"))
        if "answer_culprit: passed" in pages[-1]:
            break
    assert letter == "C" and len(pages) == 3
    schedule = AttemptCredit().schedule
    scores = cell_scores(setup, student)
    assert scores["test_answer_culprit"] == 2 * schedule[2] == 0.5
    assert "can still earn 50 % of its points" in pages[0] and "can still earn 25 % of its points" in pages[1]
    assert "earns 25 % of its points" in pages[2]
    assert all(scores[cell] > 0 for cell in scores if cell != "test_answer_culprit")

    grade_class(setup.course, ASSIGNMENT, students=[student], workers=1, force=True)
    assert cell_scores(setup, student) == scores
