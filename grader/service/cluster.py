"""The service's gradings on a Dask cluster: ``grader watch --scheduler ADDRESS``.

The same cluster ``grader autograde --scheduler`` grades on, with the same parts of
``grader.scheduling.dask_cluster``: the same connection (mutual TLS with the course's certificates; a
``tcp://`` scheduler only with ``--insecure-scheduler``), every worker is asked what it sees before anything is sent
(:func:`grader.scheduling.dask_cluster.check_workers`: the course folder at the same path, the same
gradebook, no SQLite file shared between machines), and each grading is one task holding the
student's cluster-wide lock (:func:`grader.scheduling.dask_cluster.run_exclusively`). A worker that dies
mid-task has the task re-run on another one (Dask's ``allowed-failures``); a task that still fails
comes back to the service as an exception, and the service grades the hand-in again up to its
own limit of attempts, then records it as ungradable with the reason.

The service itself (journal, collecting, releasing) runs where it was started; the course folder
is shared with every worker and the gradebook is PostgreSQL when workers are on several machines
(``GRADER_DB_URL``).
"""
from __future__ import annotations

import uuid

from grader.course import Course
from grader.scheduling.dask_cluster import (
    ClusterSetupError,
    check_listeners,
    check_workers,
    connect,
    run_exclusively,
    wait_for_a_worker,
)


class DaskGrading:
    """An executor-like front of a Dask client: ``submit`` returns a future with ``done``,
    ``result`` and ``add_done_callback``, as the service's local process pool does."""

    def __init__(self, course: Course, scheduler_address: str, insecure_scheduler: bool = False):
        try:
            import distributed  # noqa: F401
        except ImportError:
            raise ClusterSetupError("grading on a cluster needs Dask distributed: "
                                    "pip install 'scaled-attention-lab[cluster]'") from None
        self.client = connect(course, scheduler_address, insecure_scheduler)
        try:
            wait_for_a_worker(self.client)
            if not insecure_scheduler:
                check_listeners(self.client, course, scheduler_address)
            check_workers(self.client, course)
        except BaseException:
            self.client.close()
            raise
        self._run = uuid.uuid4().hex[:8]

    def submit(self, task, course_root: str, assignment: str, student: str, *args):
        """``task(course_root, assignment, student, *args)`` as one task holding the student's lock."""
        return self.client.submit(run_exclusively, task, course_root, assignment, student, *args,
                                  pure=False, key=f"watch-{assignment}-{student}-{uuid.uuid4().hex[:8]}-{self._run}")

    def warm(self, task, *args) -> None:
        """Run ``task(*args)`` once on every worker now (loading what every grading reuses)."""
        self.client.run(task, *args)

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        self.client.close()
