"""Status and refusal pages are in the student's language: the page's own words, the service's
messages and each refusal code's sentence are translated; the exact reason the grader recorded
follows, said in the page's language with its quoted values as they are when the engine's catalogue
knows its words, else in English marked ``lang="en"``; English pages are as before."""
from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from grader.grading.admission import CODES, MOVED_OUT
from grader.grading.grade_one import grade_one
from grader.grading.status_page import status_page, ungradable_page
from grader.language.catalogue import translate
from grader.language.student_language import reading_language, save_student_languages
from grader.language.text_patterns import page_translator
from grader.service.pages import status_page_of
from grader.service.status_messages import HOURLY_LIMIT, SUPERSEDED

REASON = "softmax.ipynb has 2101 cells, more than the 2000 this course grades; start again from the released notebook."
HOSTILE = "<script>alert(1)</script>"


def _soup(page: str) -> BeautifulSoup:
    return BeautifulSoup(page, "html.parser")


def test_an_english_refusal_page_shows_the_recorded_reason_once_and_nothing_marked_as_translated():
    soup = _soup(ungradable_page("02_softmax", REASON, code="too-many-cells"))
    assert soup.html["lang"] == "en"
    assert [p.get_text() for p in soup.select("p.reason")] == [REASON]
    assert soup.find(lang="en") is soup.html


def test_a_chinese_refusal_page_gives_the_codes_sentence_then_the_recorded_reason_in_chinese():
    soup = _soup(ungradable_page("02_softmax", REASON, student="ada", handed_in="2026-03-01 10:00 UTC",
                                 language="zh", code="too-many-cells"))
    assert soup.html["lang"] == "zh-Hans"
    reasons = soup.select("p.reason")
    assert reasons[0].get_text() == translate(CODES["too-many-cells"].student_summary, "zh") != \
        CODES["too-many-cells"].student_summary
    assert (reasons[1].get_text(), reasons[1].get("lang")) == (
        "softmax.ipynb 有 2101 个单元格，超过了本课程评分的上限 2000；请从发布的笔记本重新开始。", "zh-Hans")
    assert [h.get_text() for h in soup.find_all("h2")] == ["原因", "怎么办"]
    assert soup.find("p").get_text() == "学生 ada，作业 02_softmax，提交于 2026-03-01 10:00 UTC。"


def test_a_recorded_reason_the_catalogue_does_not_know_follows_in_english_marked_as_english():
    reason = "nbgrader could not convert the notebook: KeyError 'cells'"
    soup = _soup(ungradable_page("02_softmax", reason, language="zh", code="grading-failed"))
    (recorded,) = [p for p in soup.select("p.reason") if p.get("lang") == "en"]
    assert recorded.get_text() == reason
    assert recorded.find_previous("p").get_text() == translate("The reason as the grader recorded it (in English):", "zh")


def test_a_reason_with_a_moved_out_entry_is_said_in_chinese_in_both_of_its_parts():
    reason = MOVED_OUT.format(reason=REASON, entries="data.bin: a symbolic link")
    soup = _soup(ungradable_page("02_softmax", reason, language="zh", code="too-many-cells"))
    said = soup.select("p.reason")[1].get_text()
    assert said.startswith("softmax.ipynb 有 2101 个单元格") and said.endswith("已移出提交文件夹：data.bin: a symbolic link。")


def test_a_chinese_service_page_fills_its_values_into_the_translated_message():
    page = status_page_of("ada", "02_softmax", "2026-03-01 10:00 UTC", "waiting to be graded", HOURLY_LIMIT,
                          "nothing; fetch feedback again after the due date.", waiting=True, language="zh",
                          values={"limit": 3, "at": "2026-03-01 11:00 UTC"})
    soup = _soup(page)
    assert soup.select_one("p.reason").get_text() == translate(HOURLY_LIMIT, "zh", limit=3, at="2026-03-01 11:00 UTC")
    assert "3" in soup.select_one("p.reason").get_text() and "等待评分" in soup.title.get_text()


def test_an_english_service_page_says_the_message_with_its_values():
    page = status_page_of("ada", "02_softmax", "2026-03-01 10:00 UTC", "superseded", SUPERSEDED, "wait.",
                          values={"count": 7, "latest": "2026-03-01 10:05 UTC"})
    assert _soup(page).select_one("p.reason").get_text() == SUPERSEDED.format(count=7, latest="2026-03-01 10:05 UTC")


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_hostile_reason_is_escaped_in_both_languages(language):
    page = status_page("02_softmax", "refused", HOSTILE, "hand in again", language=language,
                       recorded_reason=HOSTILE)
    assert HOSTILE not in page and "&lt;script&gt;" in page


@pytest.mark.slow
def test_a_roster_chinese_student_gets_the_ungradable_page_in_chinese_with_the_same_zero(course):
    save_student_languages(course.state_dir, {"mei": "zh"})
    for student in ("mei", "tom"):
        folder = course.root / "submitted" / student / "02_softmax"
        folder.mkdir(parents=True)
        (folder / "softmax.ipynb").write_text('{"cells": [', encoding="utf-8")
    outcomes = {s: grade_one(str(course.root), "02_softmax", s) for s in ("mei", "tom")}
    assert {s: (o.graded, o.code) for s, o in outcomes.items()} == {
        "mei": (False, "notebook-unreadable"), "tom": (False, "notebook-unreadable")}
    assert (reading_language(course, "mei"), reading_language(course, "tom")) == ("zh", "en")
    mei = _soup(course.feedback_page("mei", "02_softmax").read_text(encoding="utf-8"))
    tom = _soup(course.feedback_page("tom", "02_softmax").read_text(encoding="utf-8"))
    assert mei.html["lang"] == "zh-Hans" and tom.html["lang"] == "en"
    assert mei.select_one("p.reason").get_text() == translate(CODES["notebook-unreadable"].student_summary, "zh")
    assert tom.select_one("p.reason").get_text() == outcomes["tom"].reason == outcomes["mei"].reason
    said = mei.select("p.reason")[1].get_text()
    assert said == page_translator(None, "zh")(outcomes["mei"].reason) != outcomes["mei"].reason
    assert said.startswith("softmax.ipynb 不是可读的笔记本：")
