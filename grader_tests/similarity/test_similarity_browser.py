"""The "Possibly written together" section in a real headless Chromium, on the graded class.

The class of ``graded_class`` is the demo's simulated class, in which ivy hands in ben's 02_softmax
disguised (``grader.demo.simulated_class.WRITTEN_TOGETHER``). The report page must list that pair and
no other, link it to a side-by-side view with the matching code marked, and show hostile student
text as text; no student's feedback page or autograded notebook may mention any of it.
"""
from __future__ import annotations

import pytest
from browser import open_page
from bs4 import BeautifulSoup
from graded_class import ASSIGNMENT
from similarity_pages import hostile_summary

from grader.demo.simulated_class import WRITTEN_TOGETHER
from grader.reporting.html_page import render_page

pytestmark = pytest.mark.slow

FOLLOW_FIRST_LINK = """(() => {
    const link = document.querySelector('table[data-table="similar_pairs"] a');
    link.click();
    const target = document.getElementById(link.getAttribute('href').slice(1));
    const mark = target.querySelector('pre mark');
    return {hash: location.hash, top: target.getBoundingClientRect().top, height: window.innerHeight,
            marks: target.querySelectorAll('pre mark').length,
            markBackground: getComputedStyle(mark).backgroundColor};
})()"""


@pytest.fixture(scope="module")
def report_page(browser, browser_artefacts, graded_class):
    return open_page(browser, graded_class.page, browser_artefacts / f"similarity-{ASSIGNMENT}.png",
                     marks_script=FOLLOW_FIRST_LINK)


def test_the_page_with_the_section_loads_without_errors_or_requests(report_page):
    assert report_page.console_errors == [] and report_page.network_requests == []


def test_the_section_lists_the_planted_pair_and_nothing_else(report_page):
    soup = BeautifulSoup(report_page.dom, "html.parser")
    rows = soup.select('table[data-table="similar_pairs"] tbody tr')
    assert [tuple(td.get_text() for td in row.find_all("td")[:2]) for row in rows] == [WRITTEN_TOGETHER[ASSIGNMENT]]


def test_the_pair_links_to_its_side_by_side_view_with_the_matches_marked(report_page):
    followed = report_page.marks
    assert followed["hash"].startswith("#similar-") and followed["marks"] > 10
    assert -1 <= followed["top"] < followed["height"]  # the browser scrolled to the pair (to the pixel)
    assert followed["markBackground"] not in ("rgba(0, 0, 0, 0)", "transparent")


def test_no_feedback_page_or_autograded_notebook_mentions_the_pair(graded_class):
    pages = list((graded_class.course.root / "feedback").rglob("*.html"))
    notebooks = list((graded_class.course.root / "autograded").rglob("*.ipynb"))
    assert len(pages) >= 6 and len(notebooks) >= 6
    first, second = WRITTEN_TOGETHER[ASSIGNMENT]
    for path in pages + notebooks:
        text = path.read_text(encoding="utf-8")
        assert "written together" not in text.lower() and "similar-" not in text, path
    for student, partner in ((first, second), (second, first)):
        page = graded_class.course.feedback_page(student, ASSIGNMENT).read_text(encoding="utf-8")
        assert f">{partner}<" not in page and f" {partner} " not in BeautifulSoup(page, "html.parser").get_text(" ")


def test_hostile_student_text_in_the_section_runs_nothing(browser, browser_artefacts, tmp_path):
    path = tmp_path / "hostile-similarity.html"
    path.write_text(render_page([hostile_summary()]), encoding="utf-8")
    visit = open_page(browser, path, browser_artefacts / "similarity-hostile.png",
                      marks_script="({pwned: window.pwned === undefined ? null : window.pwned, "
                                   "scripts: document.scripts.length, "
                                   "handlers: document.querySelectorAll('[onerror], [onload]').length})")
    assert visit.marks == {"pwned": None, "scripts": 0, "handlers": 0}
    assert visit.console_errors == [] and visit.network_requests == []
