"""`grader policy`: show, set, grant-late-days, late-days and validate on a course with a gradebook."""
from __future__ import annotations

import re
from datetime import datetime

import pytest
from nbgrader.api import Gradebook

from grader.cli import main
from grader.course import Course
from grader_tests.checkout import create_course

pytestmark = pytest.mark.slow  # nbgrader creates a gradebook per test
DUE = datetime(2026, 3, 1, 12, 0, 0)


@pytest.fixture
def small_course(tmp_path) -> Course:
    """A course folder whose gradebook knows ada and bob and 02_softmax, due DUE."""
    course = create_course(tmp_path / "course")
    with Gradebook(course.db_url) as gb:
        gb.update_or_create_assignment("02_softmax", duedate=DUE)
        for student in ("ada", "bob"):
            gb.update_or_create_student(student)
    return course


def grader(course: Course, *args: str) -> int:
    return main(["policy", *args[:1], "--course", str(course.root), *args[1:]])


def test_set_writes_an_override_that_show_then_reports(small_course, capsys):
    assert grader(small_course, "set", "ada", "extension_hours", "48", "--assignment", "02_softmax") == 0
    capsys.readouterr()
    assert grader(small_course, "show", "ada", "02_softmax") == 0
    shown = capsys.readouterr().out
    assert "due            2026-03-03 12:00 UTC (class: 2026-03-01 12:00 UTC)" in shown
    assert "extension_hours from the policy file, line 2 (ada, 02_softmax)" in shown


def test_setting_the_same_override_again_replaces_its_line(small_course):
    grader(small_course, "set", "ada", "extension_hours", "48", "--assignment", "02_softmax")
    grader(small_course, "set", "ada", "extension_hours", "24", "--assignment", "02_softmax")
    assert (small_course.root / "policy.csv").read_text().splitlines() == [
        "who,assignment,setting,value", "ada,02_softmax,extension_hours,24"]


def test_an_override_for_an_unknown_student_is_refused_with_the_known_ids(small_course):
    with pytest.raises(SystemExit) as refused:
        grader(small_course, "set", "zed", "extension_hours", "48")
    assert "'zed' is not a student of this course (known ids: ada, bob)" in str(refused.value)
    assert not (small_course.root / "policy.csv").exists()


def test_grant_late_days_adds_to_the_class_allowance(small_course, capsys):
    with open(small_course.root / "nbgrader_config.py", "a") as config:
        config.write("\nc.CoursePolicy.late_days = 2\n")
    assert grader(small_course, "grant-late-days", "bob", "3") == 0
    assert "bob now has 5 late days" in capsys.readouterr().out
    assert "bob,,late_days,5" in (small_course.root / "policy.csv").read_text()


def test_validate_names_each_bad_line_and_fails(small_course, capsys):
    (small_course.root / "policy.csv").write_text(
        "who,assignment,setting,value\nada,,late_days,two\nzed,,late_days,1\n")
    assert grader(small_course, "validate") == 1
    problems = capsys.readouterr().err.splitlines()
    assert problems[0].startswith("policy.csv line 2: late_days must be")
    assert problems[1].startswith("policy.csv line 3: 'zed' is not a student")


def test_late_days_lists_who_has_an_extension(small_course, capsys):
    grader(small_course, "set", "ada", "extension_hours", "48", "--assignment", "02_softmax")
    capsys.readouterr()
    assert grader(small_course, "late-days") == 0
    [header, row] = capsys.readouterr().out.splitlines()
    assert row.split()[:3] == ["ada", "02_softmax", "48"]


def test_show_refuses_an_unknown_student_with_the_known_ids(small_course):
    with pytest.raises(SystemExit) as refused:
        grader(small_course, "show", "zed")
    assert "'zed' is not a student of this course (known ids: ada, bob)" in str(refused.value)


def statements_reading_the_class_list(action) -> list[str]:
    """The SQL statements ``action()`` runs that read the gradebook's student table."""
    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    seen = []

    def record(connection, cursor, statement, *rest):
        seen.append(statement)

    event.listen(Engine, "before_cursor_execute", record)
    try:
        action()
    finally:
        event.remove(Engine, "before_cursor_execute", record)
    return [statement for statement in seen if re.search(r"\bFROM student\b", statement)]


def test_the_policy_of_one_hand_in_does_not_read_the_class_list(small_course):
    from grader.policy.course_policy import PolicyBook

    books = []
    assert statements_reading_the_class_list(lambda: books.append(PolicyBook.of(small_course, student="ada"))) == []
    assert books[0].resolve("ada", "02_softmax").due is not None
    # checking the policy file's ids needs it
    assert statements_reading_the_class_list(lambda: PolicyBook.of(small_course, check_ids=True)) != []
