"""Nothing lost, nothing doubled: kill -9 mid-grading and restart, SIGTERM, 30 students at once,
a rush written by its students' own accounts killed mid-grading.

The service runs as the command ``grader watch`` (a separate process) for the kill and SIGTERM
tests, and in-process for the class of 30.
"""
from __future__ import annotations

import hashlib
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from nbgrader.api import Gradebook
from nbgrader.utils import notebook_hash

from grader.demo.handin_rush import Rush, handin_from_home
from grader.service.journal import GRADED, GRADING, RELEASED, Journal
from grader.service.watch import GradingLoop
from grader_tests.service_setup import ServiceCourse, accounts_skip_reason, temporary_service_course

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(accounts_skip_reason() is not None, reason=str(accounts_skip_reason()))]

ASSIGNMENT = "02_softmax"
NOTEBOOK = "softmax.ipynb"
RUSH = 10


@pytest.fixture
def setup(released_course_template):
    with temporary_service_course(released_course_template, "sal-durability-", (ASSIGNMENT,)) as course:
        yield course


def start_watch(setup: ServiceCourse, log: Path) -> subprocess.Popen:
    """``grader watch`` as its own process, logging to ``log`` (a file: a pipe nobody reads fills)."""
    with open(log, "w") as handle:
        return subprocess.Popen([sys.executable, "-m", "grader.cli", "watch", "--course",
                                 str(setup.course.root), "--fix-permissions"],
                                stdout=handle, stderr=subprocess.STDOUT)


def journal(setup: ServiceCourse) -> Journal:
    return Journal(setup.course.state_dir / "service.sqlite")


def wait_for(predicate, timeout: float = 600, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.2)


def result_lines(log: str, account: str) -> list[str]:
    """The service's result lines (``<account> <assignment> graded <score>/<max> ...``) of one account."""
    return [line for line in log.splitlines() if f" {account} {ASSIGNMENT} graded " in f" {line}"]


def rows_in(setup: ServiceCourse, *states: str):
    if not (setup.course.root / ".grader" / "service.sqlite").exists():
        return []
    record = journal(setup)
    try:
        return record.in_state(*states)
    finally:
        record.close()


def test_kill_9_mid_grading_then_restart_grades_each_submission_once(setup, tmp_path):
    model = setup.notebook_text(ASSIGNMENT, "model_answer")
    wrong = setup.notebook_text(ASSIGNMENT, "softmax_no_max_subtraction")
    sides = {}
    for student, text in (("ann", wrong), ("bo", model), ("cy", wrong), ("ann", model)):
        sides[student] = setup.hand_in(student, ASSIGNMENT, {NOTEBOOK: text})

    first = start_watch(setup, tmp_path / "killed.log")
    try:
        wait_for(lambda: rows_in(setup, GRADING), what="a submission being graded")
        first.send_signal(signal.SIGKILL)
    finally:
        first.wait(timeout=60)
    killed_log = (tmp_path / "killed.log").read_text()
    interrupted = rows_in(setup, GRADING)
    assert interrupted, "the kill must land while a submission is being graded"

    second = subprocess.run([sys.executable, "-m", "grader.cli", "watch", "--once", "--course",
                             str(setup.course.root), "--fix-permissions"],
                            capture_output=True, text=True, timeout=900)
    assert second.returncode == 0, second.stderr
    assert "grading was interrupted; grading it again" in second.stderr

    rows = journal(setup).all()
    assert len(rows) == 4
    assert all(row.state == RELEASED and row.outcome == "graded" for row in rows)
    graded_lines = [line for line in (killed_log + second.stderr).splitlines()
                    if f" {ASSIGNMENT} graded " in line]
    assert len(graded_lines) == 4  # one result per submission, none doubled
    with Gradebook(setup.course.db_url) as gb:
        submissions = gb.assignment_submissions(ASSIGNMENT)
        assert sorted(s.student.id for s in submissions) == sorted(setup.student_id(n) for n in ("ann", "bo", "cy"))
        assert gb.find_submission(ASSIGNMENT, setup.student_id("ann")).score == gb.find_assignment(ASSIGNMENT).max_score
    assert len(sides["ann"].fetch_feedback(ASSIGNMENT)) == 2
    for student in ("bo", "cy"):
        assert len(sides[student].fetch_feedback(ASSIGNMENT)) == 1


def test_sigterm_stops_the_service_cleanly_after_releasing(setup, tmp_path):
    side = setup.hand_in("dee", ASSIGNMENT, {NOTEBOOK: setup.notebook_text(ASSIGNMENT, "model_answer")})
    service = start_watch(setup, tmp_path / "watch.log")
    try:
        wait_for(lambda: len(rows_in(setup, RELEASED)) == 1, what="the feedback release")
    finally:
        service.send_signal(signal.SIGTERM)
        service.wait(timeout=120)
    output = (tmp_path / "watch.log").read_text()
    assert service.returncode == 0, output
    assert output.rstrip().endswith("stopped")
    assert len(side.fetch_feedback(ASSIGNMENT)) == 1


def test_a_second_service_on_the_same_course_refuses_to_start(setup, tmp_path):
    service = start_watch(setup, tmp_path / "watch.log")
    try:
        wait_for(lambda: (setup.course.root / ".grader" / "service.lock").exists()
                 and (setup.course.root / ".grader" / "service.lock").read_text().strip(),
                 what="the first service's lock")
        second = subprocess.run([sys.executable, "-m", "grader.cli", "watch", "--once", "--course",
                                 str(setup.course.root), "--fix-permissions"],
                                capture_output=True, text=True, timeout=300)
    finally:
        service.send_signal(signal.SIGTERM)
        service.wait(timeout=120)
    assert second.returncode == 2
    assert "another grader watch is already serving" in second.stderr


