"""Text a submission controls is read bounded, parsed in linear time and never taken for markup."""
from __future__ import annotations

import io

import pytest
from nbformat import from_dict
from rich.console import Console

from grader.grading.grade_one import REASON_LINE_LIMIT, _reason_from, grade_one
from grader.grading.probe_cells import METADATA_KEY
from grader.grading.admission import student_id_refusal
from grader.grading.verdict_records import read_verdict_records, verdict_records
from grader.reporting.class_report import ClassReport, StudentResult
from grader.reporting.terminal import print_class_report
from grader_tests.checkout import create_course

RECORD = {"check": "softmax", "fraction": 1.0, "stage": None, "misconception": None}


def test_reason_is_the_last_error_line_of_nbgrader_s_log():
    log = "[INFO] start\nTraceback:\n  ValueError: Invalid timestamp string: x\n[ERROR] done\n"
    assert _reason_from({"log": log}) == "ValueError: Invalid timestamp string: x"


def test_reason_from_a_huge_line_is_bounded():
    line = "ValueError: Unknown string format: " + "9" * 10_000_000
    assert _reason_from({"error": line}) == line[:REASON_LINE_LIMIT]


def test_reason_from_a_huge_line_without_a_colon_falls_back():
    assert _reason_from({"log": "Error" * 2_000_000}).startswith("nbgrader could not grade")


def test_many_long_lines_each_count_only_by_their_head():
    log = ("x" * 100_000 + "ValueError: hidden in the tail\n") * 100 + "KeyError: 'fraction'\n"
    assert _reason_from({"log": log}) == "KeyError: 'fraction'"


def probe_cell(outputs, source='probe("softmax")', grade=True):
    return from_dict({"cell_type": "code", "source": source, "outputs": outputs, "execution_count": None,
                      "metadata": {"nbgrader": {"grade": grade, "grade_id": "test_softmax", "points": 2}}})


def display(record):
    return {"output_type": "display_data", "data": {"text/plain": "✓"}, "metadata": {METADATA_KEY: record}}


def test_record_written_as_decide_verdicts_writes_it_is_trusted():
    assert verdict_records(probe_cell([display(RECORD)])) == [RECORD]


def test_record_in_an_ordinary_cell_is_ignored_and_counted():
    assert read_verdict_records(probe_cell([display(RECORD)], source="show()", grade=False)) == ([], 1)


def test_second_record_in_a_probe_cell_is_ignored_and_counted():
    forged = {**RECORD, "fraction": 1.0}
    assert read_verdict_records(probe_cell([display(RECORD), display(forged)])) == ([RECORD], 1)


def test_record_without_fraction_is_ignored_and_counted():
    broken = {k: v for k, v in RECORD.items() if k != "fraction"}
    assert read_verdict_records(probe_cell([display(broken)])) == ([], 1)


def test_record_for_another_check_or_with_extra_keys_is_ignored():
    for record in ({**RECORD, "check": "entropy"}, {**RECORD, "extra": 1}, {**RECORD, "fraction": 2.0},
                   {**RECORD, "fraction": True}, {**RECORD, "stage": ["x"]}, "not a record"):
        assert read_verdict_records(probe_cell([display(record)])) == ([], 1)


def test_report_prints_markup_in_names_and_reasons_literally():
    students = [StudentResult("[/oops]", 0, 10, "ungradable: [bold]nope[/bold] [/]", {}),
                StudentResult("ada", 10, 10, "graded", {}, ignored_records=2)]
    out = io.StringIO()
    print_class_report(ClassReport("02_softmax", students), Console(file=out, width=300))
    text = out.getvalue()
    assert "[/oops]" in text and "[bold]nope[/bold] [/]" in text and "2 forged or malformed" in text


# ---- student ids: a folder name is refused before the gradebook or a page can hold it ----------


@pytest.mark.parametrize("student", ["ada", "s1234567", "a.b-c_d@uni.edu", "first+last"])
def test_ordinary_student_ids_are_accepted(student):
    assert student_id_refusal(student) is None


@pytest.mark.parametrize("student", ['<img src=x onerror="alert(1)">', "x'><script>alert(1)</script>",
                                     "-rf", ".hidden", "a b", "ada\n"])
def test_a_submission_folder_named_with_markup_is_refused_before_anything_is_recorded(tmp_path, student):
    course = create_course(tmp_path / "course")
    folder = course.root / "submitted" / student / "02_softmax"
    folder.mkdir(parents=True)
    (folder / "softmax.ipynb").write_text("{}", encoding="utf-8")
    outcome = grade_one(str(course.root), "02_softmax", student)
    assert not outcome.graded and "rename the folder" in outcome.reason
    assert not course.gradebook.exists() and not (course.root / ".grader").exists()
    assert not (course.root / "autograded").exists() and not (course.root / "feedback").exists()
