"""nbgrader's formgrader on a course graded by ``grader autograde``, in a real Jupyter server and Chromium.

A Jupyter server with nbgrader's formgrader extension serves the shared graded class
(``graded_class``) on a free localhost port with token authentication. The assignment and
submission views, filled in by the formgrader's own JavaScript from its API, show the gradebook's
scores; a manual score typed into the submission view reaches the gradebook.

The formgrader's submission view loads MathJax from a CDN (nbconvert's default); with no
network that request fails and formgrade.js reports ``MathJax is not defined``. Those two
messages are expected here and allowed, nothing else is.
"""
from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

import pytest
from browser import open_page
from graded_class import ASSIGNMENT, LATE_STUDENT, UNGRADABLE_STUDENT
from nbgrader.api import Gradebook

pytestmark = pytest.mark.slow

NOTEBOOK = "softmax"
START_TIMEOUT = 180  # seconds: the server imports nbgrader, nbconvert and jupyterlab on a busy machine
OFFLINE_MATHJAX = re.compile(r"Failed to load resource: net::ERR_|MathJax is not defined")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Formgrader:
    """A running Jupyter server with the formgrader; ``url(path)`` carries the token."""

    def __init__(self, course, tmp_path):
        self.port, self.token = _free_port(), secrets.token_hex(16)
        self.base = f"http://127.0.0.1:{self.port}"
        home = tmp_path / "jupyter"
        (home / "config").mkdir(parents=True, exist_ok=True)
        (home / "config" / "jupyter_server_config.json").write_text(json.dumps(
            {"ServerApp": {"jpserver_extensions": {"nbgrader.server_extensions.formgrader": True}}}), encoding="utf-8")
        env = {**os.environ, "JUPYTER_CONFIG_DIR": str(home / "config"), "JUPYTER_DATA_DIR": str(home / "data"),
               "JUPYTER_RUNTIME_DIR": str(home / "runtime"), "PATH": os.path.dirname(sys.executable) + os.pathsep
               + os.environ.get("PATH", "")}
        command = [sys.executable, "-m", "jupyter_server", "--no-browser", f"--port={self.port}",
                   "--ServerApp.port_retries=0", "--ServerApp.ip=127.0.0.1", f"--IdentityProvider.token={self.token}",
                   f"--ServerApp.root_dir={course.root}"]
        if os.geteuid() == 0:
            command.append("--allow-root")
        self.log = open(tmp_path / "jupyter-server.log", "w+", encoding="utf-8")
        # The course folder is the working directory, so the formgrader reads its nbgrader_config.py.
        self.process = subprocess.Popen(command, cwd=course.root, env=env, stdout=self.log, stderr=subprocess.STDOUT)

    def url(self, path: str) -> str:
        return f"{self.base}{path}"

    def login(self, browser) -> list[dict]:
        """The session cookies of a browser that logged in with the token (as a user's first visit does)."""
        context = browser.new_context()
        try:
            context.new_page().goto(f"{self.base}/login?token={self.token}", wait_until="load", timeout=60_000)
            return context.cookies()
        finally:
            context.close()

    def wait_until_up(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                break
            try:
                request = urllib.request.Request(self.url("/formgrader/api/status"),
                                                 headers={"Authorization": f"token {self.token}"})
                with urllib.request.urlopen(request, timeout=5) as answer:
                    if answer.status == 200:
                        return
            except OSError:
                time.sleep(0.5)
        self.log.seek(0)
        raise AssertionError(f"the Jupyter server did not start; its log:\n{self.log.read()[-4000:]}")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()


@pytest.fixture(scope="module")
def formgrader(graded_class, tmp_path_factory, browser):
    # A copy, so that manual grading here does not change the course the report tests read.
    root = tmp_path_factory.mktemp("formgrader") / "course"
    shutil.copytree(graded_class.course.root, root)
    course = type(graded_class.course)(root)
    server = Formgrader(course, root.parent)
    try:
        server.wait_until_up()
        server.cookies = server.login(browser)
        yield server, course
    finally:
        server.stop()


def _rows_when_filled(selector: str, count: int) -> str:
    """A script for ``open_page``'s marks: wait until ``count`` table rows are drawn, then their cell texts."""
    return f"""new Promise((resolve, reject) => {{
        const started = Date.now();
        const poll = () => {{
            const rows = Array.from(document.querySelectorAll({selector!r}));
            if (rows.length >= {count}) resolve(rows.map(r => Array.from(r.cells).map(c => c.innerText.trim())));
            else if (Date.now() - started > 60000) reject(new Error('only ' + rows.length + ' rows drawn'));
            else setTimeout(poll, 200);
        }};
        poll();
    }})"""


def _gradebook_scores(course) -> dict[str, tuple[float, float]]:
    with Gradebook(course.db_url) as gb:
        return {s.student.id: (float(s.score), float(s.max_score)) for s in gb.assignment_submissions(ASSIGNMENT)}


def _fraction(text: str) -> tuple[float, float]:
    score, max_score = (float(part) for part in text.split("/"))
    return score, max_score


def test_manage_submissions_view_shows_every_student_with_the_gradebook_score(formgrader, browser, browser_artefacts):
    server, course = formgrader
    expected = _gradebook_scores(course)
    seen = open_page(browser, server.url(f"/formgrader/manage_submissions/{ASSIGNMENT}"),
                     browser_artefacts / "formgrader-manage-submissions.png",
                     cookies=server.cookies, marks_script=_rows_when_filled("table tbody tr", len(expected)))
    assert seen.console_errors == []
    shown = {row[1]: _fraction(row[4]) for row in seen.marks}
    assert shown.keys() == expected.keys() and UNGRADABLE_STUDENT in shown
    assert all(shown[s] == pytest.approx(expected[s], abs=0.006) for s in expected)
    assert all(re.match(r"^http://127\.0\.0\.1:", url) for url in seen.network_requests)


def test_gradebook_notebook_view_shows_the_same_scores(formgrader, browser, browser_artefacts):
    """The manual-grading list of a notebook: every submission with an autograded notebook.

    The ungradable hand-in has none (its file was not a notebook), so it is listed only in the
    manage-submissions view, with its 0.
    """
    server, course = formgrader
    expected = sorted(v for s, v in _gradebook_scores(course).items() if s != UNGRADABLE_STUDENT)
    seen = open_page(browser, server.url(f"/formgrader/gradebook/{ASSIGNMENT}/{NOTEBOOK}"),
                     browser_artefacts / "formgrader-gradebook-notebook.png",
                     cookies=server.cookies, marks_script=_rows_when_filled("table tbody tr", len(expected)))
    assert seen.console_errors == []
    shown = sorted(_fraction(row[2]) for row in seen.marks)
    assert len(shown) == len(expected)
    assert all(got == pytest.approx(want, abs=0.006) for got, want in zip(shown, expected))


def _submission_page(server, course, browser, student):
    with Gradebook(course.db_url) as gb:
        notebook = gb.find_submission_notebook(NOTEBOOK, ASSIGNMENT, student)
        auto_scores = {g.name: float(g.auto_score) for g in notebook.grades}
        notebook_id = notebook.id
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_cookies(server.cookies)
    page = context.new_page()
    page.set_default_timeout(60_000)
    errors = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server.url(f"/formgrader/submissions/{notebook_id}/"), wait_until="load")
    page.wait_for_function("Array.from(document.querySelectorAll('input.score')).every(i => i.placeholder !== '')")
    return context, page, errors, auto_scores


