"""The feedback page: a summary of every check on top, tidy graded outputs, text that wraps, and a page for ungradable work."""
from __future__ import annotations

import html
import re
import subprocess
import sys

import nbformat
import pytest
from browser import open_page  # the browser fixtures come from conftest.py
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from grader.checks.api import CaseVerdict, Misconception, Verdict
from grader.checks.common import LESSONS_NUMBERS, LESSONS_NUMBERS_EXPLANATION
from grader.checks.misconceptions import wrong_answers
from grader.course import load_config
from grader.demo.corpus import get_submission, hand_in
from grader.grading.grade_one import grade_one
from grader.grading.preprocessors.decide_verdicts import verdict_outputs
from grader.grading.preprocessors.feedback_page import (
    CALLS_A_STUB_NOTE,
    NO_RESPONSE_COMMENT,
    NOT_ATTEMPTED_NOTE,
    PAGE_CSS,
    PAGE_KEY,
    FeedbackPage,
    assignment_title,
    misconception_line,
)
from grader.grading.status_page import WHAT_TO_DO, ungradable_page
from grader.language.catalogue import translate

HOSTILE = '<script>alert("x")</script>'


def _graded_cell(verdict: Verdict, points: float) -> nbformat.NotebookNode:
    """A test cell as GetGrades leaves it: the grader's outputs, and its score from the gradebook."""
    score = round(points * verdict.fraction, 2)
    cell = new_code_cell(f'from grader.probe import probe\nprobe("{verdict.check}")', metadata={"nbgrader": {"grade": True, "solution": False, "points": points,
                                                         "score": score, "grade_id": f"test_{verdict.check}"}})
    cell.outputs = verdict_outputs(verdict, points)
    return cell


def _failed(check: str, fraction: float, problem: str, misconception: Misconception | None = None) -> Verdict:
    """A verdict whose first problem is ``problem``, "<stage> — on <case>: <detail>" or "<stage> — <detail>"."""
    stage, rest = problem.split(" — ", 1)
    case, detail = rest[3:].split(": ", 1) if rest.startswith("on ") else (None, rest)
    cases = [CaseVerdict("a case", 1.0, None), CaseVerdict(case or "another case", 1.0, stage, detail)]
    verdict = Verdict(check, fraction, cases, detail=detail, misconception=misconception, stage=stage, case=case)
    assert case is None or verdict.problem == problem
    return verdict


def _page(*cells) -> tuple[nbformat.NotebookNode, dict]:
    return FeedbackPage().preprocess(new_notebook(cells=list(cells)), {"inlining": {"css": ["base"]}})


def _summary(nb) -> str:
    return nb.cells[0].source


WRONG_AXIS = Misconception("wrong axis", "your softmax normalises over the first axis", "L3 §3", None)


def test_the_summary_names_every_check_with_its_score():
    nb, _ = _page(_graded_cell(Verdict("softmax", 1.0, [CaseVerdict("c", 1.0, None)]), 4),
                  _graded_cell(_failed("entropy", 0.5, "inaccurate — on a case: off"), 3))
    summary = _summary(nb)
    assert "<code>softmax</code>" in summary and "4 / 4" in summary and "passed" in summary
    assert "<code>entropy</code>" in summary and "1.5 / 3" in summary
    assert "Test cell" not in summary


def test_the_summary_says_to_fix_first_the_first_check_that_lost_points_with_its_misconception():
    overflow = next(m for m in wrong_answers("softmax") if m.name == "no max subtraction")
    nb, _ = _page(_graded_cell(Verdict("entropy", 1.0, [CaseVerdict("c", 1.0, None)]), 4),
                  _graded_cell(_failed("softmax", 0.5, "not finite — on a case: nan", overflow), 3),
                  _graded_cell(_failed("score_gradient", 0.5, "inaccurate — on a case: off"), 3))
    fix_first = html.unescape(_summary(nb).split("</p>")[0])
    assert "Fix first" in fix_first and "<code>softmax</code>" in fix_first
    assert f"no max subtraction: {overflow.explanation} (reread {overflow.lesson})" in fix_first


def test_the_summary_takes_the_first_problem_from_the_verdict_record_not_from_the_cells_text():
    cell = _graded_cell(_failed("softmax", 0.5, "inaccurate — on a case: off"), 4)
    shown = cell.outputs[0].data["text/plain"]
    cell.outputs[0].data["text/plain"] = shown.replace("First problem: inaccurate", "First problem: forged")
    summary = _summary(_page(cell)[0])
    assert "inaccurate — on a case: off" in summary and "forged" not in summary


