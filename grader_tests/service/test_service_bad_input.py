"""Bad hand-ins through the exchange: each ends with a record and a feedback page saying what to do.

Students hand in (through nbgrader's exchange classes): a truncated notebook, a 50 MB notebook, one
with 10 000 cells, the notebook of another assignment, a folder without the notebook, and one
student hands in 45 times within a minute (as many as one look reads). ``grader watch --once`` (in-process) handles them all.
"""
from __future__ import annotations

import html
import shutil
import tempfile
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook

from grader.service.journal import RELEASED, Journal
from grader.service.watch import GradingLoop
from grader.service_policy import GradingService
from grader_tests.service_setup import ServiceCourse, accounts_skip_reason

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(accounts_skip_reason() is not None, reason=str(accounts_skip_reason()))]

ASSIGNMENT = "02_softmax"
NOTEBOOK = "softmax.ipynb"
# Hand-ins of one account in one look, just within c.GradingService.max_inbound_entries_per_pass, so each
# is read and answered; more than that at once is refused in bulk (test_service_account_budgets.py).
FLOOD = GradingService.class_traits()["max_inbound_entries_per_pass"].default_value - 5


def _big(text: str, megabytes: int) -> str:
    notebook = nbformat.reads(text, as_version=4)
    notebook.cells.append(nbformat.v4.new_markdown_cell("x" * (megabytes * 1_000_000)))
    return nbformat.writes(notebook)


def _many_cells(text: str, cells: int) -> str:
    notebook = nbformat.reads(text, as_version=4)
    notebook.cells.extend(nbformat.v4.new_code_cell("") for _ in range(cells))
    return nbformat.writes(notebook)


@pytest.fixture(scope="module")
def handled(released_course_template):
    top = Path(tempfile.mkdtemp(prefix="sal-bad-input-"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GRADER_EXCHANGE_ROOT", str(top / "exchange"))
        setup = ServiceCourse(released_course_template, top, (ASSIGNMENT,))
        model = setup.notebook_text(ASSIGNMENT, "model_answer")
        other = setup.course.release_notebook("01_variance").read_text()
        hand_ins = {
            "truncated": {NOTEBOOK: model[: len(model) // 2]},
            "huge": {NOTEBOOK: _big(model, 50)},
            "large": {NOTEBOOK: _big(model, 8)},
            "many_cells": {NOTEBOOK: _many_cells(model, 10_000)},
            "wrong_assignment": {NOTEBOOK: other},
            "missing": {"my_softmax_copy.ipynb": model},
        }
        sides = {name: setup.hand_in(name, ASSIGNMENT, files) for name, files in hand_ins.items()}
        blank = setup.course.release_notebook(ASSIGNMENT).read_text()
        for _ in range(FLOOD):
            sides["flood"] = setup.hand_in("flood", ASSIGNMENT, {NOTEBOOK: blank})
        service = GradingLoop(setup.course, workers=2)
        service.run(once=True)
        service.journal.close()
        pages = {name: side.fetch_feedback(ASSIGNMENT) for name, side in sides.items()}
        try:
            yield setup, pages
        finally:
            setup.remove_accounts()
    shutil.rmtree(top, ignore_errors=True)


@pytest.mark.parametrize("student, says", [
    ("truncated", "is not a readable notebook"),
    ("huge", "the hand-in holds more than 20 MB"),
    ("large", "8.0 MB, more than the 5.0 MB"),
    ("many_cells", "cells, more than the 2000 this course grades"),
    ("wrong_assignment", "holds the cells of assignment 01_variance"),
    ("missing", "softmax.ipynb is missing from your submission; the submission holds my_softmax_copy.ipynb"),
])
def test_a_bad_hand_in_is_recorded_ungradable_with_a_page_saying_what_to_do(handled, student, says):
    setup, pages = handled
    rows = Journal(setup.course.state_dir / "service.sqlite").of(setup.student_id(student), ASSIGNMENT)
    assert [(r.state, r.outcome) for r in rows] == [(RELEASED, "ungradable")]
    assert says in rows[0].problem
    assert len(pages[student]) == 1
    page = pages[student][0].read_text()
    assert "not graded" in page and says in html.unescape(page) and "What to do" in page
    with Gradebook(setup.course.db_url) as gb:
        assert gb.find_submission(ASSIGNMENT, setup.student_id(student)).score == 0


def test_the_many_cells_page_names_the_cell_count(handled):
    setup, pages = handled
    model_cells = len(nbformat.reads(setup.notebook_text(ASSIGNMENT, "model_answer"), 4).cells)
    assert f"has {model_cells + 10_000} cells" in pages["many_cells"][0].read_text()


def test_a_flood_of_hand_ins_each_ends_with_a_record_and_a_page(handled):
    setup, pages = handled
    rows = Journal(setup.course.state_dir / "service.sqlite").of(setup.student_id("flood"), ASSIGNMENT)
    assert len(rows) == FLOOD
    assert all(row.state == RELEASED for row in rows)
    outcomes = [row.outcome for row in rows]
    graded = outcomes.count("graded")
    assert outcomes.count("superseded") == FLOOD - 5 and graded == 5, [(r.outcome, r.problem) for r in rows if r.outcome != "superseded"]
    assert outcomes[-5:] == ["graded"] * 5  # the latest ones are graded, in arrival order
    superseded_page = pages["flood"][0].read_text()
    assert "wait for the feedback of your latest submission" in superseded_page
    assert len(pages["flood"]) == FLOOD
