"""An ordinary nbgrader assignment grades through the course's pipeline with stock nbgrader's scores.

nbgrader's own example ``course101/ps1`` (``nbgrader_example_course``) has test cells of plain
asserts and no hidden checks of this course. Graded by ``grader autograde`` (sandboxed kernel, the
zygote, the course's pipeline) each cell of each submission must score what plain ``nbgrader
autograde`` with nbgrader's defaults gives it; the feedback page says that such a cell's verdict was
decided inside the student's kernel, and points to how to make it a trusted check.
"""
from __future__ import annotations

import html

import pytest
from nbgrader_example_course import (
    ASSIGNMENT,
    cell_scores,
    hand_in_every_outcome,
    make_course,
    run_command,
)

from grader.grading.preprocessors.feedback_page import KERNEL_VERDICT_NOTE
from grader.reporting.kernel_decided import KERNEL_DECIDED_NOTE

pytestmark = pytest.mark.slow
# problem1's autograded test cells (1, 1, 0.5 and 0.5 points), in notebook order
TEST_CELLS = ("correct_squares", "squares_invalid_input", "correct_sum_of_squares", "sum_of_squares_uses_squares")


@pytest.fixture(scope="module")
def graded_both_ways(tmp_path_factory):
    """(stock course graded by ``nbgrader autograde``, engine course graded by ``grader autograde``),
    with the same submissions."""
    stock = make_course(tmp_path_factory.mktemp("stock") / "course101", engine=False)
    engine = make_course(tmp_path_factory.mktemp("engine") / "course101", engine=True)
    students = hand_in_every_outcome(stock)
    assert hand_in_every_outcome(engine) == students
    run_command(["nbgrader", "autograde", ASSIGNMENT], stock.root)
    run_command(["grader", "autograde", ASSIGNMENT, "--course", str(engine.root), "--workers", "2"], engine.root)
    return stock, engine, students


def test_grader_autograde_scores_every_cell_as_stock_nbgrader_does(graded_both_ways):
    stock, engine, students = graded_both_ways
    assert sorted({student for student, _, _ in cell_scores(stock)}) == students
    assert cell_scores(engine) == cell_scores(stock)


def test_the_outcomes_compared_differ_from_each_other(graded_both_ways):
    """The comparison means something: the submissions earn different autograded scores."""
    _, engine, _ = graded_both_ways
    scores = cell_scores(engine)
    honest = ("passes_all", "wrong_answer", "blank", "raises")
    autograded = {outcome: tuple(scores[(outcome, "problem1", grade_id)][0] for grade_id in TEST_CELLS)
                  for outcome in honest}
    assert autograded == {"passes_all": (1.0, 1.0, 0.5, 0.5), "wrong_answer": (0.0, 0.0, 0.0, 0.5),
                          "blank": (0.0, 0.0, 0.0, 0.0), "raises": (0.0, 0.0, 0.0, 0.5)}


def test_an_assert_cells_verdict_can_be_forged_as_the_page_says(graded_both_ways):
    """What the page warns of: a wrong answer that turns later cells into ``pass`` earns every
    assert cell's points, as under stock nbgrader (only the course's hidden checks resist it)."""
    _, engine, _ = graded_both_ways
    scores = cell_scores(engine)
    earned = [scores[("input_transformer_attack", "problem1", grade_id)][2] for grade_id in TEST_CELLS]
    assert earned == [1.0, 1.0, 0.5, 0.5]  # the points of each test cell


def feedback_text(course, student: str, notebook: str) -> str:
    """The feedback page of ``student``'s ``notebook`` as text (entities decoded), made by ``grader feedback``."""
    page = course.root / "feedback" / student / ASSIGNMENT / f"{notebook}.html"
    if not page.exists():
        run_command(["grader", "feedback", ASSIGNMENT, "--course", str(course.root)], course.root)
    return html.unescape(page.read_text(encoding="utf-8"))


def test_the_feedback_page_says_under_an_assert_cell_that_it_was_decided_inside_the_kernel(graded_both_ways):
    _, engine, _ = graded_both_ways
    page = feedback_text(engine, "passes_all", "problem1")
    assert page.count(KERNEL_VERDICT_NOTE.strip()) == 4  # one under each of problem1's four test cells


def test_the_feedback_summary_names_the_cells_decided_inside_the_kernel(graded_both_ways):
    _, engine, _ = graded_both_ways
    page = feedback_text(engine, "wrong_answer", "problem1")
    summary = page[page.index('class="kernel-verdicts"'):]
    summary = summary[:summary.index("</p>")]
    assert "code in a notebook could forge these verdicts" in summary
    for grade_id in TEST_CELLS:
        assert f"<code>{grade_id}</code>" in summary


def test_the_class_report_names_the_cells_decided_inside_the_kernels(graded_both_ways):
    _, engine, _ = graded_both_ways
    run_command(["grader", "report", ASSIGNMENT, "--course", str(engine.root)], engine.root)
    page = html.unescape((engine.root / "reports" / f"{ASSIGNMENT}.html").read_text(encoding="utf-8"))
    cells = ", ".join(f"problem1/{grade_id}" for grade_id in TEST_CELLS)
    assert KERNEL_DECIDED_NOTE.format(cells=cells) in page
