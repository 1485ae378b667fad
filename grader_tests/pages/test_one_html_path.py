"""One HTML path: every page kind the course writes carries the course's Content-Security-Policy
and language from the shared base page, and ``grader check-pages`` proves it on a course."""
from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from feedback_pages import feedback_page
from similarity_pages import hostile_summary as similar_summary

from grader.cli import main as grader_main
from grader.grading.status_page import status_page, ungradable_page
from grader.pages.accessibility import PAGE_LANGUAGE
from grader.pages.csp import CONTENT_SECURITY_POLICY
from grader.pages.scan import missing_csp
from grader.reporting.analysis import assignment_summary
from grader.reporting.class_report import ClassReport, StudentResult
from grader.reporting.html_page import render_page
from grader.service.pages import status_page_of

HOSTILE = "<script>alert(1)</script>"
FEEDBACK = feedback_page("ok")


def _report() -> str:
    summary = assignment_summary(ClassReport("02_softmax", [StudentResult("ada", 1.0, 2.0, "graded", {})]))
    return render_page([summary])


PAGES = {
    "ungradable": lambda: ungradable_page("02_softmax", "not a notebook"),
    "waiting": lambda: status_page_of("ada", "02_softmax", "2026-12-01 09:30:00 UTC", "waiting to be graded",
                                      "in the queue", "nothing", waiting=True),
    "refused": lambda: status_page("not_an_assignment", "refused", "unknown folder", "hand in again"),
    "class report": _report,
    "similarity view": lambda: render_page([similar_summary()]),
    "feedback": lambda: FEEDBACK,
}


@pytest.mark.parametrize("kind", PAGES)
def test_every_page_kind_has_the_course_csp_as_the_first_element_of_its_head(kind):
    head = BeautifulSoup(PAGES[kind](), "html5lib").head
    first = head.find(True)
    assert first.name == "meta" and first["http-equiv"] == "Content-Security-Policy"
    assert first["content"] == CONTENT_SECURITY_POLICY


@pytest.mark.parametrize("kind", PAGES)
def test_every_page_kind_names_the_course_language(kind):
    assert BeautifulSoup(PAGES[kind](), "html5lib").html["lang"] == PAGE_LANGUAGE


@pytest.mark.parametrize("kind", PAGES)
def test_every_page_kind_starts_with_the_doctype(kind):
    assert PAGES[kind]().startswith("<!DOCTYPE html>\n<html lang=")


def test_a_status_page_escapes_a_hostile_headline_detail_and_todo():
    page = status_page("02_softmax", f"refused {HOSTILE}", f"because {HOSTILE}", f"do {HOSTILE}",
                       student=HOSTILE, handed_in=HOSTILE)
    soup = BeautifulSoup(page, "html5lib")
    assert soup.find("script") is None
    assert HOSTILE not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert HOSTILE in soup.find("h1").get_text() and HOSTILE in soup.find(class_="reason").get_text()
    assert HOSTILE in soup.find(class_="todo").get_text()


def test_a_page_without_the_csp_meta_is_missing_it():
    assert missing_csp("<!DOCTYPE html><html><head><title>t</title></head><body></body></html>") != []


def test_a_page_with_another_policy_is_missing_the_course_csp():
    assert missing_csp(FEEDBACK.replace(CONTENT_SECURITY_POLICY.replace("'", "&#39;"), "default-src *", 1)) != []


def test_a_feedback_page_escapes_a_hostile_assignment_title_in_its_title_and_heading():
    page = feedback_page("ok", title=HOSTILE)
    soup = BeautifulSoup(page, "html5lib")
    assert soup.find("script") is None and HOSTILE not in page
    assert soup.title.get_text() == HOSTILE and soup.find("h1").get_text() == HOSTILE


def test_a_feedback_page_is_one_document_with_one_notebook_landmark():
    soup = BeautifulSoup(feedback_page("ok"), "html5lib")
    assert len(soup.find_all("body")) == 1 and len(soup.find_all(id="notebook")) == 1
    assert [main.get("id") for main in soup.find_all("main")] == ["notebook"]


def test_a_chinese_feedback_page_is_marked_as_chinese_by_the_shared_base():
    assert BeautifulSoup(feedback_page("ok", language="zh"), "html5lib").html["lang"] == "zh-Hans"


def test_a_page_with_the_course_policy_misses_nothing():
    assert missing_csp(FEEDBACK) == []


def _course(root, pages: dict[str, str]):
    (root / "nbgrader_config.py").write_text("", encoding="utf-8")
    for relative, html in pages.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(html, encoding="utf-8")


ALL_KINDS = {
    "feedback/ada/02_softmax/softmax.html": FEEDBACK,
    "feedback/bo/02_softmax/softmax.html": ungradable_page("02_softmax", "not a notebook"),
}


def test_check_pages_passes_a_course_whose_pages_all_carry_the_csp(tmp_path, capsys):
    _course(tmp_path, {**ALL_KINDS, "reports/02_softmax.html": _report(),
                       ".grader/refusing/feedback/cy/refused/x.html": status_page("x", "refused", "why", "what")})
    assert grader_main(["check-pages", "--course", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "4 file(s) checked, 0 with active content, 0 page(s) without" in out


def test_check_pages_reports_a_status_page_without_the_csp_with_its_path_and_what_to_do(tmp_path, capsys):
    old = "<!DOCTYPE html>\n<html lang=\"en\"><head><title>old</title></head><body><p>waiting</p></body></html>"
    _course(tmp_path, {**ALL_KINDS, "reports/02_softmax.html": _report(),
                       "feedback/cy/02_softmax/softmax.html": old})
    assert grader_main(["check-pages", "--course", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "feedback/cy/02_softmax/softmax.html" in out and "Content-Security-Policy" in out
    assert "generate_feedback --force" in out and "feedback/ada" not in out and "feedback/bo" not in out
    assert "1 page(s) without the course's Content-Security-Policy" in out


def test_check_pages_reports_a_class_report_without_the_csp(tmp_path, capsys):
    stale = _report().replace(f'content="{CONTENT_SECURITY_POLICY}"'.replace("'", "&#39;"), 'content="default-src *"')
    assert stale != _report()
    _course(tmp_path, {**ALL_KINDS, "reports/02_softmax.html": stale})
    assert grader_main(["check-pages", "--course", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "reports/02_softmax.html" in out and "grader report" in out
