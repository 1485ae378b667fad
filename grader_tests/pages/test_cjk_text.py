"""Chinese text (lesson titles, tags such as "方差证明", students' own notes) is drawn with real
glyphs in the report's figures and in every page, never as missing-glyph boxes.

Figures: matplotlib warns "Glyph ... missing from font(s)" for every character its font family
lacks. Pages: a headless Chromium renders, with the page's own fonts and under its
Content-Security-Policy, each character of the string and a code point that no font has
(U+0378, unassigned); a character drawn as a box looks exactly like that code point, and two
different characters drawn as boxes look the same.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
import warnings

import nbformat
import pytest
from nbformat.v4 import new_markdown_cell

from grader.checks.misconceptions import KNOWN_WRONG_ANSWERS
from grader.course import Course
from grader.demo.corpus import build_notebook, get_submission, write_submission
from grader.fonts import figure_font_family
from grader.grading.status_page import ungradable_page
from grader.reporting import figures
from grader.reporting.analysis import assignment_summary
from grader.reporting.class_report import ClassReport, StudentResult
from grader.reporting.html_page import render_page
from grader.service.pages import status_page_of

TAG = "方差证明"
NO_GLYPH_ANYWHERE = "\u0378"
LESSON_TAGS = sorted({m.lesson for entries in KNOWN_WRONG_ANSWERS.values() for m in entries
                      if any("\u4e00" <= ch <= "\u9fff" for ch in m.lesson)})
STUDENT_NOTES = f"## 我的笔记：{TAG}\n\n点积的方差随维度增长。"


def test_the_lessons_cite_chinese_tags():
    assert any(TAG in tag for tag in LESSON_TAGS)


def test_report_figures_draw_every_chinese_lesson_tag_with_real_glyphs():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        figures.pass_rates([(tag, 1, 2) for tag in LESSON_TAGS], title=f"Blog {TAG}")
    missing = [str(w.message) for w in caught if "missing from font" in str(w.message)]
    assert missing == [] and len(figure_font_family()) == 2


# ---- pages in a browser -------------------------------------------------------------------------

GLYPH_PROBES = """([needle, characters]) => {
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    let node;
    while ((node = walker.nextNode()) && !node.textContent.includes(needle)) {}
    if (!node) return false;
    characters.forEach((character, index) => {
        const probe = document.createElement('div');
        probe.textContent = character;
        probe.dataset.glyphProbe = String(index);
        probe.style.cssText = 'position:absolute; left:0; top:' + (index * 60) + 'px; line-height:1;' +
            'white-space:pre; background:#fff; color:#000; padding:4px';
        node.parentElement.appendChild(probe);  // inherits the fonts of the text that holds the needle
    });
    return true;
}"""


def rendered_characters(browser, path, needle: str, characters: list[str]) -> list[bytes]:
    """Screenshots (PNG bytes) of each character, drawn with the fonts of the text holding needle."""
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(path.resolve().as_uri(), wait_until="load")
        assert page.evaluate(GLYPH_PROBES, [needle, characters]), f"{needle!r} is not on the page"
        return [page.locator(f'[data-glyph-probe="{index}"]').screenshot()
                for index in range(len(characters))]
    finally:
        context.close()


def assert_drawn_with_glyphs(browser, path, needle: str = TAG):
    characters = sorted(set(needle))[:3]
    *drawn, box = rendered_characters(browser, path, needle, characters + [NO_GLYPH_ANYWHERE])
    assert all(image != box for image in drawn), f"{needle!r} is drawn as missing-glyph boxes"
    assert len(set(drawn)) == len(drawn), f"different characters of {needle!r} look the same"


@pytest.fixture(scope="module")
def graded_notes(released_course_template, tmp_path_factory):
    """A 01_variance model answer with the student's notes in Chinese, graded and given feedback
    by plain nbgrader with the course config."""
    root = tmp_path_factory.mktemp("cjk") / "course"
    shutil.copytree(released_course_template.root, root)
    course = Course(root)
    release = nbformat.read(course.release_notebook("01_variance"), as_version=4)
    source = nbformat.read(course.source_notebook("01_variance"), as_version=4)
    notebook = build_notebook(get_submission("01_variance", "model_answer"), release, source)
    notebook.cells.insert(1, new_markdown_cell(STUDENT_NOTES))
    write_submission(course, "notes", "01_variance", notebook)
    for command in (["autograde", "01_variance", "--create", "--force"],
                    ["generate_feedback", "01_variance", "--force"]):
        run = subprocess.run([sys.executable, "-m", "nbgrader", *command], cwd=root,
                             capture_output=True, text=True, timeout=900)
        assert run.returncode == 0, run.stderr[-2000:]
    return course.feedback_page("notes", "01_variance")


@pytest.mark.slow
def test_a_feedback_page_draws_the_students_chinese_notes_with_real_glyphs(graded_notes, browser):  # noqa: F811
    assert_drawn_with_glyphs(browser, graded_notes, f"我的笔记：{TAG}")  # the notes, not the course's folded text


@pytest.mark.slow
def test_the_grading_table_of_a_feedback_page_has_padded_cells(graded_notes, browser):  # noqa: F811
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(graded_notes.resolve().as_uri(), wait_until="load")
        padding = page.evaluate("""() => [...document.querySelectorAll('details')].forEach(d => d.open = true)
            || [...document.querySelectorAll('div.text_cell_render table td')]
            .filter(td => td.closest('table.feedback-summary') === null)
            .map(td => parseFloat(getComputedStyle(td).paddingLeft))""")
    finally:
        context.close()
    assert padding and min(padding) >= 4


@pytest.mark.slow
def test_the_class_report_draws_a_chinese_lesson_tag_with_real_glyphs(browser, tmp_path):  # noqa: F811
    holds_it = next(name for name, entries in KNOWN_WRONG_ANSWERS.items()
                    if any(TAG in m.lesson for m in entries))
    misconception = next(m.name for m in KNOWN_WRONG_ANSWERS[holds_it] if TAG in m.lesson)
    report = ClassReport("01_variance", [
        StudentResult("ada", 10.0, 10.0, "graded", {holds_it: {"check": holds_it, "fraction": 1.0}}),
        StudentResult("bo", 5.0, 10.0, "graded", {holds_it: {"check": holds_it, "fraction": 0.0,
                                                             "stage": "inaccurate",
                                                             "misconception": misconception}}),
    ])
    page = tmp_path / "report.html"
    page.write_text(render_page([assignment_summary(report, [], {})]), encoding="utf-8")
    assert_drawn_with_glyphs(browser, page)


@pytest.mark.slow
def test_the_ungradable_page_draws_chinese_text_with_real_glyphs(browser, tmp_path):  # noqa: F811
    page = tmp_path / "ungradable.html"
    page.write_text(ungradable_page("01_variance", f"the notebook {TAG}.ipynb is not a notebook"),
                    encoding="utf-8")
    assert_drawn_with_glyphs(browser, page)


@pytest.mark.slow
def test_the_service_status_page_draws_chinese_text_with_real_glyphs(browser, tmp_path):  # noqa: F811
    page = tmp_path / "status.html"
    page.write_text(status_page_of("ada", "01_variance", "2026-12-01 10:00 UTC", "received",
                           f"your notes on {TAG} were received", "wait"), encoding="utf-8")
    assert_drawn_with_glyphs(browser, page)
