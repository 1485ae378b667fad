"""Fetching a released assignment as a student does, with the course's translating fetch: an
exchange laid out in a temporary folder, nbgrader's exchange API, the student's language."""
from __future__ import annotations

import shutil
from pathlib import Path

from nbgrader.auth import Authenticator
from nbgrader.coursedir import CourseDirectory
from traitlets.config import Config

from grader_tests.checkout import ASSIGNMENTS
from notebook_language.fetch import TranslatingFetchAssignment

COURSE_ID = "scaled-attention-lab"


def publish(release_folder: Path, exchange: Path, assignment: str) -> None:
    """Put ``release_folder`` where nbgrader's folder exchange offers ``assignment`` to students."""
    shutil.copytree(release_folder, exchange / COURSE_ID / "outbound" / assignment, dirs_exist_ok=True)


def fetch(exchange: Path, home: Path, assignment: str, locales: Path, **traits) -> Path:
    """Fetch ``assignment`` into ``home`` with :class:`TranslatingFetchAssignment` (``traits``: its
    settings, e.g. ``language="zh"``); the fetched notebook."""
    config = Config()
    config.CourseDirectory.course_id = COURSE_ID
    config.Exchange.root = str(exchange)
    config.Exchange.assignment_dir = str(home)
    config.TranslatingFetchAssignment.locale_dir = str(locales)
    for name, value in traits.items():
        setattr(config.TranslatingFetchAssignment, name, value)
    coursedir = CourseDirectory(config=config)
    coursedir.assignment_id = assignment
    TranslatingFetchAssignment(coursedir=coursedir, authenticator=Authenticator(config=config),
                               config=config).start()
    return home / assignment / f"{ASSIGNMENTS[assignment]}.ipynb"
