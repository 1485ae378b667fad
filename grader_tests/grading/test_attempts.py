"""Credit that remembers attempts (grader.grading.attempt_credit): distinct wrong answers cap what a quiz item can earn."""
from __future__ import annotations

import json

import pytest
from check_harness import judge
from traitlets.config import Config

from grader import kernel_side
from grader.checks import get_check
from grader.grading.attempt_credit import Attempt, AttemptCredit, AttemptHistory, answer_key, credit_with_history
from grader.grading.preprocessors.decide_verdicts import DecideVerdicts
from solutions.variants import numbers_for

STUDENT = "cyc"
ITEM = "answer_culprit"


def graded(history, policy, answer, timestamp, student=STUDENT, item=ITEM):
    """The verdict of ``answer`` to ``item`` handed in at ``timestamp``, after the history so far."""
    numbers = numbers_for(student)[item]
    verdict = judge(get_check(item), {item: answer, "my_numbers": {item: numbers}} if answer is not None else {})
    wire = kernel_side.encode(answer) if answer is not None else None
    return credit_with_history(verdict, Attempt("02_softmax", student, item, timestamp, wire), history, policy)


@pytest.fixture
def history(tmp_path):
    return AttemptHistory(tmp_path / ".grader")


def right_letter(student=STUDENT) -> str:
    return get_check(ITEM).expected_value(numbers_for(student)[ITEM])


def test_a_right_first_answer_earns_full_credit(history):
    assert graded(history, AttemptCredit(), right_letter(), "2026-12-01T10:00:00").fraction == 1.0


def test_cycling_through_the_letters_earns_at_most_the_schedules_reduced_credit(history):
    policy = AttemptCredit()
    wrong = [letter for letter in "ABCD" if letter != right_letter()]
    for minute, letter in enumerate(wrong):
        assert graded(history, policy, letter, f"2026-12-01T10:0{minute}:00").fraction == 0.0
    final = graded(history, policy, right_letter(), "2026-12-01T10:09:00")
    assert final.fraction == policy.schedule[3] == 0.0
    assert "right for your numbers" in final.note and "3 different wrong answers" in final.note


def test_each_distinct_wrong_answer_lowers_the_cap_by_the_schedule(history):
    policy = AttemptCredit(schedule=[1.0, 0.6, 0.3])
    wrong = [letter for letter in "ABCD" if letter != right_letter()]
    graded(history, policy, wrong[0], "2026-12-01T10:00:00")
    assert graded(history, policy, right_letter(), "2026-12-01T10:01:00").fraction == 0.6
    graded(history, policy, wrong[1], "2026-12-01T10:02:00")
    graded(history, policy, wrong[2], "2026-12-01T10:03:00")
    assert graded(history, policy, right_letter(), "2026-12-01T10:04:00").fraction == 0.3  # the last entry holds


def test_handing_in_the_same_wrong_answer_again_costs_nothing(history):
    wrong = next(letter for letter in "ABCD" if letter != right_letter())
    for minute in range(3):
        graded(history, AttemptCredit(), wrong.lower() if minute else wrong, f"2026-12-01T10:0{minute}:00")
    assert graded(history, AttemptCredit(), right_letter(), "2026-12-01T10:05:00").fraction == 0.5


def test_an_unanswered_item_costs_nothing(history):
    for minute in range(3):
        assert graded(history, AttemptCredit(), None, f"2026-12-01T10:0{minute}:00").fraction == 0.0
    assert graded(history, AttemptCredit(), right_letter(), "2026-12-01T10:05:00").fraction == 1.0


def test_regrading_a_submission_replays_the_same_history(history):
    policy = AttemptCredit()
    wrong = [letter for letter in "ABCD" if letter != right_letter()]
    graded(history, policy, wrong[0], "2026-12-01T10:00:00")
    first = graded(history, policy, right_letter(), "2026-12-01T10:01:00").fraction
    graded(history, policy, wrong[1], "2026-12-01T10:02:00")  # a later hand-in
    assert graded(history, policy, right_letter(), "2026-12-01T10:01:00").fraction == first == 0.5
    assert graded(history, policy, wrong[0], "2026-12-01T10:00:00").fraction == 0.0
    assert graded(history, policy, right_letter(), "2026-12-01T10:01:00").fraction == first


def test_the_cap_is_per_student_and_per_item(history):
    policy = AttemptCredit()
    wrong = next(letter for letter in "ABCD" if letter != right_letter())
    graded(history, policy, wrong, "2026-12-01T10:00:00")
    assert graded(history, policy, right_letter("other"), "2026-12-01T10:01:00", student="other").fraction == 1.0
    ratio = get_check("answer_ab_ratio").expected_value(numbers_for(STUDENT)["answer_ab_ratio"])
    assert graded(history, policy, ratio, "2026-12-01T10:01:00", item="answer_ab_ratio").fraction == 1.0


def test_the_feedback_says_what_the_item_can_still_earn_and_never_the_answer(history):
    wrong = [letter for letter in "ABCD" if letter != right_letter()]
    verdict = graded(history, AttemptCredit(), wrong[0], "2026-12-01T10:00:00")
    text = verdict.explain()
    assert "can still earn 50 % of its points" in text and "1 different wrong answer " in text
    assert f'"{right_letter()}"' not in text and f" {right_letter()} " not in text.replace(wrong[0], "")


def test_numbers_equal_to_six_digits_are_one_answer():
    assert answer_key(kernel_side.encode(0.2018965179946)) == answer_key(kernel_side.encode(0.20189651799465538))
    assert answer_key(kernel_side.encode(0.2018)) != answer_key(kernel_side.encode(0.2019))
    assert answer_key(kernel_side.encode(" b")) == answer_key(kernel_side.encode("B"))


def test_the_schedule_is_read_from_the_course_config():
    config = Config()
    config.AttemptCredit.schedule = [1.0, 0.0]
    assert AttemptCredit(config=config).cap(1) == 0.0 and AttemptCredit(config=config).cap(7) == 0.0
    assert AttemptCredit().schedule == [1.0, 0.5, 0.25, 0.0]


def test_an_assignment_without_immediate_feedback_remembers_nothing(tmp_path):
    config = Config()
    config.GradingService.immediate_feedback = {"04_attention": False}
    preprocessor = DecideVerdicts(config=config)
    resources = {"nbgrader": {"assignment": "04_attention", "student": STUDENT, "db_url": "sqlite://"}}
    assert preprocessor.attempt_memory(resources) is None


def test_the_history_lives_in_the_courses_private_folder(history):
    graded(history, AttemptCredit(), next(l for l in "ABCD" if l != right_letter()), "2026-12-01T10:00:00")
    assert history.path.name == "attempts.sqlite" and history.path.parent.name == ".grader"
    assert history.students_items() == {("02_softmax", STUDENT, ITEM): 1}
    assert json.loads(answer_key(kernel_side.encode("a"))) == ["str", "A"]
