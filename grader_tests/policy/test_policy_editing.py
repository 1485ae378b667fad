"""`grader policy set` edits one line of the policy file and leaves every other line, comments too, as it was."""
from __future__ import annotations

from grader.policy.editing import with_override

FILE = "# the course's overrides\nwho,assignment,setting,value\n# Ada was ill\nada,02_softmax,extension_hours,48\n"


def test_a_new_override_is_added_at_the_end():
    assert with_override(FILE, "bob", "", "late_days", "4").splitlines()[-1] == "bob,,late_days,4"


def test_an_override_set_before_is_replaced_in_place_keeping_the_comments():
    assert with_override(FILE, "ada", "02_softmax", "extension_hours", "72").splitlines() == [
        "# the course's overrides", "who,assignment,setting,value", "# Ada was ill",
        "ada,02_softmax,extension_hours,72"]


def test_the_same_setting_for_another_assignment_is_a_new_line():
    assert len(with_override(FILE, "ada", "", "extension_hours", "24").splitlines()) == 5


def test_an_empty_file_gets_the_header_first():
    assert with_override("", "ada", "", "accommodation", "extra-time-1.5x").splitlines() == [
        "who,assignment,setting,value", "ada,,accommodation,extra-time-1.5x"]


def test_a_value_with_spaces_or_commas_is_quoted():
    assert with_override("", "ada", "", "attempt_schedule", "1,1").splitlines()[-1] == 'ada,,attempt_schedule,"1,1"'


def test_joining_a_second_group_keeps_the_first():
    text = with_override(with_override("", "ada", "", "group", "evening"), "ada", "", "group", "lab-b")
    assert text.splitlines()[1:] == ["ada,,group,evening", "ada,,group,lab-b"]
