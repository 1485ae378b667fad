"""Grading on a Dask distributed cluster gives what local grading gives, loses nobody, and lets no
stranger in.

Each test starts a real ``dask.distributed.LocalCluster`` (worker processes, 2 workers x 1 thread)
closed by mutual TLS with certificates of ``grader cluster-certs``'s making, as the recipe of
``docs/operations/cluster.md`` starts ``dask scheduler`` and ``dask worker``, and grades submissions
of the simulated class (``grader.demo.simulated_class``) or of the corpus in a private copy of the
released course. Hidden inputs come from a fixed seed
(``c.PrepareProbes.seed``) so two gradings of the same notebook must agree cell by cell.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import os
import shutil
import signal
import ssl
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

from grader.course import Course
from grader.demo.corpus import get_submission, hand_in, write_submission
from grader.demo.simulated_class import simulated_class
from grader.grading.ungradable_record import ungradable_code, ungradable_reason
from grader.scheduling import cluster_security as cs
from grader.scheduling.dask_cluster import ClusterSetupError, cluster_problems, grade_on_dask, lock_name, worker_view
from grader.scheduling.pool import grade_class
from grader_tests.checkout import ASSIGNMENTS
from grader_tests.dask_workers import pid_of_worker_running

distributed = pytest.importorskip("distributed")

pytestmark = pytest.mark.slow

ASSIGNMENT = "01_variance"  # the simulated class has an unreadable submission for it
FIXED_SEED = 20261201
CELL_TIMEOUT = 20  # seconds; the looping submission runs this long per attempt
WAIT = 600  # seconds: a generous bound for anything a loaded machine may take


def configure(course: Course, **settings) -> None:
    """Append ``c.<Class>.<trait> = value`` lines to the course's nbgrader_config.py."""
    with open(course.root / "nbgrader_config.py", "a", encoding="utf-8") as config:
        config.write("\n" + "".join(f"c.{name.replace('__', '.')} = {value!r}\n" for name, value in settings.items()))


@pytest.fixture
def seeded_course(course) -> Course:
    configure(course, PrepareProbes__seed=FIXED_SEED, SandboxedExecute__timeout=CELL_TIMEOUT)
    return course


def hand_in_simulated_class(course: Course, assignment: str) -> list[str]:
    """The simulated class's submissions of ``assignment`` written to ``submitted/``; the students."""
    students = []
    for student, handed, notebook in simulated_class(course):
        if handed != assignment:
            continue
        write_submission(course, student, assignment,
                         notebook.encode("utf-8") if isinstance(notebook, str) else notebook)
        students.append(student)
    return sorted(students)


def per_cell_scores(course: Course, assignment: str, students: list[str]) -> dict[str, dict[str, float]]:
    with Gradebook(course.db_url) as gb:
        return {student: {grade.name: float(grade.score) for grade in
                          gb.find_submission_notebook(ASSIGNMENTS[assignment], assignment, student).grades}
                for student in students}


def copy_course(course: Course, root) -> Course:
    shutil.copytree(course.root, root)
    return Course(root)


@pytest.fixture(scope="module")
def certificates(tmp_path_factory):
    """The folder of a course CA and its scheduler, worker and client certificates."""
    folder = tmp_path_factory.mktemp("cluster") / "certs"
    cs.make_certificates(folder)
    return folder


def role_security(folder, *roles: str):
    """``distributed.security.Security`` presenting ``roles``' certificates of ``folder`` (mutual TLS)."""
    return distributed.security.Security(
        tls_ca_file=str(folder / cs.CA_FILE), require_encryption=True,
        **{f"tls_{role}_{kind}": str(path(folder, role)) for role in roles
           for kind, path in (("cert", cs.cert_file), ("key", cs.key_file))})


def tls_cluster(folder, n_workers: int = 2) -> "distributed.LocalCluster":
    """A real LocalCluster of worker processes (one thread each) closed by mutual TLS."""
    return distributed.LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                                    dashboard_address=None, protocol="tls://",
                                    security=role_security(folder, *cs.ROLES))