def test_a_chinese_summary_says_the_first_problem_from_the_records_parts_keeping_a_label_no_course_translates():
    cell = _graded_cell(_failed("softmax", 0.5, "wrong shape — on an empty array: the value you returned has shape (3,), "
                                "which is not the shape the contract asks for here."), 4)
    nb, _ = FeedbackPage(feedback_language="zh").preprocess(new_notebook(cells=[cell]), {"inlining": {"css": ["base"]}})
    said = html.unescape(_summary(nb))
    assert "形状错误——在「an empty array」上：你返回的值的形状是 (3,)，不是这里约定要求的形状。" in said
    assert "第一个问题：形状错误——在「an empty array」上" in cell.outputs[0].data["text/plain"]


def test_a_misconception_the_check_does_not_name_is_not_shown():
    unknown = Misconception("a mistake no checks file names", "it is not the course's", "L3 §3", None)
    nb, _ = _page(_graded_cell(_failed("softmax", 0.5, "inaccurate — on a case: off", unknown), 4))
    assert "no checks file names" not in _summary(nb) and "inaccurate — on a case: off" in _summary(nb)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_quiz_answer_for_the_lessons_numbers_is_named_in_the_page_language(language):
    line = misconception_line("answer_std_ratio", LESSONS_NUMBERS, language)
    assert translate(LESSONS_NUMBERS_EXPLANATION, language) in line and "L3 §1" in line


def test_a_page_where_every_check_passed_says_so():
    nb, _ = _page(_graded_cell(Verdict("softmax", 1.0, [CaseVerdict("c", 1.0, None)]), 4))
    assert "Every check passed" in _summary(nb) and "Fix first" not in _summary(nb)


def test_text_from_the_submission_is_escaped_in_the_summary():
    nb, _ = _page(_graded_cell(_failed("softmax", 0.5, f"raised an error — on a case: your function raised "
                                                       f"ValueError: {HOSTILE}"), 4))
    assert HOSTILE not in _summary(nb) and "&lt;script&gt;" in _summary(nb)


def test_a_graded_cell_keeps_its_verdict_text_but_not_the_bare_number_or_the_zero_score_error():
    partial = _graded_cell(_failed("softmax", 0.5, "inaccurate — on a case: off"), 4)
    zero = _graded_cell(_failed("entropy", 0.0, "inaccurate — on a case: off"), 3)
    assert {o.output_type for o in partial.outputs + zero.outputs} == {"display_data", "execute_result", "error"}
    nb, _ = _page(partial, zero)
    for cell in nb.cells[1:]:
        assert [o.output_type for o in cell.outputs] == ["display_data"]
        assert cell.outputs[0].data["text/plain"].startswith("✗ ")


def test_an_untouched_stub_shows_one_plain_line_instead_of_a_traceback():
    stub = new_code_cell("raise NotImplementedError()", metadata={"nbgrader": {"solution": True, "grade": False,
                                                                               "grade_id": "answer_x"}})
    stub.outputs = [new_output("error", ename="NotImplementedError", evalue="",
                               traceback=["\x1b[0;31mNotImplementedError\x1b[0m Traceback (most recent call last)"])]
    figure = new_code_cell("plot(saturation_experiment(64, 64, 100, 8.0, rng))")
    figure.outputs = [new_output("error", ename="NotImplementedError", evalue="", traceback=stub.outputs[0].traceback)]
    nb, _ = _page(stub, figure)  # no hidden checks: no summary cell before them
    assert [o.get("text") for o in nb.cells[0].outputs] == [NOT_ATTEMPTED_NOTE]
    assert [o.get("text") for o in nb.cells[1].outputs] == [CALLS_A_STUB_NOTE]


def test_inline_code_in_what_to_fix_is_shown_as_code_not_backticks():
    nb, _ = _page(_graded_cell(_failed("softmax", 0.5, "wrong type — returned a `list`, not a `numpy.ndarray`"), 4))
    assert "<code>list</code>" in _summary(nb) and "<code>numpy.ndarray</code>" in _summary(nb)
    assert "`" not in _summary(nb)


def test_an_answer_left_as_released_gets_no_no_response_comment():
    answer = new_code_cell("raise NotImplementedError()", metadata={"nbgrader": {
        "solution": True, "grade": False, "grade_id": "softmax", "comment": NO_RESPONSE_COMMENT}})
    written = new_code_cell("x = 1", metadata={"nbgrader": {
        "solution": True, "grade": False, "grade_id": "entropy", "comment": "Well done."}})
    nb, _ = _page(answer, written)
    assert nb.cells[0].metadata.nbgrader["comment"] is None
    assert nb.cells[1].metadata.nbgrader["comment"] == "Well done."


