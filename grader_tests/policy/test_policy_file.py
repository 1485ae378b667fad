"""The course's policy file (grader.policy.declaration): every bad line is named with its number and the fix."""
from __future__ import annotations

import pytest

from grader.policy.declaration import PolicyFileError, parse_policy_text

ACCOMMODATIONS = {"extra-time-1.5x": 1.5}
HEADER = "who,assignment,setting,value"


def problems_of(*lines: str, students=None, assignments=None) -> list[str]:
    with pytest.raises(PolicyFileError) as caught:
        parse_policy_text("\n".join(lines), "policy.csv", ACCOMMODATIONS, students, assignments)
    return caught.value.problems


def test_a_well_formed_file_with_comments_and_blank_lines_is_read():
    declaration = parse_policy_text(f"# overrides\n{HEADER}\n\nada,02_softmax,extension_hours,48\n",
                                    "policy.csv", ACCOMMODATIONS)
    assert [(r.who, r.assignment, r.setting, r.value, r.line) for r in declaration.rows] == [
        ("ada", "02_softmax", "extension_hours", 48.0, 4)]


def test_a_missing_header_is_named_with_its_line():
    assert problems_of("ada,02_softmax,extension_hours,48")[0].startswith("policy.csv line 1: the first line must be")


def test_an_unknown_setting_names_the_line_and_the_settings_there_are():
    [problem] = problems_of(HEADER, "ada,,extension_days,2")
    assert problem.startswith("policy.csv line 2: 'extension_days' is not a setting")
    assert "extension_hours" in problem


def test_a_bad_value_names_the_line_and_what_the_setting_takes():
    [problem] = problems_of(HEADER, "ada,,late_penalty_per_day,10%")
    assert problem.startswith("policy.csv line 2: late_penalty_per_day must be a share")


def test_a_due_date_without_utc_offset_is_refused():
    [problem] = problems_of(HEADER, "ada,02_softmax,due,2026-03-04T23:59")
    assert "line 2" in problem and "no UTC offset" in problem


def test_a_row_with_too_many_columns_is_refused():
    [problem] = problems_of(HEADER, "ada,02_softmax,extension_hours,48,extra")
    assert problem.startswith("policy.csv line 2: 5 columns where 4 belong")


def test_an_unknown_student_is_refused_with_the_known_ids():
    [problem] = problems_of(HEADER, "zed,,late_days,2", students={"ada", "bob"})
    assert problem.startswith("policy.csv line 2: 'zed' is not a student of this course (known ids: ada, bob)")


def test_an_unknown_accommodation_names_the_courses_labels():
    [problem] = problems_of(HEADER, "ada,,accommodation,extra-time-3x")
    assert "line 2" in problem and "extra-time-1.5x" in problem


def test_a_setting_given_twice_names_both_lines():
    [problem] = problems_of(HEADER, "ada,02_softmax,extension_hours,48", "ada,02_softmax,extension_hours,24")
    assert problem.startswith("policy.csv line 3:") and "already set on line 2" in problem


def test_a_group_without_members_is_refused():
    [problem] = problems_of(HEADER, "group:evening,,late_window_hours,72")
    assert "line 2" in problem and "no student is in group 'evening'" in problem


def test_late_days_for_one_assignment_are_refused():
    [problem] = problems_of(HEADER, "ada,02_softmax,late_days,2")
    assert "late_days applies to the whole course" in problem


def test_every_bad_line_is_listed_not_only_the_first():
    problems = problems_of(HEADER, "ada,,nope,1", "bob,,late_days,-1", "cy,x,due,soon", assignments={"02_softmax"})
    assert [problem.split(":")[0] for problem in problems] == [f"policy.csv line {n}" for n in (2, 3, 4)]
