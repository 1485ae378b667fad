"""A course with a temporary exchange for the grading-service tests.

Students hand in through nbgrader's exchange classes in-process (``grader.service.student``), so a
test can hand in a hundred submissions in seconds. Each student is a real Unix account (created
with useradd, removed afterwards; root only), and each hand-in belongs to it, as one made by
``nbgrader submit`` from that account would: the service refuses hand-ins owned by root.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Iterator

import nbformat
import pytest

from grader.course import Course
from grader.demo.corpus import build_notebook, get_submission
from grader.service.exchange import CourseExchange
from grader.service.student import StudentSide, temporary_account_name, temporary_accounts
from grader_tests.account_prefix import unused_account_prefix


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
        self._prefix = unused_account_prefix("s")
        self._accounts: dict[str, str] = {}
        self._removals = ExitStack()

    def planned_id(self, name: str) -> str:
        """The id the test's student ``name`` gets (before its account exists)."""
        return temporary_account_name(name, self._prefix)

    def student_id(self, name: str) -> str:
        """The id (and account) of the test's student ``name``: created on first use."""
        if name not in self._accounts:
            self._accounts.update(self._removals.enter_context(
                temporary_accounts([name], prefix=self._prefix)))
        return self._accounts[name]

    def remove_accounts(self) -> None:
        self._removals.close()
        self._accounts.clear()

    def student(self, name: str) -> StudentSide:
        return StudentSide(self.student_id(name), self.homes / name, self.exchange.course_id,
                           self.exchange_root)

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
    setup = None
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("GRADER_EXCHANGE_ROOT", str(top / "exchange"))
            setup = ServiceCourse(template, top, assignments)
            yield setup
    finally:
        if setup is not None:
            setup.remove_accounts()
        shutil.rmtree(top, ignore_errors=True)


def accounts_skip_reason() -> str | None:
    """Why the service tests cannot create real student accounts here, or None."""
    if os.geteuid() != 0:
        return "needs root to create real student accounts (useradd)"
    if shutil.which("useradd") is None or shutil.which("userdel") is None:
        return "needs useradd and userdel (Debian's passwd package)"
    return None
