"""The course text: each notebook states how it is graded, cites lessons honestly, and reveals no quiz answer.

The grading table of each notebook is derived from its cells' points and the hidden checks' case weights;
when either changes, ``expected_grading_table`` prints the table to paste into the notebook.
"""
from __future__ import annotations

import re

import nbformat
import numpy as np
import pytest
from check_harness import VARIANT_STUDENTS, judge

from grader.checks import get_check
from grader_tests.checkout import ASSIGNMENTS, REPO_ROOT
from solutions.variants import numbers_for

GRADING_HEADING = "## How this notebook is graded"


def notebook(folder: str, assignment: str):
    return nbformat.read(REPO_ROOT / folder / assignment / f"{ASSIGNMENTS[assignment]}.ipynb", as_version=4)


def graded_cells(nb):
    return [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")
            and not c.metadata["nbgrader"].get("solution")]


def invalid_input_share(name: str) -> str:
    """The share of a test cell's points that rides on invalid-input cases, as the table states it."""
    check = get_check(name)
    if check.kind == "value":
        return "— (one answer: all or nothing)"
    cases = check.draw_cases(0)
    invalid = sum(case.weight for case in cases if case.raises)
    if not invalid:
        return "none"
    return f"{100 * invalid / sum(case.weight for case in cases):.0f} % of the cell's points"


def expected_grading_table(assignment: str) -> str:
    rows = ["| test cell | points | invalid-input cases (must raise `ValueError`) |", "|---|---|---|"]
    for cell in graded_cells(notebook("source", assignment)):
        grade_id = cell.metadata["nbgrader"]["grade_id"]
        points = cell.metadata["nbgrader"]["points"]
        rows.append(f"| `{grade_id}` | {points:g} | {invalid_input_share(grade_id[len('test_'):])} |")
    return "\n".join(rows)


def grading_cell(folder: str, assignment: str) -> str:
    cells = [c.source for c in notebook(folder, assignment).cells
             if c.cell_type == "markdown" and c.source.startswith(GRADING_HEADING)]
    assert len(cells) == 1, f"{folder}/{assignment} needs one markdown cell starting with {GRADING_HEADING!r}"
    return cells[0]


assignments = pytest.mark.parametrize("assignment", list(ASSIGNMENTS))


@assignments
def test_grading_section_lists_every_test_cell_with_its_points_and_invalid_input_share(assignment):
    table = expected_grading_table(assignment)
    assert table in grading_cell("source", assignment), f"paste this table into the grading cell:\n{table}"


@assignments
def test_grading_section_says_hidden_cases_decide_and_earlier_bugs_propagate(assignment):
    text = grading_cell("source", assignment)
    assert "hidden" in text and "partial credit" in text
    assert "invalid input" in text
    assert "earlier function" in text


@assignments
def test_release_carries_the_grading_section(assignment):
    assert grading_cell("release", assignment) == grading_cell("source", assignment)


def test_softmax_introduction_does_not_state_the_culprit():
    introduction = notebook("source", "02_softmax").cells[0].source.lower()
    assert "gap" not in introduction and "does not vanish" not in introduction


def test_blog_weight_is_0_326_everywhere_in_the_course():
    for assignment in ASSIGNMENTS:
        text = "\n".join(cell.source for cell in notebook("source", assignment).cells)
        assert "0.254, 0.327" not in text, assignment


#: Phrases that state why a choice item's right option is right (its explanation).
ANSWER_STATEMENTS = {
    "answer_culprit": ("does not vanish", "not the same thing as a vanishing gradient", "its reason does not",
                       "approaches √2", "still sends a large gradient"),
}


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.;:])\s+", text) if len(s.strip()) >= 40]


@assignments
def test_no_notebook_text_explains_a_quiz_answer_before_it_is_graded(assignment):
    """Students read the whole notebook before answering: no markdown may hold a quiz item's explanation."""
    text = "\n".join(c.source for c in notebook("release", assignment).cells if c.cell_type == "markdown")
    found = []
    for cell in graded_cells(notebook("source", assignment)):
        check = get_check(cell.metadata["nbgrader"]["grade_id"][len("test_"):])
        if check.kind != "value":
            continue
        found += [f"{check.name}: {p!r}" for p in ANSWER_STATEMENTS.get(check.name, ()) if p in text]
        found += [f"{check.name}: {s!r}" for s in _sentences(check.discussion) if s in text]
    assert found == []


@assignments
def test_markdown_after_each_quiz_item_states_none_of_its_answers(assignment):
    """For many students' numbers and the lesson's, no markdown after an answer cell holds its value."""
    cells = notebook("release", assignment).cells
    for index, cell in enumerate(cells):
        name = cell.metadata.get("nbgrader", {}).get("grade_id", "")
        if not (name.startswith("answer_") and cell.metadata["nbgrader"].get("solution")):
            continue
        after = "\n".join(c.source for c in cells[index + 1:] if c.cell_type == "markdown")
        for student in VARIANT_STUDENTS:
            value = get_check(name).expected_value(numbers_for(student)[name])
            if isinstance(value, str):
                continue
            for entry in np.atleast_1d(np.asarray(value, dtype=float)):
                if entry != round(entry):
                    assert f"{entry:.4g}" not in after, (name, student, entry)


def test_the_blogs_vanishing_gradient_claim_is_discussed_in_the_feedback_of_a_correct_answer_only():
    check = get_check("answer_culprit")
    assert "vanish" in check.discussion and "√2" in check.discussion
    for student in VARIANT_STUDENTS:
        numbers = numbers_for(student)["answer_culprit"]
        right = check.expected_value(numbers)
        wrong = next(letter for letter in "ABCD" if letter != right)
        assert check.discussion in judge(check, {"answer_culprit": right, "my_numbers": {"answer_culprit": numbers}}).explain()
        assert check.discussion not in judge(check, {"answer_culprit": wrong, "my_numbers": {"answer_culprit": numbers}}).explain()


def test_the_saturation_part_calls_2_95_the_unscaled_gap():
    text = "\n".join(cell.source for cell in notebook("source", "02_softmax").cells)
    assert "gap between the top two scores after scaling: 2.95" not in text
    assert "2.95 for the unscaled scores" in text


@pytest.mark.parametrize("part", ["Part 2 — The causal mask", "Part 3 — Multi-head attention",
                                  "Part 4 — The initialisation check"])
def test_attention_parts_beyond_the_lessons_are_marked_as_course_extensions(part):
    cell = next(c.source for c in notebook("source", "04_attention").cells if part in c.source)
    assert "Course extension" in cell and "AM13" not in cell


def test_attention_notebook_cites_neither_am13_nor_the_blog_section_for_its_extensions():
    text = "\n".join(cell.source for cell in notebook("source", "04_attention").cells)
    assert "AM13" not in text and "三件事" not in text


def test_readout_capacity_figure_is_drawn_at_the_lessons_dimension():
    figure = next(c.source for c in notebook("source", "03_readout").cells
                  if c.cell_type == "code" and "plt.plot" in c.source and "retrieval_accuracy" in c.source)
    assert re.search(r"retrieval_accuracy\(n, 64, _?beta", figure)
    assert "axhline(0.9" in figure


def test_the_attention_checks_send_students_to_sections_that_hold_the_idea():
    from grader.checks import checks_module
    from grader.checks.misconceptions import wrong_answers

    attention = checks_module("04_attention")

    lessons = [check.lesson for check in attention.CHECKS]
    lessons += [m.lesson for check in attention.CHECKS for m in wrong_answers(check.name)]
    assert lessons and not [lesson for lesson in lessons if "AM13" in lesson or lesson == "Blog"], lessons
