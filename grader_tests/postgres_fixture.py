"""The PostgreSQL server of a test run, for every test of a gradebook on PostgreSQL.

``postgres_admin_url``: a superuser URL, from ``GRADER_TEST_POSTGRES_URL`` (``.ci/run`` starts the
server with ``grader_tests/postgres_server.py``) or a server started here from the installed
binaries; without one the tests using it are skipped, except under CI (``CI=true``), where they fail.
"""
from __future__ import annotations

import os
import subprocess

import pytest

from grader.course import printable_db_url

import postgres_server


@pytest.fixture(scope="session")
def postgres_admin_url(tmp_path_factory):
    """A superuser URL of a running PostgreSQL server (skip, or fail under CI, when there is none)."""
    started = None
    url = os.environ.get(postgres_server.URL_VARIABLE)
    try:
        if not url:
            started = tmp_path_factory.mktemp("postgres")
            url = postgres_server.start_server(started)
    except (postgres_server.NoServer, subprocess.SubprocessError, OSError) as exc:
        detail = getattr(exc, "stderr", "") or ""
        no_server(f"cannot start a PostgreSQL server: {exc} {detail}".strip())
    problem = postgres_server.can_connect(url)
    if problem:
        no_server(f"the PostgreSQL server {printable_db_url(url)} does not answer: {problem}")
    yield url
    if started is not None:
        postgres_server.stop_server(started)


def no_server(reason: str):
    """Skip the test, or fail it under CI, which must test the PostgreSQL gradebook."""
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"CI must test the PostgreSQL gradebook, but {reason}")
    pytest.skip(reason)
