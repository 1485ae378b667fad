"""The class report page and a student's feedback page, opened in a real headless Chromium.

Both come from one class graded by ``grader autograde`` (``graded_class``). A page passes when it
loads from its file without console errors or network requests, every figure is drawn, and the
numbers it shows are the gradebook's. Screenshots go to the test-artefact folder.
"""
from __future__ import annotations

import base64
import importlib.util
import re

import pytest
from browser import open_page
from bs4 import BeautifulSoup
from graded_class import ASSIGNMENT, DUE, LATE_STUDENT, UNGRADABLE_STUDENT
from nbgrader.api import Gradebook

from grader.grading.ungradable_record import ungradable_reason
from grader.reporting.timings import grading_times

pytestmark = pytest.mark.slow

FIGURES = {"histogram", "pass_rates", "discrimination", "grading_times"}
FIGURE_MARKS = """Array.from(document.querySelectorAll('img[data-figure]')).map(img => ({
    name: img.dataset.figure, complete: img.complete, width: img.naturalWidth, height: img.naturalHeight}))"""


@pytest.fixture(scope="module")
def report_page(browser, browser_artefacts, graded_class):
    return open_page(browser, graded_class.page, browser_artefacts / f"class-report-{ASSIGNMENT}.png",
                     marks_script=FIGURE_MARKS)


@pytest.fixture(scope="module")
def gradebook(graded_class):
    """student -> (score, max score, {grade cell: score}, seconds late) from nbgrader's gradebook."""
    found = {}
    with Gradebook(graded_class.course.db_url) as gb:
        for submission in gb.assignment_submissions(ASSIGNMENT):
            cells = {g.name: float(g.score) for notebook in submission.notebooks for g in notebook.grades}
            found[submission.student.id] = (float(submission.score), float(submission.max_score), cells,
                                            float(submission.total_seconds_late))
        max_points = {c.name: float(c.max_score) for c in gb.find_notebook("softmax", ASSIGNMENT).grade_cells}
    return found, max_points


def _table(dom: str, name: str) -> list[list]:
    soup = BeautifulSoup(dom, "html.parser")
    return [row.find_all("td") for row in soup.select(f'table[data-table="{name}"] tbody tr')]


def test_report_page_loads_from_its_file_without_errors_or_requests(report_page):
    assert report_page.console_errors == []
    assert report_page.network_requests == []


def test_report_page_draws_every_figure(report_page):
    assert {mark["name"] for mark in report_page.marks} == FIGURES
    for mark in report_page.marks:
        assert mark["complete"] and mark["width"] > 100 and mark["height"] > 100, mark
    soup = BeautifulSoup(report_page.dom, "html.parser")
    for img in soup.select("img[data-figure]"):
        svg = base64.b64decode(img["src"].split(",", 1)[1]).decode("utf-8")
        assert len(re.findall(r"<path\b", svg)) >= 4, img["data-figure"]


def test_report_scores_are_the_gradebook_scores(report_page, gradebook):
    scores, _ = gradebook
    rows = _table(report_page.dom, "students")
    shown = {row[0].get_text(): float(row[1]["data-value"]) for row in rows}
    assert shown == {student: score for student, (score, *_rest) in scores.items()}


def test_report_pass_rates_count_full_marks_in_the_gradebook(report_page, gradebook):
    scores, max_points = gradebook
    for row in _table(report_page.dom, "checks"):
        check = row[0].get_text()
        cell = f"test_{check}"
        graded = [s for s in scores if s != UNGRADABLE_STUDENT]
        full = sum(scores[s][2][cell] >= max_points[cell] for s in graded)
        assert row[1]["data-value"] == f"{full}/{len(graded)}", check


def test_report_lists_the_late_submission_as_the_gradebook_dates_it(report_page, gradebook):
    scores, _ = gradebook
    late = _table(report_page.dom, "late")
    assert [row[0].get_text() for row in late] == [LATE_STUDENT]
    assert float(late[0][3]["data-value"]) == scores[LATE_STUDENT][3] == 26 * 3600
    assert late[0][2].get_text() == DUE.isoformat(timespec="seconds")


def test_report_lists_the_ungradable_submission_with_its_refusal_code_and_reason(report_page, graded_class):
    rows = _table(report_page.dom, "ungradable")
    assert [(r[0].get_text(), r[1].get_text(), r[2].get_text()) for r in rows] == [
        (UNGRADABLE_STUDENT, "notebook-unreadable",
         ungradable_reason(graded_class.course, ASSIGNMENT, UNGRADABLE_STUDENT))]


def test_every_submission_has_a_recorded_grading_time(graded_class, gradebook):
    scores, _ = gradebook
    times = grading_times(graded_class.course, ASSIGNMENT)
    assert set(times) == set(scores) and all(seconds > 0 for seconds in times.values())


@pytest.fixture(scope="module")
def feedback_page(browser, browser_artefacts, graded_class):
    return open_page(browser, graded_class.course.feedback_page(LATE_STUDENT, ASSIGNMENT),
                     browser_artefacts / f"feedback-{LATE_STUDENT}-{ASSIGNMENT}.png")


@pytest.mark.xfail(importlib.util.find_spec("grader.pages") is None, strict=True,
                   reason="nbgrader's own feedback template loads MathJax from a CDN; the course's sanitizing "
                          "feedback exporter (grader.pages) replaces it")
def test_feedback_page_loads_from_its_file_without_errors_or_requests(feedback_page):
    assert feedback_page.console_errors == []
    assert feedback_page.network_requests == []


def test_feedback_page_shows_the_gradebook_scores(feedback_page, gradebook):
    score, max_score, cells, _ = gradebook[0][LATE_STUDENT]
    text = BeautifulSoup(feedback_page.dom, "html.parser").get_text(" ", strip=True)
    total = re.search(rf"Feedback on {ASSIGNMENT}: ([\d.]+) / ([\d.]+)", text)
    assert total and float(total.group(1)) == pytest.approx(score, abs=0.006)
    assert float(total.group(2)) == max_score
    shown = {name: float(points) for name, points in re.findall(r"Test cell (\w+) Score: ([\d.]+) /", text)}
    assert shown.keys() == cells.keys()
    assert all(shown[name] == pytest.approx(cells[name], abs=0.006) for name in cells)


def test_report_command_prints_where_the_page_and_its_csv_are(graded_class, tmp_path, capsys):
    from grader.cli import main

    assert main(["report", ASSIGNMENT, "--course", str(graded_class.course.root),
                 "--output", str(tmp_path / "page.html")]) == 0
    out = capsys.readouterr().out
    assert f"class report: {tmp_path / 'page.html'}" in out and f"tables (CSV): {tmp_path / 'page.csv'}" in out
    assert "per-check pass rates" in out  # the terminal tables stay
    assert (tmp_path / "page.html").stat().st_size > 10_000 and (tmp_path / "page.csv").exists()


def test_report_all_covers_every_assignment_with_submissions(graded_class, tmp_path, capsys):
    from grader.cli import main

    assert main(["report", "--all", "--course", str(graded_class.course.root),
                 "--output", str(tmp_path / "all.html")]) == 0
    soup = BeautifulSoup((tmp_path / "all.html").read_text(encoding="utf-8"), "html.parser")
    assert [s["data-assignment"] for s in soup.select("section.assignment")] == [ASSIGNMENT]


def test_report_command_needs_one_assignment_or_all(graded_class):
    from grader.cli import main

    with pytest.raises(SystemExit, match="ASSIGNMENT or pass --all"):
        main(["report", "--course", str(graded_class.course.root)])
