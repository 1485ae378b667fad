"""Grade a class on a Dask distributed cluster: the same task per submission, run on many machines.

Each (assignment, student) pair is one Dask task that calls ``grader.grading.grade_one.grade_one`` on a
worker, exactly as the local process pool does. What the cluster must provide:

- **the course folder at the same absolute path on the machine that submits and on every worker**
  (an NFS or other shared mount): tasks carry only the folder's path, and workers read the
  submissions, the config and the source notebooks there and write ``autograded/`` there;
- **the same gradebook for every worker**: ``db_url`` of the course's ``nbgrader_config.py``
  must resolve to the same database on each of them (PostgreSQL, ``GRADER_DB_URL``, when the
  workers are on several machines; SQLite must not be shared over a network file system);
- workers running as root with this project installed, so that each kernel gets its sandbox;
- because those workers run whatever a client sends, **mutual TLS** (``grader.scheduling.cluster_security``):
  a ``tls://`` scheduler and workers started with the course's certificates. The grader connects
  with the course's client certificate, and refuses a plain ``tcp://`` scheduler, a folder without
  a usable client certificate, or a scheduler, worker or nanny that lets in a client without a
  certificate, unless told ``insecure_scheduler``.

Before any submission is sent, every worker is asked what it sees; a worker without the course
folder, whose config names another gradebook, or on another machine while the gradebook is an
SQLite file, stops the run with a message naming it.

Guarantees: a student is graded by at most one task at a time, also across concurrent runs on the
same cluster (a cluster-wide ``distributed.Lock`` per course, assignment and student, whose lease
lapses ``distributed.scheduler.locks.lease-timeout`` after its worker died); outcomes
come back in student order; a worker that dies mid-task has its task re-run on another worker
(Dask's ``distributed.scheduler.allowed-failures`` times), and a submission whose task still
fails is recorded as ungradable with the reason, never lost.
"""
from __future__ import annotations

import asyncio
import socket
import uuid
from pathlib import Path

from grader.course import CONFIG_FILE, Course, enable_concurrent_writers, printable_db_url
from grader.grading.admission import refused
from grader.grading.grade_one import grade_one
from grader.grading.outcome import GradingOutcome
from grader.grading.ungradable_record import record_ungradable
from grader.scheduling.cluster_security import (
    CA_FILE,
    InsecureSchedulerError,
    certificates_folder,
    client_security,
    listener_problems,
    scheme_of,
)

WORKER_WAIT_SECONDS = 60


class ClusterSetupError(RuntimeError):
    """The cluster cannot grade this course (no workers, course folder or gradebook differs)."""


def lock_name(course_root: str, assignment: str, student: str) -> str:
    """The cluster-wide lock held while one student's assignment is graded."""
    return f"grader:{course_root}:{assignment}:{student}"


def run_exclusively(task, course_root: str, assignment: str, student: str, *args):
    """``task(course_root, assignment, student, *args)`` on a worker, holding the student's
    cluster-wide lock (the body of every grading task sent to the cluster)."""
    from distributed import Lock

    with Lock(lock_name(course_root, assignment, student)):
        return task(course_root, assignment, student, *args)


def grade_one_exclusively(course_root: str, assignment: str, student: str) -> GradingOutcome:
    """``grade_one`` on a worker, holding the student's cluster-wide lock (a Dask task)."""
    return run_exclusively(grade_one, course_root, assignment, student)


def worker_view(course_root: str) -> dict:
    """What a worker sees of the course: its machine, whether the folder is there, which gradebook."""
    course = Course(Path(course_root))
    if not (course.root / CONFIG_FILE).is_file():
        return {"host": socket.gethostname(), "course": False, "db_url": None}
    return {"host": socket.gethostname(), "course": True, "db_url": printable_db_url(course.db_url)}


def cluster_problems(views: dict[str, dict], course: Course, local_host: str) -> list[str]:
    """Why workers with these ``worker_view``s cannot grade ``course`` (empty: they can).

    local_host: the host name of the machine submitting the tasks.
    """
    expected = printable_db_url(course.db_url)
    problems = []
    for worker, view in sorted(views.items()):
        if not view["course"]:
            problems.append(f"worker {worker} does not see the course folder {course.root} (no {CONFIG_FILE}); "
                            "mount the shared course folder at the same path on every worker")
        elif view["db_url"] != expected:
            problems.append(f"worker {worker} would write to the gradebook {view['db_url']}, not {expected}; "
                            "give every worker the same GRADER_DB_URL (or db_url in nbgrader_config.py)")
        elif course.sqlite_file is not None and view["host"] != local_host:
            problems.append(f"worker {worker} runs on another machine ({view['host']}) but the gradebook is "
                            f"the SQLite file {course.sqlite_file}, which must not be shared over a network "
                            "file system; set GRADER_DB_URL to a PostgreSQL database on every machine")
    return problems


