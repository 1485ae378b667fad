"""The grading cluster's certificates and the grader's refusal of an insecure scheduler.

No cluster is started here (``test_distributed.py`` grades on real TLS ``LocalCluster``s); a
scheduler address that nothing listens on is enough to show that the refusal comes first.
"""
from __future__ import annotations

import os
import ssl
import stat
import subprocess
import sys
import threading

import pytest

from grader.course import Course
from grader.demo.corpus import write_submission
from grader.scheduling import cluster_security as cs
from grader.scheduling.dask_cluster import grade_on_dask
from grader_tests.checkout import create_course

pytest.importorskip("distributed")
from cryptography import x509  # noqa: E402  (installed with distributed's cluster extra)

ASSIGNMENT = "01_variance"
NOTHING_LISTENS = "127.0.0.1:9"  # the discard port: no Dask scheduler answers there


@pytest.fixture
def bare_course(tmp_path, monkeypatch) -> Course:
    """A course folder without cluster certificates, whatever the environment of the test run."""
    monkeypatch.delenv(cs.CERTS_VARIABLE, raising=False)
    return create_course(tmp_path / "course")


def grader(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "grader.cli", *args], capture_output=True, text=True,
                          timeout=300, env={**os.environ, **(env or {})})


def test_cluster_certs_writes_keys_only_their_owner_can_read_into_the_course_private_folder(bare_course):
    run = grader("cluster-certs", "--course", str(bare_course.root))

    assert run.returncode == 0, run.stderr
    folder = bare_course.root / ".grader" / "cluster-certs"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((bare_course.root / ".grader").stat().st_mode) == 0o700
    for role in cs.ROLES:
        assert stat.S_IMODE(cs.key_file(folder, role).stat().st_mode) == 0o600
        ca = x509.load_pem_x509_certificate((folder / cs.CA_FILE).read_bytes())
        x509.load_pem_x509_certificate(cs.cert_file(folder, role).read_bytes()).verify_directly_issued_by(ca)
    assert not list(folder.glob("ca-key*"))  # the CA's key signed them and is gone


def test_cluster_certs_does_not_replace_certificates_a_cluster_may_be_using(bare_course):
    folder = bare_course.root / ".grader" / "cluster-certs"
    cs.make_certificates(folder)
    before = (folder / cs.CA_FILE).read_bytes()

    run = grader("cluster-certs", "--course", str(bare_course.root))

    assert run.returncode != 0 and "--force" in run.stderr
    assert (folder / cs.CA_FILE).read_bytes() == before


def test_grader_autograde_refuses_a_tcp_scheduler_naming_the_risk(bare_course):
    cs.make_certificates(bare_course.root / ".grader" / "cluster-certs")  # certificates do not make tcp safe

    run = grader("autograde", ASSIGNMENT, "--course", str(bare_course.root), "--scheduler", f"tcp://{NOTHING_LISTENS}")

    assert run.returncode != 0
    message = " ".join(run.stderr.split())
    assert "anyone who can reach the scheduler can run code as the workers' user, root" in message
    assert "the course secret and the model answers" in message and "--insecure-scheduler" in message