@pytest.fixture
def cluster(certificates, monkeypatch):
    """A TLS cluster whose certificates are the grader's (``GRADER_CLUSTER_CERTS``)."""
    monkeypatch.setenv(cs.CERTS_VARIABLE, str(certificates))
    with tls_cluster(certificates) as local:
        yield local


def test_dask_grading_gives_the_same_per_cell_scores_as_local_grading(seeded_course, tmp_path, cluster):
    students = hand_in_simulated_class(seeded_course, ASSIGNMENT)
    local = copy_course(seeded_course, tmp_path / "local")

    local_outcomes = grade_class(local, ASSIGNMENT, workers=2)
    dask_outcomes = grade_on_dask(seeded_course, ASSIGNMENT, None, cluster.scheduler_address)

    assert [o.student for o in dask_outcomes] == students
    assert per_cell_scores(seeded_course, ASSIGNMENT, students) == per_cell_scores(local, ASSIGNMENT, students)
    assert ({o.student: o.graded for o in dask_outcomes} == {o.student: o.graded for o in local_outcomes})
    assert ({o.student: o.code for o in dask_outcomes} == {o.student: o.code for o in local_outcomes})
    assert any(not o.graded for o in dask_outcomes)  # the unreadable hand-in is recorded, not lost
    for outcome in dask_outcomes:
        if not outcome.graded:
            assert ungradable_reason(seeded_course, ASSIGNMENT, outcome.student) == outcome.reason.strip()
            assert ungradable_code(seeded_course, ASSIGNMENT, outcome.student) == outcome.code == "notebook-unreadable"


def test_grader_autograde_with_scheduler_grades_every_submission_on_the_cluster(seeded_course, cluster,
                                                                               certificates, monkeypatch):
    # Where `grader cluster-certs` puts them by default, and where the grader then looks.
    shutil.copytree(certificates, seeded_course.state_dir / cs.CERTS_DIR_NAME)
    monkeypatch.delenv(cs.CERTS_VARIABLE)
    for student, submission in (("ada", "model_answer"), ("fay", "blank")):
        hand_in(seeded_course, student, get_submission(ASSIGNMENT, submission))

    run = subprocess.run([sys.executable, "-m", "grader.cli", "autograde", ASSIGNMENT, "--course",
                          str(seeded_course.root), "--scheduler", cluster.scheduler_address],
                         capture_output=True, text=True, timeout=WAIT)

    assert run.returncode == 0, run.stdout + run.stderr
    scores = per_cell_scores(seeded_course, ASSIGNMENT, ["ada", "fay"])
    assert sum(scores["ada"].values()) > 0 and sum(scores["fay"].values()) == 0
    assert all(seeded_course.autograded_notebook(s, ASSIGNMENT).exists() for s in ("ada", "fay"))


def test_workers_that_would_write_to_another_gradebook_stop_the_run(seeded_course, cluster, monkeypatch):
    hand_in(seeded_course, "ada", get_submission(ASSIGNMENT, "model_answer"))
    # The workers started without it, so they resolve the course's gradebook to its SQLite file.
    monkeypatch.setenv("GRADER_DB_URL", "postgresql://grader@db.example.edu/elsewhere")

    with pytest.raises(ClusterSetupError, match="would write to the gradebook"):
        grade_on_dask(seeded_course, ASSIGNMENT, ["ada"], cluster.scheduler_address)
    assert not seeded_course.autograded_notebook("ada", ASSIGNMENT).exists()


def test_a_worker_without_the_course_folder_is_named_with_what_to_do(course):
    views = {"tcp://10.0.0.7:40000": worker_view(str(course.root / "not-mounted"))}

    [problem] = cluster_problems(views, course, views["tcp://10.0.0.7:40000"]["host"])

    assert "tcp://10.0.0.7:40000" in problem and "mount the shared course folder" in problem


