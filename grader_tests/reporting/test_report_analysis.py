"""What the report page adds to the terminal tables: discrimination, lessons, grading times, late rows."""
from __future__ import annotations

import pytest

from grader.course import Course
from grader.grading.run_record import record_path, write_record
from grader.reporting.analysis import assignment_summary, item_discrimination, lesson_of
from grader.reporting.class_report import ClassReport, StudentResult
from grader.reporting.timings import grading_times


def student(name, score, fractions, status="graded", code=None):
    """A student with ``score`` of 10 points and the given check -> fraction of points."""
    return StudentResult(name, score, 10.0, status, {
        check: {"check": check, "fraction": fraction, "stage": None if fraction == 1 else "inaccurate",
                "misconception": None} for check, fraction in fractions.items()}, code=code)


# Six graded students, strongest first: the top third is (s1, s2), the bottom third (s5, s6).
# "hard" is passed by the top third only, "easy" by everyone, "inverted" by the bottom third only,
# "partial" gives the top third half its points on average and the bottom third none.
CLASS = ClassReport("02_softmax", [
    student("s1", 10, {"hard": 1.0, "easy": 1.0, "inverted": 0.0, "partial": 1.0}),
    student("s2", 9, {"hard": 1.0, "easy": 1.0, "inverted": 0.0, "partial": 0.0}),
    student("s3", 7, {"hard": 0.0, "easy": 1.0, "inverted": 0.0, "partial": 1.0}),
    student("s4", 6, {"hard": 0.0, "easy": 1.0, "inverted": 1.0, "partial": 1.0}),
    student("s5", 3, {"hard": 0.0, "easy": 1.0, "inverted": 1.0, "partial": 0.0}),
    student("s6", 2, {"hard": 0.0, "easy": 1.0, "inverted": 1.0, "partial": 0.0}),
    student("zz", 0, {}, status="ungradable: not a notebook", code="notebook-unreadable"),
])


def test_discrimination_is_one_for_a_check_only_the_top_third_passes():
    assert item_discrimination(CLASS)["hard"] == 1.0


def test_discrimination_is_zero_for_a_check_everyone_passes():
    assert item_discrimination(CLASS)["easy"] == 0.0


def test_discrimination_is_negative_for_a_check_only_the_bottom_third_passes():
    assert item_discrimination(CLASS)["inverted"] == -1.0


def test_discrimination_uses_the_mean_fraction_of_points_in_each_group():
    assert item_discrimination(CLASS)["partial"] == 0.5


def test_discrimination_leaves_ungradable_students_out_of_the_ranking():
    # Were "zz" (0 points, no verdicts) ranked, the bottom third would be (s6, zz) and "inverted" would be 0.5.
    assert item_discrimination(CLASS)["inverted"] == -1.0


def test_discrimination_is_undefined_with_fewer_than_three_graded_students():
    small = ClassReport("02_softmax", CLASS.students[:2])
    assert item_discrimination(small) == {"easy": None, "hard": None, "inverted": None, "partial": None}


def test_checks_are_listed_hardest_first():
    names = [row.check for row in assignment_summary(CLASS).checks]
    assert names[-1] == "easy" and {names[0], names[1], names[2]} == {"hard", "inverted", "partial"}
    rates = [row.pass_rate for row in assignment_summary(CLASS).checks]
    assert rates == sorted(rates)


def test_ungradable_students_are_listed_with_their_reason():
    assert assignment_summary(CLASS).ungradable == [("zz", "notebook-unreadable", "not a notebook")]


def test_a_misconception_is_re_taught_from_its_own_lesson_section():
    assert lesson_of("softmax", "no max subtraction") == "L3 §3"
    assert lesson_of("answer_culprit", "vanishing gradient") == "L3 §4"


def test_an_unnamed_problem_falls_back_to_the_check_lesson_and_an_unknown_check_to_nothing():
    assert lesson_of("softmax", None) == "L3 §3"
    assert lesson_of("no_such_check", "whatever") == ""


def graded_record(graded: bool, seconds: float) -> dict:
    """A run record as grade_one writes it, taking ``seconds``."""
    return {"inputs_digest": "0" * 64, "graded": graded, "reason": None if graded else "not a notebook",
            "seconds": seconds, "times": {}, "finished": 1_700_000_000.0}


def test_grading_times_come_from_each_submission_s_latest_grading_record(tmp_path):
    course = Course(tmp_path)
    write_record(course, "02_softmax", "ada", graded_record(True, 2.5))
    write_record(course, "02_softmax", "ben", graded_record(False, 0.25))
    write_record(course, "02_softmax", "ada", graded_record(True, 1.75))
    write_record(course, "01_variance", "ada", graded_record(True, 9.0))
    assert grading_times(course, "02_softmax") == {"ada": 1.75, "ben": 0.25}


def test_a_damaged_grading_record_costs_only_that_student(tmp_path):
    course = Course(tmp_path)
    write_record(course, "02_softmax", "ada", graded_record(True, 2.0))
    record_path(course, "02_softmax", "cy").write_text('{"seconds": ', encoding="utf-8")
    write_record(course, "02_softmax", "ben", graded_record(True, 3.0))
    assert grading_times(course, "02_softmax") == {"ada": 2.0, "ben": 3.0}


def test_reading_grading_times_of_an_ungraded_course_creates_nothing(tmp_path):
    assert grading_times(Course(tmp_path), "02_softmax") == {}
    assert not (tmp_path / ".grader").exists()


@pytest.mark.parametrize("seconds", [0.0, 12.345])
def test_grading_records_live_in_the_private_state_folder(tmp_path, seconds):
    course = Course(tmp_path)
    write_record(course, "02_softmax", "ada", graded_record(True, seconds))
    assert course.state_dir in record_path(course, "02_softmax", "ada").parents
    assert grading_times(course, "02_softmax") == {"ada": seconds}
    assert oct(course.state_dir.stat().st_mode & 0o777) == "0o700"