def test_insecure_scheduler_flag_lets_grader_autograde_try_a_tcp_scheduler(bare_course):
    write_submission(bare_course, "ada", ASSIGNMENT, b"{}")
    run = grader("autograde", ASSIGNMENT, "--course", str(bare_course.root), "--scheduler",
                 f"tcp://{NOTHING_LISTENS}", "--insecure-scheduler",
                 env={"DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "2s"})

    assert run.returncode != 0
    assert "cannot connect to the scheduler" in run.stderr and "refusing" not in run.stderr


def test_a_tls_scheduler_without_the_course_client_certificate_is_refused(bare_course):
    with pytest.raises(cs.InsecureSchedulerError, match="lacks ca.pem, client.pem, client-key.pem"):
        cs.client_security(bare_course, f"tls://{NOTHING_LISTENS}")


def test_a_client_key_other_accounts_can_read_is_refused(bare_course):
    folder = bare_course.root / ".grader" / "cluster-certs"
    cs.make_certificates(folder)
    os.chmod(cs.key_file(folder, "client"), 0o644)

    with pytest.raises(cs.InsecureSchedulerError, match="readable by other accounts"):
        cs.client_security(bare_course, f"tls://{NOTHING_LISTENS}")


def test_grade_on_dask_refuses_a_tcp_scheduler_before_connecting(bare_course):
    write_submission(bare_course, "ada", ASSIGNMENT, b"{}")

    with pytest.raises(cs.InsecureSchedulerError, match="run code as the workers' user, root"):
        grade_on_dask(bare_course, ASSIGNMENT, None, f"tcp://{NOTHING_LISTENS}")


def test_the_certificates_folder_is_the_one_the_environment_names(bare_course, tmp_path, monkeypatch):
    monkeypatch.setenv(cs.CERTS_VARIABLE, str(tmp_path / "elsewhere"))
    cs.make_certificates(tmp_path / "elsewhere")

    security = cs.client_security(bare_course, f"tls://{NOTHING_LISTENS}")

    assert security.tls_client_cert == str(tmp_path / "elsewhere" / "client.pem")
    assert security.require_encryption


class LaxTLSListener:
    """A TLS listener that, unlike Dask's, asks for no client certificate and greets everyone."""

    def __init__(self, folder):
        import socket

        self.context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self.context.load_cert_chain(cs.cert_file(folder, "scheduler"), cs.key_file(folder, "scheduler"))
        self.context.verify_mode = ssl.CERT_NONE
        self.server = socket.create_server(("127.0.0.1", 0))
        self.address = f"tls://127.0.0.1:{self.server.getsockname()[1]}"
        self.thread = threading.Thread(target=self.serve_one, daemon=True)
        self.thread.start()

    def serve_one(self):
        connection, _ = self.server.accept()
        with self.context.wrap_socket(connection, server_side=True) as tls:
            tls.sendall(b"hello")

    def close(self):
        self.thread.join(10)
        self.server.close()


def test_a_listener_that_lets_in_a_client_without_a_certificate_is_named_with_the_risk(tmp_path):
    cs.make_certificates(tmp_path / "certs")
    listener = LaxTLSListener(tmp_path / "certs")
    try:
        [problem] = cs.listener_problems(listener.address, [], tmp_path / "certs" / cs.CA_FILE)
    finally:
        listener.close()

    assert listener.address in problem and "let in a client without a certificate" in problem
    assert cs.RISK in problem


def test_a_worker_listening_without_tls_is_named(tmp_path):
    cs.make_certificates(tmp_path / "certs")

    problems = cs.listener_problems("tls://127.0.0.1:9", ["tcp://10.0.0.7:40000"], tmp_path / "certs" / "ca.pem")

    assert any("tcp://10.0.0.7:40000 listens without TLS" in problem for problem in problems)


def test_doctor_reports_usable_certificates_with_their_expiry(bare_course):
    from grader.doctor import cluster_findings

    cs.make_certificates(bare_course.root / ".grader" / "cluster-certs", days=30)

    [row], note = cluster_findings(str(bare_course.root))

    assert row.active and "valid until" in row.detail and note is None


def test_doctor_reports_a_worker_key_other_accounts_can_read(bare_course):
    from grader.doctor import cluster_findings

    folder = bare_course.root / ".grader" / "cluster-certs"
    cs.make_certificates(folder)
    os.chmod(cs.key_file(folder, "worker"), 0o640)

    [row], _ = cluster_findings(str(bare_course.root))

    assert not row.active and "worker-key.pem" in row.detail


def test_doctor_notes_a_course_without_certificates_without_failing(bare_course):
    from grader.doctor import cluster_findings

    rows, note = cluster_findings(str(bare_course.root))

    assert rows == [] and "grader cluster-certs" in note


# ---- certificates only root (the account that made them) can change -----------------------------

@pytest.fixture
def student():
    """A real account other than root: the student who got to a folder first."""
    from grader_tests.other_account import other_account

    with other_account("salcert") as account:
        yield account


def test_cluster_certs_refuses_a_folder_a_student_owns_and_writes_nothing_into_it(bare_course, student, tmp_path):
    folder = tmp_path / "certs"
    folder.mkdir(mode=0o700)
    student.owns(folder)

    run = grader("cluster-certs", str(folder), "--course", str(bare_course.root))

    assert run.returncode != 0
    message = " ".join(run.stderr.split())
    assert f"{folder} is owned by {student.name}" in message and "swap the CA" in message
    assert list(folder.iterdir()) == []


def test_cluster_certs_refuses_a_new_folder_inside_a_folder_a_student_owns(bare_course, student, tmp_path):
    parent = tmp_path / "shared"
    parent.mkdir(mode=0o755)
    student.owns(parent)

    run = grader("cluster-certs", str(parent / "certs"), "--course", str(bare_course.root))

    assert run.returncode != 0 and f"{parent} is owned by {student.name}" in " ".join(run.stderr.split())
    assert not (parent / "certs").exists()


def test_cluster_certs_refuses_a_folder_every_account_can_write(bare_course, tmp_path):
    folder = tmp_path / "open"
    folder.mkdir()
    os.chmod(folder, 0o777)

    run = grader("cluster-certs", str(folder), "--course", str(bare_course.root))

    assert run.returncode != 0 and f"{folder} is writable by every account" in " ".join(run.stderr.split())


def test_a_ca_file_a_student_owns_is_refused_at_load(bare_course, student):
    folder = bare_course.root / ".grader" / "cluster-certs"
    cs.make_certificates(folder)
    student.owns(folder / cs.CA_FILE)  # as if swapped for the student's own CA

    with pytest.raises(cs.InsecureSchedulerError, match=f"ca.pem is owned by {student.name}"):
        cs.client_security(bare_course, f"tls://{NOTHING_LISTENS}")


def test_a_certificates_folder_others_can_write_is_refused_at_load(bare_course):
    folder = bare_course.root / ".grader" / "cluster-certs"
    cs.make_certificates(folder)
    os.chmod(folder, 0o773)

    with pytest.raises(cs.InsecureSchedulerError, match="cluster-certs is writable by every account"):
        cs.client_security(bare_course, f"tls://{NOTHING_LISTENS}")


def test_doctor_reports_certificates_in_a_folder_a_student_owns_as_not_active(bare_course, student):
    from grader.doctor import cluster_findings

    folder = bare_course.root / ".grader" / "cluster-certs"
    cs.make_certificates(folder)
    student.owns(folder)

    [row], _ = cluster_findings(str(bare_course.root))

    assert not row.active and f"owned by {student.name}" in row.detail
