"""`grader autograde` runs that can be trusted: unchanged submissions are skipped, and a run killed
with SIGKILL half way and started again grades every submission exactly once and loses nothing."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time

import nbformat
import pytest
from nbgrader.api import Gradebook

from grader.course import Course
from grader.demo.corpus import write_submission
from grader.demo.simulated_class import simulated_class
from grader.grading import run_record
from grader.scheduling.pool import grade_class
from grader_tests.checkout import ASSIGNMENTS

pytestmark = pytest.mark.slow
ASSIGNMENT = "01_variance"
FIXED_SEED = "\nc.PrepareProbes.seed = 20240601\n"
RUN_TIMEOUT = 900  # seconds; generous for a loaded machine


def hand_in_class(course: Course, copies: int = 1) -> list[str]:
    """The simulated class's 01_variance submissions, each handed in ``copies`` times; the students."""
    with open(course.root / "nbgrader_config.py", "a", encoding="utf-8") as config:
        config.write(FIXED_SEED)
    students = []
    for student, assignment, notebook in simulated_class(course):
        if assignment != ASSIGNMENT:
            continue
        for copy in range(copies):
            name = f"{student}{copy}"
            write_submission(course, name, assignment,
                             notebook.encode("utf-8") if isinstance(notebook, str) else notebook)
            students.append(name)
    return sorted(students)


def scores(course: Course, students: list[str]) -> dict[str, dict[str, float | None]]:
    with Gradebook(course.db_url) as gb:
        return {s: {g.name: g.score for g in gb.find_submission_notebook(ASSIGNMENTS[ASSIGNMENT], ASSIGNMENT, s).grades}
                for s in students}


def finished_times(course: Course, students: list[str]) -> dict[str, float]:
    records = {s: run_record.read_record(course, ASSIGNMENT, s) for s in students}
    return {s: r["finished"] for s, r in records.items() if r is not None}


def autograde_command(course: Course, *extra: str) -> list[str]:
    return [sys.executable, "-m", "grader.cli", "autograde", ASSIGNMENT, "--course", str(course.root),
            "--workers", "2", *extra]


def test_a_rerun_skips_every_unchanged_submission(course):
    students = hand_in_class(course)
    first = grade_class(course, ASSIGNMENT, workers=2, force=False)
    second = grade_class(course, ASSIGNMENT, workers=2, force=False)
    assert [o.skipped for o in first] == [False] * len(students)
    assert [o.skipped for o in second] == [True] * len(students)
    assert [(o.student, o.graded, o.reason) for o in second] == [(o.student, o.graded, o.reason) for o in first]


def test_a_changed_submission_is_graded_again_and_only_it(course):
    students = hand_in_class(course)
    grade_class(course, ASSIGNMENT, workers=2, force=False)
    changed = course.submitted_notebook("ada0", ASSIGNMENT)
    notebook = nbformat.read(changed, as_version=4)
    notebook.cells.append(nbformat.v4.new_markdown_cell("one more thought"))
    nbformat.write(notebook, changed)
    outcomes = grade_class(course, ASSIGNMENT, workers=2, force=False)
    assert [o.student for o in outcomes if not o.skipped] == ["ada0"]
    assert len(outcomes) == len(students)


def test_force_grades_unchanged_submissions_again(course):
    hand_in_class(course)
    grade_class(course, ASSIGNMENT, workers=1, students=["fay0"], force=False)
    again = grade_class(course, ASSIGNMENT, workers=1, students=["fay0"], force=True)
    assert [o.skipped for o in again] == [False]


def test_a_run_killed_half_way_and_run_again_grades_each_submission_once_and_loses_nothing(course, tmp_path):
    students = hand_in_class(course, copies=2)
    reference = Course(tmp_path / "reference")
    shutil.copytree(course.root, reference.root)
    run = subprocess.Popen(autograde_command(course), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + RUN_TIMEOUT
    while not finished_times(course, students) and run.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(run.pid, signal.SIGKILL)
    run.wait()
    time.sleep(2)  # the workers die with it (parent-death signal); let the last of them go
    before = finished_times(course, students)
    assert 1 <= len(before) < len(students), "the kill should land half way through the class"

    rerun = subprocess.run(autograde_command(course), capture_output=True, text=True, timeout=RUN_TIMEOUT)

    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    assert f"{len(before)} submissions unchanged" in rerun.stdout
    after = finished_times(course, students)
    assert sorted(after) == students  # every submission has a finished grading
    assert {s: after[s] for s in before} == before  # nothing finished before the kill was graded again
    grade_class(reference, ASSIGNMENT, workers=2, force=True)
    assert scores(course, students) == scores(reference, students)
    assert all(score is not None for per_cell in scores(course, students).values() for score in per_cell.values())
