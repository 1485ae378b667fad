"""The "Possibly written together" section of the report page: escaped, linked, instructors only."""
from __future__ import annotations

from bs4 import BeautifulSoup
from similarity_pages import HOSTILE_CODE, HOSTILE_ID, hostile_summary

from grader.reporting.html_page import render_page


def test_student_code_and_ids_in_the_section_never_become_markup():
    html = render_page([hostile_summary()])
    soup = BeautifulSoup(html, "html.parser")
    assert soup.find("script") is None and soup.find("svg") is None and soup.find("img", src="x") is None
    assert not any(attr.startswith("on") for tag in soup.find_all(True) for attr in tag.attrs)
    section = soup.find(attrs={"data-section": "similarity"})
    assert HOSTILE_CODE in section.get_text() and HOSTILE_ID in section.get_text()  # shown, as text


def test_each_pair_links_to_its_side_by_side_view():
    soup = BeautifulSoup(render_page([hostile_summary()]), "html.parser")
    rows = soup.select('table[data-table="similar_pairs"] tbody tr')
    assert rows
    for row in rows:
        target = soup.find(id=row.find("a")["href"].removeprefix("#"))
        assert target is not None and len(target.select('pre[data-side="a"] mark')) > 0
        assert len(target.select('pre[data-side="b"] mark')) > 0


def test_a_class_without_pairs_says_so():
    summary = hostile_summary()
    summary.similarity.pairs = []
    section = BeautifulSoup(render_page([summary]), "html.parser").find(attrs={"data-section": "similarity"})
    assert "No pair shares enough unusual code" in section.get_text()
