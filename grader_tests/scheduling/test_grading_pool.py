"""How the pool of grading workers starts and ends a class: what must hold before any hand-in is
graded is checked in the first worker, and what follows an assignment's grading (its class report)
runs in a worker as soon as that assignment's last outcome is in."""
from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from grader.demo.corpus import get_submission, hand_in
from grader.scheduling.pool import grade_submissions, grading_workers

ASSIGNMENT = "02_softmax"
OTHER_ASSIGNMENT = "04_attention"
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


def finished_by(course_root: str, assignment: str) -> int:
    """What a finish returns: the pid of the process that ran it."""
    return os.getpid()


def refuse_to_finish(course_root: str, assignment: str) -> int:
    raise ValueError("this report cannot be built")


def graded_with_finish(course, pairs, workers: int, finish=finished_by) -> list[tuple]:
    """Grade ``pairs`` and say, in order, each outcome ("outcome", assignment) and each finish
    ("finished", assignment, its value)."""
    events = []
    grade_submissions(course, pairs, workers=workers, force=True,
                      on_outcome=lambda o: events.append(("outcome", o.assignment)),
                      finish_assignment=finish, on_finished=lambda a, v: events.append(("finished", a, v)))
    return events


def two_assignments_handed_in(course) -> list[tuple[str, str]]:
    hand_in(course, "cyd", get_submission(OTHER_ASSIGNMENT, "model_answer"))
    return handed_in(course, ["ada", "bob"]) + [(OTHER_ASSIGNMENT, "cyd")]


def test_each_assignment_is_finished_once_in_a_worker_after_its_last_outcome(course):
    events = graded_with_finish(course, two_assignments_handed_in(course), workers=2)
    for assignment in (ASSIGNMENT, OTHER_ASSIGNMENT):
        finishes = [i for i, event in enumerate(events) if event[:2] == ("finished", assignment)]
        outcomes = [i for i, event in enumerate(events) if event == ("outcome", assignment)]
        assert len(finishes) == 1 and finishes[0] > max(outcomes)
        assert events[finishes[0]][2] != os.getpid()


def test_with_one_worker_an_assignment_is_finished_here_after_its_last_outcome(course):
    events = graded_with_finish(course, handed_in(course, ["ada", "bob"]), workers=1)
    assert events == [("outcome", ASSIGNMENT), ("outcome", ASSIGNMENT), ("finished", ASSIGNMENT, os.getpid())]


def test_a_finish_that_raises_is_left_to_the_caller_and_every_hand_in_is_still_graded(course):
    pairs = handed_in(course, ["ada", "bob"])
    events = graded_with_finish(course, pairs, workers=2, finish=refuse_to_finish)
    assert events == [("outcome", ASSIGNMENT)] * 2
    assert all(course.autograded_notebook(student, ASSIGNMENT).exists() for _, student in pairs)


def test_an_assignment_whose_hand_ins_are_all_unchanged_is_finished_too(course):
    pairs = handed_in(course, ["ada"])
    grade_submissions(course, pairs, workers=1, force=True)
    finished = []
    grade_submissions(course, pairs, workers=2, finish_assignment=finished_by,
                      on_finished=lambda a, v: finished.append(a))
    assert finished == [ASSIGNMENT]


def where_i_run() -> tuple[int, tuple[int, ...]]:
    """(pid, the cores it may run on) of the worker that runs it, after a pause that keeps the other
    workers' tasks off it."""
    time.sleep(0.5)
    return os.getpid(), tuple(sorted(os.sched_getaffinity(0)))


def cores_of_workers(workers: int) -> dict[int, tuple[int, ...]]:
    with grading_workers(workers) as pool:
        return dict(future.result() for future in [pool.submit(where_i_run) for _ in range(3 * workers)])


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two cores")
def test_each_worker_runs_on_a_core_of_its_own_when_there_are_enough():
    cores = cores_of_workers(2)
    assert len(cores) == 2
    assert all(len(allowed) == 1 for allowed in cores.values())
    assert len(set(cores.values())) == 2


def test_with_more_workers_than_cores_the_workers_may_run_on_every_core():
    every_core = tuple(sorted(os.sched_getaffinity(0)))
    cores = cores_of_workers(len(every_core) + 1)
    assert set(cores.values()) == {every_core}


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two cores (on one, no pool is pinned)")
def test_where_the_system_cannot_pin_a_process_the_workers_may_run_on_every_core(monkeypatch):
    every_core = tuple(sorted(os.sched_getaffinity(0)))
    monkeypatch.delattr(os, "sched_setaffinity")  # as on macOS; the workers, spawned afresh, still can
    cores = cores_of_workers(2)
    assert set(cores.values()) == {every_core}
