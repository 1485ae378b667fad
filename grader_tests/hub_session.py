"""One course hub for the hub tests, started with the real command (``grader hub up``) as root.

    course_hub.url, course_hub.student(0), course_hub.instructor, course_hub.layout

The session fixture starts ``grader hub up`` (4 students, 02_softmax, any free port) in its own
process, waits until the hub has recorded itself as ready, and at the end sends it SIGTERM (the
command's own teardown), then runs ``grader hub down`` in-process as well, so that processes,
accounts and folders are gone even when a test or the command failed.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from grader.hub import preflight
from grader.hub.accounts import Account, Accounts
from grader.hub.layout import HubLayout
from grader.hub.lifecycle import RunningHub, down
from grader_tests.account_prefix import unused_account_prefix

ASSIGNMENT = "02_softmax"
NOTEBOOK = "softmax.ipynb"
# The first run builds the students' environment with pip: minutes on a busy machine.
UP_TIMEOUT = 1500
DOWN_TIMEOUT = 120


def hub_skip_reason() -> str | None:
    problems = preflight.missing()
    return "; ".join(problems) if problems else None


@dataclass
class CourseHub:
    layout: HubLayout
    running: RunningHub
    accounts: Accounts
    command: subprocess.Popen
    log: Path

    @property
    def url(self) -> str:
        return self.running.url

    @property
    def instructor(self) -> Account:
        return self.accounts.instructor

    def student(self, index: int) -> Account:
        return self.accounts.students[index]

    @property
    def logs(self) -> list[Path]:
        """The logs of the hub and of its grading service."""
        return [self.layout.log("hub"), self.layout.log("watch")]

    @property
    def course(self) -> Path:
        return self.layout.course


def wait_ready(layout: HubLayout, command: subprocess.Popen, log: Path) -> RunningHub:
    deadline = time.monotonic() + UP_TIMEOUT
    while time.monotonic() < deadline:
        if layout.processes_file.exists():
            return RunningHub.load(layout.processes_file)
        if command.poll() is not None:
            raise RuntimeError(f"grader hub up exited with {command.returncode}:\n{log.read_text()[-4000:]}")
        time.sleep(1)
    raise RuntimeError(f"grader hub up was not ready within {UP_TIMEOUT} s:\n{log.read_text()[-4000:]}")


def require_hub() -> None:
    """Skip the test when this machine cannot run the course hub; under CI, fail it instead (CI installs
    what the hub needs, so a hub that cannot run there is a broken set-up, not a reason to skip)."""
    reason = hub_skip_reason()
    if reason:
        if os.environ.get("CI"):
            pytest.fail(f"the course hub cannot run: {reason} (.ci/run installs what it needs)")
        pytest.skip(reason)


@pytest.fixture(scope="session")
def course_hub(tmp_path_factory):
    require_hub()
    root = Path(tempfile.mkdtemp(prefix="sal-hub-"))
    layout = HubLayout(root=root)
    log = tmp_path_factory.mktemp("hub") / "grader-hub-up.log"
    prefix = unused_account_prefix("h")
    with open(log, "wb") as out:
        command = subprocess.Popen(
            [sys.executable, "-m", "grader.cli", "hub", "up", "--root", str(root), "--students", "4",
             "--port", "0", "--prefix", prefix, "--assignments", ASSIGNMENT],
            stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        running = wait_ready(layout, command, log)
        yield CourseHub(layout, running, Accounts.load(layout.accounts_file), command, log)
    finally:
        stop_hub(command, layout)


def stop_hub(command: subprocess.Popen, layout: HubLayout) -> None:
    """Stop the ``grader hub up`` process ``command`` (SIGTERM, its own teardown; killed after
    ``DOWN_TIMEOUT`` seconds), then run ``grader hub down`` for ``layout`` in-process, so that
    processes, accounts and folders are gone even when the command failed."""
    if command.poll() is None:
        command.send_signal(signal.SIGTERM)
        try:
            command.wait(timeout=DOWN_TIMEOUT)
        except subprocess.TimeoutExpired:
            command.kill()
            command.wait()
    down(layout, say=lambda *_: None)


@pytest.fixture(scope="session")
def hub_artefacts() -> Path:
    """Where the hub tests' screenshots go: ``$GRADER_TEST_ARTEFACTS/hub`` if set, else the
    repository's ``test-artefacts/hub/`` (ignored by git), emptied at the start of the session."""
    import shutil

    from browser import ARTEFACTS_ENV

    from grader_tests.checkout import REPO_ROOT

    configured = os.environ.get(ARTEFACTS_ENV)
    folder = (Path(configured) if configured else REPO_ROOT / "test-artefacts") / "hub"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return folder
