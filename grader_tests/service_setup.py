"""A course with a temporary exchange for the grading-service tests (no real accounts needed).

Students hand in through nbgrader's exchange classes in-process (``grader.service.student``),
with explicit student ids, so a test can hand in a hundred submissions in seconds.
"""
from __future__ import annotations

import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest

import nbformat

from grader.course import Course
from grader.service.exchange import CourseExchange
from grader.service.student import StudentSide
from grader.submissions import build_notebook, get_submission


class ServiceCourse:
    """A private course copy, its exchange (released assignments) and helpers to hand in.

    The caller sets GRADER_EXCHANGE_ROOT to ``top / "exchange"`` first (the course config reads it).
    """

    def __init__(self, template: Course, top: Path, assignments: tuple[str, ...]):
        self.course = Course(top / "course")
        shutil.copytree(template.root, self.course.root)
        self.course.root.chmod(0o700)
        self.exchange_root = top / "exchange"
        self.homes = top / "homes"
        self.exchange = CourseExchange(self.course)
        for assignment in assignments:
            self.exchange.release_assignment(assignment)

    def student(self, name: str) -> StudentSide:
        return StudentSide(name, self.homes / name, self.exchange.course_id, self.exchange_root)

    def notebook_text(self, assignment: str, submission: str) -> str:
        release = nbformat.read(self.course.release_notebook(assignment), as_version=4)
        source = nbformat.read(self.course.source_notebook(assignment), as_version=4)
        return nbformat.writes(build_notebook(get_submission(assignment, submission), release, source))

    def hand_in(self, student: str, assignment: str, files: dict[str, str | bytes]) -> StudentSide:
        """``student`` fetches ``assignment``, replaces its files with ``files`` and submits."""
        side = self.student(student)
        folder = side.fetch(assignment)
        for old in folder.glob("*.ipynb"):
            old.unlink()
        for name, content in files.items():
            path = folder / name
            path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
        side.submit(assignment)
        return side


@contextmanager
def temporary_service_course(template: Course, prefix: str, assignments: tuple[str, ...]) -> Iterator[ServiceCourse]:
    """A ServiceCourse in a fresh temporary folder with its own exchange (``GRADER_EXCHANGE_ROOT``),
    removed afterwards."""
    top = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("GRADER_EXCHANGE_ROOT", str(top / "exchange"))
            yield ServiceCourse(template, top, assignments)
    finally:
        shutil.rmtree(top, ignore_errors=True)
