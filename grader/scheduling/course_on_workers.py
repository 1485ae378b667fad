"""The course's packages on every Dask worker: a worker plugin that puts the course folder on the
worker's import path (:func:`grader.course_imports.import_from_course`).

A grading task names functions of ``grader`` that import the course's reference package
(``solutions``) when the worker loads them, so the course folder must be on the worker's import path
before the first task arrives. Dask runs a registered plugin on every worker when it is registered,
and again on each worker that joins or restarts later. This module imports nothing of the course,
so a worker can load it before the course is on its path.
"""
from __future__ import annotations

from distributed.diagnostics.plugin import WorkerPlugin

from grader.course_imports import import_from_course


class CoursePackagesOnWorker(WorkerPlugin):
    """Puts ``course_root`` (an absolute path, the same on every worker) first on a worker's import path."""

    def __init__(self, course_root: str):
        self.course_root = course_root
        self.name = f"grader-course-packages:{course_root}"  # one registration per course

    def setup(self, worker) -> None:
        import_from_course(self.course_root)


def register_course_packages(client, course_root: str) -> None:
    """Make every worker of ``client``'s cluster, present and future, import the course's packages
    from ``course_root``."""
    client.register_plugin(CoursePackagesOnWorker(course_root))