def test_workers_on_other_machines_need_a_database_server_gradebook(course, monkeypatch):
    monkeypatch.delenv("GRADER_DB_URL", raising=False)
    views = {"tcp://10.0.0.7:40000": {**worker_view(str(course.root)), "host": "grading-node-7"}}

    [problem] = cluster_problems(views, course, "instructor-laptop")
    assert "grading-node-7" in problem and "GRADER_DB_URL" in problem

    monkeypatch.setenv("GRADER_DB_URL", "postgresql+psycopg://grader@db.example.edu/lab")
    views = {"tcp://10.0.0.7:40000": {**worker_view(str(course.root)), "host": "grading-node-7"}}
    assert cluster_problems(views, course, "instructor-laptop") == []


def _grade_looping_submission_and_kill_its_worker(course: Course, cluster, insecure_scheduler: bool = False):
    """Grade the looping submission on the cluster, SIGKILL the worker running it once; the outcomes."""
    hand_in(course, "loops", get_submission(ASSIGNMENT, "infinite_loop"))
    result = {}
    grading = threading.Thread(target=lambda: result.setdefault("outcomes", grade_on_dask(
        course, ASSIGNMENT, ["loops"], cluster.scheduler_address, insecure_scheduler=insecure_scheduler)))
    with distributed.Client(cluster.scheduler_address, security=cluster.security, set_as_default=False) as watcher:
        grading.start()
        pid = pid_of_worker_running(watcher, f"autograde-{ASSIGNMENT}-loops-")
        time.sleep(3)  # into the notebook (it loops for CELL_TIMEOUT seconds) before the worker dies
        os.kill(pid, signal.SIGKILL)
        grading.join(WAIT)
    assert not grading.is_alive()
    return result["outcomes"]


def test_a_worker_dying_mid_task_has_the_submission_graded_on_a_retry(seeded_course, cluster):
    [outcome] = _grade_looping_submission_and_kill_its_worker(seeded_course, cluster)

    assert outcome.graded, outcome.reason
    scores = per_cell_scores(seeded_course, ASSIGNMENT, ["loops"])["loops"]
    assert scores["test_expansion_counts"] == 0 and sum(scores.values()) > 0


def test_a_submission_whose_worker_keeps_dying_is_recorded_ungradable_with_the_reason(seeded_course):
    import dask

    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                      dashboard_address=None) as fragile:
            # A plain tcp:// cluster: what --insecure-scheduler grades on.
            [outcome] = _grade_looping_submission_and_kill_its_worker(seeded_course, fragile,
                                                                      insecure_scheduler=True)

    assert not outcome.graded and "worker died" in outcome.reason
    assert "worker died" in ungradable_reason(seeded_course, ASSIGNMENT, "loops")
    assert per_cell_scores(seeded_course, ASSIGNMENT, ["loops"])["loops"]  # zeros on record, not missing
    assert set(per_cell_scores(seeded_course, ASSIGNMENT, ["loops"])["loops"].values()) == {0.0}


def test_a_student_already_being_graded_elsewhere_waits_for_the_other_grading(seeded_course, cluster):
    hand_in(seeded_course, "ada", get_submission(ASSIGNMENT, "model_answer"))
    with distributed.Client(cluster.scheduler_address, security=cluster.security, set_as_default=False) as other_run:
        lock = distributed.Lock(lock_name(str(seeded_course.root), ASSIGNMENT, "ada"),
                                scheduler_rpc=other_run.scheduler, loop=other_run.loop)
        assert lock.acquire(timeout=60)
        result = {}
        grading = threading.Thread(target=lambda: result.setdefault(
            "outcomes", grade_on_dask(seeded_course, ASSIGNMENT, ["ada"], cluster.scheduler_address)))
        grading.start()
        grading.join(20)  # long enough to grade one notebook several times over
        held_back = grading.is_alive() and not seeded_course.autograded_notebook("ada", ASSIGNMENT).exists()
        lock.release()
        grading.join(WAIT)

    assert held_back
    assert result["outcomes"][0].graded


# ---- strangers at the door: one cluster for these last tests --------------------------------------

@pytest.fixture(scope="module")
def shared_cluster(certificates):
    """One TLS cluster for the tests that only knock on its doors."""
    with tls_cluster(certificates, n_workers=1) as local:
        yield local


