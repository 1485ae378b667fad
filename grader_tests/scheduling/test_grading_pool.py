"""How the pool of grading workers starts and ends a class: what must hold before any hand-in is
graded is checked in the first worker, and the caller's own work after the last outcome overlaps
the workers' exit."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from grader.demo.corpus import get_submission, hand_in
from grader.scheduling.pool import grade_submissions

ASSIGNMENT = "02_softmax"
CHECKED_BY = "checked_by"  # the file refuse_all writes: the pid of the process that ran it


def refuse_all(course_root: str) -> None:
    """A check that refuses every course, noting which process ran it."""
    (Path(course_root) / CHECKED_BY).write_text(str(os.getpid()))
    raise SystemExit("error: the course policy cannot be used")


def handed_in(course, students: list[str]) -> list[tuple[str, str]]:
    for student in students:
        hand_in(course, student, get_submission(ASSIGNMENT, "model_answer"))
    return [(ASSIGNMENT, student) for student in students]


def test_a_refusal_before_grading_comes_from_the_first_worker_and_nothing_is_graded(course):
    pairs = handed_in(course, ["ada", "bob"])
    with pytest.raises(SystemExit, match="the course policy cannot be used"):
        grade_submissions(course, pairs, workers=2, force=True, before_grading=refuse_all)
    assert int((course.root / CHECKED_BY).read_text()) != os.getpid()
    assert not course.autograded_notebook("ada", ASSIGNMENT).exists()
    assert not course.autograded_notebook("bob", ASSIGNMENT).exists()


def test_with_one_worker_the_refusal_comes_from_this_process(course):
    pairs = handed_in(course, ["ada"])
    with pytest.raises(SystemExit):
        grade_submissions(course, pairs, workers=1, force=True, before_grading=refuse_all)
    assert int((course.root / CHECKED_BY).read_text()) == os.getpid()
    assert not course.autograded_notebook("ada", ASSIGNMENT).exists()


@pytest.mark.slow
def test_the_work_after_the_last_outcome_runs_once_with_every_outcome_in(course):
    pairs = handed_in(course, ["ada", "bob", "cyd"])
    outcomes, seen_at_stop = [], []
    grade_submissions(course, pairs, workers=2, force=True, on_outcome=outcomes.append,
                      while_workers_stop=lambda: seen_at_stop.append(len(outcomes)))
    assert seen_at_stop == [3]
    assert all(outcome.graded for outcome in outcomes)