def test_only_an_answer_whose_check_passed_is_marked_to_be_folded():
    def answer(name):
        return new_code_cell(f"def {name}(x): ...", metadata={"nbgrader": {"solution": True, "grade": False,
                                                                          "grade_id": name}})
    nb, _ = _page(answer("softmax"), _graded_cell(Verdict("softmax", 1.0, [CaseVerdict("c", 1.0, None)]), 4),
                  answer("entropy"), _graded_cell(_failed("entropy", 0.5, "inaccurate — on a case: off"), 3))
    marked = {cell.metadata.nbgrader["grade_id"] for cell in nb.cells if PAGE_KEY in cell.metadata}
    assert marked == {"softmax"}


def test_the_page_css_makes_verdict_text_wrap_and_leaves_nbgrader_s_score_index_shown():
    _, resources = _page()
    assert resources["inlining"]["css"] == ["base", PAGE_CSS]
    assert "white-space: pre-wrap" in PAGE_CSS and "div#toc" not in PAGE_CSS


def test_a_notebook_without_hidden_checks_gets_no_summary_heading():
    nb, _ = _page(new_code_cell("x = 1"))
    assert [cell.source for cell in nb.cells] == ["x = 1"]


def test_the_assignment_title_is_the_first_heading_of_the_released_notebook():
    released = new_notebook(cells=[new_markdown_cell("# Assignment 02 — Softmax at σ = 8\n\nSome text."),
                                   new_markdown_cell("# A later heading")])
    assert assignment_title(released) == "Assignment 02 — Softmax at σ = 8"


def test_a_release_without_a_leading_heading_gives_no_title():
    assert assignment_title(new_notebook(cells=[new_markdown_cell("Text first.\n# Heading")])) == ""
    assert assignment_title(None) == ""


def _numbers_cell(printed: str) -> nbformat.NotebookNode:
    cell = new_code_cell("my_numbers = ...", metadata={"nbgrader": {"grade": False, "solution": False, "locked": True,
                                                                    "grade_id": "my_numbers"}})
    cell.outputs = [new_output("stream", name="stdout", text=printed)]
    return cell


@pytest.mark.parametrize("language, heading", [("en", "Your numbers (student id 'ada')"), ("zh", "你的数字（学号 'ada'）")])
def test_the_numbers_cell_shows_the_grading_sides_numbers_in_the_page_language(language, heading):
    from solutions.variants import numbers_for

    resources = {"inlining": {"css": []}, "nbgrader": {"student": "ada", "assignment": "03_readout"}}
    nb, _ = FeedbackPage(feedback_language=language).preprocess(
        new_notebook(cells=[_numbers_cell("Your numbers: beta = 1000 (printed by the kernel)\n")]), resources)
    printed = nb.cells[0].outputs[0]["text"]
    assert printed.startswith(heading) and "1000" not in printed
    assert f"beta = {numbers_for('ada', '03_readout')['answer_ab_ratio']['beta']:g}" in printed


def test_the_course_config_builds_this_page_with_plain_nbgrader_generate_feedback(course):
    assert FeedbackPage in load_config(course).GenerateFeedback.preprocessors


def test_the_ungradable_page_gives_the_reason_escaped_and_what_to_do():
    page = ungradable_page("01_variance", f"variance.ipynb is not a readable notebook {HOSTILE}")
    assert HOSTILE not in page and "not a readable notebook &lt;script&gt;" in page
    assert "What to do" in page and "submit again" in WHAT_TO_DO and "<script" not in page


def test_grading_an_unreadable_submission_writes_its_feedback_page(course):
    path = course.submitted_notebook("gus", "01_variance")
    path.parent.mkdir(parents=True)
    path.write_text('{"cells": [', encoding="utf-8")
    outcome = grade_one(str(course.root), "01_variance", "gus")
    assert not outcome.graded
    page = course.feedback_page("gus", "01_variance").read_text(encoding="utf-8")
    assert "not a readable notebook" in page and "What to do" in page


# ---- the page in a browser ----------------------------------------------------------------------

@pytest.fixture
def generated_page(course):
    """The page plain ``nbgrader autograde`` + ``generate_feedback`` write for a softmax that overflows."""
    student = "softmax_no_max_subtraction"
    hand_in(course, student, get_submission("02_softmax", student))
    for command in (["autograde", "02_softmax", "--create", "--force"], ["generate_feedback", "02_softmax", "--force"]):
        run = subprocess.run([sys.executable, "-m", "nbgrader", *command], cwd=course.root, capture_output=True,
                             text=True, timeout=900)
        assert run.returncode == 0, run.stderr[-2000:]
    return course.feedback_page(student, "02_softmax")


