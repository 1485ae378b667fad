"""Shared fixtures: temporary course folders laid out like the real one."""
from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

# Session fixtures shared by several test modules live here, imported once: a fixture imported into
# two test modules is two fixtures, and two Playwright instances in one process fail.
from browser import browser, browser_artefacts  # noqa: E402,F401
from graded_class import graded_class  # noqa: E402,F401
from hub_session import course_hub, hub_artefacts  # noqa: E402,F401
from hub_student_path import student_path  # noqa: E402,F401
from postgres_fixture import postgres_admin_url  # noqa: E402,F401

from grader.course import Course
from grader.release import generate_release
from grader_tests.checkout import ASSIGNMENTS, create_course

# nbgrader runs the `alembic` executable when it creates a gradebook: use the one of this environment.
os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")


# Fixtures that run real nbgrader (a generated course) or a real browser: a test that uses one,
# directly or through another fixture, is slow (`make quicktest` leaves it out).
SLOW_FIXTURES = frozenset({"released_course_template", "graded_class", "browser", "course_hub"})


def pytest_collection_modifyitems(items):
    for item in items:
        if SLOW_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def released_course_template(tmp_path_factory) -> Course:
    """A course with all four assignments generated (gradebook + release). Do not modify: copy it."""
    course = create_course(tmp_path_factory.mktemp("course-template"))
    for assignment in ASSIGNMENTS:
        generate_release(course, assignment)
    return course


@pytest.fixture
def course(released_course_template, tmp_path) -> Course:
    """A private copy of the released course for one test."""
    root = tmp_path / "course"
    shutil.copytree(released_course_template.root, root)
    return Course(root)