def test_thirty_students_in_one_minute_are_all_graded_in_arrival_order_per_student(setup):
    model = setup.notebook_text(ASSIGNMENT, "model_answer")
    blank = setup.course.release_notebook(ASSIGNMENT).read_text()
    students = [f"s{index:02d}" for index in range(30)]
    started = time.monotonic()
    sides = {}
    for index, student in enumerate(students):  # five hand in twice: blank first, then the answer
        first = blank if index % 6 == 0 or index % 2 else model
        sides[student] = setup.hand_in(student, ASSIGNMENT, {NOTEBOOK: first})
    for student in students[::6]:
        setup.hand_in(student, ASSIGNMENT, {NOTEBOOK: model})
    assert time.monotonic() - started < 60, "the hand-ins must arrive within one minute"

    service = GradingLoop(setup.course, workers=2)
    service.run(once=True)
    rows = service.journal.all()
    assert len(rows) == 35
    assert all(row.state == RELEASED and row.outcome == "graded" for row in rows)
    for student in students[::6]:
        first, second = service.journal.of(setup.student_id(student), ASSIGNMENT)
        assert first.submitted_at < second.submitted_at
        assert first.finished_at <= second.started_at  # graded in arrival order, one at a time
    with Gradebook(setup.course.db_url) as gb:
        max_score = gb.find_assignment(ASSIGNMENT).max_score
        assert len(gb.assignment_submissions(ASSIGNMENT)) == 30
        for student in students[::6]:  # the last submission is the one in the gradebook
            assert gb.find_submission(ASSIGNMENT, setup.student_id(student)).score == max_score
    service.journal.close()
    assert all(len(sides[s].fetch_feedback(ASSIGNMENT)) == (2 if s in students[::6] else 1)
               for s in students)


def test_a_rush_killed_mid_grading_and_restarted_answers_every_hand_in_exactly_once(setup, tmp_path):
    setup.exchange_root.parent.chmod(0o755)  # students reach the exchange, as on a hub
    texts = [setup.notebook_text(ASSIGNMENT, kind) for kind in ("model_answer", "softmax_no_max_subtraction")]
    names = [f"r{index:02d}" for index in range(RUSH)]
    handins = [handin_from_home(setup.student_id(name), ASSIGNMENT, {NOTEBOOK: texts[index % 2].encode()},
                                setup.homes / name, setup.exchange.course_id)
               for index, name in enumerate(names)]

    first = start_watch(setup, tmp_path / "killed.log")
    try:
        with Rush(setup.exchange.inbound_dir, handins) as rush:  # every account ready before any writes
            rush.release()
            written = rush.wait()
        assert max(w.written_at for w in written) - min(w.written_at for w in written) < 1.0
        # killed while one is being graded, not between a release and its result line
        wait_for(lambda: rows_in(setup, GRADING) and (released := rows_in(setup, RELEASED)) and all(
                     result_lines((tmp_path / "killed.log").read_text(), row.student) for row in released),
                 what="the rush half answered")
        first.send_signal(signal.SIGKILL)
    finally:
        first.kill()
        first.wait(timeout=60)
    answered_before = {row.folder for row in rows_in(setup, RELEASED)}
    assert len(answered_before) < RUSH, "the kill must land before the rush is answered"
    # a row graded but not yet released when the kill landed is released by the restart, not graded again
    graded_before = {row.folder for row in rows_in(setup, GRADED)} | answered_before
    second = subprocess.run([sys.executable, "-m", "grader.cli", "watch", "--once", "--course",
                             str(setup.course.root), "--fix-permissions"],
                            capture_output=True, text=True, timeout=900)
    assert second.returncode == 0, second.stderr

    rows = {row.folder: row for row in journal(setup).all()}
    assert sorted(rows) == sorted(w.folder.encode() for w in written)  # one row per hand-in
    for handin in written:
        row = rows[handin.folder.encode()]
        assert (row.state, row.outcome) == (RELEASED, "graded"), row
        assert row.secret_digest == hashlib.sha256(handin.secret.encode()).hexdigest()
    pages = {f"{notebook_hash(secret=w.secret, notebook_id=NOTEBOOK[:-len('.ipynb')])}.html" for w in written}
    feedback = setup.exchange_root / setup.exchange.course_id / "feedback"
    assert sorted(p.name for p in feedback.iterdir()) == sorted(pages)  # one page each, nothing else
    assert not any("waiting to be graded" in (feedback / page).read_text() for page in pages)
    killed_log = (tmp_path / "killed.log").read_text()
    for handin in written:  # graded once: an interrupted grading leaves no result line
        again = result_lines(second.stderr, handin.account)
        if handin.folder.encode() in graded_before:
            # graded before the kill, so never graded again; the kill may have cut its result line,
            # which the service writes after the release
            assert again == [] and len(result_lines(killed_log, handin.account)) <= 1
        else:
            assert len(result_lines(killed_log, handin.account) + again) == 1
    for name in names:  # each student's own nbgrader fetch_feedback finds their one page
        assert len(setup.student(name).fetch_feedback(ASSIGNMENT)) == 1
