"""Per-account budgets on the grading service's own work, with an honest classmate beside each.

Real accounts own the hand-ins and the entries of ``inbound/`` (``grader_tests.service_setup``);
the service runs in this process (``GradingLoop``), with real workers grading real notebooks. Each
test sets the course's ``c.GradingService`` budget it is about in ``nbgrader_config.py``.

Run as root (accounts are created with useradd and removed afterwards); skipped otherwise.
"""
from __future__ import annotations

import logging
import os
import pwd
import threading
import time

import nbformat
import pytest

from grader.service.journal import RELEASED, WAITING, Journal
from grader.service.watch import GradingLoop
from grader_tests.service_setup import ServiceCourse, accounts_skip_reason, temporary_service_course

pytestmark = [pytest.mark.slow, pytest.mark.skipif(accounts_skip_reason() is not None,
                                                   reason=str(accounts_skip_reason()))]

SOFTMAX, VARIANCE = "02_softmax", "01_variance"
NOTEBOOKS = {SOFTMAX: "softmax.ipynb", VARIANCE: "variance.ipynb"}


@pytest.fixture
def setup(released_course_template):
    with temporary_service_course(released_course_template, "sal-budgets-", (SOFTMAX, VARIANCE)) as setup:
        yield setup


def set_budgets(setup: ServiceCourse, **budgets) -> None:
    config = setup.course.root / "nbgrader_config.py"
    config.write_text(config.read_text() + "".join(f"\nc.GradingService.{name} = {value!r}"
                                                   for name, value in budgets.items()) + "\n")


def hand_in(setup: ServiceCourse, student: str, assignment: str = SOFTMAX, sleep_seconds: float = 0) -> None:
    """The model answer, handed in with nbgrader's submit as ``student``'s account; with
    ``sleep_seconds``, its first cell sleeps that long."""
    notebook = nbformat.reads(setup.notebook_text(assignment, "model_answer"), as_version=4)
    if sleep_seconds:
        notebook.cells.insert(0, nbformat.v4.new_code_cell(f"import time\ntime.sleep({sleep_seconds})"))
    setup.hand_in(student, assignment, {NOTEBOOKS[assignment]: nbformat.writes(notebook)})


def journal(setup: ServiceCourse) -> Journal:
    return Journal(setup.course.state_dir / "service.sqlite")


def owned_entries(setup: ServiceCourse, student: str, count: int, start: int = 0) -> None:
    """``count`` empty folders in ``inbound/`` owned by ``student``'s account (a flood)."""
    uid = _uid(student)
    for index in range(start, start + count):
        path = setup.exchange.inbound_dir / f"flood-{index}"
        path.mkdir()
        os.lchown(path, uid, uid)


def _uid(account: str) -> int:
    return pwd.getpwnam(account).pw_uid


# ---- inbound entries per account per look ----------------------------------------------------

def test_a_flood_of_inbound_entries_is_refused_in_bulk_and_recorded_once(setup, caplog):
    attacker, classmate = setup.student_id("mallory"), setup.student_id("alice")
    hand_in(setup, "alice")
    owned_entries(setup, attacker, 5000)
    with caplog.at_level(logging.INFO, logger="grader.watch"):
        GradingLoop(setup.course, workers=1).run(once=True)
    records = journal(setup)
    assert records.floods() == {attacker: 5000}
    assert not [owner for _, owner, _, _ in records.refused_folders() if owner == attacker]
    assert [line for line in caplog.messages if attacker in line] == [
        f"refused 5000 new inbound entries of {attacker} at once (more than 50 a look); its later floods "
        "are counted in the journal, not logged"]
    (row,) = records.of(classmate, SOFTMAX)
    assert (row.state, row.outcome) == (RELEASED, "graded")


def test_a_flooding_accounts_later_entries_are_counted_not_logged_one_by_one(setup, caplog):
    attacker = setup.student_id("mallory")
    owned_entries(setup, attacker, 200)
    loop = GradingLoop(setup.course, workers=1)
    loop.collect_new()
    owned_entries(setup, attacker, 20, start=200)  # fewer than the budget of one look
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="grader.watch"):
        loop.collect_new()
    assert journal(setup).floods() == {attacker: 220}
    assert not journal(setup).refused_folders()
    assert not [line for line in caplog.messages if attacker in line]


def test_a_restart_counts_a_flood_still_in_inbound_once(setup):
    attacker = setup.student_id("mallory")
    owned_entries(setup, attacker, 200)
    for _ in range(2):
        GradingLoop(setup.course, workers=1).collect_new()
    assert journal(setup).floods() == {attacker: 200}


def test_a_few_stray_entries_of_an_account_are_each_recorded(setup):
    student = setup.student_id("bob")
    owned_entries(setup, student, 3)
    GradingLoop(setup.course, workers=1).run(once=True)
    assert journal(setup).floods() == {}
    assert sorted(name for name, owner, _, _ in journal(setup).refused_folders() if owner == student) == [
        b"flood-0", b"flood-1", b"flood-2"]