def check_listeners(client, course: Course, scheduler_address: str) -> None:
    """InsecureSchedulerError unless the scheduler and every worker and nanny reject strangers."""
    workers = client.scheduler_info(n_workers=-1)["workers"]
    others = [address for worker, info in sorted(workers.items())
              for address in (worker, info.get("nanny")) if address]
    problems = listener_problems(scheduler_address, others, certificates_folder(course) / CA_FILE)
    if problems:
        raise InsecureSchedulerError("refusing to grade on this cluster:\n  " + "\n  ".join(problems))


def wait_for_a_worker(client) -> None:
    """ClusterSetupError unless a worker joins within WORKER_WAIT_SECONDS."""
    try:
        client.wait_for_workers(1, timeout=WORKER_WAIT_SECONDS)
    except TimeoutError:
        raise ClusterSetupError(f"no Dask worker joined the scheduler within {WORKER_WAIT_SECONDS} s; "
                                "start workers with `dask worker SCHEDULER_ADDRESS` "
                                "(docs/operations/cluster.md)") from None


def check_workers(client, course: Course) -> None:
    """ClusterSetupError unless every worker can grade ``course`` (see ``cluster_problems``)."""
    problems = cluster_problems(client.run(worker_view, str(course.root)), course, socket.gethostname())
    if problems:
        raise ClusterSetupError("the cluster cannot grade this course:\n  " + "\n  ".join(problems))


def failed_task_outcome(course: Course, assignment: str, student: str, error: BaseException) -> GradingOutcome:
    """Record a submission whose task could not finish (its worker died, the task raised) as ungradable."""
    from distributed import KilledWorker

    if isinstance(error, KilledWorker):
        code, reason = "worker-died", ("the grading worker died while grading this submission, on every "
                                       f"attempt ({error}); grade it again, and check the workers' memory limits")
    else:
        code, reason = "grading-failed", f"grading failed on the cluster: {type(error).__name__}: {str(error)[:300]}"
    try:
        record_ungradable(course, assignment, student, refused(code, reason))
    except Exception as exc:  # the gradebook itself is unreachable: the outcome still says why
        reason += f" (recording it in the gradebook failed too: {type(exc).__name__}: {str(exc)[:200]})"
    return GradingOutcome(student, assignment, False, reason, 0.0, code=code)


def connect(course: Course, scheduler_address: str, insecure_scheduler: bool):
    """A ``distributed.Client`` of the scheduler, with the course's client certificate; every worker
    imports the course's packages from the course folder (``grader.scheduling.course_on_workers``).

    InsecureSchedulerError (see ``grader.scheduling.cluster_security.client_security``) before connecting to
    an insecure scheduler unless ``insecure_scheduler``; ClusterSetupError when it cannot be reached.
    """
    from distributed import Client

    security = client_security(course, scheduler_address, insecure=insecure_scheduler)
    try:
        client = Client(scheduler_address, security=security, set_as_default=False)
    except (OSError, TimeoutError, TypeError) as exc:  # TypeError: tls:// without any TLS settings
        if security is not None:
            hint = ("; check that it runs, and that it was started with the course's ca.pem and its own "
                    "certificate and key (--tls-ca-file, --tls-cert, --tls-key)")
        elif scheme_of(scheduler_address) == "tls":
            hint = (f"; neither {certificates_folder(course)} nor Dask's configuration holds a client "
                    "certificate: make the course's with `grader cluster-certs`")
        else:
            hint = "; check that it runs and that this machine can reach it"
        raise ClusterSetupError(f"cannot connect to the scheduler at {scheduler_address}: {exc}{hint}") from None
    from grader.scheduling.course_on_workers import register_course_packages

    register_course_packages(client, str(course.root))  # before any task: tasks import the course's packages
    return client


def grade_on_dask(course: Course, assignment: str, students: list[str] | None,
                  scheduler_address: str, insecure_scheduler: bool = False) -> list[GradingOutcome]:
    """Autograde ``students`` (default: every submitted one) on the Dask cluster at ``scheduler_address``.

    Returns one outcome per distinct student, in student order. ClusterSetupError when the cluster
    cannot grade the course (see the module docstring); InsecureSchedulerError when it would let
    strangers in (mutual TLS missing) and ``insecure_scheduler`` is not set. Nothing is graded then.
    """
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise ClusterSetupError("grading on a cluster needs Dask distributed: "
                                "pip install 'scaled-attention-lab[cluster]'") from None

    students = sorted(set(students if students is not None else course.students(assignment)))
    if not students:
        return []
    root = str(course.root)
    run = uuid.uuid4().hex[:8]
    with connect(course, scheduler_address, insecure_scheduler) as client:
        enable_concurrent_writers(course)
        wait_for_a_worker(client)
        if not insecure_scheduler:
            check_listeners(client, course, scheduler_address)
        check_workers(client, course)
        futures = [client.submit(grade_one_exclusively, root, assignment, student, pure=False,
                                 key=f"autograde-{assignment}-{student}-{run}")
                   for student in students]
        outcomes = []
        for student, future in zip(students, futures):
            try:
                outcomes.append(future.result())
            except (Exception, asyncio.CancelledError) as error:  # KilledWorker, a raising task, a lost scheduler
                outcomes.append(failed_task_outcome(course, assignment, student, error))
        return outcomes
