"""'Answers that fit someone else's numbers': the class report names wrong answers right for other numbers."""
from __future__ import annotations

import csv

from bs4 import BeautifulSoup

from grader import kernel_side
from grader.checks import get_check
from grader.course import Course
from grader.grading.preprocessors.decide_verdicts import write_quiz_answers
from grader.reporting.analysis import assignment_summary
from grader.reporting.borrowed_numbers import LESSONS_NUMBERS, BorrowedRow, borrowed_numbers
from grader.reporting.class_report import ClassReport, StudentResult
from grader.reporting.csv_tables import write_csv
from grader.reporting.html_page import render_page
from grader_tests.checkout import create_course
from solutions.variants import LESSON_NUMBERS, numbers_for

ASSIGNMENT = "03_readout"
ITEMS = ("answer_ab_exp", "answer_ab_ratio", "answer_ab_weights", "answer_beta_equiv")


def answer_for(item: str, whose: str | None) -> dict:
    """The encoded right answer of ``item`` for ``whose`` numbers (the lesson's for None)."""
    return kernel_side.encode(get_check(item).expected_value(numbers_for(whose)[item]))


def hand_in(course: Course, student: str, answers: dict[str, dict], own_numbers_right: bool = False) -> None:
    entries = {}
    for item, wire in answers.items():
        passed = own_numbers_right or wire == answer_for(item, student)
        entries[item] = {"answer": wire, "passed": passed, "stage": None if passed else "inaccurate"}
    write_quiz_answers(course.state_dir, ASSIGNMENT, student, entries)


def class_of(tmp_path) -> tuple[Course, list[str]]:
    course = create_course(tmp_path / "course")  # its checks files decide which answers fit
    students = ["ada", "copier", "lesson_typist"]
    hand_in(course, "ada", {item: answer_for(item, "ada") for item in ITEMS})
    hand_in(course, "copier", {item: answer_for(item, "ada") for item in ITEMS})
    hand_in(course, "lesson_typist", {item: answer_for(item, None) for item in ITEMS})
    return course, students


def test_the_corpus_students_numbers_differ_from_the_lessons_and_each_others():
    for item in ITEMS:
        assert numbers_for("ada")[item] != numbers_for("copier")[item] != LESSON_NUMBERS[item]
        assert numbers_for("lesson_typist")[item] != LESSON_NUMBERS[item]


def test_a_student_who_typed_a_classmates_answers_is_listed_with_whose_numbers_and_how_many(tmp_path):
    course, students = class_of(tmp_path)
    rows = [row for row in borrowed_numbers(course, ASSIGNMENT, students) if row.student == "copier"]
    assert {row.item for row in rows if "ada" in row.whose.split(", ")} == set(ITEMS)
    assert all(row.items == len(ITEMS) for row in rows if "ada" in row.whose.split(", "))


def test_a_student_who_typed_the_lessons_answers_is_listed_with_the_lessons_numbers(tmp_path):
    course, students = class_of(tmp_path)
    rows = [row for row in borrowed_numbers(course, ASSIGNMENT, students) if row.student == "lesson_typist"]
    assert [row.item for row in rows if row.whose == LESSONS_NUMBERS] == sorted(ITEMS)


def test_right_answers_and_answers_that_fit_nobody_are_not_listed(tmp_path):
    course, students = class_of(tmp_path)
    hand_in(course, "ada", {"answer_ab_ratio": kernel_side.encode(0.123456789)})
    rows = borrowed_numbers(course, ASSIGNMENT, students)
    assert not [row for row in rows if row.student == "ada"]


def test_the_report_page_and_its_csv_carry_the_section(tmp_path):
    summary = assignment_summary(ClassReport(ASSIGNMENT, [StudentResult("copier", 1.0, 18.0, "graded", {})]))
    summary.borrowed = [BorrowedRow("copier", "answer_ab_ratio", "ada", 4)]
    soup = BeautifulSoup(render_page([summary]), "html.parser")
    table = soup.find("table", attrs={"data-table": "borrowed_numbers"})
    assert table is not None and "Answers that fit someone else's numbers" in soup.get_text()
    assert [td.get_text() for td in table.find("tbody").find_all("td")] == ["copier", "answer_ab_ratio", "ada", "4"]
    path = write_csv([summary], tmp_path / "report.csv")
    with open(path, newline="", encoding="utf-8") as handle:
        cells = {(r["table"], r["column"]): r["value"] for r in csv.DictReader(handle)}
    assert cells[("borrowed_numbers", "whose_numbers")] == "ada" and cells[("borrowed_numbers", "items")] == "4"


def test_an_empty_section_says_that_nothing_fits():
    summary = assignment_summary(ClassReport(ASSIGNMENT, [StudentResult("ada", 18.0, 18.0, "graded", {})]))
    assert "No wrong quiz answer fits the lesson's numbers or a classmate's." in render_page([summary])