# ---- CPU the service spends reading one account's entries ---------------------------------------

def test_an_account_over_its_collect_cpu_budget_waits_while_a_classmate_is_collected(setup, caplog):
    set_budgets(setup, max_collect_cpu_seconds_per_hour=1e-9)
    reader, classmate = setup.student_id("bob"), setup.student_id("alice")
    owned_entries(setup, reader, 5)
    hand_in(setup, "alice")
    loop = GradingLoop(setup.course, workers=1)
    with caplog.at_level(logging.WARNING, logger="grader.watch"):
        loop.run(once=True)
        loop.collect_new()
    refused = [name for name, owner, _, _ in journal(setup).refused_folders() if owner == reader]
    assert len(refused) == 1  # the first entry spent the budget; the other four wait for the next hour
    (honest,) = journal(setup).of(classmate, SOFTMAX)
    assert honest.outcome == "graded"
    budget_lines = [r for r in caplog.records if "CPU s this hour" in r.getMessage()]
    assert len(budget_lines) == 1 and reader in budget_lines[0].getMessage()


# ---- an unfinished folder touched forever --------------------------------------------------------

def test_an_unfinished_folder_touched_every_half_second_does_not_make_the_service_spin(setup):
    set_budgets(setup, incomplete_handin_seconds=3.0)
    student = setup.student_id("dawdler")
    folder = setup.exchange.inbound_dir / f"{student}+{SOFTMAX}+2026-01-01 10:00:00.000000 UTC+abc"
    folder.mkdir()
    (folder / NOTEBOOKS[SOFTMAX]).write_text("{}")
    for path in (folder, *folder.iterdir()):
        os.lchown(path, _uid(student), _uid(student))
    looks: list[tuple[float, float]] = []  # (wall clock, this process's CPU seconds) at each look
    served: list[GradingLoop] = []

    def serve():  # the loop is made in the thread it runs in (its journal is that thread's)
        loop = GradingLoop(setup.course, workers=1)
        collect = loop.collect_new

        def counted():
            looks.append((time.monotonic(), time.process_time()))
            return collect()

        loop.collect_new = counted
        served.append(loop)
        loop.run()

    stop = threading.Event()

    def touch():
        while not stop.wait(0.5):
            os.utime(folder)

    toucher = threading.Thread(target=touch, daemon=True)
    server = threading.Thread(target=serve, daemon=True)
    toucher.start()
    server.start()
    time.sleep(10)
    served[0].stop()
    stop.set()
    server.join(120)
    start = looks[0][0]
    late = [(wall, cpu) for wall, cpu in looks if wall - start >= 5.0]  # after it was refused
    assert len(late) <= 20, f"{len(late)} looks in the last {late[-1][0] - late[0][0]:.1f} s"
    assert late[-1][1] - late[0][1] < 0.5  # CPU seconds of those looks
    (reason,) = [reason for name, _, reason, _ in journal(setup).refused_folders() if name == os.fsencode(folder.name)]
    assert "still had no submission_secret.txt 3 s after it appeared" in reason


# ---- wall-clock grading time per account per hour -------------------------------------------

def test_a_hand_in_over_the_students_hourly_grading_time_waits_with_a_page(setup):
    set_budgets(setup, max_grading_seconds_per_hour=0.001)
    student = setup.student_id("alice")
    hand_in(setup, "alice")
    time.sleep(1.1)  # nbgrader names hand-ins by the second
    hand_in(setup, "alice")
    GradingLoop(setup.course, workers=1).run(once=True)
    first, second = journal(setup).of(student, SOFTMAX)
    assert (first.outcome, second.state) == ("graded", WAITING)
    pages = [p.read_text() for p in setup.student("alice").fetch_feedback(SOFTMAX)]
    waiting = [page for page in pages if "waiting to be graded" in page]
    assert len(pages) == 2 and len(waiting) == 1
    assert "the most this course gives one student in an hour" in waiting[0]


def test_one_students_sleeping_hand_ins_do_not_hold_both_workers_while_a_classmate_waits(setup):
    sleeper, classmate = setup.student_id("sleeper"), setup.student_id("alice")
    hand_in(setup, "sleeper", SOFTMAX, sleep_seconds=40)
    hand_in(setup, "sleeper", VARIANCE, sleep_seconds=40)
    hand_in(setup, "alice", SOFTMAX)
    GradingLoop(setup.course, workers=2).run(once=True)
    records = journal(setup)
    (first,) = records.of(sleeper, SOFTMAX)
    (second,) = records.of(sleeper, VARIANCE)
    (honest,) = records.of(classmate, SOFTMAX)
    assert honest.outcome == "graded"
    assert honest.finished_at < first.finished_at  # not queued behind the sleeper's notebooks
    assert second.started_at >= first.finished_at  # the sleeper's hand-ins were graded one at a time