def listeners(cluster) -> list[str]:
    """The addresses a stranger could connect to: the scheduler's, every worker's and nanny's."""
    with distributed.Client(cluster.scheduler_address, security=role_security(cluster_folder(cluster), "client"),
                            set_as_default=False) as client:
        workers = client.scheduler_info(n_workers=-1)["workers"]
    return [cluster.scheduler_address, *workers, *(info["nanny"] for info in workers.values())]


def cluster_folder(cluster):
    return Path(cluster.security.tls_ca_file).parent


def identity_with(address: str, context: ssl.SSLContext):
    """Ask the listener at ``address`` who it is over a connection made with ``context``."""
    async def ask():
        rpc = distributed.core.rpc(address, timeout=5, connection_args={"ssl_context": context,
                                                                         "require_encryption": True})
        try:
            return await rpc.identity()
        finally:
            await rpc.close_rpc()
    # In a thread of its own: this test process may already run an event loop (the browser
    # tests' Playwright does), where asyncio.run refuses to start another.
    with concurrent.futures.ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, ask()).result()


def stranger_context(trusted_ca, certificate=None, key=None) -> ssl.SSLContext:
    """A client context trusting ``trusted_ca``, presenting ``certificate`` if given."""
    context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH, cafile=str(trusted_ca))
    context.check_hostname = False
    if certificate:
        context.load_cert_chain(certificate, key)
    return context


def test_a_client_without_a_certificate_is_refused_by_the_scheduler_every_worker_and_nanny(shared_cluster):
    folder = cluster_folder(shared_cluster)
    addresses = listeners(shared_cluster)
    assert len(addresses) == 3
    assert identity_with(addresses[0], cs.context_for(folder, "client"))["type"] == "Scheduler"  # the door works

    for address in addresses:
        with pytest.raises(OSError):
            identity_with(address, stranger_context(folder / cs.CA_FILE))
        assert cs.probe_without_certificate(address, folder / cs.CA_FILE).verdict == cs.REFUSED


def test_a_client_with_a_certificate_from_another_ca_cannot_connect(shared_cluster, tmp_path):
    folder = cluster_folder(shared_cluster)
    other = tmp_path / "other-ca"
    cs.make_certificates(other)
    impostor = role_security(other, "client")
    impostor.tls_ca_file = str(folder / cs.CA_FILE)  # it trusts the real scheduler; the scheduler must not trust it

    with pytest.raises(OSError):
        distributed.Client(shared_cluster.scheduler_address, security=impostor, timeout="5s", set_as_default=False)
    for address in listeners(shared_cluster)[1:]:
        with pytest.raises(OSError):
            identity_with(address, stranger_context(folder / cs.CA_FILE, cs.cert_file(other, "client"),
                                                    cs.key_file(other, "client")))


def test_a_scheduler_with_a_certificate_from_another_ca_gets_no_submission(seeded_course, certificates, tmp_path,
                                                                           monkeypatch):
    monkeypatch.setenv(cs.CERTS_VARIABLE, str(certificates))
    hand_in(seeded_course, "ada", get_submission(ASSIGNMENT, "model_answer"))
    cs.make_certificates(tmp_path / "impostor")
    security = role_security(tmp_path / "impostor", *cs.ROLES)
    trusts_both = tmp_path / "both-cas.pem"  # it would accept the grader: the grader must refuse it
    trusts_both.write_bytes((tmp_path / "impostor" / cs.CA_FILE).read_bytes() + (certificates / cs.CA_FILE).read_bytes())
    security.tls_ca_file = str(trusts_both)

    with distributed.LocalCluster(n_workers=0, processes=False, dashboard_address=None, protocol="tls://",
                                  security=security) as impostor:
        with dask_connect_timeout("5s"), pytest.raises(ClusterSetupError, match="cannot connect to the scheduler.*TLS certificate"):
            grade_on_dask(seeded_course, ASSIGNMENT, ["ada"], impostor.scheduler_address)
        assert not impostor.scheduler.tasks
    assert not seeded_course.autograded_notebook("ada", ASSIGNMENT).exists()


def dask_connect_timeout(timeout: str):
    import dask

    return dask.config.set({"distributed.comm.timeouts.connect": timeout})
