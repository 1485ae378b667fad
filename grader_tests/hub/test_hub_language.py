"""A student chooses Chinese on the course hub and reads the course in Chinese, in a real browser.

A student who has never logged in (``course_hub.student(3)``; the roster gives nobody a language, the
course's default is English) signs in and lands on the English course page; follows its language
link to the hub's language page, chooses 简体中文 and saves. The hub restarts the student's server
and shows the course page again, in Chinese. The student fetches 02_softmax (获取), opens the
notebook (its prose in Chinese), writes the softmax without the max subtraction and runs it (the
visible test fails, its message in Chinese), saves, hands it in (提交) and opens the feedback: a
Chinese page naming the missing max subtraction and the lesson section. Screenshots go to the test
artefacts (``chinese-student/``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import nbformat
import pytest
from accessibility import axe_installed, axe_violations, blocking, described  # noqa: F401
from hub_browser import HubUser
from hub_course_page import CoursePageWalk
from hub_session import ASSIGNMENT, NOTEBOOK
from hub_student_path import run_wrong_softmax, softmax_row

from grader.checks.misconceptions import wrong_answers
from grader.hub.language_page import PAGE_PATH, PAGE_POLICY
from grader.language.catalogue import translate
from grader.language.student_language import read_student_languages
from grader.state_folders import STATE_DIR_NAME
from notebook_language.cells import is_prose

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("course_hub")]

CHINESE = re.compile(r"[\u4e00-\u9fff]")
VISIBLE_TEST_MESSAGE = "很大的 logits 不得产生 nan 或 inf"  # "large logits must not give nan or inf", as zh says it


@dataclass
class ChineseWalk:
    """What the student saw."""

    first_course_lang: str = ""
    language_page_text: str = ""
    language_page_violations: list[dict] = field(default_factory=list)
    language_page_policy: str = ""
    course_lang: str = ""
    course_text: str = ""
    notebook_prose: str = ""
    test_output: str = ""
    feedback_lang: str = ""
    feedback: dict = field(default_factory=dict)


def _lang(page) -> str:
    return page.evaluate("() => document.documentElement.lang")


@pytest.fixture(scope="module")
def chinese_walk(course_hub, browser, hub_artefacts, axe_installed) -> ChineseWalk:
    seen = ChineseWalk()
    user = HubUser(browser, course_hub.url, course_hub.student(3), hub_artefacts / "chinese-student")
    walker = CoursePageWalk(user)
    page = user.page
    try:
        user.sign_in()
        page.locator(f"#assignment-{ASSIGNMENT}").wait_for()
        seen.first_course_lang = _lang(page)
        with page.expect_response(lambda r: r.url.endswith(f"/hub/{PAGE_PATH}") and r.request.method == "GET") \
                as answer:
            page.locator("a.language").click()
        seen.language_page_policy = answer.value.headers.get("content-security-policy", "")
        page.locator('input[name="language"][value="zh"]').wait_for()
        seen.language_page_text = page.locator("main").inner_text()
        seen.language_page_violations = axe_violations(browser, page.url, signed_in_as=user.context)
        user.shot("01-language-page")
        page.locator('input[name="language"][value="zh"]').check()
        page.locator("button.save").click()
        user.wait_for_first_screen()
        page.locator(f"#assignment-{ASSIGNMENT} button.fetch").wait_for()
        seen.course_lang, seen.course_text = _lang(page), page.locator("main").inner_text()
        user.shot("02-course-page-in-chinese")

        with walker.step("fetch"):
            walker.click(page.locator(f"#assignment-{ASSIGNMENT} button.fetch"))
            page.locator(f"#assignment-{ASSIGNMENT} a.notebook").wait_for()
        with walker.step("open notebook"):
            walker.lab = walker.click_link_to_window(page.locator(f"#assignment-{ASSIGNMENT} a.notebook"), None)
            walker.lab.locator(".jp-NotebookPanel:visible .jp-Notebook-cell").first.wait_for(timeout=240_000)
        lab = walker.lab_user()
        # What the fetch delivered, as the file in the student's home (JupyterLab renders cells lazily).
        fetched = nbformat.read(course_hub.layout.home(user.account.name) / ASSIGNMENT / NOTEBOOK, as_version=4)
        seen.notebook_prose = "\n".join(cell.source for cell in fetched.cells if is_prose(cell))
        test_cell = run_wrong_softmax(lab)
        seen.test_output = test_cell.locator(".jp-OutputArea").first.text_content()
        lab.save()
        test_cell.locator(".jp-OutputArea").first.evaluate("area => area.scrollIntoView({block: 'end'})")
        lab.shot("03-visible-test-in-chinese")

        with walker.step("open list"):
            walker.switch_to(page)
        with walker.step("submit"):
            walker.click(page.locator(f"#assignment-{ASSIGNMENT} button.submit"))
            walker.wait_for_feedback_links(ASSIGNMENT, 1)
        with walker.step("open feedback"):
            newest = walker.handin_rows(ASSIGNMENT).first.locator("a.feedback")
            walker.feedback = walker.click_link_to_window(newest, None)
        seen.feedback = walker.read_feedback()
        seen.feedback_lang = _lang(walker.feedback)
        walker.feedback.screenshot(path=str(user.artefacts / "04-feedback-in-chinese.png"))
    except BaseException:
        user.keep_evidence(course_hub.logs)
        raise
    finally:
        user.close()
    return seen


def test_a_student_the_roster_gives_no_language_first_sees_the_course_in_the_courses_default(chinese_walk):
    assert chinese_walk.first_course_lang == "en"


def test_the_hubs_language_page_offers_the_courses_languages_in_both_languages(chinese_walk):
    text = chinese_walk.language_page_text
    assert "English" in text and "简体中文" in text and "Save and restart" in text and "保存并重启" in text


def test_the_hubs_language_page_runs_no_script_and_posts_only_to_the_hub(chinese_walk):
    assert chinese_walk.language_page_policy == PAGE_POLICY


def test_the_hubs_language_page_has_no_serious_accessibility_violation(chinese_walk):
    found = blocking(chinese_walk.language_page_violations)
    assert not found, described(found)


def test_after_choosing_chinese_the_course_page_is_in_chinese(chinese_walk):
    assert chinese_walk.course_lang == "zh-Hans"
    assert "你的课程" in chinese_walk.course_text and "获取" in chinese_walk.course_text


def test_the_choice_is_recorded_where_the_grading_side_reads_the_students_language(chinese_walk, course_hub):
    recorded = read_student_languages(course_hub.layout.course / STATE_DIR_NAME)
    assert recorded.get(course_hub.student(3).name) == "zh"


def test_the_notebook_fetched_after_the_choice_is_in_chinese(chinese_walk):
    assert CHINESE.search(chinese_walk.notebook_prose) and "Part 1" not in chinese_walk.notebook_prose


def test_the_failing_visible_test_says_its_message_in_chinese(chinese_walk):
    # The traceback quotes the test's source line, in English as released; the error itself is said in Chinese.
    assert f"AssertionError: {VISIBLE_TEST_MESSAGE}" in chinese_walk.test_output
    assert "AssertionError: large logits must not give nan or inf" not in chinese_walk.test_output


def test_the_feedback_page_diagnoses_the_missing_max_subtraction_in_chinese_naming_the_lesson(chinese_walk):
    overflow = next(m for m in wrong_answers("softmax") if m.name == "no max subtraction")
    assert chinese_walk.feedback_lang == "zh-Hans"
    assert translate(overflow.name, "zh") in softmax_row(chinese_walk.feedback)[2]
    assert overflow.lesson in chinese_walk.feedback["text"]
    assert overflow.explanation not in chinese_walk.feedback["text"]
