"""The student loop with real Unix accounts: release -> fetch -> validate -> submit -> grader watch
-> fetch_feedback, and what one student can and cannot reach of another's and of the course.

Run as root (accounts are created with useradd and removed afterwards); skipped otherwise.
"""
from __future__ import annotations

import glob
from pathlib import Path

import nbformat
import pytest

from grader.demo.corpus import build_notebook, get_submission
from grader.service.journal import RELEASED, Journal
from grader_tests.checkout import REPO_ROOT
from grader_tests.student_accounts import exchange_class, root_skip_reason, student_python

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(root_skip_reason() is not None, reason=str(root_skip_reason()))]

ASSIGNMENT = "02_softmax"
NOTEBOOK = "softmax.ipynb"
HANDED_IN = {0: "model_answer", 1: "softmax_no_max_subtraction"}


@pytest.fixture(scope="module")
def loop(released_course_template, tmp_path_factory):
    """Two students hand in through the exchange; the service grades; they fetch feedback."""
    modes = {p: p.stat().st_mode for p in (REPO_ROOT / "solutions", REPO_ROOT / "source",
                                           REPO_ROOT / "grader")}
    try:
        with exchange_class(released_course_template, tmp_path_factory.mktemp("loop") / "course",
                            "sal-loop-") as scene:
            course, students = scene.course, scene.students
            release = scene.release(ASSIGNMENT)
            source = nbformat.read(course.source_notebook(ASSIGNMENT), as_version=4)
            outputs = {"release": release.stdout + release.stderr}
            for index, student in enumerate(students):
                student.nbgrader("fetch_assignment", ASSIGNMENT)
                fetched = student.home / ASSIGNMENT / NOTEBOOK
                notebook = build_notebook(get_submission(ASSIGNMENT, HANDED_IN[index]),
                                          nbformat.read(fetched, as_version=4), source)
                student.write(f"{ASSIGNMENT}/{NOTEBOOK}", nbformat.writes(notebook))
                validate = student.nbgrader("validate", f"{ASSIGNMENT}/{NOTEBOOK}", check=False)
                outputs[f"validate{index}"] = validate.stdout + validate.stderr
                student.nbgrader("submit", ASSIGNMENT)
            # The second student also hands in under the first one's name (nbgrader allows --student).
            students[1].nbgrader("submit", ASSIGNMENT, "--student", students[0].name)
            outputs["watch"] = scene.watch_once().stderr
            for student in students:
                student.nbgrader("fetch_feedback", ASSIGNMENT)
            yield course, scene.exchange, students, outputs
    finally:
        for path, mode in modes.items():
            path.chmod(mode)


def feedback_pages(student) -> list[Path]:
    return sorted(Path(p) for p in glob.glob(str(student.home / ASSIGNMENT / "feedback" / "*" / "*.html")))


def test_each_student_fetches_feedback_on_their_own_submission(loop):
    course, _, students, _ = loop
    full, partial = (feedback_pages(s) for s in students)
    assert len(full) == 1
    assert "no max subtraction" not in full[0].read_text()
    assert any("no max subtraction" in page.read_text() for page in partial)


def test_a_hand_in_under_another_students_name_is_refused_and_told_to_its_author(loop):
    course, _, (alice, bob), _ = loop
    journal = Journal(course.state_dir / "service.sqlite")
    assert [row.outcome for row in journal.of(alice.name, ASSIGNMENT)] == ["graded"]  # nothing under her name
    (refused,) = [row for row in journal.of(bob.name, ASSIGNMENT) if row.outcome == "refused"]
    assert f"names student {alice.name} but was handed in by the account {bob.name}" in refused.problem
    pages = [page.read_text() for page in feedback_pages(bob)]
    assert len(pages) == 2 and sum(f"handed in by the account {bob.name}" in p for p in pages) == 1


