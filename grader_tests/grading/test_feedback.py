"""Feedback pages name the mistake and give nothing of the hidden tests away.

The pages are the ones ``nbgrader generate_feedback`` wrote for the graded corpus
(``graded_corpus`` of ``test_pipeline_end_to_end``). For every failing check a page shows the
verdict text of ``grader.checks.api.Verdict.explain``: the first problem found (its escalation
stage), then, when the output matches a known wrong variant, the misconception's sentence and the
lesson section to reread.
"""
from __future__ import annotations

from functools import lru_cache

import nbformat
import numpy as np
import pytest
from bs4 import BeautifulSoup
from test_pipeline_end_to_end import graded_corpus  # noqa: F401 (the shared graded course)

from grader import kernel_side
from grader.checks import get_check
from grader.checks.api import NO_REPORT, STAGES
from grader.demo.corpus import get_submission
from grader.notebook_cells import checks_of_test_cells
from grader_tests.checkout import ASSIGNMENTS
from solutions.variants import numbers_for

pytestmark = pytest.mark.slow

# Text that only hidden test source or the probe machinery contains.
HIDDEN_MARKERS = ("BEGIN HIDDEN TESTS", "END HIDDEN TESTS", "probe(", "grader.probe", "__grader_probe",
                  "kernel_probe", kernel_side.PROBE_MIME)


@lru_cache(maxsize=None)
def _soup(path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def page_text(path) -> str:
    return _soup(path).get_text()


def verdict_blocks(path) -> dict[str, str]:
    """check name -> the verdict text shown for it (the output that starts with ✓ or ✗)."""
    soup = _soup(path)
    blocks = {}
    for pre in soup.find_all("pre"):
        text = pre.get_text()
        if text[:2] in ("✓ ", "✗ "):
            blocks[text[2:].split(":", 1)[0]] = text
    return blocks


def graded_pages(graded_corpus):  # noqa: F811
    """(assignment, student, expected outcome, page path) for every submission that has a page."""
    for assignment in ASSIGNMENTS:
        for student, expected in graded_corpus.expected(assignment).items():
            page = graded_corpus.course.feedback_page(student, assignment)
            if page.exists():
                yield assignment, student, expected, page


def _checks(graded_corpus, assignment):  # noqa: F811
    return checks_of_test_cells(nbformat.read(graded_corpus.course.source_notebook(assignment), as_version=4))


def test_every_misconception_is_named_after_the_first_problem_with_the_lesson_to_reread(graded_corpus):  # noqa: F811
    missing, named = [], 0
    for assignment, student, expected, page in graded_pages(graded_corpus):
        checks, blocks = _checks(graded_corpus, assignment), verdict_blocks(page)
        for cell_id, want in expected.items():
            check = get_check(checks[cell_id])
            known = {m.name: m for m in check.misconceptions}
            if want.diagnosis not in known:
                continue
            sentence = f"Likely misconception ({want.diagnosis}): {known[want.diagnosis].message()}"
            block = blocks.get(check.name, "")
            if not (block.startswith("✗ ") and "First problem: " in block
                    and block.find("First problem: ") < block.find(sentence)):
                missing.append(f"{assignment}/{student}/{cell_id}: {block!r}")
            named += 1
    assert missing == [] and named > 0


def test_every_other_failing_check_names_its_first_problem_and_no_misconception(graded_corpus):  # noqa: F811
    missing, seen = [], 0
    for assignment, student, expected, page in graded_pages(graded_corpus):
        checks, blocks = _checks(graded_corpus, assignment), verdict_blocks(page)
        for cell_id, want in expected.items():
            if want.diagnosis not in STAGES:
                continue
            name = checks[cell_id]
            first = (f"First problem: the test of `{name}` did not finish" if want.diagnosis == NO_REPORT
                     else f"First problem: {want.diagnosis}")
            block = blocks.get(name, "")
            if not block.startswith("✗ ") or first not in block or "Likely misconception" in block:
                missing.append(f"{assignment}/{student}/{cell_id}: {block!r}")
            seen += 1
    assert missing == [] and seen > 0


def test_every_passing_check_is_shown_as_passed(graded_corpus):  # noqa: F811
    wrong = []
    for assignment, student, expected, page in graded_pages(graded_corpus):
        checks, blocks = _checks(graded_corpus, assignment), verdict_blocks(page)
        for cell_id, want in expected.items():
            if not want.diagnosis and not blocks.get(checks[cell_id], "").startswith("✓ "):
                wrong.append(f"{assignment}/{student}/{cell_id}")
    assert wrong == []


def test_no_page_shows_hidden_test_source(graded_corpus):  # noqa: F811
    leaks = []
    for assignment, student, _, page in graded_pages(graded_corpus):
        html = page.read_text(encoding="utf-8")
        leaks += [f"{assignment}/{student}: {marker}" for marker in HIDDEN_MARKERS if marker in html]
    assert leaks == []


def _quiz_values(name: str, student: str) -> list[str]:
    """How a quiz answer's value for ``student``'s numbers would be printed, for every non-integer entry."""
    reference = get_check(name).expected_value(numbers_for(student)[name])
    if isinstance(reference, str):
        return []
    values = np.atleast_1d(np.asarray(reference, dtype=float))
    return [f"{v:.4g}" for v in values if v != round(v)]  # integers such as 8 appear in any text


def text_without_student_outputs(path) -> str:
    """The page's text without what the student's own code printed (their outputs may hold any number)."""
    soup = BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")
    for pre in soup.find_all("pre"):
        if pre.get_text()[:2] not in ("✓ ", "✗ ") and pre.find_parent(class_=("output_area", "jp-OutputArea")) is not None:
            pre.decompose()
    return soup.get_text()


def test_no_page_shows_a_quiz_answer_the_student_did_not_write(graded_corpus):  # noqa: F811
    leaks = []
    for assignment, student, _, page in graded_pages(graded_corpus):
        text = text_without_student_outputs(page)
        handed_in = graded_corpus.course.submitted_notebook(student, assignment).read_text(encoding="utf-8")
        for name in _checks(graded_corpus, assignment).values():
            if get_check(name).kind != "value":
                continue
            leaks += [f"{assignment}/{student}: {name} = {value}" for value in _quiz_values(name, student)
                      if value in text and value not in handed_in]
    assert leaks == []


def test_a_very_long_output_is_cut_short_on_the_feedback_page(graded_corpus):  # noqa: F811
    submission = get_submission("02_softmax", "long_output")
    page = graded_corpus.course.feedback_page(submission.name, submission.assignment)
    assert "Output truncated" in page_text(page)
    assert page.stat().st_size < 3_000_000
