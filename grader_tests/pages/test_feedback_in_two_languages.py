"""A student whose roster language is Chinese reads the same verdicts in Chinese: same scores, a
Chinese diagnosis naming the lesson section, a page marked as Chinese; English students' pages
are unchanged."""
from __future__ import annotations

import html
import re
import shutil

import pytest
from accessibility import axe_installed, axe_violations, blocking, described  # noqa: F401
from nbgrader.api import Gradebook

from grader.checks.misconceptions import wrong_answers
from grader.course import Course
from grader.demo.corpus import get_submission, hand_in
from grader.grading import nbgrader_apps
from grader.grading.grade_one import grade_one
from grader.language.catalogue import translate
from grader.language.student_language import save_student_languages

pytestmark = pytest.mark.slow

SUBMISSION = "softmax_no_max_subtraction"
OVERFLOW = next(m for m in wrong_answers("softmax") if m.name == "no max subtraction")


@pytest.fixture(scope="module")
def pages(released_course_template, tmp_path_factory):
    """(score, feedback page) of the same wrong softmax handed in by a Chinese and an English student."""
    course = Course(tmp_path_factory.mktemp("languages") / "course")
    shutil.copytree(released_course_template.root, course.root)
    save_student_languages(course.state_dir, {"li": "zh"})
    found = {}
    for student in ("li", "ada"):
        hand_in(course, student, get_submission("02_softmax", SUBMISSION))
        assert grade_one(str(course.root), "02_softmax", student).graded
        assert nbgrader_apps.generate_feedback_warm(course, "02_softmax", student)["success"]
        with Gradebook(course.db_url) as gb:
            score = gb.find_submission("02_softmax", student).score
        found[student] = (score, course.feedback_page(student, "02_softmax"))
    return found


def _text(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def _page(pages, student: str) -> str:
    return pages[student][1].read_text(encoding="utf-8")


def test_the_same_code_scores_the_same_in_both_languages(pages):
    assert pages["li"][0] == pages["ada"][0] < 21


def test_a_chinese_student_reads_the_diagnosis_in_chinese_with_its_lesson_section(pages):
    text = _text(_page(pages, "li"))
    diagnosis = translate(OVERFLOW.explanation, "zh")
    assert diagnosis != OVERFLOW.explanation and diagnosis in text
    assert f"{translate(OVERFLOW.name, 'zh')}：{diagnosis}" in text and OVERFLOW.lesson in text
    assert OVERFLOW.explanation not in text


def test_a_chinese_page_says_its_headings_in_chinese_and_is_marked_as_chinese(pages):
    page = _page(pages, "li")
    assert '<html lang="zh-Hans"' in page
    text = _text(page)
    for message in ("Summary", "Fix first:", "Your answer", "Test cell"):
        assert translate(message, "zh") in text, message
    assert "Fix first:" not in text and "Likely misconception" not in text and "hidden test case" not in text


def test_each_page_shows_the_students_own_numbers_in_its_language(pages):
    assert "你的数字（学号 'li'）" in _text(_page(pages, "li"))
    assert "Your numbers (student id 'ada')" in _text(_page(pages, "ada"))


def test_an_english_student_page_is_unchanged(pages):
    page = _page(pages, "ada")
    assert '<html lang="en"' in page
    text = _text(page)
    assert f"no max subtraction: {OVERFLOW.explanation} (reread {OVERFLOW.lesson})" in text
    assert "Fix first:" in text and translate("Summary", "zh") not in text


def test_a_chinese_page_has_no_serious_accessibility_violation(pages, browser, axe_installed):  # noqa: F811
    found = blocking(axe_violations(browser, pages["li"][1]))
    assert found == [], described(found)
