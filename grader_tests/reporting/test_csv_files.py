"""Every CSV the course writes: text a spreadsheet would run is defused, numbers stay numbers, no half files."""
from __future__ import annotations

import csv
import shutil
import subprocess
import sys
from datetime import datetime, timedelta

import pytest
from nbgrader.api import Gradebook
from nbgrader.plugins import CsvExportPlugin

from grader.course import Course
from grader.reporting.analysis import assignment_summary
from grader.reporting.class_report import ClassReport, StudentResult
from grader.reporting.csv_files import defused, write_csv_rows
from grader.reporting.csv_tables import write_csv
from grader.reporting.grades_csv import GradesCsvExport
from grader_tests.checkout import REPO_ROOT


@pytest.mark.parametrize("text", [
    '=HYPERLINK("http://x","y")', "+cmd|' /C calc'!A0", "-2+3", "@SUM(A1:A9)", "\t=1", "\r=1",
    "\uff1dHYPERLINK(\"http://x\")", "\uff0b1", "\uff0d1", "\uff20SUM(A1)", "-", "+", "=",
])
def test_text_a_spreadsheet_would_run_gets_a_leading_apostrophe(text):
    assert defused(text) == "'" + text


@pytest.mark.parametrize("text", ["Lovelace, Ada", "a=b", "ada@example.edu", "", " =1", "'=1", "0.5", "12"])
def test_other_text_is_left_as_it_is(text):
    assert defused(text) == text


@pytest.mark.parametrize("number", ["-1.5", "+2", "-0", "-.5", "1e-3", "-2.5E+4"])
def test_text_that_is_a_plain_number_stays_a_number(number):
    assert defused(number) == number


@pytest.mark.parametrize("value", [-2.5, 0, 14, 9.5, None, True])
def test_values_that_are_not_text_are_left_as_they_are(value):
    assert defused(value) is value


def test_every_cell_of_a_written_file_is_defused_and_numbers_stay_numbers(tmp_path):
    path = write_csv_rows(tmp_path / "out.csv", [("name", "score"), ('=HYPERLINK("http://x","y")', -2.5), ("ada", 14)])
    with open(path, newline="", encoding="utf-8") as handle:
        assert list(csv.reader(handle)) == [["name", "score"], ["'=HYPERLINK(\"http://x\",\"y\")", "-2.5"], ["ada", "14"]]


def _rows_then_failure():
    yield ("a", "b")
    yield ("1", "2")
    raise OSError("disk full")


def test_a_write_that_fails_half_way_leaves_no_file(tmp_path):
    with pytest.raises(OSError, match="disk full"):
        write_csv_rows(tmp_path / "out.csv", _rows_then_failure())
    assert list(tmp_path.iterdir()) == []


def test_a_write_that_fails_half_way_leaves_the_earlier_file_as_it_was(tmp_path):
    (tmp_path / "out.csv").write_text("earlier\n")
    with pytest.raises(OSError, match="disk full"):
        write_csv_rows(tmp_path / "out.csv", _rows_then_failure())
    assert [p.name for p in tmp_path.iterdir()] == ["out.csv"] and (tmp_path / "out.csv").read_text() == "earlier\n"


# ---- the report's tables (grader report) ---------------------------------------------------------

def _report_cells(tmp_path, students: list[tuple[str, float]]) -> dict[tuple[str, str, str], str]:
    """(table, row, column) -> value of the report CSV of a class of ``students`` (id, score of 10)."""
    report = ClassReport("02_softmax", [StudentResult(student, score, 10.0, "graded", {
        "softmax": {"check": "softmax", "fraction": 0.5, "stage": "inaccurate", "misconception": None}})
        for student, score in students])
    path = write_csv([assignment_summary(report, [], {})], tmp_path / "report.csv")
    with open(path, newline="", encoding="utf-8") as handle:
        return {(row[1], row[2], row[3]): row[4] for row in list(csv.reader(handle))[1:]}


def test_the_report_csv_defuses_student_ids_a_spreadsheet_would_run(tmp_path):
    hyperlink, command = '=HYPERLINK("http://x","y")', "+cmd|' /C calc'!A0"
    cells = _report_cells(tmp_path, [(hyperlink, 3), (command, 4)])
    assert cells[("students", "'" + hyperlink, "score")] == "3"
    assert cells[("students", "'" + command, "score")] == "4"
    assert not any(row.startswith(("=", "+")) for _, row, _ in cells)


def test_the_report_csv_keeps_scores_numbers_negative_ones_too(tmp_path):
    cells = _report_cells(tmp_path, [("ada", 9.5), ("ben", -2.5)])
    assert cells[("students", "ada", "score")] == "9.5" and cells[("students", "ben", "score")] == "-2.5"


# ---- grades.csv (nbgrader export) ----------------------------------------------------------------

@pytest.fixture(scope="module")
def gradebook_course(tmp_path_factory) -> Course:
    """A course whose gradebook has one graded assignment, a student named like a formula, one not handed in."""
    root = tmp_path_factory.mktemp("grades-course")
    shutil.copy2(REPO_ROOT / "nbgrader_config.py", root / "nbgrader_config.py")
    course = Course(root)
    due = datetime(2026, 3, 1, 12, 0)
    with Gradebook(course.db_url) as gb:
        gb.add_assignment("02_softmax", duedate=due)
        gb.add_notebook("softmax", "02_softmax")
        gb.add_grade_cell("test_softmax", "softmax", "02_softmax", max_score=6, cell_type="code")
        gb.add_student("ada", first_name="Ada", last_name="Lovelace", email="ada@example.edu")
        gb.add_student("mallory", first_name='=HYPERLINK("http://x","y")', last_name="+cmd|' /C calc'!A0")
        gb.add_student("cy", first_name="Cy", last_name="Yu")
        for student, score in (("ada", 6), ("mallory", 2)):
            submission = gb.add_submission("02_softmax", student, timestamp=due - timedelta(hours=1))
            submission.notebooks[0].grades[0].auto_score = score
        gb.db.commit()
    return course


def _read(path) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


def test_grades_csv_has_the_rows_and_columns_of_nbgraders_own_export(gradebook_course, tmp_path):
    with Gradebook(gradebook_course.db_url) as gb:
        CsvExportPlugin(to=str(tmp_path / "nbgrader.csv"), student=["ada", "cy"]).export(gb)
        GradesCsvExport(to=str(tmp_path / "course.csv"), student=["ada", "cy"]).export(gb)
    ours = _read(tmp_path / "course.csv")
    assert ours == _read(tmp_path / "nbgrader.csv") and len(ours) == 3


@pytest.mark.slow
def test_nbgrader_export_defuses_names_a_spreadsheet_would_run(gradebook_course):
    run = subprocess.run([sys.executable, "-m", "nbgrader", "export"], cwd=gradebook_course.root,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    with open(gradebook_course.root / "grades.csv", newline="", encoding="utf-8") as handle:
        rows = {row["student_id"]: row for row in csv.DictReader(handle)}
    assert rows["mallory"]["first_name"] == "'=HYPERLINK(\"http://x\",\"y\")"
    assert rows["mallory"]["last_name"] == "'+cmd|' /C calc'!A0"
    assert rows["mallory"]["score"] == "2.0" and rows["ada"]["score"] == "6.0" and rows["cy"]["score"] == "0.0"