def test_submission_view_shows_each_cell_score_from_the_gradebook(formgrader, browser, browser_artefacts):
    server, course = formgrader
    context, page, errors, auto_scores = _submission_page(server, course, browser, LATE_STUDENT)
    try:
        shown = dict(page.eval_on_selector_all("input.score", "els => els.map(e => [e.id, e.placeholder])"))
        page.screenshot(path=str(browser_artefacts / "formgrader-submission.png"))
    finally:
        context.close()
    assert {name: float(value) for name, value in shown.items()} == pytest.approx(auto_scores, abs=0.006)
    assert [e for e in errors if not OFFLINE_MATHJAX.search(e)] == []


def test_a_manual_score_typed_into_the_submission_view_reaches_the_gradebook(formgrader, browser):
    server, course = formgrader
    context, page, errors, auto_scores = _submission_page(server, course, browser, LATE_STUDENT)
    before = _gradebook_scores(course)[LATE_STUDENT][0]
    try:
        with page.expect_response(lambda r: "/formgrader/api/grade/" in r.url and r.request.method == "PUT") as put:
            page.fill("input#test_softmax", "3.5")
            page.press("input#test_softmax", "Tab")
        assert put.value.status == 200
    finally:
        context.close()
    with Gradebook(course.db_url) as gb:
        grade = gb.find_grade("test_softmax", NOTEBOOK, ASSIGNMENT, LATE_STUDENT)
        assert (grade.manual_score, grade.score, grade.auto_score) == (3.5, 3.5, auto_scores["test_softmax"])
    assert _gradebook_scores(course)[LATE_STUDENT][0] == pytest.approx(before - auto_scores["test_softmax"] + 3.5)
    assert [e for e in errors if not OFFLINE_MATHJAX.search(e)] == []
