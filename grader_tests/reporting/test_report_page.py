"""The report page and its CSV: self-contained, escaped, and saying the same numbers as the report."""
from __future__ import annotations

import base64
import csv
import re

from bs4 import BeautifulSoup

from grader.course import course_name
from grader.reporting.analysis import LateRow, assignment_summary
from grader.reporting.class_report import ClassReport, StudentResult
from grader.reporting.csv_tables import COLUMNS, write_csv
from grader.reporting.html_page import CONTENT_SECURITY_POLICY, render_page
from grader_tests.checkout import create_course

HOSTILE = '<script>alert(1)</script><img src=x onerror=alert(2)>'
HOSTILE_ID = '"><svg onload=alert(3)>$\\frac{1}{0}$'


def _student(name, score, checks, status="graded"):
    return StudentResult(name, score, 10.0, status, {
        check: {"check": check, "fraction": fraction, "stage": None if fraction == 1 else "inaccurate",
                "misconception": misconception} for check, (fraction, misconception) in checks.items()})


def hostile_summary():
    report = ClassReport("02_softmax", [
        _student("ada", 10, {"softmax": (1.0, None), "entropy": (1.0, None)}),
        _student(HOSTILE_ID, 5, {"softmax": (0.5, "no max subtraction"), f"entropy{HOSTILE}": (0.0, HOSTILE)}),
        _student("cy", 1, {"softmax": (0.5, "no max subtraction"), "entropy": (0.0, None)}),
        _student("=cmd|' /C calc'!A0", 0, {}, status=f"ungradable: {HOSTILE}"),
    ])
    late = [LateRow(HOSTILE_ID, "2026-01-02T10:00:00", "2026-01-01T10:00:00", 86400.0, 1.0)]
    return assignment_summary(report, late, {"ada": 2.5, "cy": 3.0})


def test_page_forbids_everything_but_inline_styles_and_data_images():
    soup = BeautifulSoup(render_page([hostile_summary()]), "html.parser")
    meta = soup.find("meta", attrs={"http-equiv": "Content-Security-Policy"})
    assert meta is not None and meta["content"] == CONTENT_SECURITY_POLICY
    assert "default-src 'none'" in CONTENT_SECURITY_POLICY and "img-src data:" in CONTENT_SECURITY_POLICY


def test_student_controlled_text_never_becomes_markup():
    html = render_page([hostile_summary()])
    soup = BeautifulSoup(html, "html.parser")
    assert soup.find("script") is None and soup.find("svg") is None
    assert not any(attr.startswith("on") for tag in soup.find_all(True) for attr in tag.attrs)
    assert HOSTILE not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert HOSTILE_ID in soup.get_text()  # shown, as text


def test_page_loads_nothing_from_anywhere():
    soup = BeautifulSoup(render_page([hostile_summary()]), "html.parser")
    sources = [tag.get("src") for tag in soup.find_all(src=True)] + [tag.get("href") for tag in soup.find_all(href=True)]
    assert sources and all(s.startswith("data:image/svg+xml;base64,") or s.startswith("#") for s in sources)
    assert soup.find("link") is None


def test_every_figure_is_a_non_empty_svg_with_its_text():
    soup = BeautifulSoup(render_page([hostile_summary()]), "html.parser")
    figures = soup.find_all("img", attrs={"data-figure": True})
    assert {f["data-figure"] for f in figures} == {"histogram", "pass_rates", "discrimination", "grading_times"}
    for figure in figures:
        svg = base64.b64decode(figure["src"].split(",", 1)[1]).decode("utf-8")
        assert svg.lstrip().startswith("<?xml") and "<svg" in svg and len(re.findall(r"<path", svg)) > 3
        assert figure["alt"]


def test_checks_table_lists_the_hardest_check_first():
    soup = BeautifulSoup(render_page([hostile_summary()]), "html.parser")
    rows = soup.select('table[data-table="checks"] tbody tr')
    assert rows[0]["data-check"].startswith("entropy") and rows[-1]["data-check"] in ("entropy", "softmax")
    assert rows[0].select("td")[1]["data-value"] == "0/1"


def test_misconceptions_are_counted_and_sent_to_their_lesson():
    soup = BeautifulSoup(render_page([hostile_summary()]), "html.parser")
    first = soup.select('table[data-table="misconceptions"] tbody tr')[0].find_all("td")
    assert first[0].get_text() == "no max subtraction" and first[2].get_text() == "2" and first[3].get_text() == "L3 §3"


def test_csv_holds_every_table_in_long_form(tmp_path):
    path = write_csv([hostile_summary()], tmp_path / "report.csv")
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert tuple(rows[0]) == COLUMNS
    tables = {row[1] for row in rows[1:]}
    assert tables == {"students", "checks", "misconceptions", "ungradable", "late", "histogram"}
    cells = {(row[1], row[2], row[3]): row[4] for row in rows[1:]}
    assert float(cells[("students", "ada", "score")]) == 10.0 and cells[("students", "ada", "grading_seconds")] == "2.5"
    assert cells[("misconceptions", "softmax: no max subtraction", "students")] == "2"
    assert cells[("late", HOSTILE_ID, "seconds_late")] == "86400.0"


def test_csv_defuses_cells_a_spreadsheet_would_run_as_formulas(tmp_path):
    path = write_csv([hostile_summary()], tmp_path / "report.csv")
    text = path.read_text(encoding="utf-8")
    assert "\n02_softmax,ungradable,'=cmd|' /C calc'!A0," in text
    assert not re.search(r"^[^,]*,[^,]*,=", text, flags=re.M)


def test_an_assignment_without_submissions_still_gives_a_page_with_every_figure():
    from grader.reporting.analysis import assignment_summary

    soup = BeautifulSoup(render_page([assignment_summary(ClassReport("02_softmax", []))]), "html.parser")
    assert len(soup.select("img[data-figure]")) == 4
    assert soup.select_one('[data-stat="students"]').get_text() == "0"


def test_every_figures_alternative_text_gives_the_numbers_it_shows():
    summary = hostile_summary()
    soup = BeautifulSoup(render_page([summary]), "html.parser")
    alt = {f["data-figure"]: f["alt"] for f in soup.find_all("img", attrs={"data-figure": True})}
    assert len(summary.checks) >= 2
    for check in summary.checks:
        assert f"{check.check} {100 * check.pass_rate:.0f} %" in alt["pass_rates"]
        assert f"{check.check} " + ("n/a" if check.discrimination is None else f"{check.discrimination:+.2f}") \
            in alt["discrimination"]
    for label, count in summary.report.histogram():
        assert f"{label}: {count}" in alt["histogram"]
    assert alt["grading_times"].endswith(": 2 submissions, median 3.0 s, slowest 3.0 s")


def test_the_page_is_titled_with_the_courses_name():
    soup = BeautifulSoup(render_page([hostile_summary()], course_name="scaled-attention-lab"), "html.parser")
    assert soup.h1.get_text() == "scaled-attention-lab: class report"
    assert soup.title.get_text() == "scaled-attention-lab: class report, 02_softmax"


def test_the_courses_name_is_its_nbgrader_course_id_not_its_folder(tmp_path):
    course = create_course(tmp_path / "course")
    assert course_name(course) == "scaled-attention-lab"
    (course.root / "nbgrader_config.py").write_text("c = get_config()\n")
    assert course_name(course) == "course"
