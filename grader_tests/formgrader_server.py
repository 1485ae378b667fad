"""A real Jupyter server with nbgrader's formgrader, on 127.0.0.1, serving a course folder.

    with FormgraderServer(course) as server:
        server.submission_url(student, assignment)   # the formgrader's view of one submission

The server runs in the course folder, so the formgrader reads the course's ``nbgrader_config.py``
(its ``HTMLExporter`` settings included), as when an instructor starts Jupyter there. Logging in
is the token in the first URL a browser opens (the server then sets its login cookie).
"""
from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from nbgrader.api import Gradebook

from grader.course import Course
from grader_tests.checkout import notebook_name

START_TIMEOUT = 120  # seconds: a busy machine starts Jupyter slowly


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class FormgraderServer:
    def __init__(self, course: Course, log: Path):
        self.course, self.log_path = course, log
        self.port, self.token = _free_port(), secrets.token_hex(16)
        self.origin = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen | None = None

    def __enter__(self) -> "FormgraderServer":
        jupyter = str(Path(sys.executable).parent / "jupyter")
        env = {**os.environ, "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""),
               "JUPYTER_RUNTIME_DIR": str(self.log_path.parent / "jupyter-runtime")}
        self._log = open(self.log_path, "wb")
        self.process = subprocess.Popen(
            [jupyter, "server", "--no-browser", "--ip=127.0.0.1", f"--port={self.port}", "--allow-root",
             f"--IdentityProvider.token={self.token}", f"--ServerApp.root_dir={self.course.root}",
             "--ServerApp.open_browser=False"],
            cwd=self.course.root, env=env, stdout=self._log, stderr=subprocess.STDOUT)
        try:
            self._wait_until_up()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def _wait_until_up(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"jupyter server exited with {self.process.returncode}; see {self.log_path}")
            try:
                urllib.request.urlopen(f"{self.origin}/api/status?token={self.token}", timeout=5).read()
                return
            except (urllib.error.URLError, OSError):
                time.sleep(0.5)
        raise RuntimeError(f"jupyter server did not answer within {START_TIMEOUT} s; see {self.log_path}")

    def __exit__(self, *exc_info) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._log.close()

    def url(self, path: str) -> str:
        """``path`` on the server, logged in with the token."""
        return f"{self.origin}{path}{'&' if '?' in path else '?'}token={self.token}"

    def submission_url(self, student: str, assignment: str) -> str:
        """The formgrader's view of ``student``'s notebook of ``assignment``."""
        with Gradebook(self.course.db_url) as gb:
            submission_id = gb.find_submission_notebook(notebook_name(assignment), assignment, student).id
        return self.url(f"/formgrader/submissions/{submission_id}/")
