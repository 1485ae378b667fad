"""One student's policy for one assignment (grader.policy): precedence of overrides, late days, penalties."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from grader.policy.declaration import parse_policy_text
from grader.policy.late_days import HandIn, late_outcome, spend_late_days
from grader.policy.resolution import ClassPolicy, resolve

DUE = datetime(2026, 3, 2, 23, 59, tzinfo=timezone.utc)
RELEASE = datetime(2026, 2, 23, 9, 0, tzinfo=timezone.utc)
CLASS = ClassPolicy(release={"02_softmax": RELEASE}, due={"01_variance": DUE - timedelta(days=7), "02_softmax": DUE},
                    late_window_hours=72, late_penalty_per_day=0.1, late_days=3,
                    accommodations={"extra-time-1.5x": 1.5})


def declared(*rows: str):
    return parse_policy_text("\n".join(("who,assignment,setting,value",) + rows), "policy.csv",
                             CLASS.accommodations)


def test_without_overrides_a_student_gets_the_class_policy():
    policy = resolve("ada", "02_softmax", declared(), CLASS)
    assert (policy.due, policy.late_window, policy.late_penalty_per_day) == (DUE, timedelta(hours=72), 0.1)
    assert policy.attempt_schedule == CLASS.attempt_schedule and not policy.has_extension


def test_an_extension_moves_only_that_students_due_date_for_that_assignment():
    declaration = declared("ada,02_softmax,extension_hours,48")
    assert resolve("ada", "02_softmax", declaration, CLASS).due == DUE + timedelta(hours=48)
    assert resolve("ada", "01_variance", declaration, CLASS).due == CLASS.due["01_variance"]
    assert resolve("bob", "02_softmax", declaration, CLASS).due == DUE


def test_a_students_own_row_beats_their_groups_row():
    declaration = declared("ada,,group,evening", "group:evening,,late_penalty_per_day,0.2",
                           "ada,,late_penalty_per_day,0.05", "bob,,group,evening")
    assert resolve("ada", "02_softmax", declaration, CLASS).late_penalty_per_day == 0.05
    assert resolve("bob", "02_softmax", declaration, CLASS).late_penalty_per_day == 0.2


def test_a_row_for_one_assignment_beats_a_row_for_every_assignment():
    declaration = declared("ada,02_softmax,max_graded_per_hour,2", "ada,,max_graded_per_hour,10")
    assert resolve("ada", "02_softmax", declaration, CLASS).max_graded_per_hour == 2
    assert resolve("ada", "01_variance", declaration, CLASS).max_graded_per_hour == 10


def test_an_accommodation_scales_the_working_window_and_the_late_window():
    policy = resolve("ada", "02_softmax", declared("ada,,accommodation,extra-time-1.5x"), CLASS)
    assert policy.due == RELEASE + (DUE - RELEASE) * 1.5
    assert policy.late_window == timedelta(hours=108) and policy.scale == 1.5


def test_an_attempt_schedule_override_replaces_the_class_schedule():
    policy = resolve("ada", "02_softmax", declared("ada,,attempt_schedule,1 1 0.5"), CLASS)
    assert policy.attempt_schedule == (1.0, 1.0, 0.5)


def test_a_late_hand_in_spends_whole_late_days_instead_of_losing_points():
    policy = resolve("ada", "02_softmax", declared(), CLASS)
    outcome = spend_late_days([HandIn(policy, DUE + timedelta(hours=30))])["02_softmax"]
    assert (outcome.late_days_spent, outcome.late_days_left, outcome.penalty_share) == (2, 1, 0.0)


def test_late_days_go_to_the_assignments_in_due_date_order_whatever_order_they_are_given():
    policy_1, policy_2 = (resolve("ada", a, declared(), CLASS) for a in ("01_variance", "02_softmax"))
    hand_ins = [HandIn(policy_2, DUE + timedelta(hours=47)), HandIn(policy_1, policy_1.due + timedelta(hours=25))]
    outcomes = spend_late_days(hand_ins)
    assert outcomes == spend_late_days(list(reversed(hand_ins)))
    assert outcomes["01_variance"].late_days_spent == 2
    assert outcomes["02_softmax"].late_days_spent == 1
    assert outcomes["02_softmax"].penalty_share == pytest.approx(0.1)  # one day left uncovered


def test_a_hand_in_after_the_late_window_earns_nothing():
    policy = resolve("ada", "02_softmax", declared(), CLASS)
    assert late_outcome(policy, DUE + timedelta(hours=73), 0, 0).penalty_share == 1.0


def test_an_on_time_hand_in_has_no_penalty_and_spends_nothing():
    policy = resolve("ada", "02_softmax", declared(), CLASS)
    outcome = spend_late_days([HandIn(policy, DUE - timedelta(minutes=1))])["02_softmax"]
    assert (outcome.late_days_spent, outcome.penalty_share, outcome.late_days_left) == (0, 0.0, 3)


def test_a_group_later_in_the_file_beats_an_earlier_one():
    declaration = declared("ada,,group,evening", "ada,,group,lab-b", "group:evening,,late_penalty_per_day,0.2",
                           "group:lab-b,,late_penalty_per_day,0.3")
    assert resolve("ada", "02_softmax", declaration, CLASS).late_penalty_per_day == 0.3


def test_an_extension_is_added_after_the_accommodation_stretches_the_window():
    declaration = declared("ada,,accommodation,extra-time-1.5x", "ada,02_softmax,extension_hours,24")
    assert resolve("ada", "02_softmax", declaration, CLASS).due == RELEASE + (DUE - RELEASE) * 1.5 + timedelta(hours=24)


def test_late_days_cannot_exceed_the_per_assignment_cap():
    capped = ClassPolicy(due={"02_softmax": DUE}, late_days=5, max_late_days_per_assignment=1,
                         late_penalty_per_day=0.1)
    outcome = spend_late_days([HandIn(resolve("ada", "02_softmax", declared(), capped), DUE + timedelta(hours=40))])
    assert (outcome["02_softmax"].late_days_spent, outcome["02_softmax"].penalty_share) == (1, pytest.approx(0.1))


def test_a_students_own_late_day_allowance_replaces_the_classs():
    policy = resolve("eve", "02_softmax", declared("eve,,late_days,5"), CLASS)
    assert spend_late_days([HandIn(policy, DUE + timedelta(hours=100))])["02_softmax"].late_days_spent == 5
