"""``grader watch --scheduler``: the grading service grading on a real Dask ``LocalCluster``.

Students hand in through nbgrader's exchange from real accounts; the service collects, grades on
the cluster's worker processes (the same per-task code and checks as ``grader autograde
--scheduler``) and releases the feedback.
"""
from __future__ import annotations

import os
import signal
import threading
import time

import postgres_server
import pytest
from nbgrader.api import Gradebook

from grader.course import DB_URL_VARIABLE
from grader.release import generate_release
from grader.service.journal import RELEASED, Journal
from grader.service.watch import GradingLoop, serve
from grader_tests.checkout import notebook_name
from grader_tests.dask_workers import pid_of_worker_running
from grader_tests.service_setup import accounts_skip_reason, temporary_service_course

distributed = pytest.importorskip("distributed")

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(accounts_skip_reason() is not None, reason=str(accounts_skip_reason()))]

ASSIGNMENT = "02_softmax"
NOTEBOOK = "softmax.ipynb"
LOOPING = "01_variance"  # its corpus has a submission that loops until the cell timeout
WAIT = 600


@pytest.fixture
def setup(released_course_template):
    with temporary_service_course(released_course_template, "sal-dask-service-",
                                  (ASSIGNMENT, LOOPING)) as course:
        yield course


@pytest.fixture
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as local:
        yield local


def rows(setup):
    journal = Journal(setup.course.state_dir / "service.sqlite")
    try:
        return journal.all()
    finally:
        journal.close()


def test_the_service_grades_hand_ins_on_the_cluster_and_releases_their_feedback(setup, cluster):
    model = setup.notebook_text(ASSIGNMENT, "model_answer")
    wrong = setup.notebook_text(ASSIGNMENT, "softmax_no_max_subtraction")
    ann = setup.hand_in("ann", ASSIGNMENT, {NOTEBOOK: model})
    bo = setup.hand_in("bo", ASSIGNMENT, {NOTEBOOK: wrong})

    GradingLoop(setup.course, scheduler=cluster.scheduler_address,
                   insecure_scheduler=True).run(once=True)

    recorded = {row.student: row for row in rows(setup)}
    assert {row.state for row in recorded.values()} == {RELEASED}
    assert {row.outcome for row in recorded.values()} == {"graded"}
    assert recorded[ann.student].score == recorded[ann.student].max_score > 0
    assert recorded[bo.student].score < recorded[bo.student].max_score
    assert "no max subtraction" in recorded[bo.student].problem
    [page] = bo.fetch_feedback(ASSIGNMENT)
    assert "no max subtraction" in page.read_text()


def test_workers_that_would_write_to_another_gradebook_keep_the_service_from_starting(
        setup, cluster, monkeypatch):
    setup.hand_in("ann", ASSIGNMENT, {NOTEBOOK: setup.notebook_text(ASSIGNMENT, "model_answer")})
    # The workers started without it, so they resolve the course's gradebook to its SQLite file.
    monkeypatch.setenv("GRADER_DB_URL", "postgresql+psycopg://grader@db.example.edu/elsewhere")

    assert serve(setup.course, once=True, fix_permissions=True,
                 scheduler=cluster.scheduler_address, insecure_scheduler=True) == 2
    assert not setup.course.autograded_notebook(setup.student_id("ann"), ASSIGNMENT).exists()


def test_a_worker_killed_mid_grading_has_the_hand_in_graded_on_another_worker(setup, cluster):
    side = setup.hand_in("ann", LOOPING, {f"{notebook_name(LOOPING)}.ipynb":
                                          setup.notebook_text(LOOPING, "infinite_loop")})
    running = threading.Thread(target=lambda: GradingLoop(  # its journal belongs to its thread
        setup.course, scheduler=cluster.scheduler_address, insecure_scheduler=True).run(once=True))
    with distributed.Client(cluster.scheduler_address, set_as_default=False) as watcher:
        running.start()
        pid = pid_of_worker_running(watcher, f"watch-{LOOPING}-{side.student}-")
        time.sleep(3)  # into the looping notebook before its worker dies
        os.kill(pid, signal.SIGKILL)
        running.join(WAIT)
    assert not running.is_alive()

    [row] = rows(setup)
    assert row.state == RELEASED and row.outcome == "graded", row
    [page] = side.fetch_feedback(LOOPING)
    assert page.exists()


def test_on_the_cluster_with_a_postgresql_gradebook_the_scores_are_recorded_there(
        setup, postgres_admin_url, monkeypatch):
    url = postgres_server.create_database(postgres_admin_url, prefix="dask_service")
    monkeypatch.setenv(DB_URL_VARIABLE, url)  # the service and, started after this, the workers
    setup.course.gradebook.unlink()  # the template's SQLite gradebook: nothing may use it now
    generate_release(setup.course, ASSIGNMENT)  # registers the assignment in PostgreSQL
    ann = setup.hand_in("ann", ASSIGNMENT, {NOTEBOOK: setup.notebook_text(ASSIGNMENT, "model_answer")})
    bo = setup.hand_in("bo", ASSIGNMENT, {NOTEBOOK: setup.notebook_text(
        ASSIGNMENT, "softmax_no_max_subtraction")})

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        GradingLoop(setup.course, scheduler=cluster.scheduler_address,
                    insecure_scheduler=True).run(once=True)

    recorded = {row.student: row for row in rows(setup)}
    assert {(row.state, row.outcome) for row in recorded.values()} == {(RELEASED, "graded")}
    with Gradebook(url) as gradebook:
        scores = {student: gradebook.find_submission(ASSIGNMENT, student).score
                  for student in (ann.student, bo.student)}
    assert scores == {student: recorded[student].score for student in scores}
    assert scores[ann.student] > scores[bo.student]
    assert not setup.course.gradebook.exists()
