"""Per-student numbers with real Unix accounts: the same release shows each student their own numbers.

Two accounts fetch the released 01_variance, run its ``my_numbers`` cell as themselves and see
different numbers; each hands in answers computed from their own numbers and gets full marks
through ``grader watch``; then the second hands in the first one's answers, typed in, gets 0 on
every item whose numbers differ, and the class report lists it under "Answers that fit someone
else's numbers". Run as root (accounts are created with useradd and removed afterwards).
"""
from __future__ import annotations

import csv
import json
import sys

import nbformat
import pytest
from nbgrader.api import Gradebook

from grader.checks import get_check
from grader.course import Course
from grader.demo.corpus import Submission, build_notebook, get_submission
from grader.grading.student_numbers import NUMBERS_CELL
from grader_tests.student_accounts import exchange_class, root_skip_reason, student_python
from solutions.variants import ASSIGNMENT_ITEMS, numbers_for

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(root_skip_reason() is not None, reason=str(root_skip_reason()))]

ASSIGNMENT = "01_variance"
NOTEBOOK = "variance.ipynb"
ITEMS = ASSIGNMENT_ITEMS[ASSIGNMENT]
#: Run by a student on their fetched notebook: the my_numbers cell as Jupyter would run it.
RUN_NUMBERS_CELL = f"""
import json, sys
notebook = json.load(open(sys.argv[1], encoding="utf-8"))
cell = next(c for c in notebook["cells"] if c["metadata"].get("nbgrader", {{}}).get("grade_id") == "{NUMBERS_CELL}")
exec("".join(cell["source"]))
print("MY_NUMBERS " + json.dumps(my_numbers))
"""


def scores(course: Course, student: str) -> dict[str, float]:
    with Gradebook(course.db_url) as gb:
        notebook = gb.find_submission_notebook(NOTEBOOK.removesuffix(".ipynb"), ASSIGNMENT, student)
        return {grade.name: float(grade.score) for grade in notebook.grades}


def typed_answers(numbers_of: str) -> dict[str, str]:
    """Solution cells holding ``numbers_of``'s answers as typed literals."""
    cells = {}
    for item in ITEMS:
        value = get_check(item).expected_value(numbers_for(numbers_of)[item])
        cells[item] = f"{item} = {float(value)!r}\n"
    return cells


@pytest.fixture(scope="module")
def accounts(released_course_template, tmp_path_factory):
    with exchange_class(released_course_template, tmp_path_factory.mktemp("variants") / "course",
                        "sal-variants-") as scene:
        course, students = scene.course, scene.students
        scene.release(ASSIGNMENT)
        source = nbformat.read(course.source_notebook(ASSIGNMENT), as_version=4)
        seen, first_scores = {}, {}
        for student in students:
            student.nbgrader("fetch_assignment", ASSIGNMENT)
            fetched = student.home / ASSIGNMENT / NOTEBOOK
            shown = student.run(student_python(), "-c", RUN_NUMBERS_CELL, str(fetched)).stdout
            seen[student.name] = shown
            notebook = build_notebook(get_submission(ASSIGNMENT, "model_answer"), nbformat.read(fetched, as_version=4),
                                      source)
            student.write(f"{ASSIGNMENT}/{NOTEBOOK}", nbformat.writes(notebook))
            student.nbgrader("submit", ASSIGNMENT)
        scene.watch_once()
        first_scores = {s.name: scores(course, s.name) for s in students}
        # The second student now hands in the first one's answers, typed in.
        alice, bob = students
        copied = build_notebook(Submission(ASSIGNMENT, "copied", "model", "misconception", "",
                                           typed_answers(alice.name)),
                                nbformat.read(bob.home / ASSIGNMENT / NOTEBOOK, as_version=4), source)
        bob.write(f"{ASSIGNMENT}/{NOTEBOOK}", nbformat.writes(copied))
        bob.nbgrader("submit", ASSIGNMENT)
        scene.watch_once()
        scene.instructor(sys.executable, "-m", "grader.cli", "report", ASSIGNMENT)
        yield course, students, seen, first_scores


def shown_numbers(output: str) -> dict:
    return json.loads(next(line for line in output.splitlines() if line.startswith("MY_NUMBERS "))[len("MY_NUMBERS "):])


def test_two_accounts_fetching_the_same_release_see_their_own_different_numbers(accounts):
    _, (alice, bob), seen, _ = accounts
    for student in (alice, bob):
        assert f"Your numbers (student id '{student.name}')" in seen[student.name]
        assert shown_numbers(seen[student.name]) == numbers_for(student.name, ASSIGNMENT)
    assert shown_numbers(seen[alice.name]) != shown_numbers(seen[bob.name])


def test_each_student_answering_from_their_own_numbers_gets_full_marks_through_the_service(accounts):
    course, students, _, first_scores = accounts
    with Gradebook(course.db_url) as gb:
        cells = {c.name: float(c.max_score) for c in gb.find_notebook(NOTEBOOK.removesuffix(".ipynb"), ASSIGNMENT).grade_cells}
    for student in students:
        assert first_scores[student.name] == cells, student.name


def test_a_student_who_hands_in_the_others_answers_gets_nothing_for_them_and_is_in_the_report(accounts):
    course, (alice, bob), _, _ = accounts
    differing = [item for item in ITEMS
                 if get_check(item).expected_value(numbers_for(alice.name)[item])
                 != get_check(item).expected_value(numbers_for(bob.name)[item])]
    assert differing, "the two accounts' numbers give the same answers on every item"
    got = scores(course, bob.name)
    assert all(got[f"test_{item}"] == 0.0 for item in differing)
    with open(course.root / "reports" / f"{ASSIGNMENT}.csv", newline="", encoding="utf-8") as handle:
        rows = [r for r in csv.DictReader(handle) if r["table"] == "borrowed_numbers"]
    listed = {r["row"].split(": ")[1] for r in rows if r["row"].startswith(f"{bob.name}: ")
              and alice.name in r["row"].split(": ", 2)[2].split(", ")}
    assert listed == set(differing)
    page = (course.root / "reports" / f"{ASSIGNMENT}.html").read_text(encoding="utf-8")
    assert "Answers that fit someone else&#39;s numbers" in page or "Answers that fit someone else's numbers" in page