@pytest.mark.slow
def test_a_generated_page_shows_the_summary_first_and_its_verdicts_wrap(generated_page, browser,  # noqa: F811
                                                                          browser_artefacts):  # noqa: F811
    page = generated_page
    measure = """() => ({
        summaryTop: document.querySelector('div.feedback-summary').getBoundingClientRect().top,
        firstCellTop: document.querySelector('div.nbgrader_cell').getBoundingClientRect().top,
        summaryText: document.querySelector('div.feedback-summary').innerText,
        overflowing: [...document.querySelectorAll('div.output_area pre')]
            .filter(pre => pre.scrollWidth > pre.clientWidth + 1).map(pre => pre.innerText.slice(0, 60)),
        verdicts: [...document.querySelectorAll('div.output_area pre')].filter(pre => /^[✓✗] /.test(pre.innerText)).length,
    })"""
    visit = open_page(browser, page, browser_artefacts / "feedback-page.png", marks_script=f"({measure})()")
    marks = visit.marks
    assert marks["summaryTop"] < marks["firstCellTop"]
    assert "Fix first" in marks["summaryText"] and "no max subtraction" in marks["summaryText"]
    for check in ("softmax", "entropy", "score_gradient", "answer_culprit"):
        assert check in marks["summaryText"]
    assert marks["verdicts"] >= 9 and marks["overflowing"] == []


@pytest.mark.slow
def test_a_figure_on_the_page_fits_a_narrow_window(generated_page, browser, browser_artefacts):  # noqa: F811
    """A 900 px figure in an 800 px window shrinks to its cell: the page needs no sideways scrolling."""
    measure = """() => ({
        figures: [...document.querySelectorAll('div.output_area img')].map(img => ({
            right: img.getBoundingClientRect().right,
            cellRight: img.closest('div.cell').getBoundingClientRect().right,
            ratio: img.getBoundingClientRect().width / img.getBoundingClientRect().height,
            naturalRatio: img.naturalWidth / img.naturalHeight})),
        pageWidth: document.documentElement.scrollWidth, windowWidth: window.innerWidth,
    })"""
    visit = open_page(browser, generated_page, browser_artefacts / "feedback-page-narrow.png",
                      marks_script=f"({measure})()", viewport={"width": 800, "height": 900})
    marks = visit.marks
    assert marks["figures"], "the page shows the notebook's figure"
    for figure in marks["figures"]:
        assert figure["right"] <= figure["cellRight"] + 1
        assert figure["ratio"] == pytest.approx(figure["naturalRatio"], rel=0.02)  # shrunk, not squashed
    assert marks["pageWidth"] <= marks["windowWidth"]


@pytest.mark.slow
def test_a_softmax_page_is_shorter_than_4000_px_at_1440_px_wide(generated_page, browser,  # noqa: F811
                                                                browser_artefacts):  # noqa: F811
    visit = open_page(browser, generated_page, browser_artefacts / "feedback-page-1440.png",
                      marks_script="document.documentElement.scrollHeight", viewport={"width": 1440, "height": 900})
    assert 0 < visit.marks < 4000, f"{visit.marks} px"


@pytest.mark.slow
def test_the_page_header_names_the_assignment_by_its_title_with_the_tables_number_format(generated_page):
    page = generated_page.read_text(encoding="utf-8")
    title = "Assignment 02 — Softmax at σ = 8: saturation, and what really goes wrong"
    assert f'<h1 class="feedback-title">{title}</h1>' in page
    assert re.search(r'<p class="feedback-total">Feedback on 02_softmax: \d+(\.\d+)? / 21</p>', page)
    assert "(Score:" not in page and re.search(r"Score: 2\.67 / 4\b", page)  # each cell's score as the table writes it


@pytest.mark.slow
def test_a_generated_page_has_no_empty_comments_and_no_numbers_derivation(generated_page):
    page = generated_page.read_text(encoding="utf-8")
    assert "No response." not in page
    assert "variant_unit" not in page and "hashlib" not in page  # the derivation lives in course_numbers


@pytest.mark.slow
def test_the_courses_text_and_passed_answers_are_folded_and_failed_answers_open(generated_page, browser):  # noqa: F811
    measure = """() => ({
        open: [...document.querySelectorAll('div.nbgrader_cell')].filter(c => !c.querySelector('details'))
            .map(c => c.innerText.split('\\n')[0]),
        folded: [...document.querySelectorAll('details.passed-answer summary')].map(s => s.innerText),
        courseText: document.querySelectorAll('details.course-text:not([open])').length,
    })"""
    marks = open_page(browser, generated_page, marks_script=f"({measure})()").marks
    assert any("answer_culprit" in text for text in marks["folded"])
    assert not any("softmax:" in text or "score_gradient" in text for text in marks["folded"])
    assert [text for text in marks["open"] if text.startswith("Your answer")] == ["Your answer", "Your answer"]
    assert marks["courseText"] >= 8