def test_the_gradebook_holds_one_scored_submission_per_student(loop):
    from nbgrader.api import Gradebook

    course, _, students, _ = loop
    with Gradebook(course.db_url) as gb:
        scores = {s.name: gb.find_submission(ASSIGNMENT, s.name).score for s in students}
        max_score = gb.find_assignment(ASSIGNMENT).max_score
        assert len(gb.assignment_submissions(ASSIGNMENT)) == 2
    assert scores[students[0].name] == max_score  # the refused hand-in under this name is not graded
    assert 0 < scores[students[1].name] < max_score


def test_watch_logs_one_line_per_submission_with_score_and_first_problem(loop):
    _, _, students, outputs = loop
    lines = [line for line in outputs["watch"].splitlines() if f" {ASSIGNMENT} graded " in line]
    assert len(lines) == 2, outputs["watch"]
    wrong = next(line for line in lines if students[1].name in line)
    assert "first problem: softmax: no max subtraction" in wrong
    assert "s first problem" in wrong  # the seconds it took


def test_journal_releases_every_submission(loop):
    course, _, _, _ = loop
    rows = Journal(course.state_dir / "service.sqlite").all()
    assert [row.state for row in rows] == [RELEASED, RELEASED, RELEASED]
    assert [row.gradings for row in rows] == [1, 1, 0]


def test_validate_runs_the_visible_tests_without_showing_hidden_material(loop):
    course, _, _, outputs = loop
    source_text = course.source_notebook(ASSIGNMENT).read_text()
    assert "BEGIN HIDDEN TESTS" in source_text  # so the check below can fail
    for key in ("validate0", "validate1"):
        assert "BEGIN HIDDEN" not in outputs[key] and "probe(" not in outputs[key]
    assert "Success! Your notebook passes all the tests." in outputs["validate0"]


def test_a_student_cannot_list_the_inbound_or_read_another_students_files(loop):
    _, exchange, (alice, bob), _ = loop
    course_dir = next(p for p in exchange.iterdir() if p.is_dir())
    inbound = course_dir / "inbound"
    alice_uid = alice.home.stat().st_uid
    alice_submission = next(p for p in inbound.glob(f"{alice.name}+*") if p.stat().st_uid == alice_uid)
    assert not bob.can("ls", str(inbound))
    assert not bob.can("ls", str(course_dir / "feedback"))
    assert not bob.can("ls", str(alice.home))
    assert not bob.can("cat", str(alice.home / ASSIGNMENT / NOTEBOOK))
    # Even with the unguessable name, the submission folder cannot be removed or renamed.
    assert not bob.can("mv", str(alice_submission), str(inbound / f"{bob.name}+stolen"))
    assert alice_submission.is_dir()


def test_a_student_cannot_change_released_feedback(loop):
    _, exchange, (alice, bob), _ = loop
    feedback_dir = next(p for p in exchange.iterdir() if p.is_dir()) / "feedback"
    released = sorted(feedback_dir.glob("*.html"))
    assert len(released) == 3
    for page in released:
        assert not bob.can("sh", "-c", f"echo forged > {page}")
        assert not bob.can("rm", "-f", str(page))
    assert not bob.can("touch", str(feedback_dir / "forged.html"))


def test_a_student_cannot_read_source_gradebook_solutions_or_service_state(loop):
    course, _, (_, bob), _ = loop
    for path in (course.source_notebook(ASSIGNMENT), course.gradebook, course.root / ".grader",
                 course.root / "submitted", course.root / "autograded",
                 REPO_ROOT / "solutions" / "saturation.py", REPO_ROOT / "source" / ASSIGNMENT / NOTEBOOK):
        assert path.exists(), path
        assert not bob.can("cat", str(path)) and not bob.can("ls", str(path)), path


def test_a_student_cannot_import_the_reference_package(loop):
    _, _, (_, bob), _ = loop
    for module in ("solutions.saturation", "grader.grading.preprocessors.decide_verdicts"):
        probe = bob.run(student_python(), "-c", f"import {module}", check=False)
        assert probe.returncode != 0 and "Error" in probe.stderr, module
    assert not bob.can("cat", str(REPO_ROOT / "grader" / "verdicts.py"))
